"""Importers on output files other people committed to public repositories, with their exact figures.

The files are kept outside this repository, in ../shared/real-outputs/ (SOURCES.md there names
each file's repository, path, commit and tool version); every one of them is imported here
and every figure is pinned to the value written in the file. The expected values are the
file's own numbers: a latency percentile is the file's key, a count is the file's total, an
interval is the file's duration or, for guidellm, the span its timestamps give.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REAL = Path(__file__).resolve().parents[3] / "shared" / "real-outputs"

pytestmark = pytest.mark.skipif(not REAL.is_dir(), reason=f"{REAL} is absent (public tool outputs kept outside the repository)")

CLIENT_WALL_CLOCK = {
    "start_event": "first benchmark request sent by the client",
    "end_event": "last benchmark response received by the client",
    "scope": "end-to-end",
    "measurement": "complete-interval",
}
GUIDELLM_TOKEN_SPAN = {
    **CLIENT_WALL_CLOCK,
    "start_event": "first output token of the requests guidellm counted, received by the client",
    "end_event": "last output token of the requests guidellm counted, received by the client",
}

# Every file under ../shared/real-outputs is imported by one test below.
COVERED = {
    "aiperf/aiperf-example-run1-2025-10.json",
    "aiperf/aiperf-plotfixture-qwen-c1-2026-01.json",
    "aiperf/ajcasagrande-artifacts-2025-06.json",
    "aiperf/akamaslabs-aiperf-0.11.0-qwen3-4b-c16.json",
    "aiperf/akamaslabs-aiperf-0.11.0-qwen3-4b-c384.json",
    "guidellm/guidellm-v0.3-benchmarks-stripped.json",
    "guidellm/guidellm-v0.3-benchmarks-stripped.yaml",
    "guidellm/korat-gpt-oss-20b-benchmarks.json",
    "guidellm/korat-qwen3-4b-sanity-benchmarks.json",
    "llmperf/ray-leaderboard-anyscale-70b-summary.json",
    "llmperf/ray-leaderboard-bedrock-13b-individual-responses.json",
    "llmperf/ray-leaderboard-lepton-13b-individual-responses.json",
    "llmperf/ray-leaderboard-lepton-13b-summary.json",
    "llmperf/ray-leaderboard-replicate-70b-summary.json",
    "sglang-bench/datacrunch-deepseek-dp-mla-2024-12.jsonl",
    "sglang-bench/datacrunch-llama33-70b-online-2024-12.jsonl",
    "sglang-bench/tonyli-agg-n100-in128-out128-c32.jsonl",
    "sglang-bench/tonyli-pd-1p1d-in2048-out512-c128.jsonl",
    "trtllm-bench/kubota-latency-trt1.2.0-in1024-out40-bs1.json",
    "vllm-bench/bigyellowduck-multiturn-spec-decode-c1.json",
    "vllm-bench/er0080-bench-serve-speculative-v0.25.1.json",
    "vllm-bench/er0080-bench-serve-v0.25.1.json",
    "vllm-bench/er0080-vllm-bench-sweep-v0.25.1-summary.json",
    "vllm-bench/inferencex-atom-mtp-qwen3.5-conc64.json",
    "vllm-bench/inferencex-multinode-gpt-oss-120b-conc4.json",
    "vllm-metrics/er0080-vllm0.25.1-idle.prom",
    "vllm-metrics/er0080-vllm0.25.1-loaded.prom",
}


def imported(sdeval, fmt: str, *names: str, arrangement: str = "target-only") -> list[dict]:
    result = sdeval("import", fmt, *(REAL / n for n in names), "--arrangement", arrangement)
    assert result.exit_code == 0, result.stderr
    return result.json()["runs"]


def test_every_real_output_is_covered():
    # references/ holds published reference results, not tool outputs to import.
    present = {
        str(p.relative_to(REAL)) for p in REAL.rglob("*") if p.is_file() and p.name != "SOURCES.md" and p.relative_to(REAL).parts[0] != "references"
    }
    assert present == COVERED


@pytest.mark.parametrize("name", sorted(n for n in COVERED if not n.startswith("vllm-metrics/")))
def test_the_format_guesser_names_each_file_as_its_tool(name):
    from evaluator.importers import sniff

    assert sniff(REAL / name) == name.split("/")[0]


# ------------------------------------------------------------------------------------- AIPerf


def test_aiperf_records_layout_of_october_2025_counts_reasoning_tokens_as_output(sdeval):
    """AIPerf 0.1.1's own example artifact: metric blocks under `records`, keyed by tag."""
    [run] = imported(sdeval, "aiperf", "aiperf/aiperf-example-run1-2025-10.json")
    # 1,832 output + 19,792 reasoning = 21,624 output-sequence tokens (total_osl).
    assert run["counts"] == {"emitted_tokens": 21624, "reasoning_tokens": 19792, "population": "benchmark-requests"}
    assert run["interval"] == {**CLIENT_WALL_CLOCK, "duration_s": 9.317788951}
    assert run["reported"] == {"output_tokens_per_s": 2320.7222350404572}
    # AIPerf's own throughput is total_osl / benchmark_duration: E / T agrees to the float.
    assert abs(21624 / 9.317788951 - 2320.7222350404572) < 1e-9
    assert run["workload"] == {"num_requests": 89, "input_tokens_mean": 550.0, "output_tokens_mean": 242.96629213483146}
    assert run["load"] == {"concurrency": 100, "loop": "closed"}
    assert run["latency"] == {
        "ttft_ms": {"mean": 2343.219436988764, "p50": 2369.317693, "p90": 3796.9311679999996, "p95": 3825.2778412, "p99": 3833.3894000399996},
        # inter_token_latency, (latency - TTFT) / (tokens after the first chunk): TPOT
        "tpot_ms": {
            "mean": 27.763065454471807,
            "p50": 27.615130366666666,
            "p90": 32.87232279340302,
            "p95": 33.34450986349594,
            "p99": 33.73224787406911,
        },
        # inter_chunk_latency, the gaps between streamed chunks: its p99 is four times TPOT's
        "itl_ms": {"mean": 27.755153106189347, "p50": 22.673047999999998, "p90": 24.875479600000002, "p95": 31.6586686, "p99": 140.53429476},
        "e2e_ms": {"mean": 9059.654633033708, "p50": 9097.345014999999, "p90": 9277.5984794, "p95": 9288.605606, "p99": 9297.609933759999},
    }
    assert run["notes"] == (
        "AIPerf export with records keyed by tag (July to October 2025). "
        "E is AIPerf's own count (total_osl), which it takes with its tokenizer from the response text unless run with "
        "--use-server-token-count; the file holds no server usage counts (total_usage_completion_tokens) to check it against. "
        "The interval is its benchmark_duration, 9.31779 s: the one AIPerf divided its output_token_throughput by. "
        "E includes 19792 reasoning tokens (total_reasoning_tokens): every generated token is output. "
        "11 errored requests (error_request_count) are not in the counts. "
        'AIPerf: model openai/gpt-oss-20b; command line: aiperf profile -m "openai/gpt-oss-20b" --url "localhost:9000" --streaming '
        '--num-requests 100 --concurrency 100 --endpoint-type "chat" --osl 250 --request-cancellation-rate 10.'
    )
    assert "tool_version" not in run["source"]  # the file does not say


def test_aiperf_june_2025_pre_release_imports_its_latencies_and_says_what_it_lacks(sdeval):
    [run] = imported(sdeval, "aiperf", "aiperf/ajcasagrande-artifacts-2025-06.json")
    assert run["latency"] == {
        "ttft_ms": {"mean": 30.4630958, "p50": 22.508355, "p90": 32.51291139999997, "p95": 67.05524169999993, "p99": 94.68910594000002},
        "tpot_ms": {"mean": 4.9662255272727265, "p50": 4.997382368686869, "p90": 5.00160013939394, "p95": 5.003634812121212, "p99": 5.00526255030303},
        # "Time to Last Token": request start to last response, the request latency.
        "e2e_ms": {"mean": 522.1955348, "p50": 517.2509115, "p90": 524.5379523, "p95": 544.68282915, "p99": 560.79873063},
    }
    assert run["workload"] == {"num_requests": 10}
    assert run["counts"] == {"population": "benchmark-requests"}  # no token counts: missing, not zero
    assert "interval" not in run and "load" not in run and "reported" not in run
    assert run["notes"] == (
        "AIPerf export with records keyed by display name (June 2025 pre-release). "
        "That pre-release wrote latency distributions only: no benchmark duration, token counts or load. "
        "The request count is the 10 requests behind its Time to Last Token."
    )


def test_aiperf_top_level_blocks_of_2026(sdeval):
    [run] = imported(sdeval, "aiperf", "aiperf/aiperf-plotfixture-qwen-c1-2026-01.json")
    assert run["counts"] == {"emitted_tokens": 12799, "population": "benchmark-requests"}
    assert run["interval"] == {**CLIENT_WALL_CLOCK, "duration_s": 255.56017270100003}
    assert run["reported"] == {"output_tokens_per_s": 50.08213863971112}
    assert 12799 / 255.56017270100003 == 50.08213863971112
    assert run["workload"] == {"num_requests": 64, "input_tokens_mean": 100.0, "output_tokens_mean": 199.984375}
    assert run["load"] == {"concurrency": 1, "loop": "closed"}
    assert run["latency"] == {
        "ttft_ms": {"mean": 30.814987671875, "p50": 30.668547999999998, "p90": 32.5407818, "p95": 33.0437491, "p99": 34.344268879999994},
        "tpot_ms": {
            "mean": 18.19909533160138,
            "p50": 18.158001085427134,
            "p90": 18.501767488944722,
            "p95": 18.883067175879397,
            "p99": 19.481766498241203,
        },
        "itl_ms": {"mean": 18.197640450062813, "p50": 18.063869, "p90": 19.216330499999998, "p95": 19.63826375, "p99": 20.8811646},
        "e2e_ms": {"mean": 3652.1454372343746, "p50": 3644.0809205, "p90": 3710.542044, "p95": 3789.34443225, "p99": 3909.3341161199996},
    }
    # The file has no aiperf_version; goodput and good_request_count are null (no --goodput given).
    assert "goodput" not in run
    assert run["notes"] == (
        "E is AIPerf's own count (total_osl), which it takes with its tokenizer from the response text unless run with "
        "--use-server-token-count; the file holds no server usage counts (total_usage_completion_tokens) to check it against. "
        "The interval is its benchmark_duration, 255.56 s: the one AIPerf divided its output_token_throughput by. "
        'AIPerf: model Qwen/Qwen3-0.6B; command line: aiperf profile --model "Qwen/Qwen3-0.6B" --endpoint-type "chat" '
        '--endpoint "/v1/chat/completions" --streaming --url "localhost:8000" --synthetic-input-tokens-mean 100 '
        '--synthetic-input-tokens-stddev 0 --output-tokens-mean 200 --output-tokens-stddev 0 --extra-inputs "min_tokens:200" '
        '--extra-inputs "ignore_eos:true" --concurrency 1 --request-count 64 --warmup-request-count 1 --random-seed 100 '
        '--gpu-telemetry "localhost:9402" --output-artifact-dir "artifacts/new_sweep_qwen/Qwen_Qwen3-0.6B-openai-chat-concurrency1".'
    )


AKAMAS_COMMAND = (
    "aiperf profile --model 'qwen3-4b' --tokenizer 'Qwen/Qwen3-4B-Instruct-2507-FP8' --url 'http://vllm.gpu-sharing.svc.cluster.local:8000' "
    "--endpoint-type 'chat' --streaming --input-file '/benchmarks/sharegpt-cache/inputs-qwen3-4b.json' --custom-dataset-type 'inputs_json' "
    "--concurrency '16,32,64,96,128,192,256,320,384,512,640,768' --benchmark-duration 300 "
    "--goodput 'time_to_first_token:1500 inter_token_latency:300' --ui 'simple' --output-artifact-dir '/benchmarks/aiperf-1790787190'"
)
AKAMAS_GOODPUT_DEFINITION = (
    "AIPerf --goodput: a request is good when it meets every SLO (time_to_first_token <= 1500, inter_token_latency <= 300; "
    "time limits in ms) and has a value for each metric; goodput = good_request_count / the run's interval"
)


def test_aiperf_011_phases_layout_gives_the_load_goodput_and_what_ran(sdeval):
    """AIPerf 0.11.0: the load only in input_config.phases, goodput at the SLOs of input_config.slos,
    the model, tokenizer and command line in input_config and run_info; point 0 of a 12-point sweep."""
    [run] = imported(sdeval, "aiperf", "aiperf/akamaslabs-aiperf-0.11.0-qwen3-4b-c16.json")
    assert run["workload"] == {"num_requests": 2044, "output_tokens_mean": 262.9911937377691}
    # phases: [{"name": "profiling", "type": "concurrency", "concurrency": 16, "duration": 300.0, ...}]
    assert run["load"] == {"concurrency": 16, "loop": "closed"}
    assert run["interval"] == {**CLIENT_WALL_CLOCK, "duration_s": 299.935655192}
    # total_osl 537,554 = output_sequence_length.sum over its 2,044 requests (no reasoning tokens)
    assert run["counts"] == {"emitted_tokens": 537554, "population": "benchmark-requests"}
    assert run["reported"] == {"output_tokens_per_s": 1792.2310692134672}
    assert 537554 / 299.935655192 == 1792.2310692134672
    # Every request met both SLOs: 2,044 good of 2,044 in 299.9357 s.
    assert run["goodput"] == {
        "requests_per_s": 6.814794988917071,
        "ttft_limit_ms": 1500.0,
        "tpot_limit_ms": 300.0,
        "definition": AKAMAS_GOODPUT_DEFINITION,
        "good_requests": 2044,
    }
    assert 2044 / 299.935655192 == 6.814794988917071
    assert run["latency"] == {
        "ttft_ms": {"mean": 28.736161119863013, "p50": 26.7700945, "p90": 33.0120912, "p95": 40.51439944999998, "p99": 66.76023583999999},
        "tpot_ms": {"mean": 8.77927431816552, "p50": 8.731694873219372, "p90": 9.14595657659939, "p95": 9.332210860499707, "p99": 9.838724690325117},
        "itl_ms": {"mean": 8.84740421014943, "p50": 8.570710070883354, "p90": 9.173087110457397, "p95": 10.373203581929605, "p99": 16.03902264088357},
        "e2e_ms": {"mean": 2334.7705151291584, "p50": 2191.4849815, "p90": 4260.8727653, "p95": 5308.399138349999, "p99": 6997.258709539996},
    }
    assert run["source"]["tool_version"] == "0.11.0"
    assert run["notes"] == (
        "E is AIPerf's own count (total_osl), which it takes with its tokenizer from the response text unless run with "
        "--use-server-token-count; the file holds no server usage counts (total_usage_completion_tokens) to check it against. "
        "The interval is its benchmark_duration, 299.936 s: the one AIPerf divided its output_token_throughput by. "
        "Goodput: AIPerf counted 2044 of 2044 requests good (good_request_count) at its SLOs. "
        "One point of AIPerf sweep 4a9ac728-ad3f-40ef-b933-acfc46a330fd: phases.profiling.concurrency=16 (variation 0, trial 0). "
        f"AIPerf 0.11.0: model qwen3-4b; tokenizer Qwen/Qwen3-4B-Instruct-2507-FP8 (revision main); command line: {AKAMAS_COMMAND}."
    )


def test_aiperf_011_overloaded_point_keeps_its_few_good_requests(sdeval):
    """Concurrency 384 of the same sweep: TTFT p50 7.3 s against the 1,500 ms SLO leaves 201 of 5,267 good."""
    [run] = imported(sdeval, "aiperf", "aiperf/akamaslabs-aiperf-0.11.0-qwen3-4b-c384.json")
    assert run["workload"] == {"num_requests": 5267, "output_tokens_mean": 261.8720334156066}
    assert run["load"] == {"concurrency": 384, "loop": "closed"}
    assert run["interval"]["duration_s"] == 299.86955272800003
    assert run["counts"] == {"emitted_tokens": 1379280, "population": "benchmark-requests"}
    assert run["reported"] == {"output_tokens_per_s": 4599.600017581949}
    assert run["goodput"] == {
        "requests_per_s": 0.6702914589742269,
        "ttft_limit_ms": 1500.0,
        "tpot_limit_ms": 300.0,
        "definition": AKAMAS_GOODPUT_DEFINITION,
        "good_requests": 201,
    }
    assert 201 / 299.86955272800003 == 0.6702914589742269
    # 3 one-token responses have no ITL (5,264 of 5,267 counted), so they were not good under its limit.
    assert run["latency"]["tpot_ms"]["p99"] == 60.413256245833324
    assert run["latency"]["ttft_ms"]["p50"] == 7293.420454
    assert run["notes"].startswith(
        "E is AIPerf's own count (total_osl), which it takes with its tokenizer from the response text unless run with "
        "--use-server-token-count; the file holds no server usage counts (total_usage_completion_tokens) to check it against. "
        "The interval is its benchmark_duration, 299.87 s: the one AIPerf divided its output_token_throughput by. "
        "Goodput: AIPerf counted 201 of 5267 requests good (good_request_count) at its SLOs. "
        "One point of AIPerf sweep 4a9ac728-ad3f-40ef-b933-acfc46a330fd: phases.profiling.concurrency=384 (variation 8, trial 0). "
        "AIPerf 0.11.0: model qwen3-4b;"
    )


def test_the_points_of_a_sweep_import_together_one_run_each(sdeval):
    runs = imported(sdeval, "aiperf", "aiperf/akamaslabs-aiperf-0.11.0-qwen3-4b-c16.json", "aiperf/akamaslabs-aiperf-0.11.0-qwen3-4b-c384.json")
    assert [(r["id"], r["load"]["concurrency"], r["counts"]["emitted_tokens"]) for r in runs] == [
        ("akamaslabs-aiperf-0.11.0-qwen3-4b-c16-1", 16, 537554),
        ("akamaslabs-aiperf-0.11.0-qwen3-4b-c384-2", 384, 1379280),
    ]


# ------------------------------------------------------------------------------------ guidellm


def test_guidellm_trimmed_window_takes_the_span_of_the_counted_requests(sdeval):
    """guidellm 0.5 trims 90 s of warm-up and 90 s of cool-down from a 900 s run (window 720 s)
    but counts the 25 requests overlapping the window whole; their tokens span 766 s."""
    [run] = imported(sdeval, "guidellm", "guidellm/korat-gpt-oss-20b-benchmarks.json")
    assert run["counts"] == {"emitted_tokens": 25600, "population": "benchmark-requests"}
    # 1772472827.9392715 (last output token) - 1772472061.8708122 (first output token)
    assert run["interval"] == {**GUIDELLM_TOKEN_SPAN, "duration_s": 766.0684592723846}
    assert run["reported"] == {"output_tokens_per_s": 33.417378943280085}
    assert abs(25600 / 766.0684592723846 - 33.417378943280085) < 1e-12  # not 25600 / 720 = 35.6
    assert run["workload"] == {"num_requests": 25, "input_tokens_mean": 92.72, "output_tokens_mean": 1024.0}
    assert run["load"] == {"concurrency": 1, "loop": "closed", "measured_peak_concurrency": 1}
    assert run["latency"] == {
        "ttft_ms": {
            "mean": 48.843650817871094,
            "p50": 47.66058921813965,
            "p90": 52.314043045043945,
            "p95": 57.81126022338867,
            "p99": 60.7762336730957,
        },
        # inter_token_latency_ms, (last - first token) / (tokens - 1): TPOT
        "tpot_ms": {
            "mean": 29.90631087667665,
            "p50": 29.910243734469745,
            "p90": 30.03013611772077,
            "p95": 30.12210253047104,
            "p99": 30.12655347673075,
        },
        # time_per_output_token_ms, (last token - request start) / tokens: the first token's wait in
        "tpot_with_first_ms": {
            "mean": 29.92480437271297,
            "p50": 29.92664952762425,
            "p90": 30.05189774557948,
            "p95": 30.142940115183592,
            "p99": 30.15203820541501,
        },
        # guidellm writes request latency in seconds
        "e2e_ms": {
            "mean": 30.64414818763733 * 1000,
            "p50": 30.646172523498535 * 1000,
            "p90": 30.774200439453125 * 1000,
            "p95": 30.867777824401855 * 1000,
            "p99": 30.878238439559937 * 1000,
        },
    }
    assert run["notes"] == (
        "guidellm counted the 25 successful requests that overlap its 720 s measurement window "
        "(after 89.997 s of warm-up and 90.003 s of cool-down were trimmed), whole; the interval is from "
        "their first to their last output token (766.068 s), guidellm's own basis for output tokens/s."
    )
    assert run["source"]["tool_version"] == "0.5.0.dev0"


def test_guidellm_untrimmed_concurrent_run_agrees_with_its_own_throughput_within_its_merging(sdeval):
    [run] = imported(sdeval, "guidellm", "guidellm/korat-qwen3-4b-sanity-benchmarks.json")
    assert run["counts"] == {"emitted_tokens": 4096, "population": "benchmark-requests"}
    assert run["interval"] == {**GUIDELLM_TOKEN_SPAN, "duration_s": 24.73512554168701}
    assert run["reported"] == {"output_tokens_per_s": 165.59511945248636}
    # guidellm merges token events less than 0.1 ms apart, so its span can be up to 0.1 ms shorter:
    # 4096 / 24.73512554168701 = 165.59447 against its 165.59512 (4 parts in a million).
    assert 0 < 165.59511945248636 - 4096 / 24.73512554168701 < 165.6 * 0.0001 / 24.7
    assert run["load"] == {"concurrency": 4, "loop": "closed", "measured_peak_concurrency": 4}
    assert run["workload"] == {"num_requests": 4, "input_tokens_mean": 99.0, "output_tokens_mean": 1024.0}
    assert run["latency"]["ttft_ms"] == {
        "mean": 171.7655062675476,
        "p50": 171.52166366577148,
        "p90": 172.63293266296387,
        "p95": 172.63293266296387,
        "p99": 172.63293266296387,
    }
    assert run["latency"]["e2e_ms"]["p50"] == 24.90842366218567 * 1000
    assert run["notes"] == (
        "guidellm counted the 4 successful requests that overlap its 24.9096 s measurement window, whole; "
        "the interval is from their first to their last output token (24.7351 s), guidellm's own basis for output tokens/s."
    )


@pytest.mark.parametrize("name", ["guidellm/guidellm-v0.3-benchmarks-stripped.json", "guidellm/guidellm-v0.3-benchmarks-stripped.yaml"])
def test_guidellm_v03_keeps_its_duration_and_its_figure_as_a_note(sdeval, name):
    [run] = imported(sdeval, "guidellm", name)
    assert run["counts"] == {"emitted_tokens": 5888, "population": "benchmark-requests"}
    assert run["interval"] == {**CLIENT_WALL_CLOCK, "duration_s": 29.997201442718506}
    assert "reported" not in run
    assert run["workload"] == {"num_requests": 46, "input_tokens_mean": 257.1086956521739, "output_tokens_mean": 127.99999999999999}
    assert run["load"] == {"concurrency": 1, "loop": "closed", "measured_peak_concurrency": 1}
    assert run["latency"]["ttft_ms"] == {
        "mean": 16.792535781860348,
        "p50": 16.38054847717285,
        "p90": 18.505334854125977,
        "p95": 19.00935173034668,
        "p99": 21.281957626342773,
    }
    assert run["latency"]["e2e_ms"]["mean"] == 0.6444743664368339 * 1000
    assert run["notes"] == (
        "guidellm v0.3: the interval is its duration, from the first request it counted to the last, incomplete and "
        "errored ones included (their tokens are not in E). guidellm's own output tokens/s 198.133 leaves out the last "
        "token event, so it is a note, not a reported figure. 1 incomplete and 0 errored requests are not in the counts."
    )


# ------------------------------------------------------------------------------- SGLang bench


def test_sglang_december_2024_without_accept_length_is_sglang_and_keeps_e2e_latency(sdeval):
    runs = imported(sdeval, "sglang-bench", "sglang-bench/datacrunch-llama33-70b-online-2024-12.jsonl")
    # (request rate, completed, E, duration, SGLang's output throughput, input mean) per line
    assert [
        (
            r["load"],
            r["workload"]["num_requests"],
            r["counts"]["emitted_tokens"],
            r["interval"]["duration_s"],
            r["reported"]["output_tokens_per_s"],
            r["workload"]["input_tokens_mean"],
        )
        for r in runs
    ] == [
        ({"request_rate": 1.0, "loop": "open"}, 300, 160347, 298.3675805060193, 537.4142851849319, 152612 / 300),
        ({"request_rate": 2.0, "loop": "open"}, 600, 308712, 312.6791094408836, 987.3125216200807, 308748 / 600),
        ({"request_rate": 4.0, "loop": "open"}, 1200, 607936, 296.8566754250787, 2047.9108281108272, 615860 / 1200),
        ({"request_rate": 8.0, "loop": "open"}, 2400, 1218922, 346.7753648299258, 3515.0190112201713, 1222995 / 2400),
        ({"request_rate": 16.0, "loop": "open"}, 3200, 1642637, 383.073250005953, 4288.049348197696, 1629242 / 3200),
        ({"request_rate": 4.0, "loop": "open"}, 1200, 226901, 304.126221193932, 746.0750970739618, 269081 / 1200),
        ({"request_rate": 8.0, "loop": "open"}, 2400, 461874, 313.96794493007474, 1471.0864833760852, 540779 / 2400),
    ]
    assert runs[0]["latency"] == {
        "ttft_ms": {"p50": 85.74514742940664},
        "itl_ms": {"p50": 13.638956006616354},
        "e2e_ms": {"mean": 7840.616212638561, "p50": 7819.046192569658},
    }
    assert runs[0]["workload"]["dataset"] == "random (random_input_len 1024, random_output_len 1024, random_range_ratio 0.0)"
    assert runs[5]["workload"]["dataset"] == "sharegpt"
    assert [r["source"]["entry"] for r in runs] == [f"line {n}" for n in range(1, 8)]
    assert all(r["source"]["format"] == "sglang-bench" and "tool_version" not in r["source"] and "notes" not in r for r in runs)


def test_sglang_infinite_rate_without_a_cap_is_a_burst_of_every_request(sdeval):
    [run] = imported(sdeval, "sglang-bench", "sglang-bench/datacrunch-deepseek-dp-mla-2024-12.jsonl")
    assert run["load"] == {"concurrency": 10000, "loop": "open"}  # a burst, never a closed loop at 10,000
    assert run["counts"] == {"emitted_tokens": 5120000, "population": "benchmark-requests"}
    assert run["interval"] == {**CLIENT_WALL_CLOCK, "duration_s": 412.49091206211597}
    assert run["reported"] == {"output_tokens_per_s": 12412.394674113431}
    assert run["workload"] == {
        "dataset": "random (random_input_len 1, random_output_len 512, random_range_ratio 1.0)",
        "num_requests": 10000,
        "input_tokens_mean": 1.0,
        "output_tokens_mean": 512.0,
    }
    assert run["latency"] == {
        "ttft_ms": {"p50": 10014.104524045251},
        "itl_ms": {"p50": 371.844899491407},
        "e2e_ms": {"mean": 381236.82297268615, "p50": 374559.5875820145},
    }
    assert run["notes"] == (
        "request_rate is infinite and max_concurrency unset: all 10000 requests (the completed ones; the file "
        "does not record failures) were sent at once (a burst: at most 10000 in flight, fewer as they finished; "
        "not a closed loop at concurrency 10000)."
    )


def test_sglang_2025_keeps_input_mean_and_server_version(sdeval):
    [run] = imported(sdeval, "sglang-bench", "sglang-bench/tonyli-agg-n100-in128-out128-c32.jsonl")
    assert run["source"]["tool_version"] == "0.5.5.post3"
    assert run["workload"] == {
        "dataset": "random (random_input_len 128, random_output_len 128, random_range_ratio 0.0)",
        "num_requests": 100,
        "input_tokens_mean": 61.45,
        "output_tokens_mean": 61.8,
    }
    assert run["load"] == {"concurrency": 32, "loop": "closed"}
    assert run["counts"] == {"emitted_tokens": 6180, "population": "benchmark-requests"}
    assert run["interval"] == {**CLIENT_WALL_CLOCK, "duration_s": 1.9367358824238181}
    assert run["reported"] == {"output_tokens_per_s": 3190.9358710624765}
    assert run["latency"] == {
        "ttft_ms": {"mean": 38.27534042298794, "p50": 38.43817999586463, "p99": 53.34490298293531},
        "tpot_ms": {"mean": 8.41969063911331, "p50": 8.886604705670226, "p99": 10.989678746410014},
        "itl_ms": {"mean": 8.425042581572933, "p50": 3.917053807526827, "p95": 23.269593063741922, "p99": 41.31700308993459},
        "e2e_ms": {"mean": 550.5209389515221, "p50": 519.3799776025116, "p99": 1166.187234586105},
    }
    assert run["notes"] == "Average achieved concurrency (sum of request latencies / duration): 28.4252."


def test_sglang_behind_a_pd_router_names_each_servers_version(sdeval):
    [run] = imported(sdeval, "sglang-bench", "sglang-bench/tonyli-pd-1p1d-in2048-out512-c128.jsonl")
    assert "tool_version" not in run["source"]  # prefill and decode ran different versions
    assert run["notes"] == (
        "SGLang server versions behind the router: prefill 0.5.5.post3; decode 0.5.6. "
        "Average achieved concurrency (sum of request latencies / duration): 94.3637."
    )
    assert run["counts"] == {"emitted_tokens": 25883, "population": "benchmark-requests"}
    assert run["interval"]["duration_s"] == 39.108014930039644
    assert run["load"] == {"concurrency": 128, "loop": "closed"}
    assert run["workload"]["input_tokens_mean"] == 1089.29
    assert run["latency"]["e2e_ms"] == {"mean": 36903.764044260606, "p50": 37239.36075111851, "p99": 39036.99618103914}


@pytest.mark.parametrize(
    "name, key",
    [
        ("sglang-bench/datacrunch-llama33-70b-online-2024-12.jsonl", "total_output_tokens_retokenized"),
        ("sglang-bench/datacrunch-deepseek-dp-mla-2024-12.jsonl", "total_output_tokens_retokenized"),
        ("sglang-bench/tonyli-agg-n100-in128-out128-c32.jsonl", "accept_length"),
    ],
)
def test_vllm_bench_refuses_sglang_output_of_every_version(sdeval, name, key):
    result = sdeval("import", "vllm-bench", REAL / name)
    assert result.exit_code == 2
    assert result.stderr == (
        f"sdeval: {REAL / name}: line 1: has {key}, which only SGLang's bench_serving writes, so it is not vllm-bench output; "
        f"it looks like sglang-bench output (try `sdeval import sglang-bench {Path(name).name}`)\n"
    )


# ------------------------------------------------------------------------------- vllm bench


def test_vllm_bench_sweep_summary_is_one_run_per_element(sdeval):
    runs = imported(sdeval, "vllm-bench", "vllm-bench/er0080-vllm-bench-sweep-v0.25.1-summary.json")
    assert [r["source"]["entry"] for r in runs] == ["[0]", "[1]"]
    assert [(r["interval"]["duration_s"], r["counts"]["emitted_tokens"], r["reported"]["output_tokens_per_s"]) for r in runs] == [
        (1.3653671270003542, 128, 93.74767963046673),
        (0.6420253609976498, 128, 199.36907134182283),
    ]
    assert [r["load"] for r in runs] == [
        {"concurrency": 2, "loop": "closed", "measured_peak_concurrency": 6},
        {"concurrency": 2, "loop": "closed", "measured_peak_concurrency": 8},
    ]
    assert [r["notes"] for r in runs] == ["From a vllm bench sweep summary: run_number 0.", "From a vllm bench sweep summary: run_number 1."]
    assert runs[1]["latency"]["e2e_ms"] == {"mean": 159.49398987686436, "p50": 157.98742300103186, "p99": 169.63662419613684}
    assert runs[0]["workload"] == {"num_requests": 8, "requests_sent": 8, "requests_failed": 0, "input_tokens_mean": 32.0, "output_tokens_mean": 16.0}


def test_vllm_bench_multi_turn_states_its_load(sdeval):
    [run] = imported(sdeval, "vllm-bench", "vllm-bench/bigyellowduck-multiturn-spec-decode-c1.json", arrangement="speculative")
    assert run["load"] == {"concurrency": 1, "loop": "closed"}
    assert run["counts"] == {
        "verification_steps": 747,
        "proposed_drafts": 5229,
        "accepted_drafts": 3357,
        "emitted_tokens": 4096,
        # spec_decode_per_position_acceptance_rates x 747 drafts
        "accepted_per_position": [645, 559, 500, 462, 429, 395, 367],
        "population": "mixed",
    }
    assert sum([645, 559, 500, 462, 429, 395, 367]) == 3357
    assert run["interval"] == {**CLIENT_WALL_CLOCK, "duration_s": 56.276253075}
    assert run["reported"] == {
        "acceptance_rate": 0.6419965576592082,
        "mean_acceptance_length": 5.493975903614458,
        "output_tokens_per_s": 72.78380802185274,
    }
    assert run["workload"] == {
        "num_requests": 8,
        "requests_sent": 8,
        "requests_failed": 0,
        "input_tokens_mean": 19149 / 8,
        "output_tokens_mean": 512.0,
    }
    assert run["latency"]["e2e_ms"] == {"mean": 7034.3788485, "p50": 6441.078977, "p90": 9932.3095211, "p95": 10066.27395205, "p99": 10173.44549681}
    assert run["notes"].startswith("vllm bench serve multi-turn mode: 1 conversation(s) in flight; 1 conversation(s), 8 requests (turns).")


def test_vllm_bench_v0251_speculative_and_target_only(sdeval):
    [spec] = imported(sdeval, "vllm-bench", "vllm-bench/er0080-bench-serve-speculative-v0.25.1.json", arrangement="speculative")
    assert spec["counts"] == {
        "verification_steps": 1260,
        "proposed_drafts": 3780,
        "accepted_drafts": 2723,
        "emitted_tokens": 3983,
        "accepted_per_position": [1071, 903, 749],  # 0.85, 0.7167, 0.5944 of 1260 drafts
        "population": "mixed",
    }
    assert spec["reported"] == {
        "acceptance_rate": 0.7203703703703704,
        "mean_acceptance_length": 3.161111111111111,
        "output_tokens_per_s": 122.27228948568478,
    }
    assert spec["load"] == {"concurrency": 2, "loop": "closed", "measured_peak_concurrency": 4}
    assert spec["interval"]["duration_s"] == 32.5748378210119
    assert spec["latency"] == {
        "ttft_ms": {"mean": 620.0381202470453, "p50": 425.2609429968288, "p99": 1469.555396421929},
        "tpot_ms": {"mean": 14.466563369200312, "p50": 14.416801156354207, "p99": 16.367859358147722},
        "itl_ms": {"mean": 45.7047650738137, "p50": 44.10335549619049, "p99": 50.72569683106849},
    }
    [plain] = imported(sdeval, "vllm-bench", "vllm-bench/er0080-bench-serve-v0.25.1.json")
    assert plain["counts"] == {"emitted_tokens": 128, "population": "benchmark-requests"}
    assert plain["interval"]["duration_s"] == 1.5441598830002476
    assert plain["load"] == {"concurrency": 2, "loop": "closed", "measured_peak_concurrency": 6}
    assert plain["reported"] == {"output_tokens_per_s": 82.89297074037474}
    assert plain["workload"] == {"num_requests": 8, "requests_sent": 8, "requests_failed": 0, "input_tokens_mean": 32.0, "output_tokens_mean": 16.0}


def test_vllm_bench_inferencex_forks(sdeval):
    [atom] = imported(sdeval, "vllm-bench", "vllm-bench/inferencex-atom-mtp-qwen3.5-conc64.json")
    assert atom["counts"] == {"emitted_tokens": 588102, "population": "benchmark-requests"}
    assert atom["interval"]["duration_s"] == 315.2482071389677
    assert atom["load"] == {"concurrency": 64, "loop": "closed"}
    assert atom["reported"] == {"output_tokens_per_s": 1865.520522185723}
    assert atom["workload"] == {
        "num_requests": 640,
        "requests_sent": 640,
        "requests_failed": 0,
        "input_tokens_mean": 4729077 / 640,
        "output_tokens_mean": 588102 / 640,
    }
    assert atom["latency"]["e2e_ms"] == {"mean": 30556.423812185494, "p50": 30514.44219693076, "p90": 35588.647377025336, "p99": 42845.612753537716}
    [oss] = imported(sdeval, "vllm-bench", "vllm-bench/inferencex-multinode-gpt-oss-120b-conc4.json")
    assert oss["counts"] == {"emitted_tokens": 40960, "population": "benchmark-requests"}
    assert oss["interval"]["duration_s"] == 89.19548447802663
    assert oss["load"] == {"concurrency": 4, "loop": "closed"}
    assert oss["reported"] == {"output_tokens_per_s": 459.21607175182197}
    assert oss["latency"]["ttft_ms"] == {"mean": 330.7963805680629, "p50": 124.30587713606656, "p90": 797.8223511483521, "p99": 987.5254542799665}


# ------------------------------------------------------------------- trtllm-bench, vllm-metrics


def test_trtllm_bench_latency_report(sdeval):
    [run] = imported(sdeval, "trtllm-bench", "trtllm-bench/kubota-latency-trt1.2.0-in1024-out40-bs1.json")
    assert "counts" not in run  # averages only
    assert run["interval"]["duration_s"] == 7.925785918
    assert run["reported"] == {"output_tokens_per_s": 504.68181217407437}
    assert run["workload"]["num_requests"] == 100 and run["workload"]["max_output_tokens"] == 40
    assert run["latency"]["e2e_ms"] == {"mean": 79.23694468000001, "p50": 77.922748, "p90": 87.479731, "p95": 88.880752, "p99": 92.980611}
    assert run["source"]["tool_version"] == "1.2.0"


def test_vllm_metrics_scrapes_of_vllm_0251(sdeval):
    [run] = imported(sdeval, "vllm-metrics", "vllm-metrics/er0080-vllm0.25.1-idle.prom", "vllm-metrics/er0080-vllm0.25.1-loaded.prom")
    assert run["counts"] == {"emitted_tokens": 165293, "population": "server-wide"}


@pytest.mark.parametrize("fmt", ["vllm-bench", "aiperf", "guidellm", "trtllm-bench", "sglang-bench"])
def test_a_real_scrape_given_to_a_json_importer_is_named_a_scrape(sdeval, fmt):
    path = REAL / "vllm-metrics/er0080-vllm0.25.1-loaded.prom"
    result = sdeval("import", fmt, path)
    assert result.exit_code == 2
    assert result.stderr == (
        f"sdeval: {path}: is neither JSON nor YAML, so it is not {fmt} output; it looks like a vllm-metrics scrape "
        "(try `sdeval import vllm-metrics BEFORE AFTER` with the scrapes taken before and after the run)\n"
    )


# ------------------------------------------------------------------------------------- LLMPerf


def test_llmperf_inter_token_latency_is_latency_over_tokens_not_itl(sdeval):
    """LLMPerf's inter_token_latency_s sums each chunk's wait from the request's start, TTFT included,
    over the output tokens (issue 37.4). Before, it was kept as ITL, the gaps between chunks."""
    (run,) = imported(sdeval, "llmperf", "llmperf/ray-leaderboard-anyscale-70b-summary.json")
    assert "itl_ms" not in run["latency"] and "tpot_ms" not in run["latency"]
    assert run["latency"]["tpot_with_first_ms"]["p50"] == 0.014559224685430442 * 1000


def test_llmperf_summary_takes_its_interval_from_the_completion_rate_and_says_so(sdeval):
    (run,) = imported(sdeval, "llmperf", "llmperf/ray-leaderboard-anyscale-70b-summary.json")
    assert run["workload"] == {
        "num_requests": 150,
        "requests_sent": 150,
        "requests_failed": 0,
        "input_tokens_mean": 550.0,
        "output_tokens_mean": 146.94666666666666,
    }
    assert run["load"] == {"concurrency": 5, "loop": "closed"}
    # 150 completed at 84.73327721639254 a minute: 106.2156... s; 146.9466... tokens x 150 = 22,042.
    assert run["interval"] == {**CLIENT_WALL_CLOCK, "duration_s": 150 * 60 / 84.73327721639254}
    assert run["counts"] == {"emitted_tokens": 22042, "population": "benchmark-requests"}
    assert abs(22042 / run["interval"]["duration_s"] - 207.52121071152493) < 1e-9  # the file's own throughput
    assert run["latency"]["ttft_ms"] == {
        "mean": 248.90269464666667,
        "p50": 212.82956000001718,
        "p90": 321.2247440000169,
        "p95": 362.0083771999928,
        "p99": 474.5305190600024,
    }
    assert run["latency"]["e2e_ms"]["p99"] == 3705.7007264000186
    assert run["source"]["tool_version"] == "2023-08-31"
    assert "the interval is results_num_completed_requests x 60 / results_num_completed_requests_per_min" in run["notes"]
    assert "re-tokenising" in run["notes"]


def test_llmperf_summary_with_rate_limited_requests_counts_only_the_completed(sdeval):
    (run,) = imported(sdeval, "llmperf", "llmperf/ray-leaderboard-lepton-13b-summary.json")
    assert run["workload"]["num_requests"] == 20
    assert (run["workload"]["requests_sent"], run["workload"]["requests_failed"]) == (150, 130)
    assert run["counts"]["emitted_tokens"] == 3020
    assert run["interval"]["duration_s"] == 20 * 60 / 23.560301595745855
    assert "130 of 150 requests started failed (error codes {429.0: 130}) and are not in the counts or latencies." in run["notes"]


def test_llmperf_summary_of_fewer_requests_than_asked(sdeval):
    (run,) = imported(sdeval, "llmperf", "llmperf/ray-leaderboard-replicate-70b-summary.json")
    assert run["workload"]["num_requests"] == 145
    assert run["counts"]["emitted_tokens"] == 17755  # 122.44827586206897 x 145
    assert run["latency"]["ttft_ms"]["p50"] == 1187.9947680000669


def test_llmperf_per_request_list_agrees_with_its_summary(sdeval):
    (listed,) = imported(sdeval, "llmperf", "llmperf/ray-leaderboard-lepton-13b-individual-responses.json")
    (summary,) = imported(sdeval, "llmperf", "llmperf/ray-leaderboard-lepton-13b-summary.json")
    assert listed["workload"] == summary["workload"]
    assert listed["counts"] == summary["counts"]
    for metric in ("ttft_ms", "tpot_with_first_ms", "e2e_ms"):
        for stat, value in summary["latency"][metric].items():
            assert abs(listed["latency"][metric][stat] - value) < 1e-6, (metric, stat)
    assert "interval" not in listed and "load" not in listed
    assert "130 of 150 requests failed (130 with 429)" in listed["notes"]


def test_llmperf_per_request_list_leaves_out_requests_with_an_error_code(sdeval):
    (run,) = imported(sdeval, "llmperf", "llmperf/ray-leaderboard-bedrock-13b-individual-responses.json")
    assert run["workload"]["num_requests"] == 53
    assert run["counts"]["emitted_tokens"] == 7833
    assert "97 of 150 requests failed (97 with -100)" in run["notes"]
