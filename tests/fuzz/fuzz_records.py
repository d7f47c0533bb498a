"""Coverage-guided fuzzing of the loader and the rule engine (atheris / libFuzzer).

Any exception escaping load -> assess -> reporters is a crash. Seeded with the shipped
examples. Run with a fixed budget (seconds):

    .venv/bin/pip install -e '.[fuzz]'
    .venv/bin/python tests/fuzz/fuzz_records.py -max_total_time=120 -seed=1

Crashes it finds are written as crash-* files; each becomes a regression case in
tests/engine/test_fuzz_regressions.py.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from evaluator.engine.loader import load_bytes
    from evaluator.present import REPORTER_BY_NAME
    from evaluator.present.json_document import document as as_document
    from evaluator.rules.assess import assess

ROOT = Path(__file__).resolve().parents[2]


def one_input(data: bytes) -> None:
    # The first byte picks the reader, so both JSON and YAML paths get explored.
    name = "fuzz.yaml" if data[:1] and data[0] & 1 else "fuzz.json"
    result = assess(load_bytes(name, data[1:]))
    json.dumps(as_document([result], full=True))
    for render in REPORTER_BY_NAME.values():
        render([result], True)


def main() -> None:
    corpus = Path(tempfile.mkdtemp(prefix="sdeval-fuzz-corpus-"))
    for i, example in enumerate(sorted((ROOT / "examples").glob("*"))):
        if example.suffix in (".json", ".yaml"):
            marker = b"\x01" if example.suffix == ".yaml" else b"\x00"
            (corpus / f"seed-{i}").write_bytes(marker + example.read_bytes())
    args = [a for a in sys.argv if not a.startswith("--keep-corpus")]
    atheris.Setup([*args, str(corpus)], one_input)
    try:
        atheris.Fuzz()
    finally:
        shutil.rmtree(corpus, ignore_errors=True)


if __name__ == "__main__":
    main()
