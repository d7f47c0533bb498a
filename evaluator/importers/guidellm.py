"""guidellm: benchmarks.json (or .yaml), one run per benchmark.

Shapes of guidellm v0.3 (`benchmarks[i].args.strategy`) through v0.7
(`benchmarks[i].config.strategy`, `metadata.guidellm_version`). The load is the strategy:
synchronous (concurrency 1), concurrent (`streams`), throughput (`max_concurrency`),
constant or poisson (`rate`, open loop). guidellm carries no speculative-decoding fields, and
its `output_tokens_per_second` is a time-weighted distribution, not tokens over the interval,
so it is not kept as a reported throughput.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .common import CLIENT_WALL_CLOCK, Imported, ImportProblem, count, drop_none, number, percentiles, read_json_document, source

FORMAT = "guidellm"


def _summary(metrics: dict, name: str) -> dict:
    """The `successful` distribution of a StatusDistributionSummary, or {}."""
    value = metrics.get(name)
    if isinstance(value, dict) and isinstance(value.get("successful"), dict):
        return value["successful"]
    return {}


def _latency(metrics: dict, name: str, scale: float = 1.0) -> dict | None:
    d = _summary(metrics, name)
    p = d.get("percentiles") if isinstance(d.get("percentiles"), dict) else {}
    return percentiles(d.get("mean"), d.get("median"), p.get("p90"), p.get("p95"), p.get("p99"), scale=scale)


def _load(strategy: dict) -> dict:
    kind = strategy.get("type_")
    if kind == "synchronous":
        return {"concurrency": 1, "loop": "closed"}
    if kind == "concurrent":
        return {"concurrency": count(strategy.get("streams")) or None, "loop": "closed"}
    if kind == "throughput":
        return {"concurrency": count(strategy.get("max_concurrency")) or None, "loop": "closed"}
    if kind in ("constant", "poisson"):
        return {"request_rate": number(strategy.get("rate")), "loop": "open"}
    return {}


def _duration(bench: dict) -> float | None:
    if number(bench.get("duration")):
        return number(bench["duration"])
    sm = bench.get("scheduler_metrics") or {}
    start, end = number(sm.get("measure_start_time")), number(sm.get("measure_end_time"))
    return end - start if start is not None and end is not None and end > start else None


def run_fields(bench: dict, where: str) -> dict[str, Any]:
    if not isinstance(bench, dict) or not isinstance(bench.get("metrics"), dict):
        raise ImportProblem(f"{where}: has no metrics object")
    metrics = bench["metrics"]
    config = bench.get("config") if isinstance(bench.get("config"), dict) else bench.get("args") or {}
    strategy = config.get("strategy") if isinstance(config.get("strategy"), dict) else {}
    totals = metrics.get("request_totals") or bench.get("request_totals") or {}
    peak = count(_summary(metrics, "request_concurrency").get("max"))
    fields = {
        "workload": {
            "num_requests": count(totals.get("successful")),
            "input_tokens_mean": number(_summary(metrics, "prompt_token_count").get("mean")),
            "output_tokens_mean": number(_summary(metrics, "output_token_count").get("mean")),
        },
        "load": {**_load(strategy), "measured_peak_concurrency": peak or None},
        "interval": {**CLIENT_WALL_CLOCK, "duration_s": _duration(bench)},
        "counts": {
            "emitted_tokens": count(_summary(metrics, "output_token_count").get("total_sum")),
            "population": "benchmark-requests",
        },
        "latency": {
            "ttft_ms": _latency(metrics, "time_to_first_token_ms"),
            "tpot_ms": _latency(metrics, "time_per_output_token_ms"),
            "itl_ms": _latency(metrics, "inter_token_latency_ms"),
            "e2e_ms": _latency(metrics, "request_latency", scale=1000.0),  # guidellm gives seconds
        },
    }
    incomplete, errored = count(totals.get("incomplete")), count(totals.get("errored"))
    if incomplete or errored:
        fields["notes"] = f"{incomplete or 0} incomplete and {errored or 0} errored requests are not in the counts."
    return drop_none(fields)


def import_file(path: Path) -> list[Imported]:
    data, sha = read_json_document(path)
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        from . import describe_guess

        raise ImportProblem(f"{path}: has no benchmarks list, so it is not {FORMAT} output{describe_guess(path, FORMAT)}")
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    version = meta.get("guidellm_version")
    out = []
    for i, bench in enumerate(data["benchmarks"]):
        entry = f"benchmarks[{i}]"
        fields = run_fields(bench, f"{path}: {entry}")
        out.append(Imported(fields=fields, source=source(FORMAT, path, sha, version, entry), speculative=False))
    if not out:
        raise ImportProblem(f"{path}: the benchmarks list is empty")
    return out
