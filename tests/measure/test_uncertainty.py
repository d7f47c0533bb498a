"""evaluator/engine/statistics.py and evaluator/measure/uncertainty.py against known values: textbook t quantiles, a t interval worked by
hand, pairing by repetition, and the bootstrap's seed, constant data and its too-few-requests rule."""

from __future__ import annotations

import math

import pytest

from evaluator.engine.statistics import (
    TOO_FEW_REPETITIONS,
    TOO_FEW_REQUESTS,
    bootstrap_percentiles,
    mean_interval,
    percentile,
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


def test_speedups_pair_repetition_by_repetition_not_in_list_order():
    spec = [window("speculative", 2, 300, 1.0), window("speculative", 0, 200, 1.0), window("speculative", 1, 100, 1.0)]
    base = [window("target-only", 1, 100, 1.0), window("target-only", 0, 100, 1.0), window("target-only", 2, 150, 1.0)]
    assert paired_speedups(spec, base) == [(0, 2.0), (1, 1.0), (2, 2.0)]
    reps, m = speedup_interval(spec, base)
    assert reps == (0, 1, 2) and m.mean == pytest.approx(5 / 3)
    # s = sqrt(1/3); half = t(0.975, 2) x s / sqrt(3) = 4.3027 / 3
    assert m.low == pytest.approx(5 / 3 - 4.302652729911275 / 3, rel=1e-9)


def test_a_repetition_only_one_arm_finished_is_left_out():
    spec = [window("s", 0, 200, 1.0), window("s", 1, 200, 1.0)]
    base = [window("b", 1, 100, 1.0)]
    assert paired_speedups(spec, base) == [(1, 2.0)]
    assert speedup_interval(spec, []) is None


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
