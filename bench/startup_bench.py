"""Whole-process time of `sdeval --version` and `sdeval --help` against check-jsonschema's
`--version`, alternating in one run. A command that only names versions or prints help should
load no model and no rule. Goal: `sdeval --version` at most 0.7x check-jsonschema's.

    .venv/bin/python bench/startup_bench.py [--runs 21]
"""

from __future__ import annotations

import argparse
import shutil
import statistics

from timing import BIN, alternate, describe

GOAL = 0.7


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    peer = shutil.which("check-jsonschema", path=str(BIN)) or shutil.which("check-jsonschema")
    if peer is None:
        raise SystemExit("check-jsonschema is not installed: scripts/setup test installs it")
    print(f"{args.runs} alternating runs each")
    for ours in (["--version"], ["--help"]):
        a, b = alternate([str(BIN / "sdeval"), *ours], [peer, "--version"], args.runs)
        ratio = statistics.median(a) / statistics.median(b)
        print(describe(f"sdeval {ours[0]:<9}        ", a))
        print(describe("check-jsonschema --version", b))
        goal = f" (goal <= {GOAL}: {'met' if ratio <= GOAL else 'NOT met'})" if ours == ["--version"] else " (no goal)"
        print(f"ratio sdeval {ours[0]} / check-jsonschema --version: {ratio:.2f}{goal}")


if __name__ == "__main__":
    main()
