"""Whole-process time of `sdeval validate` against check-jsonschema on the same file.

Both commands are started as fresh processes, alternating, so machine noise hits both alike.
check-jsonschema only checks the schema; sdeval also parses safely, builds the models,
derives every figure and runs the whole rule catalog. Target: sdeval no slower.

    .venv/bin/python bench/validate_bench.py [--runs 21] [FILE]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{cmd[0]} failed with exit {done.returncode}")
    return elapsed


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
    for cmd in (ours, theirs):  # warm the file cache and the .pyc files once
        timed(cmd)
    a, b = [], []
    for _ in range(args.runs):
        a.append(timed(ours))
        b.append(timed(theirs))
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"file: {args.file}, {args.runs} alternating runs each")
    print(f"sdeval validate   median {ma * 1000:7.1f} ms  (min {min(a) * 1000:.1f}, max {max(a) * 1000:.1f})")
    print(f"check-jsonschema  median {mb * 1000:7.1f} ms  (min {min(b) * 1000:.1f}, max {max(b) * 1000:.1f})")
    print(f"ratio sdeval / check-jsonschema: {ma / mb:.2f}")


if __name__ == "__main__":
    main()
