"""How fast does `sdeval import vllm-responses` read a large JSONL file, next to DuckDB?

Generates N lines of vLLM-shaped responses (every 50th with null metrics, as an n > 1
request has), then times, in one run and alternately:
  sdeval  evaluator.importers.vllm_responses.read: the importer's own streaming aggregation,
          one process per core each summing a byte range, hashing the file (SHA-256) beside them
  duckdb  read_json(..., format='newline_delimited') with SUMs of the same fields, on every core
  sdeval-1 the importer held to one process (hashing too), for comparison
  engine  the importer with --engine duckdb (evaluator/importers/responses_duckdb.py): DuckDB sums
          while a thread hashes the file and checks every line's JSON with msgspec
and prints the medians, their ratio, and the importer's peak memory on the whole file and
on a tenth of it (a streaming reader's memory does not grow with the file): of the importing
process and of the largest process it forked.

    .venv/bin/pip install -e '.[bench]'    # DuckDB (the test extra has it too)
    .venv/bin/python bench/import_vllm_responses.py [--lines 1000000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

K = 3
GOAL = 2.0  # the default reader within 2x of a bare DuckDB query of the same sums (docs/speed.md)


def generate(path: Path, lines: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    with open(path, "w") as fh:
        for i in range(lines):
            h = [rng.randint(1, 40), rng.randint(0, 5), rng.randint(0, 5), rng.randint(0, 5)]
            steps, accepted = sum(h), sum(j * n for j, n in enumerate(h))
            metrics = None
            if i % 50:
                metrics = {
                    "speculative_decoding": {
                        "mean_acceptance_length": 1 + accepted / steps,
                        "draft_acceptance_rate": accepted / (K * steps),
                        "acceptance_histogram": h,
                        "num_spec_steps": steps,
                        "num_accepted_draft_tokens": accepted,
                        "num_draft_tokens": K * steps,
                        "num_spec_tokens": K,
                    }
                }
            response = {
                "id": f"chatcmpl-{i:08x}",
                "object": "chat.completion",
                "created": 1795966195 + i,
                "model": "meta-llama/Llama-3.1-8B-Instruct",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "word " * 40}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": steps + accepted + 1, "total_tokens": 101 + steps + accepted},
                "metrics": metrics,
            }
            fh.write(json.dumps(response) + "\n")


PROCESSES = []


def run_sdeval(path: Path, processes: int | None = None) -> tuple:
    from evaluator.importers.vllm_responses import read

    t = read(path, processes=processes)
    if processes is None:
        PROCESSES.append(t.processes)
    return (t.requests_with, t.steps, t.drafts, t.accepted, t.emitted, *t.hist)


def run_sdeval_one_process(path: Path) -> tuple:
    return run_sdeval(path, processes=1)


def run_engine_duckdb(path: Path) -> tuple:
    import os

    from evaluator.importers.responses_duckdb import ENGINE_ENV
    from evaluator.importers.vllm_responses import read

    os.environ[ENGINE_ENV] = "duckdb"
    try:
        t = read(path)
    finally:
        del os.environ[ENGINE_ENV]
    if t.engine != "duckdb":
        sys.exit("bench: the DuckDB engine gave the file back to the default reader")
    return (t.requests_with, t.steps, t.drafts, t.accepted, t.emitted, *t.hist)


DUCKDB_SQL = """
SELECT count(*) FILTER (WHERE sd IS NOT NULL),
       sum(sd.num_spec_steps), sum(sd.num_draft_tokens), sum(sd.num_accepted_draft_tokens),
       sum(completion_tokens) FILTER (WHERE sd IS NOT NULL),
       sum(sd.acceptance_histogram[1]), sum(sd.acceptance_histogram[2]),
       sum(sd.acceptance_histogram[3]), sum(sd.acceptance_histogram[4])
FROM (SELECT metrics.speculative_decoding AS sd, usage.completion_tokens AS completion_tokens
      FROM read_json(?, format = 'newline_delimited'))
"""


def run_duckdb(path: Path) -> tuple:
    import duckdb

    with duckdb.connect() as con:
        return tuple(int(v) for v in con.execute(DUCKDB_SQL, [str(path)]).fetchone())


def peak_memory_mb(path: Path) -> str:
    """Peak resident memory of a fresh process that imports the file (VmHWM: ru_maxrss would count
    the process that started it) and of the largest process it forked, in MB."""
    code = (
        "import sys, resource; sys.path.insert(0, sys.argv[2]);"
        "from evaluator.importers.vllm_responses import read; t = read(__import__('pathlib').Path(sys.argv[1]));"
        "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0],"
        " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, t.processes)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path), str(ROOT)], capture_output=True, text=True, check=True)
    own, forked, processes = (int(v) for v in out.stdout.split())
    if processes == 1:
        return f"{own / 1024:.0f} MB (one process)"
    readers = f"{processes - 1} reader{'s' if processes > 2 else ''}"
    return f"{own / 1024:.0f} MB; the largest process it forked ({readers} and the hasher) {forked / 1024:.0f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--file", type=Path, help="keep the generated file here and reuse it when it exists (it must have --lines lines)")
    args = parser.parse_args()
    try:
        import duckdb
    except ImportError:
        sys.exit("bench: needs DuckDB: .venv/bin/pip install -e '.[bench]'")

    with tempfile.TemporaryDirectory() as tmp:
        path, tenth = args.file or Path(tmp) / "responses.jsonl", Path(tmp) / "tenth.jsonl"
        started = time.perf_counter()
        made = "reused" if path.exists() else "generated"
        if made == "generated":
            generate(path, args.lines)
        generate(tenth, args.lines // 10)
        size_mb = path.stat().st_size / 1e6
        print(f"{made} {args.lines:,} lines ({size_mb:,.0f} MB) in {time.perf_counter() - started:.1f} s")

        times: dict[str, list[float]] = {"sdeval": [], "duckdb": [], "sdeval-1": [], "engine": []}
        results = {}
        for _ in range(args.repeats):
            for name, fn in (("sdeval", run_sdeval), ("duckdb", run_duckdb), ("sdeval-1", run_sdeval_one_process), ("engine", run_engine_duckdb)):
                t0 = time.perf_counter()
                results[name] = fn(path)
                times[name].append(time.perf_counter() - t0)
        if not results["sdeval"] == results["sdeval-1"] == results["duckdb"] == results["engine"]:
            sys.exit(f"bench: the totals disagree: {results}")
        med = {name: statistics.median(ts) for name, ts in times.items()}
        print(f"same totals from both: requests with metrics, S, P, A, E, histogram = {results['sdeval']}")
        with duckdb.connect() as con:
            threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
        print(f"duckdb {duckdb.__version__} ({threads} threads): median {med['duckdb']:.2f} s of {args.repeats}")
        print(
            f"sdeval import ({'/'.join(map(str, sorted(set(PROCESSES))))} processes, SHA-256 included): median {med['sdeval']:.2f} s ({args.lines / med['sdeval']:,.0f} lines/s)"
        )
        ratio = med["sdeval"] / med["duckdb"]
        print(f"ratio sdeval / duckdb: {ratio:.2f}x (goal <= {GOAL}x: {'met' if ratio <= GOAL else 'NOT met'})")
        print(f"the same import in one process: median {med['sdeval-1']:.2f} s, {med['sdeval-1'] / med['duckdb']:.2f}x duckdb")
        print(
            f"sdeval import --engine duckdb (SHA-256 and msgspec's check of every line included): median {med['engine']:.2f} s, "
            f"{med['engine'] / med['duckdb']:.2f}x duckdb, {med['engine'] / med['sdeval']:.2f}x the default reader"
        )
        print(f"sdeval peak memory for {args.lines:,} lines: {peak_memory_mb(path)}")
        print(f"sdeval peak memory for {args.lines // 10:,} lines: {peak_memory_mb(tenth)}")


if __name__ == "__main__":
    main()
