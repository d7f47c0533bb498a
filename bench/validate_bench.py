"""Whole-process time of `sdeval validate` against check-jsonschema on the same file.

Both commands are started as fresh processes, alternating, so machine noise hits both alike.
check-jsonschema only checks the schema; sdeval also parses safely, builds the models,
derives every figure and runs the whole rule catalog. Goal (issue 29): sdeval at most 0.6x
check-jsonschema's time.

    .venv/bin/python bench/validate_bench.py [--runs 21] [FILE]
"""

from __future__ import annotations

import argparse
import shutil
import statistics

from timing import BIN, alternate, describe

GOAL = 0.6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", default="examples/complete-offer.yaml")
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    peer = shutil.which("check-jsonschema", path=str(BIN)) or shutil.which("check-jsonschema")
    if peer is None:
        raise SystemExit("check-jsonschema is not installed: scripts/setup test installs it")
    ours = [str(BIN / "sdeval"), "validate", args.file]
    theirs = [peer, "--schemafile", "schemas/evidence-record.schema.json", args.file]
    a, b = alternate(ours, theirs, args.runs)
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"file: {args.file}, {args.runs} alternating runs each")
    print(describe("sdeval validate ", a))
    print(describe("check-jsonschema", b))
    ratio = ma / mb
    print(f"ratio sdeval / check-jsonschema: {ratio:.2f} (goal <= {GOAL}: {'met' if ratio <= GOAL else 'NOT met'})")


if __name__ == "__main__":
    main()
