"""Matching a claim's key to constructed rows: same key, partial (each differing field named),
unpublished fields, matched interactivity by the step function, and no comparison across keys."""

from __future__ import annotations

import json

import pytest
from conftest import EXAMPLES
from support.reference_rows import inferencex_row, references_file

from evaluator.engine.loader import load_file
from evaluator.pipeline import reassess

RECORD = EXAMPLES / "public-claims" / "trt-deepseek-r1-250-tps-per-user.yaml"


def row(**changes) -> dict:
    return inferencex_row(**changes)


def references(*rows: dict) -> bytes:
    return references_file(list(rows))


def record(**claim_changes) -> dict:
    data = load_file(str(RECORD)).data
    data["runs"][0]["workload"].update(input_tokens_mean=1024, output_tokens_mean=2048)
    data["claims"][0].update(claim_changes)
    return data


def compared(data: dict, *rows: dict) -> dict:
    assessed = reassess([("offer.json", json.dumps(data).encode())], None, [("refs.json", references(*rows))])
    (claim,) = assessed.document["references"]["claims"]
    return claim


def test_a_row_at_the_same_key_is_compared_with_its_ratio():
    c = compared(record(), row())
    assert c["outcome"] == "exceeds-every"
    (r,) = c["rows"]
    assert (r["match"], r["differs"], r["ratio"]) == ("same-key", [], 1.25)
    assert r["figure"] == {"value": 200.0, "unit": "tokens/s per user", "definition": "median_intvty (1 / median TPOT)"}
    assert r["unpublished"] == ["K", "acceptance (pinned or real)"]
    assert c["key"] == {
        "model": "deepseek-r1",
        "accelerator": "b200",
        "accelerators": 8,
        "precision": "fp4",
        "framework": "trt",
        "spec_method": "mtp",
        "k": 3,
        "acceptance": "real",
        "workload": "1024/2048 tokens",
        "load": "concurrency 1",
    }


def test_within_two_percent_is_not_above():
    assert compared(record(), row(metrics={"median_intvty": 245.2})).get("outcome") == "within"  # 250 / 245.2 = 1.0196
    assert compared(record(), row(metrics={"median_intvty": 245.0})).get("outcome") == "exceeds-every"  # 1.0204


def test_one_higher_row_at_the_key_is_enough():
    assert compared(record(), row(), row(metrics={"median_intvty": 300.0})).get("outcome") == "within"


@pytest.mark.parametrize(
    ("change", "difference"),
    [
        ({"precision": "fp8"}, "precision: fp4 in the record, fp8 in the row"),
        ({"framework": "sglang"}, "framework: trt in the record, sglang in the row"),
        ({"framework": "dynamo-trt"}, "framework: trt in the record, dynamo-trt in the row"),
        ({"spec_method": "none"}, "speculative method: mtp in the record, none in the row"),
        ({"num_decode_gpu": 4, "num_prefill_gpu": 4}, "accelerator count: 8 in the record, 4 in the row"),
        ({"conc": 4}, "load: concurrency 1 in the record, concurrency 4 in the row"),
        ({"isl": 8192, "osl": 1024}, "input/output lengths or dataset: 1024/2048 tokens in the record, 8192/1024 tokens in the row"),
    ],
)
def test_a_partial_match_names_the_field_that_differs(change, difference):
    c = compared(record(), row(**change))
    assert c["outcome"] == "no-row-at-key"
    (r,) = c["rows"]
    assert (r["match"], r["differs"]) == ("partial", [difference])
    assert r["ratio"] is not None  # shown for context, marked partial


def test_lengths_within_five_percent_are_the_same_workload():
    assert compared(record(), row(isl=1000, osl=2000))["outcome"] == "exceeds-every"
    assert compared(record(), row(isl=900, osl=2048))["outcome"] == "no-row-at-key"


def test_a_field_the_record_does_not_state_is_a_difference():
    data = record()
    del data["configurations"][0]["numerics"]
    (r,) = compared(data, row())["rows"]
    assert r["differs"] == ["precision: not stated in the record, fp4 in the row"]


def test_other_models_and_accelerators_are_not_shown():
    c = compared(record(), row(model="gptoss"), row(hardware="h200"), row(hardware="gb200"))
    assert (c["outcome"], c["rows"]) == ("no-row-at-key", [])


def test_partial_rows_shown_are_the_closest_three():
    rows = [row(conc=4), row(conc=4, precision="fp8"), row(conc=8), row(conc=4, precision="fp8", framework="sglang"), row(conc=16)]
    c = compared(record(), *rows)
    assert [len(r["differs"]) for r in c["rows"]] == [1, 1, 1]
    assert [r["key"]["concurrency"] for r in c["rows"]] == [4, 8, 16]


def test_per_accelerator_claim_uses_the_per_accelerator_figure_of_a_disaggregated_row():
    data = record(unit="tokens/s per accelerator", counted="emitted-output", throughput_per="accelerator", value=30)
    data["record_version"] = "1.2"
    disagg = row(disagg=True, num_prefill_gpu=2, num_decode_gpu=6, metrics={"output_tput_per_gpu": 40.0, "median_intvty": 100.0})
    (r,) = compared(data, disagg)["rows"]
    # 40 per decode accelerator x 6 decode / 8 accelerators in all = 30 per accelerator of the deployment.
    assert r["figure"]["value"] == 30.0 and r["ratio"] == 1.0 and r["match"] == "same-key"


def test_matched_interactivity_takes_the_best_row_at_least_that_fast_per_user():
    data = record(
        unit="tokens/s per accelerator", counted="emitted-output", throughput_per="accelerator", value=100, at_per_user_speed=50, concurrency=None
    )
    data["record_version"] = "1.2"
    rows = [
        row(conc=8, metrics={"median_intvty": 80.0, "output_tput_per_gpu": 60.0}),
        row(conc=32, metrics={"median_intvty": 52.0, "output_tput_per_gpu": 90.0}),
        row(conc=64, metrics={"median_intvty": 49.9, "output_tput_per_gpu": 150.0}),  # too slow per user: never read off a line
    ]
    c = compared(data, *rows)
    (r,) = c["rows"]
    assert (r["key"]["concurrency"], r["figure"]["value"], r["match"]) == (32, 90.0, "same-key")
    assert c["key"]["load"] == "at least 50 tokens/s per user" and c["outcome"] == "exceeds-every"


def test_matched_throughput_per_accelerator_takes_the_fastest_row_per_user_at_least_that_busy():
    # Record 1.3: "200 tokens/s per user at 50 output tokens/s per GPU or more" is read off the rows by
    # the step function its own runs are read with; the concurrency is not the load of such a claim.
    data = record(unit="tokens/s per user", counted="per-user-output", value=100, at_accelerator_throughput=50, concurrency=None)
    data["record_version"] = "1.3"
    rows = [
        row(conc=4, metrics={"median_intvty": 120.0, "output_tput_per_gpu": 49.9}),  # not busy enough: never read off a line
        row(conc=8, metrics={"median_intvty": 90.0, "output_tput_per_gpu": 60.0}),
        row(conc=32, metrics={"median_intvty": 40.0, "output_tput_per_gpu": 150.0}),
    ]
    c = compared(data, *rows)
    (r,) = c["rows"]
    assert (r["key"]["concurrency"], r["figure"]["value"], r["match"]) == (8, 90.0, "same-key")
    assert c["key"]["load"] == "at least 50 output tokens/s per accelerator"
    assert c["outcome"] == "exceeds-every" and r["ratio"] == pytest.approx(100 / 90)


def test_claims_that_are_not_output_throughput_are_not_compared():
    data = load_file(str(EXAMPLES / "public-claims" / "trt-deepseek-r1-mtp-2.16x.yaml")).data
    assessed = reassess([("offer.json", json.dumps(data).encode())], None, [("refs.json", references(row()))])
    claims = assessed.document["references"]["claims"]
    assert {c["outcome"] for c in claims} == {"not-compared"}
    assert claims[0]["not_compared"] == "a speedup claim; independent rows are compared with output-throughput claims only"
    assert not [f for f in assessed.document["findings"] if f["code"] in ("claim-above-independent-results", "no-independent-result-at-key")]


def test_the_warning_names_the_rows_and_leaves_the_verdict():
    data = record()
    before = reassess([("offer.json", json.dumps(data).encode())]).document
    after = reassess([("offer.json", json.dumps(data).encode())], None, [("refs.json", references(row()))]).document
    (warning,) = [f for f in after["findings"] if f["code"] == "claim-above-independent-results"]
    assert warning["severity"] == "warning" and warning["path"] == "/claims/0" and warning["claim"] == "over-250-per-user"
    assert "refs.json row inferencex/0 200 tokens/s per user (1.25x)" in warning["message"]
    assert [c["verdict"] for c in after["files"][0]["claims"]] == [c["verdict"] for c in before["files"][0]["claims"]]
    assert "references" not in before
