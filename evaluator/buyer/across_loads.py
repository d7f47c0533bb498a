"""Figures across loads, per offer: speedup against the baseline at every measured
concurrency, and the break-even concurrency where speculation stops paying.

Only measured points decide. The speedup across loads is read as a step function, as MLPerf
Endpoints reads its curves: where it falls below 1 between two measured concurrencies, the
break-even is given as that bracket ("between measured concurrency 64 (1.31x) and 256
(0.984x)"); the linear interpolation between them is shown beside it, labelled as an estimate,
and nothing is decided on it. Outside the measured range nothing is inferred ("not reached in
the measured range").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from ..engine.context import Context
from ..engine.metrics import RunMetrics, speedup
from ..engine.record import Run
from ..engine.wording import num
from ..rules.results import FileAssessment


@dataclass(frozen=True)
class LoadPoint:
    concurrency: int
    run: str
    tokens_per_s: float | None  # E / T of the offered arrangement
    baseline_run: str | None
    baseline_tokens_per_s: float | None
    speedup: float | None
    established: bool  # the offer's evidence, and this run's own, are established
    # Why no baseline when a target-only run at this load was refused (not in the JSON: it is worded there by fields).
    refused: str | None = None

    def as_dict(self) -> dict:
        return {
            "concurrency": self.concurrency,
            "run": self.run,
            "tokens_per_s": self.tokens_per_s,
            "baseline_run": self.baseline_run,
            "baseline_tokens_per_s": self.baseline_tokens_per_s,
            "speedup": self.speedup,
            "established": self.established,
        }


@dataclass(frozen=True)
class BreakEven:
    # measured: a measured point has speedup exactly 1; bracketed: between two measured points (the
    # bracket, with an interpolated estimate beside it); not-reached: speedup stays above 1 over the
    # measured range; below-range: below 1 already at the lowest measured concurrency; unknown:
    # fewer than one point with a speedup.
    status: str
    concurrency: float | None  # a measured break-even only; never the estimate
    bracket: tuple[tuple[int, float], tuple[int, float]] | None  # (concurrency, speedup) measured either side
    estimate: float | None  # linear in concurrency between the bracket's points: an estimate, not a measurement
    text: str

    def as_dict(self) -> dict:
        return {
            "status": self.status,
            "concurrency": self.concurrency,
            "bracket": None
            if self.bracket is None
            else {side: {"concurrency": c, "speedup": s} for side, (c, s) in zip(("below", "above"), self.bracket)},
            "estimate": None
            if self.estimate is None
            else {"concurrency": self.estimate, "interpolated": True, "text": f"estimate: {num(self.estimate, decimals=1)}, interpolated"},
            "text": self.text,
        }


@dataclass(frozen=True)
class Series:
    """One offered configuration across the concurrencies it was measured at."""

    configuration: str
    points: tuple[LoadPoint, ...]
    break_even: BreakEven

    def as_dict(self) -> dict:
        return {
            "configuration": self.configuration,
            "points": [p.as_dict() for p in self.points],
            "break_even": self.break_even.as_dict(),
        }


def break_even(points: list[tuple[int, float]]) -> BreakEven:
    """First concurrency at which the speedup falls to 1, from (concurrency, speedup) points."""
    pts = sorted(points)
    if not pts:
        return BreakEven("unknown", None, None, None, "no speedup or break-even: no baseline run on equal terms at any measured concurrency")
    low, high = pts[0][0], pts[-1][0]
    if pts[0][1] < 1:
        return BreakEven(
            "below-range",
            None,
            None,
            None,
            f"slower than the baseline already at the lowest measured concurrency ({low}); break-even not reached in the measured range",
        )
    for (c1, s1), (c2, s2) in zip(pts, pts[1:]):
        if s1 == 1:
            return BreakEven("measured", float(c1), None, None, f"break-even measured at concurrency {c1}")
        if s1 > 1 > s2:
            # The verdict is the bracket; the crossing inside it was not measured. The linear
            # estimate (on exact fractions) is shown beside it, labelled, for orientation only.
            at = float(Fraction(c1) + (Fraction(s1) - 1) / (Fraction(s1) - Fraction(s2)) * (c2 - c1))
            return BreakEven(
                "bracketed",
                None,
                ((c1, s1), (c2, s2)),
                at,
                f"speculation stops paying between measured concurrency {c1} ({num(s1, 'x')}) and {c2} ({num(s2, 'x')})"
                f" (estimate: {num(at, decimals=1)}, interpolated)",
            )
    if pts[-1][1] == 1:
        return BreakEven("measured", float(high), None, None, f"break-even measured at concurrency {high}")
    return BreakEven(
        "not-reached",
        None,
        None,
        None,
        f"not reached in the measured range (concurrency {low} to {high}; speedup above 1 throughout)",
    )


def offered_runs(ctx: Context) -> list[Run]:
    """The arrangement on offer: speculative runs, or all runs of a plain target-only offer."""
    speculative = [r for r in ctx.record.runs if r.arrangement == "speculative"]
    return speculative or list(ctx.record.runs)


def series_for_offer(
    ctx: Context,
    assessed: FileAssessment,
    established: Callable[[Run], bool],
    baseline_of: Callable[[Run], tuple[str, RunMetrics] | None] | None = None,
) -> list[Series]:
    """Per offered configuration, every run with a stated concurrency, in concurrency order.

    `established(run)` says whether a run's evidence counts; `baseline_of(run)` returns the
    baseline run's id and metrics, and defaults to the offer's own: the baseline the assessment
    paired each run with, or the pairing it refused and why (`assessed.baseline` and
    `assessed.refused`, decided once in rules/assess.py, so the terminal and the PDF agree).
    """
    by_config: dict[str, list[LoadPoint]] = {}
    for run in offered_runs(ctx):
        if run.load.concurrency is None:
            continue
        m = ctx.metrics[run.id]
        if baseline_of is None:
            own = assessed.baseline.get(run.id)
            base = (own, ctx.metrics[own]) if own is not None else None
        else:
            base = baseline_of(run)
        base_id, bm = base if base is not None else (None, None)
        by_config.setdefault(run.configuration, []).append(
            LoadPoint(
                run.load.concurrency,
                run.id,
                m.emitted_tokens_per_s,
                base_id,
                bm.emitted_tokens_per_s if bm else None,
                speedup(m, bm) if bm else None,
                established(run),
                assessed.refused.get(run.id) if baseline_of is None and base is None else None,
            )
        )
    out = []
    for config, points in by_config.items():
        points.sort(key=lambda p: p.concurrency)
        measured = [(p.concurrency, p.speedup) for p in points if p.speedup is not None]
        out.append(Series(config, tuple(points), break_even(measured)))
    return out
