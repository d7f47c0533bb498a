"""The per-request acceptance distribution of a run (record 1.3 `runs[].request_acceptance`).

One builder for every source of per-request counts (sdeval measure's llama.cpp timings, the
importers' per-request blocks), so a histogram means the same thing whichever tool fed it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from .record import LENGTH_BIN_WIDTH, RATE_BINS, RequestAcceptance

# 1 + A / S cannot pass K + 1, and K is at most 64 in a record (DraftLength).
_MAX_LENGTH_BINS = 130


@dataclass(frozen=True)
class RequestCounts:
    """One request's own speculation counts: P and A always, S where the source gives it.
    `requests` > 1 stands for that many requests with the same counts (an importer tallies a
    million-line file by distinct counts rather than keeping every request)."""

    proposed: int
    accepted: int
    steps: int | None = None
    requests: int = 1


def rate_bin(proposed: int, accepted: int) -> int:
    """The histogram entry of A / P: tenths, 1.0 in the last."""
    return min(RATE_BINS - 1, math.floor(RATE_BINS * accepted / proposed))


def length_bin(accepted: int, steps: int) -> int:
    """The histogram entry of 1 + A / S in halves from 1.0 (0 for [1.0, 1.5))."""
    return min(_MAX_LENGTH_BINS - 1, math.floor((accepted / steps) / LENGTH_BIN_WIDTH))


def distribution(requests: Iterable[RequestCounts], source: str) -> RequestAcceptance | None:
    """The run's distribution, or None when no request carried counts. A request accepting more
    than it was proposed is the caller's to refuse: it is not a count this builder can place."""
    rates = [0] * RATE_BINS
    lengths: list[int] = []
    n = without = proposed = accepted = steps = 0
    every_step = True
    for r in requests:
        if r.accepted > r.proposed or min(r.proposed, r.accepted) < 0:
            raise ValueError(f"a request with A = {r.accepted} and P = {r.proposed} is not a count")
        if r.requests < 1:
            raise ValueError(f"{r.requests} requests is not a count of requests")
        times = r.requests
        n += times
        proposed += times * r.proposed
        accepted += times * r.accepted
        if r.proposed == 0:
            without += times
        else:
            rates[rate_bin(r.proposed, r.accepted)] += times
        if r.steps is None:
            every_step = False
            continue
        steps += times * r.steps
        if r.steps > 0:
            i = length_bin(r.accepted, r.steps)
            lengths.extend([0] * (i + 1 - len(lengths)))
            lengths[i] += times
    if n == 0:
        return None
    return RequestAcceptance(
        source=source,
        requests=n,
        requests_without_proposals=without,
        proposed_drafts=proposed,
        accepted_drafts=accepted,
        verification_steps=steps if every_step else None,
        rate_histogram=rates,
        length_histogram=lengths if every_step and lengths else None,
    )
