"""mlperf-endpoints: mlcommons/endpoints' result_summary.json, on the shapes its source writes.

No published result summary was found, so each file here is built as `Report.to_json` writes it
(metrics/report.py at ea332753, 2026-08-21; the April 2026 and earlier shape from c60b6545's
metrics/reporter.py). The figures are checked by hand in each test.
"""

from __future__ import annotations

import json

from support.mlperf_endpoints import endpoints_summary, import_endpoints, series


def test_endpoints_result_summary_to_the_exact_counts(sdeval, tmp_path):
    path = tmp_path / "result_summary.json"
    path.write_text(json.dumps(endpoints_summary(), indent=2))
    run = import_endpoints(sdeval, path)
    # 200 completed - 2 failed; of the 200 issued, the 2 failed are lost
    assert run["workload"] == {
        "num_requests": 198,
        "requests_sent": 200,
        "requests_failed": 2,
        "input_tokens_mean": 1024.0,
        "output_tokens_mean": 200.0,
    }
    assert run["counts"] == {"emitted_tokens": 39_600, "population": "benchmark-requests"}
    assert run["interval"]["duration_s"] == 41.25 and run["interval"]["scope"] == "end-to-end"
    assert run["load"] == {"concurrency": 8, "loop": "closed"}
    assert run["reported"] == {"output_tokens_per_s": 960.0}  # = E / T: 39,600 / 41.25
    # a complete report's percentiles are ranked sample values, the lower of two (numpy method="lower")
    assert run["latency"]["ttft_ms"] == {"mean": 85.25, "p50": 80.0, "p90": 120.5, "p95": 150.0, "p99": 210.25, "method": "lower"}
    assert run["latency"]["tpot_ms"] == {"mean": 12.3456789, "p50": 12.0, "p90": 14.5, "p95": 15.25, "p99": 18.0, "method": "lower"}
    assert run["latency"]["e2e_ms"] == {"mean": 2600.0, "p50": 2550.0, "p90": 2900.0, "p95": 3000.0, "p99": 3400.0, "method": "lower"}
    assert run["source"]["format"] == "mlperf-endpoints" and run["source"]["tool_version"] == "0.1.0 (git ea33275)"
    notes = run["notes"]
    assert "2 of 200 completed requests failed (n_samples_failed)" in notes
    assert "A warm-up of 32 requests ran before the performance phase and is not counted." in notes
    assert "Finish reasons: stop 150, length 48." in notes
    assert "re-tokenising each response" in notes and "names no model or tokenizer" in notes


def test_endpoints_poisson_on_the_legacy_loadgen_window_keeps_tps_out_of_reported(sdeval, tmp_path):
    data = endpoints_summary(
        legacy_loadgen_window_duration_ns=40_000_000_000,
        tps=990.0,
        qps=199 / 40,
        run_config={
            "load_pattern": {"type": "poisson", "target_qps": 5.0, "target_concurrency": None, "use_legacy_loadgen_qps_metrics": True},
            "warmup": {"enabled": False},
        },
    )
    path = tmp_path / "result_summary.json"
    path.write_text(json.dumps(data))
    run = import_endpoints(sdeval, path)
    assert run["load"] == {"request_rate": 5.0, "loop": "open"}
    assert run["interval"]["duration_s"] == 41.25 and run["counts"]["emitted_tokens"] == 39_600
    assert "reported" not in run
    assert "legacy MLPerf LoadGen window (40.0 s" in run["notes"] and "tps 990.0 is kept as a note only" in run["notes"]


def test_endpoints_incomplete_report_leaves_e_unstated(sdeval, tmp_path):
    path = tmp_path / "result_summary.json"
    path.write_text(json.dumps(endpoints_summary(state="interrupted", complete=False)))
    run = import_endpoints(sdeval, path)
    assert run["counts"] == {"population": "benchmark-requests"} and "reported" not in run
    assert run["workload"]["num_requests"] == 198
    assert "marked incomplete (state interrupted, complete false)" in run["notes"]


def test_endpoints_early_2026_shape_with_whole_number_percentile_keys(sdeval, tmp_path):
    # c60b6545 (before April 2026): keys sorted, percentiles keyed "50", "90", "99", no state,
    # complete, run_config or input lengths; qps and tps added at serialisation.
    data = {
        "duration_ns": 10_000_000_000,
        "git_sha": None,
        "latency": series(64_000_000_000, 1_000_000_000.0, 950_000_000.0, 1_200_000_000.0, 1_300_000_000.0, 1_500_000_000.0, keys="whole"),
        "n_samples_completed": 64,
        "n_samples_failed": 0,
        "n_samples_issued": 64,
        "output_sequence_lengths": series(8_192, 128.0, 128.0, 128.0, 128.0, 128.0, keys="whole"),
        "qps": 6.4,
        "test_started_at": 12345,
        "tpot": {},
        "tpot_reporting_mode": "request_weighted",
        "tps": 819.2,
        "ttft": {},
        "version": "0.0.1",
    }
    path = tmp_path / "result_summary.json"
    path.write_text(json.dumps(data, indent=2))
    run = import_endpoints(sdeval, path)
    assert run["counts"]["emitted_tokens"] == 8_192 and run["interval"]["duration_s"] == 10.0
    assert run["workload"] == {"num_requests": 64, "requests_sent": 64, "requests_failed": 0, "output_tokens_mean": 128.0}
    assert run["latency"] == {"e2e_ms": {"mean": 1000.0, "p50": 950.0, "p90": 1200.0, "p95": 1300.0, "p99": 1500.0}}
    assert run["reported"] == {"output_tokens_per_s": 819.2}  # 8,192 / 10
    assert "load" not in run and "no run_config.load_pattern" in run["notes"]
    assert run["source"]["tool_version"] == "0.0.1"


def test_endpoints_is_sniffed_and_bad_input_is_refused_in_one_line(sdeval, tmp_path):
    from evaluator.importers import sniff

    path = tmp_path / "result_summary.json"
    path.write_text(json.dumps(endpoints_summary(), indent=2))
    assert sniff(path) == "mlperf-endpoints"
    out = sdeval("import", "aiperf", path, "--arrangement", "target-only")
    assert out.exit_code == 2 and "it looks like mlperf-endpoints output" in out.stderr
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"hello": 1}))
    out = sdeval("import", "mlperf-endpoints", other, "--arrangement", "target-only")
    assert (out.exit_code, out.stderr) == (
        2,
        f"sdeval: {other}: not an MLPerf Endpoints result summary (n_samples_issued, n_samples_completed), so it is not mlperf-endpoints output\n",
    )
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(endpoints_summary(n_samples_completed=12.5)))
    out = sdeval("import", "mlperf-endpoints", bad, "--arrangement", "target-only")
    assert (out.exit_code, out.stderr) == (2, f"sdeval: {bad}: n_samples_completed: not a whole number of samples\n")
    bad.write_text(json.dumps(endpoints_summary(n_samples_failed=201)))
    out = sdeval("import", "mlperf-endpoints", bad, "--arrangement", "target-only")
    assert (out.exit_code, out.stderr) == (
        2,
        f"sdeval: {bad}: n_samples_failed (201) is more than n_samples_completed (200), which counts the failed ones too\n",
    )
    bad.write_text(json.dumps(endpoints_summary(output_sequence_lengths={"total": 1.5, "avg": 1.5})))
    out = sdeval("import", "mlperf-endpoints", bad, "--arrangement", "target-only")
    assert (out.exit_code, out.stderr) == (2, f"sdeval: {bad}: output_sequence_lengths.total: not a whole number of tokens\n")


# The published MLPerf Inference v6.1 result summary (mlcommons/inference_results_v6.1 at e777c7be,
# closed/NVIDIA/results/VR-NVL72_VR-288GB_aarch64x72_TRT/deepseek-r1/Interactive/performance/
# result_summary.json) is not in ../shared/real-outputs and is not copied here: this file has its
# keys, their order and kinds (version 0.1.0, git_sha null, test_started_at, state, 30-bucket
# histograms, early-stopping maps with a null below the p99.9 floor, poisson on the legacy LoadGen
# window, no input_sequence_lengths or finish_reason_counts), with other numbers.
V61_N = 3300


def _v61_series(lo: int, hi: int, percentiles: dict, es: dict | None, total: int, avg: float) -> dict:
    edges = [lo * (hi / lo) ** (i / 30) for i in range(31)]
    out = {"total": total, "min": lo, "max": hi, "median": percentiles["50.0"], "avg": avg, "std_dev": (hi - lo) / 6, "percentiles": percentiles}
    if es is not None:
        out["early_stopping_percentiles"] = es
    out["histogram"] = {"buckets": [[edges[i], edges[i + 1]] for i in range(30)], "counts": [V61_N // 30] * 30}
    return out


def _grid(p50: int, p90: int, p95: int, p99: int) -> dict:
    return {
        "99.9": float(p99 + 40_000_000),
        "99.0": float(p99),
        "97.0": float(p95 + 3_000_000),
        "95.0": float(p95),
        "90.0": float(p90),
        "80.0": float(p90 - 20_000_000),
        "75.0": float(p90 - 30_000_000),
        "50.0": float(p50),
        "25.0": float(p50 - 40_000_000),
        "10.0": float(p50 - 60_000_000),
        "5.0": float(p50 - 70_000_000),
        "1.0": float(p50 - 80_000_000),
    }


def _v61_summary() -> dict:
    ttft = _grid(250_000_000, 330_000_000, 360_000_000, 470_000_000)
    tpot = {k: v / 25 for k, v in _grid(250_000_000, 290_000_000, 300_000_000, 310_000_000).items()}
    latency = {k: v * 80 for k, v in ttft.items()}

    def es(grid: dict) -> dict:
        return {k: (None if k == "99.9" else v + 1_000_000) for k, v in grid.items() if float(k) >= 50}

    return {
        "version": "0.1.0",
        "git_sha": None,
        "test_started_at": 0,
        "n_samples_issued": V61_N,
        "n_samples_completed": V61_N,
        "n_samples_failed": 0,
        "duration_ns": 20_000_000_000,
        "state": "complete",
        "complete": True,
        "ttft": _v61_series(120_000_000, 6_000_000_000, ttft, es(ttft), 3300 * 280_000_000, 280_000_000.0),
        "tpot": _v61_series(4_000_000, 14_000_000, tpot, es(tpot), 3300 * 10_500_000, 10_500_000.0),
        "latency": _v61_series(1_300_000_000, 270_000_000_000, latency, es(latency), 3300 * 39_000_000_000, 39_000_000_000.0),
        "output_sequence_lengths": _v61_series(118, 20_006, {k: float(int(v) // 1_000_000) for k, v in ttft.items()}, None, V61_N * 400, 400.0),
        "legacy_loadgen_window_duration_ns": 19_500_000_000,
        "qps": V61_N / 19.5,
        "tps": V61_N * 400 / 19.5,
        "run_config": {
            "load_pattern": {"type": "poisson", "target_qps": 170.0, "target_concurrency": None, "use_legacy_loadgen_qps_metrics": True},
            "warmup": {"enabled": False, "n_requests": None, "salt": True, "drain": False, "warmup_random_seed": 42},
            "scheduler_random_seed": 16159082839903944936,
            "dataloader_random_seed": 2747215439041700203,
        },
    }


def test_the_published_v61_shape_imports_with_its_percentile_method_and_early_stopping(sdeval, tmp_path):
    """Before: the percentiles carried no method and the early-stopping estimates, the figures
    MLPerf's latency limits are checked against, were dropped without a word."""
    path = tmp_path / "result_summary.json"
    path.write_text(json.dumps(_v61_summary(), indent=2))
    run = import_endpoints(sdeval, path)
    assert run["workload"] == {"num_requests": V61_N, "requests_sent": V61_N, "requests_failed": 0, "output_tokens_mean": 400.0}
    assert run["load"] == {"request_rate": 170.0, "loop": "open"}
    assert run["interval"]["duration_s"] == 20.0 and run["counts"]["emitted_tokens"] == V61_N * 400
    assert "reported" not in run  # tps is over the legacy LoadGen window, not duration_ns
    assert run["latency"]["ttft_ms"] == {"mean": 280.0, "p50": 250.0, "p90": 330.0, "p95": 360.0, "p99": 470.0, "method": "lower"}
    assert run["latency"]["tpot_ms"] == {"mean": 10.5, "p50": 10.0, "p90": 11.6, "p95": 12.0, "p99": 12.4, "method": "lower"}
    assert run["latency"]["e2e_ms"]["p99"] == 37_600.0 and run["latency"]["e2e_ms"]["method"] == "lower"
    assert (
        "MLPerf's early-stopping estimates (early_stopping_percentiles: upper bounds at 99% confidence, which MLPerf checks its "
        "latency limits against, not the percentiles above): TTFT p90 331.0 ms, p95 361.0 ms, p99 471.0 ms; "
        "TPOT p90 12.6 ms, p95 13.0 ms, p99 13.4 ms; latency p90 26401.0 ms, p95 28801.0 ms, p99 37601.0 ms."
    ) in run["notes"]
    assert "histogram" not in run["notes"]  # the latency histogram counts every completed request


def test_a_v61_histogram_short_of_the_completed_requests_is_said_and_a_malformed_one_refused(sdeval, tmp_path):
    data = _v61_summary()
    data["latency"]["histogram"]["counts"][0] -= 1
    path = tmp_path / "result_summary.json"
    path.write_text(json.dumps(data))
    assert "The latency histogram counts 3299 requests, not the 3300 completed" in import_endpoints(sdeval, path)["notes"]
    data["ttft"]["histogram"]["counts"].pop()
    path.write_text(json.dumps(data))
    result = sdeval("import", "mlperf-endpoints", path, "--arrangement", "target-only")
    assert result.exit_code == 2
    assert "result_summary.json: ttft.histogram: not buckets and counts of the same length" in result.stderr
