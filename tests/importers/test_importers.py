"""`sdeval import`: each format to its exact counts, faithful coverage, clear refusals, safe merging."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from conftest import example
from support.tool_outputs import runs_of

DATA = Path(__file__).resolve().parents[1] / "data" / "importers"


def test_vllm_docs_example_imports_to_exactly_its_counts(sdeval):
    [run] = runs_of(sdeval("import", "vllm-responses", DATA / "vllm-docs-example.jsonl"))
    assert run["id"] == "vllm-docs-example"
    assert run["arrangement"] == "speculative"
    assert run["counts"] == {
        "verification_steps": 43,
        "proposed_drafts": 129,
        "accepted_drafts": 10,
        "accepted_length_histogram": [39, 1, 0, 3],
        "population": "benchmark-requests",
        "requests_with_metrics": 1,
        "requests_without_metrics": 0,
        "missing_metrics_as": "excluded",
    }
    # The page elides usage, so emitted tokens stay missing rather than zero.
    assert "emitted_tokens" not in run["counts"]
    assert run["reported"] == {"acceptance_rate": 0.07751937984496124, "mean_acceptance_length": 1.2325581395348837}
    assert run["source"]["format"] == "vllm-responses"
    assert run["source"]["file"] == "vllm-docs-example.jsonl"
    assert len(run["source"]["sha256"]) == 64


def test_responses_sum_covered_requests_and_count_null_metrics_as_not_covered(sdeval):
    [run] = runs_of(sdeval("import", "vllm-responses", DATA / "vllm-responses-mixed.jsonl", "--run-id", "mixed"))
    c = run["counts"]
    # Histograms [5,2,1,4] + [2,0,3,2] + [3,1,0,1], K = 3; the n = 2 request adds nothing.
    assert (c["verification_steps"], c["proposed_drafts"], c["accepted_drafts"]) == (24, 72, 32)
    assert c["accepted_length_histogram"] == [10, 3, 4, 7]
    assert (c["requests_with_metrics"], c["requests_without_metrics"], c["missing_metrics_as"]) == (3, 1, "excluded")
    assert c["emitted_tokens"] == 30 + 20 + 10  # the n = 2 request's 40 tokens are not in this population
    assert run["workload"] == {"num_requests": 4}  # the two streamed content chunks are not requests
    assert "reported" not in run  # per-request figures are not a run's figure


def test_malformed_line_is_named_and_skipping_is_reported(sdeval):
    path = DATA / "vllm-responses-bad-line.jsonl"
    result = sdeval("import", "vllm-responses", path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"sdeval: {path}: line 3: not a valid response")
    assert "--skip-bad-lines" in result.stderr
    skipped = sdeval("import", "vllm-responses", path, "--skip-bad-lines")
    [run] = runs_of(skipped)
    assert f"sdeval: {path}: skipped 1 malformed line (first at line 3)" in skipped.stderr
    assert run["counts"]["requests_with_metrics"] == 3
    assert run["notes"].startswith("1 malformed line skipped (first at line 3).")


def test_vllm_metrics_counter_deltas_summed_over_engines(sdeval):
    before, after = DATA / "vllm-metrics-before.prom", DATA / "vllm-metrics-after.prom"
    [run] = runs_of(sdeval("import", "vllm-metrics", before, after))
    assert run["counts"] == {
        "verification_steps": (43 - 3) + 7,
        "proposed_drafts": (129 - 9) + 21,
        "accepted_drafts": (10 - 3) + 5,
        "emitted_tokens": (150 - 50) + 40,
        "accepted_per_position": [(4 - 1) + 3, (3 - 1) + 1, (3 - 1) + 1],
        "population": "server-wide",
    }
    assert run["source"]["file"] == "vllm-metrics-after.prom"
    assert run["source"]["earlier_scrape"]["file"] == "vllm-metrics-before.prom"


def test_vllm_metrics_refuses_scrapes_in_the_wrong_order(sdeval):
    result = sdeval("import", "vllm-metrics", DATA / "vllm-metrics-after.prom", DATA / "vllm-metrics-before.prom")
    assert result.exit_code == 2
    # Per series, steps first: engine 0's counter fell from 43 to 3 (the sums, 50 -> 3, hide which).
    assert result.stderr == (
        f"sdeval: {DATA / 'vllm-metrics-before.prom'}: the counter "
        'vllm:spec_decode_num_drafts_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} went down from 43 '
        f"(in {DATA / 'vllm-metrics-after.prom'}) to 3; an engine restarted between the scrapes, or the files are in the wrong order (before first)\n"
    )


def test_vllm_metrics_needs_two_scrapes(sdeval):
    result = sdeval("import", "vllm-metrics", DATA / "vllm-metrics-after.prom")
    assert result.exit_code == 2
    assert "takes two scrapes" in result.stderr


def test_vllm_bench_percentage_becomes_a_fraction_and_loads_stay_apart(sdeval):
    [run] = runs_of(sdeval("import", "vllm-bench", DATA / "vllm-bench-result.json"))
    c = run["counts"]
    assert (c["verification_steps"], c["proposed_drafts"], c["accepted_drafts"], c["emitted_tokens"]) == (57600, 115200, 70500, 128000)
    assert c["accepted_per_position"] == [42900, 27600]
    # Server-counter deltas next to the benchmark's own output tokens: two populations.
    assert c["population"] == "mixed"
    assert run["reported"]["acceptance_rate"] == 70500 / 115200
    assert run["load"] == {"request_rate": 100.0, "loop": "open", "measured_peak_concurrency": 881}
    assert run["interval"]["duration_s"] == 20.3
    assert run["latency"]["ttft_ms"] == {"mean": 4099.48, "p50": 3907.57, "p99": 8800.81}


def test_an_older_benchmark_serving_result_without_failed_counts_its_lost_requests(sdeval, tmp_path):
    """Older benchmark_serving.py results have no `failed` key: 1,015 of 2,000 prompts completed and
    the import said nothing (and called the unbounded burst a closed loop at concurrency 2,000)."""
    path = tmp_path / "benchmark_serving.json"
    path.write_text(
        json.dumps(
            {
                "duration": 812.5,
                "completed": 1015,
                "num_prompts": 2000,
                "request_rate": "inf",
                "total_input_tokens": 1015 * 200,
                "total_output_tokens": 1015 * 256,
                "output_throughput": 1015 * 256 / 812.5,
                "mean_ttft_ms": 9000.0,
            }
        )
    )
    [run] = runs_of(sdeval("import", "vllm-bench", path, "--arrangement", "target-only"))
    assert run["workload"] == {
        "num_requests": 1015,
        "requests_sent": 2000,
        "requests_failed": 985,
        "input_tokens_mean": 200.0,
        "output_tokens_mean": 256.0,
    }
    assert run["load"] == {"concurrency": 2000, "loop": "open"}
    assert "985 of 2000 requests sent failed or did not complete and are not in the counts." in run["notes"]
    assert "closed loop at concurrency 2000." not in run["notes"]


def test_a_bench_result_of_another_model_is_refused_into_a_record(sdeval, tmp_path):
    """vllm bench serve names model_id and tokenizer_id; a facebook/opt-125m result imported under a
    configuration declaring Llama-3.3-70B was accepted silently."""
    record = tmp_path / "offer.yaml"
    record.write_text(example("complete-offer.yaml").read_text())
    bench = tmp_path / "bench.json"
    bench.write_text(
        json.dumps(
            {
                "duration": 10.0,
                "completed": 8,
                "num_prompts": 8,
                "failed": 0,
                "max_concurrency": 1,
                "request_rate": "inf",
                "total_input_tokens": 256,
                "total_output_tokens": 128,
                "model_id": "facebook/opt-125m",
                "tokenizer_id": "facebook/opt-125m",
            }
        )
    )
    merged = tmp_path / "merged.yaml"
    args = ("import", "vllm-bench", bench, "--into", record, "--configuration", "target-only", "--arrangement", "target-only", "-o", merged)
    refused = sdeval(*args)
    assert refused.exit_code == 2
    assert refused.stderr == (
        "sdeval: bench.json: names the model facebook/opt-125m, but configuration target-only declares the target "
        "meta-llama/Llama-3.3-70B-Instruct (give --allow-model-mismatch to import it anyway; assess then reports model-mismatch)\n"
    )
    assert not merged.exists()  # nothing written
    kept = sdeval(*args, "--allow-model-mismatch")
    assert kept.exit_code == 0, kept.stderr
    assert "imported with --allow-model-mismatch, and assess will report model-mismatch" in kept.stderr
    document = json.loads(sdeval("assess", merged, "--format", "json").stdout)
    found = [f for f in document["findings"] if f["code"] == "model-mismatch"]
    assert [(f["path"], f["severity"]) for f in found] == [("/runs/8/source/model", "error")]
    import yaml

    run = yaml.safe_load(merged.read_text())["runs"][8]
    assert (run["source"]["model"], run["source"]["tokenizer"]) == ("facebook/opt-125m", "facebook/opt-125m")


def test_vllm_bench_append_form_gives_one_run_per_line(sdeval):
    runs = runs_of(sdeval("import", "vllm-bench", DATA / "vllm-bench-append.jsonl", "--arrangement", "speculative", "--run-id", "bench"))
    assert [r["id"] for r in runs] == ["bench-1", "bench-2"]
    assert [r["source"]["entry"] for r in runs] == ["line 1", "line 2"]
    assert runs[0]["counts"] == {"emitted_tokens": 128000, "population": "benchmark-requests"}
    assert runs[1]["load"] == {"concurrency": 64, "loop": "closed", "measured_peak_concurrency": 64}


def test_guidellm_one_run_per_benchmark_and_asks_for_the_arrangement(sdeval):
    path = DATA / "guidellm-benchmarks.json"
    refused = sdeval("import", "guidellm", path)
    assert refused.exit_code == 2
    assert "pass --arrangement" in refused.stderr
    runs = runs_of(sdeval("import", "guidellm", path, "--arrangement", "target-only"))
    assert [(r["load"].get("concurrency"), r["interval"]["duration_s"], r["counts"]["emitted_tokens"]) for r in runs] == [
        (1, 250.0, 64000),
        (16, 60.0, 64000),
    ]
    assert runs[1]["source"] == {**runs[1]["source"], "tool_version": "0.7.3", "entry": "benchmarks[1]"}
    assert runs[0]["latency"]["e2e_ms"]["mean"] == 1060.0  # seconds in the file
    assert "reported" not in runs[0]  # guidellm's rate distribution is not E / T


def test_aiperf_percent_rates_and_string_keyed_histogram(sdeval):
    [run] = runs_of(sdeval("import", "aiperf", DATA / "aiperf-profile.json"))
    c = run["counts"]
    assert (c["verification_steps"], c["proposed_drafts"], c["accepted_drafts"]) == (16, 64, 36)
    assert c["accepted_length_histogram"] == [2, 2, 4, 6, 2]
    assert run["reported"] == {"acceptance_rate": 0.5625, "mean_acceptance_length": 3.25, "output_tokens_per_s": 5200 / 11.0}
    assert run["source"]["tool_version"] == "0.4.0"
    assert run["load"] == {"concurrency": 8, "loop": "closed"}


def test_vllm_pre_merge_per_choice_shape_is_refused_by_name(sdeval):
    path = DATA / "vllm-responses-pre-merge.jsonl"
    result = sdeval("import", "vllm-responses", path)
    assert result.exit_code == 2
    assert result.stderr == (
        f"sdeval: {path}: its responses carry choices[i].speculative_decoding_stats, the pre-merge shape of vLLM's per-request "
        "metrics (PR #48915 before it merged, development builds only), which sdeval does not read; vLLM's releases put "
        "them in metrics.speculative_decoding at the response root\n"
    )


def test_aiperf_records_layout_of_august_2025_in_nanoseconds(sdeval):
    """Before ai-dynamo/aiperf#203 the records held base units (ns); output tokens were benchmark_token_count."""
    [run] = runs_of(sdeval("import", "aiperf", DATA / "aiperf-records-2025-08.json", "--arrangement", "target-only"))
    assert run["counts"] == {"emitted_tokens": 800, "population": "benchmark-requests"}
    assert run["interval"]["duration_s"] == 4.0  # 4,000,000,000 ns
    assert run["latency"]["ttft_ms"] == {"mean": 52.0, "p50": 50.0, "p90": 65.0, "p95": 67.5, "p99": 69.5}
    assert run["latency"]["tpot_ms"] == {"mean": 19.2, "p50": 19.15, "p90": 19.5, "p95": 19.55, "p99": 19.59}
    assert run["latency"]["e2e_ms"] == {"mean": 1950.0, "p50": 1940.0, "p90": 2000.0, "p95": 2005.0, "p99": 2009.0}
    assert run["reported"] == {"output_tokens_per_s": 200.0}
    assert run["load"] == {"concurrency": 2, "loop": "closed"}
    assert (
        run["notes"]
        == "AIPerf export with records keyed by tag (July to October 2025). E is AIPerf's own count (benchmark_token_count), which it takes "
        "with its tokenizer from the response text unless run with --use-server-token-count; the file holds no server usage counts "
        "(total_usage_completion_tokens) to check it against. The interval is its benchmark_duration, 4 s: the one AIPerf divided its "
        "output_token_throughput by. AIPerf: model example-model."
    )


def test_aiperf_first_export_keyed_by_display_name_gives_latencies_only(sdeval):
    [run] = runs_of(sdeval("import", "aiperf", DATA / "aiperf-names-2025-06.json", "--arrangement", "target-only"))
    assert run["latency"] == {
        "ttft_ms": {"mean": 25.5, "p50": 24.0, "p90": 33.0, "p95": 36.5, "p99": 39.3},
        "tpot_ms": {"mean": 6.2, "p50": 6.2, "p90": 6.5, "p95": 6.55, "p99": 6.59},
        "e2e_ms": {"mean": 640.0, "p50": 635.0, "p90": 680.0, "p95": 690.0, "p99": 698.0},
    }
    assert run["counts"] == {"population": "benchmark-requests"}
    assert "workload" not in run and "interval" not in run  # that export had no counts at all
    assert run["notes"] == (
        "AIPerf export with records keyed by display name (June 2025 pre-release). "
        "That pre-release wrote latency distributions only: no benchmark duration, token counts or load."
    )


def test_aiperf_output_plus_reasoning_when_the_total_output_sequence_length_is_not_written(sdeval, tmp_path):
    """Between ai-dynamo/aiperf#225 and #319 the JSON had total_output_tokens and total_reasoning_tokens only."""
    path = tmp_path / "profile_export_aiperf.json"
    block = lambda avg, unit="tokens": {"tag": "x", "unit": unit, "header": "x", "avg": avg}  # noqa: E731
    path.write_text(
        json.dumps(
            {
                "records": {
                    "total_output_tokens": {**block(1832.0), "tag": "total_output_tokens"},
                    "total_reasoning_tokens": {**block(19792.0), "tag": "total_reasoning_tokens"},
                    "benchmark_duration": {**block(9.5, "sec"), "tag": "benchmark_duration"},
                }
            }
        )
    )
    [run] = runs_of(sdeval("import", "aiperf", path, "--arrangement", "target-only"))
    assert run["counts"] == {"emitted_tokens": 21624, "reasoning_tokens": 19792, "population": "benchmark-requests"}
    assert "E is AIPerf's own count (total_output_tokens + total_reasoning_tokens)" in run["notes"]


def test_aiperf_refusal_says_what_is_missing(sdeval, tmp_path):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"records": {"a": 1}, "input_config": {}}))
    result = sdeval("import", "aiperf", path)
    assert result.exit_code == 2
    assert result.stderr == (
        f'sdeval: {path}: holds no AIPerf metric blocks ({{"unit", "avg", ...}} at the top level or under records), so it is not aiperf output\n'
    )


def test_guidellm_sampled_requests_leave_a_trimmed_interval_unstated_and_unstreamed_ones_take_the_request_span(sdeval):
    runs = runs_of(sdeval("import", "guidellm", DATA / "guidellm-v0.5-sampled-and-unstreamed.json", "--arrangement", "target-only"))
    sampled, unstreamed = runs
    # 3 requests counted over a window trimmed of 2 s of warm-up, 1 kept: no interval to stand on.
    assert "interval" not in sampled and "reported" not in sampled
    assert sampled["counts"]["emitted_tokens"] == 300
    assert sampled["notes"].startswith(
        "guidellm counted the requests that overlap its 10 s measurement window (after 2 s of warm-up were trimmed), whole, "
        "and the file does not keep them all (sampled), so the interval their tokens were counted over is unknown and left unstated."
    )
    # Unstreamed: every token of a request arrives with its response; the requests' span holds them all.
    assert unstreamed["interval"] == {
        "start_event": "first request guidellm counted, sent by the client",
        "end_event": "last response of the requests guidellm counted, received by the client",
        "scope": "end-to-end",
        "measurement": "complete-interval",
        "duration_s": 6.0,
    }
    assert unstreamed["counts"]["emitted_tokens"] == 150 and "reported" not in unstreamed
    assert "guidellm's own output tokens/s 37.5 places an unstreamed request's tokens at its end" in unstreamed["notes"]


@pytest.mark.parametrize(
    "given, path, looks_like",
    [
        ("vllm-bench", "guidellm-benchmarks.json", "guidellm"),
        ("vllm-responses", "vllm-metrics-after.prom", "vllm-metrics"),
        ("vllm-responses", "aiperf-profile.json", "aiperf"),
        ("guidellm", "vllm-bench-result.json", "vllm-bench"),
        ("aiperf", "vllm-docs-example.jsonl", "vllm-responses"),
        ("vllm-bench", "vllm-responses-mixed.jsonl", "vllm-responses"),
        ("vllm-bench", "sglang-bench.jsonl", "sglang-bench"),
        ("sglang-bench", "vllm-bench-result.json", "vllm-bench"),
        ("vllm-bench", "trtllm-bench-eagle3.json", "trtllm-bench"),
        ("aiperf", "trtllm-bench-target-only.json", "trtllm-bench"),
        ("trtllm-bench", "vllm-bench-result.json", "vllm-bench"),
        ("trtllm-bench", "guidellm-benchmarks.json", "guidellm"),
        ("trtllm-bench", "vllm-responses-mixed.jsonl", "vllm-responses"),  # not one JSON document
        # A Prometheus scrape parses as neither JSON nor YAML: named, not a parser's complaint.
        ("vllm-bench", "vllm-metrics-after.prom", "vllm-metrics"),
        ("aiperf", "vllm-metrics-after.prom", "vllm-metrics"),
        ("guidellm", "vllm-metrics-after.prom", "vllm-metrics"),
        ("trtllm-bench", "vllm-metrics-after.prom", "vllm-metrics"),
        ("sglang-bench", "vllm-metrics-after.prom", "vllm-metrics"),
    ],
)
def test_wrong_format_names_the_format_it_looks_like(sdeval, given, path, looks_like):
    result = sdeval("import", given, DATA / path)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    if looks_like == "vllm-metrics":
        tail = "it looks like a vllm-metrics scrape (try `sdeval import vllm-metrics BEFORE AFTER` with the scrapes taken before and after the run)"
        assert result.stderr.endswith(tail + "\n")
        assert "could not find expected" not in result.stderr  # no YAML parser message
    else:
        assert f"it looks like {looks_like} output (try `sdeval import {looks_like} {path}`)" in result.stderr
    assert result.stderr.count("\n") == 1


def test_unknown_format_missing_file_and_bad_run_id(sdeval, tmp_path):
    bad_id = sdeval("import", "aiperf", DATA / "aiperf-profile.json", "--run-id", "my run")
    assert bad_id.exit_code == 2 and "--run-id 'my run': an id starts with" in bad_id.stderr
    assert "unknown format 'sglang'" in sdeval("import", "sglang", DATA / "aiperf-profile.json").stderr
    missing = sdeval("import", "aiperf", tmp_path / "nope.json")
    assert (missing.exit_code, missing.stderr) == (2, f"sdeval: {tmp_path / 'nope.json'}: no such file\n")


# ---------------------------------------------------------------------------------- --into


def _record(tmp_path: Path) -> Path:
    target = tmp_path / "record.json"
    shutil.copy(example("vllm-docs-ngram.json"), target)
    return target


def test_into_appends_the_run_and_changes_nothing_else(sdeval, tmp_path):
    record = _record(tmp_path)
    original_bytes = record.read_bytes()
    original = json.loads(original_bytes)
    out = tmp_path / "merged.json"
    result = sdeval("import", "vllm-responses", DATA / "vllm-docs-example.jsonl", "--into", record, "-o", out, "--run-id", "imported-docs")
    assert result.exit_code == 0, result.stderr
    assert f"added run(s) imported-docs to {out}" in result.stderr
    merged = json.loads(out.read_text())
    assert record.read_bytes() == original_bytes
    assert {k: v for k, v in merged.items() if k != "runs"} == {k: v for k, v in original.items() if k != "runs"}
    assert merged["runs"][:-1] == original["runs"]
    new = merged["runs"][-1]
    assert new["configuration"] == "ngram-k3"  # the record's only configuration
    assert new["counts"]["accepted_length_histogram"] == [39, 1, 0, 3]
    checked = sdeval("validate", "--format", "json", out)
    assert checked.exit_code == 0, checked.stdout
    assert {(f["code"], f["path"]) for f in checked.json()["findings"]} == {
        ("acceptance-bimodal", "/runs/0/counts/accepted_length_histogram"),
        ("acceptance-bimodal", "/runs/1/counts/accepted_length_histogram"),
    }


def test_a_tools_figure_that_disagrees_with_its_counts_is_counts_inconsistent(sdeval, tmp_path):
    bench = json.loads((DATA / "vllm-bench-result.json").read_text())
    bench["spec_decode_acceptance_rate"] = 70.0  # the counts give 61.2 %
    source = tmp_path / "edited.json"
    source.write_text(json.dumps(bench))
    out = tmp_path / "merged.json"
    # The file names another Llama than the record's target: kept with --allow-model-mismatch.
    assert sdeval("import", "vllm-bench", source, "--into", _record(tmp_path), "-o", out, "--allow-model-mismatch").exit_code == 0
    findings = sdeval("validate", "--format", "json", out).json()["findings"]
    assert ("counts-inconsistent", "/runs/1/reported/acceptance_rate") in {(f["code"], f["path"]) for f in findings}


def test_into_refuses_to_rewrite_the_record_without_in_place(sdeval, tmp_path):
    record = _record(tmp_path)
    before = record.read_bytes()
    docs = DATA / "vllm-docs-example.jsonl"
    no_output = sdeval("import", "vllm-responses", docs, "--into", record)
    assert no_output.exit_code == 2 and "needs -o OUT" in no_output.stderr
    same = sdeval("import", "vllm-responses", docs, "--into", record, "-o", record, "--force")
    assert same.exit_code == 2 and "pass --in-place" in same.stderr
    assert record.read_bytes() == before
    in_place = sdeval("import", "vllm-responses", docs, "--into", record, "--in-place", "--run-id", "new")
    assert in_place.exit_code == 0, in_place.stderr
    assert [r["id"] for r in json.loads(record.read_text())["runs"]] == ["docs-example", "new"]
    assert list(tmp_path.iterdir()) == [record]  # no temporary file left behind


def test_into_refuses_a_run_id_or_configuration_the_record_cannot_take(sdeval, tmp_path):
    record = _record(tmp_path)
    docs = DATA / "vllm-docs-example.jsonl"
    clash = sdeval("import", "vllm-responses", docs, "--into", record, "-o", tmp_path / "o.json", "--run-id", "docs-example")
    assert clash.exit_code == 2 and "already has a run 'docs-example'" in clash.stderr
    unknown = sdeval("import", "vllm-responses", docs, "--into", record, "-o", tmp_path / "o.json", "--configuration", "eagle")
    assert unknown.exit_code == 2 and "has no configuration 'eagle' (it has: ngram-k3)" in unknown.stderr
    assert not (tmp_path / "o.json").exists()


def test_output_file_is_never_overwritten_without_force(sdeval, tmp_path):
    out = tmp_path / "runs.json"
    out.write_text("mine")
    refused = sdeval("import", "aiperf", DATA / "aiperf-profile.json", "-o", out)
    assert refused.exit_code == 2 and "already exists; pass --force" in refused.stderr
    assert out.read_text() == "mine"
    assert sdeval("import", "aiperf", DATA / "aiperf-profile.json", "-o", out, "--force").exit_code == 0
    assert json.loads(out.read_text())["runs"][0]["id"] == "aiperf-profile"


# ------------------------------------------------------------------------------ large input


def _write_responses(path: Path, lines: int) -> None:
    line = (DATA / "vllm-responses-mixed.jsonl").read_bytes().splitlines()[0] + b"\n"
    with open(path, "wb") as fh:
        for _ in range(lines // 1000):
            fh.write(line * 1000)


def test_streaming_memory_does_not_grow_with_the_file(tmp_path):
    import tracemalloc

    from evaluator.importers import vllm_responses

    peaks = []
    for lines in (5_000, 50_000):
        path = tmp_path / f"{lines}.jsonl"
        _write_responses(path, lines)
        tracemalloc.start()
        totals = vllm_responses.read(path)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert totals.requests_with == lines and totals.steps == 12 * lines
    # Ten times the lines, the same working memory (a line buffer and a few objects).
    assert peaks[1] < peaks[0] * 1.2, peaks


def test_no_progress_bar_when_output_is_piped(sdeval, tmp_path):
    path = tmp_path / "r.jsonl"
    _write_responses(path, 70_000)  # past the first progress update
    result = sdeval("import", "vllm-responses", path)
    assert result.exit_code == 0
    assert result.stderr == ""


def test_a_malformed_first_line_is_a_bad_line_not_another_format(sdeval, tmp_path):
    good = (DATA / "vllm-responses-mixed.jsonl").read_bytes()
    path = tmp_path / "cut.jsonl"
    path.write_bytes(b'{"object": "chat.comp\n' + good)
    assert "line 1: not a valid response" in sdeval("import", "vllm-responses", path).stderr
    [run] = runs_of(sdeval("import", "vllm-responses", path, "--skip-bad-lines"))
    assert run["counts"]["requests_with_metrics"] == 3


def test_responses_source_hash_is_the_files_sha256(sdeval):
    import hashlib

    path = DATA / "vllm-responses-mixed.jsonl"
    [run] = runs_of(sdeval("import", "vllm-responses", path))
    assert run["source"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_bad_line_deep_in_a_large_file_is_numbered_from_the_top(tmp_path):
    from evaluator.importers import ImportProblem, vllm_responses

    path = tmp_path / "big.jsonl"
    _write_responses(path, 6_000)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[4_999] = b'{"object": "chat.completion", "metrics": {"speculative_decoding": {"num_spec_steps": -1}}}\n'
    path.write_bytes(b"".join(lines))
    with pytest.raises(ImportProblem, match=r": line 5000: not a valid response \(Expected `int` >= 0"):
        vllm_responses.read(path)
    skipped = vllm_responses.read(path, skip_bad_lines=True)
    assert (skipped.skipped, skipped.first_skipped, skipped.requests_with) == (1, 5000, 5_999)


# A file summed in several forked processes must come out exactly as when read in one: the same
# sums, the same skipped lines, and every line numbered from the top of the file. Run in a fresh
# interpreter: forking is only done (and only safe) when no other thread is running, which the
# test session cannot promise.
_COMPARE_READERS = """
import dataclasses, json, sys
from pathlib import Path
from evaluator.importers import ImportProblem, vllm_responses

def outcome(processes, skip):
    try:
        t = vllm_responses.read(Path(sys.argv[1]), skip_bad_lines=skip, processes=processes)
    except ImportProblem as exc:
        return {"error": str(exc)}
    fields = dataclasses.asdict(t)
    fields["k_values"] = sorted(fields["k_values"])
    fields["draft_lengths"] = sorted(fields["draft_lengths"])
    fields["last"] = None if t.last is None else t.last.num_spec_steps
    fields["per_request"] = sorted(f"{k}: {n}" for k, n in t.per_request.items() if n)
    return fields

print(json.dumps({f"{p}-{skip}": outcome(p, skip) for p in (1, 3) for skip in (False, True)}))
"""


def _mixed_file(path: Path, bad_at: set[int]) -> int:
    """Lines of every kind (requests with and without metrics, streamed chunks, a string-keyed
    histogram, a blank line), some replaced by malformed ones; returns the number of lines."""
    kinds = (DATA / "vllm-responses-mixed.jsonl").read_bytes().splitlines()
    dict_histogram = kinds[1].replace(b'"acceptance_histogram": [2, 0, 3, 2]', b'"acceptance_histogram": {"0": 2, "2": 3, "3": 2}')
    assert dict_histogram != kinds[1]
    kinds += [dict_histogram, b""]
    lines = [b'{"object": "chat.comp' if n in bad_at else kinds[n % len(kinds)] for n in range(1, 3001)]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return len(lines)


def test_a_file_read_in_several_processes_sums_and_numbers_lines_as_one_does(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "mixed.jsonl"
    _mixed_file(path, bad_at={2_500, 2_900})  # both in the last of three ranges
    out = subprocess.run([sys.executable, "-c", _COMPARE_READERS, str(path)], capture_output=True, text=True, check=True)
    results = json.loads(out.stdout)
    assert (
        results["3-False"]
        == results["1-False"]
        == {"error": f"{path}: line 2500: not a valid response (Input data was truncated); pass --skip-bad-lines to import the other lines"}
    )
    one, three = results["1-True"], results["3-True"]
    assert three.pop("processes") == 3 and one.pop("processes") == 1
    assert three == one
    assert (one["skipped"], one["first_skipped"], one["lines"]) == (2, 2_500, 3_000)
    # 3000 lines cycle through 8 kinds: 4 with metrics (one string-keyed; the two bad lines replace two of
    # these), a request without, 2 content chunks, a blank line
    assert (one["requests_with"], one["requests_without"], one["content_chunks"]) == (1_498, 375, 750)
    # per cycle [5,2,1,4] + [2,0,3,2] + [3,1,0,1] + {"0": 2, "2": 3, "3": 2}, 375 cycles, less two [3,1,0,1]
    assert (one["hist"], one["steps"]) == ([4_494, 1_123, 2_625, 3_373], 375 * 31 - 2 * 5)


def test_ranges_cover_the_file_and_cut_only_after_a_newline(tmp_path):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from evaluator.importers.responses_reader import _ranges

    path = tmp_path / "lines.jsonl"

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=30), st.booleans(), st.integers(1, 6))
    def check(lines, final_newline, parts):
        data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
        path.write_bytes(data)
        ranges = _ranges(path, len(data), parts)
        assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
        assert all(a[1] == b[0] and a[0] < a[1] for a, b in zip(ranges, ranges[1:]))
        assert all(data[end - 1 : end] == b"\n" for _, end in ranges[:-1])
        assert len(ranges) <= parts

    check()


def test_only_a_large_file_read_by_a_single_thread_is_split_across_cores():
    import subprocess
    import sys

    code = (
        "import os, threading; from evaluator.importers.responses_reader import _processes_for, PARALLEL_MIN_BYTES as big;"
        "cores = min(len(os.sched_getaffinity(0)), 8);"
        "alone = (_processes_for(big - 1), _processes_for(big));"
        "threading.Thread(target=threading.Event().wait, args=(5,), daemon=True).start();"
        "print(alone == (1, cores), _processes_for(big))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "1"]


def test_in_place_never_drops_a_yaml_records_comments(sdeval, tmp_path):
    record = tmp_path / "offer.yaml"
    shutil.copy(example("complete-offer.yaml"), record)
    before = record.read_bytes()
    aiperf = DATA / "aiperf-profile.json"
    refused = sdeval("import", "aiperf", aiperf, "--into", record, "--in-place", "--configuration", "eagle3-dynamic-k")
    assert refused.exit_code == 2 and "would drop its YAML comments" in refused.stderr
    assert record.read_bytes() == before
    out = tmp_path / "merged.yaml"
    merged = sdeval("import", "aiperf", aiperf, "--into", record, "-o", out, "--configuration", "eagle3-dynamic-k")
    assert merged.exit_code == 0, merged.stderr
    assert f"{record}: its YAML comments are not carried into {out}" in merged.stderr
    import yaml

    original, result = yaml.safe_load(before), yaml.safe_load(out.read_text())
    assert result["runs"][:-1] == original["runs"] and result["runs"][-1]["id"] == "aiperf-profile"
    assert {k: v for k, v in result.items() if k != "runs"} == {k: v for k, v in original.items() if k != "runs"}


# ------------------------------------------------------------------------------ trtllm-bench


def test_trtllm_bench_report_imports_measured_figures_and_no_counts(sdeval):
    [run] = runs_of(sdeval("import", "trtllm-bench", DATA / "trtllm-bench-eagle3.json", "--run-id", "trt-eagle3"))
    assert run["arrangement"] == "speculative"  # decoding_stats is written only when speculation is configured
    assert run["workload"] == {
        "dataset": "/data/synthetic_1024_256.jsonl",
        "num_requests": 64,
        "input_tokens_mean": 1024.0,
        "output_tokens_mean": 256.0,
        "max_output_tokens": 256,  # every request capped at 256 (osl_stats minimum == maximum)
    }
    assert run["interval"] == {
        "start_event": "first benchmark request submitted to the TensorRT-LLM LLM API",
        "end_event": "last benchmark request's final response",
        "scope": "end-to-end",
        "measurement": "complete-interval",
        "duration_s": 20.48,
    }
    assert run["latency"] == {
        "ttft_ms": {"mean": 480.5, "p50": 455.0, "p90": 790.0, "p95": 860.0, "p99": 990.0},
        "tpot_ms": {"mean": 37.3, "p50": 36.9, "p90": 44.2, "p95": 46.8, "p99": 51.0},
        "e2e_ms": {"mean": 10000.0, "p50": 9800.0, "p90": 13100.0, "p95": 14000.0, "p99": 15500.0},
    }
    # The tool's own E / T; its acceptance figures are per-request averages, not the run's A / P.
    assert run["reported"] == {"output_tokens_per_s": 800.0}
    # Percentiles of per-request figures are not counts, and the draft tokens are assumed, not measured.
    assert "counts" not in run
    # Neither the mean concurrency nor max_batch_size is the load the run was offered.
    assert "load" not in run
    assert run["source"] == {
        "format": "trtllm-bench",
        "file": "trtllm-bench-eagle3.json",
        "sha256": hashlib.sha256((DATA / "trtllm-bench-eagle3.json").read_bytes()).hexdigest(),
        "tool_version": "1.0.0",
        # Record 1.2: world_info's sizes, compared by baseline-mismatch where the configuration states none.
        "parallelism": {"tensor": 1, "pipeline": 1, "expert": 1},
    }
    assert run["notes"] == (
        "Engine as reported: TensorRT-LLM 1.0.0, Pytorch backend, model meta-llama/Llama-3.1-8B-Instruct, "
        "dtype bfloat16, TP 1 x PP 1 x EP 1. "
        "The report does not record the configured load (--concurrency); measured mean concurrency "
        "(sum of request latencies / total latency): 31.25; runtime max_batch_size 64 (a cap, not the load). "
        "trtllm-bench decoding_stats (mode Eagle3), per-request figures kept as diagnostics only: "
        "draft acceptance rate average 0.5243, p50 0.52; acceptance length (output tokens per iteration) average 2.5731, p50 2.56. "
        "Its draft-token figures assume max_draft_len drafts at every iteration (not measured), "
        "so the report gives no proposed or accepted draft counts."
    )


def test_trtllm_bench_report_without_decoding_stats_needs_the_arrangement(sdeval):
    path = DATA / "trtllm-bench-target-only.json"
    refused = sdeval("import", "trtllm-bench", path)
    assert (refused.exit_code, refused.stderr) == (
        2,
        f"sdeval: {path}: carries no speculative-decoding counts, so it does not say whether the run "
        "speculated; pass --arrangement speculative or --arrangement target-only\n",
    )
    [run] = runs_of(sdeval("import", "trtllm-bench", path, "--arrangement", "target-only"))
    assert run["arrangement"] == "target-only"
    # Request output caps from 192 to 320: no single max_output_tokens.
    assert run["workload"] == {
        "dataset": "/data/mixed_1024_192-320.jsonl",
        "num_requests": 64,
        "input_tokens_mean": 1024.0,
        "output_tokens_mean": 256.0,
    }
    assert run["interval"]["duration_s"] == 32.768
    # Not streamed: no TTFT or TPOT; percentiles without p90 stay without it.
    assert run["latency"] == {"e2e_ms": {"mean": 16000.0, "p50": 15800.0, "p95": 21000.0, "p99": 23900.0}}
    assert run["reported"] == {"output_tokens_per_s": 500.0}
    assert "decoding_stats" not in run["notes"] and "counts" not in run


def _edited_trtllm(tmp_path: Path, change) -> Path:
    report = json.loads((DATA / "trtllm-bench-eagle3.json").read_text())
    change(report)
    path = tmp_path / "edited-trtllm.json"
    path.write_text(json.dumps(report))
    return path


def test_trtllm_bench_acceptance_rate_outside_0_1_is_not_read_as_a_fraction(sdeval, tmp_path):
    # reporting.py divides accepted by drafted tokens per request: a fraction, never a percentage.
    def as_percent(report):
        report["decoding_stats"]["draft_acceptance_rate_percentiles"].update(average=52.43, p50=52.0)

    [run] = runs_of(sdeval("import", "trtllm-bench", _edited_trtllm(tmp_path, as_percent)))
    assert "draft acceptance rate average 52.43 is not the 0..1 fraction trtllm-bench writes, so it is left out" in run["notes"]
    assert "p50 52" not in run["notes"] and "0.5243" not in run["notes"]
    assert "reported" in run and "acceptance_rate" not in run["reported"]


def test_trtllm_bench_mode_alone_marks_a_speculative_run(sdeval, tmp_path):
    # A configured speculation with max_draft_len 0 writes decoding_stats with empty percentiles.
    def no_figures(report):
        report["decoding_stats"] = {
            "mode": "NGram",
            "num_draft_tokens_percentiles": None,
            "num_accepted_draft_tokens_percentiles": None,
            "draft_acceptance_rate_percentiles": None,
            "acceptance_length_percentiles": None,
        }

    [run] = runs_of(sdeval("import", "trtllm-bench", _edited_trtllm(tmp_path, no_figures)))
    assert run["arrangement"] == "speculative"
    assert "trtllm-bench decoding_stats (mode NGram). Its draft-token figures assume" in run["notes"]


def test_trtllm_bench_import_then_validate_names_what_the_report_cannot_give(sdeval, tmp_path):
    record = json.loads(example("sd201-offer-b.json").read_text())
    base_cfg = record["configurations"][0]
    record["offer"]["claim_text"] = "EAGLE-3 on TensorRT-LLM: 800 tokens/s, 1.6x faster, 52 % of drafts accepted."
    record["configurations"] = [
        {**base_cfg, "id": "trt-eagle3", "proposer": {"method": "eagle-3", "model": "illustrative/eagle3-heads", "revision": "illustrative", "k": 3}},
        {**base_cfg, "id": "trt-target", "proposer": {"method": "none"}},
    ]
    record["runs"] = []
    record["claims"] = [
        {
            "id": "tput",
            "text": "800 tokens/s",
            "kind": "output-throughput",
            "value": 800,
            "unit": "tokens/s",
            "counted": "emitted-output",
            "run": "trt-eagle3",
            "concurrency": 32,
            "scope": "end-to-end",
        },
        {
            "id": "speedup",
            "text": "1.6x faster",
            "kind": "speedup",
            "value": 1.6,
            "unit": "x",
            "counted": "emitted-output",
            "run": "trt-eagle3",
            "baseline": "trt-target",
            "concurrency": 32,
            "scope": "end-to-end",
        },
        {
            "id": "rate",
            "text": "52 % of drafts accepted",
            "kind": "acceptance-rate",
            "value": 0.52,
            "unit": "fraction",
            "counted": "acceptance-rate",
            "run": "trt-eagle3",
        },
    ]
    path = tmp_path / "offer.json"
    path.write_text(json.dumps(record))
    out = tmp_path / "out.json"
    spec = sdeval(
        "import",
        "trtllm-bench",
        DATA / "trtllm-bench-eagle3.json",
        "--into",
        path,
        "-o",
        out,
        "--run-id",
        "trt-eagle3",
        "--configuration",
        "trt-eagle3",
    )
    assert spec.exit_code == 0, spec.stderr
    base = sdeval(
        "import",
        "trtllm-bench",
        DATA / "trtllm-bench-target-only.json",
        "--into",
        out,
        "--in-place",
        "--run-id",
        "trt-target",
        "--configuration",
        "trt-target",
        "--arrangement",
        "target-only",
    )
    assert base.exit_code == 0, base.stderr
    checked = sdeval("validate", "--format", "json", out)
    assert checked.exit_code == 1
    findings = checked.json()["findings"]
    assert sorted((f["code"], f["path"]) for f in findings) == sorted(
        [
            # The runs' datasets differ, and the report says so (output caps 256 vs 192-320).
            ("baseline-mismatch", "/claims/1/baseline"),
            # No E, A or P in the report: the throughput, the speedup and the acceptance rate cannot be
            # recomputed, and the speedup's baseline lacks E too (each run's gap is named).
            ("counts-missing", "/runs/0/counts"),
            ("counts-missing", "/runs/0/counts"),
            ("counts-missing", "/runs/0/counts"),
            ("counts-missing", "/runs/1/counts"),
            # The client's wall clock is end-to-end, so every stage is inside without being listed;
            # the report does not state the configured load (two claims rest on trt-eagle3)...
            ("load-unstated", "/runs/0/load"),
            ("load-unstated", "/runs/0/load"),
            ("load-unstated", "/runs/1/load"),
            # ...nor any task-quality result.
            ("quality-missing", "/runs/0/quality"),
            ("quality-missing", "/runs/0/quality"),
        ]
    )
    missing = sorted(f["message"] for f in findings if f["code"] == "counts-missing")
    assert missing == [
        "draft acceptance rate (A / P) cannot be computed for the claimed 0.52 fraction: run trt-eagle3 lacks accepted_drafts, proposed_drafts",
        "emitted output tokens/s (E / T) cannot be computed for the claimed 800 tokens/s: run trt-eagle3 lacks emitted_tokens",
        "output-throughput speedup against the baseline cannot be computed for the claimed 1.6x: baseline trt-target lacks emitted_tokens",
        "output-throughput speedup against the baseline cannot be computed for the claimed 1.6x: run trt-eagle3 lacks emitted_tokens",
    ]
    [mismatch] = [f["message"] for f in findings if f["code"] == "baseline-mismatch"]
    assert mismatch == (
        'baseline trt-target is not measured on equal terms with run trt-eagle3: workload.dataset "/data/synthetic_1024_256.jsonl" '
        'vs "/data/mixed_1024_192-320.jsonl"; workload.max_output_tokens 256 vs not stated'
    )


def test_every_recognised_format_can_be_imported():
    # describe_guess always suggests `sdeval import FORMAT`, so a sniffed format must be importable.
    from evaluator.importers import FORMATS
    from evaluator.importers.sniff import _SIGNATURES

    assert {fmt for fmt, _ in _SIGNATURES} <= set(FORMATS)


# ------------------------------------------------------------------------------------- LLMPerf
# The shape token_benchmark_ray.py writes (ray-project/llmperf 004d3afb, metrics_summary); the real
# leaderboard files are imported in tests/importers/test_importers_real.py.


def _llmperf_summary(**changes):
    summary = {
        "version": "2023-08-31",
        "name": "m_550_150_summary",
        "model": "m",
        "mean_input_tokens": 550,
        "mean_output_tokens": 150,
        "num_concurrent_requests": 8,
        "results_ttft_s_quantiles_p50": 0.25,
        "results_ttft_s_quantiles_p90": 0.5,
        "results_ttft_s_quantiles_p95": 0.6,
        "results_ttft_s_quantiles_p99": 0.75,
        "results_ttft_s_mean": 0.3,
        "results_number_input_tokens_mean": 550.0,
        "results_number_output_tokens_mean": 150.5,
        "results_num_requests_started": 12,
        "results_error_rate": 0.1666,
        "results_number_errors": 2,
        "results_error_code_frequency": "{500.0: 2}",
        "results_mean_output_throughput_token_per_s": 50.166666666666664,
        "results_num_completed_requests": 10,
        "results_num_completed_requests_per_min": 20.0,
    }
    return {**summary, **changes}


def test_llmperf_summary_of_the_documented_shape(sdeval, tmp_path):
    path = tmp_path / "m_550_150_summary.json"
    path.write_text(json.dumps(_llmperf_summary()))
    out = sdeval("import", "llmperf", path, "--arrangement", "target-only")
    assert out.exit_code == 0, out.stderr
    run = out.json()["runs"][0]
    assert run["interval"]["duration_s"] == 30.0  # 10 completed at 20 a minute
    assert run["counts"] == {"emitted_tokens": 1505, "population": "benchmark-requests"}
    assert run["load"] == {"concurrency": 8, "loop": "closed"}
    assert run["latency"]["ttft_ms"] == {"mean": 300.0, "p50": 250.0, "p90": 500.0, "p95": 600.0, "p99": 750.0}
    assert "2 of 12 requests started failed (error codes {500.0: 2})" in run["notes"]


def test_llmperf_summary_whose_mean_gives_no_whole_token_count_leaves_e_missing(sdeval, tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(_llmperf_summary(results_number_output_tokens_mean=150.33)))
    run = sdeval("import", "llmperf", path, "--arrangement", "target-only").json()["runs"][0]
    assert "emitted_tokens" not in run["counts"]


def test_llmperf_is_sniffed_and_a_wrong_file_is_refused_in_one_line(sdeval, tmp_path):
    from evaluator.importers import sniff

    summary, listed = tmp_path / "summary.json", tmp_path / "individual.json"
    summary.write_text(json.dumps(_llmperf_summary()))
    listed.write_text(
        json.dumps(
            [
                {
                    "error_code": None,
                    "ttft_s": 0.2,
                    "end_to_end_latency_s": 1.0,
                    "inter_token_latency_s": 0.01,
                    "number_input_tokens": 10,
                    "number_output_tokens": 80,
                    "number_total_tokens": 90,
                }
            ]
        )
    )
    assert sniff(summary) == sniff(listed) == "llmperf"
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"hello": 1}))
    out = sdeval("import", "llmperf", other, "--arrangement", "target-only")
    assert out.exit_code == 2
    assert out.stderr == (
        f"sdeval: {other}: neither an LLMPerf summary (results_num_completed_requests) nor its per-request list "
        "(objects with end_to_end_latency_s), so it is not llmperf output\n"
    )
    out = sdeval("import", "vllm-bench", summary, "--arrangement", "target-only")
    assert out.exit_code == 2 and "it looks like llmperf output" in out.stderr
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"error_code": None, "end_to_end_latency_s": 1.0, "number_output_tokens": 1.5}]))
    out = sdeval("import", "llmperf", bad, "--arrangement", "target-only")
    assert (out.exit_code, out.stderr) == (2, f"sdeval: {bad}: [0].number_output_tokens: not a whole number of tokens\n")


def test_import_help_lists_every_format_with_the_versions_tested(sdeval):
    from evaluator.importers.registry import ROWS

    shown = "".join(sdeval("import", "--help").stdout.split())  # the help wraps anywhere, hyphens included
    for row in ROWS:
        listed = "".join(f"{row.name} ({'BEFORE AFTER; ' if row.scrapes else ''}{row.versions()})".split())
        assert (row.tested or row.ran) and listed in shown, row.name
    # issue 37.6: the tools run in the tests are told apart from those read only on files
    assert "aiperf(run:AIPerf0.13.0;files:AIPerfJune2025to0.11.0)" in shown
    assert "guidellm(run:guidellm0.8.1;files:guidellm0.3to0.7;0.8.1response_metrics(constructedfiles))" in shown
    # issue 40.4: the formats read only on files built to a tool's source shape say so
    assert "trtllm-responses(files:TensorRT-LLMper-choicespeculative_decoding(PR#19311shape,constructedfilesonly))" in shown
    assert "openai-responses(files:OpenAIPredictedOutputsusage(constructedfilesonly))" in shown
    assert "mlperf-endpoints(files:MLPerfEndpoints0.1.0intheMLPerfInferencev6.1results'shape(constructedfiles))" in shown
    assert "genai-perf(files:GenAI-Perf2024to0.0.16dev" in shown and "llmperf(files:LLMPerf2023-08-31" in shown


@pytest.mark.parametrize(
    "fmt,name",
    [
        ("vllm-responses", "vllm-responses-mixed.jsonl"),
        ("llamacpp-responses", "llamacpp-responses.jsonl"),
        ("sglang-responses", "sglang-responses-openai.jsonl"),
        ("vllm-bench", "vllm-bench-append.jsonl"),
        ("vllm-bench", "vllm-bench-result.json"),
    ],
)
def test_the_source_hash_is_taken_over_the_bytes_the_import_read(fmt, name, monkeypatch):
    """The SHA-256 is of the bytes imported, taken as they are read: no second reading of the file
    (importers.common.sha256_of is what reading it again would call)."""
    from evaluator.importers import common, import_runs, responses_reader

    def read_again(path):
        raise AssertionError(f"{path} read a second time for its hash")

    monkeypatch.setattr(common, "sha256_of", read_again)
    monkeypatch.setattr(responses_reader, "sha256_of", read_again)
    path = DATA / name
    result = import_runs(fmt, [str(path)], configuration="c", arrangement="speculative")
    assert {run["source"]["sha256"] for run in result.runs} == {hashlib.sha256(path.read_bytes()).hexdigest()}
