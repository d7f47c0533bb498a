"""What a claim's number should be, recomputed from the run (and baseline) it names.

Two figures per claim: the one for what the claim says it counts (so a claimed
"200 tokens/s of proposed drafts" is checked against P / T), and the output
figure the claim ought to rest on (E / T, or the output-throughput speedup).

Which baseline a run is compared with is baselines.py's; every speedup is metrics.speedup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from .context import Context
from .matched import MatchedPoint, matched_at_throughput, matched_point, missing_counts, rate_of, side
from .metrics import Bounds, RunMetrics, exact, output_rate_bounds, speedup
from .record import Claim, Run
from .unit_figures import accelerators, cost_per_million, hourly_price, tokens_per_s
from .wording import claimed, num


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
COST = (
    "price per hour / ((E / T) x 3600) x 1,000,000 per million output tokens, the hour's price per_accelerator_hour x the "
    "configuration's accelerators (hardware.count) or per_server_hour x whole servers (engine/unit_figures.py); refused by "
    "claim-basis-undefined when the claim states no price"
)
CLAIM_FORMULAS: dict[tuple[str, str | None], str] = {
    # MLPerf Endpoints names E / T system_tps, and a per-user speed tps_per_user = 1000 / P90 TPOT (ms).
    ("output-throughput", None): "E / T (MLPerf Endpoints' system_tps)",
    ("output-throughput", "emitted-output"): "E / T (MLPerf Endpoints' system_tps)",
    ("output-throughput", "per-user-output"): (
        "the run's per-user throughput at the claim's statistic (as stated for the run; MLPerf Endpoints' tps_per_user is 1000 / P90 TPOT in ms)"
    ),
    ("output-throughput", "total-tokens"): "(I + E) / T, prompt plus output tokens (record 1.3; both counts required)",
    ("output-throughput", "proposed-drafts"): "P / T, refused by " + NOT_OUTPUT,
    ("output-throughput", "accepted-drafts"): "A / T, refused by " + NOT_OUTPUT,
    ("output-throughput", "acceptance-length"): "1 + A / S, refused by " + NO_TIME,
    ("output-throughput", "acceptance-rate"): "A / P, refused by " + NO_TIME,
    ("output-throughput", "response-time"): UNDEFINED,
    ("output-throughput", "requests"): UNDEFINED,
    ("speedup", None): "(E / T) / (E_b / T_b)",
    ("speedup", "emitted-output"): "(E / T) / (E_b / T_b)",
    ("speedup", "per-user-output"): "per-user throughput / per-user throughput_b, same statistic",
    ("speedup", "total-tokens"): "((I + E) / T) / ((I_b + E_b) / T_b)",
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
    ("latency", "total-tokens"): UNDEFINED,
    ("capacity", None): "N / T with a unit per second, else the run's closed-loop concurrency",
    ("capacity", "requests"): "N / T with a unit per second, else the run's closed-loop concurrency",
    ("capacity", "acceptance-length"): "1 + A / S, refused by " + NO_TIME,
    ("capacity", "acceptance-rate"): "A / P, refused by " + NO_TIME,
    ("capacity", "emitted-output"): UNDEFINED,
    ("capacity", "per-user-output"): UNDEFINED,
    ("capacity", "proposed-drafts"): UNDEFINED,
    ("capacity", "accepted-drafts"): UNDEFINED,
    ("capacity", "response-time"): UNDEFINED,
    ("capacity", "total-tokens"): UNDEFINED,
    ("acceptance-rate", None): "A / P",
    ("acceptance-rate", "acceptance-rate"): "A / P",
    ("acceptance-length", None): "1 + A / S",
    ("acceptance-length", "acceptance-length"): "1 + A / S",
    ("cost", None): COST,
    ("cost", "emitted-output"): COST,
}
# Any other acceptance-rate or acceptance-length basis is undefined; a lossless claim has no
# number (lossy-acceptance and quality-missing judge it).

# How the forms a claim may be written in (record 1.2) change the figure above. docs/claims.md lists
# the same table and `sdeval rules claim-basis-undefined` prints it.
CLAIM_FORMS: dict[str, str] = {
    "relative: higher, unit %": "the speedup it amounts to: 1 + value / 100 of a throughput ('34 % higher throughput' = 1.34x), "
    "1 / (1 + value / 100) of a latency or cost; the figure is shown the same way, (run / baseline - 1) x 100 % higher",
    "relative: lower, unit %": "the speedup it amounts to: 1 / (1 - value / 100) of a latency or cost ('40 % lower p50 TPOT' = "
    "latency_b / latency = 1 / 0.6), 1 - value / 100 of a throughput; the figure is shown the same way, (1 - run / baseline) x 100 % "
    "lower; 100 % lower or more matches no figure",
    "relative, a factor": "the factor is the speedup ('reduces latency by 1.5-3x' = latency_b / latency from 1.5 to 3)",
    "relative, kind latency or output-throughput": "judged as the speedup of what it names against its baseline (response-time; "
    "emitted-output or per-user-output)",
    "relative, kind cost": "cost_b / cost at the claim's price, the same price for both sides",
    "throughput_per: accelerator": "E / T / accelerators (the configuration's hardware.count); a speedup (E / T / n) / (E_b / T_b / n_b)",
    "at_per_user_speed: U": "each side's highest E / T (per accelerator when stated) among its runs (run and sweep; baseline and "
    "baseline_sweep) whose tokens/s per user ((E / T) / concurrency in a closed loop, else 1000 / p50 or mean TPOT) is at least U, "
    "never interpolated; a speedup is the ratio of the two, a cost is taken at each side's run with the most output per "
    "accelerator among those; load-extrapolated when no run of a side reaches U",
    "throughput_per: accelerator, counted: total-tokens": "(I + E) / T / accelerators (record 1.3); a speedup ((I + E) / T / n) / "
    "((I_b + E_b) / T_b / n_b)",
    "at_accelerator_throughput: X": "each side's highest tokens/s per user ((E / T) / concurrency unless the load is open, else 1000 / "
    "p50 or mean TPOT) among its runs (run and sweep; baseline and baseline_sweep) whose E / T / accelerators is at least X, never "
    "interpolated (record 1.3); a per-user speedup is the ratio of the two; load-extrapolated when no run of a side reaches X",
    "printed_decimals: d": "the value agrees with any figure within half a unit of its d-th decimal, as a tool's reported "
    "figures do; without it, within 2 %",
}
# Kinds a relative form applies to (a latency or throughput written as a change is the speedup it amounts to).
RELATIVE_KINDS = ("speedup", "latency", "output-throughput", "cost")


def formula(kind: str, counted: str | None) -> str | None:
    """How a claim of this kind and basis is recomputed, or the rule that refuses it; None for lossless."""
    if kind == "lossless":
        return None
    return CLAIM_FORMULAS.get((kind, counted), UNDEFINED)


def as_comparison(claim: Claim) -> Claim:
    """A latency or throughput written as a change ('40 % lower p50 TPOT', '34 % higher throughput') is
    the speedup it amounts to, against the claim's baseline."""
    if claim.relative is None or claim.kind not in ("latency", "output-throughput"):
        return claim
    if claim.kind == "latency" and claim.counted in (None, "response-time"):
        return claim.model_copy(update={"kind": "speedup", "counted": "response-time"})
    if claim.kind == "output-throughput" and claim.counted in (None, "emitted-output", "per-user-output"):
        return claim.model_copy(update={"kind": "speedup", "counted": claim.counted or "emitted-output"})
    return claim


def unpriced(claim: Claim) -> bool:
    """A cost claim that states no price per accelerator-hour or per server-hour: nothing to recompute it at."""
    return claim.kind == "cost" and (claim.price is None or (claim.price.per_accelerator_hour is None and claim.price.per_server_hour is None))


def basis_undefined(claim: Claim) -> bool:
    if claim.relative is not None and claim.kind not in RELATIVE_KINDS:
        return True
    claim = as_comparison(claim)
    return formula(claim.kind, claim.counted) == UNDEFINED or unpriced(claim)


def lower_is_better(claim: Claim) -> bool:
    """Whether the quantity a claim names is better smaller (a latency, a cost)."""
    return claim.kind in ("latency", "cost") or claim.counted == "response-time"


def _percent(claim: Claim) -> bool:
    return (claim.unit or "").strip().lower() in ("%", "percent", "per cent")


def speedup_of(claim: Claim, written: Fraction) -> Fraction | None:
    """The speedup (better than the baseline above 1) a relative claim's written value amounts to;
    None where no ratio has it (100 % lower or more)."""
    if _percent(claim):
        ratio = 1 + written / 100 if claim.relative == "higher" else 1 - written / 100  # run / baseline of the quantity named
    else:
        ratio = written if claim.relative == "higher" else (1 / written if written > 0 else Fraction(0))
    if ratio <= 0:
        return None
    return 1 / ratio if lower_is_better(claim) else ratio


def speedup_rises_with_value(claim: Claim) -> bool:
    """Whether a larger written value is a larger speedup ('50 % lower latency' is more than '40 % lower')."""
    return (claim.relative == "higher") != lower_is_better(claim)


def written_of(claim: Claim, figure: float) -> float | None:
    """A speedup written back in the claim's own form: 1.67x of a latency as 40 (% lower)."""
    if not figure:
        return None
    ratio = 1 / exact(figure) if lower_is_better(claim) else exact(figure)
    if _percent(claim):
        return float((ratio - 1) * 100 if claim.relative == "higher" else (1 - ratio) * 100)
    return float(ratio if claim.relative == "higher" else 1 / ratio)


def relative_words(claim: Claim, direction: str | None = None) -> str:
    direction = direction or claim.relative or ""
    if claim.kind == "cost":
        return "cheaper" if direction == "lower" else "more expensive"
    return direction


def written_text(claim: Claim, figure: float | None) -> str | None:
    """The recomputed figure in the form the claim was written in ('26.5 % lower'); None when the
    claim is not written as a change, or the figure is not known."""
    if claim.relative is None or figure is None:
        return None
    value = written_of(claim, figure)
    if value is None:
        return None
    unit = "%" if _percent(claim) else "x"
    direction = claim.relative
    if value < 0 and _percent(claim):  # a '40 % lower' claim whose figure is higher: say so
        value, direction = -value, ("higher" if direction == "lower" else "lower")
    return f"{num(value, unit)} {relative_words(claim, direction)}"


def _rate(name: str, count: int | None, m: RunMetrics, field: str, value: float | None) -> Figure:
    return Figure(name, value, "tokens/s", missing_counts(m, field), output_rate_bounds(count, m.duration_s))


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


def output_speedup(ctx: Context, claim: Claim) -> Figure:
    """E / T of the run over E / T of its baseline; names every count either run lacks."""
    name = "output-throughput speedup against the baseline"
    run, base = ctx.run(claim.run), ctx.run(claim.baseline)
    if run is None:
        return Figure(name, None, "x", ((None, "run"),))
    m = ctx.metrics[run.id]
    needs = list(missing_counts(m, "emitted_tokens"))
    if base is None:
        return Figure(name, None, "x", (*needs, (None, "baseline")))
    b = ctx.metrics[base.id]
    needs += [n for n in missing_counts(b, "emitted_tokens") if base is not run]
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


def counted_requests(run: Run) -> int | None:
    """N over the run's interval: a measured run's T is its windows' steady intervals, so its N is
    the requests counted in them (record 1.3 steady_requests), not every completed request."""
    windows = run.measurement.windows if run.measurement else None
    if windows and all(w.steady_requests is not None for w in windows):
        return sum(w.steady_requests or 0 for w in windows)
    return run.workload.num_requests


def request_rate(run: Run) -> Figure:
    """Completed requests per second over the run's interval (N / T)."""
    name = f"completed requests per second (N / T) of run {run.id}"
    n, t = counted_requests(run), run.interval.duration_s
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


# ------------------------------------------------- per accelerator, matched interactivity, cost


def _per_what(claim: Claim) -> str:
    return "per accelerator" if claim.throughput_per == "accelerator" else "for the deployment"


def _matched(ctx: Context, claim: Claim) -> Figure:
    """A throughput, or a throughput speedup, at matched interactivity."""
    speed, per_acc = claim.at_per_user_speed, claim.throughput_per == "accelerator"
    assert speed is not None  # claimed_figure sends only claims at a per-user speed here
    at = f"{_per_what(claim)} at {num(speed)} tokens/s per user or more"
    return _compared_points(
        ctx, claim, lambda runs: matched_point(ctx, runs, speed, per_acc), f"emitted output tokens/s {at}", f"output throughput {at}"
    )


def _matched_throughput(ctx: Context, claim: Claim) -> Figure:
    """Tokens/s per user, or its speedup, at matched output throughput per accelerator (record 1.3)."""
    at = claim.at_accelerator_throughput
    assert at is not None  # claimed_figure sends only claims at a throughput per accelerator here
    what = f"tokens/s per user at {num(at)} output tokens/s per accelerator or more"
    return _compared_points(ctx, claim, lambda runs: matched_at_throughput(ctx, runs, at), what, what)


def _compared_points(ctx: Context, claim: Claim, point: Callable[[list[Run]], MatchedPoint], figure: str, compared: str) -> Figure:
    """Each side's matched point (`point` over its run and sweep): the claim's side's figure, or, for a
    speedup, its ratio to the baseline side's (step functions over both sweeps, never interpolated)."""
    ours = point(side(ctx, claim.run, claim.sweep))
    if claim.kind == "output-throughput":
        name = f"highest {figure}" + (f" (run {ours.run.id})" if ours.run else "")
        return Figure(name, None if ours.value is None else float(ours.value), "tokens/s", ours.needs, ours.bounds)
    name = f"{compared}, against the baseline's"
    if claim.baseline is None:
        return Figure(name, None, "x", (*ours.needs, (None, "baseline")))
    theirs = point(side(ctx, claim.baseline, claim.baseline_sweep))
    needs = (*ours.needs, *(n for n in theirs.needs if n not in ours.needs))
    if ours.value is None or not theirs.value:
        return Figure(name, None, "x", needs)
    assert ours.run is not None and theirs.run is not None  # a matched point with a value has its run
    name = f"{compared}, run {ours.run.id} against baseline {theirs.run.id}"
    bounds = ours.bounds / theirs.bounds if ours.bounds is not None and theirs.bounds is not None else None
    return Figure(name, float(ours.value / theirs.value), "x", (), bounds)


def unreached(ctx: Context, claim: Claim) -> list[tuple[str, list[Run]]]:
    """The sides ('run', 'baseline') of a claim at matched interactivity (or, record 1.3, at matched
    throughput per accelerator) none of whose runs reaches its per-user speed (its throughput)."""
    if claim.at_per_user_speed is None and claim.at_accelerator_throughput is None:
        return []
    sides = [("run", side(ctx, claim.run, claim.sweep))]
    if as_comparison(claim).kind != "output-throughput" and claim.baseline is not None:
        sides.append(("baseline", side(ctx, claim.baseline, claim.baseline_sweep)))
    if claim.at_per_user_speed is None:
        at = claim.at_accelerator_throughput
        assert at is not None  # one of the two is stated
        return [(role, runs) for role, runs in sides if runs and not matched_at_throughput(ctx, runs, at).reached]
    per_acc = claim.throughput_per == "accelerator"
    return [(role, runs) for role, runs in sides if runs and not matched_point(ctx, runs, claim.at_per_user_speed, per_acc).reached]


def _per_accelerator(ctx: Context, claim: Claim) -> Figure:
    """E / T of the run ((I + E) / T counting total tokens), per accelerator when the claim says so,
    or its speedup over the baseline's."""
    run = ctx.run(claim.run)
    assert run is not None  # claimed_figure returns None first when the claim's run is missing
    per_acc, total = claim.throughput_per == "accelerator", claim.counted == "total-tokens"
    ours, our_bounds, needs = rate_of(ctx, run, per_acc, total)
    what = "total (prompt and output) tokens/s" if total else "emitted output tokens/s"
    formula = "(I + E) / T" if total else "E / T"
    if per_acc:
        what, formula = f"{what} per accelerator", f"{formula} / accelerators"
    if claim.kind == "output-throughput":
        value = None if ours is None else float(ours)
        return Figure(f"{what} ({formula})", value, "tokens/s", needs, our_bounds)
    name = f"{what} against the baseline's"
    base = ctx.run(claim.baseline)
    if base is None:
        return Figure(name, None, "x", (*needs, (None, "baseline")))
    theirs, their_bounds, their_needs = rate_of(ctx, base, per_acc, total)
    needs = (*needs, *(n for n in their_needs if base is not run))
    if ours is None or not theirs:
        return Figure(name, None, "x", needs)
    bounds = our_bounds / their_bounds if our_bounds is not None and their_bounds is not None else None
    return Figure(name, float(ours / theirs), "x", needs, bounds)


def _cost_of(ctx: Context, run: Run, claim: Claim) -> tuple[Fraction | None, Bounds | None, tuple[tuple[str | None, str], ...]]:
    """Cost per million output tokens of one run at the claim's price (engine/unit_figures.py)."""
    price = claim.price
    assert price is not None  # an unpriced cost claim has no figure (basis_undefined)
    needs: list[tuple[str | None, str]] = list(missing_counts(ctx.metrics[run.id], "emitted_tokens"))
    n = accelerators(ctx, run)
    if n is None:
        needs.append((run.id, "hardware.count"))
    if price.per_server_hour is not None and price.accelerators_per_server is None:
        needs.append((None, "price.accelerators_per_server"))
    tps = tokens_per_s(run)
    if needs or not tps:
        return None, None, tuple(needs)
    assert n is not None  # else needs names hardware.count
    hourly = hourly_price(price, n)
    rate = output_rate_bounds(run.counts.emitted_tokens, run.interval.duration_s)
    bounds = Bounds(cost_per_million(hourly, rate.high), cost_per_million(hourly, rate.low)) if rate is not None and rate.low > 0 else None
    return cost_per_million(hourly, tps), bounds, ()


def _costside(ctx: Context, claim: Claim, first: str | None, sweep: list[str]) -> tuple[Run | None, tuple[tuple[str | None, str], ...]]:
    """The run a side's cost is taken at: the named run, or at matched interactivity the run with the
    most output per accelerator among those fast enough per user (the cheapest of them per token)."""
    if claim.at_per_user_speed is None:
        return ctx.run(first), ()
    point = matched_point(ctx, side(ctx, first, sweep), claim.at_per_user_speed, per_accelerator=True)
    return point.run, point.needs


def _cost(ctx: Context, claim: Claim) -> Figure:
    """A cost per million output tokens at the claim's price (at matched interactivity, at the side's
    best point); written as a change, the baseline's cost over the run's."""
    assert claim.price is not None  # an unpriced cost claim has no figure (basis_undefined)
    currency = claim.price.currency
    run, needs = _costside(ctx, claim, claim.run, claim.sweep)
    ours, our_bounds, lacking = _cost_of(ctx, run, claim) if run is not None else (None, None, ())
    needs = (*needs, *lacking)
    at = "" if claim.at_per_user_speed is None or run is None else f", at {num(claim.at_per_user_speed)} tokens/s per user or more (run {run.id})"
    if claim.relative is None:
        name = f"cost per million output tokens at {price_words(claim)}{at}"
        return Figure(name, None if ours is None else float(ours), f"{currency} per 1M tokens", needs, our_bounds)
    name = f"cost per million output tokens at {price_words(claim)}{at}, the baseline's over the run's"
    if claim.baseline is None:
        return Figure(name, None, "x", (*needs, (None, "baseline")))
    base, their_needs = _costside(ctx, claim, claim.baseline, claim.baseline_sweep)
    theirs, their_bounds, lacking = _cost_of(ctx, base, claim) if base is not None else (None, None, ())
    needs = (*needs, *(n for n in (*their_needs, *lacking) if base is not run and n not in needs))
    if not ours or theirs is None:
        return Figure(name, None, "x", needs)
    bounds = their_bounds / our_bounds if our_bounds is not None and their_bounds is not None else None
    return Figure(name, float(theirs / ours), "x", needs, bounds)


def price_words(claim: Claim) -> str:
    p = claim.price
    assert p is not None  # asked only of a priced cost claim
    parts = []
    if p.per_accelerator_hour is not None:
        parts.append(f"{num(p.per_accelerator_hour, p.currency)} per accelerator-hour")
    if p.per_server_hour is not None:
        parts.append(f"{num(p.per_server_hour, p.currency)} per server-hour")
    return " + ".join(parts)


def claimed_figure(ctx: Context, claim: Claim) -> Figure | None:
    """The figure for what the claim says it counts (CLAIM_FORMULAS, in the form it is written:
    CLAIM_FORMS); None when no formula applies (lossless, a basis claim-basis-undefined or
    throughput-basis refuses)."""
    run = ctx.run(claim.run)
    if run is None or claim.kind == "lossless" or basis_undefined(claim):
        return None
    claim = as_comparison(claim)
    m = ctx.metrics[run.id]
    if claim.kind == "cost":
        return _cost(ctx, claim)
    speed = claim.kind in ("output-throughput", "speedup")
    emitted = claim.counted in (None, "emitted-output") and speed
    if emitted and claim.at_per_user_speed is not None:
        return _matched(ctx, claim)
    if speed and claim.counted == "per-user-output" and claim.at_accelerator_throughput is not None:
        return _matched_throughput(ctx, claim)
    if (emitted and claim.throughput_per == "accelerator") or (speed and claim.counted == "total-tokens"):
        return _per_accelerator(ctx, claim)
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
    claim = as_comparison(claim)
    if claim.kind == "cost":
        return _throughput(ctx.metrics[run.id], "emitted-output")
    if claim.kind in ("output-throughput", "speedup") and (claim.at_per_user_speed is not None or claim.throughput_per == "accelerator"):
        return claimed_figure(ctx, claim) if claim.counted in (None, "emitted-output") else None
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
    if claim.relative is not None:
        # As written: '40 % lower', '1.5-3x lower', '57 % cheaper'.
        unit = "%" if _percent(claim) else "x"
    # Quoted, never re-rounded: as the claim's own words write it, else with every digit it has.
    if claim.value is not None and claim.value_high is not None:
        figure = f"{claimed(claim.text, None, claim.value)}-{claimed(claim.text, None, claim.value_high, unit)}"
    else:
        figure = claimed(claim.text, None, claim.value, unit)
    if claim.relative is not None:
        figure = f"{figure} {relative_words(claim)}"
    if claim.bound is not None and claim.value_high is None:
        return f"{claim.bound.replace('-', ' ')} {figure}"
    return figure


# ------------------------------------------------------------------------- baselines

# How tokens are generated differs by arrangement (proposal + verification, or plain decode);
# the rest of the interval definition must match.
