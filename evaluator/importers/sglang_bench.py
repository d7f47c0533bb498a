"""sglang-bench: `python -m sglang.bench_serving --output-file`, one JSON object a line.

Keys follow sglang/bench_serving.py. SGLang's bench output carries no speculative-decoding
counts: its `accept_length` is the server's cumulative average since start (read from
/get_server_info after the run), not this run's, so it is kept in the notes as a diagnostic
and never turned into counts or a reported figure. `concurrency` is the average achieved
concurrency (sum of latencies / duration), not a peak, so it goes to the notes as well.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .common import CLIENT_WALL_CLOCK, Imported, ImportProblem, count, drop_none, import_entries, number, serving_latency

FORMAT = "sglang-bench"
# bench_serving always writes accept_length (null without speculation); vllm bench never does.
CORE_KEYS = ("duration", "completed", "total_output_tokens", "backend", "accept_length")



def run_fields(d: dict, path: Path, entry: str | None) -> tuple[dict[str, Any], bool]:
    missing = [k for k in CORE_KEYS if k not in d]
    if missing:
        from . import describe_guess

        raise ImportProblem(f"{path}{': ' + entry if entry else ''}: lacks {', '.join(missing)}, so it is not {FORMAT} output{describe_guess(path, FORMAT)}")
    completed = count(d.get("completed"))
    rate = number(d.get("request_rate"))  # inf (written as Infinity) means no rate limit
    configured = count(d.get("max_concurrency"))
    notes = []
    accept_length = number(d.get("accept_length"))
    if accept_length is not None:
        notes.append(f"SGLang reported accept_length {accept_length:g}: the server's cumulative average since it started, not this run's; a diagnostic only.")
    if number(d.get("concurrency")) is not None:
        notes.append(f"Average achieved concurrency (sum of request latencies / duration): {d['concurrency']:g}.")
    fields = {
        "workload": {
            "num_requests": completed,
            "output_tokens_mean": d["total_output_tokens"] / completed if completed and number(d["total_output_tokens"]) is not None else None,
        },
        "load": {"concurrency": configured or None, "request_rate": rate, "loop": "open" if rate is not None else ("closed" if configured else None)},
        "interval": {**CLIENT_WALL_CLOCK, "duration_s": number(d.get("duration")) or None},
        "counts": {"emitted_tokens": count(d.get("total_output_tokens")), "population": "benchmark-requests"},
        "latency": {m: serving_latency(d, k) for m, k in (("ttft_ms", "ttft"), ("tpot_ms", "tpot"), ("itl_ms", "itl"), ("e2e_ms", "e2e_latency"))},
        "reported": {"output_tokens_per_s": number(d.get("output_throughput"))},
        "notes": " ".join(notes) or None,
    }
    return drop_none(fields), accept_length is not None


def import_file(path: Path) -> list[Imported]:
    return import_entries(path, FORMAT, run_fields)
