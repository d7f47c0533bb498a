"""genai-perf: GenAI-Perf's profile_export_genai_perf.json, on the shapes its source writes.

No published export was found (the one said to be pasted in triton-inference-server/perf_analyzer
issue 298 is not in the stored threads), so every file here is constructed: the March 2025 onwards
shape from perf_analyzer 263c5f6e (json_exporter.py, metrics/statistics.py, config/input/*.py),
the 2024 flat-arguments shape from the upstream test's own expected output (tests/test_exporters/
test_json_exporter.py at bf8c950f), and the first exports' nanosecond shape (c18c493e). The figures
are checked by hand in each test.
"""

from __future__ import annotations

import copy
import json


def _dist(unit: str, avg: float, p50: float, p90: float, p95: float, p99: float) -> dict:
    # Statistics writes unit, avg, p1 ... p99, min, max, std, in that order.
    values = {"p1": p50 * 0.5, "p5": p50 * 0.6, "p10": p50 * 0.7, "p25": p50 * 0.8, "p50": p50, "p75": p50 * 1.1, "p90": p90, "p95": p95, "p99": p99}
    return {"unit": unit, "avg": avg, **values, "min": p50 * 0.4, "max": p99 * 1.1, "std": 1.5}


def _export_2025(**changes) -> dict:
    """12 requests answered, 150.25 output tokens each on average (E = 1803), over 6.0 s
    (which the file does not say): request_throughput 12 / 6, output_token_throughput 1803 / 6."""
    data = {
        "request_throughput": {"unit": "requests/sec", "avg": 2.0},
        "request_latency": _dist("ms", 1480.5, 1475.0, 1530.0, 1541.0, 1560.25),
        "request_count": {"unit": "count", "avg": 12.0},
        "time_to_first_token": _dist("ms", 42.5, 41.0, 48.0, 50.5, 55.0),
        "time_to_second_token": _dist("ms", 9.5, 9.25, 11.0, 11.5, 12.0),
        "inter_token_latency": _dist("ms", 9.625, 9.5, 10.25, 10.5, 11.0),
        "output_token_throughput": {"unit": "tokens/sec", "avg": 300.5},
        "output_token_throughput_per_user": _dist("tokens/sec/user", 104.0, 105.25, 110.0, 111.0, 112.0),
        "output_sequence_length": _dist("tokens", 150.25, 150.0, 152.0, 153.0, 155.0),
        "input_sequence_length": _dist("tokens", 550.0, 550.0, 550.0, 550.0, 550.0),
        "telemetry_stats": {"gpu_power_usage": {"unit": "W", "gpu0": {"avg": 310.2, "p50": 312.0}}},
        "input_config": {
            "model_names": ["meta-llama/Llama-3.1-8B-Instruct"],
            "subcommand": "profile",
            "verbose": False,
            "template_filename": "genai_perf_config.yaml",
            "analyze": {"sweep_parameters": {"concurrency": {"start": 1, "stop": 1024, "step": 1}}},
            "endpoint": {
                "model_selection_strategy": "round_robin",
                "backend": "tensorrtllm",
                "custom": "",
                "type": "chat",
                "streaming": True,
                "server_metrics_urls": ["http://localhost:8002/metrics"],
                "url": "localhost:8000",
                "grpc_method": "",
                "service_kind": "openai",
                "output_format": "openai_chat_completions",
            },
            "perf_analyzer": {
                "path": "perf_analyzer",
                "verbose": False,
                "stimulus": {"concurrency": 4},
                "stability_percentage": 999,
                "measurement": {"mode": "request_count", "num": 12},
                "warmup_request_count": 0,
            },
            "input": {"batch_size": 1, "extra": "", "goodput": "", "header": "", "file": "", "num_dataset_entries": 100, "random_seed": 0},
            "output": {
                "artifact_directory": "artifacts/meta-llama_Llama-3.1-8B-Instruct-openai-chat-concurrency4",
                "checkpoint_directory": "checkpoint",
                "profile_export_file": "profile_export.json",
                "generate_plots": False,
                "enable_checkpointing": False,
            },
            "tokenizer": {"name": "meta-llama/Llama-3.1-8B-Instruct", "revision": "main", "trust_remote_code": False, "_enable_debug_logging": True},
            "process": {"input_path": ""},
        },
    }
    data.update(changes)
    return data


def _import(sdeval, path, fmt="genai-perf"):
    out = sdeval("import", fmt, path, "--arrangement", "target-only")
    assert out.exit_code == 0, out.stderr
    (run,) = out.json()["runs"]
    return run


def test_genai_perf_2025_export_counts_requests_and_e_and_keeps_the_stimulus(sdeval, tmp_path):
    path = tmp_path / "profile_export_genai_perf.json"
    path.write_text(json.dumps(_export_2025(), indent=2))
    run = _import(sdeval, path)
    assert run["workload"] == {"num_requests": 12, "input_tokens_mean": 550.0, "output_tokens_mean": 150.25}
    assert run["counts"] == {"emitted_tokens": 1803, "population": "benchmark-requests"}  # 150.25 x 12
    assert run["load"] == {"concurrency": 4, "loop": "closed"}
    assert "interval" not in run  # GenAI-Perf writes no duration
    assert run["reported"] == {"output_tokens_per_s": 300.5}
    assert run["latency"]["ttft_ms"] == {"mean": 42.5, "p50": 41.0, "p90": 48.0, "p95": 50.5, "p99": 55.0}
    assert run["latency"]["tpot_ms"] == {"mean": 9.625, "p50": 9.5, "p90": 10.25, "p95": 10.5, "p99": 11.0}
    assert "itl_ms" not in run["latency"]
    assert run["latency"]["e2e_ms"] == {"mean": 1480.5, "p50": 1475.0, "p90": 1530.0, "p95": 1541.0, "p99": 1560.25}
    assert run["per_user_throughput"]["tokens_per_s"] == 104.0 and run["per_user_throughput"]["statistic"] == "mean"
    assert run["source"] == {"format": "genai-perf", "file": path.name, "sha256": run["source"]["sha256"]}  # no version in the file
    notes = run["notes"]
    assert "E is output_sequence_length.avg x request_count.avg = 150.25 x 12." in notes
    assert "re-tokenising each response's text with its tokenizer (meta-llama/Llama-3.1-8B-Instruct)" in notes
    assert (
        "GenAI-Perf input_config: model meta-llama/Llama-3.1-8B-Instruct; tokenizer meta-llama/Llama-3.1-8B-Instruct; "
        "service kind openai, endpoint chat; streaming; subcommand profile."
    ) in notes
    assert "writes no benchmark duration" in notes


def test_genai_perf_request_rate_and_session_stimuli(sdeval, tmp_path):
    data = _export_2025()
    data["input_config"]["perf_analyzer"]["stimulus"] = {"request_rate": 2.5}
    path = tmp_path / "rate.json"
    path.write_text(json.dumps(data))
    assert _import(sdeval, path)["load"] == {"request_rate": 2.5, "loop": "open"}
    data["input_config"]["perf_analyzer"]["stimulus"] = {"session_concurrency": 2}
    path.write_text(json.dumps(data))
    run = _import(sdeval, path)
    assert "load" not in run
    assert "stimulus was session_concurrency 2: sessions or a schedule" in run["notes"]


def test_genai_perf_mean_that_gives_no_whole_token_count_leaves_e_missing(sdeval, tmp_path):
    data = _export_2025()
    data["output_sequence_length"]["avg"] = 150.3
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    run = _import(sdeval, path)
    assert "emitted_tokens" not in run["counts"] and run["workload"]["num_requests"] == 12
    assert "150.3 x 12 is not a whole number of tokens" in run["notes"]


# The upstream test's expected output at bf8c950f (2024 to February 2025: input_config is the CLI's
# arguments, flat; request_throughput written as the string "7"; no request_count in that test).
UPSTREAM_2024 = {
    "request_throughput": {"unit": "requests/sec", "avg": "7"},
    "request_latency": {"unit": "ms", "avg": 1, "p99": 2, "p95": 3, "p90": 4, "p75": 5, "p50": 6, "p25": 7, "max": 8, "min": 9, "std": 0},
    "time_to_first_token": {
        "unit": "ms",
        "avg": 11,
        "p99": 12,
        "p95": 13,
        "p90": 14,
        "p75": 15,
        "p50": 16,
        "p25": 17,
        "max": 18,
        "min": 19,
        "std": 10,
    },
    "inter_token_latency": {
        "unit": "ms",
        "avg": 21,
        "p99": 22,
        "p95": 23,
        "p90": 24,
        "p75": 25,
        "p50": 26,
        "p25": 27,
        "max": 28,
        "min": 29,
        "std": 20,
    },
    "output_token_throughput": {"unit": "tokens/sec", "avg": 31},
    "output_token_throughput_per_request": {
        "unit": "tokens/sec",
        "avg": 41,
        "p99": 42,
        "p95": 43,
        "p90": 44,
        "p75": 45,
        "p50": 46,
        "p25": 47,
        "max": 48,
        "min": 49,
        "std": 40,
    },
    "output_sequence_length": {
        "unit": "tokens",
        "avg": 51,
        "p99": 52,
        "p95": 53,
        "p90": 54,
        "p75": 55,
        "p50": 56,
        "p25": 57,
        "max": 58,
        "min": 59,
        "std": 50,
    },
    "input_sequence_length": {
        "unit": "tokens",
        "avg": 61,
        "p99": 62,
        "p95": 63,
        "p90": 64,
        "p75": 65,
        "p50": 66,
        "p25": 67,
        "max": 68,
        "min": 69,
        "std": 60,
    },
    "input_config": {
        "model": ["gpt2_vllm"],
        "formatted_model_name": "gpt2_vllm",
        "model_selection_strategy": "round_robin",
        "backend": "vllm",
        "batch_size_image": 1,
        "batch_size_text": 1,
        "endpoint": None,
        "endpoint_type": "kserve",
        "service_kind": "triton",
        "server_metrics_url": [],
        "session_concurrency": None,
        "streaming": True,
        "u": None,
        "num_dataset_entries": 100,
        "num_prefix_prompts": 0,
        "output_tokens_mean": -1,
        "output_tokens_mean_deterministic": False,
        "output_tokens_stddev": 0,
        "random_seed": 0,
        "request_count": 0,
        "synthetic_input_files": None,
        "synthetic_input_tokens_mean": 550,
        "synthetic_input_tokens_stddev": 0,
        "prefix_prompt_length": 100,
        "warmup_request_count": 0,
        "image_width_mean": 100,
        "image_width_stddev": 0,
        "image_height_mean": 100,
        "image_height_stddev": 0,
        "image_format": None,
        "concurrency": 1,
        "measurement_interval": 10000,
        "request_rate": None,
        "stability_percentage": 999,
        "generate_plots": False,
        "profile_export_file": "artifacts/gpt2_vllm-triton-vllm-concurrency1/profile_export.json",
        "artifact_dir": "artifacts/gpt2_vllm-triton-vllm-concurrency1",
        "tokenizer": "hf-internal-testing/llama-tokenizer",
        "tokenizer_revision": "main",
        "tokenizer_trust_remote_code": False,
        "verbose": False,
        "goodput": None,
        "header": None,
        "subcommand": "profile",
        "prompt_source": "synthetic",
        "extra_inputs": {"max_tokens": 256, "ignore_eos": True},
    },
}


def test_genai_perf_2024_flat_arguments_as_genai_perfs_own_test_expects(sdeval, tmp_path):
    path = tmp_path / "profile_export_genai_perf.json"
    path.write_text(json.dumps(UPSTREAM_2024, indent=2))
    run = _import(sdeval, path)
    assert run["load"] == {"concurrency": 1, "loop": "closed"}
    assert run["workload"] == {"input_tokens_mean": 61.0, "output_tokens_mean": 51.0}  # no request_count, so no requests or E
    assert run["counts"] == {"population": "benchmark-requests"}
    assert run["latency"] == {
        "ttft_ms": {"mean": 11.0, "p50": 16.0, "p90": 14.0, "p95": 13.0, "p99": 12.0},
        "tpot_ms": {"mean": 21.0, "p50": 26.0, "p90": 24.0, "p95": 23.0, "p99": 22.0},
        "e2e_ms": {"mean": 1.0, "p50": 6.0, "p90": 4.0, "p95": 3.0, "p99": 2.0},
    }
    assert run["reported"] == {"output_tokens_per_s": 31.0}
    assert run["per_user_throughput"]["tokens_per_s"] == 41.0
    assert "output tokens / request latency" in run["per_user_throughput"]["definition"]
    assert "The file has no request_count" in run["notes"]
    assert (
        "GenAI-Perf input_config: model gpt2_vllm; tokenizer hf-internal-testing/llama-tokenizer; service kind triton, "
        "endpoint kserve; streaming; subcommand profile."
    ) in run["notes"]
    data = copy.deepcopy(UPSTREAM_2024)
    data["request_count"] = {"unit": "count", "avg": 40.0}
    path.write_text(json.dumps(data))
    run = _import(sdeval, path)
    assert run["counts"]["emitted_tokens"] == 2040 and run["workload"]["num_requests"] == 40  # 51 x 40


def test_genai_perf_first_exports_in_nanoseconds_keep_itl_as_itl(sdeval, tmp_path):
    # c18c493e (May 2024): times in ns, num_output_token / num_input_token, ITL the gap between chunks.
    data = {
        "time_to_first_token": {
            "unit": "ns",
            "avg": 45_500_000.0,
            "p99": 60_000_000.0,
            "p95": 58_000_000.0,
            "p90": 55_000_000.0,
            "p75": 50_000_000.0,
            "p50": 44_000_000.0,
            "p25": 40_000_000.0,
            "max": 61_000_000.0,
            "min": 39_000_000.0,
            "std": 1.0,
        },
        "inter_token_latency": {
            "unit": "ns",
            "avg": 2_250_000.0,
            "p99": 4_000_000.0,
            "p95": 3_500_000.0,
            "p90": 3_000_000.0,
            "p75": 2_500_000.0,
            "p50": 2_000_000.0,
            "p25": 1_500_000.0,
            "max": 5_000_000.0,
            "min": 1_000_000.0,
            "std": 1.0,
        },
        "request_throughput": {"unit": "requests/sec", "avg": 3.5},
        "num_output_token": {"unit": "tokens", "avg": 128.0, "p50": 128.0},
        "input_config": {
            "model": "gpt2",
            "concurrency": 2,
            "request_rate": None,
            "service_kind": "openai",
            "endpoint_type": "chat",
            "tokenizer": "gpt2",
        },
    }
    path = tmp_path / "profile_export_genai_perf.json"
    path.write_text(json.dumps(data))
    run = _import(sdeval, path)
    assert run["latency"]["itl_ms"] == {"mean": 2.25, "p50": 2.0, "p90": 3.0, "p95": 3.5, "p99": 4.0}
    assert run["latency"]["ttft_ms"] == {"mean": 45.5, "p50": 44.0, "p90": 55.0, "p95": 58.0, "p99": 60.0}
    assert "tpot_ms" not in run["latency"] and run["workload"]["output_tokens_mean"] == 128.0
    assert "kept as ITL, not TPOT" in run["notes"]


def test_genai_perf_is_sniffed_apart_from_aiperf_and_bad_input_is_refused_in_one_line(sdeval, tmp_path):
    from evaluator.importers import sniff

    sectioned, flat = tmp_path / "a_genai_perf.json", tmp_path / "b_genai_perf.json"
    sectioned.write_text(json.dumps(_export_2025(), indent=2))
    flat.write_text(json.dumps(UPSTREAM_2024, indent=2))
    assert sniff(sectioned) == sniff(flat) == "genai-perf"
    # An AIPerf export of the same block shape, with AIPerf's own input_config, stays aiperf.
    aiperf = tmp_path / "profile_export_aiperf.json"
    aiperf.write_text(
        json.dumps(
            {
                "request_throughput": {"unit": "requests/sec", "avg": 2.0},
                "request_count": {"unit": "requests", "avg": 12.0},
                "input_config": {"endpoint": {"model_names": ["m"], "type": "chat", "streaming": True}, "loadgen": {"concurrency": 4}},
            }
        )
    )
    assert sniff(aiperf) == "aiperf"

    other = tmp_path / "other.json"
    other.write_text(json.dumps({"hello": 1}))
    out = sdeval("import", "genai-perf", other, "--arrangement", "target-only")
    assert (out.exit_code, out.stderr) == (
        2,
        f'sdeval: {other}: holds no GenAI-Perf metric blocks ({{"unit", "avg", ...}} at the top level), so it is not genai-perf output\n',
    )
    out = sdeval("import", "vllm-bench", sectioned, "--arrangement", "target-only")
    assert out.exit_code == 2 and "it looks like genai-perf output" in out.stderr
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_export_2025(request_count={"unit": "count", "avg": 12.5})))
    out = sdeval("import", "genai-perf", bad, "--arrangement", "target-only")
    assert (out.exit_code, out.stderr) == (2, f"sdeval: {bad}: request_count.avg: not a whole number of requests\n")
    bad.write_text(json.dumps(_export_2025(input_config=["not", "an", "object"])))
    out = sdeval("import", "genai-perf", bad, "--arrangement", "target-only")
    assert (out.exit_code, out.stderr) == (2, f"sdeval: {bad}: input_config: not an object\n")
