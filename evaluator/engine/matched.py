"""One side's figure of a comparison at a matched point, chosen over its measured runs by a step
function (unit_figures.highest_at_least, never interpolated): the highest throughput among the runs
at least U tokens/s per user fast (matched interactivity, record 1.2), or the highest tokens/s per
user among the runs at least X output tokens/s per accelerator (matched throughput, record 1.3).
claim_figures.py turns a side's point into a claim's figure."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .context import Context
from .metrics import Bounds, RunMetrics, exact, output_rate_bounds
from .record import Run
from .unit_figures import accelerators, highest_at_least, per_user, tokens_per_s, total_tokens_per_s

Needs = tuple[tuple[str | None, str], ...]


def missing_counts(m: RunMetrics, count: str) -> tuple[tuple[str, str], ...]:
    needs = []
    if getattr(m, count) is None:
        needs.append((m.run, count))
    if m.duration_s is None:
        needs.append((m.run, "duration_s"))
    return tuple(needs)


def rate_of(ctx: Context, run: Run, per_accelerator: bool, total: bool = False) -> tuple[Fraction | None, Bounds | None, Needs]:
    """E / T of a run ((I + E) / T with `total`), divided by its accelerators when the claim is per
    accelerator; its bounds; what is missing."""
    m = ctx.metrics[run.id]
    needs: list[tuple[str | None, str]] = list(missing_counts(m, "emitted_tokens"))
    if total and run.counts.input_tokens is None:
        needs.append((run.id, "input_tokens"))
    n = accelerators(ctx, run) if per_accelerator else 1
    if n is None:
        needs.append((run.id, "hardware.count"))
    tps = total_tokens_per_s(run) if total else tokens_per_s(run)
    if needs or tps is None:
        return None, None, tuple(needs)
    assert n is not None  # else needs names hardware.count
    counted = (run.counts.input_tokens or 0) + (m.emitted_tokens or 0) if total else m.emitted_tokens
    bounds = output_rate_bounds(counted, m.duration_s)
    return tps / n, (None if bounds is None else Bounds(bounds.low / n, bounds.high / n)), ()


def side(ctx: Context, first: str | None, more: list[str]) -> list[Run]:
    """One side of a comparison at matched interactivity: its named run and its sweep, once each, as listed."""
    ids = list(dict.fromkeys([i for i in (first, *more) if i is not None]))
    return [run for i in ids if (run := ctx.run(i)) is not None]


@dataclass(frozen=True)
class MatchedPoint:
    """A side's figure at matched interactivity: the run chosen (None when none qualifies), and
    whether any run of the side reached the per-user speed at all."""

    run: Run | None
    value: Fraction | None
    bounds: Bounds | None
    needs: tuple[tuple[str | None, str], ...]
    reached: bool


# Marks the need of a run whose tokens/s per user cannot be read (rules/claims.py names where it lies).
PER_USER_SPEED = "for its tokens/s per user"


def per_user_speed_need(run: Run) -> str:
    """What a run lacks for its tokens/s per user to be read (unit_figures.per_user), named as the
    fields that are missing: an open-loop run needs its TPOT, a closed loop its concurrency or TPOT.
    A stated per_user_throughput is each tool's own definition (docs/record-fields.md), so it is
    said to be there but not matched on, rather than the run being told it lacks a per-user speed."""
    tpot = "latency.tpot_ms p50 or mean"
    what = tpot if run.load.loop == "open" else f"load.concurrency or {tpot}"
    stated = " (its stated per_user_throughput is its tool's own definition, not matched on)" if run.per_user_throughput is not None else ""
    return f"{what} {PER_USER_SPEED}{stated}"


def matched_point(ctx: Context, runs: list[Run], speed: float, per_accelerator: bool) -> MatchedPoint:
    """The highest-throughput measured run whose tokens/s per user is at least `speed` (a step
    function over the sweep: never interpolated between runs)."""
    qualifying: list[tuple[tuple[Run, Fraction, Bounds | None], Fraction, Fraction]] = []
    needs: list[tuple[str | None, str]] = []
    reached = False
    for run in runs:
        rate, bounds, lacking = rate_of(ctx, run, per_accelerator)
        user, _ = per_user(run, tokens_per_s(run))
        if user is None:
            # Whether it qualifies is unknown: everything it lacks is named.
            needs += [(run.id, per_user_speed_need(run)), *lacking]
            continue
        if user < exact(speed):
            continue
        reached = True
        needs += lacking
        if rate is not None:
            qualifying.append(((run, rate, bounds), user, rate))
    best = highest_at_least(qualifying, exact(speed))
    if best is None or needs:
        return MatchedPoint(None, None, None, tuple(needs), reached or bool(needs))
    return MatchedPoint(best[0], best[1], best[2], (), True)


def _per_user_bounds(run: Run, via: str | None, rate: Bounds | None) -> Bounds | None:
    """Where a run's tokens/s per user lies given the precision of what it was read from."""
    if via is not None and via.startswith("1000 / "):
        tpot = run.latency.tpot_ms if run.latency else None
        value = getattr(tpot, via.split()[2]) if tpot else None
        return None if not value else Bounds.exact(1000) / Bounds.written(value)
    concurrency = run.load.concurrency
    return None if rate is None or not concurrency else Bounds(rate.low / concurrency, rate.high / concurrency)


def matched_at_throughput(ctx: Context, runs: list[Run], throughput: float) -> MatchedPoint:
    """The highest tokens/s per user among the measured runs whose output tokens/s per accelerator is
    at least `throughput` (matched throughput per accelerator: a step function over the sweep, never
    interpolated). A run whose throughput per accelerator cannot be read may or may not qualify: what
    it lacks is named, as is a qualifying run's missing per-user speed."""
    qualifying: list[tuple[tuple[Run, Fraction, Bounds | None], Fraction, Fraction]] = []
    needs: list[tuple[str | None, str]] = []
    reached = False
    for run in runs:
        rate, _, lacking = rate_of(ctx, run, per_accelerator=True)
        if rate is None:
            needs += lacking
            continue
        if rate < exact(throughput):
            continue
        reached = True
        user, via = per_user(run, tokens_per_s(run))
        if user is None:
            needs.append((run.id, per_user_speed_need(run)))
            continue
        m = ctx.metrics[run.id]
        qualifying.append(((run, user, _per_user_bounds(run, via, output_rate_bounds(m.emitted_tokens, m.duration_s))), rate, user))
    best = highest_at_least(qualifying, exact(throughput))
    if best is None or needs:
        return MatchedPoint(None, None, None, tuple(needs), reached or bool(needs))
    return MatchedPoint(best[0], best[1], best[2], (), True)
