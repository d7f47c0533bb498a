"""Render time of hostile records (tests/support/hostile_records.py, the records tests/report/test_render_hostility.py
proves stay on the page and fetch nothing), in-process, WeasyPrint imported once beforehand.

Prints the median seconds over N renders of each record and, for the run-count ladder, seconds per
run: flat seconds per run means the layout grows linearly with the number of runs.

  long words     every vendor Text field one unbroken word of its maximum length (2,000 / 20,000)
  100k key       an invalid record whose unknown key is one 100,000-character word
  K runs         SD-201 offer B with K runs (alternating speculative and baseline), hostile markup

Usage: .venv/bin/python bench/render_hostile.py [N] [--max-runs 2000]
Targets: long words under 15 s; 100k key under 15 s; 2,000 runs under 10 minutes (0.3 s per run).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from support.hostile_records import hostile_record, invalid_record_with_long_key  # noqa: E402

TRAP = "http://127.0.0.1:9"  # discard port: a fetch would fail, and the fetcher refuses it first anyway


def render_seconds(record: dict, n: int) -> tuple[float, int]:
    from evaluator.pipeline import reassess
    from evaluator.report.render import render_pdf

    times, size = [], 0
    raw = json.dumps(record, ensure_ascii=False).encode()
    for _ in range(n):
        t0 = time.perf_counter()
        size = len(render_pdf(reassess([("hostile.json", raw)]), signer=None))
        times.append(time.perf_counter() - t0)
    return statistics.median(times), size


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("n", type=int, nargs="?", default=3)
    parser.add_argument("--max-runs", type=int, default=2000)
    args = parser.parse_args()
    import weasyprint  # noqa: F401  (import cost is bench/render_sign.py's subject, not this one's)

    print(f"{'record':<16}{'median s':>10}{'s per run':>11}{'PDF bytes':>12}   (N={args.n}; 1 render at 1,000 runs or more)")
    for name, record in (("long words", hostile_record(TRAP, runs=2)), ("100k key", invalid_record_with_long_key())):
        seconds, size = render_seconds(record, args.n)
        print(f"{name:<16}{seconds:>10.2f}{'':>11}{size:>12,}")
    for runs in sorted({20, 200, args.max_runs}):
        seconds, size = render_seconds(hostile_record(TRAP, runs=runs, long_words=False), args.n if runs < 1000 else 1)
        print(f"{f'{runs} runs':<16}{seconds:>10.2f}{seconds / runs:>11.3f}{size:>12,}")


if __name__ == "__main__":
    main()
