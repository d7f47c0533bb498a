"""Whole-process time of `sdeval assess OFFER... --requirements PROFILE` against plain
`sdeval assess OFFER...` on the same offers: what judging a buyer's profile adds.

Both commands start as fresh processes, alternating, so machine noise hits both alike.
The requirements run re-applies the record rules to every run (a buyer may use runs no
claim rests on) and judges every requirement at every required load. Target: at most
1.5x the plain assessment.

    .venv/bin/python bench/requirements_bench.py [--runs 21] [--profile P] [OFFER...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from timing import BIN, ROOT, alternate, describe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("offers", nargs="*", default=["examples/complete-offer.yaml", "examples/quiet-load-offer.yaml"])
    parser.add_argument("--profile", default="examples/requirements.yaml")
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    plain = [str(BIN / "sdeval"), "assess", "--format", "json", *args.offers]
    fit = [*plain, "--requirements", args.profile]
    a, b = alternate(fit, plain, args.runs)
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"offers: {' '.join(args.offers)}; profile: {args.profile}; {args.runs} alternating runs each")
    print(describe("assess --requirements", a))
    print(describe("assess               ", b))
    print(f"ratio with / without requirements: {ma / mb:.2f}")
    in_process(args)


def in_process(args: argparse.Namespace) -> None:
    """The same work without process start-up: assessing the offers, then judging the profile."""
    sys.path.insert(0, str(ROOT))
    from evaluator.buyer.judge import compare
    from evaluator.buyer.profile import load_requirements
    from evaluator.engine.loader import load_file
    from evaluator.rules.assess import assess

    loaded = [load_file(str(ROOT / p)) for p in args.offers]
    profile, _ = load_requirements(str(ROOT / args.profile))
    a, b = [], []
    for _ in range(args.runs):
        start = time.perf_counter()
        results = [assess(item) for item in loaded]
        middle = time.perf_counter()
        compare(profile, results)
        b.append(middle - start)
        a.append(time.perf_counter() - middle)
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"in process: compare (requirements) median {ma * 1000:.2f} ms; assess (offers) median {mb * 1000:.2f} ms; ratio {ma / mb:.2f}")


if __name__ == "__main__":
    main()
