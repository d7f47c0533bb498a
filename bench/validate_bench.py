"""`sdeval validate` of 200 records in one call against check-jsonschema on the same 200.

The records are the shipped evidence records (every example the schema accepts as a record),
copied under 200 names into a temporary folder. Both tools are started as fresh processes, one
call each for all 200 files, alternating, so machine noise hits both alike. check-jsonschema
only checks the schema; sdeval also parses safely, builds the models, derives every figure and
runs the whole rule catalog on each record. Goal (issue 39): sdeval at most 1.0x
check-jsonschema's time. The start-up of each (one process each) is in both figures once.

    .venv/bin/python bench/validate_bench.py [--runs 9] [--records 200]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
from pathlib import Path

from timing import BIN, ROOT, alternate, describe

GOAL = 1.0
SCHEMA = ROOT / "schemas" / "evidence-record.schema.json"


def shipped_records() -> list[Path]:
    """The examples that are evidence records (a requirements profile is not)."""
    import yaml

    found = []
    for path in sorted((ROOT / "examples").glob("*")):
        if path.suffix not in (".json", ".yaml") or path.name.startswith("requirements"):
            continue
        doc = json.loads(path.read_text()) if path.suffix == ".json" else yaml.safe_load(path.read_text())
        if isinstance(doc, dict) and "record_version" in doc:
            found.append(path)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--records", type=int, default=200)
    args = parser.parse_args()
    peer = shutil.which("check-jsonschema", path=str(BIN)) or shutil.which("check-jsonschema")
    if peer is None:
        raise SystemExit("check-jsonschema is not installed: scripts/setup test installs it")
    sources = shipped_records()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="sdeval-validate-bench-") as tmp:
        files = []
        for i in range(args.records):
            source = sources[i % len(sources)]
            copy = Path(tmp) / f"{i:03d}-{source.name}"
            shutil.copyfile(source, copy)
            files.append(str(copy))
        ours = [str(BIN / "sdeval"), "validate", *files]
        theirs = [peer, "--schemafile", str(SCHEMA), *files]
        a, b = alternate(ours, theirs, args.runs)
    ma, mb = statistics.median(a), statistics.median(b)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"{cores} cores; 1-minute load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after")
    print(f"{args.records} records ({len(sources)} shipped examples, copied), one call each, {args.runs} alternating runs")
    print(describe("sdeval validate ", a))
    print(describe("check-jsonschema", b))
    ratio = ma / mb
    print(f"ratio sdeval / check-jsonschema: {ratio:.2f} (goal <= {GOAL}: {'met' if ratio <= GOAL else 'NOT met'})")


if __name__ == "__main__":
    main()
