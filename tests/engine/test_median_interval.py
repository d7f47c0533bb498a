"""The distribution-free interval on a median that the per-task speedups use (statistics.median_interval)."""

from __future__ import annotations

import math
import random

import pytest

from evaluator.engine.statistics import median_interval


def test_ranks_are_the_binomial_tables():
    # the classic table (Conover, Practical Nonparametric Statistics): n = 6 -> (1, 6), 16 -> (4, 13), 30 -> (10, 21)
    for n, (j, k) in ((6, (1, 6)), (16, (4, 13)), (30, (10, 21))):
        m = median_interval([float(v) for v in range(n, 0, -1)])  # unsorted on purpose
        assert (m.low, m.high) == (float(j), float(k)), n
        # its coverage is at least 95 %: P(j <= B <= n - j) for B ~ Binomial(n, 1/2)
        assert sum(math.comb(n, i) for i in range(j, n - j + 1)) / 2**n >= 0.95


def test_below_six_values_there_is_no_interval():
    m = median_interval([1.0, 2.0, 3.0, 4.0, 5.0])
    assert (m.median, m.low, m.high) == (3.0, None, None)
    with pytest.raises(ValueError):
        median_interval([])


def test_it_covers_the_true_median_about_95_percent_of_the_time():
    rng = random.Random(7)
    covered = 0
    for _ in range(2000):
        m = median_interval([rng.lognormvariate(0.0, 0.5) for _ in range(16)])  # the true median is 1.0
        covered += m.low <= 1.0 <= m.high
    assert 0.95 <= covered / 2000 <= 0.99  # exact coverage at n = 16 is 97.9 %
