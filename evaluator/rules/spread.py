"""How sure a measured figure is: a speedup claim set against the 95 % interval its run's repetitions
give (record 1.3, runs[].uncertainty)."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from ..engine.claim_figures import as_comparison, claimed_range, claimed_text, speedup_of, speedup_rises_with_value
from ..engine.context import Context
from ..engine.metrics import Bounds, exact
from ..engine.record import Claim, Run, SpeedupInterval
from ..engine.statistics import CONFIDENCE, mean_interval
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


def claim_interval(ctx: Context, claim: Claim) -> dict | None:
    """The measured interval a claim's figure has (record 1.3), for every output to show beside it:
    a speedup's paired repetitions or an output throughput's repetitions (mean and Student-t interval,
    computed again from the values), or a TTFT or TPOT percentile's bootstrap interval as recorded."""
    run = ctx.run(claim.run)
    if run is None or run.uncertainty is None:
        return None
    u = run.uncertainty
    if (found := paired_speedup(ctx, claim)) is not None:
        values, figure, unit = found[1].values, f"paired per-repetition speedup over {claim.baseline}", "x"
    elif claim.kind == "output-throughput" and claim.relative is None and claim.counted in (None, "emitted-output") and u.output_throughput:
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
        "method": "Student t over the repetitions",
        "note": m.note,
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
    the mean and its 95 % Student-t interval say how far the figure can be trusted. A claimed figure
    outside that interval is not what the repetitions bear out, and a claim of "faster" whose interval
    reaches 1.0 cannot be told from no speedup at all: it is inside the noise. The interval is computed
    again from the repetitions' values, never read from the record. Below 3 repetitions there is no
    interval, and nothing is judged here.""",
    failing="A claim of 1.90x where the paired repetitions give 1.70, 1.75 and 1.72 (interval 1.66 to 1.79x), or of 1.9x where they give 0.9, 1.9 and 2.9 (interval -0.58 to 4.38x).",
    passing="A claim of 1.90x where the paired repetitions give 1.88, 1.90 and 1.92 (interval 1.85 to 1.95x), or of 'at least' the interval's lower end.",
    reference="docs/record.md, Record 1.3: how sure a measured figure is; docs/claims.md, The checklist behind the rules, item 8 (task dependence and repeatability)",
    ask="Please measure run {run} against {baseline} with more repetitions until the 95 % interval of the paired speedup (now {interval}) holds the claimed {value} and excludes 1.0, or restate the claim within the interval (at least its lower end).",
)
def speedup_interval(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        if (found := paired_speedup(ctx, claim)) is None:
            continue
        run, paired = found
        m = mean_interval(paired.values)
        claimed = claimed_speedups(as_comparison(claim))
        if m.low is None or m.high is None or claimed is None:
            continue
        interval = f"{num(m.low)} to {num(m.high, 'x')} over {m.n} paired repetitions"
        if reasons := outside_interval(claimed, m.low, m.high, "the"):
            yield Violation(
                f"claim {claim.id}'s {claimed_text(claim)} {' and '.join(reasons)}: run {run.id}'s speedup over {claim.baseline} "
                f"is {num(m.mean, 'x')} on average, 95 % interval {interval}",
                ("claims", i, "value"),
                claim=claim.id,
                ask={"run": claim.run, "baseline": claim.baseline, "interval": interval, "value": claimed_text(claim)},
            )
