"""Load requirements (latency limits, per-request and aggregate throughput), judged at every load
the buyer will run.

A load-dependent requirement is judged at every required load: from a run at that load, or
from the two nearest measured loads either side (same configuration and K band), taking the
figure to change monotonically between them: met when both sides meet it (so it is met at the
side that is harder for it: the higher load for a latency limit or a per-request throughput,
the lower for an aggregate throughput), not met when neither does, undecided otherwise
(requirement-between-loads). Nothing interpolated decides a verdict (MLPerf Endpoints reads
curves as step functions), and beyond the measured range nothing is inferred
(requirement-load-uncovered). A measured failure at any required load makes the requirement
"not met".
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from ..engine.claim_figures import latency_value
from ..engine.context import Context
from ..engine.record import Run
from ..engine.wording import LATENCY_WORDS, disputed, num
from ..rules import requirements as fit_rules
from .across_loads import offered_runs
from .evidence import CONDITIONS, OfferEvidence, fits, gated_cell, mismatches
from .profile import RequirementsProfile
from .results import Cell, PointResult, Requirement, Status

Figure = Callable[[Run], tuple[float | None, str]]  # value, or None and what is missing


def figure_for(req: Requirement, profile: RequirementsProfile, ctx: Context) -> tuple[Figure, Callable[[float], bool], str, float]:
    """The figure a load requirement is judged on, the test it must pass, its unit and its limit."""
    if req.kind == "latency":
        assert req.index is not None  # a latency requirement indexes profile.latency_limits
        lim = profile.latency_limits[req.index]

        def latency(run: Run) -> tuple[float | None, str]:
            value = latency_value(run, lim.metric, lim.percentile)
            return value, f"run {run.id} reports no {lim.percentile} {LATENCY_WORDS[lim.metric]}"

        return latency, lambda v: v < lim.limit_ms, "ms", lim.limit_ms
    if req.kind == "throughput-aggregate":
        least = profile.throughput.aggregate_tokens_per_s
        assert least is not None  # judge.py makes this requirement only from a stated aggregate throughput

        def aggregate(run: Run) -> tuple[float | None, str]:
            return ctx.metrics[run.id].emitted_tokens_per_s, f"run {run.id} gives no emitted tokens over a measured interval"

        return aggregate, lambda v: v >= least, "tokens/s", least
    least = profile.throughput.per_request_tokens_per_s
    assert least is not None  # judge.py makes this requirement only from a stated per-request throughput

    def per_request(run: Run) -> tuple[float | None, str]:
        tps = ctx.metrics[run.id].emitted_tokens_per_s
        if run.load.loop == "open" or run.load.concurrency is None:
            return None, f"run {run.id} has no closed-loop concurrency to divide its output throughput by"
        if tps is None:
            return None, f"run {run.id} gives no emitted tokens over a measured interval"
        return float(Fraction(tps) / run.load.concurrency), ""

    return per_request, lambda v: v >= least, "tokens/s per request", least


def required_points(profile: RequirementsProfile, ctx: Context, runs: list[Run]) -> list[tuple[str, float]]:
    """Each load to judge at: stated concurrencies and rates, and for a band its ends, the offer's
    measured loads inside it, and the edges of the offer's K bands inside it."""
    points: list[tuple[str, float]] = [("concurrency", c) for c in profile.loads.concurrency]
    for band in profile.loads.concurrency_bands:
        a, b = band.min_concurrency, band.max_concurrency
        inside = {r.load.concurrency for r in runs if r.load.concurrency is not None and a < r.load.concurrency < b}
        for run in runs:
            cfg = ctx.configuration(run)
            for kb in (cfg.proposer.k_schedule or []) if cfg else []:
                inside |= {e for e in (kb.min_concurrency, kb.max_concurrency) if a < e < b}
        points += [("concurrency", v) for v in sorted({a, b} | inside)]
    points += [("request_rate", r) for r in profile.loads.request_rates]
    return list(dict.fromkeys(points))


def _band_k(ctx: Context, run: Run, concurrency: float) -> tuple[int | None, int | None]:
    """(index, K) of the configuration's K band holding this concurrency; (None, K) without a schedule."""
    cfg = ctx.configuration(run)
    if cfg is None or not cfg.proposer.k_schedule:
        return None, cfg.proposer.k if cfg else None
    for i, kb in enumerate(cfg.proposer.k_schedule):
        if kb.min_concurrency <= concurrency <= kb.max_concurrency:
            return i, kb.k
    return None, None


def locate(ctx: Context, runs: list[Run], axis: str, load: float) -> tuple[str, list[Run], str]:
    """measured (a run at the load), bracketed (the nearest run on each side, same configuration
    and K band), or none, with the reason when the nearest runs cannot bracket the load."""
    on_axis = [r for r in runs if getattr(r.load, axis) is not None]
    exact = [r for r in on_axis if getattr(r.load, axis) == load]
    if exact:
        return "measured", exact[:1], ""
    below = [r for r in on_axis if getattr(r.load, axis) < load]
    above = [r for r in on_axis if getattr(r.load, axis) > load]
    if not below or not above:
        return "none", [], ""
    lo = max(below, key=lambda r: getattr(r.load, axis))
    hi = min(above, key=lambda r: getattr(r.load, axis))
    if lo.configuration != hi.configuration:
        return "none", [lo, hi], f"the nearest runs {lo.id} and {hi.id} measured different configurations"
    if axis == "concurrency":
        assert lo.load.concurrency is not None and hi.load.concurrency is not None  # both are on the axis
        (band, k), (band_lo, k_lo), (band_hi, k_hi) = (_band_k(ctx, lo, c) for c in (load, lo.load.concurrency, hi.load.concurrency))
        if not band == band_lo == band_hi:
            return (
                "none",
                [lo, hi],
                (f"the nearest runs {lo.id} (K = {k_lo}) and {hi.id} (K = {k_hi}) lie in other K bands than concurrency {num(load)} (K = {k})"),
            )
    return "bracketed", [lo, hi], ""


def _load_text(axis: str, load: float) -> str:
    return f"concurrency {num(load)}" if axis == "concurrency" else f"{num(load)} requests/s"


def _point(profile: RequirementsProfile, offer: OfferEvidence, req: Requirement, axis: str, load: float) -> PointResult:
    ctx = offer.context
    offered = offered_runs(ctx)
    fitting = [r for r in offered if fits(profile, ctx, r)]
    figure, passes, unit, limit = figure_for(req, profile, ctx)
    where = _load_text(axis, load)
    basis, runs, reason = locate(ctx, fitting, axis, load)
    if basis == "none":
        unfit_basis, unfit, _ = locate(ctx, offered, axis, load)
        if unfit_basis != "none" and any(r not in fitting for r in unfit):
            found = [m for r in unfit for m in mismatches(profile, ctx, r, CONDITIONS)]
            codes = tuple(dict.fromkeys(c for c, _ in found))
            return PointResult(
                axis, load, "none", tuple(r.id for r in unfit), (), "not-established", codes, f"at {where}: " + "; ".join(m for _, m in found)
            )
        measured = sorted({getattr(r.load, axis) for r in fitting if getattr(r.load, axis) is not None})
        shown = ", ".join(num(m) for m in measured) or "none"
        why = f"no run at {where}" + (f"; {reason}" if reason else f" nor on both sides of it (measured: {shown})")
        return PointResult(axis, load, "none", tuple(r.id for r in runs), (), "not-established", (fit_rules.LOAD_UNCOVERED.code,), why)
    values = [figure(r) for r in runs]
    missing = [msg for v, msg in values if v is None]
    ids = tuple(r.id for r in runs)
    if missing:
        return PointResult(axis, load, basis, ids, (), "not-established", (fit_rules.FIGURE_MISSING.code,), f"at {where}: " + "; ".join(missing))
    figures = tuple(v for v, _ in values if v is not None)  # every one: none is missing
    if basis == "measured":
        text = f"at {where}: {disputed(limit, figures[0], unit)[1]} (run {ids[0]})"
    else:
        text = (
            f"at {where} (not measured), judged on the measured loads around it, {num(getattr(runs[0].load, axis))} ({disputed(limit, figures[0], unit)[1]}, run {ids[0]}) "
            f"and {num(getattr(runs[1].load, axis))} ({disputed(limit, figures[1], unit)[1]}, run {ids[1]})"
        )
    problems = sorted(set().union(*(offer.problems.get(r.id, set()) for r in runs)))
    if problems:
        return PointResult(
            axis,
            load,
            basis,
            ids,
            figures,
            "not-established",
            tuple(problems),
            f"{text}, but the run's evidence is not established ({', '.join(problems)})",
        )
    verdicts = [passes(v) for v in figures]
    if all(verdicts):
        return PointResult(axis, load, basis, ids, figures, "met", (), text + (": met at both" if basis == "bracketed" else ""))
    if not any(verdicts):
        code = fit_rules.SLO_NOT_MET.code if req.kind == "latency" else fit_rules.THROUGHPUT_BELOW.code
        return PointResult(axis, load, basis, ids, figures, "not-met", (code,), text + (": met at neither" if basis == "bracketed" else ""))
    # Met on one side, not on the other: the crossing lies somewhere between, and where was not measured.
    failed = runs[verdicts.index(False)]
    side = "above" if failed is runs[1] else "below"
    return PointResult(
        axis,
        load,
        basis,
        ids,
        figures,
        "not-established",
        (fit_rules.BETWEEN_LOADS.code,),
        f"{text}: not met at {num(getattr(failed.load, axis))}, the next measured load {side} your {num(load)}, so undecided here"
        " (nothing between them was measured, and no estimate decides it)",
    )


def _combine(points: list[PointResult]) -> tuple[Status, tuple[str, ...]]:
    """A measured failure anywhere is "not met"; else any gap is "not established"; else met."""
    codes = tuple(dict.fromkeys(c for p in points if p.status != "met" for c in p.codes))
    if any(p.status == "not-met" for p in points):
        return "not-met", codes
    if any(p.status == "not-established" for p in points):
        return "not-established", codes
    return "met", ()


def load_cell(profile: RequirementsProfile, req: Requirement, offer: OfferEvidence) -> Cell:
    runs = offered_runs(offer.context)
    points = [_point(profile, offer, req, axis, load) for axis, load in required_points(profile, offer.context, runs)]
    status, codes = _combine(points)
    message = "; ".join(p.message for p in points)
    return gated_cell(req, offer, status, codes, message, tuple(points))
