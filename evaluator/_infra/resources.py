"""Where the shipped data lives: schemas/ and templates/.

In the repository (and an editable install) they sit at the top level beside the
package; a built wheel carries them inside the package as evaluator/_data/.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # evaluator/, this file being evaluator/_infra/resources.py


def data_dir(name: str) -> Path:
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"sdeval's {name}/ directory is not installed (looked in {_PACKAGE / '_data'})")


def schema_path(filename: str = "evidence-record.schema.json") -> Path:
    return data_dir("schemas") / filename
