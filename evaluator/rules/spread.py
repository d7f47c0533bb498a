"""How sure a measured figure is: a speedup claim set against the 95 % interval its run's repetitions
give (record 1.3, runs[].uncertainty). A paired speedup's interval is computed again from its values by
the method its block states: the geometric mean with the Student-t interval of the logs (what sdeval
measure writes), or, for a block that states none (written before the log scale), the arithmetic mean
as that build computed it: a record is read as given, never re-judged by a method it does not state."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from ..engine.claim_figures import as_comparison, claimed_range, claimed_text, speedup_of, speedup_rises_with_value
from ..engine.context import Context
from ..engine.metrics import Bounds, exact
from ..engine.record import Claim, Run, SpeedupInterval
from ..engine.statistics import (
    ARITHMETIC,
    CONFIDENCE,
    GEOMETRIC,
    MeanInterval,
    failed_pairing_note,
    loggable,
    mean_interval,
    speedup_interval_as_stated,
)
from ..engine.wording import LATENCY_WORDS, num
from .registry import Violation, rule


def paired_speedup(ctx: Context, claim: Claim) -> tuple[Run, SpeedupInterval] | None:
    """The run and its paired-speedup block, for a claim of an output-throughput speedup over the
    baseline the block pairs with (a comparison chosen from a sweep or per accelerator is not it)."""
    compared = as_comparison(claim)
    if compared.kind != "speedup" or compared.counted not in (None, "emitted-output"):
        return None
    if compared.at_per_user_speed is not None or compared.throughput_per == "accelerator":
        return None
    run = ctx.run(claim.run)
    if run is None or run.uncertainty is None or run.uncertainty.speedup is None:
        return None
    paired = run.uncertainty.speedup
    return (run, paired) if paired.baseline_run == claim.baseline else None


@dataclass(frozen=True)
class MeasuredSpeedup:
    """A paired speedup block computed again: its interval (None where a pairing failed or no ratio
    was recorded), the method it states and, without an interval, why."""

    interval: MeanInterval | None
    method: str
    note: str | None

    @property
    def average(self) -> str:
        return "geometric mean" if self.method == GEOMETRIC else "arithmetic mean"

    @property
    def method_text(self) -> str:
        return self.method if self.method == GEOMETRIC else f"{self.method}, as the record states"


def measured_speedup(paired: SpeedupInterval) -> MeasuredSpeedup:
    """The block's mean and interval, computed again from its values by the method it states; a
    failed pairing it names, or a ratio with no log under the geometric method, leaves no interval."""
    method = paired.method or ARITHMETIC
    failed = [f"repetition {f.repetition}: {f.reason}" for f in paired.failed_pairings or []]
    if method == GEOMETRIC:
        failed += [f"repetition {r}: a recorded ratio of {v}" for r, v in zip(paired.paired_repetitions, paired.values) if not loggable(v)]
    if failed:
        return MeasuredSpeedup(None, method, failed_pairing_note(failed))
    if not paired.values:
        return MeasuredSpeedup(None, method, paired.note or "no paired repetition recorded")
    m = speedup_interval_as_stated(paired.values, method)
    return MeasuredSpeedup(m, method, m.note)


def claim_interval(ctx: Context, claim: Claim) -> dict | None:
    """The measured interval a claim's figure has (record 1.3), for every output to show beside it:
    a speedup's paired repetitions (by the method its block states, measured_speedup) or an output
    throughput's repetitions (mean and Student-t interval), each computed again from the values, or a
    TTFT or TPOT percentile's bootstrap interval as recorded."""
    run = ctx.run(claim.run)
    if run is None or run.uncertainty is None:
        return None
    u = run.uncertainty
    if (found := paired_speedup(ctx, claim)) is not None:
        return _speedup_interval(found[1], f"paired per-repetition speedup over {claim.baseline}")
    if claim.kind == "output-throughput" and claim.relative is None and claim.counted in (None, "emitted-output") and u.output_throughput:
        if claim.at_per_user_speed is not None or claim.throughput_per == "accelerator":
            return None
        values, figure, unit = u.output_throughput.values, "output throughput (E / T) per repetition", "tokens/s"
    elif (
        claim.kind == "latency"
        and claim.relative is None
        and claim.latency_metric in ("ttft", "tpot")
        and claim.percentile in ("p50", "p90", "p95", "p99")
    ):
        block = getattr(u, f"{claim.latency_metric}_ms")
        entry = getattr(block, claim.percentile) if block is not None else None
        if entry is None:
            return None
        return {
            "figure": f"{claim.percentile} {LATENCY_WORDS[claim.latency_metric]} over the run's requests",
            "unit": "ms",
            "value": entry.value,
            "low": entry.low,
            "high": entry.high,
            "confidence": u.confidence,
            "method": f"percentile bootstrap, {u.bootstrap_resamples or 'unstated'} resamples",
            "note": entry.note,
        }
    else:
        return None
    m = mean_interval(values)
    return {
        "figure": figure,
        "unit": unit,
        "value": m.mean,
        "low": m.low,
        "high": m.high,
        "repetitions": m.n,
        "confidence": CONFIDENCE,
        "method": "mean; Student t over the repetitions",
        "note": m.note,
    }


def _speedup_interval(paired: SpeedupInterval, figure: str) -> dict:
    """claim_interval() for a paired speedup, by the method its block states."""
    measured = measured_speedup(paired)
    m = measured.interval
    return {
        "figure": figure,
        "unit": "x",
        "value": m.mean if m is not None else paired.mean,
        "low": m.low if m is not None else None,
        "high": m.high if m is not None else None,
        "repetitions": len(paired.values),
        "confidence": CONFIDENCE,
        "method": measured.method_text,
        "note": measured.note,
    }


def claimed_speedups(claim: Claim) -> tuple[Fraction | None, Fraction | None] | None:
    """The speedups a claim asserts, (lowest, highest), None for an end it leaves open ('at least 1.3x'
    has no highest); a value copied from a tool's print covers what rounds to it. None when the
    claim's value amounts to no speedup at all ('100 % lower')."""
    ends = claimed_range(claim)
    if claim.value is None:
        return None
    low, high = (exact(ends[0]), exact(ends[1])) if ends is not None else (exact(claim.value), exact(claim.value))
    open_low, open_high = claim.bound == "at-most" and ends is None, claim.bound == "at-least" and ends is None
    if claim.printed_decimals is not None:
        half = Bounds.half_unit_at(claim.printed_decimals)
        low, high = low - half, high + half
    if claim.relative is not None:
        as_low, as_high = speedup_of(claim, low), speedup_of(claim, high)
        if as_low is None or as_high is None:
            return None
        low, high = as_low, as_high
        if not speedup_rises_with_value(claim):
            low, high, open_low, open_high = high, low, open_high, open_low
    return (None if open_low else low, None if open_high else high)


def outside_interval(claimed: tuple[Fraction | None, Fraction | None], low: float, high: float, whose: str) -> list[str]:
    """Why claimed speedups (lowest, highest) are not what a 95 % interval bears out: outside it, or
    faster where the interval reaches 1.0; empty when they are. `whose` names the interval ("the")."""
    lowest, highest = claimed
    reasons = []
    if (highest is not None and highest < Fraction(low)) or (lowest is not None and lowest > Fraction(high)):
        reasons.append(f"lies outside {whose} 95 % interval")
    if lowest is not None and lowest > 1 and Fraction(low) <= 1:
        reasons.append(f"says faster, but {whose} interval reaches 1.0 (faster is inside the noise)")
    return reasons


@rule(
    "speedup-interval",
    "warning",
    "A speedup claimed outside the 95 % interval its repetitions give, or claimed faster where that interval reaches 1.0",
    rationale="""A speedup measured a few times scatters from one repetition to the next: machine load,
    scheduling and the requests' own variety move both arms. When the record gives each repetition's
    speedup, paired with the baseline's repetition at the same load (record 1.3, runs[].uncertainty),
    their geometric mean and the 95 % Student-t interval of their logs, taken back by exp, say how far
    the figure can be trusted: a speedup is a ratio, so 2x and 0.5x lie equally far from 1x, and the
    interval never reaches below 0. A claimed figure outside that interval is not what the repetitions
    bear out, and a claim of "faster" whose interval reaches 1.0 cannot be told from no speedup at all:
    it is inside the noise. The interval is computed again from the repetitions' values, never read
    from the record, by the method the record states (a block written before the log scale states none
    and is read as the arithmetic mean it holds). Below 3 repetitions, or with a failed pairing (a
    repetition whose ratio is 0 or not finite), there is no interval, and nothing is judged here.""",
    failing="A claim of 1.90x where the paired repetitions give 1.70, 1.75 and 1.72 (interval 1.66 to 1.79x), or of 1.9x where they give 0.9, 1.9 and 2.9 (geometric mean 1.71x, interval 0.391 to 7.43x).",
    passing="A claim of 1.90x where the paired repetitions give 1.88, 1.90 and 1.92 (interval 1.85 to 1.95x), or of 'at least' the interval's lower end.",
    reference="docs/record.md, Record 1.3: how sure a measured figure is; docs/claims.md, The checklist behind the rules, item 8 (task dependence and repeatability)",
    ask="Please measure run {run} against {baseline} with more repetitions until the 95 % interval of the paired speedup (now {interval}) holds the claimed {value} and excludes 1.0, or restate the claim within the interval (at least its lower end).",
)
def speedup_interval(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        if (found := paired_speedup(ctx, claim)) is None:
            continue
        run, paired = found
        measured = measured_speedup(paired)
        m = measured.interval
        claimed = claimed_speedups(as_comparison(claim))
        if m is None or m.low is None or m.high is None or claimed is None:
            continue
        interval = f"{num(m.low)} to {num(m.high, 'x')} over {m.n} paired repetitions"
        if reasons := outside_interval(claimed, m.low, m.high, "the"):
            yield Violation(
                f"claim {claim.id}'s {claimed_text(claim)} {' and '.join(reasons)}: run {run.id}'s speedup over {claim.baseline} "
                f"is {num(m.mean, 'x')}, 95 % interval {interval} ({measured.method_text})",
                ("claims", i, "value"),
                claim=claim.id,
                ask={"run": claim.run, "baseline": claim.baseline, "interval": interval, "value": claimed_text(claim)},
            )
