"""What an offer costs per output token within the buyer's limits, and whether speculation moves the
throughput/interactivity frontier or only one point of it.

A buyer does not buy a speedup: they buy capacity at a response-time limit for a price. The
comparisons buyers read (InferenceX, MLPerf Server and Interactive, Artificial Analysis) put output
throughput per accelerator against tokens/s per user and give a cost per million output tokens.
For each offer, offered configuration, baseline configuration and measured load:

  tokens/s per accelerator   (E / T) / accelerators (hardware.count)
  tokens/s per user          (E / T) / concurrency for a closed-loop run; otherwise 1000 / TPOT ms
                             (the p50, else the mean), and each point says which
  cost per million tokens    hourly price / (E / T) / 3600 x 1,000,000, where the hourly price is
                             per_accelerator_hour x accelerators (+ per_server_hour x whole servers);
                             the whole hour is charged to output tokens, as InferenceX does
  goodput                    requests/s within every per-request latency limit (buyer/goodput.py):
                             counted from the run's per-request latencies, or at least the tool's
                             own goodput where its limits are below the buyer's

Each point is marked as meeting the buyer's per-user limits (every latency limit and the least
per-request throughput) or not. Only established evidence gets a cost, so nothing that is not
established, and no load that fails a limit, is ever the cheapest. Where the profile names the
loads the buyer will run, the cheapest is taken at those loads only, and the other measured loads
are context ("outside your loads"). At a load the buyer will run that lies between two measured
loads of one configuration and K band, the point is bracketed by them: its limits are judged on
both measured points (loads.py), and its figures are the bracket's worse measured ones (the lower
throughputs, the higher cost), so it may be the cheapest only with the dearer measured cost, "at
most"; the figures interpolated linearly in load are shown beside them as an estimate and decide
nothing (MLPerf Endpoints reads curves as step functions, never interpolated); nothing is
extrapolated. Arithmetic is on exact fractions of the numbers as written, as in metrics.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..engine.baselines import baseline_for
from ..engine.context import Context
from ..engine.metrics import exact
from ..engine.record import Run
from ..engine.unit_figures import accelerators, cost_per_million, hourly_price, per_user, servers, tokens_per_s
from ..engine.wording import disputed, money, num
from ..rules import requirements as fit_rules
from .across_loads import offered_runs
from .costs import (
    NO_COUNT,
    NO_PRICE,
    PER_REQUEST,
    PER_USER_LIMITS,
    BracketSide,
    Cheapest,
    ConfigurationCosts,
    CostFinding,
    CostPoint,
    Economics,
    Estimate,
    Frontier,
    InteractivityLimit,
    OfferCosts,
    Stretch,
    _load_text,
)
from .evidence import CONDITIONS, OfferEvidence, mismatches
from .goodput import goodput, limits_text, request_limits
from .loads import Figure, figure_for, locate, required_points

if TYPE_CHECKING:
    from .profile import Price, RequirementsProfile
    from .results import Requirement

# --------------------------------------------------------------------------- the figures


def hourly_cost(price: Price, accelerators: int) -> tuple[Fraction, str]:
    """What running `accelerators` accelerators costs per hour (engine/unit_figures.py), and the sum in words."""
    parts = []
    if price.per_accelerator_hour is not None:
        parts.append(f"{accelerators} accelerator{'s' * (accelerators != 1)} x {num(price.per_accelerator_hour, price.currency)}")
    if price.per_server_hour is not None:
        assert price.accelerators_per_server is not None  # Price's validator pairs it with per_server_hour
        n = servers(accelerators, price.accelerators_per_server)
        parts.append(f"{n} server{'s' * (n != 1)} x {num(price.per_server_hour, price.currency)}")
    total = hourly_price(price, accelerators)
    return total, f"{' + '.join(parts)} = {num(float(total), price.currency)} per hour"


@dataclass(frozen=True)
class _Limit:
    words: str
    figure: Figure
    passes: Callable[[float], bool]
    unit: str
    limit: float


def _limits(requirements: list[Requirement], profile: RequirementsProfile, ctx: Context) -> list[_Limit]:
    out = []
    for req in requirements:
        if req.kind in PER_USER_LIMITS:
            figure, passes, unit, limit = figure_for(req, profile, ctx)
            out.append(_Limit(req.text.removesuffix(" at every required load"), figure, passes, unit, limit))
    return out


def _judge_limits(limits: list[_Limit], runs: list[Run], axis: str | None = None) -> tuple[str, tuple[str, ...]]:
    """met when every limit holds at every run given (one measured, or both measured sides of a
    bracketed load); not-met when one fails at all of them; undecided when one holds on one side
    only: the figure in between was not measured, and no estimate decides it."""
    if not limits:
        return "none-stated", ()
    statuses, notes = [], []
    for lim in limits:
        values = [lim.figure(r) for r in runs]
        missing = [why for v, why in values if v is None]
        if missing:
            statuses.append("unknown")
            notes += missing
            continue
        figures = [v for v, _ in values if v is not None]  # every one: none is missing
        ok = [lim.passes(v) for v in figures]
        if len(runs) == 1:
            shown = disputed(lim.limit, figures[0], lim.unit)[1]
        else:
            shown = " and ".join(
                f"{disputed(lim.limit, v, lim.unit)[1]} at measured {num(getattr(r.load, axis or 'concurrency'))}" for v, r in zip(figures, runs)
            )
        if all(ok):
            statuses.append("met")
        elif not any(ok):
            statuses.append("not-met")
            notes.append(f"{lim.words}: {shown}")
        else:
            met_at = next(num(getattr(r.load, axis or "concurrency")) for r, good in zip(runs, ok) if good)
            statuses.append("undecided")
            notes.append(f"{lim.words}: {shown}; met at {met_at} only, and nothing between them was measured")
    return next((s for s in ("not-met", "undecided", "unknown") if s in statuses), "met"), tuple(notes)


class _Costing:
    """Everything one configuration's points need: the offer's evidence, the limits, the price."""

    def __init__(self, profile: RequirementsProfile, requirements: list[Requirement], evidence: OfferEvidence):
        self.profile = profile
        self.evidence = evidence
        self.ctx = evidence.context
        self.limits = _limits(requirements, profile, self.ctx)
        self.request_limits, self.itl_limited = request_limits(profile)

    def codes(self, run: Run) -> tuple[str, ...]:
        problems = self.evidence.gate_codes or tuple(sorted(self.evidence.problems.get(run.id, ())))
        mismatch = tuple(code for code, _ in mismatches(self.profile, self.ctx, run, CONDITIONS))
        return tuple(dict.fromkeys(problems + mismatch))

    def cost(self, established: bool, tps: Fraction | None, hourly: Fraction | None, count: int | None) -> tuple[Fraction | None, str]:
        if not established:
            return None, "evidence not established"
        if not tps:
            return None, "no output tokens over a measured interval"
        if not count:
            return None, NO_COUNT
        if hourly is None:
            return None, NO_PRICE
        return cost_per_million(hourly, tps), ""

    def configuration(self, config_id: str, runs: list[Run], role: str) -> ConfigurationCosts:
        count = accelerators(self.ctx, runs[0])  # a count of 0 is no count: never a cost of zero
        price = self.profile.price
        hourly, hourly_text = (None, NO_PRICE) if price is None else ((None, NO_COUNT) if count is None else hourly_cost(price, count))
        points = [self.measured(run, hourly, count) for run in runs]
        points += self.bracketed(runs, hourly, count)
        # Where the profile names loads, the cost is the cost at those loads; the others are context.
        wanted = set(required_points(self.profile, self.ctx, runs))
        if wanted:
            points = [replace(p, outside_loads=(p.axis, p.load) not in wanted) for p in points]
        order = {"concurrency": 0, "request_rate": 1, None: 2}
        points.sort(key=lambda p: (order[p.axis], p.load if p.load is not None else 0))
        return ConfigurationCosts(self.evidence.file, config_id, role, count, hourly, hourly_text, tuple(points))

    def measured(self, run: Run, hourly: Fraction | None, count: int | None) -> CostPoint:
        axis = "concurrency" if run.load.concurrency is not None else "request_rate" if run.load.request_rate is not None else None
        load = getattr(run.load, axis) if axis else None
        tps = tokens_per_s(run)
        user, basis = per_user(run, tps)
        problems = self.evidence.gate_codes or tuple(self.evidence.problems.get(run.id, ()))
        established = not problems
        cost, note = self.cost(established, tps, hourly, count)
        limits, notes = _judge_limits(self.limits, [run])
        return CostPoint(
            axis,
            load,
            "measured",
            (run.id,),
            tps,
            tps / count if tps is not None and count else None,
            user,
            basis,
            cost,
            note,
            established,
            self.codes(run),
            limits,
            notes,
            goodput(run, self.request_limits, self.itl_limited),
        )

    def bracketed(self, runs: list[Run], hourly: Fraction | None, count: int | None) -> list[CostPoint]:
        """At each load the buyer will run that lies between two measured loads of this configuration
        and K band (loads.locate), never beyond them: the measured bracket, its worse figures as
        bounds, and the linear interpolation as a labelled estimate."""
        out = []
        for axis, load in required_points(self.profile, self.ctx, runs):
            basis, pair, _ = locate(self.ctx, runs, axis, load)
            if basis != "bracketed":
                continue
            lo, hi = pair
            established = not (self.evidence.gate_codes or self.evidence.problems.get(lo.id) or self.evidence.problems.get(hi.id))
            sides = []
            for run in (lo, hi):
                t = tokens_per_s(run)
                u, u_basis = per_user(run, t)
                sides.append((run, t, u, u_basis, self.cost(established, t, hourly, count)[0]))
            (_, t0, u0, b0, _), (_, t1, u1, b1, _) = sides
            bracket = tuple(BracketSide(getattr(r.load, axis), r.id, t / count if t is not None and count else None, u, c) for r, t, u, _, c in sides)
            # The bounds: the figure at the load is taken to lie between its two measured values.
            tps = min(t0, t1) if t0 is not None and t1 is not None else None
            user, basis_u = (min(u0, u1), b0) if u0 is not None and u1 is not None and b0 == b1 else (None, None)
            cost, note = self.cost(established, tps, hourly, count)
            codes = tuple(dict.fromkeys(self.codes(lo) + self.codes(hi)))
            limits, notes = _judge_limits(self.limits, [lo, hi], axis)
            out.append(
                CostPoint(
                    axis,
                    load,
                    "bracketed",
                    (lo.id, hi.id),
                    tps,
                    tps / count if tps is not None and count else None,
                    user,
                    basis_u,
                    cost,
                    note,
                    established,
                    codes,
                    limits,
                    notes,
                    bracket=bracket,
                    estimate=self.estimate(axis, load, lo, hi, (t0, u0, b0), (t1, u1, b1), hourly, count, established),
                )
            )
        return out

    def estimate(
        self,
        axis: str,
        load: float,
        lo: Run,
        hi: Run,
        low: tuple[Fraction | None, Fraction | None, str | None],
        high: tuple[Fraction | None, Fraction | None, str | None],
        hourly: Fraction | None,
        count: int | None,
        established: bool,
    ) -> Estimate:
        """Linear in load between the two measured points (their tokens/s, per-user speed and its basis,
        as the bracket measured them): shown beside them, labelled, never judged."""
        x0, x1 = exact(getattr(lo.load, axis)), exact(getattr(hi.load, axis))
        w = (exact(load) - x0) / (x1 - x0)
        (t0, u0, b0), (t1, u1, b1) = low, high
        tps = t0 + w * (t1 - t0) if t0 is not None and t1 is not None else None
        if tps is not None and axis == "concurrency" and b0 == b1 == PER_REQUEST:
            user = tps / exact(load)
        elif u0 is not None and u1 is not None and b0 == b1:
            user = u0 + w * (u1 - u0)
        else:
            user = None
        return Estimate(tps, tps / count if tps is not None and count else None, user, self.cost(established, tps, hourly, count)[0])


# ------------------------------------------------------------------------------ cheapest


def cheapest(configs: list[ConfigurationCosts], price: Price | None) -> Cheapest:
    # An eligible point has a cost; the second test says so to the type checker.
    candidates = [(p.cost, p.bound, c.configuration, p) for c in configs for p in c.points if p.eligible and p.cost is not None]
    if price is None:
        return Cheapest(None, None, "no cost: the profile states no price")
    if not candidates:
        # Where the profile names loads, only those count (other measured loads are context).
        named = any(p.outside_loads for c in configs for p in c.points)
        pool = [p for c in configs for p in c.points if (not p.outside_loads if named else p.basis == "measured")]
        where = "at the loads you will run, no point" if named else "no measured load"
        if not any(p.cost is not None for p in pool):
            why = f"{where} has established evidence with an output throughput and an accelerator count"
        elif not any(p.cost is not None and p.within_limits for p in pool):
            why = f"{where} with established evidence meets every one of your limits"
        else:
            why = f"{where} within your limits has evidence that matches your sampling, scope and tasks"
        return Cheapest(None, None, f"no cost within your limits: {why}")
    # Ties: a measured cost before a bound, then the first in load order.
    cost, _, config, point = min(candidates, key=lambda c: (c[0], c[1]))
    figure = f"{money(float(cost), price.currency)} per million output tokens"
    where = _load_text(point.axis, point.load)
    if not point.bound:
        return Cheapest(config, point, f"{figure} ({config} at {where}, run {point.runs[0]})")
    low, high = point.bracket
    estimate = point.estimate.cost if point.estimate else None
    return Cheapest(
        config,
        point,
        f"at most {figure} ({config} at {where}, not measured: the dearer of the costs measured at {num(low.load)}"
        f" (run {low.run}, {money(_float(low.cost))}) and {num(high.load)} (run {high.run}, {money(_float(high.cost))})"
        + (f"; estimate: {money(float(estimate))}, interpolated" if estimate is not None else "")
        + ")",
    )


def _float(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def _ratio(offered: Cheapest, baseline: Cheapest | None) -> tuple[Fraction | None, str | None]:
    """offer / baseline from measured costs. An offer's cost that is an upper bound makes the ratio one
    ("at most"), a baseline's makes it a lower bound ("at least"); two bounds bound nothing."""
    if baseline is None or offered.point is None or baseline.point is None:
        return None, None
    mine, theirs = offered.point.bound, baseline.point.bound
    if mine and theirs:
        return None, None
    # The cheapest point is an eligible one, which has a cost (a positive one: prices are positive).
    assert offered.point.cost is not None and baseline.point.cost is not None
    return offered.point.cost / baseline.point.cost, "at-most" if mine else "at-least" if theirs else None


def _ratio_text(ratio: Fraction | None, bound: str | None, offered: Cheapest, baseline: Cheapest | None) -> str:
    if baseline is None:
        return "no baseline to compare the cost with"
    if ratio is None:
        if offered.point is not None and baseline.point is not None:
            return "no cost ratio from measured costs: both cheapest costs are upper bounds at loads not measured"
        side = "the offer" if offered.point is None else "the baseline"
        return f"no cost ratio: {side} has no cost within your limits"
    if bound is not None:
        whose = "the offer's" if bound == "at-most" else "the baseline's"
        return f"cost ratio offer / baseline {bound.replace('-', ' ')} {num(float(ratio))}: {whose} cost is an upper bound at a load not measured"
    if ratio < 1:
        return f"cost ratio offer / baseline {num(float(ratio))}: the baseline costs {num(float(1 / ratio), 'x')} as much"
    if ratio > 1:
        return f"cost ratio offer / baseline {num(float(ratio))}: the offer costs {num(float(ratio), 'x')} as much as the baseline"
    return "cost ratio offer / baseline 1: the same cost"


# ------------------------------------------------------------------------------ frontier


def frontier_line(config: ConfigurationCosts) -> list[tuple[Fraction, Fraction]]:
    """(tokens/s per user, tokens/s per accelerator) of the measured, established points that match
    the buyer's conditions, in order of tokens/s per user; at equal x the higher y (a frontier)."""
    best: dict[Fraction, Fraction] = {}
    for p in config.points:
        if p.basis == "measured" and p.established and not p.codes and p.per_user is not None and p.per_accelerator is not None:
            best[p.per_user] = max(best.get(p.per_user, p.per_accelerator), p.per_accelerator)
    return sorted(best.items())


def _at(line: list[tuple[Fraction, Fraction]], x: Fraction) -> Fraction:
    """The line's y at x, straight between measured points (x within the line's range)."""
    for (x0, y0), (x1, y1) in zip(line, line[1:]):
        if x0 <= x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return line[0][1]


def _sign(d: Fraction) -> int:
    return (d > 0) - (d < 0)


RELATION = {1: "above", -1: "below", 0: "level"}


def stretches(offered: list[tuple[Fraction, Fraction]], baseline: list[tuple[Fraction, Fraction]]) -> list[Stretch]:
    """Where, over the tokens/s per user both lines cover, the offered line lies above, below or level
    with the baseline's. Both are straight between measured points, so their difference is too, and
    a crossing between two measured points is found exactly (and marked interpolated)."""
    lo, hi = max(offered[0][0], baseline[0][0]), min(offered[-1][0], baseline[-1][0])
    if lo > hi:
        return []
    xs = sorted({lo, hi} | {x for x, _ in offered + baseline if lo <= x <= hi})
    diffs = [(x, _at(offered, x) - _at(baseline, x)) for x in xs]
    if len(diffs) == 1:
        return [Stretch(lo, hi, RELATION[_sign(diffs[0][1])], False, False)]
    pieces: list[tuple[Fraction, Fraction, int, bool, bool]] = []
    for (x0, d0), (x1, d1) in zip(diffs, diffs[1:]):
        if _sign(d0) * _sign(d1) < 0:
            root = x0 + d0 / (d0 - d1) * (x1 - x0)
            pieces += [(x0, root, _sign(d0), False, True), (root, x1, _sign(d1), True, False)]
        else:
            pieces.append((x0, x1, _sign(d0) or _sign(d1), False, False))
    merged: list[list[Any]] = []
    for piece in pieces:
        if merged and merged[-1][2] == piece[2]:
            merged[-1][1], merged[-1][4] = piece[1], piece[4]
        else:
            merged.append(list(piece))
    return [Stretch(a, b, RELATION[s], ca, cb) for a, b, s, ca, cb in merged]


def _range(line: list[tuple[Fraction, Fraction]]) -> tuple[Fraction, Fraction] | None:
    return (line[0][0], line[-1][0]) if line else None


def frontier(offered: ConfigurationCosts, baseline: ConfigurationCosts) -> Frontier:
    a, b = frontier_line(offered), frontier_line(baseline)
    name, base = offered.configuration, f"the baseline {baseline.configuration}"
    if not a or not b:
        which = name if not a else base
        text = f"no frontier to compare: {which} has no established measured point with tokens/s per user and per accelerator"
        return Frontier(offered.configuration, baseline.configuration, _range(a), _range(b), (), text)
    parts = stretches(a, b)
    range_a, range_b = _range(a), _range(b)
    assert range_a is not None and range_b is not None  # a and b are not empty
    (a_lo, a_hi), (b_lo, b_hi) = range_a, range_b
    if not parts:
        text = (
            f"{name} and {base} were measured over different ranges of tokens/s per user "
            f"({name}: {num(float(a_lo))} to {num(float(a_hi))}; {base}: {num(float(b_lo))} to {num(float(b_hi))}), "
            "so their frontiers do not overlap and are not compared"
        )
        return Frontier(offered.configuration, baseline.configuration, (a_lo, a_hi), (b_lo, b_hi), (), text)
    lo, hi = parts[0].low, parts[-1].high

    def spans(relation: str) -> str:
        return " and ".join(
            f"at {num(float(s.low))}" if s.low == s.high else f"from {num(float(s.low))} to {num(float(s.high))}"
            for s in parts
            if s.relation == relation
        )

    above, below, level = spans("above"), spans("below"), spans("level")
    if above:
        text = f"{name}'s frontier is above that of {base} {above} tokens/s per user"
    else:
        text = (
            f"{name}'s frontier is nowhere above that of {base} over {num(float(lo))} to {num(float(hi))} tokens/s per user, where both were measured"
        )
    said = [f"below it {below}"] * bool(below) + [f"level with it {level}"] * bool(level)
    if said:
        text += (", " if above else ": ") + " and ".join(said)
    crossings = sorted({s.high for s in parts if s.high_crossing})
    if crossings:
        text += f" (crossing at {', '.join(num(float(c)) for c in crossings)}, interpolated between measured points)"
    beyond = []
    for who, (x_lo, x_hi) in ((name, (a_lo, a_hi)), (base, (b_lo, b_hi))):
        ends = [f"above {num(float(hi))} (up to {num(float(x_hi))})"] * (x_hi > hi)
        ends += [f"below {num(float(lo))} (down to {num(float(x_lo))})"] * (x_lo < lo)
        if ends:
            beyond.append(f"only {who} was measured {' and '.join(ends)} tokens/s per user")
    if beyond:
        text += "; " + "; ".join(beyond)
    return Frontier(offered.configuration, baseline.configuration, (a_lo, a_hi), (b_lo, b_hi), tuple(parts), text)


# ------------------------------------------------------------------------------- compute


def _by_configuration(runs: list[Run]) -> dict[str, list[Run]]:
    out: dict[str, list[Run]] = {}
    for run in runs:
        out.setdefault(run.configuration, []).append(run)
    return out


def _baseline_runs(ctx: Context) -> list[Run]:
    """The offer's own target-only runs, in the configurations its speculative runs are compared with
    on equal terms (figures.baseline_for)."""
    speculative = [r for r in ctx.record.runs if r.arrangement == "speculative"]
    configs = {b.configuration for r in speculative if (b := baseline_for(ctx, r)) is not None}
    return [r for r in ctx.record.runs if r.arrangement == "target-only" and r.configuration in configs and speculative]


def _offer_costs(profile: RequirementsProfile, requirements: list[Requirement], offer: OfferEvidence, baseline: OfferEvidence | None) -> OfferCosts:
    own = _Costing(profile, requirements, offer)
    offered = [own.configuration(c, runs, "offered") for c, runs in _by_configuration(offered_runs(offer.context)).items()]
    if baseline is None:
        base = [own.configuration(c, runs, "baseline") for c, runs in _by_configuration(_baseline_runs(offer.context)).items()]
    elif baseline is offer:
        base = []
    else:
        other = _Costing(profile, requirements, baseline)
        base = [other.configuration(c, runs, "baseline") for c, runs in _by_configuration(offered_runs(baseline.context)).items()]
    mine = cheapest(offered, profile.price)
    theirs = cheapest(base, profile.price) if base else None
    ratio, bound = _ratio(mine, theirs)
    offered = [_marked(c, mine) for c in offered]
    base = [_marked(c, theirs) for c in base] if theirs else base
    frontiers = tuple(frontier(o, b) for o in offered for b in base)
    return OfferCosts(offer.file, tuple(offered + base), mine, theirs, ratio, _ratio_text(ratio, bound, mine, theirs), frontiers, bound)


def _marked(config: ConfigurationCosts, best: Cheapest) -> ConfigurationCosts:
    if best.point is None or best.configuration != config.configuration:
        return config
    return replace(config, points=tuple(replace(p, cheapest=True) if p is best.point else p for p in config.points))


def _findings(profile: RequirementsProfile, offers: list[OfferCosts], names: dict[str, str]) -> list[CostFinding]:
    code = fit_rules.COST_BASIS_MISSING.code
    out = []
    if profile.price is None:
        out.append(
            CostFinding(
                code,
                None,
                None,
                "no cost per million output tokens: the profile states no price (price.per_accelerator_hour or price.per_server_hour)",
            )
        )
    seen = set()
    for o in offers:
        for c in o.configurations:
            if c.accelerators is None and (c.offer, c.configuration) not in seen:
                seen.add((c.offer, c.configuration))
                out.append(
                    CostFinding(
                        code,
                        c.offer,
                        c.configuration,
                        f"no cost for configuration {c.configuration} of {names.get(c.offer, c.offer)}: it states no accelerator count (hardware.count)",
                    )
                )
    return out


def interactivity_limits(profile: RequirementsProfile) -> list[InteractivityLimit]:
    """Least tokens/s per user the profile asks for: the per-request throughput minimum, and 1000 /
    each TPOT limit (a percentile limit: the figures on the chart are per-request averages)."""
    out = []
    least = profile.throughput.per_request_tokens_per_s
    if least is not None:
        out.append(InteractivityLimit(exact(least), f"your least per-request throughput: {num(least, 'tokens/s')}"))
    for lim in profile.latency_limits:
        if lim.metric == "tpot":
            value = 1000 / exact(lim.limit_ms)
            out.append(
                InteractivityLimit(value, f"1000 / your {lim.percentile} TPOT limit of {num(lim.limit_ms, 'ms')} = {num(float(value), 'tokens/s')}")
            )
    return out


def price_text(price: Price | None) -> str:
    if price is None:
        return "no price stated"
    parts = []
    if price.per_accelerator_hour is not None:
        parts.append(f"{num(price.per_accelerator_hour, price.currency)} per accelerator-hour")
    if price.per_server_hour is not None:
        parts.append(f"{num(price.per_server_hour, price.currency)} per server-hour ({price.accelerators_per_server} accelerators per server)")
    return " + ".join(parts) + (f" (source: {price.source})" if price.source else "")


def economics(
    profile: RequirementsProfile,
    requirements: list[Requirement],
    offers: list[OfferEvidence],
    baseline: OfferEvidence | None,
    names: dict[str, str] | None = None,
) -> Economics:
    """`names`: offer file -> the name people read (wording.offer_names), for the findings' words."""
    costs = []
    for offer in offers:
        if offer.ctx is None:
            costs.append(
                OfferCosts(
                    offer.file,
                    (),
                    Cheapest(None, None, "no cost: the offer file is not a valid evidence record"),
                    None,
                    None,
                    "no baseline to compare the cost with",
                    (),
                )
            )
        else:
            costs.append(_offer_costs(profile, requirements, offer, baseline))
    limits = tuple(r.text.removesuffix(" at every required load") for r in requirements if r.kind in PER_USER_LIMITS)
    return Economics(
        profile.price,
        price_text(profile.price),
        limits,
        tuple(interactivity_limits(profile)),
        tuple(_findings(profile, costs, names or {})),
        tuple(costs),
        goodput_summary(profile, costs),
    )


def goodput_summary(profile: RequirementsProfile, offers: list[OfferCosts]) -> str:
    limits, itl_limited = request_limits(profile)
    if itl_limited:
        return "not counted: an inter-token latency limit has no single value per request"
    if not limits:
        return "not counted: you state no per-request latency limit (TTFT, TPOT or end-to-end)"
    points = [p for o in offers for c in o.configurations for p in c.points]
    if not any(p.goodput.basis != "none" for p in points):
        return (
            f"not measured: no run keeps per-request latencies or a tool's goodput at limits below yours, "
            f"so the requests served within {limits_text(limits)} cannot be counted"
        )
    return (
        f"requests/s served within {limits_text(limits)} (each request held to the limit at your highest stated "
        f"percentile): counted from each request's latencies where the run keeps them, at least the tool's own "
        f"goodput where its limits are below yours, '-' elsewhere"
    )
