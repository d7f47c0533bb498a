"""guidellm's per-request speculation: the server's metrics it passes through (`response_metrics`).

guidellm 0.8.1 (`schemas/base/request_stats.py`, `backends/openai/request_handlers.py`
`extract_choices_and_usage`) keeps each response's root `metrics` object, as received, in the
request's `response_metrics`; vLLM started with --per-request-spec-decode-metrics puts its
per-request `speculative_decoding` block there (num_spec_steps S, num_draft_tokens P,
num_accepted_draft_tokens A, acceptance_histogram). guidellm itself computes nothing from them.

Summed into the run's S, P and A only when every request guidellm counted carries the block, so
that the counts and E cover the same requests; otherwise the requests that carry it still make
the run's request_acceptance, and a note says how many lack it. A file that keeps only a sample
of the counted requests gives no counts either (the sample is not the run).
"""

from __future__ import annotations

from typing import Any

from ..engine.request_acceptance import RequestCounts, distribution
from .common import ImportProblem, count, histogram

SOURCE = "vLLM's per-request speculative_decoding, passed through by guidellm in requests.successful[].response_metrics"
_KEYS = ("num_spec_steps", "num_draft_tokens", "num_accepted_draft_tokens")


def _block(request: dict) -> Any:
    metrics = request.get("response_metrics")
    return metrics.get("speculative_decoding") if isinstance(metrics, dict) else None


def _request_counts(sd: Any, where: str) -> tuple[RequestCounts, list[int] | None]:
    if not isinstance(sd, dict):
        raise ImportProblem(f"{where}: not an object")
    s, p, a = (count(sd.get(key)) for key in _KEYS)
    if s is None or p is None or a is None:
        raise ImportProblem(f"{where}: lacks a whole-number num_spec_steps, num_draft_tokens or num_accepted_draft_tokens")
    if a > p:
        raise ImportProblem(f"{where}: accepted {a} drafts of {p} proposed (num_accepted_draft_tokens > num_draft_tokens)")
    h = histogram(sd.get("acceptance_histogram"), where)
    if h is not None and (sum(h) != s or sum(j * n for j, n in enumerate(h)) != a):
        raise ImportProblem(
            f"{where}: acceptance_histogram {h} adds up to {sum(h)} steps and {sum(j * n for j, n in enumerate(h))} accepted drafts, "
            f"not num_spec_steps {s} and num_accepted_draft_tokens {a}"
        )
    return RequestCounts(p, a, s), h


def speculation(bench: dict, counted: list[dict] | None, where: str) -> tuple[dict[str, Any], dict[str, Any] | None, list[str]]:
    """(counts to add to the run's, its request_acceptance, notes) from the requests' response_metrics."""
    requests = got if isinstance(got := bench.get("requests"), dict) else {}
    kept = got if isinstance(got := requests.get("successful"), list) else []
    if not any(isinstance(r, dict) and _block(r) is not None for r in kept):
        return {}, None, []
    if counted is None:
        return (
            {},
            None,
            [
                "Requests carry the server's speculative_decoding in response_metrics, but the file does not keep every request "
                "guidellm counted (a sample), so no speculation counts are taken from them."
            ],
        )
    index = {id(r): i for i, r in enumerate(kept)}
    found: list[tuple[RequestCounts, list[int] | None]] = []
    for r in counted:
        sd = _block(r)
        if sd is not None:
            found.append(_request_counts(sd, f"{where}: requests.successful[{index[id(r)]}].response_metrics.speculative_decoding"))
    if not found:
        return {}, None, []
    built = distribution([rc for rc, _ in found], SOURCE)
    acceptance = built.model_dump(exclude_none=True) if built else None
    missing = len(counted) - len(found)
    if missing:
        return (
            {},
            acceptance,
            [
                f"{missing} of the {len(counted)} requests guidellm counted carry no speculative_decoding in response_metrics, so the "
                "run's S, P and A are left out; request_acceptance holds the requests that carry it."
            ],
        )
    counts: dict[str, Any] = {
        "verification_steps": sum(rc.steps or 0 for rc, _ in found),
        "proposed_drafts": sum(rc.proposed for rc, _ in found),
        "accepted_drafts": sum(rc.accepted for rc, _ in found),
        "requests_with_metrics": len(found),
        "requests_without_metrics": 0,
        "missing_metrics_as": "excluded",
    }
    if all(h is not None for _, h in found):
        width = max(len(h) for _, h in found if h is not None)
        counts["accepted_length_histogram"] = [sum(h[j] if j < len(h) else 0 for _, h in found if h is not None) for j in range(width)]
    return (
        counts,
        acceptance,
        ["S, P and A sum the server's per-request speculative_decoding that guidellm kept in each counted request's response_metrics."],
    )
