"""What a claim's number should be, recomputed from the run (and baseline) it names.

Two figures per claim: the one for what the claim says it counts (so a claimed
"200 tokens/s of proposed drafts" is checked against P / T), and the output
figure the claim ought to rest on (E / T, or the output-throughput speedup).

Which baseline a run is compared with is baselines.py's; every speedup is metrics.speedup.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .context import Context
from .metrics import Bounds, RunMetrics, exact, output_rate_bounds, speedup
from .record import Claim, Run
from .wording import num


@dataclass(frozen=True)
class Figure:
    name: str  # what was computed, in a buyer's words
    value: float | None
    unit: str
    # What the record lacks to compute it: (run id, field) for each missing input, the run id
    # None for what no run holds (no baseline named, the claim not saying which latency).
    needs: tuple[tuple[str | None, str], ...] = ()
    # Where the figure lies given the precision its inputs were written to: a stated figure is
    # compared with this range, never with the exact value alone (metrics.Bounds).
    bounds: Bounds | None = None


# Every claim kind x what it counts (None: not stated, the kind's own basis): how sdeval recomputes
# it, or the rule that refuses it. The formula table in docs/claims.md is checked against this one.
NOT_OUTPUT = "throughput-basis (drafts are not output)"
NO_TIME = "acceptance-only (contains no time)"
UNDEFINED = "claim-basis-undefined"
CLAIM_FORMULAS: dict[tuple[str, str | None], str] = {
    ("output-throughput", None): "E / T",
    ("output-throughput", "emitted-output"): "E / T",
    ("output-throughput", "per-user-output"): "the run's per-user throughput at the claim's statistic (as stated for the run)",
    ("output-throughput", "proposed-drafts"): "P / T, refused by " + NOT_OUTPUT,
    ("output-throughput", "accepted-drafts"): "A / T, refused by " + NOT_OUTPUT,
    ("output-throughput", "acceptance-length"): "1 + A / S, refused by " + NO_TIME,
    ("output-throughput", "acceptance-rate"): "A / P, refused by " + NO_TIME,
    ("output-throughput", "response-time"): UNDEFINED,
    ("output-throughput", "requests"): UNDEFINED,
    ("speedup", None): "(E / T) / (E_b / T_b)",
    ("speedup", "emitted-output"): "(E / T) / (E_b / T_b)",
    ("speedup", "per-user-output"): "per-user throughput / per-user throughput_b, same statistic",
    ("speedup", "response-time"): "latency_b / latency, same latency metric and statistic",
    ("speedup", "requests"): "(N / T) / (N_b / T_b), completed requests per second",
    ("speedup", "proposed-drafts"): "refused by " + NOT_OUTPUT,
    ("speedup", "accepted-drafts"): "refused by " + NOT_OUTPUT,
    ("speedup", "acceptance-length"): "1 + A / S, refused by " + NO_TIME,
    ("speedup", "acceptance-rate"): "A / P, refused by " + NO_TIME,
    ("latency", None): "the run's latency at the claim's metric and statistic",
    ("latency", "response-time"): "the run's latency at the claim's metric and statistic",
    ("latency", "acceptance-length"): "1 + A / S, refused by " + NO_TIME,
    ("latency", "acceptance-rate"): "A / P, refused by " + NO_TIME,
    ("latency", "emitted-output"): UNDEFINED,
    ("latency", "per-user-output"): UNDEFINED,
    ("latency", "proposed-drafts"): UNDEFINED,
    ("latency", "accepted-drafts"): UNDEFINED,
    ("latency", "requests"): UNDEFINED,
    ("capacity", None): "N / T with a unit per second, else the run's closed-loop concurrency",
    ("capacity", "requests"): "N / T with a unit per second, else the run's closed-loop concurrency",
    ("capacity", "acceptance-length"): "1 + A / S, refused by " + NO_TIME,
    ("capacity", "acceptance-rate"): "A / P, refused by " + NO_TIME,
    ("capacity", "emitted-output"): UNDEFINED,
    ("capacity", "per-user-output"): UNDEFINED,
    ("capacity", "proposed-drafts"): UNDEFINED,
    ("capacity", "accepted-drafts"): UNDEFINED,
    ("capacity", "response-time"): UNDEFINED,
    ("acceptance-rate", None): "A / P",
    ("acceptance-rate", "acceptance-rate"): "A / P",
    ("acceptance-length", None): "1 + A / S",
    ("acceptance-length", "acceptance-length"): "1 + A / S",
}
# Any other acceptance-rate or acceptance-length basis is undefined; a lossless claim has no
# number (lossy-acceptance and quality-missing judge it).


def formula(kind: str, counted: str | None) -> str | None:
    """How a claim of this kind and basis is recomputed, or the rule that refuses it; None for lossless."""
    if kind == "lossless":
        return None
    return CLAIM_FORMULAS.get((kind, counted), UNDEFINED)


def basis_undefined(claim: Claim) -> bool:
    return formula(claim.kind, claim.counted) == UNDEFINED


def _rate(name: str, count: int | None, m: RunMetrics, field: str, value: float | None) -> Figure:
    return Figure(name, value, "tokens/s", _missing(m, field), output_rate_bounds(count, m.duration_s))


def _throughput(m: RunMetrics, counted: str | None) -> Figure:
    if counted == "proposed-drafts":
        return _rate("proposed draft tokens/s (P / T)", m.proposed_drafts, m, "proposed_drafts", m.proposed_tokens_per_s)
    if counted == "accepted-drafts":
        return _rate("accepted draft tokens/s (A / T)", m.accepted_drafts, m, "accepted_drafts", m.accepted_tokens_per_s)
    if counted == "acceptance-length":
        return _acceptance_length(m)
    if counted == "acceptance-rate":
        return _acceptance_rate(m)
    return _rate("emitted output tokens/s (E / T)", m.emitted_tokens, m, "emitted_tokens", m.emitted_tokens_per_s)


def _exact_bounds(numerator: int | None, denominator: int | None, plus_one: bool = False) -> Bounds | None:
    """Ratios of counts are exact: their bounds are the value itself."""
    if numerator is None or not denominator:
        return None
    return Bounds.exact((1 if plus_one else 0) + Fraction(numerator, denominator))


def _acceptance_length(m: RunMetrics) -> Figure:
    return Figure(
        "mean acceptance length (1 + A / S)",
        m.mean_acceptance_length,
        "tokens/step",
        tuple((m.run, n) for n in ("accepted_drafts", "verification_steps") if getattr(m, n) is None),
        _exact_bounds(m.accepted_drafts, m.verification_steps, plus_one=True),
    )


def _acceptance_rate(m: RunMetrics) -> Figure:
    return Figure(
        "draft acceptance rate (A / P)",
        m.acceptance_rate,
        "fraction",
        tuple((m.run, n) for n in ("accepted_drafts", "proposed_drafts") if getattr(m, n) is None),
        _exact_bounds(m.accepted_drafts, m.proposed_drafts),
    )


def _missing(m: RunMetrics, count: str) -> tuple[tuple[str, str], ...]:
    needs = []
    if getattr(m, count) is None:
        needs.append((m.run, count))
    if m.duration_s is None:
        needs.append((m.run, "duration_s"))
    return tuple(needs)


def output_speedup(ctx: Context, claim: Claim) -> Figure:
    """E / T of the run over E / T of its baseline; names every count either run lacks."""
    name = "output-throughput speedup against the baseline"
    run, base = ctx.run(claim.run), ctx.run(claim.baseline)
    if run is None:
        return Figure(name, None, "x", ((None, "run"),))
    m = ctx.metrics[run.id]
    needs = list(_missing(m, "emitted_tokens"))
    if base is None:
        return Figure(name, None, "x", (*needs, (None, "baseline")))
    b = ctx.metrics[base.id]
    needs += [n for n in _missing(b, "emitted_tokens") if base is not run]
    ours, theirs = output_rate_bounds(m.emitted_tokens, m.duration_s), output_rate_bounds(b.emitted_tokens, b.duration_s)
    bounds = ours / theirs if ours is not None and theirs is not None else None
    return Figure(name, speedup(m, b), "x", tuple(needs), bounds)


def latency_value(run: Run, metric: str | None, percentile: str | None) -> float | None:
    if run.latency is None or metric is None or percentile is None:
        return None
    block = getattr(run.latency, f"{metric}_ms")
    return None if block is None else getattr(block, percentile)


def _latency(run: Run, claim: Claim) -> tuple[float | None, tuple[tuple[str | None, str], ...]]:
    if claim.latency_metric is None or claim.percentile is None:
        missing = [name for name in ("latency_metric", "percentile") if getattr(claim, name) is None]
        return None, tuple((None, name) for name in missing)
    value = latency_value(run, claim.latency_metric, claim.percentile)
    return value, (() if value is not None else ((run.id, f"latency.{claim.latency_metric}_ms.{claim.percentile}"),))


def _response_time_speedup(ctx: Context, claim: Claim) -> Figure:
    """A latency speedup: the baseline's latency over the run's, same latency and percentile."""
    from .wording import LATENCY_WORDS

    statistic = claim.percentile if claim.percentile not in (None, "unstated") else "unstated statistic"
    latency = LATENCY_WORDS.get(claim.latency_metric or "", "unstated latency")
    name = f"response-time speedup ({statistic} {latency}, baseline / run)"
    run, base = ctx.run(claim.run), ctx.run(claim.baseline)
    assert run is not None  # claimed_figure returns None first when the claim's run is missing
    ours, our_needs = _latency(run, claim)
    needs = list(our_needs)
    if base is None:
        return Figure(name, None, "x", (*needs, (None, "baseline")))
    theirs, their_needs = _latency(base, claim)
    needs += [n for n in their_needs if n not in needs]
    if ours is None or theirs is None or ours == 0:
        return Figure(name, None, "x", tuple(needs))
    return Figure(name, float(exact(theirs) / exact(ours)), "x", tuple(needs), Bounds.written(theirs) / Bounds.written(ours))


def request_rate(run: Run) -> Figure:
    """Completed requests per second over the run's interval (N / T)."""
    name = f"completed requests per second (N / T) of run {run.id}"
    n, t = run.workload.num_requests, run.interval.duration_s
    needs = tuple((run.id, f) for f, v in (("workload.num_requests", n), ("duration_s", t)) if v is None)
    if n is None or t is None:  # what needs lists
        return Figure(name, None, "requests/s", needs)
    return Figure(name, float(exact(n) / exact(t)), "requests/s", (), output_rate_bounds(n, t))


def _request_speedup(ctx: Context, claim: Claim) -> Figure:
    name = "completed requests per second against the baseline"
    run, base = ctx.run(claim.run), ctx.run(claim.baseline)
    assert run is not None  # claimed_figure returns None first when the claim's run is missing
    ours = request_rate(run)
    if base is None:
        return Figure(name, None, "x", (*ours.needs, (None, "baseline")))
    theirs = request_rate(base)
    needs = (*ours.needs, *(n for n in theirs.needs if base is not run))
    if needs or not theirs.value:
        return Figure(name, None, "x", needs)
    assert ours.value is not None  # request_rate gives a value whenever nothing is missing
    bounds = ours.bounds / theirs.bounds if ours.bounds and theirs.bounds else None
    return Figure(name, ours.value / theirs.value, "x", (), bounds)


def _capacity(run: Run, claim: Claim) -> Figure:
    """Requests per second when the claim's unit is per second; otherwise the concurrency the
    run held (closed loop): a capacity is what was measured, never more."""
    if "/s" in (claim.unit or "") or "per s" in (claim.unit or ""):
        return request_rate(run)
    name = f"closed-loop concurrency of run {run.id}"
    c = run.load.concurrency
    if c is None or run.load.loop == "open":
        return Figure(name, None, "requests", ((run.id, "load.concurrency"),))
    return Figure(name, float(c), "requests", (), Bounds.exact(c))


def _per_user_value(run: Run, claim: Claim) -> tuple[float | None, tuple[tuple[str, str], ...]]:
    figure = run.per_user_throughput
    # A run's per-user figure answers a claim unless both state different statistics.
    if figure is None or (claim.percentile and figure.statistic and claim.percentile != figure.statistic):
        wanted = f"per_user_throughput ({claim.percentile})" if claim.percentile else "per_user_throughput"
        return None, ((run.id, wanted),)
    return figure.tokens_per_s, ()


def _per_user(run: Run, claim: Claim) -> Figure:
    value, needs = _per_user_value(run, claim)
    bounds = Bounds.written(value) if value is not None else None
    return Figure("per-user output tokens/s (as stated for the run)", value, "tokens/s", needs, bounds)


def _per_user_speedup(ctx: Context, claim: Claim) -> Figure:
    name = "per-user output-throughput speedup against the baseline"
    run, base = ctx.run(claim.run), ctx.run(claim.baseline)
    assert run is not None  # claimed_figure returns None first when the claim's run is missing
    ours, needs = _per_user_value(run, claim)
    if base is None:
        return Figure(name, None, "x", (*needs, (None, "baseline")))
    theirs, their_needs = _per_user_value(base, claim)
    needs = (*needs, *(n for n in their_needs if base is not run))
    if ours is None or not theirs:
        return Figure(name, None, "x", needs)
    return Figure(name, float(exact(ours) / exact(theirs)), "x", needs, Bounds.written(ours) / Bounds.written(theirs))


def claimed_figure(ctx: Context, claim: Claim) -> Figure | None:
    """The figure for what the claim says it counts (CLAIM_FORMULAS); None when no formula applies
    (lossless, a basis claim-basis-undefined or throughput-basis refuses)."""
    run = ctx.run(claim.run)
    if run is None or claim.kind == "lossless" or basis_undefined(claim):
        return None
    m = ctx.metrics[run.id]
    if claim.counted == "acceptance-length":
        return _acceptance_length(m)
    if claim.counted == "acceptance-rate":
        return _acceptance_rate(m)
    if claim.kind == "output-throughput":
        return _per_user(run, claim) if claim.counted == "per-user-output" else _throughput(m, claim.counted)
    if claim.kind == "speedup":
        if claim.counted == "acceptance-length":
            return _acceptance_length(m)
        if claim.counted == "acceptance-rate":
            return _acceptance_rate(m)
        if claim.counted in (None, "emitted-output"):
            return output_speedup(ctx, claim)
        if claim.counted == "per-user-output":
            return _per_user_speedup(ctx, claim)
        if claim.counted == "response-time":
            return _response_time_speedup(ctx, claim)
        if claim.counted == "requests":
            return _request_speedup(ctx, claim)
        return None  # drafts: throughput-basis refuses them
    if claim.kind == "latency":
        value, needs = _latency(run, claim)
        bounds = Bounds.written(value) if value is not None else None
        return Figure(f"{claim.percentile} {claim.latency_metric} latency", value, "ms", needs, bounds)
    if claim.kind == "capacity":
        return _capacity(run, claim)
    if claim.kind == "acceptance-rate":
        return _acceptance_rate(m)
    if claim.kind == "acceptance-length":
        return _acceptance_length(m)
    return None


def output_figure(ctx: Context, claim: Claim) -> Figure | None:
    """The emitted-output figure a speed claim should rest on, for messages and reports."""
    run = ctx.run(claim.run)
    if run is None:
        return None
    if claim.counted in ("per-user-output", "response-time"):
        return claimed_figure(ctx, claim)
    if claim.kind == "output-throughput":
        return _throughput(ctx.metrics[run.id], "emitted-output")
    if claim.kind == "speedup":
        return output_speedup(ctx, claim)
    return None


def _scaled(claim: Claim, value: float | None) -> float | None:
    """A claimed number on the figure's own scale: percentages become fractions."""
    if value is None:
        return None
    if claim.kind == "acceptance-rate" and (claim.unit or "").strip().lower() in ("%", "percent", "per cent"):
        return value / 100
    return value


def claimed_value(claim: Claim) -> float | None:
    """The claimed number on the figure's own scale (for a range, its low end)."""
    return _scaled(claim, claim.value)


def claimed_range(claim: Claim) -> tuple[float, float] | None:
    """A claim stated as a range: (low, high) on the figure's scale, whichever way round it was written."""
    if claim.value is None or claim.value_high is None:
        return None
    low, high = _scaled(claim, claim.value), _scaled(claim, claim.value_high)
    assert low is not None and high is not None  # _scaled keeps a number a number
    ends = sorted((low, high))
    return ends[0], ends[1]


def claimed_text(claim: Claim, unit: str | None = None) -> str:
    """The claimed figure as the vendor stated it: '2.8x', '2.2-3.6x', 'up to 2.8x', 'at least 250 tokens/s';
    'figure' for a claim that states no number ('the claimed figure')."""
    unit = (claim.unit or "") if unit is None else unit
    if claim.value is None:
        return "figure"
    if claim.value is not None and claim.value_high is not None:
        return f"{num(claim.value)}-{num(claim.value_high, unit)}"
    figure = num(claim.value, unit)
    if claim.bound is not None:
        return f"{claim.bound.replace('-', ' ')} {figure}"
    return figure


# ------------------------------------------------------------------------- baselines

# How tokens are generated differs by arrangement (proposal + verification, or plain decode);
# the rest of the interval definition must match.
