"""Record 1.2, what a run or configuration states (issue 27, points 1, 5 and 7): acceptance pinned to a
named reference, a baseline that is the speculative server with drafting off per request, parallel
sizes / MoE kernels / clocks compared by baseline-mismatch, and the MLPerf Endpoints definitions
(TTFT, warm-up, salting), each as the buyer reads it in the findings and asks."""

from __future__ import annotations

import json

import jsonpatch
from conftest import EXAMPLES

from evaluator.buyer.evidence import run_problems
from evaluator.engine.loader import load_bytes, load_file
from evaluator.rules.assess import assess

V12 = {"op": "replace", "path": "/record_version", "value": "1.2"}
GOLDEN = {
    "name": "InferenceX golden_al_distribution",
    "source": "https://github.com/SemiAnalysisAI/InferenceX/blob/4b2d885b44d6ff13dfa9667cabf94db166c84c58/golden_al_distribution/qwen3.8_mtp.yaml",
    "model": "qwen3.8-27b",
    "mode": "thinking",
    "k": 4,
    "acceptance_length": 3,
}
PINNED = {"mechanism": "SGLANG_SIMULATE_ACC_LEN=3", "acceptance_length": 3, "pinned_to": GOLDEN}
SHOWN = "acceptance length 3 (InferenceX golden_al_distribution, model qwen3.8-27b, thinking, K = 4)"


def assessed(base: str, patch: list[dict]):
    data = jsonpatch.apply_patch(load_file(str(EXAMPLES / base)).data, [V12, *patch])
    return assess(load_bytes("offer.json", json.dumps(data).encode()))


def found(result, code: str) -> list[tuple[str, str]]:
    return [(f.pointer, f.message) for f in result.findings if f.code == code]


def ask(result, code: str) -> str:
    [a] = [a for a in result.asks if a.code == code]
    return a.text


# ------------------------------------------------------------------ 1: pinned acceptance


def test_a_throughput_claim_at_the_pinned_acceptance_is_established_and_says_at_which():
    result = assessed(
        "sd201-offer-b.json",
        [{"op": "add", "path": "/runs/0/simulated_acceptance", "value": PINNED}, {"op": "add", "path": "/claims/0/at_pinned_acceptance", "value": 3}],
    )
    assert result.claims[0].verdict == "established"
    assert found(result, "acceptance-simulated") == []
    assert found(result, "acceptance-pinned") == [
        (
            "/claims/0/at_pinned_acceptance",
            f"claim b-200 holds at pinned {SHOWN}, the acceptance run offer-b was forced to: "
            "it says what the system delivers at that acceptance, not what real traffic gets with this drafter",
        )
    ]


def test_a_throughput_claim_that_does_not_state_the_pinning_is_refused_and_asked_to_state_it():
    result = assessed("sd201-offer-b.json", [{"op": "add", "path": "/runs/0/simulated_acceptance", "value": PINNED}])
    assert result.claims[0].verdict == "not-established"
    assert found(result, "acceptance-simulated") == [
        (
            "/claims/0/run",
            f"claim b-200 rests on run offer-b, whose acceptance was pinned to {SHOWN}, but does not say it holds only at that "
            "pinned acceptance (at_pinned_acceptance), so it reads as what real traffic gets",
        )
    ]
    assert ask(result, "acceptance-simulated") == (
        "Please send run offer-b again with acceptance decided by the target model on real drafts, without SGLANG_SIMULATE_ACC_LEN=3, "
        "or state that claim b-200 holds only at the pinned acceptance length 3."
    )


def test_a_speedup_from_a_pinned_run_stays_refused_because_it_credits_the_drafter():
    pin = {"mechanism": "SGLANG_SIMULATE_ACC_LEN=2.97", "pinned_to": {"name": "InferenceX golden_al_distribution", "k": 3, "acceptance_length": 2.97}}
    result = assessed(
        "complete-offer.yaml",
        [{"op": "add", "path": "/runs/1/simulated_acceptance", "value": pin}, {"op": "add", "path": "/claims/0/at_pinned_acceptance", "value": 2.97}],
    )
    assert result.claims[0].verdict == "not-established"
    assert found(result, "acceptance-simulated") == [
        (
            "/claims/0/run",
            "claim speedup-c1 states a speedup, which credits the drafter's acceptance, but run eagle3-c1's acceptance was pinned to "
            "acceptance length 2.97 (InferenceX golden_al_distribution, K = 3), not decided by the target on the drafter's proposals: "
            "a pinned run says what the system does at that acceptance, nothing about the drafter",
        )
    ]
    assert ask(result, "acceptance-simulated") == (
        "Please send run eagle3-c1 again with acceptance decided by the target model on real drafts, without SGLANG_SIMULATE_ACC_LEN=2.97."
    )
    # The pinning is not the drafter's, so it is not shown as a pinned system figure either.
    assert found(result, "acceptance-pinned") == []


def test_a_claim_at_another_acceptance_than_the_run_was_pinned_to_names_both():
    result = assessed(
        "sd201-offer-b.json",
        [
            {"op": "add", "path": "/runs/0/simulated_acceptance", "value": PINNED},
            {"op": "add", "path": "/claims/0/at_pinned_acceptance", "value": 2.97},
        ],
    )
    detail = f"claim b-200 says it holds at pinned acceptance length 2.97, but run offer-b was pinned to {SHOWN}"
    assert found(result, "acceptance-pin-mismatch") == [("/claims/0/at_pinned_acceptance", detail)]
    assert result.claims[0].verdict == "not-established"
    assert found(result, "acceptance-pinned") == []


def test_tensorrt_llm_forces_its_value_plus_the_targets_own_token():
    def with_env(value: str):
        return assessed(
            "sd201-offer-b.json",
            [
                {"op": "add", "path": "/configurations/0/runtime/environment", "value": f"TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS={value}"},
                {"op": "add", "path": "/runs/0/simulated_acceptance", "value": PINNED},
                {"op": "add", "path": "/claims/0/at_pinned_acceptance", "value": 3},
            ],
        )

    # The golden value minus 1, as InferenceX's README says to set it.
    agreeing = with_env("2")
    assert found(agreeing, "acceptance-pin-mismatch") == []
    assert agreeing.claims[0].verdict == "established"
    assert found(with_env("3"), "acceptance-pin-mismatch") == [
        (
            "/runs/0/simulated_acceptance",
            f"run offer-b was pinned to {SHOWN}, but TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=3 forces acceptance length 4",
        )
    ]


def test_a_pinned_run_never_meets_a_buyers_requirement():
    data = jsonpatch.apply_patch(
        load_file(str(EXAMPLES / "sd201-offer-b.json")).data,
        [
            V12,
            {"op": "add", "path": "/runs/0/simulated_acceptance", "value": PINNED},
            {"op": "add", "path": "/claims/0/at_pinned_acceptance", "value": 3},
        ],
    )
    record = assess(load_bytes("offer.json", json.dumps(data).encode())).record
    assert "acceptance-simulated" in run_problems(record)["offer-b"]


def test_an_unpinned_forced_run_beside_a_pinned_one_is_refused_as_before():
    # The configuration forces acceptance; only one of its runs names the reference it was pinned to.
    result = assessed(
        "complete-offer.yaml",
        [
            {"op": "add", "path": "/configurations/0/runtime/environment", "value": "SGLANG_SIMULATE_ACC_LEN=2.97"},
            {
                "op": "add",
                "path": "/runs/5/simulated_acceptance",
                "value": {"mechanism": "SGLANG_SIMULATE_ACC_LEN=2.97", "pinned_to": {"name": "golden", "acceptance_length": 2.97}},
            },
            {"op": "add", "path": "/claims/4/at_pinned_acceptance", "value": 2.97},
        ],
    )
    verdicts = {c.id: c.verdict for c in result.claims}
    assert verdicts["throughput-c64"] == "established"
    assert verdicts["speedup-c1"] == verdicts["speedup-c8"] == "not-established"
    assert (
        "/runs/1/configuration",
        "configuration eagle3-dynamic-k's environment sets SGLANG_SIMULATE_ACC_LEN=2.97, and run eagle3-c1 states no pinned reference: "
        "acceptance was forced by the benchmark, not decided by the target model, so the run says nothing about real traffic",
    ) in found(result, "acceptance-simulated")


# ------------------------------------------------------------------ 5: baselines and deployment


SAME_SERVER = [
    {"op": "replace", "path": "/runs/0/configuration", "value": "eagle3-dynamic-k"},
    {"op": "add", "path": "/runs/0/drafting_off", "value": "per-request"},
]


def test_drafting_off_per_request_on_the_same_server_is_equal_terms_and_the_output_says_against_what():
    result = assessed("complete-offer.yaml", SAME_SERVER)
    assert result.claims[0].verdict == "established"
    assert found(result, "baseline-mismatch") == found(result, "baseline-missing") == []
    assert found(result, "baseline-same-server") == [
        (
            "/claims/0/baseline",
            "baseline target-only-c1 is run eagle3-c1's own server with drafting switched off per request, not a separate target-only "
            "deployment: the claim holds against that server, which still reserves memory for the drafter; a deployment of the target alone may serve more",
        )
    ]
    assert result.baseline["eagle3-c1"] == "target-only-c1"


def test_a_per_request_baseline_on_another_configuration_is_not_the_same_server():
    result = assessed("complete-offer.yaml", [{"op": "add", "path": "/runs/0/drafting_off", "value": "per-request"}])
    assert found(result, "baseline-mismatch") == [
        (
            "/claims/0/baseline",
            'baseline target-only-c1 is not measured on equal terms with run eagle3-c1: configuration "eagle3-dynamic-k" vs "target-only" '
            "(baseline target-only-c1 says it is the same server with drafting switched off per request)",
        )
    ]


def test_parallel_sizes_differing_or_stated_for_one_side_only_are_named_with_both_values():
    result = assessed(
        "complete-offer.yaml",
        [
            {"op": "add", "path": "/configurations/0/parallelism", "value": {"tensor": 8, "expert": 8}},
            {"op": "add", "path": "/configurations/1/parallelism", "value": {"tensor": 4}},
        ],
    )
    assert found(result, "baseline-mismatch")[0] == (
        "/claims/0/baseline",
        "baseline target-only-c1 is not measured on equal terms with run eagle3-c1: parallelism.tensor 8 vs 4; parallelism.expert 8 vs not stated",
    )
    assert [a.text for a in result.asks if a.code == "baseline-mismatch"][0] == (
        "Please send a baseline run that matches run eagle3-c1 in parallelism.tensor and parallelism.expert; baseline target-only-c1 differs in them."
    )


def test_moe_kernels_clocks_and_power_are_compared():
    result = assessed(
        "complete-offer.yaml",
        [
            {"op": "add", "path": "/configurations/0/runtime/moe_backend", "value": "flashinfer_cutlass"},
            {"op": "add", "path": "/configurations/1/runtime/moe_backend", "value": "marlin"},
            {"op": "add", "path": "/configurations/0/hardware/locked_clock_mhz", "value": 1980},
            {"op": "add", "path": "/configurations/1/hardware/locked_clock_mhz", "value": 1980},
            {"op": "add", "path": "/configurations/0/hardware/power_limit_w", "value": 700},
            {"op": "add", "path": "/configurations/1/hardware/power_limit_w", "value": 500},
        ],
    )
    assert found(result, "baseline-mismatch")[0][1] == (
        'baseline target-only-c1 is not measured on equal terms with run eagle3-c1: runtime.moe_backend "flashinfer_cutlass" vs "marlin"; '
        "hardware.power_limit_w 700.0 vs 500.0"
    )


def test_the_tools_own_parallel_sizes_count_where_the_configuration_states_none():
    def src(tp):
        return {"format": "trtllm-bench", "file": "r.json", "sha256": "0" * 64, "parallelism": {"tensor": tp}}

    differing = assessed(
        "complete-offer.yaml", [{"op": "add", "path": "/runs/1/source", "value": src(8)}, {"op": "add", "path": "/runs/0/source", "value": src(4)}]
    )
    assert found(differing, "baseline-mismatch")[0][1].endswith("parallelism.tensor 8 vs 4")
    # The configuration's own statement wins over the file's.
    stated = assessed(
        "complete-offer.yaml",
        [
            {"op": "add", "path": "/runs/1/source", "value": src(8)},
            {"op": "add", "path": "/runs/0/source", "value": src(4)},
            {"op": "add", "path": "/configurations/0/parallelism", "value": {"tensor": 4}},
        ],
    )
    assert [m for _, m in found(stated, "baseline-mismatch") if "eagle3-c1:" in m] == []


def test_salted_against_unsalted_queries_is_a_different_workload():
    result = assessed(
        "complete-offer.yaml",
        [{"op": "add", "path": "/runs/1/workload/salted", "value": True}, {"op": "add", "path": "/runs/0/workload/salted", "value": False}],
    )
    assert found(result, "baseline-mismatch") == [
        ("/claims/0/baseline", "baseline target-only-c1 is not measured on equal terms with run eagle3-c1: workload.salted true vs false")
    ]


# ------------------------------------------------------------------ 7: MLPerf Endpoints definitions


def test_a_warm_up_counted_into_the_interval_is_named():
    result = assessed("sd201-offer-b.json", [{"op": "add", "path": "/runs/0/interval/warmup", "value": {"requests": 32, "excluded": False}}])
    assert found(result, "interval-warmup") == [
        (
            "/runs/0/interval/warmup/excluded",
            "run offer-b's measured interval counts its warm-up (32 requests), so its throughput and latencies include the server's cold start",
        )
    ]
    assert (
        ask(result, "interval-warmup")
        == "Please send run offer-b measured after its warm-up, with the warm-up requests (32 requests) kept out of the interval and its counts."
    )
    assert result.claims[0].verdict == "not-established"
    kept_out = assessed("sd201-offer-b.json", [{"op": "add", "path": "/runs/0/interval/warmup", "value": {"requests": 32, "excluded": True}}])
    assert kept_out.claims[0].verdict == "established"


def test_the_published_mtp_with_dcp4_claim_is_caught_on_its_parallelism_and_its_mtp_only_twin_is_not(sdeval):
    out = sdeval("validate", "--format", "json", EXAMPLES / "public-claims" / "vllm-pr25049-mtp-dcp4-1.60x.yaml").json()
    mismatches = {f["claim"]: f["message"] for f in out["findings"] if f["code"] == "baseline-mismatch"}
    assert set(mismatches) == {"mtp-dcp4-1.60x"}
    assert mismatches["mtp-dcp4-1.60x"].startswith("baseline tp8 is not measured on equal terms with run tp8-mtp-dcp4: parallelism.context 4 vs 1;")


def test_the_report_chart_draws_a_same_server_baseline_apart_from_the_speculative_line():
    import xml.etree.ElementTree as ET

    from evaluator.present.json_document import document
    from evaluator.present.report_pages import _throughput

    # Every baseline of the complete offer moved onto the speculative configuration, drafting off per request.
    patch = [
        p
        for i in (0, 2, 4, 6)
        for p in (
            {"op": "replace", "path": f"/runs/{i}/configuration", "value": "eagle3-dynamic-k"},
            {"op": "add", "path": f"/runs/{i}/drafting_off", "value": "per-request"},
        )
    ]
    result = assessed("complete-offer.yaml", patch)
    [entry] = document([result])["files"]
    chart = _throughput(result.record, result, {run["run"]: run for run in entry["runs"]})["chart"]
    root = ET.fromstring(str(chart))
    texts = {t.text for t in root.iter("{http://www.w3.org/2000/svg}text")}
    assert {"eagle3-dynamic-k (speculative)", "eagle3-dynamic-k (baseline with drafting off per request)"} <= texts
    assert len(list(root.iter("{http://www.w3.org/2000/svg}polyline"))) == 2


def test_two_runs_of_one_id_only_one_pinned_are_judged_without_a_crash():
    """Found by the property test: the claim names the id, which resolves to the first run (unpinned),
    while the second run of that id is pinned. reference-broken reports the duplicate id; the
    forced runs are refused as forced, and nothing raises."""
    result = assessed(
        "sd201-offer-b.json",
        [
            {"op": "add", "path": "/runs/0/simulated_acceptance", "value": {"mechanism": "SGLANG_SIMULATE_ACC_LEN=3"}},
            {
                "op": "add",
                "path": "/runs/-",
                "value": {**load_file(str(EXAMPLES / "sd201-offer-b.json")).data["runs"][0], "simulated_acceptance": PINNED},
            },
        ],
    )
    assert {f.code for f in result.findings} >= {"reference-broken", "acceptance-simulated"}
    assert result.claims[0].verdict == "not-established"
    assert [p for p, _ in found(result, "acceptance-simulated")] == ["/runs/0/simulated_acceptance"]
