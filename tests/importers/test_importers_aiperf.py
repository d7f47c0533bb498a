"""AIPerf's 0.11+ exports on constructed files of the shape its source writes: the load from
`input_config.phases`, goodput with the SLOs it was counted at, what ran, per-request acceptance
(0.13's spec_decode_*), and `profile_export_aiperf_sweep.json`, one run per point.

Shapes read from ai-dynamo/aiperf: JsonExportData and JsonMetricResult
(src/aiperf/common/models/export_models.py at 896729cf), the phase types
(src/aiperf/config/phases.py at aa0efdfd), GoodRequestCountMetric (good_request_count_metric.py at
cf79369e), the spec-decode metrics (src/aiperf/metrics/types/spec_decode_metrics.py at 388b4f26) and
the sweep aggregate (src/aiperf/cli_runner/_sweep_aggregate.py at 68e913b9, the exporter
src/aiperf/exporters/aggregate/aggregate_sweep_json_exporter.py at c1cfd86b). The 0.11 layout
is also the real files' (tests/importers/test_importers_real.py).
"""

from __future__ import annotations

import json

import pytest
from support.aiperf_exports import PROFILING, block, export, sweep, write
from support.tool_outputs import runs_of

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
        (
            {"name": "profiling", "type": "poisson", "rate_series": {"initial_qps": 1.0}, "duration": 60.0},
            "Phase profiling (poisson) followed a rate_series, not one rate: the load is left unstated.",
        ),
        (
            {"name": "profiling", "type": "fixed_schedule", "auto_offset": True},
            "Phase profiling replayed a trace's timestamps (fixed_schedule): the load is the trace's, left unstated.",
        ),
        (
            {"name": "profiling", "type": "adaptive_scale", "duration": 60.0},
            "Phase profiling is of type 'adaptive_scale', which sdeval does not read: the load is left unstated.",
        ),
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
    assert (
        "Phase profiling ramped its load up (concurrency_ramp, rate_ramp or prefill_ramp), so part of it ran below the stated load." in run["notes"]
    )


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
        "request_latency <= 3000; time limits in ms) and has a value for each metric; goodput = good_request_count / the run's interval",
        # issue 37.7: the good requests themselves, not only their rate
        "good_requests": 80,
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


# ---------------------------------------------------------------------------------------- sweeps


SPEC = {
    "spec_decode_steps": block("steps", 40.0, count=90, sum=3600.0),
    "spec_decode_draft_tokens": block("tokens", 120.0, count=90, sum=10800.0),
    "spec_decode_accepted_draft_tokens": block("tokens", 70.0, count=90, sum=6300.0),
    "total_spec_decode_steps": block("steps", 3600.0),
    "total_draft_tokens": block("tokens", 10800.0),
    "total_accepted_draft_tokens": block("tokens", 6300.0),
    "spec_decode_overall_draft_acceptance_rate": block("%", 6300 / 10800 * 100),
    "spec_decode_token_weighted_acceptance_length": block("ratio", 1 + 6300 / 3600),
}


def test_a_sweep_gives_one_run_per_point_with_its_load(sdeval, tmp_path):
    one = export([PROFILING], requests=100, duration=80.0, tokens=20000)
    eight = export([PROFILING], requests=400, duration=60.0, tokens=80000, spec=SPEC)
    path = write(tmp_path, sweep([({"concurrency": 1}, one), ({"concurrency": 8}, eight)]), "profile_export_aiperf_sweep.json")
    runs = runs_of(sdeval("import", "aiperf", path, "--arrangement", "speculative", "--run-id", "sweep"))
    assert [(r["id"], r["source"]["entry"], r["load"]) for r in runs] == [
        ("sweep-1", "per_combination_metrics[0]", {"concurrency": 1, "loop": "closed"}),
        ("sweep-2", "per_combination_metrics[1]", {"concurrency": 8, "loop": "closed"}),
    ]
    assert [(r["counts"].get("emitted_tokens"), r["interval"]["duration_s"], r["workload"]["num_requests"]) for r in runs] == [
        (20000, 80.0, 100),
        (80000, 60.0, 400),
    ]
    assert runs[1]["counts"] == {
        "verification_steps": 3600,
        "proposed_drafts": 10800,
        "accepted_drafts": 6300,
        "emitted_tokens": 80000,
        "population": "benchmark-requests",
        "requests_with_metrics": 90,
        "requests_without_metrics": 310,
        "missing_metrics_as": "excluded",
    }
    assert runs[1]["reported"] == {"acceptance_rate": 6300 / 10800, "mean_acceptance_length": 2.75, "output_tokens_per_s": 80000 / 60.0}
    assert runs[0]["latency"]["ttft_ms"] == {"mean": 40.0, "p50": 38.0, "p90": 55.0, "p99": 80.0}
    assert "Point 0 of an AIPerf sweep aggregate (concurrency=1), run once; the sweep file records no input_config" in runs[0]["notes"]


def test_an_older_sweep_point_keeps_only_means(sdeval, tmp_path):
    one = export([PROFILING], requests=100, duration=80.0, tokens=20000)
    path = write(tmp_path, sweep([({"phases.profiling.concurrency": 4, "concurrency": 4}, one)], newest=False), "profile_export_aiperf_sweep.json")
    [run] = runs_of(sdeval("import", "aiperf", path, "--arrangement", "target-only"))
    assert run["latency"]["ttft_ms"] == {"mean": 40.0}  # the percentiles were not carried into the sweep file then
    assert run["load"] == {"concurrency": 4, "loop": "closed"}
    assert run["counts"]["emitted_tokens"] == 20000


def test_a_rate_sweep_is_an_open_loop_and_other_parameters_are_named(sdeval, tmp_path):
    one = export([PROFILING])
    path = write(tmp_path, sweep([({"concurrency": 2, "request_rate": 5.0, "isl": 1024}, one)]), "profile_export_aiperf_sweep.json")
    [run] = runs_of(sdeval("import", "aiperf", path, "--arrangement", "target-only"))
    assert run["load"] == {"concurrency": 2, "request_rate": 5.0, "loop": "open"}
    assert "Swept parameters other than the load: isl=1024." in run["notes"]


def test_a_sweep_of_several_trials_a_point_is_refused(sdeval, tmp_path):
    one = export([PROFILING])
    data = sweep([({"concurrency": 1}, one)])
    data["metadata"]["num_trials_per_value"] = 3
    path = write(tmp_path, data, "profile_export_aiperf_sweep.json")
    result = sdeval("import", "aiperf", path, "--arrangement", "target-only")
    assert result.exit_code == 2
    assert result.stderr == (
        f"sdeval: {path}: an AIPerf sweep aggregate whose points are means over 3 trials (AIPerf's confidence aggregation), "
        "not one run's counts; import each trial's own profile_export_aiperf.json instead, one run each\n"
    )


def test_flattened_confidence_keys_are_refused_without_a_trial_count(sdeval, tmp_path):
    data = {
        "aggregation_type": "sweep",
        "metadata": {"sweep_parameters": [{"name": "concurrency", "values": [1]}]},
        "per_combination_metrics": [
            {"parameters": {"concurrency": 1}, "metrics": {"request_throughput_avg": {"mean": 2.0, "std": 0.1, "unit": "requests/sec"}}}
        ],
    }
    path = write(tmp_path, data, "profile_export_aiperf_sweep.json")
    result = sdeval("import", "aiperf", path, "--arrangement", "target-only")
    assert result.exit_code == 2
    assert "means over several trials" in result.stderr


def test_the_sweep_file_is_sniffed_as_aiperf(tmp_path):
    from evaluator.importers import sniff

    for newest in (True, False):
        path = write(tmp_path, sweep([({"concurrency": 1}, export([PROFILING]))], newest=newest), "profile_export_aiperf_sweep.json")
        assert sniff(path) == "aiperf"


# ------------------------------------------- per-request speculation, no scrapes, to established claims

MODEL = "meta-llama/Llama-3.1-8B-Instruct"


def spec_blocks(requests: int, steps: int, drafts: int, accepted: int, hist: dict[str, int]) -> dict:
    """AIPerf 0.13's spec_decode_* metrics of a run whose every request's response carried vLLM's
    metrics.speculative_decoding (spec_decode_metrics.py at 388b4f26), and its pooled histogram."""
    return {
        "spec_decode_acceptance_length": block("ratio", 1 + accepted / steps, count=requests),
        "spec_decode_draft_acceptance_rate": block("%", accepted / drafts * 100, count=requests),
        "spec_decode_steps": block("steps", steps / requests, count=requests, sum=float(steps)),
        "spec_decode_draft_tokens": block("tokens", drafts / requests, count=requests, sum=float(drafts)),
        "spec_decode_accepted_draft_tokens": block("tokens", accepted / requests, count=requests, sum=float(accepted)),
        "total_spec_decode_steps": block("steps", float(steps)),
        "total_draft_tokens": block("tokens", float(drafts)),
        "total_accepted_draft_tokens": block("tokens", float(accepted)),
        "spec_decode_token_weighted_acceptance_length": block("ratio", 1 + accepted / steps),
        "spec_decode_overall_draft_acceptance_rate": block("%", accepted / drafts * 100),
        "pooled_spec_decode_acceptance_histogram": hist,
    }


def test_aiperf_with_per_request_speculation_settles_its_population_and_establishes_claims_without_scrapes(sdeval, tmp_path):
    """The issue's done-when: AIPerf 0.13's output alone, its speculative counts taken from the
    server's per-request metrics (vLLM --per-request-spec-decode-metrics, every request covered), no
    /metrics scrape: the population is the benchmark's own, coverage-gap does not fire, and the
    output-throughput and speedup claims `sdeval claim` writes are established."""
    phase = {"name": "profiling", "type": "concurrency", "exclude_from_results": False, "concurrency": 8, "requests": 400}
    # S = 16,600 steps, K = 3: P = 49,800, A = 34,200 = 2,600 x 1 + 2,600 x 2 + 8,800 x 3; E = A + one bonus a step (16,600) + 400 first tokens
    hist = {"0": 2600, "1": 2600, "2": 2600, "3": 8800}
    assert sum(hist.values()) == 16600 and sum(int(j) * n for j, n in hist.items()) == 34200
    spec = export([phase], requests=400, duration=96.0, tokens=51200, spec=spec_blocks(400, 16600, 49800, 34200, hist))
    base = export([phase], requests=400, duration=150.0, tokens=51200)
    identity = {
        "target": {
            "model": MODEL,
            "revision": "0e9e39f249a16976918f6564b8830bc894c89659",
            "tokenizer": MODEL,
            "tokenizer_revision": "0e9e39f249a16976918f6564b8830bc894c89659",
        },
        "numerics": {"weights": "bf16", "activations": "bf16", "kv_cache": "bf16"},
        "sampling": {"temperature": 0, "top_p": 1, "top_k": 0, "seed": 0, "n": 1},
        "runtime": {"name": "vLLM", "version": "0.32.0", "flags": "--per-request-spec-decode-metrics summary"},
        "hardware": {"accelerator": "NVIDIA H100 SXM5 80GB", "count": 1},
    }
    record = tmp_path / "offer.json"
    record.write_text(
        json.dumps(
            {
                "record_version": "1.1",
                "offer": {"vendor": "Acme Inference Ltd", "offer_id": "ACME-SD-8", "date": "2026-12-01", "claim_text": "Faster chat at 8 users."},
                "configurations": [
                    {
                        "id": "eagle3",
                        **identity,
                        "proposer": {"method": "eagle-3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "revision": "0b1c2d3", "k": 3},
                    },
                    {"id": "target-only", **identity, "proposer": {"method": "none"}},
                ],
                "runs": [],
                "claims": [],
            },
            indent=2,
        )
    )
    for name, data, configuration, extra in (("spec-c8", spec, "eagle3", []), ("base-c8", base, "target-only", ["--arrangement", "target-only"])):
        path = write(tmp_path, data, f"{name}.json")
        done = sdeval("import", "aiperf", path, "--run-id", name, "--configuration", configuration, "--into", record, "--in-place", *extra)
        assert done.exit_code == 0, done.stderr
    data = json.loads(record.read_text())
    runs = {r["id"]: r for r in data["runs"]}
    assert runs["spec-c8"]["counts"] == {
        "verification_steps": 16600,
        "proposed_drafts": 49800,
        "accepted_drafts": 34200,
        "accepted_length_histogram": [2600, 2600, 2600, 8800],
        "emitted_tokens": 51200,
        "population": "benchmark-requests",
        "requests_with_metrics": 400,
        "requests_without_metrics": 0,
        "missing_metrics_as": "excluded",
    }
    assert "population_check" not in runs["spec-c8"]["counts"] and "server_scrapes" not in runs["spec-c8"]["source"]
    for run in data["runs"]:  # the vendor's own quality result, one per run
        run["quality"] = [
            {
                "task": "chat",
                "metric": "exact match",
                "score": 0.91,
                "method": "held-out chat set, greedy",
                "equality_check": "greedy-equality",
                "equality_matched": 400,
                "equality_total": 400,
            }
        ]
        run["workload"]["task"] = "chat"
    record.write_text(json.dumps(data, indent=2))
    validated = sdeval("validate", record, "--format", "json").json()
    assert [f for f in validated["findings"] if f["code"] in ("coverage-gap", "counts-inconsistent")] == []
    for args in (["--kind", "output-throughput"], ["--kind", "speedup", "--baseline", "base-c8"]):
        done = sdeval("claim", record, "--run", "spec-c8", *args, "--in-place")
        assert done.exit_code == 0, done.stderr
    assessed = sdeval("assess", record, "-f", "json").json()
    [entry] = assessed["files"]
    assert [(c["id"], c["value"], c["verdict"]) for c in entry["claims"]] == [
        ("output-throughput-spec-c8", 533.0, "established"),  # 51,200 / 96 s = 533.3
        ("speedup-spec-c8", 1.56, "established"),  # (51,200 / 96) / (51,200 / 150) = 1.5625
    ]
    assert [f["code"] for f in assessed["findings"] if f["severity"] == "error"] == []


# ------------------------------------------------------------- profile_export.jsonl, per request


def record(
    phase: str = "profiling",
    *,
    spec: tuple[int, int, int] | None = None,
    osl: int = 100,
    ttft: float = 40.0,
    itl: float | None = 4.0,
    latency: float = 450.0,
    error: bool = False,
) -> dict:
    """One MetricRecordInfo line: metadata, metrics in display units, error when the request failed."""
    metrics = {
        "time_to_first_token": {"value": ttft, "unit": "ms"},
        "request_latency": {"value": latency, "unit": "ms"},
        "output_sequence_length": {"value": osl, "unit": "tokens"},
        "input_sequence_length": {"value": 512, "unit": "tokens"},
    }
    if itl is not None:
        metrics["inter_token_latency"] = {"value": itl, "unit": "ms"}
    if spec is not None:
        metrics.update(
            spec_decode_steps={"value": spec[0], "unit": "steps"},
            spec_decode_draft_tokens={"value": spec[1], "unit": "tokens"},
            spec_decode_accepted_draft_tokens={"value": spec[2], "unit": "tokens"},
        )
    line = {
        "metadata": {
            "session_num": 0,
            "x_request_id": "r",
            "request_start_ns": 1_790_000_000_000_000_000,
            "request_end_ns": 1_790_000_000_450_000_000,
            "worker_id": "w",
            "record_processor_id": "p",
            "benchmark_phase": phase,
            "was_cancelled": False,
        },
        "metrics": {} if error else metrics,
    }
    if error:
        line["error"] = {"code": 500, "type": "Internal Server Error", "message": "boom"}
    return line


def test_per_request_records_sum_the_covered_requests_and_keep_their_latencies(sdeval, tmp_path):
    lines = [
        record("warmup", spec=(9, 27, 20)),
        record(spec=(40, 120, 70), osl=150),
        record(spec=(30, 90, 60), osl=121, ttft=55.5, latency=700.0),
        record(osl=80),
        record(error=True),
    ]
    path = tmp_path / "profile_export.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    [run] = runs_of(sdeval("import", "aiperf", path))
    assert run["counts"] == {
        "verification_steps": 70,
        "proposed_drafts": 210,
        "accepted_drafts": 130,
        "emitted_tokens": 150 + 121 + 80,
        "population": "benchmark-requests",
        "requests_with_metrics": 2,
        "requests_without_metrics": 1,
        "missing_metrics_as": "excluded",
    }
    assert run["workload"] == {"num_requests": 3}
    assert run["request_latencies"] == {"ttft_ms": [40.0, 55.5, 40.0], "tpot_ms": [4.0, 4.0, 4.0], "e2e_ms": [450.0, 700.0, 450.0]}
    assert "interval" not in run
    assert run["notes"] == (
        "AIPerf's per-request records (profile_export.jsonl): counts summed over the completed requests of its profiling phase; "
        "the records carry no benchmark duration, so the interval (and the load) are in profile_export_aiperf.json beside it. "
        "1 of 3 requests carried no per-request speculative record (spec decode off, no verification step, or the server reported none) "
        "and are not in S, P and A. 1 errored request (records with an error) is not in the counts. 1 record of the warm-up phase left out."
    )


def test_per_request_records_without_an_itl_for_every_request_keep_no_tpot_list(sdeval, tmp_path):
    path = tmp_path / "profile_export.jsonl"
    path.write_text(json.dumps(record(osl=1, itl=None)) + "\n" + json.dumps(record()) + "\n")
    [run] = runs_of(sdeval("import", "aiperf", path, "--arrangement", "target-only"))
    assert run["request_latencies"] == {"ttft_ms": [40.0, 40.0], "e2e_ms": [450.0, 450.0]}
    assert "Not every request has inter_token_latency (a one-token response has no inter_token_latency), so that list is not kept." in run["notes"]


def test_a_bad_per_request_record_is_named_by_line(sdeval, tmp_path):
    bad = record(spec=(4, 12, 7))
    bad["metrics"]["spec_decode_steps"]["value"] = 2.5
    path = tmp_path / "profile_export.jsonl"
    path.write_text(json.dumps(record()) + "\n" + json.dumps(bad) + "\n")
    result = sdeval("import", "aiperf", path)
    assert result.exit_code == 2
    assert result.stderr == f"sdeval: {path}: line 2: metrics.spec_decode_steps.value 2.5 is not a count\n"


def test_the_records_file_is_sniffed_as_aiperf(tmp_path):
    from evaluator.importers import sniff

    path = tmp_path / "profile_export.jsonl"
    path.write_text(json.dumps(record()) + "\n")
    assert sniff(path) == "aiperf"
