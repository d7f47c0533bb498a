"""No interpolation by default (issue 27, point 8): a load the buyer will run between two measured
loads is given as that bracket, judged on the measured points, with the interpolated estimate only
beside it, labelled; the break-even likewise. Nothing interpolated decides a verdict or a cheapest."""

from __future__ import annotations

from fractions import Fraction

from conftest import changed_profile, example

from evaluator.buyer.costs import BracketSide, ConfigurationCosts, CostPoint, Estimate
from evaluator.buyer.economics import _ratio, _ratio_text, cheapest
from evaluator.buyer.profile import Price

COMPLETE, REQ_COST = example("complete-offer.yaml"), example("requirements-cost.yaml")
USD = Price(currency="USD", per_accelerator_hour=2.4)


def _profile(tmp_path, **changes) -> str:
    return changed_profile(tmp_path, REQ_COST, **changes)


def _cost(run: str) -> Fraction:
    """Measured cost per million output tokens of a complete-offer run: 9.6 USD an hour over its E / T."""
    e, t = {"eagle3-c8": (49152, "88.882"), "eagle3-c64": (196609, "88.324"), "target-only-c8": (49152, "168.907")}[run]
    return Fraction(96, 10) / (Fraction(e) / Fraction(t) * 3600) * 10**6


def _offer(doc: dict) -> dict:
    return doc["requirements"]["economics"]["offers"][0]


def test_text_gives_the_break_even_bracket_and_each_unmeasured_load_as_bounds_with_the_estimate_labelled(sdeval):
    text = sdeval("assess", COMPLETE, "-r", REQ_COST).stdout
    assert "speculation stops paying between measured concurrency 64 (1.31x) and 256 (0.984x) (estimate: 246.7, interpolated)" in text
    assert "break-even at concurrency 246.7" not in text
    flat = " ".join(text.split())  # the table may be folded to the terminal's width, or not
    assert flat.count("32 (not measured: between 8 and 64)") >= 2  # the offered configuration's row and the baseline's
    assert "eagle3-c8 - eagle3-c64 >= 138 (estimate 318)" in flat
    assert ">= 34.8 (estimate 39.7) <= 4.82 (estimate 2.10)" in flat  # the offer: tokens/s per user, cost
    assert ">= 26.6 (estimate 28.0) <= 9.16 (estimate 2.98)" in flat  # its baseline
    assert "(interpolated)" not in flat
    assert (
        "a load not measured is judged on the measured loads around it: >= and <= give the worse of their two measured"
        " figures; an estimate is interpolated linearly between them and decides nothing"
    ) in flat


def test_a_cheapest_at_an_unmeasured_load_is_the_dearer_measured_cost_never_the_estimate(sdeval, tmp_path):
    # Only concurrency 32, where the offer was not measured: within both limits at 8 and at 64.
    doc = sdeval("assess", COMPLETE, "-r", _profile(tmp_path, loads={"concurrency": [32]}), "-f", "json").json()
    offer = _offer(doc)
    best = offer["cheapest"]
    # The estimate (2.10 USD, interpolated between 8 and 64) would be cheaper; the verdict rests on
    # the cost measured at 8, the dearer side of the bracket, as an upper bound.
    assert (best["load"], best["run"], best["bound"]) == (32, "eagle3-c8", "at-most")
    assert best["cost_per_million_output_tokens"] == float(_cost("eagle3-c8"))
    assert best["estimate"] == 2.0997366299606615
    assert best["text"] == (
        "at most 4.82 USD per million output tokens (eagle3-dynamic-k at concurrency 32, not measured: the dearer of the costs"
        " measured at 8 (run eagle3-c8, 4.82) and 64 (run eagle3-c64, 1.20); estimate: 2.10, interpolated)"
    )
    (point,) = [p for p in offer["configurations"][0]["points"] if not p["outside_your_loads"]]
    assert (point["basis"], point["bound"], point["cheapest"], point["limits"]) == ("bracketed", True, True, "met")
    assert point["estimate"]["interpolated"] is True
    assert point["estimate"]["cost_per_million_output_tokens"] == best["estimate"]
    # The baseline at 32 meets p99 TPOT at 8 (30.4 ms) but not at 64 (44.8 ms): undecided, so no cost, and no ratio.
    assert offer["baseline_cheapest"]["load"] is None
    assert (offer["cost_ratio"], offer["cost_ratio_bound"]) == (None, None)


def test_two_upper_bounds_give_no_cost_ratio(sdeval, tmp_path):
    limits = [{"metric": "tpot", "percentile": "p99", "limit_ms": 50}, {"metric": "ttft", "percentile": "p99", "limit_ms": 1000}]
    doc = sdeval("assess", COMPLETE, "-r", _profile(tmp_path, loads={"concurrency": [32]}, latency_limits=limits), "-f", "json").json()
    offer = _offer(doc)
    assert (offer["cheapest"]["bound"], offer["baseline_cheapest"]["bound"]) == ("at-most", "at-most")
    assert offer["baseline_cheapest"]["cost_per_million_output_tokens"] == float(_cost("target-only-c8"))
    assert (offer["cost_ratio"], offer["cost_ratio_bound"]) == (None, None)
    assert offer["ratio_text"] == "no cost ratio from measured costs: both cheapest costs are upper bounds at loads not measured"


def _point(load: float, cost: Fraction, *, bracketed: bool = False, estimate: Fraction | None = None) -> CostPoint:
    runs = (f"r{load}-lo", f"r{load}-hi") if bracketed else (f"r{load}",)
    return CostPoint(
        "concurrency",
        load,
        "bracketed" if bracketed else "measured",
        runs,
        Fraction(1),
        Fraction(1),
        Fraction(1),
        "E / T / concurrency",
        cost,
        "",
        True,
        (),
        "met",
        (),
        bracket=(BracketSide(load - 1, runs[0], None, None, cost), BracketSide(load + 1, runs[-1], None, None, cost / 4)) if bracketed else (),
        estimate=Estimate(None, None, None, estimate) if bracketed else None,
    )


def _config(*points: CostPoint) -> ConfigurationCosts:
    return ConfigurationCosts("offer.yaml", "spec", "offered", 1, Fraction(1), "", points)


def test_the_cheapest_compares_measured_costs_only():
    # A bracketed load whose estimate (1) is the lowest figure of all, but whose measured bound is 5,
    # against a measured 3: the measured 3 is the cheapest.
    measured, bracketed = _point(64, Fraction(3)), _point(32, Fraction(5), bracketed=True, estimate=Fraction(1))
    best = cheapest([_config(bracketed, measured)], USD)
    assert best.point is measured
    assert best.text == "3.00 USD per million output tokens (spec at concurrency 64, run r64)"
    # A tie between a measured cost and a bound: the measured one.
    assert cheapest([_config(_point(32, Fraction(3), bracketed=True, estimate=Fraction(1)), measured)], USD).point is measured


def test_a_bound_makes_the_ratio_a_bound_in_the_right_direction():
    exact, bound = _point(64, Fraction(2)), _point(32, Fraction(4), bracketed=True, estimate=Fraction(1))
    mine, theirs = cheapest([_config(bound)], USD), cheapest([_config(exact)], USD)
    # The offer's true cost is at most 4, so offer / baseline is at most 2.
    assert _ratio(mine, theirs) == (Fraction(2), "at-most")
    assert _ratio_text(Fraction(2), "at-most", mine, theirs) == (
        "cost ratio offer / baseline at most 2: the offer's cost is an upper bound at a load not measured"
    )
    # The baseline's true cost is at most 4, so offer / baseline is at least 1/2.
    assert _ratio(theirs, mine) == (Fraction(1, 2), "at-least")
    assert _ratio(mine, mine) == (None, None)
    assert _ratio(theirs, theirs) == (Fraction(1), None)


def test_a_report_in_assessment_json_1_2_is_compared_in_its_own_shape_where_1_3_changed_nothing():
    from evaluator.present.differences import as_of_schema, describe_differences, without_tool
    from evaluator.present.json_document import ASSESSMENT_SCHEMA_VERSION

    run = {"run": "r1", "k": 3, "baseline_run": "b1", "speedup": 1.5}
    fresh = {"schema_version": ASSESSMENT_SCHEMA_VERSION, "files": [{"file": "o.yaml", "runs": [run]}]}
    # 1.3 changed the requirements section alone: without one, a 1.2 document has the same shape.
    assert ASSESSMENT_SCHEMA_VERSION == "1.3"
    assert as_of_schema(fresh, "1.2") == {**fresh, "schema_version": "1.2"}
    assert as_of_schema(fresh, "1.1")["files"][0]["runs"] == [{"run": "r1"}]
    # With one, the older shape cannot be rebuilt (it decided on interpolated figures): the
    # difference is reported, and verify's catalog rules say what it is worth.
    judged = {**fresh, "requirements": {"figures": [{"break_even": {"status": "bracketed"}}]}}
    assert as_of_schema(judged, "1.2")["schema_version"] == "1.3"
    embedded = {**judged, "schema_version": "1.2", "requirements": {"figures": [{"break_even": {"status": "interpolated"}}]}}
    assert describe_differences(without_tool(embedded), without_tool(as_of_schema(judged, "1.2"))) == ["the requirements section differs in: figures"]
