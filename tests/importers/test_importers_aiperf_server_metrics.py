"""AIPerf's server_metrics_export.json (issue 37.3): the server's S, P, A and E over AIPerf's profiling
phase, alone or beside the run's summary (`--server-metrics`), the warm-up phase kept out and said,
and a sniffer that names it rather than pointing the aiperf and llamacpp-metrics importers at each
other. The file is built in the shape AIPerf 0.13.0 wrote against llama-server, with that run's
counts (tests/importers/test_tools_live.py runs it for real)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.aiperf_exports import aiperf_013
from support.peer_tools import findings, record_with
from support.tool_outputs import runs_of

URL = "http://127.0.0.1:44247/metrics"
START_NS, END_NS = 1796387799402552425, 1796387805036315354


def counter(total: float, description: str = "", **labels) -> dict:
    series = {"endpoint_url": URL, "stats": {"total": total, "rate": total / 5.6}}
    if labels:
        series["labels"] = labels
    return {"type": "counter", "description": description, "series": [series]}


def llamacpp_phase(steps: int, drafts: int, accepted: int, tokens: int, per_position: list[int]) -> dict:
    return {
        "llamacpp:requests_processing": {"type": "gauge", "series": [{"endpoint_url": URL, "stats": {"avg": 1.27, "min": 0.0, "max": 2.0}}]},
        "llamacpp:spec_decode_num_accepted_tokens": counter(accepted, "Speculative: Total draft tokens accepted by the target model"),
        "llamacpp:spec_decode_num_accepted_tokens_per_pos": {
            "type": "counter",
            "series": [
                {"endpoint_url": URL, "labels": {"position": str(p)}, "stats": {"total": float(n), "rate": 1.0}} for p, n in enumerate(per_position)
            ],
        },
        "llamacpp:spec_decode_num_draft_tokens": counter(drafts),
        "llamacpp:spec_decode_num_drafts": counter(steps, "Speculative: Total speculative decoding verification steps"),
        "llamacpp:tokens_predicted": counter(tokens, "Number of generation tokens processed"),
    }


def server_metrics(profiling: dict | None = None, warmup: dict | None = None, benchmark_id: str = "b-28") -> dict:
    return {
        "schema_version": "1.1",
        "aiperf_version": "0.13.0",
        "benchmark_id": benchmark_id,
        "summary": {
            "endpoints_configured": [URL],
            "endpoints_successful": [URL],
            "start_time": "2026-12-04T12:36:39.402552",
            "end_time": "2026-12-04T12:36:45.036315",
            "phase_time_ranges": {
                "profiling": {"start_ns": START_NS, "end_ns": END_NS},
                "warmup": {"start_ns": 1796387797751770708, "end_ns": 1796387799479233252},
            },
        },
        "metrics_phase": "profiling",
        "metrics": profiling or llamacpp_phase(25, 180, 154, 288, [24, 23, 22, 19, 18, 18, 17, 13]),
        "warmup_metrics": warmup if warmup is not None else llamacpp_phase(8, 60, 47, 96, [4, 7, 6, 6, 5, 5, 5, 9]),
    }


def write(tmp_path: Path, data: dict, name: str) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_alone_it_gives_the_servers_counts_over_the_profiling_phase_without_the_warm_up(sdeval, tmp_path):
    """Before: refused ('not aiperf output'), so an AIPerf run on llama.cpp had no speculation counts."""
    [run] = runs_of(sdeval("import", "aiperf-server-metrics", write(tmp_path, server_metrics(), "server_metrics_export.json")))
    assert run["arrangement"] == "speculative"
    assert run["counts"] == {
        "verification_steps": 25,
        "proposed_drafts": 180,
        "accepted_drafts": 154,
        "emitted_tokens": 288,
        "accepted_per_position": [24, 23, 22, 19, 18, 18, 17, 13],
        "population": "server-wide",
    }
    assert run["interval"]["duration_s"] == (END_NS - START_NS) / 1e9
    assert run["interval"]["start_event"].startswith("start of AIPerf's profiling phase")
    assert run["source"]["format"] == "aiperf-server-metrics" and run["source"]["tool_version"] == "0.13.0"
    assert run["notes"].endswith(
        "AIPerf's warm-up phase is left out of the counts (the server counted verification steps 8, proposed drafts 60, accepted drafts 47, emitted tokens 96 in it)."
    )


def test_beside_its_summary_the_counts_are_the_benchmarks_when_e_agrees(sdeval, tmp_path):
    summary = write(tmp_path, aiperf_013(), "profile_export_aiperf.json")
    server = write(tmp_path, server_metrics(), "server_metrics_export.json")
    [run] = runs_of(sdeval("import", "aiperf", summary, "--server-metrics", server, "--configuration", "speculative"))
    counts = run["counts"]
    assert (counts["verification_steps"], counts["proposed_drafts"], counts["accepted_drafts"], counts["emitted_tokens"]) == (25, 180, 154, 288)
    assert counts["population"] == "benchmark-requests"
    assert counts["population_check"] == [{"count": "output-tokens", "benchmark": 288, "server": 288}]
    assert run["source"]["server_scrapes"][0]["file"] == "server_metrics_export.json"
    assert "match the summary's (output tokens 288 in the summary, 288 on the server): it served only AIPerf's requests" in run["notes"]
    assert "AIPerf's warm-up phase is left out of the counts" in run["notes"]
    assert run["interval"]["duration_s"] == 5.633763  # the summary's window
    found = findings(sdeval, record_with(tmp_path / "r.json", [run]), "counts-inconsistent", "coverage-gap")
    assert found == []


def test_beside_a_summary_whose_e_differs_the_population_is_mixed(sdeval, tmp_path):
    summary = write(tmp_path, aiperf_013(), "profile_export_aiperf.json")
    other = server_metrics(llamacpp_phase(30, 210, 170, 340, [30, 28, 25, 22, 20, 20, 15, 10]))
    server = write(tmp_path, other, "server_metrics_export.json")
    [run] = runs_of(sdeval("import", "aiperf", summary, "--server-metrics", server))
    assert run["counts"]["population"] == "mixed"
    assert "do not match the summary's (output tokens 288 in the summary, 340 on the server): it served other requests too." in run["notes"]


def test_server_metrics_of_another_run_are_refused(sdeval, tmp_path):
    summary = write(tmp_path, aiperf_013(), "profile_export_aiperf.json")
    server = write(tmp_path, server_metrics(benchmark_id="other"), "server_metrics_export.json")
    result = sdeval("import", "aiperf", summary, "--server-metrics", server)
    assert result.exit_code == 2
    assert "benchmark_id other is not the summary's (b-28): the server metrics are of another AIPerf run" in result.stderr


def test_server_metrics_only_go_with_aiperf(sdeval, tmp_path):
    server = write(tmp_path, server_metrics(), "server_metrics_export.json")
    result = sdeval("import", "vllm-bench", server, "--server-metrics", server)
    assert result.exit_code == 2 and "--server-metrics applies to aiperf only" in result.stderr


@pytest.mark.parametrize(
    ("fmt", "files", "named"),
    [
        ("aiperf", ["server_metrics_export.json"], "aiperf-server-metrics"),
        ("llamacpp-metrics", ["server_metrics_export.json", "server_metrics_export.json"], "aiperf-server-metrics"),
        ("aiperf-server-metrics", ["profile_export_aiperf.json"], "aiperf"),
    ],
)
def test_the_sniffers_name_the_file_never_each_other(sdeval, tmp_path, fmt, files, named):
    """Before: the aiperf importer said 'not aiperf output' and llamacpp-metrics 'looks like aiperf output'."""
    from evaluator.importers import sniff

    write(tmp_path, server_metrics(), "server_metrics_export.json")
    write(tmp_path, aiperf_013(), "profile_export_aiperf.json")
    assert sniff(tmp_path / "server_metrics_export.json") == "aiperf-server-metrics"
    assert sniff(tmp_path / "profile_export_aiperf.json") == "aiperf"
    result = sdeval("import", fmt, *(tmp_path / f for f in files))
    assert result.exit_code == 2
    assert f"it looks like {named} output (try `sdeval import {named} {files[0]}`)" in result.stderr


def test_a_server_without_known_counters_is_refused_by_name(sdeval, tmp_path):
    data = server_metrics({"sglang:num_running_reqs": {"type": "gauge", "series": []}}, warmup={})
    result = sdeval("import", "aiperf-server-metrics", write(tmp_path, data, "s.json"))
    assert result.exit_code == 2
    assert "metrics holds no vLLM (vllm:) or llama.cpp (llamacpp:) token counters (only sglang:)" in result.stderr


def test_a_counter_that_is_not_a_count_is_named(sdeval, tmp_path):
    data = server_metrics()
    data["metrics"]["llamacpp:spec_decode_num_drafts"]["series"][0]["stats"]["total"] = 2.5
    result = sdeval("import", "aiperf-server-metrics", write(tmp_path, data, "s.json"))
    assert result.exit_code == 2
    assert "metrics.llamacpp:spec_decode_num_drafts.series[0].stats.total is not a whole count" in result.stderr


def test_one_phases_server_metrics_are_refused_by_name(sdeval, tmp_path):
    """phases/profiling/server_metrics.json holds one phase; the export beside the summary holds both apart."""
    data = {
        "data": {"benchmark_id": "b-28", "endpoint_summaries": {}, "phase_kind": "profiling"},
        "phase": {"phase_kind": "profiling", "phase_name": "profiling", "start_ns": START_NS, "end_ns": END_NS},
        "schema_version": 1,
        "warnings": [],
    }
    path = write(tmp_path, data, "server_metrics.json")
    from evaluator.importers import sniff

    assert sniff(path) == "aiperf-server-metrics"
    result = sdeval("import", "aiperf-server-metrics", path)
    assert result.exit_code == 2
    assert (
        "AIPerf's server metrics of one phase (phases/NAME/server_metrics.json, phase 'profiling'); import the run's server_metrics_export.json"
        in (result.stderr)
    )


def test_labels_written_as_a_list_are_refused_in_one_line(sdeval, tmp_path):
    # `(series.get("labels") or {}).get(...)` on a list was an AttributeError: an internal error
    # (and, read as no labels, position 0's 24 accepted drafts would have been lost from the per-position counts).
    data = server_metrics()
    data["metrics"]["llamacpp:spec_decode_num_accepted_tokens_per_pos"]["series"][0]["labels"] = ["position", "0"]
    path = write(tmp_path, data, "server_metrics_export.json")
    result = sdeval("import", "aiperf-server-metrics", path)
    assert (result.exit_code, result.stderr) == (
        2,
        f"sdeval: {path}: metrics.llamacpp:spec_decode_num_accepted_tokens_per_pos.series[0].labels is not an object\n",
    )
