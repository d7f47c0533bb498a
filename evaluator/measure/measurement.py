"""A run's `measurement` block (record 1.3): how sdeval measure took it, and what the client saw of
itself. Order of the windows, the salt and the cache hits it should have prevented, requests resent
after a stale kept-alive connection; the findings each of these can give."""

from __future__ import annotations

from typing import Any

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
        for key in ("achieved_concurrency", "loop_lag_ms_max", "client_cpu_fraction"):
            if window.get(key) is not None:
                entry[key] = window[key]
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
