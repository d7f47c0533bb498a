"""Intervals for figures measured more than once: the mean of repeated figures with its Student-t
interval, the geometric mean of paired ratios with its interval on the log scale, and percentiles with
bootstrap intervals over requests. Pure arithmetic (no scipy), used where a measurement is made
(evaluator/measure/uncertainty.py) and where a claim is judged against it.

- Student t: mean +- t(0.975, n - 1) x s / sqrt(n), s the sample standard deviation of the n values.
  The t quantile is computed here: the t distribution's CDF through the regularized incomplete beta
  function (Lentz's continued fraction), inverted by bisection to 1e-12. Below 3 values there is no
  interval ("too few repetitions for an interval"): with 2 it would be mean +- 12.7 standard errors.
- Ratios (speedups): the same over their logs, taken back by exp: exp(mean(log r) +- t(0.975, n - 1) x
  s_log / sqrt(n)) around the geometric mean exp(mean(log r)). A ratio is multiplicative: 2x and 0.5x
  are equally far from 1x, and no end can fall below 0, where the arithmetic mean of 2x and 0.5x is
  1.25x and its interval can reach below 0. Swapping the two arms inverts every ratio, so the interval
  becomes (1 / high, 1 / low). A ratio <= 0 or not finite has no log: it is a failed pairing.
- Bootstrap: percentile bootstrap, BOOTSTRAP_RESAMPLES resamples drawn with random.Random(seed); the
  interval is the 2.5th and 97.5th percentile of the resampled statistic. A percentile with fewer than
  MIN_BEYOND values beyond it (on its far side) gets none: resampling would only reshuffle its few
  extreme values.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

CONFIDENCE = 0.95
MIN_REPETITIONS = 3
TOO_FEW_REPETITIONS = "too few repetitions for an interval"
# How a paired speedup's interval is computed, as the record states it (runs[].uncertainty.speedup.method).
GEOMETRIC = "geometric mean; Student t over the logs of the paired ratios"
# What builds before the log scale computed; a speedup block stating no method was written by one.
ARITHMETIC = "arithmetic mean; Student t over the paired ratios"
SPEEDUP_METHODS = (GEOMETRIC, ARITHMETIC)
TOO_FEW_REQUESTS = "too few requests beyond this percentile for an interval"
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
MIN_BEYOND = 5
PERCENTILES = {"p50": 0.5, "p90": 0.9, "p95": 0.95, "p99": 0.99}


@dataclass(frozen=True)
class MeanInterval:
    """The mean of per-repetition values and its Student-t interval (None below MIN_REPETITIONS)."""

    values: tuple[float, ...]
    mean: float
    low: float | None
    high: float | None

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def note(self) -> str | None:
        return TOO_FEW_REPETITIONS if self.low is None else None


@dataclass(frozen=True)
class PercentileInterval:
    value: float
    low: float | None
    high: float | None
    note: str | None


# ------------------------------------------------------------------ Student t


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        step = d * c
        h *= step
        if abs(step - 1.0) < eps:
            break
    return h


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_continued_fraction(a, b, x) / a
    return 1.0 - front * _beta_continued_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with df degrees of freedom."""
    tail = 0.5 * regularized_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: int) -> float:
    """The p quantile of Student's t with df degrees of freedom (0.5 < p < 1), by bisection."""
    if not 0.5 < p < 1 or df < 1:
        raise ValueError("t_quantile needs 0.5 < p < 1 and df >= 1")
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        high *= 2.0
    while high - low > 1e-12 * max(1.0, high):
        mid = (low + high) / 2.0
        low, high = (mid, high) if t_cdf(mid, df) < p else (low, mid)
    return (low + high) / 2.0


def mean_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> MeanInterval:
    """The mean and its Student-t interval over the values (None below MIN_REPETITIONS)."""
    if not values:
        raise ValueError("mean_interval needs at least one value")
    n = len(values)
    mean = math.fsum(values) / n
    if n < MIN_REPETITIONS:
        return MeanInterval(tuple(values), mean, None, None)
    s = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    half = t_quantile(0.5 + confidence / 2.0, n - 1) * s / math.sqrt(n)
    return MeanInterval(tuple(values), mean, mean - half, mean + half)


def loggable(ratio: float) -> bool:
    """Whether a ratio has a log: above 0 and finite (a window with no output or no time has none)."""
    return math.isfinite(ratio) and ratio > 0


def ratio_interval(ratios: Sequence[float], confidence: float = CONFIDENCE) -> MeanInterval:
    """The geometric mean of the ratios and exp of the Student-t interval of their logs (None below
    MIN_REPETITIONS). Every ratio must be loggable(): a caller names the ones that are not."""
    if not ratios:
        raise ValueError("ratio_interval needs at least one ratio")
    if not all(loggable(r) for r in ratios):
        raise ValueError(f"ratio_interval needs ratios above 0 and finite, not {[r for r in ratios if not loggable(r)]}")
    logs = mean_interval([math.log(r) for r in ratios], confidence)
    if logs.low is None or logs.high is None:
        return MeanInterval(tuple(ratios), math.exp(logs.mean), None, None)
    return MeanInterval(tuple(ratios), math.exp(logs.mean), math.exp(logs.low), math.exp(logs.high))


def failed_pairing_note(failed: Sequence[str]) -> str:
    """Why a paired speedup has no interval when pairings failed, naming each ("repetition 2: the
    baseline's window emitted no tokens")."""
    return (
        f"no interval: {len(failed)} failed pairing{'s' * (len(failed) != 1)} (a ratio of 0 or with no finite value has no log): {'; '.join(failed)}"
    )


def speedup_interval_as_stated(ratios: Sequence[float], method: str | None, confidence: float = CONFIDENCE) -> MeanInterval:
    """A paired speedup's interval computed again by the method its record states: GEOMETRIC, or
    ARITHMETIC for a block that states that or no method (written by a build before the log scale),
    read as given rather than recomputed another way."""
    if method is None or method == ARITHMETIC:
        return mean_interval(ratios, confidence)
    if method == GEOMETRIC:
        return ratio_interval(ratios, confidence)
    raise ValueError(f"unknown speedup interval method {method!r}")


MIN_MEDIAN_PAIRS = 6  # below 6 values, even the widest order-statistic interval covers less than 95 %
TOO_FEW_PAIRS = "too few paired prompts for an interval on the median (6 are needed)"


@dataclass(frozen=True)
class MedianInterval:
    """A median and its distribution-free interval (order statistics chosen from the binomial(n, 1/2));
    low and high None below MIN_MEDIAN_PAIRS values (TOO_FEW_PAIRS)."""

    values: tuple[float, ...]
    median: float
    low: float | None
    high: float | None


def median_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> MedianInterval:
    """The median and the interval [x(j), x(n + 1 - j)] over the sorted values, j the largest rank
    with P(Binomial(n, 1/2) < j) <= (1 - confidence) / 2: it covers the true median with at least
    that confidence whatever the distribution (no resampling, no seed). None below MIN_MEDIAN_PAIRS."""
    if not values:
        raise ValueError("median_interval needs at least one value")
    ordered = sorted(values)
    n = len(ordered)
    median = percentile(ordered, 0.5)
    if n < MIN_MEDIAN_PAIRS:
        return MedianInterval(tuple(values), median, None, None)
    tail = (1 - confidence) / 2
    below, j = 0.0, 0  # below = P(B <= j - 1), B ~ Binomial(n, 1/2)
    while below + math.comb(n, j) / 2**n <= tail:
        below += math.comb(n, j) / 2**n
        j += 1
    # j ranks lie below x(j) with probability P(B <= j - 1) <= tail; j >= 1 from n = 6 on
    return MedianInterval(tuple(values), median, ordered[j - 1], ordered[n - j])


# ------------------------------------------------------------------ bootstrap


def percentile(ordered: Sequence[float], q: float, method: str = "linear") -> float:
    """The q quantile of sorted values: "linear" interpolates between the closest ranks (numpy's default),
    "lower" takes the rank below (numpy method="lower", as MLPerf Endpoints does)."""
    pos = (len(ordered) - 1) * q
    lo = math.floor(pos)
    if method == "lower":
        return ordered[lo]
    hi = math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def bootstrap_percentiles(
    values: Sequence[float],
    quantiles: dict[str, float] | None = None,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    method: str = "linear",
    confidence: float = CONFIDENCE,
) -> dict[str, PercentileInterval]:
    """Each percentile of the values with its percentile-bootstrap interval over them."""
    quantiles = PERCENTILES if quantiles is None else quantiles
    if not values:
        return {}
    ordered = sorted(values)
    n = len(ordered)
    wanted = {name: q for name, q in quantiles.items() if n * min(q, 1 - q) >= MIN_BEYOND - 1e-9}  # 1 - 0.9 is 0.0999...
    draws: dict[str, list[float]] = {name: [] for name in wanted}
    if wanted:
        rng = random.Random(seed)
        for _ in range(resamples):
            sample = sorted(rng.choices(ordered, k=n))
            for name, q in wanted.items():
                draws[name].append(percentile(sample, q, method))
    tail = (1 - confidence) / 2
    out = {}
    for name, q in quantiles.items():
        point = percentile(ordered, q, method)
        if name in wanted:
            d = sorted(draws[name])
            out[name] = PercentileInterval(point, percentile(d, tail), percentile(d, 1 - tail), None)
        else:
            out[name] = PercentileInterval(point, None, None, TOO_FEW_REQUESTS)
    return out
