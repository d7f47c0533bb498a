"""Figures across loads: speedup at every measured concurrency and the break-even concurrency."""

from __future__ import annotations

import pytest
from conftest import example

from evaluator.buyer.across_loads import break_even


def test_complete_offer_speedups_and_break_even_as_the_measured_bracket(sdeval):
    doc = sdeval("assess", example("complete-offer.yaml"), "-r", example("requirements.yaml"), "-f", "json").json()
    (series,) = doc["requirements"]["figures"][0]["series"]
    assert series["configuration"] == "eagle3-dynamic-k"
    assert [(p["concurrency"], p["run"], p["baseline_run"]) for p in series["points"]] == [
        (1, "eagle3-c1", "target-only-c1"),
        (8, "eagle3-c8", "target-only-c8"),
        (64, "eagle3-c64", "target-only-c64"),
        (256, "eagle3-c256", "target-only-c256"),
    ]
    # E / T over E_base / T_base, exactly: 24577/291.888 over 24576/640, and so on.
    assert [round(p["speedup"], 6) for p in series["points"]] == [2.192711, 1.900351, 1.307873, 0.984403]
    be = series["break_even"]
    # The verdict is the bracket of measured points; the crossing inside it was not measured.
    assert (be["status"], be["concurrency"]) == ("bracketed", None)
    assert be["bracket"] == {
        "below": {"concurrency": 64, "speedup": series["points"][2]["speedup"]},
        "above": {"concurrency": 256, "speedup": series["points"][3]["speedup"]},
    }
    # The linear estimate, in its own key and marked as one: 64 + (s64 - 1) / (s64 - s256) x 192.
    assert be["estimate"]["interpolated"] is True
    assert be["estimate"]["concurrency"] == pytest.approx(246.742, abs=1e-3)
    assert be["estimate"]["text"] == "estimate: 246.7, interpolated"
    assert be["text"] == "speculation stops paying between measured concurrency 64 (1.31x) and 256 (0.984x) (estimate: 246.7, interpolated)"


def test_quiet_offer_break_even_not_reached_in_the_measured_range(sdeval):
    doc = sdeval("assess", example("quiet-load-offer.yaml"), "-r", example("requirements.yaml"), "-f", "json").json()
    be = doc["requirements"]["figures"][0]["series"][0]["break_even"]
    assert be == {
        "status": "not-reached",
        "concurrency": None,
        "bracket": None,
        "estimate": None,
        "text": "not reached in the measured range (concurrency 1 to 8; speedup above 1 throughout)",
    }


@pytest.mark.parametrize(
    "points, status, at",
    [
        ([(1, 2.0), (8, 1.5), (64, 1.2)], "not-reached", None),
        ([(1, 0.9), (8, 0.8)], "below-range", None),
        ([(1, 2.0), (8, 1.0), (64, 0.5)], "measured", 8.0),
        ([(64, 1.25), (1, 2.0), (128, 0.75)], "bracketed", None),  # unsorted input; estimate 64 + 0.25/0.5 x 64
        ([(1, 1.5), (8, 1.0)], "measured", 8.0),
        ([], "unknown", None),
    ],
)
def test_break_even_never_extrapolates(points, status, at):
    result = break_even(points)
    assert (result.status, result.concurrency) == (status, at)


def test_a_break_even_between_measured_points_is_their_bracket_and_the_estimate_only_beside_it():
    result = break_even([(64, 1.25), (1, 2.0), (128, 0.75)])
    assert result.concurrency is None  # no concurrency was measured at speedup 1
    assert result.bracket == ((64, 1.25), (128, 0.75))
    assert result.estimate == 96.0  # 64 + 0.25 / 0.5 x 64, labelled, never the break-even itself
    assert result.text == "speculation stops paying between measured concurrency 64 (1.25x) and 128 (0.75x) (estimate: 96.0, interpolated)"
    assert result.as_dict()["estimate"] == {"concurrency": 96.0, "interpolated": True, "text": "estimate: 96.0, interpolated"}


def test_chart_data_has_every_offer_and_its_baseline(sdeval):
    from evaluator.buyer.judge import compare
    from evaluator.buyer.profile import load_requirements
    from evaluator.engine.loader import load_file
    from evaluator.present.buyer_pages import chart_data
    from evaluator.rules.assess import assess

    results = [assess(load_file(str(example(n)))) for n in ("complete-offer.yaml", "quiet-load-offer.yaml")]
    comparison = compare(load_requirements(str(example("requirements.yaml")))[0], results)
    chart = chart_data(comparison)
    assert [(line["offer"].rsplit("/", 1)[-1], line["role"], [c for c, _ in line["points"]]) for line in chart["lines"]] == [
        ("complete-offer.yaml", "offer", [1, 8, 64, 256]),
        ("complete-offer.yaml", "baseline", [1, 8, 64, 256]),
        ("quiet-load-offer.yaml", "offer", [1, 8]),
        ("quiet-load-offer.yaml", "baseline", [1, 8]),
    ]
    assert chart["lines"][1]["points"][0] == (1, 38.4)
