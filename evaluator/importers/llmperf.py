"""llmperf: ray-project/llmperf's token_benchmark_ray.py output, its summary and its per-request list.

Read from token_benchmark_ray.py (`metrics_summary`, `run_token_benchmark`, ray-project/llmperf
at 004d3afb) and the files kept in ../shared/real-outputs/llmperf (ray-project/llmperf-leaderboard):

- `*_summary.json`: one flat object. `results_num_requests_started`, `results_number_errors` and
  `results_num_completed_requests` (the requests without an error code); `results_*_quantiles_pNN`,
  `_mean`, `_min`, `_max` per metric, in seconds, over the completed requests only;
  `results_mean_output_throughput_token_per_s` = the completed requests' output tokens over the
  test's wall clock, and `results_num_completed_requests_per_min` = completed requests over it.
  The wall clock (end - start, time.monotonic around the whole test) is written nowhere: it is
  completed x 60 / requests per minute, said so in the run's notes. E is the mean output tokens
  x completed requests (the sum the throughput was computed from), taken only when that product
  is a whole number. `num_concurrent_requests` is the closed loop's concurrency.
- `*_individual_responses.json`: an array, one object per request started: `error_code` (null
  for a completed request), `ttft_s`, `end_to_end_latency_s`, `inter_token_latency_s`,
  `number_input_tokens`, `number_output_tokens`. No timestamps and no load: a run from it alone
  has counts and latencies but no interval.

`inter_token_latency_s` is, per request, the sum of its time_to_next_token list, whose first entry is
the TTFT (the clients in src/llmperf/ray_clients), divided by its output chunks
(`token_benchmark_ray.py`: INTER_TOKEN_LAT /= NUM_OUTPUT_TOKENS): its latency over its tokens, the
first token's wait included, so it goes to `latency.tpot_with_first_ms`, neither TPOT nor chunk gaps.

LLMPerf counts output tokens by re-tokenising the generated text with its own Llama tokenizer
(`get_token_length`), not from the server's usage: said so in the notes of every run.
"""

from __future__ import annotations

import math
import statistics
from fractions import Fraction
from pathlib import Path
from typing import Any

from .common import CLIENT_WALL_CLOCK, Imported, ImportProblem, core, count, drop_none, number, read_json_document, source

FORMAT = "llmperf"
RETOKENISED = (
    "LLMPerf counts output tokens by re-tokenising each response's text with its own Llama tokenizer, "
    "not from the server's usage, so E can differ from the server's count."
)


def _ms(value: Any) -> float | None:
    v = number(value)
    return None if v is None else float(Fraction(repr(v)) * 1000)


def _summary_percentiles(d: dict, metric: str) -> dict | None:
    keys = {
        "mean": f"results_{metric}_mean",
        "p50": f"results_{metric}_quantiles_p50",
        "p90": f"results_{metric}_quantiles_p90",
        "p95": f"results_{metric}_quantiles_p95",
        "p99": f"results_{metric}_quantiles_p99",
    }
    out = {k: _ms(d.get(key)) for k, key in keys.items()}
    return {k: v for k, v in out.items() if v is not None} or None


def _error_codes(d: dict) -> str | None:
    """`results_error_code_frequency` is str() of a Python dict ("{429.0: 130}"): shown as written."""
    raw = d.get("results_error_code_frequency")
    return raw if isinstance(raw, str) and raw not in ("{}", "") else None


def _summary(path: Path, d: dict, sha: str) -> Imported:
    started, errors, completed = (
        count(d.get("results_num_requests_started")),
        count(d.get("results_number_errors")),
        core(d, "results_num_completed_requests", str(path)),
    )
    if completed is None:
        raise ImportProblem(f"{path}: an LLMPerf summary without results_num_completed_requests")
    per_min = core(d, "results_num_completed_requests_per_min", str(path), number)
    notes = [RETOKENISED]
    duration = None
    if per_min:
        duration = float(Fraction(completed) * 60 / Fraction(repr(per_min)))
        notes.append(
            f"LLMPerf writes no duration: the interval is results_num_completed_requests x 60 / "
            f"results_num_completed_requests_per_min = {completed} x 60 / {per_min!r} s."
        )
    mean_out = core(d, "results_number_output_tokens_mean", str(path), number)
    emitted = None
    if mean_out is not None:
        product = mean_out * completed
        if math.isclose(product, round(product), rel_tol=0, abs_tol=1e-6 * max(1.0, product)):
            emitted = int(round(product))
            notes.append(f"E is results_number_output_tokens_mean x results_num_completed_requests = {mean_out!r} x {completed}.")
    if errors:
        codes = _error_codes(d)
        notes.append(
            f"{errors} of {started if started is not None else '?'} requests started failed"
            + (f" (error codes {codes})" if codes else "")
            + " and are not in the counts or latencies."
        )
    if started is not None and errors is not None and started != completed + errors:
        notes.append(f"results_num_requests_started ({started}) is not completed ({completed}) + errors ({errors}).")
    concurrency = count(d.get("num_concurrent_requests")) or None
    fields = {
        "workload": {
            "num_requests": completed,
            "requests_sent": started,
            "requests_failed": errors if errors is not None else (started - completed if started is not None and started >= completed else None),
            "input_tokens_mean": number(d.get("results_number_input_tokens_mean")),
            "output_tokens_mean": mean_out,
            "max_output_tokens": None,
        },
        "load": {"concurrency": concurrency, "loop": "closed" if concurrency else None},
        "interval": {**CLIENT_WALL_CLOCK, "duration_s": duration} if duration is not None else None,
        "counts": {"emitted_tokens": emitted, "population": "benchmark-requests"},
        "latency": {
            "ttft_ms": _summary_percentiles(d, "ttft_s"),
            "tpot_with_first_ms": _summary_percentiles(d, "inter_token_latency_s"),
            "e2e_ms": _summary_percentiles(d, "end_to_end_latency_s"),
        },
        "reported": {"output_tokens_per_s": number(d.get("results_mean_output_throughput_token_per_s"))},
        "notes": " ".join(notes),
    }
    return Imported(fields=drop_none(fields), source=source(FORMAT, path, sha, d.get("version"), model=d.get("model")), speculative=False)


def _percentiles(values: list[float]) -> dict | None:
    """Mean and p50/p90/p95/p99 as pandas' Series.quantile computes them (linear interpolation), in ms."""
    if not values:
        return None
    ordered = sorted(values)

    def quantile(q: float) -> float:
        position = (len(ordered) - 1) * q
        low, high = math.floor(position), math.ceil(position)
        return ordered[low] + (ordered[high] - ordered[low]) * (position - low)

    out = {"mean": statistics.fmean(ordered), **{f"p{int(q * 100)}": quantile(q) for q in (0.5, 0.9, 0.95, 0.99)}}
    return {k: v * 1000 for k, v in out.items()}


def _individual(path: Path, items: list, sha: str) -> Imported:
    completed: list[dict] = []
    failed = 0
    codes: dict[str, int] = {}
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise ImportProblem(f"{path}: [{i}]: not a JSON object")
        if item.get("error_code") is not None:
            failed += 1
            codes[str(item["error_code"])] = codes.get(str(item["error_code"]), 0) + 1
            continue
        tokens = count(item.get("number_output_tokens"))
        if tokens is None:
            raise ImportProblem(f"{path}: [{i}].number_output_tokens: not a whole number of tokens")
        completed.append(item)
    notes = [RETOKENISED, "LLMPerf's per-request list has no timestamps and no load: the run has no interval or concurrency."]
    if failed:
        listed = ", ".join(f"{n} with {code}" for code, n in sorted(codes.items()))
        notes.append(f"{failed} of {len(items)} requests failed ({listed}) and are not in the counts or latencies.")

    def series(key: str) -> list[float]:
        return [v for v in (number(item.get(key)) for item in completed) if v is not None]

    outputs = [n for item in completed if (n := count(item.get("number_output_tokens"))) is not None]  # all: checked above
    inputs = series("number_input_tokens")
    fields = {
        "workload": {
            "num_requests": len(completed),
            "requests_sent": len(items),
            "requests_failed": failed,
            "input_tokens_mean": statistics.fmean(inputs) if inputs else None,
            "output_tokens_mean": statistics.fmean(outputs) if outputs else None,
        },
        "counts": {"emitted_tokens": sum(outputs), "population": "benchmark-requests"},
        "latency": {
            "ttft_ms": _percentiles(series("ttft_s")),
            "tpot_with_first_ms": _percentiles(series("inter_token_latency_s")),
            "e2e_ms": _percentiles(series("end_to_end_latency_s")),
        },
        "notes": " ".join(notes),
    }
    return Imported(fields=drop_none(fields), source=source(FORMAT, path, sha), speculative=False)


def import_file(path: Path) -> list[Imported]:
    data, sha = read_json_document(path, FORMAT, arrays=True)
    if isinstance(data, dict) and "results_num_completed_requests" in data:
        return [_summary(path, data, sha)]
    if isinstance(data, list) and data and all(isinstance(x, dict) and "end_to_end_latency_s" in x for x in data):
        return [_individual(path, data, sha)]
    from .sniff import describe_guess

    raise ImportProblem(
        f"{path}: neither an LLMPerf summary (results_num_completed_requests) nor its per-request list "
        f"(objects with end_to_end_latency_s), so it is not {FORMAT} output{describe_guess(path, FORMAT)}"
    )
