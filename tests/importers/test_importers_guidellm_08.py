"""guidellm 0.8 as it writes benchmarks.json when run (issue 37): output tokens/s over its measurement
window, the version picking that basis over 0.4-0.7's token span, and its two per-token latencies
by definition. The timings are those of a real guidellm 0.8.1 run against llama-server (6 requests
of 48 tokens, 2 streams; tests/importers/test_tools_live.py runs it for real), in the shape of
GenerativeBenchmark and GenerativeRequestStats (guidellm 0.8.1 benchmark/schemas, schemas/base/request_stats.py)."""

from __future__ import annotations

import json

from support.guidellm_benchmarks import END, OWN_RATE, START, benchmarks
from support.peer_tools import findings, record_with
from support.tool_outputs import runs_of


def imported(sdeval, tmp_path, data: dict, name: str = "benchmarks.json") -> dict:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    [run] = runs_of(sdeval("import", "guidellm", path, "--arrangement", "target-only", "--configuration", "target-only"))
    return run


def test_guidellm_08_takes_its_measurement_window_and_its_figure_validates(sdeval, tmp_path):
    """Before: the 0.4-0.7 token span (7.91 s), so E / T = 36.4 against guidellm's 34.4: counts-inconsistent."""
    run = imported(sdeval, tmp_path, benchmarks())
    assert run["interval"] == {
        "start_event": "start of guidellm's measurement window (scheduler_metrics.measure_start_time: first request sent, after any warm-up)",
        "end_event": "end of guidellm's measurement window (scheduler_metrics.measure_end_time: last response received, before any cool-down)",
        "scope": "end-to-end",
        "measurement": "complete-interval",
        "duration_s": END - START,
    }
    assert run["reported"] == {"output_tokens_per_s": OWN_RATE}
    assert run["notes"].startswith(
        "guidellm 0.8.1: the interval is its measurement window (scheduler_metrics.measure_start_time to measure_end_time, 8.37589 s), "
        "the one it divides its output tokens/s by."
    )
    assert findings(sdeval, record_with(tmp_path / "r.json", [run]), "counts-inconsistent") == []


def test_guidellm_07_keeps_the_token_span_of_its_counted_requests(sdeval, tmp_path):
    run = imported(sdeval, tmp_path, benchmarks("0.7.4", own_rate=288 / (1796387901.8590682 - 1796387893.9503193)))
    assert run["interval"]["duration_s"] == 1796387901.8590682 - 1796387893.9503193
    assert run["interval"]["start_event"] == "first output token of the requests guidellm counted, received by the client"


def test_a_newer_guidellm_is_read_as_08_with_a_note(sdeval, tmp_path):
    run = imported(sdeval, tmp_path, benchmarks("0.9.0"))
    assert run["interval"]["duration_s"] == END - START
    assert run["notes"].endswith(
        "guidellm 0.9.0 is newer than guidellm 0.8, the version sdeval was tested on by running it: read as 0.8 writes its files."
    )
    assert "newer than" not in imported(sdeval, tmp_path, benchmarks(), "b.json")["notes"]


def test_guidellm_latencies_land_by_definition(sdeval, tmp_path):
    """inter_token_latency_ms excludes the first token: TPOT. time_per_output_token_ms includes it.
    Neither is a gap between chunks. Before: TPOT held the first-token-inclusive figure, 6-18 % high."""
    latency = imported(sdeval, tmp_path, benchmarks())["latency"]
    assert latency["tpot_ms"] == {"mean": 46.88510827138914, "p50": 41.876128379334794, "p90": 65.49554682792501}
    assert latency["tpot_with_first_ms"] == {"mean": 53.87074665890799, "p50": 50.72593688964844, "p90": 75.25176803270976}
    assert "itl_ms" not in latency


def test_a_figure_that_is_not_e_over_the_window_is_a_note(sdeval, tmp_path):
    """A trimmed 0.8 run counts overlapping requests whole, its figure only the token events inside."""
    run = imported(sdeval, tmp_path, benchmarks(warmup=1.0, own_rate=30.0))
    assert "reported" not in run
    assert "guidellm's own output tokens/s 30 counts only the token events inside that window" in run["notes"]


def test_a_request_guidellm_left_running_is_said(sdeval, tmp_path):
    """guidellm 0.8.1 against llama-server closed a benchmark with one of its two requests still running,
    counted in none of its totals while the server generated its 48 tokens (the live test saw E 144
    against the server's 192). Before, nothing said so."""
    data = benchmarks()
    data["benchmarks"][0]["scheduler_state"] = {"created_requests": 7, "processing_requests": 1, "processed_requests": 6, "successful_requests": 6}
    run = imported(sdeval, tmp_path, data)
    assert run["notes"].endswith(
        "guidellm ended this benchmark with 1 request still running (scheduler_state.processing_requests), in none of its totals: "
        "the server's counters over the run also hold tokens of that request, which E does not."
    )
