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


def achieved_concurrency(measured: list[dict], c: int) -> float | None:
    """Time-weighted mean of the measured requests in flight over the window's steady part: from
    the moment c requests are first in flight to the moment the first slot has nothing left to send
    (the first response to end after the last request was sent). None when the window never had c
    requests in flight."""
    # a resent request was in its slot from its first attempt (the server never saw that one)
    spans = sorted(((r.get("earlier_attempts") or [r])[0]["sent"], r["last_byte"] or r["sent"]) for r in measured)
    if len(spans) < c:
        return None
    start = spans[c - 1][0]
    last_sent = spans[-1][0]
    end = min(e for _, e in spans if e >= last_sent)
    if end <= start:
        return None
    busy = sum(max(0.0, min(e, end) - max(s, start)) for s, e in spans)
    return round(busy / (end - start), 4)


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
        achieved = achieved_concurrency(measured, c)
        if achieved is not None:
            entry["achieved_concurrency"] = achieved
            if achieved < STEADY_SHARE * c:
                findings.append(
                    f"{name} c={c} repetition {rep + 1} of {len(reps)}: {achieved:.2f} requests in flight on average over the window's "
                    f"steady part, below 95 % of {c}: the load was not the one stated"
                )
        for key in ("loop_lag_ms_max", "loop_lag_ms_p99", "client_cpu_fraction"):
            if window.get(key) is not None:
                entry[key] = window[key]
        if (why := bottleneck(window)) is not None:
            findings.append(
                f"{name} c={c} repetition {rep + 1} of {len(reps)}: the measuring client was the bottleneck ({why}): "
                "measure with more client processes (--workers) or on a less busy machine"
            )
        resent += entry["resent"]
        windows.append(entry)
    block: dict[str, Any] = {"tool": "sdeval measure", "order": order, "resent_requests": resent, "windows": windows}
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
