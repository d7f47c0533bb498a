"""What buyers compare: cost per million output tokens within the buyer's limits, tokens/s per
accelerator against tokens/s per user, and whether speculation moves that frontier.

The figures are recomputed here from the shipped records' counts on exact fractions, then pinned
through the real command line (JSON and text) with examples/requirements-cost.yaml.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import changed_profile, example, invoke

from evaluator.buyer.economics import hourly_cost, per_user, stretches
from evaluator.buyer.profile import Price
from evaluator.engine.loader import load_file
from evaluator.engine.record import Run
from evaluator.engine.wording import num
from evaluator.present.differences import requirements_differences

COMPLETE, QUIET = str(example("complete-offer.yaml")), str(example("quiet-load-offer.yaml"))
SD201_A, SD201_B = str(example("sd201-offer-a.json")), str(example("sd201-offer-b.json"))
COST, BUYER = str(example("requirements-cost.yaml")), str(example("requirements.yaml"))
SVG = "{http://www.w3.org/2000/svg}"


def economics(result) -> dict:
    return result.json()["requirements"]["economics"]


def offer_costs(doc: dict, file: str) -> dict:
    return next(o for o in doc["offers"] if o["offer"] == file)


def config(offer: dict, name: str) -> dict:
    return next(c for c in offer["configurations"] if c["configuration"] == name)


def run_data(file: str, run_id: str) -> dict:
    return next(r for r in load_file(file).data["runs"] if r["id"] == run_id)


def expected_cost(file: str, run_id: str, price: str = "2.40", accelerators: int = 4) -> Fraction:
    """price x accelerators / (E / T) / 3600 x 10^6, from the run's counts as written."""
    run = run_data(file, run_id)
    tokens_per_s = Fraction(run["counts"]["emitted_tokens"]) / Fraction(repr(run["interval"]["duration_s"]))
    return Fraction(price) * accelerators / tokens_per_s / 3600 * 10**6


def write_profile(tmp_path: Path, **changes) -> str:
    """examples/requirements-cost.yaml with some sections replaced."""
    return changed_profile(tmp_path, COST, **changes)


def write_offer(tmp_path: Path, file: str, change) -> str:
    data = json.loads(json.dumps(load_file(file).data))  # YAML anchors become separate objects
    change(data)
    path = tmp_path / "offer.json"
    path.write_text(json.dumps(data))
    return str(path)


# ------------------------------------------------------------- the shipped cost profile


@pytest.fixture(scope="module")
def shipped():
    json_out = invoke("assess", COMPLETE, QUIET, "-r", COST, "-f", "json")
    text_out = invoke("assess", COMPLETE, QUIET, "-r", COST)
    assert json_out.exit_code == text_out.exit_code == 0  # complete-offer meets every requirement
    return json.loads(json_out.stdout)["requirements"], text_out.stdout


def test_cost_at_concurrency_64_is_price_x_4_over_e_over_t(shipped):
    doc, text = shipped
    cost = expected_cost(COMPLETE, "eagle3-c64")
    assert cost == Fraction(12, 5) * 4 * Fraction(22081, 250) / 196609 / 3600 * 10**6  # T = 88.324 s, E = 196609
    offer = offer_costs(doc["economics"], COMPLETE)
    c64 = next(p for p in config(offer, "eagle3-dynamic-k")["points"] if p["load"] == 64)
    assert c64["cost_per_million_output_tokens"] == float(cost) == 1.1979648269746892
    assert (c64["runs"], c64["basis"], c64["limits"], c64["cheapest"]) == (["eagle3-c64"], "measured", "met", True)
    assert offer["cheapest"] == {
        "configuration": "eagle3-dynamic-k",
        "axis": "concurrency",
        "load": 64,
        "run": "eagle3-c64",
        "cost_per_million_output_tokens": float(cost),
        "bound": None,
        "estimate": None,
        "text": "1.20 USD per million output tokens (eagle3-dynamic-k at concurrency 64, run eagle3-c64)",
    }
    assert num(float(cost)) == "1.20"
    assert re.search(r"(?m)^    64 +eagle3-dynamic-k  offered   eagle3-c64 ", text)
    assert re.search(r"(?m)^    8 \(outside your loads\) +eagle3-dynamic-k  offered   eagle3-c8 ", text)
    assert f"{num(float(cost))} (cheapest)" in text
    assert (
        "Acme Inference Ltd, ACME-SD-2026-114: cheapest within your limits 1.20 USD per million output tokens "
        "(eagle3-dynamic-k at concurrency 64, run eagle3-c64)"
    ) in text.replace(str(example("")) + "/", "examples/")


def test_every_point_of_the_complete_offer_with_its_limits(shipped):
    offer = offer_costs(shipped[0]["economics"], COMPLETE)
    rows = {
        name: [(p["load"], p["basis"], p["limits"], p["cheapest"], p["cost_per_million_output_tokens"]) for p in config(offer, name)["points"]]
        for name in ("eagle3-dynamic-k", "target-only")
    }
    assert rows == {
        "eagle3-dynamic-k": [
            (1, "measured", "met", False, float(expected_cost(COMPLETE, "eagle3-c1"))),
            (8, "measured", "met", False, float(expected_cost(COMPLETE, "eagle3-c8"))),
            # Not measured: the dearer of the costs measured at 8 and 64 (the estimate is beside it).
            (32, "bracketed", "met", False, float(expected_cost(COMPLETE, "eagle3-c8"))),
            (64, "measured", "met", True, 1.1979648269746892),
            (256, "measured", "not-met", False, float(expected_cost(COMPLETE, "eagle3-c256"))),
        ],
        "target-only": [
            (1, "measured", "met", False, 69.44444444444444),  # 9.6 USD an hour over 38.4 tokens/s
            (8, "measured", "met", False, 9.16379123263889),  # the cheapest within the limits, but not a load the buyer runs
            (32, "bracketed", "undecided", False, 9.16379123263889),
            (64, "measured", "not-met", False, float(expected_cost(COMPLETE, "target-only-c64"))),
            (256, "measured", "not-met", False, float(expected_cost(COMPLETE, "target-only-c256"))),
        ],
    }
    # The profile's loads are 32 and 64; the others are context, never the cheapest.
    for name in ("eagle3-dynamic-k", "target-only"):
        assert [(p["load"], p["outside_your_loads"]) for p in config(offer, name)["points"]] == [
            (1, True),
            (8, True),
            (32, False),
            (64, False),
            (256, True),
        ]
    c256 = config(offer, "eagle3-dynamic-k")["points"][-1]
    # The lowest cost of all, but outside the limits: never the cheapest.
    assert c256["cost_per_million_output_tokens"] < 1.1979648269746892
    assert c256["limit_notes"] == ["p99 time per output token below 40 ms: 82.2 ms", "p99 time to first token below 1,000 ms: 2,530 ms"]
    c32 = config(offer, "target-only")["points"][2]
    assert (c32["basis"], c32["bound"], c32["runs"]) == ("bracketed", True, ["target-only-c8", "target-only-c64"])
    assert c32["limit_notes"] == [
        "p99 time per output token below 40 ms: 30.4 ms at measured 8 and 44.8 ms at measured 64; met at 8 only, and nothing between them was measured"
    ]
    # The figures are the bracket's worse measured ones: the lower E / T (and so the higher cost) and the
    # lower tokens/s per user, each from a run; the interpolation is only the labelled estimate.
    tps8 = Fraction(49152) / Fraction("168.907")
    tps64 = Fraction(196608) / Fraction("115.516")
    assert c32["tokens_per_s"] == float(tps8)
    assert (c32["tokens_per_s_per_accelerator"], c32["tokens_per_s_per_user"]) == (float(tps8 / 4), float(tps64 / 64))
    assert [(b["load"], b["run"], b["cost_per_million_output_tokens"]) for b in c32["bracket"]] == [
        (8, "target-only-c8", 9.16379123263889),
        (64, "target-only-c64", float(expected_cost(COMPLETE, "target-only-c64"))),
    ]
    # Interpolated linearly in concurrency between measured 8 and 64: E / T at 32 from both runs' E / T.
    estimate = tps8 + (tps64 - tps8) * Fraction(24, 56)
    assert c32["estimate"] == {
        "interpolated": True,
        "tokens_per_s": float(estimate),
        "tokens_per_s_per_accelerator": float(estimate / 4),
        "tokens_per_s_per_user": float(estimate / 32),
        "cost_per_million_output_tokens": 2.9771419717111796,
    }
    first = config(offer, "eagle3-dynamic-k")["points"][0]
    assert (first["tokens_per_s_per_accelerator"], first["tokens_per_s_per_user"], first["per_user_basis"]) == (
        float(Fraction(24577) / Fraction("291.888") / 4),
        float(Fraction(24577) / Fraction("291.888")),
        "E / T / concurrency",
    )
    assert first["goodput_requests_per_s"] is None
    assert config(offer, "eagle3-dynamic-k")["hourly_text"] == "4 accelerators x 2.4 USD = 9.6 USD per hour"


def test_cheapest_against_the_baseline_with_the_ratio(shipped):
    doc, text = shipped
    complete = offer_costs(doc["economics"], COMPLETE)
    # At the buyer's loads (32, 64) the baseline meets no limit everywhere (64 fails, 32 is undecided):
    # its 9.16 USD at concurrency 8 is a load the buyer does not run, never the comparison.
    assert complete["baseline_cheapest"]["text"] == (
        "no cost within your limits: at the loads you will run, no point with established evidence meets every one of your limits"
    )
    assert (complete["cost_ratio"], complete["ratio_text"]) == (None, "no cost ratio: the baseline has no cost within your limits")
    # Quietline measured 1 and 8 only: nothing of it is within the buyer's limits at 32 or 64.
    quiet = offer_costs(doc["economics"], QUIET)
    assert quiet["cheapest"]["text"] == (
        "no cost within your limits: at the loads you will run, no point has established evidence with an output throughput and an accelerator count"
    )
    assert (quiet["cost_ratio"], quiet["ratio_text"]) == (None, "no cost ratio: the offer has no cost within your limits")
    assert "4.82 USD" not in text.split("cost per million output tokens")[1].split("\n\n")[0]


def test_the_frontier_sentence_says_where_speculation_is_above(shipped):
    doc, text = shipped
    (frontier,) = offer_costs(doc["economics"], COMPLETE)["frontiers"]
    assert [(s["relation"], s["low_interpolated"], s["high_interpolated"]) for s in frontier["stretches"]] == [
        ("below", False, True),
        ("above", True, False),
    ]
    crossing = frontier["stretches"][0]["high"]
    assert crossing == pytest.approx(15.990997, abs=1e-6)
    assert frontier["text"] == (
        "eagle3-dynamic-k's frontier is above that of the baseline target-only from 16.0 to 38.4 tokens/s per user, "
        "below it from 15.3 to 16.0 (crossing at 16.0, interpolated between measured points); only "
        "eagle3-dynamic-k was measured above 38.4 (up to 84.2) and below 15.3 (down to 15.0) tokens/s per user"
    )
    assert f"    frontier: {frontier['text']}" in text
    (quiet,) = offer_costs(doc["economics"], QUIET)["frontiers"]
    assert quiet["stretches"] == []
    assert quiet["text"].endswith("so their frontiers do not overlap and are not compared")


def test_profile_level_figures(shipped):
    e = shipped[0]["economics"]
    assert e["price"] == {
        "currency": "USD",
        "per_accelerator_hour": 2.4,
        "per_server_hour": None,
        "accelerators_per_server": None,
        "source": "Northwind's reserved H100 SXM5 rate, 2026 budget (illustrative)",
    }
    assert e["limits"] == ["p99 time per output token below 40 ms", "p99 time to first token below 1,000 ms"]
    assert e["interactivity_limits"] == [{"tokens_per_s_per_user": 25.0, "text": "1000 / your p99 TPOT limit of 40 ms = 25 tokens/s"}]
    assert e["findings"] == []
    assert e["goodput"] == (
        "not measured: no run keeps per-request latencies or a tool's goodput at limits below yours, "
        "so the requests served within TTFT < 1,000 ms and TPOT < 40 ms cannot be counted"
    )


# ------------------------------------------------------------- never a wrong cheapest, never a zero


def test_an_offer_that_is_not_established_gets_no_cost(sdeval, tmp_path):
    path = tmp_path / "sd201-cost.yaml"
    path.write_text(
        'requirements_version: "1.1"\nbuyer: {name: x}\nloads: {concurrency: [1]}\nscope: generation-only\n'
        "price: {currency: EUR, per_accelerator_hour: 3}\n"
    )
    doc = economics(sdeval("assess", SD201_A, SD201_B, "-r", path, "-f", "json"))
    a = offer_costs(doc, SD201_A)
    (point,) = config(a, "sd201-offer")["points"]
    assert (point["cost_per_million_output_tokens"], point["cost_note"], point["established"]) == (None, "evidence not established", False)
    assert point["codes"] == ["throughput-basis"]
    assert a["cheapest"]["run"] is None
    assert (
        a["cheapest"]["text"]
        == "no cost within your limits: no measured load has established evidence with an output throughput and an accelerator count"
    )
    b = offer_costs(doc, SD201_B)
    # 3 EUR an hour for one accelerator over 200 tokens/s: 3 / 200 / 3600 x 10^6.
    assert b["cheapest"]["cost_per_million_output_tokens"] == float(Fraction(3, 200) / 3600 * 10**6)
    assert b["cheapest"]["text"] == "4.17 EUR per million output tokens (sd201-offer at concurrency 1, run offer-b)"


def test_a_missing_price_is_a_finding_not_a_zero(sdeval):
    result = sdeval("assess", COMPLETE, "-r", BUYER, "-f", "json")
    doc = economics(result)
    assert doc["price"] is None
    assert doc["findings"] == [
        {
            "code": "cost-basis-missing",
            "offer": None,
            "configuration": None,
            "message": "no cost per million output tokens: the profile states no price (price.per_accelerator_hour or price.per_server_hour)",
        }
    ]
    offer = offer_costs(doc, COMPLETE)
    points = [p for c in offer["configurations"] for p in c["points"]]
    assert {p["cost_per_million_output_tokens"] for p in points} == {None}
    assert {p["cost_note"] for p in points} == {"no price in the profile"}
    assert (offer["cheapest"]["text"], offer["cost_ratio"]) == ("no cost: the profile states no price", None)
    # The throughput figures are still there: the frontier needs no price.
    assert points[0]["tokens_per_s_per_accelerator"] == float(Fraction(24577) / Fraction("291.888") / 4)
    text = sdeval("assess", COMPLETE, "-r", BUYER).stdout
    assert "  cost-basis-missing: no cost per million output tokens: the profile states no price" in text
    assert "  throughput per accelerator and per user (no price, so no cost):" in text
    assert result.exit_code == 1  # the requirements verdict is unchanged by costs


@pytest.mark.parametrize("count", [None, 0], ids=["absent", "zero"])
def test_a_missing_accelerator_count_is_a_finding_not_a_zero(sdeval, tmp_path, count):
    def change(data):
        if count is None:
            data["configurations"][0]["hardware"].pop("count")
        else:
            data["configurations"][0]["hardware"]["count"] = count

    offer = write_offer(tmp_path, COMPLETE, change)
    doc = economics(sdeval("assess", offer, "-r", COST, "-f", "json"))
    assert doc["findings"] == [
        {
            "code": "cost-basis-missing",
            "offer": offer,
            "configuration": "eagle3-dynamic-k",
            "message": "no cost for configuration eagle3-dynamic-k of Acme Inference Ltd, ACME-SD-2026-114: it states no accelerator count (hardware.count)",
        }
    ]
    costs = offer_costs(doc, offer)
    spec = config(costs, "eagle3-dynamic-k")
    assert (spec["accelerators"], spec["hourly_cost"]) == (None, None)
    assert {p["cost_per_million_output_tokens"] for p in spec["points"]} == {None}
    assert {p["tokens_per_s_per_accelerator"] for p in spec["points"]} == {None}
    assert costs["cheapest"]["run"] is None
    # Without a count the configuration fails identity-incomplete, so its evidence is not established either.
    assert {p["cost_note"] for p in spec["points"]} == {"evidence not established"} if count is None else {"no accelerator count (hardware.count)"}


def test_a_load_beyond_the_measured_range_is_never_extrapolated_and_k_bands_are_kept(sdeval, tmp_path):
    path = write_profile(tmp_path, loads={"concurrency": [65, 512]})
    offer = offer_costs(economics(sdeval("assess", COMPLETE, "-r", path, "-f", "json")), COMPLETE)
    # 65 lies in the K = 1 band, where the offer has no run: nothing between eagle3-c64 (K = 3) and eagle3-c256 (K = 0).
    assert [p["load"] for p in config(offer, "eagle3-dynamic-k")["points"]] == [1, 8, 64, 256]
    # The baseline has no K schedule: 65 lies between its measured 64 and 256; 512 is beyond them.
    assert [(p["load"], p["basis"]) for p in config(offer, "target-only")["points"]] == [
        (1, "measured"),
        (8, "measured"),
        (64, "measured"),
        (65, "bracketed"),
        (256, "measured"),
    ]


def test_a_sampling_mismatch_keeps_a_load_from_being_the_cheapest(sdeval, tmp_path):
    path = write_profile(tmp_path, sampling={"temperature": 0})
    offer = offer_costs(economics(sdeval("assess", COMPLETE, "-r", path, "-f", "json")), COMPLETE)
    c64 = config(offer, "eagle3-dynamic-k")["points"][3]
    assert (c64["cost_per_million_output_tokens"], c64["codes"], c64["cheapest"]) == (1.1979648269746892, ["sampling-mismatch"], False)
    assert offer["cheapest"]["text"] == (
        "no cost within your limits: at the loads you will run, no point within your limits has evidence that matches your sampling, scope and tasks"
    )


def test_a_named_baseline_offer_is_costed_from_its_own_runs(sdeval, tmp_path):
    path = write_profile(tmp_path, baseline={"kind": "offer", "offer_id": "QL-2026-031"})
    doc = economics(sdeval("assess", COMPLETE, QUIET, "-r", path, "-f", "json"))
    complete = offer_costs(doc, COMPLETE)
    assert [(c["offer"], c["configuration"], c["role"]) for c in complete["configurations"]] == [
        (COMPLETE, "eagle3-dynamic-k", "offered"),
        (QUIET, "eagle3-k3", "baseline"),
    ]
    # Quietline, the named baseline, measured no load the buyer runs: no ratio.
    assert complete["cost_ratio"] is None
    quiet = offer_costs(doc, QUIET)
    assert (quiet["baseline_cheapest"], quiet["ratio_text"]) == (None, "no baseline to compare the cost with")


# ------------------------------------------------------------------------ the price block


@pytest.mark.parametrize(
    "price, message",
    [
        ({"per_accelerator_hour": 2.4}, "/price/currency: required field is missing"),
        (
            {"currency": "usd", "per_accelerator_hour": 2.4},
            '/price/currency: give the currency as a three-letter ISO 4217 code in capitals, for example USD or EUR (got "usd")',
        ),
        ({"currency": "USD"}, "/price: give per_accelerator_hour, per_server_hour or both"),
        ({"currency": "USD", "per_server_hour": 20}, "/price: per_server_hour and accelerators_per_server go together"),
        ({"currency": "USD", "per_accelerator_hour": 0}, "/price/per_accelerator_hour: must be more than 0 (got 0)"),
    ],
    ids=["no-currency", "lower-case-currency", "no-price", "server-without-size", "zero"],
)
def test_a_bad_price_stops_with_one_line(sdeval, tmp_path, price, message):
    path = write_profile(tmp_path, price=price)
    result = sdeval("assess", COMPLETE, "-r", path)
    assert (result.exit_code, result.stdout) == (2, "")
    # One line, naming the file, the line and column of the place (the profile is one line of JSON), and what is wrong.
    assert re.fullmatch(rf"sdeval: {re.escape(str(path))}:1:\d+: {re.escape(message)}\n", result.stderr), result.stderr


def test_a_price_needs_profile_version_1_1_and_1_0_profiles_still_read(sdeval, tmp_path):
    path = write_profile(tmp_path, requirements_version="1.0")
    result = sdeval("assess", COMPLETE, "-r", path)
    assert (result.exit_code, result.stderr) == (2, f'sdeval: {path}:1:1: a price needs requirements_version "1.1"\n')
    assert Path(BUYER).read_text().count('requirements_version: "1.0"') == 1
    assert sdeval("assess", COMPLETE, "-r", BUYER).exit_code == 1  # read as before


def test_hourly_cost_per_accelerator_per_server_and_both():
    assert hourly_cost(Price(currency="USD", per_accelerator_hour=2.4), 4) == (Fraction(48, 5), "4 accelerators x 2.4 USD = 9.6 USD per hour")
    # Whole servers: 4 accelerators at 8 per server is one server, 12 is two.
    server = Price(currency="EUR", per_server_hour=20, accelerators_per_server=8)
    assert hourly_cost(server, 4) == (Fraction(20), "1 server x 20 EUR = 20 EUR per hour")
    assert hourly_cost(server, 12) == (Fraction(40), "2 servers x 20 EUR = 40 EUR per hour")
    both = Price(currency="USD", per_accelerator_hour=2.4, per_server_hour=1.5, accelerators_per_server=8)
    assert hourly_cost(both, 4) == (Fraction(111, 10), "4 accelerators x 2.4 USD + 1 server x 1.5 USD = 11.1 USD per hour")


def test_server_hour_price_through_the_command_line(sdeval, tmp_path):
    path = write_profile(tmp_path, price={"currency": "EUR", "per_server_hour": 20, "accelerators_per_server": 8})
    offer = offer_costs(economics(sdeval("assess", COMPLETE, "-r", path, "-f", "json")), COMPLETE)
    assert offer["cheapest"]["cost_per_million_output_tokens"] == float(expected_cost(COMPLETE, "eagle3-c64", price="5", accelerators=4))


# ------------------------------------------------------------------ tokens/s per user


def test_tokens_per_user_is_per_request_throughput_or_1000_over_tpot():
    closed = Run.model_validate(run_data(COMPLETE, "eagle3-c64"))
    assert per_user(closed, Fraction(196609) / Fraction("88.324")) == (Fraction(196609) / Fraction("88.324") / 64, "E / T / concurrency")
    data = run_data(COMPLETE, "eagle3-c64")
    data["load"] = {"request_rate": 4.0, "loop": "open"}
    open_loop = Run.model_validate(data)
    assert per_user(open_loop, Fraction(2226)) == (Fraction(1000) / Fraction("28.1"), "1000 / p50 TPOT")
    data["latency"]["tpot_ms"] = {"mean": 25}
    assert per_user(Run.model_validate(data), None) == (Fraction(40), "1000 / mean TPOT")
    data["latency"].pop("tpot_ms")
    assert per_user(Run.model_validate(data), Fraction(2226)) == (None, None)


# ----------------------------------------------------------------------------- frontier


def F(*pairs):  # noqa: N802 (a line, as (x, y) fractions)
    return [(Fraction(x), Fraction(y)) for x, y in pairs]


def test_frontier_stretches_cross_exactly_and_never_beyond_both_ranges():
    crossing = stretches(F((0, 10), (10, 0)), F((0, 0), (10, 10)))
    assert [(s.low, s.high, s.relation, s.low_crossing, s.high_crossing) for s in crossing] == [
        (0, 5, "above", False, True),
        (5, 10, "below", True, False),
    ]
    # Only where both were measured: 5 to 10, and the offered line is above throughout.
    assert [(s.low, s.high, s.relation) for s in stretches(F((5, 20), (20, 5)), F((0, 10), (10, 2)))] == [(5, 10, "above")]
    assert stretches(F((20, 1), (30, 1)), F((0, 5), (10, 1))) == []
    level = stretches(F((0, 1), (10, 1)), F((0, 1), (10, 1)))
    assert [(s.relation, s.low, s.high) for s in level] == [("level", 0, 10)]


# ------------------------------------------------------------------------ the chart and verify


def test_frontier_chart_draws_each_configuration_and_the_buyer_limit():
    from evaluator.buyer.judge import compare
    from evaluator.buyer.profile import load_requirements
    from evaluator.present.buyer_pages import fit_context
    from evaluator.rules import lookup
    from evaluator.rules.assess import assess

    c = compare(load_requirements(COST)[0], [assess(load_file(COMPLETE))], "req.yaml")
    costs = fit_context(c, lookup)["costs"]
    root = ET.fromstring(str(costs["offers"][0]["chart"]))
    lines = list(root.iter(f"{SVG}polyline"))
    assert len(lines) == 2
    assert [l.get("stroke-dasharray") for l in lines] == [None, "2 2"]  # offered solid, baseline dotted
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "Throughput per accelerator against tokens/s per user" in texts
    assert "output tokens/s per user (interactivity)" in texts and "output tokens/s per accelerator" in texts
    assert "1000 / your p99 TPOT limit of 40 ms = 25 tokens/s" in texts
    # Points labelled by concurrency; outside a limit marked; the cheapest within the limits named.
    assert {"1", "8", "64 cheapest", "256 \u2717", "64 \u2717"} <= set(texts)
    assert "8 cheapest" not in texts  # the baseline's cheapest at 8 is not a load the buyer runs
    limit = [l for l in root.iter(f"{SVG}line") if l.get("stroke-dasharray") == "8 2 1 2"]
    assert len(limit) == 1 and limit[0].get("x1") == limit[0].get("x2")


def test_verify_names_a_changed_cheapest_cost():
    embedded = {
        "economics": {
            "price_text": "2.4 USD per accelerator-hour",
            "offers": [{"offer": "o.yaml", "cheapest": {"text": "1.198 USD (a)"}, "baseline_cheapest": {"text": "9.1638 USD (b)"}}],
        }
    }
    fresh = json.loads(json.dumps(embedded))
    fresh["economics"]["price_text"] = "3 USD per accelerator-hour"
    fresh["economics"]["offers"][0]["cheapest"]["text"] = "1.4975 USD (a)"
    assert requirements_differences(embedded, fresh) == [
        "price: 2.4 USD per accelerator-hour -> 3 USD per accelerator-hour",
        "cost, offer o.yaml, cheapest: 1.198 USD (a) -> 1.4975 USD (a)",
    ]
