"""Goodput: requests per second served within every one of the buyer's per-request latency limits.

A request is good when each latency the buyer limits is below that limit (strictly, as the profile's
limits are). Where a metric is limited at several percentiles, a request is held to the limit at the
highest one (p99 over p90 ...): the bound the buyer accepts for nearly every request. An
inter-token-latency limit has no single value per request, so goodput is not counted under one.

Two sources, in this order:
  counted   the run's per-request latencies (run.request_latencies): good requests / T, at the
            buyer's own limits;
  at least  the tool's own goodput (run.goodput), when the tool held requests to limits below the
            buyer's on every metric the buyer limits: a request good for the tool is good for the
            buyer, so the tool's figure is a floor.
A tool's goodput at other limits is not the buyer's goodput, and nothing else is: the point then says
why none is given. Arithmetic is on exact fractions of the numbers as written.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from ..engine.metrics import exact
from ..engine.record import Run
from ..engine.wording import and_join, num

if TYPE_CHECKING:
    from .profile import RequirementsProfile

PER_REQUEST_METRICS = ("ttft", "tpot", "e2e")  # the latencies a single request has one value of
PERCENTILE_ORDER = ("mean", "p50", "p90", "p95", "p99")
NAMES = {"ttft": "TTFT", "tpot": "TPOT", "e2e": "end-to-end"}


@dataclass(frozen=True)
class Goodput:
    requests_per_s: Fraction | None
    basis: str  # counted | at-least | none
    text: str  # how it was obtained, or why there is none

    def as_dict(self) -> dict:
        return {"requests_per_s": None if self.requests_per_s is None else float(self.requests_per_s), "basis": self.basis, "text": self.text}


def request_limits(profile: RequirementsProfile) -> tuple[dict[str, Fraction], bool]:
    """The per-request limit for each latency the buyer limits (ms), and whether an ITL limit is stated."""
    chosen: dict[str, tuple[int, Fraction]] = {}
    for lim in profile.latency_limits:
        if lim.metric not in PER_REQUEST_METRICS:
            continue
        rank = PERCENTILE_ORDER.index(lim.percentile)
        if lim.metric not in chosen or rank > chosen[lim.metric][0]:
            chosen[lim.metric] = (rank, exact(lim.limit_ms))
    has_itl = any(lim.metric == "itl" for lim in profile.latency_limits)
    return {m: limit for m, (_, limit) in chosen.items()}, has_itl


def limits_text(limits: dict[str, Fraction]) -> str:
    return and_join(f"{NAMES[m]} < {num(float(v), 'ms')}" for m, v in sorted(limits.items(), key=lambda kv: PER_REQUEST_METRICS.index(kv[0])))


def goodput(run: Run, limits: dict[str, Fraction], has_itl: bool) -> Goodput:
    if has_itl:
        return Goodput(None, "none", "not counted: an inter-token latency limit has no single value per request")
    if not limits:
        return Goodput(None, "none", "not counted: you state no per-request latency limit")
    counted = _counted(run, limits)
    if counted.basis != "none" or run.goodput is None:
        return counted
    return _tool_floor(run, limits, counted.text)


def _counted(run: Run, limits: dict[str, Fraction]) -> Goodput:
    lists = run.request_latencies
    if lists is None:
        return Goodput(None, "none", "not measured: the run keeps no per-request latencies")
    values = {m: getattr(lists, f"{m}_ms") for m in limits}
    missing = [NAMES[m] for m, v in values.items() if v is None]
    if missing:
        return Goodput(None, "none", f"not counted: the run keeps no per-request {and_join(missing)}")
    lengths = {len(v) for v in values.values()}
    if len(lengths) != 1:
        return Goodput(None, "none", "not counted: the run's per-request lists differ in length")
    duration = run.interval.duration_s
    if not duration:
        return Goodput(None, "none", "not counted: the run states no measured interval to divide by")
    total = lengths.pop()
    good = sum(1 for i in range(total) if all(exact(values[m][i]) < limit for m, limit in limits.items()))
    rate = Fraction(good) / exact(duration)
    return Goodput(rate, "counted", f"{good} of {total} requests within {limits_text(limits)} over {num(duration, 's')}")


def _tool_floor(run: Run, limits: dict[str, Fraction], why_not_counted: str) -> Goodput:
    g = run.goodput
    assert g is not None  # goodput() falls back on the tool's figure only when the run has one
    tool = {m: exact(v) for m in PER_REQUEST_METRICS if (v := getattr(g, f"{m}_limit_ms")) is not None}
    stated = limits_text(tool) if tool else "no stated limits"
    if all(m in tool and tool[m] < limit for m, limit in limits.items()):
        return Goodput(exact(g.requests_per_s), "at-least", f"at least the tool's goodput, counted at {stated}, each below yours")
    return Goodput(
        None, "none", f"{why_not_counted}; the tool's goodput {num(g.requests_per_s, 'requests/s')} was counted at {stated}, not within yours"
    )
