"""One reporter per output format, all reading the same FileAssessment list (and, with a
requirements profile, the Comparison judged from it).

A format is one module here with `render(results, full, comparison) -> str` and one row in
FORMATS; `validate` and `assess` offer every row. Modules are imported only when their format
is asked for, so the CLI can list the formats without loading any of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..buyer.results import Comparison
    from ..rules.results import FileAssessment

    Reporter = Callable[[list[FileAssessment], bool, "Comparison | None"], str]

# format name -> (module, what it is for). full=False for validate, True for assess.
FORMATS: dict[str, tuple[str, str]] = {
    "text": ("text", "what a person reads in a terminal"),
    "json": ("json_document", "the versioned assessment document"),
    "sarif": ("sarif", "SARIF 2.1.0, for code-scanning uploads"),
    "github": ("github", "GitHub Actions workflow annotations"),
    "junit": ("junit", "JUnit XML, for CI test reports"),
    "gitlab": ("gitlab", "GitLab Code Quality report"),
    "markdown": ("markdown", "Markdown for a CI job summary or a pull-request comment"),
}


class _Reporters(Mapping):
    """FORMATS' render functions, each module imported on first use."""

    def __getitem__(self, name: str) -> Reporter:
        module, _ = FORMATS[name]
        return importlib.import_module(f".{module}", __name__).render

    def __iter__(self) -> Iterator[str]:
        return iter(FORMATS)

    def __len__(self) -> int:
        return len(FORMATS)


REPORTER_BY_NAME: Mapping[str, Reporter] = _Reporters()
