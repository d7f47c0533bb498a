"""Derived figures, always computed from counts and intervals (vLLM's definitions).

acceptance rate          = A / P
mean acceptance length   = 1 + A / S        (counts the bonus token)
emitted tokens/s         = E / T            (the only one that is an output throughput)
accepted, proposed /s    = A / T, P / T     (what an inflated "tokens/s" often counts)
speedup                  = (E / T) / (E_base / T_base)

Arithmetic is done on exact fractions of the decimal values written in the record and
rounded once at the end, so SD-201's 15 tokens in 0.075 s is exactly 200.0 tokens/s
and the vLLM example's 10/129 is exactly 0.07751937984496124.

Shown figures use those exact values. Only the decision whether a stated figure (a tool's
reported rate, a claim's value) agrees with a recomputed one uses `Bounds`: a figure computed
from inputs written to some precision is known only within the range those inputs allow (a
duration written 0.08 s lies in [0.075, 0.085]), and only a stated figure outside that range
disagrees with it.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from fractions import Fraction

from .record import EvidenceRecord, Run


def exact(value: int | float) -> Fraction:
    """The decimal number as written (0.075 is 3/40, not the nearest binary float)."""
    return Fraction(value) if isinstance(value, int) else Fraction(repr(value))


def ratio(numerator: int | float | None, denominator: int | float | None) -> float | None:
    if numerator is None or denominator is None or denominator == 0:
        return None
    return float(exact(numerator) / exact(denominator))


@dataclass(frozen=True)
class Spread:
    """Output throughput across repetitions."""

    repetitions: int
    tokens_per_s: list[float]
    median: float
    minimum: float
    maximum: float
    stdev: float | None
    # (max - min) / median: how far apart the best and worst repetition are.
    relative_range: float | None


@dataclass(frozen=True)
class RunMetrics:
    run: str
    verification_steps: int | None
    proposed_drafts: int | None
    accepted_drafts: int | None
    bonus_tokens: int | None
    emitted_tokens: int | None
    duration_s: float | None
    acceptance_rate: float | None
    mean_acceptance_length: float | None
    emitted_tokens_per_s: float | None
    accepted_tokens_per_s: float | None
    proposed_tokens_per_s: float | None
    spread: Spread | None

    def as_dict(self) -> dict:
        return asdict(self)


def run_metrics(run: Run) -> RunMetrics:
    c = run.counts
    t = run.interval.duration_s
    acceptance_length = None
    if c.accepted_drafts is not None and c.verification_steps:
        acceptance_length = float(1 + exact(c.accepted_drafts) / exact(c.verification_steps))
    return RunMetrics(
        run=run.id,
        verification_steps=c.verification_steps,
        proposed_drafts=c.proposed_drafts,
        accepted_drafts=c.accepted_drafts,
        bonus_tokens=c.bonus_tokens,
        emitted_tokens=c.emitted_tokens,
        duration_s=t,
        acceptance_rate=ratio(c.accepted_drafts, c.proposed_drafts),
        mean_acceptance_length=acceptance_length,
        emitted_tokens_per_s=ratio(c.emitted_tokens, t),
        accepted_tokens_per_s=ratio(c.accepted_drafts, t),
        proposed_tokens_per_s=ratio(c.proposed_drafts, t),
        spread=spread(run),
    )


def spread(run: Run) -> Spread | None:
    if not run.repetitions:
        return None
    rates = [float(exact(r.emitted_tokens) / exact(r.duration_s)) for r in run.repetitions]
    median = statistics.median(rates)
    return Spread(
        repetitions=len(rates),
        tokens_per_s=rates,
        median=median,
        minimum=min(rates),
        maximum=max(rates),
        stdev=statistics.stdev(rates) if len(rates) > 1 else None,
        relative_range=(max(rates) - min(rates)) / median if median else None,
    )


def speedup(run: RunMetrics, baseline: RunMetrics) -> float | None:
    """Output throughput of the run over its baseline's, both over complete intervals."""
    if run.emitted_tokens is None or not run.duration_s or baseline.emitted_tokens is None or not baseline.duration_s:
        return None
    if baseline.emitted_tokens == 0:
        return None
    return float((exact(run.emitted_tokens) / exact(run.duration_s)) / (exact(baseline.emitted_tokens) / exact(baseline.duration_s)))


def record_metrics(record: EvidenceRecord) -> dict[str, RunMetrics]:
    return {run.id: run_metrics(run) for run in record.runs}


# Relative error of arithmetic in binary floating point, with room to spare (doubles carry ~1e-16).
FLOAT_NOISE = Fraction(1, 10**12)


@dataclass(frozen=True)
class Bounds:
    """Where a figure lies, given the precision its inputs were written to (exact fractions)."""

    low: Fraction
    high: Fraction

    @classmethod
    def exact(cls, value: int | float | Fraction) -> Bounds:
        x = value if isinstance(value, Fraction) else exact(value)
        return cls(x, x)

    @classmethod
    def written(cls, value: int | float) -> Bounds:
        """A measured decimal as written: 0.08 covers [0.075, 0.085]; a count (int) is exact."""
        if isinstance(value, int):
            return cls.exact(value)
        half = _half_unit(value)
        x = exact(value)
        return cls(max(x - half, Fraction(0)), x + half)

    @staticmethod
    def half_unit_at(decimals: int) -> Fraction:
        """Half a unit in the last of `decimals` decimal places (2 -> 0.005): how far a figure
        printed to that many decimals may lie from the one it was rounded from."""
        return Fraction(1, 2 * 10**decimals)

    def __truediv__(self, other: Bounds) -> Bounds | None:
        """For non-negative figures; None when the divisor's range reaches zero."""
        if other.low <= 0:
            return None
        return Bounds(self.low / other.high, self.high / other.low)

    def allows(self, stated: float, *, relative: float = 0, stated_precision: bool = False) -> bool:
        """Whether a stated figure agrees with this range: within `relative` of some value in it
        and, with `stated_precision`, also allowing the stated figure's own rounding."""
        value = exact(stated)
        slack = _half_unit(stated) if stated_precision else Fraction(0)
        # A figure a tool computed in binary floating point is off in its last bits (3.0602409638554215
        # for 1 + 34200 / 16600 = 3.06024096385542168...): that is not another figure.
        noise = FLOAT_NOISE * max(abs(self.low), abs(self.high))
        low = self.low * (1 - exact(relative)) - slack - noise
        high = self.high * (1 + exact(relative)) + slack + noise
        return low <= value <= high


def _half_unit(value: float) -> Fraction:
    """Half a unit in the last decimal place the value was written with (0.78 -> 0.005)."""
    text = repr(float(value)).lower()
    mantissa, _, exponent = text.partition("e")
    decimals = max(0, len(mantissa.partition(".")[2].rstrip("0")) - int(exponent or 0))
    return Bounds.half_unit_at(decimals)


# A benchmark tool times its interval from its own event timestamps, which it merges or rounds
# below about a millisecond (guidellm merges token events under 0.1 ms apart); a tool's rate and
# E / T over the interval it wrote may differ by that much without meaning another interval.
TOOL_TIMING_RESOLUTION_S = Fraction(1, 1000)


def output_rate_bounds(tokens: int | None, seconds: float | None, *, timing_resolution: Fraction = Fraction(0)) -> Bounds | None:
    """Where tokens / seconds lies when the duration is known to the precision it was written
    (and, for a tool's own timing, to its resolution)."""
    if tokens is None or seconds is None:
        return None
    t = Bounds.written(seconds)
    t = Bounds(max(t.low - timing_resolution, Fraction(0)), t.high + timing_resolution)
    return Bounds.exact(tokens) / t


def agrees_at_stated_precision(reported: float, computed: float) -> bool:
    """True when a tool's or vendor's figure equals the computed one at the precision it was stated to.

    "0.78" agrees with 0.7752 (rounded to two places), "0.8" with 0.7752, "0.77" does not.
    """
    return abs(exact(reported) - Fraction(computed)) <= _half_unit(reported)


def within_relative(claimed: float, computed: float, tolerance: float) -> bool:
    """Headline claims ("200 tokens/s", "3x") are rounded by vendors; allow a stated relative margin."""
    return abs(exact(claimed) - Fraction(computed)) <= exact(tolerance) * abs(Fraction(computed))
