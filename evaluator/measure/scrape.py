"""The servers' own counters: /metrics fetched just before and just after each window, saved in
the capture, and read by the importers' Prometheus parsing (importers/vllm_metrics.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..importers.common import ImportProblem
from ..importers.vllm_metrics import PREEMPTIONS, SERVERS, Deltas, Scrape, Server, deltas
from .capture import MeasureProblem


def server_of(text: str) -> Server | None:
    """Which engine wrote a scrape, from the prefix of its speculative or generated-token counters."""
    for server in SERVERS.values():
        if server.generated in text or server.drafts in text:
            return server
    return None


async def fetch(client, url: str, headers: dict[str, str], deadline_s: float) -> bytes:
    """A scrape, within its deadline and byte limit (bodies.METRICS), or one line naming the URL."""
    import httpx

    from .bodies import METRICS, BodyProblem, get

    try:
        status, body = await get(client, url, headers, METRICS, deadline_s)
    except httpx.HTTPError as exc:
        raise MeasureProblem(f"--metrics {url}: unreachable ({type(exc).__name__}: {exc})"[:300]) from None
    except BodyProblem as exc:
        raise MeasureProblem(f"--metrics {url}: {exc}") from None
    if status != 200:
        raise MeasureProblem(f"--metrics {url}: HTTP {status}")
    return body


def _unfiled(exc: ImportProblem, path: Path) -> str:
    """The importer's message without the file it names: the URL says where the scrape came from,
    and at the start the file is a probe already gone."""
    return str(exc).removeprefix(f"{path}: ")


def check(path: Path, url: str, speculative: bool) -> Server:
    """The scrape is an engine's, and carries the counters this arm's counts come from."""
    text = path.read_bytes().decode("utf-8", "replace")
    server = server_of(text)
    if server is None and "sglang:" in text:
        # SGLang exports acceptance as gauges (sglang:spec_accept_length, sglang:spec_accept_rate),
        # which cannot be differenced over a window into S, P and A.
        raise MeasureProblem(
            f"--metrics {url}: SGLang's /metrics has only acceptance gauges, no spec-decode counters, so the window's "
            "S, P and A cannot be taken from it (measure this arm without --metrics)"
        )
    if server is None:
        raise MeasureProblem(
            f"--metrics {url}: has no spec-decode or generated-token counters of vLLM (vllm:) or llama.cpp (llamacpp:); "
            "it is not a serving engine's /metrics, or the engine was started without --metrics"
        )
    try:
        scrape = Scrape(path, server)
    except ImportProblem as exc:
        raise MeasureProblem(f"--metrics {url}: {_unfiled(exc, path)}") from None
    if speculative and server.drafts not in scrape.seen:
        raise MeasureProblem(f"--metrics {url}: has no {server.drafts} counter, so the speculative arm's steps cannot be counted")
    if server.generated not in scrape.seen:
        raise MeasureProblem(f"--metrics {url}: has no {server.generated} counter, so whose tokens it counted cannot be settled")
    return server


def refuse_non_finite(path: Path, url: str, server: Server) -> None:
    """At the start: a counter that is NaN, infinite or negative cannot be differenced over any
    window; the parse (importers/vllm_metrics.Scrape) refuses it, naming its line."""
    try:
        Scrape(path, server)
    except ImportProblem as exc:
        raise MeasureProblem(f"--metrics {url}: {_unfiled(exc, path)}") from None


def window_deltas(before: Path, after: Path, server: Server) -> Deltas:
    try:
        return deltas(before, after, server)
    except ImportProblem as exc:
        raise MeasureProblem(str(exc)) from None


@dataclass
class EngineDeltas:
    """One window's deltas summed over the arm's engines (one --metrics each: a deployment of
    several engines exposes counters per engine)."""

    counts: dict[str, Any]
    finished_requests: int | None
    in_flight_after: int | None
    preemptions: int | None


def _add(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else a + b


def summed_deltas(pairs: list[tuple[Path, Path]], server: Server) -> EngineDeltas:
    total = EngineDeltas({}, None, None, None)
    for before, after in pairs:
        d = window_deltas(before, after, server)
        for field, value in d.counts.items():
            if field == "accepted_per_position":
                mine = total.counts.get(field, [])
                longest = max(len(mine), len(value))
                total.counts[field] = [a + b for a, b in zip(mine + [0] * (longest - len(mine)), value + [0] * (longest - len(value)))]
            else:
                total.counts[field] = total.counts.get(field, 0) + value
        total.finished_requests = _add(total.finished_requests, d.finished_requests)
        total.in_flight_after = _add(total.in_flight_after, d.in_flight_after)
        moved = [after_v - d.before.series.get(key, 0.0) for key, after_v in d.after.series.items() if key[0] == PREEMPTIONS]
        if moved:
            if not all(math.isfinite(m) for m in moved):  # (not one of the counters deltas() checks)
                raise MeasureProblem(f"{after}: {PREEMPTIONS} is not a finite number")
            total.preemptions = _add(total.preemptions, round(sum(moved)))
    return total
