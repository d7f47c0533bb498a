"""aiperf: profile_export_aiperf.json, including its speculative-decoding metrics.

Each metric is a top-level block {"unit", "avg", "p50", ..., "count", "sum"}; run totals
(total_draft_tokens, ...) carry only "avg". Counts come from those totals (or the per-request
metric's "sum"), the histogram from pooled_spec_decode_acceptance_histogram (string keys).
AIPerf's acceptance rates are percentages; the token-weighted one is kept, as a fraction,
in `reported` so the rules compare it with A / P.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .common import CLIENT_WALL_CLOCK, Imported, ImportProblem, count, drop_none, histogram, number, percent_to_fraction, percentiles, read_json_document, source

FORMAT = "aiperf"
TO_SECONDS = {"s": 1.0, "sec": 1.0, "secs": 1.0, "seconds": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
TO_MS = {unit: factor * 1000 for unit, factor in TO_SECONDS.items()}


def is_aiperf(data: Any) -> bool:
    return isinstance(data, dict) and (
        "aiperf_version" in data or any(isinstance(v, dict) and "unit" in v and "avg" in v for v in data.values())
    )


def _block(data: dict, name: str) -> dict:
    value = data.get(name)
    return value if isinstance(value, dict) else {}


def _total(data: dict, total_name: str, per_request_name: str) -> int | None:
    value = count(_block(data, total_name).get("avg"))
    return value if value is not None else count(_block(data, per_request_name).get("sum"))


def _latency(data: dict, name: str) -> dict | None:
    b = _block(data, name)
    scale = TO_MS.get(str(b.get("unit", "ms")).lower())
    if scale is None:
        return None
    return percentiles(b.get("avg"), b.get("p50"), b.get("p90"), b.get("p95"), b.get("p99"), scale=scale)


def _duration(data: dict) -> float | None:
    b = _block(data, "benchmark_duration")
    factor = TO_SECONDS.get(str(b.get("unit", "")).lower())
    value = number(b.get("avg"))
    return value * factor if value and factor else None


def _load(data: dict) -> dict:
    cfg = data.get("input_config") if isinstance(data.get("input_config"), dict) else {}
    loadgen = cfg.get("loadgen") if isinstance(cfg.get("loadgen"), dict) else {}
    variations = (data.get("run_info") or {}).get("variation_values") if isinstance(data.get("run_info"), dict) else None
    concurrency = count(loadgen.get("concurrency"))
    if concurrency is None and isinstance(variations, dict):
        concurrency = count(variations.get("phases.profiling.concurrency"))
    rate = number(loadgen.get("request_rate"))
    return {
        "concurrency": concurrency or None,
        "request_rate": rate,
        "loop": "open" if rate is not None else ("closed" if concurrency else None),
    }


def import_file(path: Path) -> list[Imported]:
    data, sha = read_json_document(path)
    if not is_aiperf(data):
        from . import describe_guess

        raise ImportProblem(f"{path}: has no aiperf_version and no metric blocks, so it is not {FORMAT} output{describe_guess(path, FORMAT)}")
    requests = count(_block(data, "request_count").get("avg"))
    if requests is None:
        requests = count(_block(data, "request_count").get("sum"))
    counts: dict[str, Any] = {
        "verification_steps": _total(data, "total_spec_decode_steps", "spec_decode_steps"),
        "proposed_drafts": _total(data, "total_draft_tokens", "spec_decode_draft_tokens"),
        "accepted_drafts": _total(data, "total_accepted_draft_tokens", "spec_decode_accepted_draft_tokens"),
        "accepted_length_histogram": histogram(data.get("pooled_spec_decode_acceptance_histogram"), f"{path}: pooled_spec_decode_acceptance_histogram"),
        "emitted_tokens": count(_block(data, "total_output_tokens").get("avg")) or count(_block(data, "total_osl").get("avg")),
        "population": "benchmark-requests",
    }
    speculative = any(counts[k] is not None for k in ("verification_steps", "proposed_drafts", "accepted_drafts"))
    # Requests whose responses carried spec-decode stats are the ones counted in spec_decode_steps.
    covered = count(_block(data, "spec_decode_steps").get("count"))
    notes = None
    if speculative and covered is not None and requests is not None and covered <= requests:
        counts.update(requests_with_metrics=covered, requests_without_metrics=requests - covered, missing_metrics_as="excluded")
        notes = f"Requests with speculative metrics: spec_decode_steps.count ({covered}) of request_count ({requests})."
    fields = {
        "workload": {
            "num_requests": requests,
            "input_tokens_mean": number(_block(data, "input_sequence_length").get("avg")),
            "output_tokens_mean": number(_block(data, "output_sequence_length").get("avg")),
        },
        "load": _load(data),
        "interval": {**CLIENT_WALL_CLOCK, "duration_s": _duration(data)},
        "counts": counts,
        "latency": {
            "ttft_ms": _latency(data, "time_to_first_token"),
            "itl_ms": _latency(data, "inter_token_latency"),
            "e2e_ms": _latency(data, "request_latency"),
        },
        "reported": {
            "acceptance_rate": percent_to_fraction(_block(data, "spec_decode_overall_draft_acceptance_rate").get("avg")),
            "mean_acceptance_length": number(_block(data, "spec_decode_token_weighted_acceptance_length").get("avg")),
            "output_tokens_per_s": number(_block(data, "output_token_throughput").get("avg")),
        },
        "notes": notes,
    }
    return [Imported(fields=drop_none(fields), source=source(FORMAT, path, sha, data.get("aiperf_version")), speculative=speculative)]
