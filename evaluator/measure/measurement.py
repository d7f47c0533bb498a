"""A run's `measurement` block (record 1.3): how sdeval measure took it, and what the client saw of
itself. Order of the windows, the salt and the cache hits it should have prevented, requests resent
after a stale kept-alive connection; the findings each of these can give."""

from __future__ import annotations

from typing import Any

from .selfcheck import bottleneck

STEADY_SHARE = 0.95  # a window whose achieved concurrency is below 95 % of its target is a finding

# Tokens a server puts before the salt: BOS for a completion; a chat template's turn header (and
# BOS, or a system preamble) for a chat. A stated allowance, not a tokenizer's count.
TEMPLATE_ALLOWANCE = {"completions": 1, "chat": 32}


def cached_tokens(request: dict) -> int | None:
    """The prompt tokens the server served from its prefix cache, where it says."""
    if isinstance(request.get("cached_tokens"), int):
        return request["cached_tokens"]
    cache_n = (request.get("server_timings") or {}).get("cache_n")  # llama.cpp's per-response timings
    return cache_n if isinstance(cache_n, int) and not isinstance(cache_n, bool) else None


def cache_allowance(salt: str, endpoint: str) -> int:
    """The most cache hit the salt itself explains: its UTF-8 bytes (a token is at least one byte)
    plus the template's tokens before it. Beyond that, the prompt's own text was cached."""
    return len(salt.encode()) + TEMPLATE_ALLOWANCE[endpoint]


def _held_spans(measured: list[dict]) -> tuple[list[tuple[float, float, Any]], dict[Any, list[tuple[float, float]]]]:
    """Each request's (send, last byte, slot) -- its first attempt's send when it was resent -- and
    the spans grouped by slot, each slot's in order."""
    spans = [((r.get("earlier_attempts") or [r])[0]["sent"], r["last_byte"] or r["sent"], r.get("slot")) for r in measured]
    by_slot: dict[Any, list[tuple[float, float]]] = {}
    for s, e, slot in sorted(spans, key=lambda span: span[:2]):
        by_slot.setdefault(slot if slot is not None else object(), []).append((s, e))
    return spans, by_slot


def steady_interval(measured: list[dict], c: int) -> tuple[float, float] | None:
    """The window's steady interval on the client's clock: from the moment c measured requests are
    first in flight (the c-th is sent; with drain false the warm-up's slots are all busy before
    that, so there is no burst) to the moment the first slot has nothing left to send (the first
    slot to finish its last request). None when the window never had c requests in flight."""
    spans, by_slot = _held_spans(measured)
    if len(spans) < c:
        return None
    sends = sorted(s for s, _, _ in spans)
    start, last_sent = sends[c - 1], sends[-1]
    if all(slot is not None for _, _, slot in spans) and len(by_slot) == c:
        # every slot has begun its measured requests (a slot still busy with its warm-up is not
        # in the window yet, though another slot may have sent twice by then)
        start = max(slot_spans[0][0] for slot_spans in by_slot.values())
        end = min(slot_spans[-1][1] for slot_spans in by_slot.values())  # the first slot to finish its last request
    else:  # a capture without slots: from the c-th send to the first response to end after the last send
        after = [e for _, e, _ in spans if e > last_sent]
        if not after:
            return None
        end = min(after)
    return (start, end) if end > start else None


# A slot's requests inside the steady interval are its head straddler, those wholly inside, and its
# tail straddler: with fewer than 3 per slot no request need lie wholly inside, the edges are most
# of what is counted, and the window is counted whole (first send to last byte) instead.
MIN_PER_SLOT = 3


def counting_interval(measured: list[dict], c: int) -> tuple[float, float] | None:
    """The steady interval E and T are taken over, or None where the window is counted whole: it
    never had c requests in flight, or (c > 1) a slot sent fewer than MIN_PER_SLOT measured requests."""
    interval = steady_interval(measured, c)
    if interval is None or c == 1:  # one slot has no straddlers: its first send and last byte are the edges
        return interval
    slots = [r.get("slot") for r in measured]
    per_slot = [slots.count(slot) for slot in set(slots)] if None not in slots else [len(slots) // c]
    return interval if min(per_slot) >= MIN_PER_SLOT else None


def counted_in(request: dict, interval: tuple[float, float]) -> bool:
    """The straddle rule: a completed request counts in the steady interval, whole, when its
    finishing chunk arrived inside it (start < finished <= end). Whole requests keep the server's
    per-request counts (llama.cpp timings) on exactly the population E counts, so E = sum of usage =
    sum of predicted_n holds for the interval. In a closed loop each slot has one request
    straddling the start (counted whole, with time before the interval) and one straddling the end
    (left out, with time inside it); the slot that ends the interval has none at the end. At steady
    load the two are drawn from the same requests, so counting by finish estimates the rate
    without bias (the renewal-reward theorem), as MLPerf counts the queries completed in its
    duration."""
    return request["outcome"] == "completed" and interval[0] < request["finished"] <= interval[1]


def counted_requests(measured: list[dict], c: int) -> list[dict]:
    """The requests a window's E, P, A and N count: those the straddle rule places in its steady
    interval, or every completed one where the window is counted whole."""
    interval = counting_interval(measured, c)
    if interval is None:
        return [r for r in measured if r["outcome"] == "completed"]
    return [r for r in measured if counted_in(r, interval)]


def achieved_concurrency(measured: list[dict], c: int) -> tuple[float, float] | None:
    """(achieved concurrency, the steady interval's share of the window). Over the steady interval
    (steady_interval), the time-weighted mean of requests in flight: a request from its send (its
    first attempt's, when resent) to its last byte, and its slot held through the client's
    turnaround to that slot's next send (the closed loop's own; the self-check watches the
    client). None when the window never had c requests in flight."""
    interval = steady_interval(measured, c)
    if interval is None:
        return None
    start, end = interval
    spans, by_slot = _held_spans(measured)
    held = []  # a slot is held from each send to the next send on it, the last to its last byte
    for slot_spans in by_slot.values():
        held += [(s, slot_spans[k + 1][0]) for k, (s, _) in enumerate(slot_spans[:-1])] + [slot_spans[-1]]
    window = max(e for _, e, _ in spans) - min(s for s, _, _ in spans)
    if window <= 0:
        return None
    busy = sum(max(0.0, min(e, end) - max(s, start)) for s, e in held)
    return round(busy / (end - start), 4), round((end - start) / window, 4)


def server_drafts(request: dict) -> tuple[int, int, int] | None:
    """(P, A, predicted tokens) of one request, from llama.cpp's per-response timings: `draft_n`
    and `draft_n_accepted` are written only when the request drafted, so with `predicted_n`
    present their absence is 0 drafted (importers/responses_llama.py reads them the same way).
    None where the server gave no per-request counts."""
    timings = request.get("server_timings") or {}
    values = (timings.get("draft_n", 0), timings.get("draft_n_accepted", 0), timings.get("predicted_n"))
    proposed, accepted, predicted = (v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None for v in values)
    if proposed is None or accepted is None or predicted is None:
        return None
    return proposed, accepted, predicted


def measurement(
    name: str, c: int, reps: list[tuple[int, dict]], requests: dict, session: dict, sequence: dict, order: str, findings: list[str]
) -> dict[str, Any]:
    """The block, and a finding for each thing in it that makes the run's figures doubtful."""
    salt = session.get("salt")
    endpoint = session["settings"].get("endpoint", "chat")
    windows, cached, reporting, allowance, resent = [], 0, 0, 0, 0
    for rep, window in reps:
        measured = requests[(name, c, rep)]
        hits = [(r, h) for r in measured if (h := cached_tokens(r)) is not None]
        entry: dict[str, Any] = {
            "repetition": rep,
            "sequence": sequence[(name, c, rep)],
            "requests": len(measured),
            "resent": sum(1 for r in measured if r.get("earlier_attempts")),
        }
        if hits:
            entry["cached_prompt_tokens"] = sum(h for _, h in hits)
            cached += entry["cached_prompt_tokens"]
            reporting += len(hits)
            if salt:
                allowance += sum(cache_allowance(r["salt"], endpoint) for r, _ in hits if r.get("salt"))
        # The requests E and T count, so that N / T divides like by like: those inside the steady
        # interval, or every completed one where the window is counted whole.
        entry["steady_requests"] = len(counted_requests(measured, c))
        steady = achieved_concurrency(measured, c)
        if steady is not None:
            achieved, entry["steady_share"] = steady
            entry["achieved_concurrency"] = achieved
            if achieved < STEADY_SHARE * c:
                findings.append(
                    f"{name} c={c} repetition {rep + 1} of {len(reps)}: {achieved:.2f} requests in flight on average over the window's "
                    f"steady part, below 95 % of {c}: the load was not the one stated"
                )
        for key in ("loop_lag_ms_max", "loop_lag_ms_p99", "client_cpu_fraction", "clock_uncertainty_us"):
            if window.get(key) is not None:
                entry[key] = window[key]
        if (why := bottleneck(window)) is not None:
            findings.append(
                f"{name} c={c} repetition {rep + 1} of {len(reps)}: the measuring client was the bottleneck ({why}): "
                "measure with more client processes (--workers) or on a less busy machine"
            )
        resent += entry["resent"]
        windows.append(entry)
    block: dict[str, Any] = {"order": order, "resent_requests": resent, "windows": windows}
    if salt:
        block["salt"] = {"scheme": salt["scheme"], "nonce": salt["nonce"]}
    if reporting:
        block["cached_prompt_tokens"], block["requests_reporting_cache"] = cached, reporting
        if salt:
            block["cache_allowance_tokens"] = allowance
            if cached > allowance:
                findings.append(
                    f"{name} c={c}: the server served {cached} prompt tokens of the measured requests from its prefix cache, more than "
                    f"the {allowance} their salts explain: the prompts' own text was cached, so TTFT and E/T are a warm cache's"
                )
    return block
