"""Which known format a file looks like, from its first bytes, so a file given under the wrong
format is refused with the right name (`describe_guess`), and `sdeval import` can say what a
file is."""

from __future__ import annotations

import re
from pathlib import Path

_SNIFF_BYTES = 256 * 1024
# (format, patterns that must all occur in the file's first bytes), most specific first.
_SIGNATURES: list[tuple[str, tuple[str, ...]]] = [
    ("vllm-metrics", (r"(?m)^vllm:[a-z_:]+(\{| )",)),
    ("llamacpp-metrics", (r"(?m)^llamacpp:[a-z_:]+(\{| )",)),
    ("aiperf", (r'"aiperf_version"',)),
    ("aiperf", (r'"per_combination_metrics"\s*:',)),  # profile_export_aiperf_sweep.json
    ("aiperf", (r'"benchmark_phase"\s*:', r'"metrics"\s*:\s*\{', r'"request_start_ns"\s*:')),  # profile_export.jsonl
    # GenAI-Perf: AIPerf's metric blocks, then an input_config with GenAI-Perf's own sections (since
    # March 2025) or its flat CLI arguments (2024); AIPerf's input_config has neither.
    ("genai-perf", (r'"unit"\s*:', r'"input_config"\s*:\s*\{', r'"perf_analyzer"\s*:\s*\{', r'"model_names"\s*:')),
    ("genai-perf", (r'"unit"\s*:', r'"input_config"\s*:\s*\{', r'"service_kind"\s*:', r'"endpoint_type"\s*:')),
    # mlcommons/endpoints' result_summary.json.
    ("mlperf-endpoints", (r'"n_samples_issued"\s*:', r'"n_samples_completed"\s*:')),
    # ray-project/llmperf: its summary's flat results_* keys, or its per-request list.
    ("llmperf", (r'"results_num_completed_requests"\s*:',)),
    ("llmperf", (r'^\s*\[', r'"end_to_end_latency_s"\s*:', r'"number_output_tokens"\s*:')),
    ("aiperf", (r'"unit"\s*:', r'"avg"\s*:', r'"request_throughput"')),
    ("aiperf", (r'"records"\s*:\s*\{', r'"unit"\s*:', r'"avg"\s*:')),
    ("guidellm", (r'"benchmarks"\s*:\s*\[',)),
    ("guidellm", (r"(?m)^benchmarks:\s*$", r"(?m)^\s*-?\s*type_:\s*generative_benchmark")),  # benchmarks.yaml
    ("sglang-bench", (r'"accept_length"\s*:', r'"backend"\s*:')),
    # Keys only SGLang's bench_serving writes, back to its 2024 versions (vLLM's spells e2el).
    ("sglang-bench", (r'"total_output_tokens_retokenized"\s*:|"(mean|median|p99)_e2e_latency_ms"\s*:',)),
    ("trtllm-bench", (r'"decoding_stats"\s*:|"request_info"\s*:', r'"performance"\s*:')),
    ("vllm-bench", (r'"duration"\s*:', r'"completed"\s*:', r'"total_output_tokens"\s*:')),
    # llama.cpp's responses: its timings object (OpenAI shape or native /completion), before the OpenAI shape.
    ("llamacpp-responses", (r'"timings"\s*:\s*\{', r'"predicted_n"\s*:')),
    # SGLang's responses before the OpenAI shape they share with vLLM's: its meta_info or sglext.
    ("sglang-responses", (r'"meta_info"\s*:\s*\{',)),
    ("sglang-responses", (r'"sglext"\s*:\s*\{',)),
    ("vllm-responses", (r'"choices"\s*:',)),
    ("vllm-responses", (r'"speculative_decoding"\s*:',)),
]


def sniff(path: Path) -> str | None:
    try:
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    for fmt, patterns in _SIGNATURES:
        if all(re.search(p, head) for p in patterns):
            return fmt
    return None


def describe_guess(path: Path, not_this: str) -> str:
    guess = sniff(path)
    if guess is None or guess == not_this:
        return ""
    if guess in ("vllm-metrics", "llamacpp-metrics"):
        return f"; it looks like a {guess} scrape (try `sdeval import {guess} BEFORE AFTER` with the scrapes taken before and after the run)"
    return f"; it looks like {guess} output (try `sdeval import {guess} {path.name}`)"
