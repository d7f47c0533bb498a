"""How figures and offers are shown to people (evaluator/engine/wording.py): one set of rules for the
terminal, the PDF and the browser form (whose JavaScript port test_form_browser.py compares)."""

from __future__ import annotations

import pytest

from evaluator.engine.wording import as_written, claimed, column, distinct, num, offer_names


@pytest.mark.parametrize(
    "value, unit, shown",
    [
        (2.1927110455608543, "x", "2.19x"),  # three significant figures for a ratio
        (1.9003510272046085, "x", "1.90x"),  # a rounded figure keeps its trailing zero
        (0.984402843323477, "x", "0.984x"),
        (1.0, "x", "1x"),
        (2225.9974638829763, "tokens/s", "2,226 tokens/s"),  # whole tokens/s from 100 up
        (84.2001, "tokens/s", "84.2 tokens/s"),
        (553.0029, "tokens/s", "553 tokens/s"),
        (200.0, "tokens/s", "200 tokens/s"),  # exact: no invented digits
        (0.07751937984496124, "", "0.0775"),
        (0.7, "", "0.7"),
        (0.5, "", "0.5"),
        (99.96, "", "100"),  # rounding up to the next magnitude gives whole units
        (999.99999, "", "1,000"),
        (1234.5, "tokens/s", "1,235 tokens/s"),  # halves away from zero, as JavaScript's toFixed
        (100.5, "", "101"),
        (-0.5, "", "-0.5"),
        (-0.0001, "", "-0.0001"),
        (0.0, "", "0"),
        (24576, "", "24,576"),
        (37.6, "ms", "37.6 ms"),
        (None, "x", "not stated"),
    ],
)
def test_num_shows_three_significant_figures_and_whole_units_from_100(value, unit, shown):
    assert num(value, unit) == shown


def test_break_even_has_one_decimal():
    assert num(246.74212, decimals=1) == "246.7"


def test_a_column_shares_one_number_of_decimals_set_by_its_largest_figure():
    assert column([38.4, 84.2001, 291.0004, 553.0029, 1702.1, 2225.9975, 3910.9, 3849.9]) == [
        "38",
        "84",
        "291",
        "553",
        "1,702",
        "2,226",
        "3,911",
        "3,850",
    ]
    assert column([2.1927, 1.90035, 1.3078, 0.9844], "x") == ["2.19x", "1.90x", "1.31x", "0.98x"]
    assert column([0.6533, 0.6367, None]) == ["0.653", "0.637", "-"]
    assert column([200.0, 150.0]) == ["200", "150"]
    assert column([0.5, 0.25]) == ["0.50", "0.25"]
    assert column([None, None], missing="n/a") == ["n/a", "n/a"]


def test_two_figures_compared_are_shown_with_the_digits_that_tell_them_apart():
    assert distinct(0.6534, 0.65331) == ("0.6534", "0.6533")
    assert distinct(0.66, 0.6533) == ("0.66", "0.653")


def test_a_claim_is_shown_as_its_author_wrote_it():
    assert claimed("1.90x output throughput at 8 concurrent requests", "1.9", 1.9, "x") == "1.90x"
    assert claimed("2,226 output tokens/s per server", "2226", 2226, "tokens/s") == "2,226 tokens/s"
    assert claimed("p99 under 40 ms (measured 37.6 ms)", "37.6", 37.6, "ms") == "37.6 ms"
    assert claimed("3x faster", "3", 3, "x") == "3x"
    assert claimed("about 65 percent", "65", 0.65, "%") == "65 %"
    assert as_written("12000.50", "tokens/s") == "12,000.50 tokens/s"
    assert as_written(None, "x", 2.1927) == "2.19x"
    assert as_written("1e3", "x", 1000.0) == "1,000x"


def test_offers_are_named_by_vendor_and_offer_id_not_by_the_path_typed():
    assert offer_names([("../sdeval/examples/complete-offer.yaml", "Acme Inference Ltd", "ACME-SD-2026-114")]) == [
        "Acme Inference Ltd, ACME-SD-2026-114"
    ]
    assert offer_names([("a/x.yaml", "Acme", "A1"), ("b/y.yaml", "Acme", "A1"), ("c/broken.json", None, None)]) == [
        "Acme, A1 (x.yaml)",
        "Acme, A1 (y.yaml)",
        "broken.json",
    ]
    assert offer_names([("a/y.yaml", "Acme", "A1"), ("b/y.yaml", "Acme", "A1")]) == ["Acme, A1 (y.yaml) #1", "Acme, A1 (y.yaml) #2"]


def test_a_stated_figure_is_never_re_rounded_and_a_disputed_one_reads_apart():
    from evaluator.engine.wording import disputed, unrounded

    assert claimed("about twice the throughput", None, 2.091, "x") == "2.091x"
    assert claimed("1.90x output throughput", None, 1.9, "x") == "1.90x"
    assert unrounded(2226.5, "tokens/s") == "2,226.5 tokens/s"
    # 282 against 281 would look like rounding; the reported figure keeps its digits.
    assert disputed(281.69, 281.0712) == ("281.69", "281.07")
    assert disputed(985.0, 979.18) == ("985", "979")
    assert disputed(282, 281.4) == ("282", "281.4")
