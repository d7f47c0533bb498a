"""Every claim kind judged against its own evidence (figures.CLAIM_FORMULAS), and stated figures
compared within the precision their inputs were written to (metrics.Bounds)."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
import yaml
from conftest import ROOT, example
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.engine.claim_figures import CLAIM_FORMULAS, UNDEFINED, formula
from evaluator.engine.metrics import Bounds, output_rate_bounds
from evaluator.engine.record import Claim
from evaluator.pipeline import reassess

KINDS = Claim.model_fields["kind"].annotation.__args__
COUNTED = Claim.model_fields["counted"].annotation.__args__[0].__args__


def complete(*claims: dict) -> dict:
    data = yaml.safe_load(example("complete-offer.yaml").read_text())
    data["claims"] += list(claims)
    return data


def judged(data: dict, claim_id: str):
    result = reassess([("offer.json", json.dumps(data).encode())]).results[0]
    claim = next(c for c in result.claims if c.id == claim_id)
    return claim, [(f.code, f.message) for f in claim.findings if f.severity == "error"]


RESPONSE_TIME = {
    "id": "faster-responses",
    "text": "5x faster end-to-end responses at 8 concurrent requests",
    "kind": "speedup",
    "value": 5,
    "unit": "x",
    "counted": "response-time",
    "run": "eagle3-c8",
    "baseline": "target-only-c8",
    "concurrency": 8,
    "scope": "end-to-end",
    "task": "customer-support chat",
    "latency_metric": "e2e",
    "percentile": "p50",
}


def test_a_response_time_speedup_of_5x_draws_claim_mismatch_computed_1_89x():
    claim, errors = judged(complete(RESPONSE_TIME), "faster-responses")
    # p50 end-to-end: 14,100 ms target-only against 7,460 ms speculative.
    assert claim.computed == {"figure": "response-time speedup (p50 end-to-end latency, baseline / run)", "value": 14100 / 7460, "unit": "x"}
    assert errors == [
        ("claim-mismatch", "the claimed 5x does not match the evidence: response-time speedup (p50 end-to-end latency, baseline / run) is 1.89x")
    ]


def test_a_response_time_speedup_of_1_89x_is_established():
    claim, errors = judged(complete({**RESPONSE_TIME, "value": 1.89}), "faster-responses")
    assert (claim.verdict, errors) == ("established", [])


def test_without_latency_figures_a_response_time_speedup_draws_counts_missing_naming_them():
    data = complete(RESPONSE_TIME)
    for run in data["runs"]:
        if run["id"] in ("eagle3-c8", "target-only-c8"):
            del run["latency"]["e2e_ms"]
    claim, errors = judged(data, "faster-responses")
    assert claim.verdict == "not-established"
    figure = "response-time speedup (p50 end-to-end latency, baseline / run)"
    assert sorted(errors) == [
        ("counts-missing", f"{figure} cannot be computed for the claimed 5x: baseline target-only-c8 lacks latency.e2e_ms.p50"),
        ("counts-missing", f"{figure} cannot be computed for the claimed 5x: run eagle3-c8 lacks latency.e2e_ms.p50"),
    ]


def test_a_response_time_speedup_must_name_its_latency_and_statistic():
    no_stat = {k: v for k, v in RESPONSE_TIME.items() if k != "percentile"}
    _, errors = judged(complete(no_stat), "faster-responses")
    assert errors == [("counts-missing", "a response-time speedup must say which latency (latency_metric) and which percentile")]


def test_an_unstated_latency_statistic_is_not_established_and_says_which_statistic_is_missing():
    data = complete(
        {
            **RESPONSE_TIME,
            "id": "tpot",
            "kind": "latency",
            "value": 19.8,
            "unit": "ms",
            "baseline": None,
            "latency_metric": "tpot",
            "percentile": "unstated",
        }
    )
    run = next(r for r in data["runs"] if r["id"] == "eagle3-c8")
    run["latency"]["tpot_ms"]["unstated"] = 19.8
    claim, errors = judged(data, "tpot")
    assert claim.verdict == "not-established"
    assert errors == [
        (
            "counts-missing",
            "a latency claim must say which statistic its tpot latency is (mean, median or a "
            "percentile); without it the figure cannot be compared with a limit or a baseline",
        )
    ]


def test_a_kind_and_basis_without_a_formula_is_refused_with_its_own_code():
    claim, errors = judged(complete({**RESPONSE_TIME, "kind": "output-throughput", "unit": "tokens/s"}), "faster-responses")
    assert claim.verdict == "not-established"
    assert errors == [
        (
            "claim-basis-undefined",
            "an output-throughput claim counted as response-time has no formula; an output-throughput claim counts emitted-output, per-user-output or total-tokens",
        )
    ]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("counted", (None, *COUNTED))
def test_every_kind_and_basis_has_a_formula_or_a_refusal(kind, counted):
    """No claim kind is established without being recomputed: each combination is in the table."""
    if kind == "lossless":
        assert formula(kind, counted) is None
        return
    assert formula(kind, counted) == CLAIM_FORMULAS.get((kind, counted), UNDEFINED)
    claim = {
        "id": "c",
        "text": "t",
        "kind": kind,
        "value": 2.0,
        "unit": "x",
        "run": "eagle3-c8",
        "baseline": "target-only-c8",
        "concurrency": 8,
        "scope": "end-to-end",
        "task": "customer-support chat",
        "latency_metric": "e2e",
        "percentile": "p50",
    }
    if counted:
        claim["counted"] = counted
    result, errors = judged(complete(claim), "c")
    refused = formula(kind, counted) == UNDEFINED or "refused" in formula(kind, counted)
    if refused:
        assert result.verdict == "not-established"
    else:
        # A figure is recomputed, or what the record lacks for it is named (per-user figures are
        # stated per run, and the complete offer states none).
        assert result.computed is not None, (kind, counted)
        if result.computed["value"] is None:
            assert "counts-missing" in {code for code, _ in errors}, (kind, counted)


def test_the_documented_formula_table_is_the_catalogs():
    page = (ROOT / "docs" / "claims.md").read_text()
    rows = re.findall(r"^\| `([a-z-]+)` \| (`[a-z-]+`|not stated) \| (.+?) \|$", page, re.M)
    table = {(kind, None if basis == "not stated" else basis.strip("`")): text for kind, basis, text in rows}
    assert table == {
        k: v.replace("claim-basis-undefined", "refused by `claim-basis-undefined`") if v == UNDEFINED else v for k, v in CLAIM_FORMULAS.items()
    }


# ------------------------------------------------------------------------- precision


def test_a_duration_written_0_08_covers_0_075_to_0_085():
    assert Bounds.written(0.08) == Bounds(Fraction(3, 40), Fraction(17, 200))
    # 15 tokens over "0.08 s", a tool reporting 192.31 tokens/s = 15 / 0.078 s: consistent.
    assert output_rate_bounds(15, 0.08).allows(192.31, stated_precision=True)
    assert not output_rate_bounds(15, 0.08).allows(210.0, stated_precision=True)


def _run_with_reported(data: dict, run_id: str, duration: float, reported: float) -> dict:
    run = next(r for r in data["runs"] if r["id"] == run_id)
    run["interval"]["duration_s"] = duration
    run.pop("repetitions", None)
    run["reported"] = {"output_tokens_per_s": reported}
    return data


def test_a_tool_rate_from_the_unrounded_duration_agrees_with_the_rounded_one():
    """A serving project's page: duration printed to 0.01 s, tokens/s from the unrounded one
    (979.24 reported against 979.18 over the rounded duration)."""
    data = yaml.safe_load(example("sd201-offer-b.json").read_text())
    run = data["runs"][0]
    run["counts"] = {"emitted_tokens": 18000, "population": "benchmark-requests"}
    run["interval"]["duration_s"] = 18.38  # printed; the tool divided by 18.3816...
    run["reported"] = {"output_tokens_per_s": 979.24}
    result = reassess([("page.json", json.dumps(data).encode())]).results[0]
    assert "counts-inconsistent" not in {f.code for f in result.findings}
    run["reported"] = {"output_tokens_per_s": 985.0}  # outside [18000 / 18.385, 18000 / 18.375]
    result = reassess([("page.json", json.dumps(data).encode())]).results[0]
    assert [f.message for f in result.findings if f.code == "counts-inconsistent"] == [
        "run offer-b: the reported output tokens per s 985 disagrees with E / T = 979"
    ]


@settings(max_examples=300, deadline=None)
@given(
    tokens=st.integers(min_value=1, max_value=10**7),
    seconds=st.floats(min_value=0.01, max_value=10**5, allow_nan=False, allow_infinity=False),
    shown=st.integers(min_value=0, max_value=4),
    rate_decimals=st.integers(min_value=0, max_value=6),
)
def test_a_figure_from_rounded_inputs_is_never_inconsistent_with_the_unrounded_figure(tokens, seconds, shown, rate_decimals):
    rounded = round(seconds, shown)
    if rounded <= 0:
        return
    reported = round(tokens / seconds, rate_decimals)
    assert output_rate_bounds(tokens, rounded).allows(reported, stated_precision=True)


def test_sdeval_rules_explains_the_formula_table(sdeval):
    out = sdeval("rules", "claim-basis-undefined")
    assert "How each claim kind is recomputed, by what it counts:" in out.stdout
    assert "  speedup            response-time      latency_b / latency, same latency metric and statistic" in out.stdout
    doc = sdeval("rules", "-f", "json").json()
    assert {(f["kind"], f["counted"]) for f in doc["claim_formulas"]} == set(CLAIM_FORMULAS)


def test_a_tools_float_arithmetic_is_not_another_figure():
    """vllm bench serve writes 1 + A / S computed in doubles: 3.0602409638554215 for 1 + 34200 / 16600."""
    exact_length = Bounds.exact(1 + Fraction(34200, 16600))
    assert exact_length.allows(3.0602409638554215, stated_precision=True)
    assert exact_length.allows(3.06, stated_precision=True)
    assert not exact_length.allows(3.07, stated_precision=True)
