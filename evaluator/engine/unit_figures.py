"""Figures per unit a buyer pays for or feels, from one run: output tokens/s, tokens/s per user,
per accelerator, and cost per million output tokens at an hourly price.

One definition each, shared by the claims that state them (claim_figures: a cost claim, a
comparison at matched interactivity) and the buyer's economics (buyer/economics.py), so a vendor's
figure and the buyer's are computed alike. Exact fractions of the numbers as written (metrics.exact).

  tokens/s                  E / T
  tokens/s per user         (E / T) / concurrency for a closed-loop run; otherwise 1000 / TPOT ms
                            (the p50, else the mean)
  tokens/s per accelerator  (E / T) / accelerators (the configuration's hardware.count)
  total tokens/s            (I + E) / T: prompt and output tokens (record 1.3's total-tokens)
  hourly price              per_accelerator_hour x accelerators + per_server_hour x whole servers
                            (accelerators / accelerators_per_server, rounded up)
  cost per million tokens   hourly price / ((E / T) x 3600) x 1,000,000: the whole hour charged to
                            the output tokens emitted in it, as InferenceX does
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Protocol, TypeVar

from .context import Context
from .metrics import exact
from .record import Run

T = TypeVar("T")

# How a per-user figure was obtained, for the reader (buyer/costs.py shows it beside each point).
PER_REQUEST = "E / T / concurrency"


class HourlyPrice(Protocol):
    """A price per hour as both a claim (record.ClaimPrice) and a buyer's profile (buyer Price) state it."""

    per_accelerator_hour: float | None
    per_server_hour: float | None
    accelerators_per_server: int | None


def tokens_per_s(run: Run) -> Fraction | None:
    """E / T on exact fractions (metrics.py keeps only the rounded float)."""
    e, t = run.counts.emitted_tokens, run.interval.duration_s
    return None if e is None or not t else Fraction(e) / exact(t)


def per_user(run: Run, tps: Fraction | None) -> tuple[Fraction | None, str | None]:
    """Tokens/s each user receives: per-request output throughput for a closed-loop run (what the
    per-request throughput requirement measures), else 1000 / TPOT where that is what was measured."""
    if tps is not None and run.load.loop != "open" and run.load.concurrency:
        return tps / run.load.concurrency, PER_REQUEST
    tpot = run.latency.tpot_ms if run.latency else None
    for percentile in ("p50", "mean"):
        value = getattr(tpot, percentile) if tpot else None
        if value:
            return 1000 / exact(value), f"1000 / {percentile} TPOT"
    return None, None


def accelerators(ctx: Context, run: Run) -> int | None:
    """The accelerators of the run's configuration (hardware.count), when stated: a count of 0 is none,
    never a figure divided by zero or a cost of nothing."""
    cfg = ctx.configuration(run)
    return cfg.hardware.count if cfg is not None and cfg.hardware.count else None


def servers(accelerators: int, accelerators_per_server: int) -> int:
    """Whole servers: 4 accelerators at 8 per server is 1 server, 12 is 2."""
    return math.ceil(accelerators / accelerators_per_server)


def hourly_price(price: HourlyPrice, accelerators: int) -> Fraction:
    """What running `accelerators` accelerators costs per hour at this price."""
    total = Fraction(0)
    if price.per_accelerator_hour is not None:
        total += exact(price.per_accelerator_hour) * accelerators
    if price.per_server_hour is not None and price.accelerators_per_server:
        total += exact(price.per_server_hour) * servers(accelerators, price.accelerators_per_server)
    return total


def cost_per_million(hourly: Fraction, tokens_per_s: Fraction) -> Fraction:
    """The whole hour charged to the output tokens emitted in it."""
    return hourly / (tokens_per_s * 3600) * 10**6


def highest_at_least(points: Iterable[tuple[T, float | Fraction | None, float | Fraction | None]], speed: float | Fraction) -> T | None:
    """At matched interactivity: of (item, per-user speed, figure) points, the item with the highest
    figure among those at least `speed` fast per user, the first on a tie; None when none qualifies.
    A step function over measured points, never interpolated between them (claims at a per-user
    speed and the independent rows they are compared with both use it)."""
    best: tuple[float | Fraction, T] | None = None
    for item, user, figure in points:
        if user is None or figure is None or user < speed:
            continue
        if best is None or figure > best[0]:
            best = (figure, item)
    return None if best is None else best[1]


def total_tokens_per_s(run: Run) -> Fraction | None:
    """(I + E) / T: prompt and output tokens together (record 1.3's total-tokens throughput); None
    unless both counts and the duration are stated."""
    i, e, t = run.counts.input_tokens, run.counts.emitted_tokens, run.interval.duration_s
    return None if i is None or e is None or not t else Fraction(i + e) / exact(t)
