"""Record 1.2 claim forms (issue 27): a claim written as a change ("40 % lower p50 TPOT"), a cost per
million output tokens at a stated price, throughput per accelerator, a comparison at matched
interactivity (a step function over each side's sweep), and a value copied from a tool's rounded print.
Figures on exact fractions, as the engine computes them."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
import yaml
from conftest import ROOT, example

from evaluator.engine.claim_figures import CLAIM_FORMS, speedup_of, written_of, written_text
from evaluator.engine.metrics import Bounds
from evaluator.engine.record import Claim
from evaluator.engine.unit_figures import cost_per_million, hourly_price, per_user, servers, tokens_per_s
from evaluator.pipeline import reassess
from evaluator.present.report_pages import report_context


def complete(*claims: dict) -> dict:
    data = yaml.safe_load(example("complete-offer.yaml").read_text())
    data["claims"] += list(claims)
    return data


def judged(data: dict, claim_id: str):
    result = reassess([("offer.json", json.dumps(data).encode())]).results[0]
    claim = next(c for c in result.claims if c.id == claim_id)
    return claim, [(f.code, f.message) for f in claim.findings if f.severity == "error"], result


def claim(**fields) -> Claim:
    return Claim.model_validate({"id": "c", "text": "t", "kind": "speedup", **fields})


# complete-offer.yaml's figures, exactly.
EAGLE_C64 = Fraction(196609) / Fraction("88.324")
TARGET_C64 = Fraction(196608) / Fraction("115.516")
TPOT_C1 = Fraction("25.8") / Fraction("11.6")  # target-only p50 TPOT over eagle3's
C1 = {"run": "eagle3-c1", "baseline": "target-only-c1", "concurrency": 1, "task": "customer-support chat"}
C64 = {"run": "eagle3-c64", "baseline": "target-only-c64", "concurrency": 64, "task": "customer-support chat"}
PRICE = {"currency": "USD", "per_accelerator_hour": 2}
SWEEPS = {"sweep": ["eagle3-c1", "eagle3-c64", "eagle3-c256"], "baseline_sweep": ["target-only-c1", "target-only-c64", "target-only-c256"]}


# ------------------------------------------------------------------ relative figures


@pytest.mark.parametrize(
    ("fields", "written", "speedup"),
    [
        # A latency 40 % lower: latency / latency_b = 0.6, so the speedup latency_b / latency = 1 / 0.6.
        ({"kind": "latency", "relative": "lower", "unit": "%"}, 40, Fraction(5, 3)),
        ({"kind": "speedup", "relative": "higher", "unit": "%"}, 34, Fraction(134, 100)),
        ({"kind": "output-throughput", "relative": "lower", "unit": "%"}, 25, Fraction(3, 4)),
        ({"kind": "latency", "relative": "higher", "unit": "%"}, 25, Fraction(4, 5)),
        # "reduces latency by 1.5-3x": the factor is the speedup.
        ({"kind": "speedup", "counted": "response-time", "relative": "lower", "unit": "x"}, Fraction(3, 2), Fraction(3, 2)),
        ({"kind": "speedup", "relative": "higher", "unit": "x"}, 2, Fraction(2)),
        # 57 % cheaper: cost / cost_b = 0.43.
        ({"kind": "cost", "relative": "lower", "unit": "%", "price": PRICE}, 57, Fraction(100, 43)),
    ],
)
def test_a_relative_figure_is_the_speedup_it_amounts_to(fields, written, speedup):
    c = claim(value=float(written), **fields)
    assert speedup_of(c, Fraction(written)) == speedup
    assert written_of(c, float(speedup)) == pytest.approx(float(written), rel=1e-12)


def test_a_reduction_of_100_percent_or_more_is_no_ratio():
    c = claim(kind="cost", relative="lower", unit="%", value=140, price=PRICE)
    assert speedup_of(c, Fraction(140)) is None
    assert speedup_of(c, Fraction(100)) is None


def test_the_figure_is_shown_in_the_form_the_claim_was_written_in():
    c = claim(kind="latency", relative="lower", unit="%", value=40)
    assert written_text(c, float(TPOT_C1)) == "55.0 % lower"
    # A claimed reduction whose figure is an increase says so.
    assert written_text(c, 0.8) == "25 % higher"  # exact: no invented digits
    assert written_text(claim(kind="cost", relative="lower", unit="%", value=57, price=PRICE), 2.0) == "50 % cheaper"
    assert written_text(claim(relative="higher", unit="x", value=2), 1.9) == "1.9x higher"


def test_a_40_percent_lower_tpot_is_judged_as_its_speedup_and_quoted_as_written():
    data = complete({"id": "tpot", "text": "40 % lower p50 TPOT", "kind": "latency", "relative": "lower", "value": 40, "unit": "%",
                     "latency_metric": "tpot", "percentile": "p50", **C1})  # fmt: skip
    result, errors, assessed = judged(data, "tpot")
    assert result.computed == {
        "figure": "response-time speedup (p50 time per output token, baseline / run)",
        "value": float(TPOT_C1),
        "unit": "x",
        "as_written": "55.0 % lower",
    }
    assert result.stated == "40 % lower"
    assert errors == [
        (
            "claim-mismatch",
            "the claimed 40 % lower does not match the evidence: response-time speedup (p50 time per output token, baseline / run) "
            "is 2.22x, that is 55.0 % lower",
        )
    ]
    # Text, JSON and the PDF's page content quote it as written, with the figure in the same form.
    from evaluator.present.json_document import document
    from evaluator.present.text import render

    text = render([assessed], True)
    assert 'claim tpot (latency): "40 % lower p50 TPOT": NOT ESTABLISHED' in text
    assert "computed: response-time speedup (p50 time per output token, baseline / run) = 2.22x (55.0 % lower)" in text
    entry = next(c for c in document([assessed])["files"][0]["claims"] if c["id"] == "tpot")
    assert (entry["relative"], entry["stated"], entry["computed"]["as_written"]) == ("lower", "40 % lower", "55.0 % lower")
    assessed_all = reassess([("offer.json", json.dumps(data).encode())])
    page = report_context(assessed_all, assessed_all.document, [], assessed_at="2026-12-03T00:00:00Z", signer=None)
    row = next(c for c in page["files"][0]["claims"] if c["id"] == "tpot")
    assert (row["claimed"], row["computed"], row["receives"]) == (
        "40 % lower",
        "response-time speedup (p50 time per output token, baseline / run) = 2.22x (55.0 % lower)",
        "55.0 % lower, 2.22x",
    )


def test_55_percent_lower_holds_and_34_percent_higher_throughput_is_1_34x():
    tpot = {"id": "tpot", "text": "55 % lower p50 TPOT", "kind": "latency", "relative": "lower", "value": 55, "unit": "%",
            "latency_metric": "tpot", "percentile": "p50", **C1}  # fmt: skip
    assert judged(complete(tpot), "tpot")[1] == []
    gain = {"id": "gain", "text": "31 % higher throughput", "kind": "output-throughput", "relative": "higher", "value": 31, "unit": "%", **C64}
    result, errors, _ = judged(complete(gain), "gain")
    assert errors == [] and result.computed["value"] == float(EAGLE_C64 / TARGET_C64)
    gain["value"] = 34  # 1.34x against 1.3079x: more than 2 % apart
    assert [code for code, _ in judged(complete(gain), "gain")[1]] == ["claim-mismatch"]


# ------------------------------------------------------------------------------ cost


def test_cost_per_million_is_the_hours_price_over_the_hours_tokens():
    class Price:
        per_accelerator_hour, per_server_hour, accelerators_per_server = 2.0, 10.0, 8

    assert servers(4, 8) == 1 and servers(12, 8) == 2
    assert hourly_price(Price, 12) == 2 * 12 + 10 * 2
    assert cost_per_million(Fraction(8), EAGLE_C64) == Fraction(8) / (EAGLE_C64 * 3600) * 10**6


def test_a_cost_claim_is_recomputed_at_its_price_and_accelerators():
    cost = {"id": "cost", "text": "0.5 USD per million tokens", "kind": "cost", "value": 0.5, "unit": "USD per 1M tokens", "price": PRICE, **C64}
    cost.pop("baseline")
    result, errors, _ = judged(complete(cost), "cost")
    # 2 USD x 4 accelerators = 8 USD an hour over 2,225.98 tokens/s.
    assert result.computed == {
        "figure": "cost per million output tokens at 2 USD per accelerator-hour",
        "value": float(Fraction(8) / (EAGLE_C64 * 3600) * 10**6),
        "unit": "USD per 1M tokens",
    }
    assert errors == [
        (
            "claim-mismatch",
            "the claimed 0.5 USD per 1M tokens does not match the evidence: cost per million output tokens at 2 USD per accelerator-hour "
            "is 0.998 USD per 1M tokens",
        )
    ]
    cost["value"] = 1.0
    assert judged(complete(cost), "cost")[1] == []


def test_a_cost_with_no_price_is_refused_and_the_vendor_asked_for_the_price():
    cost = {"id": "cost", "text": "$0.91 per million tokens", "kind": "cost", "value": 0.91, "unit": "USD per 1M tokens", **C64}
    result, errors, assessed = judged(complete(cost), "cost")
    assert result.computed is None
    assert errors == [
        (
            "claim-basis-undefined",
            "the claimed cost of 0.91 USD per 1M tokens states no price: a cost per million output tokens is recomputed from the "
            "run's output throughput at a price per accelerator-hour or per server-hour",
        )
    ]
    [ask] = [a.text for a in assessed.asks if a.code == "claim-basis-undefined"]
    assert ask == (
        "Please state the price per accelerator-hour or per server-hour (and its currency) the claimed 0.91 USD per 1M tokens "
        "was computed at, or say what its figure measures."
    )


def test_relative_cost_is_the_baselines_cost_over_the_runs_at_one_price():
    cheaper = {"id": "cheaper", "text": "23 % cheaper", "kind": "cost", "relative": "lower", "value": 23, "unit": "%", "price": PRICE, **C64}
    result, errors, _ = judged(complete(cheaper), "cheaper")
    assert errors == []
    assert result.computed["value"] == float(EAGLE_C64 / TARGET_C64)  # same accelerators: the price cancels
    assert result.computed["as_written"] == "23.5 % cheaper"


def test_a_published_140_percent_cheaper_is_no_reduction_at_all():
    """InferenceX prints "140% cheaper" for a baseline that costs 2.4 times as much (cost_b / cost - 1)."""
    cheaper = {"id": "cheaper", "text": "140 % cheaper", "kind": "cost", "relative": "lower", "value": 140, "unit": "%", "price": PRICE, **C64}
    _, errors, _ = judged(complete(cheaper), "cheaper")
    assert errors == [
        (
            "claim-mismatch",
            "the claimed 140 % cheaper does not match the evidence: cost per million output tokens at 2 USD per accelerator-hour, "
            "the baseline's over the run's is 1.31x, that is 23.5 % cheaper; nothing falls by 100 % or more, so 140 % cheaper is "
            "no reduction at all",
        )
    ]


def test_the_buyer_and_a_cost_claim_share_one_formula():
    """buyer/economics.py computes its costs with the engine's functions, not a copy."""
    from evaluator.buyer import economics
    from evaluator.engine import unit_figures

    assert economics.cost_per_million is unit_figures.cost_per_million
    assert economics.per_user is unit_figures.per_user and economics.tokens_per_s is unit_figures.tokens_per_s
    source = (ROOT / "evaluator" / "buyer" / "economics.py").read_text()
    assert "3600" not in source.split('"""', 2)[2], "the buyer's economics must not compute a cost of its own"


# -------------------------------------------------------------- matched interactivity


def _runs():
    from evaluator.engine.record import EvidenceRecord

    return {r.id: r for r in EvidenceRecord.model_validate(complete()).runs}


def test_per_user_speed_of_a_closed_loop_run_is_its_throughput_over_its_concurrency():
    runs = _runs()
    assert per_user(runs["eagle3-c64"], tokens_per_s(runs["eagle3-c64"])) == (EAGLE_C64 / 64, "E / T / concurrency")


@pytest.mark.parametrize(
    ("speed", "expected"),
    [
        # Per user: eagle3 84.2 / 69.1 / 34.8 / 15.0 (c1, c8, c64, c256); target-only 38.4 / 36.4 / 26.6 / 15.4.
        (35, (Fraction(49152) / Fraction("88.882")) / (Fraction(49152) / Fraction("168.907"))),  # c8 against c8
        (30, EAGLE_C64 / (Fraction(49152) / Fraction("168.907"))),  # c64 against c8: a step, the best point at or above U
        (20, EAGLE_C64 / TARGET_C64),
    ],
)
def test_matched_interactivity_is_a_step_function_over_each_sides_sweep(speed, expected):
    matched = {"id": "m", "text": "t", "kind": "speedup", "value": float(expected), "unit": "x", "throughput_per": "accelerator",
               "at_per_user_speed": speed, "run": "eagle3-c8", "baseline": "target-only-c8", "task": "customer-support chat", **SWEEPS}  # fmt: skip
    result, errors, _ = judged(complete(matched), "m")
    assert result.computed["value"] == float(expected)
    assert errors == []


def test_no_point_of_a_side_at_the_per_user_speed_is_load_extrapolated_never_interpolated():
    matched = {"id": "m", "text": "t", "kind": "speedup", "value": 1.9, "unit": "x", "at_per_user_speed": 40,
               "run": "eagle3-c8", "baseline": "target-only-c8", "task": "customer-support chat", **SWEEPS}  # fmt: skip
    result, errors, _ = judged(complete(matched), "m")
    assert result.computed["value"] is None
    assert errors == [
        (
            "load-extrapolated",
            "the claim is stated at 40 tokens/s per user, but no baseline run reaches it (target-only-c8, target-only-c1, "
            "target-only-c64 and target-only-c256; the fastest, target-only-c1, 38.4 tokens/s per user); a curve is not "
            "extended past its measured points",
        )
    ]


def test_per_accelerator_throughput_divides_by_the_configurations_accelerators():
    data = complete()
    data["claims"][4].update(value=556, throughput_per="accelerator")
    result, errors, _ = judged(data, "throughput-c64")
    assert result.computed == {
        "figure": "emitted output tokens/s per accelerator (E / T / accelerators)",
        "value": float(EAGLE_C64 / 4),
        "unit": "tokens/s",
    }
    assert errors == []


# ------------------------------------------------------------------ printed precision


def test_a_value_copied_from_a_tools_print_agrees_to_its_last_digit_only_when_said():
    data = json.loads(example("sd201-offer-b.json").read_text())
    data["runs"][0]["workload"]["num_requests"] = 50
    data["runs"][0]["interval"]["duration_s"] = 678.21  # 50 / 678.21 = 0.0737 requests/s
    data["claims"] = [{"id": "rate", "text": "0.07 req/s", "kind": "capacity", "value": 0.07, "unit": "requests/s", "counted": "requests",
                       "run": "offer-b", "concurrency": 1}]  # fmt: skip

    def mismatch(**extra):
        data["claims"][0].update(extra)
        return [code for code, _ in judged(data, "rate")[1] if code == "claim-mismatch"]

    assert mismatch() == ["claim-mismatch"]  # 5 % off: more than the 2 % tolerance
    assert mismatch(printed_decimals=2) == []  # 0.0737 prints as 0.07
    assert mismatch(printed_decimals=3) == ["claim-mismatch"]  # "0.070" would have been 0.074
    assert Bounds.half_unit_at(2) == Fraction(1, 200)


# ------------------------------------------------------------------------ the tables


def test_the_documented_forms_table_is_the_catalogs():
    page = (ROOT / "docs" / "claims.md").read_text()
    rows = dict(re.findall(r"^\| `([^`]+)` \| (.+?) \|$", page.split("### How the form a claim is written in changes it", 1)[1], re.M))
    assert rows == CLAIM_FORMS


def test_sdeval_rules_prints_the_forms(sdeval):
    out = sdeval("rules", "claim-basis-undefined").stdout
    assert "How the form a claim is written in changes it (record 1.2):" in out
    doc = sdeval("rules", "-f", "json").json()
    assert [f["form"] for f in doc["claim_forms"]] == list(CLAIM_FORMS)
