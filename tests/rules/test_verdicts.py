"""Verdicts on what published claims actually say (issue 13): the interval rules tell "stated as
excluded" from "not stated" from "covered by the interval's own definition", counts-missing names
every figure a claim lacks, and every error finding becomes a request to the vendor."""

from __future__ import annotations

import json

import jsonpatch
import pytest
from conftest import EXAMPLES, example
from support.rule_cases import RULE_CASES

from evaluator.engine.loader import load_bytes, load_file
from evaluator.rules import REGISTRY
from evaluator.rules.assess import assess
from evaluator.rules.registry import Rule, register


def assessed(base: str, patch: list[dict]):
    data = jsonpatch.apply_patch(load_file(str(EXAMPLES / base)).data, patch)
    return assess(load_bytes("offer.json", json.dumps(data).encode()))


def messages(result, code: str) -> list[tuple[str, str]]:
    return [(f.pointer, f.message) for f in result.findings if f.code == code]


# ------------------------------------------------------------------ 1: end-to-end covers every stage


def test_an_end_to_end_interval_holds_every_stage_without_listing_them():
    result = assessed(
        "sd201-offer-b.json",
        [
            {"op": "remove", "path": "/runs/0/interval/stages_included"},
            {"op": "remove", "path": "/runs/0/interval/stages_excluded"},
            {"op": "replace", "path": "/runs/0/interval/scope", "value": "end-to-end"},
            {"op": "replace", "path": "/claims/0/scope", "value": "end-to-end"},
        ],
    )
    assert messages(result, "interval-incomplete") == []
    assert result.claims[0].verdict == "established"


def test_a_stage_stated_as_excluded_is_left_out_even_end_to_end():
    result = assessed(
        "sd201-offer-b.json",
        [
            {"op": "replace", "path": "/runs/0/interval/stages_included", "value": []},
            {"op": "replace", "path": "/runs/0/interval/stages_excluded", "value": ["proposal"]},
            {"op": "replace", "path": "/runs/0/interval/scope", "value": "end-to-end"},
        ],
    )
    assert messages(result, "interval-incomplete") == [("/runs/0/interval/stages_excluded", "run offer-b's interval leaves out proposal")]


# ------------------------------------------------------------------ 2: not listed is not left out

HARNESS = [{"op": "replace", "path": "/runs/0/interval/stages_included", "value": ["proposal", "verification", "sampling"]}]


def test_a_stage_not_listed_is_reported_as_not_stated_not_as_left_out():
    result = assessed("sd201-offer-b.json", HARNESS)
    assert messages(result, "interval-incomplete") == [
        ("/runs/0/interval/stages_included", "run offer-b's interval does not say whether it includes scheduling")
    ]


def test_a_clock_around_the_whole_generation_call_covers_scheduling():
    result = assessed("sd201-offer-b.json", [*HARNESS, {"op": "add", "path": "/runs/0/interval/whole_generation_call", "value": True}])
    assert messages(result, "interval-incomplete") == []
    assert result.outcome == "established"


def test_excluded_and_unstated_stages_are_two_findings_each_in_its_own_words():
    result = assessed(
        "sd201-offer-b.json",
        [
            {"op": "replace", "path": "/runs/0/interval/stages_included", "value": ["verification"]},
            {"op": "add", "path": "/runs/0/interval/stages_excluded/-", "value": "proposal"},
            {"op": "add", "path": "/configurations/0/proposer/device", "value": "a separate GPU"},
        ],
    )
    assert messages(result, "interval-incomplete") == [  # in file order: stages_included comes first
        ("/runs/0/interval/stages_included", "run offer-b's interval does not say whether it includes scheduling"),
        ("/runs/0/interval/stages_excluded", "run offer-b's interval leaves out proposal (the proposer runs on a separate GPU)"),
    ]


# ------------------------------------------------------------------ 3: every missing figure named

NO_BASELINE_NO_COUNTS = [
    {"op": "replace", "path": "/claims/0/counted", "value": "emitted-output"},
    {"op": "remove", "path": "/claims/0/baseline"},
    {"op": "remove", "path": "/runs/0/counts/emitted_tokens"},
    {"op": "remove", "path": "/runs/0/interval/duration_s"},
]


def test_a_speedup_with_neither_baseline_nor_counts_names_the_missing_counts_too():
    result = assessed("acceptance-only.json", NO_BASELINE_NO_COUNTS)
    assert messages(result, "baseline-missing") == [("/claims/0/baseline", "the claimed speedup (3x) names no baseline run to compare with")]
    assert messages(result, "counts-missing") == [
        (
            "/runs/0/counts",
            "output-throughput speedup against the baseline cannot be computed for the claimed 3x: run spec lacks emitted_tokens, duration_s",
        )
    ]


def test_each_run_of_a_speedup_is_named_with_what_it_lacks():
    result = assessed(
        "complete-offer.yaml",
        [
            {"op": "remove", "path": "/runs/1/counts/emitted_tokens"},
            {"op": "remove", "path": "/runs/0/interval/duration_s"},
        ],
    )
    prefix = "output-throughput speedup against the baseline cannot be computed for the claimed 2.19x: "
    assert messages(result, "counts-missing") == [
        ("/runs/0/interval/duration_s", prefix + "baseline target-only-c1 lacks duration_s"),
        ("/runs/1/counts", prefix + "run eagle3-c1 lacks emitted_tokens"),
    ]


# ------------------------------------------------------------------ record 1.1


def test_a_range_and_a_bound_read_as_the_vendor_wrote_them():
    result = assessed(
        "acceptance-only.json",
        [
            {"op": "replace", "path": "/claims/0/value", "value": 2.2},
            {"op": "add", "path": "/claims/0/value_high", "value": 3.6},
            {"op": "remove", "path": "/claims/0/baseline"},
            {"op": "remove", "path": "/claims/0/concurrency"},
        ],
    )
    assert messages(result, "load-unstated") == [("/claims/0/concurrency", "the claimed 2.2-3.6x states no concurrency or request rate")]
    assert messages(result, "baseline-missing") == [("/claims/0/baseline", "the claimed speedup (2.2-3.6x) names no baseline run to compare with")]
    assert (result.claims[0].stated, result.claims[0].value, result.claims[0].value_high) == ("2.2-3.6x", 2.2, 3.6)
    upto = assessed(
        "sd201-offer-b.json", [{"op": "replace", "path": "/claims/0/value", "value": 280}, {"op": "add", "path": "/claims/0/bound", "value": "up-to"}]
    )
    assert messages(upto, "claim-mismatch") == [
        ("/claims/0/value", "the claimed up to 280 tokens/s does not match the evidence: emitted output tokens/s (E / T) is 200 tokens/s")
    ]


def test_per_user_throughput_is_its_own_figure():
    result = assessed(
        "sd201-offer-b.json",
        [
            {
                "op": "add",
                "path": "/runs/0/per_user_throughput",
                "value": {"tokens_per_s": 274.7188, "definition": "trtllm-bench Per User Output Throughput"},
            },
            {"op": "replace", "path": "/claims/0/counted", "value": "per-user-output"},
            {"op": "replace", "path": "/claims/0/value", "value": 250},
            {"op": "add", "path": "/claims/0/bound", "value": "at-least"},
        ],
    )
    assert result.outcome == "established"
    assert result.claims[0].computed == {"figure": "per-user output tokens/s (as stated for the run)", "value": 274.7188, "unit": "tokens/s"}


def test_a_response_time_speedup_is_the_baselines_latency_over_the_runs():
    result = assessed(
        "complete-offer.yaml",
        [
            {"op": "replace", "path": "/claims/2/counted", "value": "response-time"},
            {"op": "add", "path": "/claims/2/latency_metric", "value": "tpot"},
            {"op": "add", "path": "/claims/2/percentile", "value": "p99"},
        ],
    )
    record = result.record
    ours, theirs = record.runs[5].latency.tpot_ms.p99, record.runs[4].latency.tpot_ms.p99
    assert result.claims[2].computed["value"] == theirs / ours


def test_sampling_n_is_required_only_where_per_request_counts_need_it():
    coverage_stated = assessed("sd201-offer-b.json", [{"op": "remove", "path": "/configurations/0/sampling/n"}])
    assert messages(coverage_stated, "identity-incomplete") == []
    coverage_unknown = assessed(
        "sd201-offer-b.json",
        [
            {"op": "remove", "path": "/configurations/0/sampling/n"},
            {"op": "remove", "path": "/runs/0/counts/requests_without_metrics"},
            {"op": "remove", "path": "/runs/0/load/multi_sequence_share"},
        ],
    )
    assert messages(coverage_unknown, "identity-incomplete") == [
        ("/configurations/0/sampling/n", "configuration sd201-offer does not state sampling.n")
    ]


def test_a_one_point_zero_record_still_loads():
    data = load_file(str(example("sd201-offer-b.json"))).data
    assert data["record_version"] == "1.0"
    assert assess(load_bytes("old.json", json.dumps(data).encode())).outcome == "established"


def test_an_undated_offer_says_so(sdeval, tmp_path):
    data = load_file(str(example("sd201-offer-b.json"))).data
    del data["offer"]["date"]
    path = tmp_path / "undated.json"
    path.write_text(json.dumps({**data, "record_version": "1.1"}))
    result = sdeval("assess", path)
    assert result.exit_code == 0
    assert "  offer: SD-201 Offer B (fictional), SD-201-B, date not stated" in result.stdout


# ------------------------------------------------------------------ simulated acceptance

SIMULATED = {
    "vllm": (
        "flags",
        'vllm serve T --speculative-config \'{"method": "eagle3", "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 3.2}\'',
        "rejection_sample_method=synthetic, synthetic_acceptance_length=3.2",
    ),
    "sglang": ("environment", "SGLANG_SIMULATE_ACC_LEN=2.4 SGLANG_SIMULATE_ACC_METHOD=match-expected", "SGLANG_SIMULATE_ACC_LEN=2.4"),
    "tensorrt-llm": ("environment", "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS: '1.78'", "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=1.78"),
}


@pytest.mark.parametrize("engine", sorted(SIMULATED))
def test_forced_acceptance_is_found_in_the_recorded_command_or_environment(engine):
    field, text, setting = SIMULATED[engine]
    result = assessed("sd201-offer-b.json", [{"op": "add", "path": f"/configurations/0/runtime/{field}", "value": text}])
    words = "server command" if field == "flags" else "environment"
    assert messages(result, "acceptance-simulated") == [
        (
            f"/configurations/0/runtime/{field}",
            f"configuration sd201-offer's {words} sets {setting}: acceptance was forced by the benchmark, "
            "not decided by the target model, so its runs say nothing about real traffic",
        )
    ]
    assert result.claims[0].verdict == "not-established"
    [ask] = [a for a in result.asks if a.code == "acceptance-simulated"]
    assert (
        ask.text
        == f"Please send the runs of configuration sd201-offer again with acceptance decided by the target model on real drafts, without {setting}."
    )
    assert ask.claims == ("b-200",)


def test_forced_acceptance_on_a_run_names_the_run():
    result = assessed(
        "sd201-offer-b.json",
        [
            {"op": "add", "path": "/runs/0/simulated_acceptance", "value": {"mechanism": "SGLANG_SIMULATE_ACC_LEN=3", "acceptance_length": 3}},
        ],
    )
    assert messages(result, "acceptance-simulated") == [
        (
            "/runs/0/simulated_acceptance",
            "run offer-b's acceptance was forced (SGLANG_SIMULATE_ACC_LEN=3, acceptance length 3), not measured on real drafts, "
            "so the run says nothing about what real traffic gets",
        )
    ]


# ------------------------------------------------------------------ asks


@pytest.mark.parametrize("code", sorted(REGISTRY))
def test_every_error_code_has_an_ask(code):
    rule = REGISTRY[code]
    if rule.severity == "error":
        assert rule.ask.startswith("Please "), f"{code} has no ask template"
        assert rule.ask.endswith("."), "an ask is a whole sentence"


def test_an_ask_the_page_could_not_fill_is_refused():
    with pytest.raises(ValueError, match="its ask may use only {name} placeholders"):
        register(Rule("made-up-ask", "error", "t", "r", "f", "p", "ref", ask="Please send {run.id}."))
    assert "made-up-ask" not in REGISTRY


def test_one_ask_per_offer_lists_every_claim_it_concerns():
    result = assessed("complete-offer.yaml", [{"op": "remove", "path": "/runs/5/quality"}])
    quality = [a for a in result.asks if a.code == "quality-missing"]
    assert [(a.text, a.claims) for a in quality] == [
        (
            "Please send a task-quality result for run eagle3-c64's outputs: a score on the task the claim is about, "
            "or a greedy-equality check against target-only outputs.",
            ("speedup-c64", "throughput-c64", "tpot-c64"),
        )
    ]


def test_every_error_finding_of_every_rule_case_gets_a_filled_ask():
    for case in RULE_CASES:
        if "raw" in case:
            result = assess(load_bytes("raw.json", case["raw"].encode()))
        else:
            data = jsonpatch.apply_patch(load_file(str(EXAMPLES / case["base"])).data, case.get("patch", []))
            result = assess(load_bytes("case.json", json.dumps(data).encode()))
        errors = [f for f in result.findings if f.severity == "error"]
        assert all(f.ask and "{" not in f.ask for f in errors), case["name"]
        assert {f.code for f in errors} == {a.code for a in result.asks}, case["name"]


# The shipped examples' asks, exactly as `sdeval assess -f json` gives them.
EXAMPLE_ASKS = {
    "sd201-offer-a.json": [
        {
            "code": "throughput-basis",
            "text": "Please restate the claimed 200 tokens/s in emitted output tokens (what users receive) per second of run "
            "offer-a's measured interval, not in proposed drafts.",
            "claims": ["a-200"],
        }
    ],
    "sd201-offer-b.json": [],
    "acceptance-only.json": [
        {
            "code": "acceptance-only",
            "text": "Please restate the claimed 3x as an output-throughput speedup against a target-only baseline measured over a "
            "complete interval (run spec's counts give 1.67x); a mean acceptance length contains no time.",
            "claims": ["three-x"],
        }
    ],
    "unstated-load.json": [  # in the order of the findings, which follow the file: runs before claims
        {"code": "load-unstated", "text": "Please state the concurrency or request rate run spec was measured at.", "claims": ["speedup"]},
        {
            "code": "load-unstated",
            "text": "Please state the concurrency or request rate baseline run target-only was measured at.",
            "claims": ["speedup"],
        },
        {"code": "load-unstated", "text": "Please state the concurrency or request rate the claimed 1.67x was measured at.", "claims": ["speedup"]},
    ],
    "vllm-docs-ngram.json": [],
    "complete-offer.yaml": [],
    "quiet-load-offer.yaml": [],
}


@pytest.mark.parametrize("name", sorted(EXAMPLE_ASKS))
def test_the_shipped_examples_asks(sdeval, name):
    [entry] = sdeval("assess", "--format", "json", example(name)).json()["files"]
    assert entry["asks"] == EXAMPLE_ASKS[name]


def test_the_text_report_ends_with_what_to_ask_the_vendor(sdeval):
    out = sdeval("assess", example("unstated-load.json")).stdout
    assert out.endswith(
        "  What to ask the vendor:\n"
        "    1. Please state the concurrency or request rate run spec was measured at. (claim speedup; load-unstated)\n"
        "    2. Please state the concurrency or request rate baseline run target-only was measured at. (claim speedup; load-unstated)\n"
        "    3. Please state the concurrency or request rate the claimed 1.67x was measured at. (claim speedup; load-unstated)\n"
        "\n"
    )


def test_a_schema_error_asks_for_the_field_to_be_corrected(sdeval, tmp_path):
    data = load_file(str(example("sd201-offer-b.json"))).data
    data["runs"][0]["counts"]["accepted_drafts"] = -3
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    [entry] = sdeval("validate", "--format", "json", path).json()["files"]
    assert entry["asks"] == [
        {
            "code": "schema",
            "text": "Please correct the evidence record at /runs/0/counts/accepted_drafts: must be at least 0 (got -3).",
            "claims": [],
        }
    ]


# Every field record 1.1 added, by model and name.
ADDED_FIELDS = [
    ("Offer", "date"),
    ("Proposer", "method_name"),
    ("Proposer", "simulated_acceptance"),
    ("Runtime", "environment"),
    ("Interval", "whole_generation_call"),
    ("RepetitionSummary", "count"),
    ("RepetitionSummary", "statistic"),
    ("PerUserThroughput", "tokens_per_s"),
    ("PerUserThroughput", "statistic"),
    ("PerUserThroughput", "definition"),
    ("Run", "repetition_summary"),
    ("Run", "per_user_throughput"),
    ("Run", "simulated_acceptance"),
    ("SimulatedAcceptance", "mechanism"),
    ("SimulatedAcceptance", "acceptance_length"),
    ("Claim", "value_high"),
    ("Claim", "bound"),
    ("Run", "request_latencies"),
    ("Run", "goodput"),
    ("RequestLatencies", "ttft_ms"),
    ("RequestLatencies", "tpot_ms"),
    ("RequestLatencies", "e2e_ms"),
    ("ToolGoodput", "requests_per_s"),
    ("ToolGoodput", "ttft_limit_ms"),
    ("ToolGoodput", "tpot_limit_ms"),
    ("ToolGoodput", "e2e_limit_ms"),
    ("ToolGoodput", "definition"),
]


def test_every_added_field_is_explained_in_the_blank_form(sdeval):
    import re

    from evaluator.engine import record

    words = " ".join(line.strip().lstrip("#-").strip() for line in sdeval("init").stdout.splitlines() if line.strip().startswith("#"))
    words = re.sub(r"\s+", " ", words)
    for model, name in ADDED_FIELDS:
        description = getattr(record, model).model_fields[name].description
        assert len(description) >= 40, f"{model}.{name}: a description a buyer can read"
        assert " ".join(description.split()) in words, f"{model}.{name} is not explained in `sdeval init`"
