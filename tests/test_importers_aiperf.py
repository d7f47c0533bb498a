"""AIPerf's 0.11+ exports on constructed files of the shape its source writes: the load from
`input_config.phases`, goodput with the SLOs it was counted at, what ran, per-request acceptance
(0.13's spec_decode_*), and `profile_export_aiperf_sweep.json`, one run per point.

Shapes read from ai-dynamo/aiperf: JsonExportData and JsonMetricResult
(src/aiperf/common/models/export_models.py at 896729cf), the phase types
(src/aiperf/config/phases.py at aa0efdfd), GoodRequestCountMetric (good_request_count_metric.py at
cf79369e), the spec-decode metrics (src/aiperf/metrics/types/spec_decode_metrics.py at 388b4f26) and
the sweep aggregate (src/aiperf/cli_runner/_sweep_aggregate.py at 68e913b9, the exporter
src/aiperf/exporters/aggregate/aggregate_sweep_json_exporter.py at c1cfd86b). The 0.11 layout
is also the real files' (tests/test_importers_real.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_importers import runs_of


def block(unit: str, avg: float, **stats) -> dict:
    return {"unit": unit, "avg": avg, **stats}


def export(phases: list[dict], *, slos: dict | None = None, requests: int = 100, good: int | None = None, duration: float = 50.0,
           tokens: int = 20000, spec: dict | None = None, version: str = "0.13.0") -> dict:
    """A profile_export_aiperf.json of schema 1.3+ (AIPerf 0.11 on)."""
    data = {
        "schema_version": "1.5", "aiperf_version": version, "benchmark_id": "b-28",
        "request_throughput": block("requests/sec", requests / duration),
        "request_latency": block("ms", 900.0, p50=850.0, p90=1200.0, p99=1500.0, count=requests, sum=900.0 * requests),
        "request_count": block("requests", float(requests)),
        "time_to_first_token": block("ms", 40.0, p50=38.0, p90=55.0, p99=80.0, count=requests),
        "inter_token_latency": block("ms", 4.3, p50=4.2, p90=5.0, p99=6.1, count=requests),
        "output_token_throughput": block("tokens/sec", tokens / duration),
        "output_sequence_length": block("tokens", tokens / requests, count=requests, sum=float(tokens)),
        "input_sequence_length": block("tokens", 512.0, count=requests, sum=512.0 * requests),
        "total_output_tokens": block("tokens", float(tokens)),
        "total_osl": block("tokens", float(tokens)),
        "benchmark_duration": block("sec", duration),
        "input_config": {
            "models": {"strategy": "round_robin", "items": [{"name": "meta-llama/Llama-3.1-8B-Instruct"}]},
            "endpoint": {"urls": ["http://localhost:8000"], "type": "chat", "streaming": True},
            "phases": phases,
            "tokenizer": {"name": "meta-llama/Llama-3.1-8B-Instruct", "revision": "main"},
        },
        "run_info": {"benchmark_id": "b-28", "cli_command": "aiperf profile --model meta-llama/Llama-3.1-8B-Instruct --concurrency 8"},
        "was_cancelled": False,
    }
    if slos is not None:
        data["input_config"]["slos"] = slos
    if good is not None:
        data["goodput"] = block("requests/sec", good / duration)
        data["good_request_count"] = block("requests", float(good))
    if spec is not None:
        data.update(spec)
    return data


def write(tmp_path: Path, data: dict, name: str = "profile_export_aiperf.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


PROFILING = {"name": "profiling", "type": "concurrency", "exclude_from_results": False, "concurrency": 8, "duration": 60.0, "seamless": False}
WARMUP = {"name": "warmup", "type": "concurrency", "exclude_from_results": True, "concurrency": 8, "requests": 16, "seamless": False}


# ------------------------------------------------------------------------------ load from phases


def test_concurrency_phase_after_an_excluded_warmup(sdeval, tmp_path):
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, export([WARMUP, PROFILING])), "--arrangement", "target-only"))
    assert run["load"] == {"concurrency": 8, "loop": "closed"}
    assert "AIPerf leaves its warm-up phase (warmup) out of its results." in run["notes"]


@pytest.mark.parametrize("kind", ["poisson", "gamma", "constant"])
def test_rate_phase_is_an_open_loop_with_its_concurrency_cap(sdeval, tmp_path, kind):
    phase = {"name": "profiling", "type": kind, "rate": 12.5, "concurrency": 64, "duration": 60.0}
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, export([phase])), "--arrangement", "target-only"))
    assert run["load"] == {"request_rate": 12.5, "concurrency": 64, "loop": "open"}


@pytest.mark.parametrize(
    ("phase", "said"),
    [
        ({"name": "profiling", "type": "poisson", "rate_series": {"initial_qps": 1.0}, "duration": 60.0},
         "Phase profiling (poisson) followed a rate_series, not one rate: the load is left unstated."),
        ({"name": "profiling", "type": "fixed_schedule", "auto_offset": True},
         "Phase profiling replayed a trace's timestamps (fixed_schedule): the load is the trace's, left unstated."),
        ({"name": "profiling", "type": "adaptive_scale", "duration": 60.0},
         "Phase profiling is of type 'adaptive_scale', which sdeval does not read: the load is left unstated."),
    ],
)
def test_a_phase_without_one_load_leaves_it_unstated_and_says_why(sdeval, tmp_path, phase, said):
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, export([phase])), "--arrangement", "target-only"))
    assert "load" not in run
    assert said in run["notes"]


def test_two_counted_phases_at_different_loads_leave_the_load_unstated(sdeval, tmp_path):
    second = {**PROFILING, "name": "burst", "kind": "profiling", "concurrency": 32}
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, export([PROFILING, second])), "--arrangement", "target-only"))
    assert "load" not in run
    assert "AIPerf counted 2 phases at different loads (profiling, burst): the load is left unstated." in run["notes"]


def test_a_ramped_phase_is_said_to_have_run_below_its_load(sdeval, tmp_path):
    phase = {**PROFILING, "concurrency_ramp": {"duration": 10.0}}
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, export([phase])), "--arrangement", "target-only"))
    assert run["load"] == {"concurrency": 8, "loop": "closed"}
    assert "Phase profiling ramped its load up (concurrency_ramp, rate_ramp or prefill_ramp), so part of it ran below the stated load." in run["notes"]


# ------------------------------------------------------------------------------------- goodput


def test_goodput_keeps_the_slos_it_was_counted_at(sdeval, tmp_path):
    data = export([PROFILING], slos={"time_to_first_token": 200, "inter_token_latency": 25.5, "request_latency": 3000}, good=80)
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, data), "--arrangement", "target-only"))
    assert run["goodput"] == {
        "requests_per_s": 80 / 50.0,
        "ttft_limit_ms": 200.0,
        "tpot_limit_ms": 25.5,
        "e2e_limit_ms": 3000.0,
        "definition": "AIPerf --goodput: a request is good when it meets every SLO (time_to_first_token <= 200, inter_token_latency <= 25.5, "
        "request_latency <= 3000; time limits in ms) and has a value for each metric; goodput = good_request_count / benchmark_duration",
    }
    assert "Goodput: AIPerf counted 80 of 100 requests good (good_request_count) at its SLOs." in run["notes"]


def test_an_slo_without_a_field_stays_in_the_definition(sdeval, tmp_path):
    data = export([PROFILING], slos={"time_to_first_token": 200, "output_token_throughput_per_user": 600}, good=70)
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, data), "--arrangement", "target-only"))
    assert run["goodput"]["ttft_limit_ms"] == 200.0 and "tpot_limit_ms" not in run["goodput"]
    assert "output_token_throughput_per_user <= 600" in run["goodput"]["definition"]
    assert "Its SLOs on output_token_throughput_per_user have no field of their own" in run["notes"]


def test_the_2025_config_keeps_its_slos_under_input_goodput(sdeval, tmp_path):
    data = export([], good=90)
    del data["input_config"]["phases"]
    data["input_config"]["loadgen"] = {"concurrency": 4}
    data["input_config"]["input"] = {"goodput": {"request_latency": 1000}}
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, data), "--arrangement", "target-only"))
    assert run["goodput"]["e2e_limit_ms"] == 1000.0
    assert run["load"] == {"concurrency": 4, "loop": "closed"}


def test_goodput_without_its_slos_is_not_kept_and_the_notes_say_so(sdeval, tmp_path):
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, export([PROFILING], good=90)), "--arrangement", "target-only"))
    assert "goodput" not in run
    assert "AIPerf's goodput 1.8 requests/s is not kept: the file does not record the SLOs it was counted at." in run["notes"]


def test_an_slo_that_is_not_a_number_is_named(sdeval, tmp_path):
    path = write(tmp_path, export([PROFILING], slos={"time_to_first_token": "fast"}, good=90))
    result = sdeval("import", "aiperf", path, "--arrangement", "target-only")
    assert result.exit_code == 2
    assert result.stderr == f"sdeval: {path}: input_config.slos.time_to_first_token is 'fast', not a limit\n"


# ---------------------------------------------------------------------------------- what ran


def test_model_tokenizer_and_command_line_are_kept_with_secrets_withheld(sdeval, tmp_path):
    data = export([PROFILING])
    data["run_info"]["cli_command"] = "aiperf profile --model m --api-key sk-live-123 --header 'Authorization: Bearer abc' \\\n  --concurrency 8"
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, data), "--arrangement", "target-only"))
    assert run["notes"].endswith(
        "AIPerf 0.13.0: model meta-llama/Llama-3.1-8B-Instruct; tokenizer meta-llama/Llama-3.1-8B-Instruct (revision main); "
        "command line: aiperf profile --model m --api-key *** --header 'Authorization: ***' --concurrency 8 (secret values withheld as ***)."
    )
    assert "sk-live" not in json.dumps(run) and "abc'" not in json.dumps(run)


def test_a_command_line_with_control_characters_is_not_kept(sdeval, tmp_path):
    data = export([PROFILING])
    data["run_info"]["cli_command"] = "aiperf profile \x1b[31m--model m"
    [run] = runs_of(sdeval("import", "aiperf", write(tmp_path, data), "--arrangement", "target-only"))
    assert run["notes"].endswith("(revision main); its command line holds control characters and is not kept.")
