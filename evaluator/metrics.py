"""Derived figures, always computed from counts and intervals (vLLM's definitions).

acceptance rate          = A / P
mean acceptance length   = 1 + A / S        (counts the bonus token)
emitted tokens/s         = E / T            (the only one that is an output throughput)
accepted, proposed /s    = A / T, P / T     (what an inflated "tokens/s" often counts)
speedup                  = (E / T) / (E_base / T_base)

Arithmetic is done on exact fractions of the decimal values written in the record and
rounded once at the end, so SD-201's 15 tokens in 0.075 s is exactly 200.0 tokens/s
and the vLLM example's 10/129 is exactly 0.07751937984496124.
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
    return float(
        (exact(run.emitted_tokens) / exact(run.duration_s))
        / (exact(baseline.emitted_tokens) / exact(baseline.duration_s))
    )


def record_metrics(record: EvidenceRecord) -> dict[str, RunMetrics]:
    return {run.id: run_metrics(run) for run in record.runs}


def agrees_at_stated_precision(reported: float, computed: float) -> bool:
    """True when a tool's or vendor's figure equals the computed one at the precision it was stated to.

    "0.78" agrees with 0.7752 (rounded to two places), "0.8" with 0.7752, "0.77" does not.
    """
    text = repr(float(reported)).lower()
    mantissa, _, exponent = text.partition("e")
    decimals = max(0, len(mantissa.partition(".")[2].rstrip("0")) - int(exponent or 0))
    half_unit = Fraction(1, 2 * 10**decimals)
    return abs(exact(reported) - Fraction(computed)) <= half_unit


def within_relative(claimed: float, computed: float, tolerance: float) -> bool:
    """Headline claims ("200 tokens/s", "3x") are rounded by vendors; allow a stated relative margin."""
    return abs(exact(claimed) - Fraction(computed)) <= exact(tolerance) * abs(Fraction(computed))
