"""AIPerf profile_export_aiperf.json and sweep files built for the importer tests, on the shapes AIPerf's source writes
(tests/importers/test_importers_aiperf.py names the source files and commits)."""

from __future__ import annotations

import json
from pathlib import Path


def block(unit: str, avg: float, **stats) -> dict:
    return {"unit": unit, "avg": avg, **stats}


def export(
    phases: list[dict],
    *,
    slos: dict | None = None,
    requests: int = 100,
    good: int | None = None,
    duration: float = 50.0,
    tokens: int = 20000,
    spec: dict | None = None,
    version: str = "0.13.0",
) -> dict:
    """A profile_export_aiperf.json of schema 1.3+ (AIPerf 0.11 on)."""
    data = {
        "schema_version": "1.5",
        "aiperf_version": version,
        "benchmark_id": "b-28",
        "request_throughput": block("requests/sec", requests / duration),
        "request_latency": block("ms", 900.0, p50=850.0, p90=1200.0, p99=1500.0, count=requests, sum=900.0 * requests),
        "request_count": block("requests", float(requests)),
        "time_to_first_token": block("ms", 40.0, p50=38.0, p90=55.0, p99=80.0, count=requests),
        "inter_token_latency": block("ms", 4.3, p50=4.2, p90=5.0, p99=6.1, count=requests),
        "output_token_throughput": block("tokens/sec", tokens / duration),
        "output_sequence_length": block("tokens", tokens / requests, count=requests, sum=float(tokens)),
        "input_sequence_length": block("tokens", 512.0, count=requests, sum=512.0 * requests),
        "total_output_tokens": block("tokens", float(tokens)),
        "total_osl": block("tokens", float(tokens)),
        "benchmark_duration": block("sec", duration),
        "input_config": {
            "models": {"strategy": "round_robin", "items": [{"name": "meta-llama/Llama-3.1-8B-Instruct"}]},
            "endpoint": {"urls": ["http://localhost:8000"], "type": "chat", "streaming": True},
            "phases": phases,
            "tokenizer": {"name": "meta-llama/Llama-3.1-8B-Instruct", "revision": "main"},
        },
        "run_info": {"benchmark_id": "b-28", "cli_command": "aiperf profile --model meta-llama/Llama-3.1-8B-Instruct --concurrency 8"},
        "was_cancelled": False,
    }
    if slos is not None:
        data["input_config"]["slos"] = slos
    if good is not None:
        data["goodput"] = block("requests/sec", good / duration)
        data["good_request_count"] = block("requests", float(good))
    if spec is not None:
        data.update(spec)
    return data


def write(tmp_path: Path, data: dict, name: str = "profile_export_aiperf.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


PROFILING = {"name": "profiling", "type": "concurrency", "exclude_from_results": False, "concurrency": 8, "duration": 60.0, "seamless": False}


def cell(block: dict, newest: bool = True) -> dict:
    """_json_metric_to_stats of one run's block: mean = avg, no spread (the newest also keeps percentiles, count and sum)."""
    avg = block["avg"]
    out = {
        "mean": avg,
        "std": 0.0,
        "min": block.get("min", avg),
        "max": block.get("max", avg),
        "cv": 0.0,
        "ci_low": avg,
        "ci_high": avg,
        "unit": block["unit"],
    }
    if newest:
        out["avg"] = avg
        out.update({k: v for k, v in block.items() if k in ("p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "count", "sum")})
    return out


def sweep(points: list[tuple[dict, dict]], newest: bool = True, **top) -> dict:
    """profile_export_aiperf_sweep.json of single-trial points: (parameters, that point's profile_export_aiperf.json)."""
    per = [
        {"parameters": params, "metrics": {k: cell(v, newest) for k, v in run.items() if isinstance(v, dict) and "unit" in v}}
        for params, run in points
    ]
    values = [p["concurrency"] for p, _ in points]
    return {
        "aggregation_type": "sweep",
        "num_profile_runs": len(points),
        "num_successful_runs": len(points),
        "failed_runs": [],
        "metadata": {"sweep_parameters": [{"name": "concurrency", "values": values}], "num_combinations": len(points)},
        "per_combination_metrics": per,
        "best_configurations": {"best_throughput": {"parameters": points[-1][0], "metric": 1.0, "unit": "requests/sec"}},
        "pareto_optimal": [p for p, _ in points],
        **top,
    }


WINDOW_START, WINDOW_END = "2026-12-04T12:36:39.402552", "2026-12-04T12:36:45.036315"


WINDOW_S = 5.633763


DURATION_S = 5.627889408000001


def aiperf_013(**changes) -> dict:
    """A 0.13.0 summary whose output_token_throughput is total_osl over its profiling window."""
    data = export([PROFILING], requests=6, duration=DURATION_S, tokens=288)
    data.update(
        start_time=WINDOW_START,
        end_time=WINDOW_END,
        output_token_throughput=block("tokens/sec", 51.12036193740235),
        inter_token_latency=block("ms", 30.56, p50=27.98, p90=41.50, p95=41.74, p99=41.93, count=6),
        inter_chunk_latency=block("ms", 30.56, p50=0.088, p90=94.37, p95=114.33, p99=166.47, count=282),
        total_usage_completion_tokens=block("tokens", 288.0),
        usage_discrepancy_count=block("requests", 0.0),
    )
    data.update(changes)
    return data
