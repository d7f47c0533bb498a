"""evaluator/engine/statistics.py and evaluator/measure/uncertainty.py against known values: textbook t quantiles, a t interval worked by
hand, a speedup's interval on the log scale worked by hand, pairing by repetition and its failed pairings, and the bootstrap's seed,
constant data and its too-few-requests rule."""

from __future__ import annotations

import math

import pytest

from evaluator.engine.statistics import (
    ARITHMETIC,
    GEOMETRIC,
    TOO_FEW_REPETITIONS,
    TOO_FEW_REQUESTS,
    bootstrap_percentiles,
    mean_interval,
    percentile,
    ratio_interval,
    speedup_interval_as_stated,
    t_cdf,
    t_quantile,
)
from evaluator.measure.uncertainty import WindowFigures, paired_speedups, speedup_interval, throughput_interval

# Two-sided 95 % critical values t(0.975, df), as printed in every t table (e.g. NIST/SEMATECH
# e-Handbook of Statistical Methods, 1.3.6.7.2), to the table's three decimals.
TABLE_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 9: 2.262, 10: 2.228, 20: 2.086, 30: 2.042, 100: 1.984}


@pytest.mark.parametrize(("df", "expected"), sorted(TABLE_975.items()))
def test_t_quantiles_are_the_textbook_values(df, expected):
    assert round(t_quantile(0.975, df), 3) == expected


def test_t_quantiles_closed_forms_and_the_normal_limit():
    # df 1 is Cauchy: tan(pi (p - 1/2)); df 2 has t = (2p - 1) sqrt(2 / (1 - (2p - 1)^2)).
    assert t_quantile(0.975, 1) == pytest.approx(math.tan(math.pi * 0.475), rel=1e-9)
    a = 2 * 0.975 - 1
    assert t_quantile(0.975, 2) == pytest.approx(a * math.sqrt(2 / (1 - a * a)), rel=1e-9)
    assert t_quantile(0.975, 100000) == pytest.approx(1.959964, abs=1e-4)
    assert t_quantile(0.95, 10) == pytest.approx(1.812461, abs=1e-6)
    assert t_cdf(0.0, 7) == pytest.approx(0.5)
    assert t_cdf(-2.0, 5) == pytest.approx(1 - t_cdf(2.0, 5))


def test_the_interval_of_1_2_3_is_mean_2_plus_minus_t_over_root_3():
    m = mean_interval([1.0, 2.0, 3.0])
    half = 4.302652729911275 / math.sqrt(3)  # s = 1
    assert (m.mean, m.n, m.note) == (2.0, 3, None)
    assert m.low == pytest.approx(2 - half, rel=1e-9) and m.high == pytest.approx(2 + half, rel=1e-9)


@pytest.mark.parametrize("values", [[1.4], [1.4, 1.6]])
def test_below_three_repetitions_there_is_no_interval(values):
    m = mean_interval(values)
    assert m.mean == pytest.approx(sum(values) / len(values))
    assert (m.low, m.high, m.note) == (None, None, TOO_FEW_REPETITIONS)


def window(arm, rep, tokens, seconds, c=1):
    return WindowFigures(arm, c, rep, tokens, seconds, (10.0,), (2.0,), ("p0",))


def by_hand(ratios: list[float]) -> tuple[float, float, float]:
    """The geometric mean and its 95 % interval, written out: exp(mean(log r) +- t(0.975, n - 1) x s_log / sqrt(n))."""
    logs = [math.log(r) for r in ratios]
    n = len(logs)
    centre = sum(logs) / n
    s_log = math.sqrt(sum((x - centre) ** 2 for x in logs) / (n - 1))
    half = t_quantile(0.975, n - 1) * s_log / math.sqrt(n)
    return math.exp(centre), math.exp(centre - half), math.exp(centre + half)


def test_a_speedup_interval_is_the_geometric_mean_and_the_t_interval_of_the_logs():
    m = ratio_interval([1.7, 1.75, 1.72, 1.9])
    mean, low, high = by_hand([1.7, 1.75, 1.72, 1.9])
    assert (m.n, m.note) == (4, None)
    assert (m.mean, m.low, m.high) == (pytest.approx(mean, rel=1e-12), pytest.approx(low, rel=1e-12), pytest.approx(high, rel=1e-12))
    # A 2x and a 0.5x are no speedup on the log scale (their arithmetic mean is 1.25x).
    assert ratio_interval([2.0, 0.5, 1.0]).mean == pytest.approx(1.0, rel=1e-12)


def test_widely_spread_ratios_keep_the_interval_above_0():
    m = ratio_interval([0.3, 1.0, 3.5])
    mean, low, high = by_hand([0.3, 1.0, 3.5])
    assert m.low == pytest.approx(low, rel=1e-12) and m.high == pytest.approx(high, rel=1e-12) and m.mean == pytest.approx(mean, rel=1e-12)
    assert 0 < m.low < 1 < m.high
    assert mean_interval([0.3, 1.0, 3.5]).low < 0  # what the arithmetic interval said of the same ratios


@pytest.mark.parametrize("ratios", [[0.3, 1.0, 3.5], [1.7, 1.75, 1.72], [0.9, 1.9, 2.9, 1.1, 1.05]])
def test_swapping_the_arms_inverts_the_interval(ratios):
    ours, swapped = ratio_interval(ratios), ratio_interval([1 / r for r in ratios])
    assert swapped.mean == pytest.approx(1 / ours.mean, rel=1e-12)
    assert swapped.low == pytest.approx(1 / ours.high, rel=1e-12) and swapped.high == pytest.approx(1 / ours.low, rel=1e-12)


def test_swapping_the_measured_arms_inverts_the_paired_interval():
    spec = [window("s", 0, 210, 1.0), window("s", 1, 90, 1.5), window("s", 2, 350, 1.0)]
    base = [window("b", 0, 100, 1.0), window("b", 1, 100, 1.0), window("b", 2, 100, 1.0)]
    (_, ours), (_, swapped) = speedup_interval(spec, base), speedup_interval(base, spec)
    assert swapped.low == pytest.approx(1 / ours.high, rel=1e-12) and swapped.high == pytest.approx(1 / ours.low, rel=1e-12)
    assert swapped.mean == pytest.approx(1 / ours.mean, rel=1e-12)


def test_below_three_ratios_there_is_no_interval_and_a_ratio_without_a_log_is_refused():
    m = ratio_interval([2.0, 0.5])
    assert m.mean == pytest.approx(1.0) and (m.low, m.high, m.note) == (None, None, TOO_FEW_REPETITIONS)
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="above 0 and finite"):
            ratio_interval([1.0, bad, 2.0])


def test_a_speedup_is_computed_again_by_the_method_its_record_states():
    ratios = [0.9, 1.9, 2.9]
    assert speedup_interval_as_stated(ratios, GEOMETRIC) == ratio_interval(ratios)
    # A block written before the log scale states no method (or the arithmetic one): read as given.
    assert speedup_interval_as_stated(ratios, None) == speedup_interval_as_stated(ratios, ARITHMETIC) == mean_interval(ratios)
    with pytest.raises(ValueError, match="unknown speedup interval method"):
        speedup_interval_as_stated(ratios, "median")


def test_speedups_pair_repetition_by_repetition_not_in_list_order():
    spec = [window("speculative", 2, 300, 1.0), window("speculative", 0, 200, 1.0), window("speculative", 1, 100, 1.0)]
    base = [window("target-only", 1, 100, 1.0), window("target-only", 0, 100, 1.0), window("target-only", 2, 150, 1.0)]
    assert paired_speedups(spec, base).ratios == ((0, 2.0), (1, 1.0), (2, 2.0))
    pairs, m = speedup_interval(spec, base)
    assert pairs.failed == () and m.values == (2.0, 1.0, 2.0)
    mean, low, high = by_hand([2.0, 1.0, 2.0])
    assert m.mean == pytest.approx(mean, rel=1e-12) and m.low == pytest.approx(low, rel=1e-12) and m.high == pytest.approx(high, rel=1e-12)


def test_a_repetition_only_one_arm_finished_is_left_out():
    spec = [window("s", 0, 200, 1.0), window("s", 1, 200, 1.0)]
    base = [window("b", 1, 100, 1.0)]
    assert paired_speedups(spec, base).ratios == ((1, 2.0),)
    assert speedup_interval(spec, []) is None


def test_a_window_with_no_output_is_a_failed_pairing_named_not_dropped():
    spec = [window("s", 0, 200, 1.0), window("s", 1, 0, 1.0), window("s", 2, 200, 1.0), window("s", 3, 200, 1.0)]
    base = [window("b", 0, 100, 1.0), window("b", 1, 100, 1.0), window("b", 2, 0, 1.0), window("b", 3, 100, 0.0)]
    pairs, m = speedup_interval(spec, base)
    assert pairs.ratios == ((0, 2.0),)
    assert pairs.failed == (
        (1, "the speculative window emitted no tokens"),
        (2, "the baseline's window emitted no tokens"),
        (3, "the baseline's window has no measured time"),
    )
    assert m.values == (2.0,)
    # Every pairing failed: no ratio to average, but the pairings are still there to name.
    pairs, m = speedup_interval(spec[1:3], base[1:3])
    assert m is None and [r for r, _ in pairs.failed] == [1, 2]


def test_throughput_interval_is_e_over_t_of_each_repetition():
    m = throughput_interval([window("s", 1, 120, 2.0), window("s", 0, 100, 1.0), window("s", 2, 90, 1.0)])
    assert m.values == (100.0, 60.0, 90.0) and m.mean == pytest.approx(250 / 3)


def test_percentile_methods():
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5, "lower") == 2.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.99, "lower") == 3.0


def test_bootstrap_is_seeded_and_brackets_the_percentile():
    values = [float(v) for v in range(1, 101)]
    one = bootstrap_percentiles(values, resamples=500, seed=7)
    assert one == bootstrap_percentiles(values, resamples=500, seed=7)
    assert one != bootstrap_percentiles(values, resamples=500, seed=8)
    p50 = one["p50"]
    assert p50.value == 50.5 and p50.low < 50.5 < p50.high
    # The median of 100 evenly spread values: standard error about 1.25 x 29 / 10 = 3.6, so the
    # interval spans roughly +- 7 around 50.5.
    assert 40 < p50.low < 47 and 54 < p50.high < 61


def test_bootstrap_of_constant_values_is_the_value_itself():
    out = bootstrap_percentiles([12.5] * 40, resamples=200)
    assert (out["p50"].value, out["p50"].low, out["p50"].high) == (12.5, 12.5, 12.5)


def test_no_interval_for_a_percentile_with_too_few_requests_beyond_it():
    out = bootstrap_percentiles([float(v) for v in range(48)], resamples=100)
    assert out["p50"].note is None and out["p90"].note == TOO_FEW_REQUESTS  # 48 x 0.1 = 4.8 requests beyond p90
    assert out["p95"].note == out["p99"].note == TOO_FEW_REQUESTS
    assert bootstrap_percentiles([float(v) for v in range(50)], resamples=100)["p90"].note is None  # 50 x 0.1 = 5
    assert out["p99"].low is None and out["p99"].value == pytest.approx(percentile(list(range(48)), 0.99))


def test_the_record_block_states_the_method_and_names_each_failed_pairing():
    from evaluator.engine.record import SpeedupInterval
    from evaluator.measure.intervals import run_uncertainty

    spec = [window("s", 0, 200, 1.0), window("s", 1, 0, 1.0), window("s", 2, 300, 1.0), window("s", 3, 150, 1.0)]
    base = [window("b", r, 100, 1.0) for r in range(4)]
    block = run_uncertainty(spec, base, "b-c1")
    assert block is not None and GEOMETRIC in block["method"]
    speedup = block["speedup"]
    assert speedup == {
        "baseline_run": "b-c1",
        "method": GEOMETRIC,
        "paired_repetitions": [0, 2, 3],
        "values": [2.0, 3.0, 1.5],
        "mean": round(by_hand([2.0, 3.0, 1.5])[0], 6),
        "note": "no interval: 1 failed pairing (a ratio of 0 or with no finite value has no log): "
        "repetition 1: the speculative window emitted no tokens",
        "failed_pairings": [{"repetition": 1, "reason": "the speculative window emitted no tokens"}],
    }
    assert SpeedupInterval.model_validate(speedup).failed_pairings[0].repetition == 1
    whole = run_uncertainty(spec[::2] + spec[3:], base, "b-c1")["speedup"]  # no failure: the interval, rounded as recorded
    mean, low, high = by_hand([2.0, 3.0, 1.5])
    assert (whole["mean"], whole["low"], whole["high"]) == (round(mean, 6), round(low, 6), round(high, 6)) and "note" not in whole


def test_the_end_of_run_table_names_the_method_and_each_failed_pairing():
    from evaluator.measure.intervals import run_uncertainty
    from evaluator.measure.progress import summary

    spec = [window("s", 0, 200, 1.0), window("s", 1, 0, 1.0), window("s", 2, 300, 1.0)]
    base = [window("b", r, 100, 1.0) for r in range(3)]
    row = {"arm": "s", "concurrency": 1, "completed": 3, "failed": 0, "tokens_per_s": 166.7, "ttft_p50": 10.0, "ttft_p99": 10.0}
    row |= {"tpot_p50": 2.0, "acceptance": None, "population": "benchmark-requests", "uncertainty": run_uncertainty(spec, base, "b-c1")}
    lines = summary([row]).splitlines()
    assert "each load's speedup below: geometric mean; Student t over the logs of the paired ratios)" in lines[-2]
    assert lines[-1] == (
        f"speedup s over b-c1 at c=1: {by_hand([2.0, 3.0])[0]:.3f}x (geometric mean of 2 paired repetitions), no interval: 1 failed pairing "
        "(a ratio of 0 or with no finite value has no log): repetition 1: the speculative window emitted no tokens"
    )
    row["uncertainty"] = run_uncertainty(spec[1:2], base[1:2], "b-c1")  # every pairing failed: no mean either
    assert summary([row]).splitlines()[-1].startswith("speedup s over b-c1 at c=1: - (geometric mean of 0 paired repetitions), no interval: 1 failed")
