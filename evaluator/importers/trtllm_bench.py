"""trtllm-bench: the report JSON of `trtllm-bench throughput|latency --report_json FILE`.

Keys follow NVIDIA/TensorRT-LLM tensorrt_llm/bench/dataclasses/reporting.py
(`ReportUtility.get_statistics_dict`, read at commit 2787769cae35) and statistics.py
(`PercentileStats`: minimum, maximum, average, p50, p90, p95, p99; older reports lack p90).
Every `*_ms` figure is already in milliseconds; `engine.version` is the TensorRT-LLM version.

The report holds aggregates only, so no count is taken from it:
- `request_info.avg_output_length` is an average; the run's output-token total is not written.
- `decoding_stats` (written whenever speculation is configured) holds percentiles of per-request
  figures. Its draft tokens are max_draft_len x iterations, an assumption rather than a
  measurement, so they never become proposed drafts; accepted drafts are output tokens minus
  iterations, and acceptance length is output tokens over iterations (first iteration included).
  The acceptance figures are fractions (their `average` is output-length weighted when lengths
  differ, since PR #14998) and go to the notes as diagnostics, like SGLang's accept_length,
  never to `reported`.
- `system_output_throughput_tok_s` is the tool's output tokens over `total_latency_ms`: the
  run's own E / T, kept in `reported`.
- `world_info` `tp_size`, `pp_size`, `ep_size` are the parallel sizes the engine ran with: kept as
  `source.parallelism` (record 1.2), which `baseline-mismatch` compares where the configuration
  states none.
The configured load (`--concurrency`) is not in the report. `avg_num_concurrent_requests`
(sum of request latencies / total latency) is a measured mean, not a peak, and `max_batch_size`
is the runtime's cap, so both go to the notes and the load stays unstated. `issue_rate` is
computed from the requests' start times (not configured) and is left out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .common import CLIENT_WALL_CLOCK, Imported, ImportProblem, count, drop_none, number, parallel_sizes, percentiles, read_json_document, source

FORMAT = "trtllm-bench"
CORE_KEYS = ("request_info", "performance")

# The benchmark times requests inside the process that drives the LLM API: from the first
# request submitted to the last final response, everything the engine does in between.
INTERVAL = {
    **CLIENT_WALL_CLOCK,
    "start_event": "first benchmark request submitted to the TensorRT-LLM LLM API",
    "end_event": "last benchmark request's final response",
}


def _guess(path: Path) -> str:
    from .sniff import describe_guess

    return describe_guess(path, FORMAT)


def _section(data: dict, name: str) -> dict:
    value = data.get(name)
    return value if isinstance(value, dict) else {}


def _latency(stats: Any, mean: Any = None) -> dict | None:
    """A PercentileStats object (already in ms) as the record's percentiles; its average is the mean."""
    s = stats if isinstance(stats, dict) else {}
    return percentiles(s.get("average", mean), s.get("p50"), s.get("p90"), s.get("p95"), s.get("p99"))


def _g(value: float) -> str:
    return f"{value:.6g}"


def _engine_note(engine: dict, world: dict) -> str | None:
    parts = []
    if engine.get("version"):
        parts.append(f"TensorRT-LLM {engine['version']}")
    if engine.get("backend"):
        parts.append(f"{engine['backend']} backend")
    if engine.get("model"):
        parts.append(f"model {engine['model']}")
    for key in ("dtype", "quantization", "kv_cache_dtype"):
        if engine.get(key) not in (None, "", "None"):
            parts.append(f"{key} {engine[key]}")
    sizes = [f"{key[:2].upper()} {count(world[key])}" for key in ("tp_size", "pp_size", "ep_size") if count(world.get(key)) is not None]
    if sizes:
        parts.append(" x ".join(sizes))
    return f"Engine as reported: {', '.join(parts)}." if parts else None


def _load_note(requests: dict, world: dict) -> str:
    text = "The report does not record the configured load (--concurrency)"
    mean = number(requests.get("avg_num_concurrent_requests"))
    if mean is not None:
        text += f"; measured mean concurrency (sum of request latencies / total latency): {_g(mean)}"
    cap = count(world.get("max_batch_size"))
    if cap is not None:
        text += f"; runtime max_batch_size {cap} (a cap, not the load)"
    return text + "."


def _decoding_note(stats: dict) -> str:
    mode = stats.get("mode")
    text = f"trtllm-bench decoding_stats (mode {mode})" if mode else "trtllm-bench decoding_stats"
    figures = []
    rate = _section(stats, "draft_acceptance_rate_percentiles")
    average, p50 = number(rate.get("average")), number(rate.get("p50"))
    if average is not None and average <= 1 and (p50 is None or p50 <= 1):
        figures.append(f"draft acceptance rate average {_g(average)}" + (f", p50 {_g(p50)}" if p50 is not None else ""))
    elif average is not None:
        figures.append(f"draft acceptance rate average {_g(average)} is not the 0..1 fraction trtllm-bench writes, so it is left out")
    length = _section(stats, "acceptance_length_percentiles")
    average, p50 = number(length.get("average")), number(length.get("p50"))
    if average is not None:
        figures.append(f"acceptance length (output tokens per iteration) average {_g(average)}" + (f", p50 {_g(p50)}" if p50 is not None else ""))
    if figures:
        text += ", per-request figures kept as diagnostics only: " + "; ".join(figures)
    return (
        text + ". Its draft-token figures assume max_draft_len drafts at every iteration (not measured), "
        "so the report gives no proposed or accepted draft counts."
    )


def run_fields(data: dict) -> tuple[dict[str, Any], bool]:
    engine, world = _section(data, "engine"), _section(data, "world_info")
    requests, perf = _section(data, "request_info"), _section(data, "performance")
    streaming, dataset = _section(data, "streaming_metrics"), _section(data, "dataset")
    decoding = data.get("decoding_stats")
    speculative = isinstance(decoding, dict)
    osl = _section(dataset, "osl_stats")
    # Each request's output is capped by its dataset entry's output_tokens: one cap for all when min == max.
    shortest, longest = count(osl.get("minimum")), count(osl.get("maximum"))
    latency_ms = number(perf.get("total_latency_ms"))
    notes = [_engine_note(engine, world), _load_note(requests, world)]
    if isinstance(decoding, dict):  # speculative
        notes.append(_decoding_note(decoding))
    fields = {
        "workload": {
            "dataset": str(dataset["dataset_path"]) if dataset.get("dataset_path") not in (None, "", "None") else None,
            "num_requests": count(requests.get("num_requests")),
            "input_tokens_mean": number(requests.get("avg_input_length")),
            "output_tokens_mean": number(requests.get("avg_output_length")),
            "max_output_tokens": longest if longest and shortest == longest else None,
        },
        "interval": {**INTERVAL, "duration_s": latency_ms / 1000 if latency_ms else None},
        "latency": {
            "ttft_ms": _latency(streaming.get("ttft_percentiles"), streaming.get("avg_ttft_ms")),
            "tpot_ms": _latency(streaming.get("tpot_percentiles"), streaming.get("avg_tpot_ms")),
            "e2e_ms": _latency(perf.get("request_latency_percentiles_ms"), perf.get("avg_request_latency_ms")),
        },
        "reported": {"output_tokens_per_s": number(perf.get("system_output_throughput_tok_s"))},
        "notes": " ".join(n for n in notes if n),
    }
    return drop_none(fields), speculative


def import_file(path: Path) -> list[Imported]:
    data, sha = read_json_document(path, FORMAT)
    missing = [k for k in CORE_KEYS if not isinstance(data, dict) or not isinstance(data.get(k), dict)]
    if missing:
        raise ImportProblem(f"{path}: lacks {', '.join(missing)}, so it is not {FORMAT} output{_guess(path)}")
    fields, speculative = run_fields(data)
    version = _section(data, "engine").get("version")
    sizes = parallel_sizes(_section(data, "world_info"))
    return [Imported(fields=fields, source=source(FORMAT, path, sha, version, parallelism=sizes), speculative=speculative)]
