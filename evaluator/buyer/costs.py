"""What costing an offer produces: each measured point's figures and cost, each configuration's
cheapest point, the frontier's stretches, and the offer's costs; plain data with `as_dict()`,
computed by economics.py and read by every output."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..engine.unit_figures import PER_REQUEST  # noqa: F401  (re-exported: economics and the outputs name it from here)
from ..engine.wording import and_join, num
from .goodput import Goodput

if TYPE_CHECKING:
    from .profile import Price

PER_USER_LIMITS = ("latency", "throughput-per-request")  # requirement kinds a single user feels
NO_PRICE = "no price in the profile"
NO_COUNT = "no accelerator count (hardware.count)"
NOT_INTERPOLATED = Goodput(None, "none", "not interpolated: counted only at a measured load")


def _f(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def _load_text(axis: str | None, load: float | None) -> str:
    if axis is None:
        return "an unstated load"
    return f"concurrency {num(load)}" if axis == "concurrency" else f"{num(load)} requests/s"


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class CostFinding:
    """A cost that cannot be given, and why (code cost-basis-missing)."""

    code: str
    offer: str | None  # None: about the profile (no price)
    configuration: str | None
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "offer": self.offer, "configuration": self.configuration, "message": self.message}


@dataclass(frozen=True)
class Estimate:
    """A bracketed load's figures interpolated linearly in load between the two measured points:
    shown beside the measured bracket, labelled as an estimate, and never used for a verdict."""

    tokens_per_s: Fraction | None
    per_accelerator: Fraction | None
    per_user: Fraction | None
    cost: Fraction | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "interpolated": True,
            "tokens_per_s": _f(self.tokens_per_s),
            "tokens_per_s_per_accelerator": _f(self.per_accelerator),
            "tokens_per_s_per_user": _f(self.per_user),
            "cost_per_million_output_tokens": _f(self.cost),
        }


@dataclass(frozen=True)
class BracketSide:
    """One of the two measured loads around a load the buyer will run, with its measured figures."""

    load: float
    run: str
    per_accelerator: Fraction | None
    per_user: Fraction | None
    cost: Fraction | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "load": self.load,
            "run": self.run,
            "tokens_per_s_per_accelerator": _f(self.per_accelerator),
            "tokens_per_s_per_user": _f(self.per_user),
            "cost_per_million_output_tokens": _f(self.cost),
        }


@dataclass(frozen=True)
class CostPoint:
    """One configuration at one load: measured by a run, or bracketed by the measured loads either
    side. A bracketed point's figures are the bracket's worse measured figures (the lower
    throughputs, the higher cost: bounds on the figure at the load, taking it to lie between its
    measured values, as loads.py does), so its verdicts rest on measurements; the interpolated
    figures are its `estimate`."""

    axis: str | None  # concurrency, request_rate, or None when the run states no load
    load: float | None
    basis: str  # measured | bracketed
    runs: tuple[str, ...]  # the run, or the two measured runs either side
    tokens_per_s: Fraction | None  # E / T (bracketed: the lower measured E / T)
    per_accelerator: Fraction | None
    per_user: Fraction | None
    per_user_basis: str | None  # E / T / concurrency, 1000 / p50 TPOT, 1000 / mean TPOT
    cost: Fraction | None  # per million output tokens, in the price's currency
    cost_note: str  # why there is no cost; "" when there is one
    established: bool
    codes: tuple[str, ...]  # why the evidence is not established, or does not match the buyer's conditions
    limits: str  # met | not-met | undecided | unknown | none-stated
    limit_notes: tuple[str, ...]  # each limit not met, undecided or without its figure
    goodput: Goodput = NOT_INTERPOLATED
    cheapest: bool = False
    # The profile names the loads the buyer will run, and this is not one of them: shown as context,
    # never the cheapest.
    outside_loads: bool = False
    bracket: tuple[BracketSide, ...] = ()  # bracketed: the measured loads below and above
    estimate: Estimate | None = None  # bracketed: interpolated, for orientation only

    @property
    def bound(self) -> bool:
        """The figures are bounds from measured neighbours (a load not measured), not a measurement."""
        return self.basis == "bracketed"

    @property
    def cost_run(self) -> str | None:
        """The run whose measured cost this point's cost is (the dearer side of a bracket)."""
        if not self.bracket:
            return self.runs[0] if self.runs else None
        return next((b.run for b in self.bracket if b.cost is not None and b.cost == self.cost), None)

    @property
    def within_limits(self) -> bool:
        return self.limits in ("met", "none-stated")

    @property
    def eligible(self) -> bool:
        """May be the cheapest: at one of the buyer's loads (any measured load where the profile names
        none; a bracketed point exists only at one, with its dearer measured cost), established, the
        buyer's conditions, every limit met."""
        return not self.outside_loads and self.cost is not None and not self.codes and self.within_limits

    @property
    def label(self) -> str:
        if self.axis == "concurrency":
            return num(self.load)
        return _load_text(self.axis, self.load)

    def as_dict(self) -> dict[str, Any]:
        return {
            "axis": self.axis,
            "outside_your_loads": self.outside_loads,
            "load": self.load,
            "basis": self.basis,
            "bound": self.bound,
            "runs": list(self.runs),
            "bracket": [b.as_dict() for b in self.bracket] or None,
            "estimate": self.estimate.as_dict() if self.estimate else None,
            "tokens_per_s": _f(self.tokens_per_s),
            "tokens_per_s_per_accelerator": _f(self.per_accelerator),
            "tokens_per_s_per_user": _f(self.per_user),
            "per_user_basis": self.per_user_basis,
            "goodput_requests_per_s": self.goodput.as_dict()["requests_per_s"],
            "goodput_basis": self.goodput.basis,
            "goodput_text": self.goodput.text,
            "cost_per_million_output_tokens": _f(self.cost),
            "cost_note": self.cost_note,
            "established": self.established,
            "codes": list(self.codes),
            "limits": self.limits,
            "limit_notes": list(self.limit_notes),
            "cheapest": self.cheapest,
        }


@dataclass(frozen=True)
class ConfigurationCosts:
    offer: str  # the file the configuration is in (a baseline offer's, for kind: offer)
    configuration: str
    role: str  # offered | baseline
    accelerators: int | None
    hourly: Fraction | None
    hourly_text: str
    points: tuple[CostPoint, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "offer": self.offer,
            "configuration": self.configuration,
            "role": self.role,
            "accelerators": self.accelerators,
            "hourly_cost": _f(self.hourly),
            "hourly_text": self.hourly_text,
            "points": [p.as_dict() for p in self.points],
        }


@dataclass(frozen=True)
class Cheapest:
    """The lowest cost per million output tokens within every limit, from measured costs only: at a
    bracketed load, the dearer of the two measured costs around it, an upper bound ("at most")."""

    configuration: str | None
    point: CostPoint | None
    text: str

    def as_dict(self) -> dict[str, Any]:
        p = self.point
        return {
            "configuration": self.configuration,
            "axis": p.axis if p else None,
            "load": p.load if p else None,
            "run": p.cost_run if p else None,  # the measured run the cost is
            "cost_per_million_output_tokens": _f(p.cost) if p else None,
            "bound": "at-most" if p and p.bound else None,
            "estimate": _f(p.estimate.cost) if p and p.estimate else None,
            "text": self.text,
        }


@dataclass(frozen=True)
class Stretch:
    """A range of tokens/s per user over which one frontier lies above, below or level with another."""

    low: Fraction
    high: Fraction
    relation: str  # above | below | level
    low_crossing: bool  # the end is a crossing interpolated between measured points
    high_crossing: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "low": float(self.low),
            "high": float(self.high),
            "relation": self.relation,
            "low_interpolated": self.low_crossing,
            "high_interpolated": self.high_crossing,
        }


@dataclass(frozen=True)
class Frontier:
    """An offered configuration's throughput/interactivity line against its baseline's."""

    configuration: str
    baseline_configuration: str
    offered_range: tuple[Fraction, Fraction] | None  # tokens/s per user measured, established
    baseline_range: tuple[Fraction, Fraction] | None
    stretches: tuple[Stretch, ...]
    text: str

    def as_dict(self) -> dict[str, Any]:
        def span(r: tuple[Fraction, Fraction] | None) -> list[float] | None:
            return [float(r[0]), float(r[1])] if r else None

        return {
            "configuration": self.configuration,
            "baseline_configuration": self.baseline_configuration,
            "offered_range": span(self.offered_range),
            "baseline_range": span(self.baseline_range),
            "stretches": [s.as_dict() for s in self.stretches],
            "text": self.text,
        }


@dataclass(frozen=True)
class OfferCosts:
    offer: str
    configurations: tuple[ConfigurationCosts, ...]  # offered first, then the baseline's
    cheapest: Cheapest
    baseline_cheapest: Cheapest | None  # None when the offer has no baseline
    cost_ratio: Fraction | None  # offer's cheapest / baseline's cheapest
    ratio_text: str
    frontiers: tuple[Frontier, ...]
    ratio_bound: str | None = None  # at-most | at-least: one of the two costs is a bracketed load's upper bound

    def goodput_lines(self) -> list[str]:
        return goodput_lines(self)

    def as_dict(self) -> dict[str, Any]:
        return {
            "offer": self.offer,
            "configurations": [c.as_dict() for c in self.configurations],
            "cheapest": self.cheapest.as_dict(),
            "baseline_cheapest": self.baseline_cheapest.as_dict() if self.baseline_cheapest else None,
            "cost_ratio": _f(self.cost_ratio),
            "cost_ratio_bound": self.ratio_bound,
            "ratio_text": self.ratio_text,
            "frontiers": [f.as_dict() for f in self.frontiers],
        }


@dataclass(frozen=True)
class InteractivityLimit:
    """A least tokens/s per user the buyer's profile implies, drawn on the frontier chart."""

    tokens_per_s_per_user: Fraction
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {"tokens_per_s_per_user": float(self.tokens_per_s_per_user), "text": self.text}


@dataclass(frozen=True)
class Economics:
    price: Price | None
    price_text: str
    limits: tuple[str, ...]  # what "within your limits" means, in words
    interactivity_limits: tuple[InteractivityLimit, ...]
    findings: tuple[CostFinding, ...]
    offers: tuple[OfferCosts, ...]
    goodput: str = ""  # what goodput means here, or why it is not counted (goodput_summary)

    def offer(self, file: str) -> OfferCosts | None:
        return next((o for o in self.offers if o.offer == file), None)

    def as_dict(self) -> dict[str, Any]:
        p = self.price
        return {
            "price": None
            if p is None
            else {
                "currency": p.currency,
                "per_accelerator_hour": p.per_accelerator_hour,
                "per_server_hour": p.per_server_hour,
                "accelerators_per_server": p.accelerators_per_server,
                "source": p.source,
            },
            "price_text": self.price_text,
            "limits": list(self.limits),
            "interactivity_limits": [x.as_dict() for x in self.interactivity_limits],
            "goodput": self.goodput,
            "findings": [f.as_dict() for f in self.findings],
            "offers": [o.as_dict() for o in self.offers],
        }


def goodput_lines(o: OfferCosts) -> list[str]:
    """Each measured point's goodput and how it was obtained; the points without one grouped by why,
    so a reason is said once. Empty when no point has a goodput (the tables then carry no column)."""
    measured = [(c, p) for c in o.configurations for p in c.points if p.basis == "measured"]
    if not any(p.goodput.basis != "none" for _, p in measured):
        return []
    lines = [f"{c.configuration} at {p.label}: {p.goodput.text}" for c, p in measured if p.goodput.basis != "none"]
    reasons: dict[str, list[str]] = {}
    for c, p in measured:
        if p.goodput.basis == "none":
            reasons.setdefault(p.goodput.text, []).append(f"{c.configuration} at {p.label}")
    lines += [f"{and_join(where)}: {why}" for why, where in reasons.items()]
    return lines
