"""How sure a measured figure is: a speedup claim set against the 95 % interval its run's repetitions
give (record 1.3, runs[].uncertainty)."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from ..engine.claim_figures import as_comparison, claimed_range, claimed_text, speedup_of, speedup_rises_with_value
from ..engine.context import Context
from ..engine.metrics import Bounds, exact
from ..engine.record import Claim
from ..engine.statistics import mean_interval
from ..engine.wording import num
from .registry import Violation, rule


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
    failing="A claim of 1.90x where the paired repetitions give 1.70, 1.75 and 1.72 (interval 1.66-1.79x), or of 1.9x where they give 0.9, 1.9 and 2.9 (interval -0.58 to 4.38x).",
    passing="A claim of 1.90x where the paired repetitions give 1.88, 1.90 and 1.92 (interval 1.85-1.95x), or of 'at least' the interval's lower end.",
    reference="docs/record.md, Record 1.3: how sure a measured figure is; docs/claims.md, The checklist behind the rules, item 8 (task dependence and repeatability)",
    ask="Please measure run {run} against {baseline} with more repetitions until the 95 % interval of the paired speedup (now {interval}) holds the claimed {value} and excludes 1.0, or restate the claim within the interval (at least its lower end).",
)
def speedup_interval(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        compared = as_comparison(claim)
        if compared.kind != "speedup" or compared.counted not in (None, "emitted-output"):
            continue
        if compared.at_per_user_speed is not None or compared.throughput_per == "accelerator":
            continue  # each side's figure is chosen from a sweep or divided: not the paired repetitions
        run = ctx.run(claim.run)
        if run is None or run.uncertainty is None or claim.value is None:
            continue
        paired = run.uncertainty.speedup
        if paired is None or paired.baseline_run != claim.baseline:
            continue
        m = mean_interval(paired.values)
        claimed = claimed_speedups(compared)
        if m.low is None or m.high is None or claimed is None:
            continue
        lowest, highest = claimed
        low, high = Fraction(m.low), Fraction(m.high)
        interval = f"{num(m.low)} to {num(m.high, 'x')} over {m.n} paired repetitions"
        reasons = []
        if (highest is not None and highest < low) or (lowest is not None and lowest > high):
            reasons.append("lies outside the 95 % interval")
        if lowest is not None and lowest > 1 and low <= 1:
            reasons.append("says faster, but the interval reaches 1.0 (faster is inside the noise)")
        if reasons:
            yield Violation(
                f"claim {claim.id}'s {claimed_text(claim)} {' and '.join(reasons)}: run {run.id}'s speedup over {claim.baseline} "
                f"is {num(m.mean, 'x')} on average, 95 % interval {interval}",
                ("claims", i, "value"),
                claim=claim.id,
                ask={"run": claim.run, "baseline": claim.baseline, "interval": interval, "value": claimed_text(claim)},
            )
