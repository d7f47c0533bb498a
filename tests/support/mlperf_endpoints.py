"""mlcommons/endpoints result_summary.json built for the importer tests, as `Report.to_json` writes it
(metrics/report.py at ea332753, 2026-08-21; the April 2026 and earlier shape from c60b6545's metrics/reporter.py)."""

from __future__ import annotations

GRID = ("99.9", "99.0", "97.0", "95.0", "90.0", "80.0", "75.0", "50.0", "25.0", "10.0", "5.0", "1.0")


def series(total, avg, p50, p90, p95, p99, early_stopping=False, keys=GRID):
    values = {
        "99.9": p99 * 1.05,
        "99.0": p99,
        "97.0": p95 * 1.01,
        "95.0": p95,
        "90.0": p90,
        "80.0": p90 * 0.9,
        "75.0": p90 * 0.85,
        "50.0": p50,
        "25.0": p50 * 0.8,
        "10.0": p50 * 0.7,
        "5.0": p50 * 0.6,
        "1.0": p50 * 0.5,
    }
    percentiles = {k.removesuffix(".0") if keys is not GRID else k: values[k] for k in GRID}
    out = {"total": total, "min": p50 * 0.5, "max": p99 * 1.1, "median": p50, "avg": avg, "std_dev": 3.25, "percentiles": percentiles}
    if early_stopping:
        out["early_stopping_percentiles"] = {k: v * 1.01 for k, v in values.items() if float(k) >= 50}
    out["histogram"] = {"buckets": [[p50 * 0.5, p50], [p50, p99 * 1.1]], "counts": [100, 100]}
    return out


def endpoints_summary(**changes) -> dict:
    """200 requests issued and completed in the performance phase, 2 of them failed, over 41.25 s;
    198 x 200 = 39,600 output tokens, so tps = 39,600 / 41.25 = 960.0 and qps = 200 / 41.25."""
    data = {
        "version": "0.1.0",
        "git_sha": "ea33275",
        "test_started_at": 0,
        "n_samples_issued": 200,
        "n_samples_completed": 200,
        "n_samples_failed": 2,
        "duration_ns": 41_250_000_000,
        "state": "complete",
        "complete": True,
        "ttft": series(17_050_000_000, 85_250_000.0, 80_000_000.0, 120_500_000.0, 150_000_000.0, 210_250_000.0, early_stopping=True),
        "tpot": series(2_469_135_780.0, 12_345_678.9, 12_000_000.0, 14_500_000.0, 15_250_000.0, 18_000_000.0, early_stopping=True),
        "latency": series(520_000_000_000, 2_600_000_000.0, 2_550_000_000.0, 2_900_000_000.0, 3_000_000_000.0, 3_400_000_000.0, early_stopping=True),
        "output_sequence_lengths": series(39_600, 200.0, 200.0, 210.0, 215.0, 230.0),
        "input_sequence_lengths": series(204_800, 1024.0, 1024.0, 1024.0, 1024.0, 1024.0),
        "legacy_loadgen_window_duration_ns": None,
        "qps": 200 / 41.25,
        "tps": 960.0,
        "finish_reason_counts": {"stop": 150, "length": 48, "tool_calls": 0, "content_filter": 0, "function_call": 0, "other": 0},
        "run_config": {
            "load_pattern": {"type": "concurrency", "target_qps": None, "target_concurrency": 8},
            "warmup": {"enabled": True, "n_requests": 32, "salt": True, "drain": True, "warmup_random_seed": 42},
            "scheduler_random_seed": 42,
            "dataloader_random_seed": 42,
        },
    }
    data.update(changes)
    return data


def import_endpoints(sdeval, path):
    out = sdeval("import", "mlperf-endpoints", path, "--arrangement", "target-only")
    assert out.exit_code == 0, out.stderr
    (run,) = out.json()["runs"]
    return run
