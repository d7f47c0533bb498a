"""AIPerf 0.13 as it writes its files when run (issue 37): its rates over the profiling window, the
server's usage counts beside its own re-tokenised ones, TPOT and inter-chunk gaps kept apart, and
the good-request count. Constructed on the shape of the files AIPerf 0.13.0 wrote against
llama-server (tests/importers/test_tools_live.py runs it for real); the figures below are those of
such a run: 288 tokens, a benchmark_duration of 5.627889408 s and a profiling window 5.9 ms longer."""

from __future__ import annotations

import json

from support.aiperf_exports import DURATION_S, PROFILING, WINDOW_S, aiperf_013, block, export, sweep, write
from support.peer_tools import findings, record_with
from support.tool_outputs import runs_of


def test_the_interval_is_the_profiling_window_aiperf_divided_by_and_validate_finds_nothing(sdeval, tmp_path):
    """Before: T was benchmark_duration, so every real 0.13 summary read as edited (counts-inconsistent)."""
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, aiperf_013()), "--arrangement", "target-only", "--configuration", "target-only"))
    assert run["interval"] == {
        "start_event": "start of AIPerf's profiling phase (its start_time), as it begins sending the phase's requests",
        "end_event": "last response of AIPerf's profiling phase received (its end_time)",
        "scope": "end-to-end",
        "measurement": "complete-interval",
        "duration_s": WINDOW_S,
    }
    assert run["reported"] == {"output_tokens_per_s": 51.12036193740235}
    assert abs(288 / WINDOW_S - 51.12036193740235) < 1e-4
    assert (
        "The interval is its profiling window (start_time to end_time), 5.63376 s: the one AIPerf divided its output_token_throughput by."
        in (run["notes"])
    )
    assert findings(sdeval, record_with(tmp_path / "r.json", [run]), "counts-inconsistent") == []


def test_a_file_whose_own_figure_is_over_benchmark_duration_keeps_that_basis(sdeval, tmp_path):
    """0.11 divided by benchmark_duration; its start_time..end_time is not taken in its place."""
    data = aiperf_013(aiperf_version="0.11.0", output_token_throughput=block("tokens/sec", 288 / DURATION_S))
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, data), "--arrangement", "target-only"))
    assert run["interval"]["duration_s"] == DURATION_S
    assert run["interval"]["start_event"] == "first benchmark request sent by the client"


def test_a_newer_aiperf_imports_with_a_note_naming_the_tested_version(sdeval, tmp_path):
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, aiperf_013(aiperf_version="0.15.2")), "--arrangement", "target-only"))
    assert run["interval"]["duration_s"] == WINDOW_S
    assert "AIPerf 0.15.2 is newer than AIPerf 0.13, the version sdeval was tested on by running it: read as 0.13 writes its files." in run["notes"]
    [tested] = runs_of(sdeval("import", "aiperf", write(tmp_path, aiperf_013(), "t.json"), "--arrangement", "target-only"))
    assert "newer than" not in tested["notes"]


def test_tpot_and_inter_chunk_gaps_go_to_their_own_fields(sdeval, tmp_path):
    """inter_token_latency is (latency - TTFT) / (tokens after the first chunk): TPOT. The gaps between
    streamed chunks, whose p99 shows the bursts accepted drafts arrive in, are ITL. Before, ITL held TPOT."""
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, aiperf_013()), "--arrangement", "target-only"))
    assert run["latency"]["tpot_ms"] == {"mean": 30.56, "p50": 27.98, "p90": 41.5, "p95": 41.74, "p99": 41.93}
    assert run["latency"]["itl_ms"] == {"mean": 30.56, "p50": 0.088, "p90": 94.37, "p95": 114.33, "p99": 166.47}
    assert "tpot_with_first_ms" not in run["latency"]


def test_server_usage_counts_are_e_and_the_re_tokenised_ones_a_note(sdeval, tmp_path):
    """A tokenizer unlike the server's: AIPerf's total_osl 387 beside the server's 512. Before, E was 387."""
    data = aiperf_013(
        total_osl=block("tokens", 387.0),
        total_output_tokens=block("tokens", 387.0),
        output_token_throughput=block("tokens/sec", 387 / WINDOW_S),
        total_usage_completion_tokens=block("tokens", 512.0),
        usage_discrepancy_count=block("requests", 6.0),
    )
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, data), "--arrangement", "target-only", "--configuration", "target-only"))
    assert run["counts"]["emitted_tokens"] == 512
    assert "reported" not in run  # AIPerf's rate is over its own 387
    assert (
        "E is the server's count of completion tokens, total_usage_completion_tokens 512; AIPerf's own count with its tokenizer "
        "(total_osl 387) differs by -125; usage_discrepancy_count 6 requests. AIPerf's output_token_throughput is over its own count, "
        "so it is a note here, not a reported figure."
    ) in run["notes"]
    assert run["interval"]["duration_s"] == WINDOW_S  # the window is still the one its figure shows
    assert findings(sdeval, record_with(tmp_path / "r.json", [run]), "counts-inconsistent") == []


def test_only_re_tokenised_counts_are_said_to_be_so(sdeval, tmp_path):
    data = aiperf_013()
    del data["total_usage_completion_tokens"]
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, data), "--arrangement", "target-only"))
    assert run["counts"]["emitted_tokens"] == 288
    assert (
        "E is AIPerf's own count (total_osl), which it takes with its tokenizer from the response text unless run with "
        "--use-server-token-count; the file holds no server usage counts (total_usage_completion_tokens) to check it against."
    ) in run["notes"]
    data["input_config"]["endpoint"]["use_server_token_count"] = True
    [server] = runs_of(sdeval("import", "aiperf", write(tmp_path, data, "s.json"), "--arrangement", "target-only"))
    assert "E (total_osl) is the server's usage count: AIPerf ran with --use-server-token-count." in server["notes"]


def test_goodput_keeps_its_good_request_count_and_the_record_validates(sdeval, tmp_path):
    data = aiperf_013(
        goodput=block("requests/sec", 4 / WINDOW_S),
        good_request_count=block("requests", 4.0),
        **{"input_config": export([PROFILING])["input_config"]},
    )
    data["input_config"]["slos"] = {"time_to_first_token": 300}
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, data), "--arrangement", "target-only", "--configuration", "target-only"))
    assert run["goodput"]["good_requests"] == 4
    assert run["goodput"]["requests_per_s"] == 4 / WINDOW_S
    record = record_with(tmp_path / "r.json", [run])
    assert json.loads(record.read_text())["runs"][0]["goodput"]["good_requests"] == 4
    assert [f for f in findings(sdeval, record, "schema") if f["path"].startswith("/runs")] == []


def test_a_013_sweep_point_keeps_its_duration_and_its_window_figure_as_a_note(sdeval, tmp_path):
    """A sweep point keeps no start_time and end_time: its figure over the window is no reported figure
    (before, E / benchmark_duration disagreed with it and the point read as edited)."""
    path = write(tmp_path, sweep([({"concurrency": 2}, aiperf_013())]), "profile_export_aiperf_sweep.json")
    [run] = runs_of(sdeval("import", "aiperf", path, "--arrangement", "target-only", "--configuration", "target-only"))
    assert run["interval"]["duration_s"] == DURATION_S
    assert "reported" not in run
    assert (
        "The interval is the point's benchmark_duration, 5.62789 s; AIPerf's output_token_throughput 51.1204 is over its profiling "
        "window, which the sweep file does not keep, so it is a note, not a reported figure."
    ) in run["notes"]
    assert findings(sdeval, record_with(tmp_path / "r.json", [run]), "counts-inconsistent") == []


def test_a_confidence_aggregate_is_refused_by_name(sdeval, tmp_path):
    """aggregate/concurrency_N/profile_export_aiperf_aggregate.json: means across runs (before: 'not aiperf output')."""
    data = {
        "schema_version": "1.0",
        "aiperf_version": "0.13.0",
        "metadata": {"aggregation_type": "confidence", "num_profile_runs": 1, "single_run": True},
        "metrics": {"request_throughput_avg": {"mean": 0.66, "std": 0.0, "unit": "requests/sec"}},
    }
    path = write(tmp_path, data, "profile_export_aiperf_aggregate.json")
    result = sdeval("import", "aiperf", path, "--arrangement", "target-only")
    assert (result.exit_code, result.stderr) == (
        2,
        f"sdeval: {path}: an AIPerf confidence aggregate (metadata.aggregation_type 'confidence', over 1 profile run(s)): statistics "
        "across runs, not one run's counts; import each run's own profile_export_aiperf.json\n",
    )
