"""sglang-responses: JSONL of SGLang responses carrying per-request speculative-decoding figures.

A line is one response: a native /generate response ({"text", "meta_info"}, or a JSON array of
them for a batch request), an OpenAI-compatible /v1/chat/completions or /v1/completions response
with `sglext.spec_tokens_details` (requests that set `return_spec_tokens_details`), or one chunk
of a streamed one: SGLang sends `sglext` and `usage` in two separate chunks with `"choices": []`,
joined here by the response id; content chunks are passed over.

Field names, read from sgl-project/sglang:
- `meta_info`: python/sglang/srt/managers/tokenizer_manager_components/spec_decoding_meta.py
  (`fill_spec_decoding_meta`, commit 9155cf0e; earlier in tokenizer_manager.py as
  `_calculate_spec_decoding_metrics`): set only when the request verified at least once
  (`spec_verify_ct > 0`): `spec_verify_ct` (S), `spec_num_correct_drafts` (A),
  `spec_num_proposed_drafts` (P), `spec_correct_drafts_histogram` (steps that accepted exactly j
  drafts), `spec_accept_rate`, `spec_accept_length`, plus the aliases `spec_accepted_drafts`,
  `spec_proposed_drafts`, `spec_accept_histogram` of the releases before. The first era
  (PRs #11441, #13425, late 2025) wrote `spec_verify_ct` always and the counts as
  `spec_accept_token_num` and `spec_draft_token_num`.
  Proposed drafts are spec_verify_ct x (speculative_num_draft_tokens - 1): the drafts the target
  verified at the configured width; newer servers that draft fewer write their own count.
- `sglext.spec_tokens_details`: python/sglang/srt/entrypoints/openai/utils.py
  (`spec_tokens_details_from_meta_info`, PR #33518): the same canonical fields, absent fields
  filled with 0 or []; for n > 1 a list holding one entry per choice that had figures.

Counts are sums over the requests with figures. A request without them (its meta_info has none,
no sglext arrived, or SGLang's defaults stand for a request that never verified) is counted as not
covered, never as zeros; so is an n > 1 request whose figures do not cover every choice. E is the
covered requests' completion tokens (reasoning included). Per-request rates and lengths are not a
run's figures (`spec_accept_length` is completion tokens / spec_verify_ct, the prefill's first token
included), so nothing goes to `reported`. SGLang's responses carry no version; the model the first
OpenAI-style response names goes to the notes (issue 28.4). No SGLang response carries SGLANG_SIMULATE_ACC_LEN,
an environment variable of the server.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine.request_acceptance import RequestCounts, distribution
from . import provenance
from .common import HashedLines, Imported, ImportProblem, core, count, histogram, parse_json_line, source

FORMAT = "sglang-responses"
SOURCE = "SGLang's per-request meta_info / sglext.spec_tokens_details (spec_num_proposed_drafts, spec_num_correct_drafts, spec_verify_ct)"
# SGLang's own per-request length is another quantity than the record's, so it is said and never read.
ACCEPT_LENGTH_NOTE = (
    "SGLang's own spec_accept_length is completion_tokens / spec_verify_ct (the first token, from the prefill, counted in), "
    "not 1 + A / S: it is not read, and request_acceptance's length histogram is 1 + A / S from the requests' own counts."
)

# (S, A, P, histogram) key names, newest first; the first present in a meta_info is read.
ACCEPTED_KEYS = ("spec_num_correct_drafts", "spec_accepted_drafts", "spec_accept_token_num")
PROPOSED_KEYS = ("spec_num_proposed_drafts", "spec_proposed_drafts", "spec_draft_token_num")
HISTOGRAM_KEYS = ("spec_correct_drafts_histogram", "spec_accept_histogram")


@dataclass
class Figures:
    steps: int
    accepted: int | None
    proposed: int | None
    hist: list[int] | None


@dataclass
class Request:
    figures: list[Figures] | None = None  # one per choice; None: no figures
    choices: int | None = None  # how many choices the response had, when it says
    completion_tokens: int | None = None
    listed: bool = False  # figures came as an n > 1 list


@dataclass
class Totals:
    with_figures: int = 0
    without: int = 0
    steps: int = 0
    accepted: int | None = 0
    proposed: int | None = 0
    emitted: int | None = 0
    hist: list[int] | None = field(default_factory=list)
    # Record 1.3 request_acceptance: each covered request's own counts (None once one lacks A or P)
    per_request: list[RequestCounts] | None = field(default_factory=list)


def _first(d: dict, keys: tuple[str, ...], where: str, hist: bool = False) -> Any:
    for key in keys:
        if key in d:
            if hist:
                return histogram(d[key], f"{where}: {key}") if d[key] else None
            value = count(d[key])
            if value is None:
                raise ImportProblem(f"{where}: {key} is {json.dumps(d[key])}, not a count")
            return value
    return None


def _figures(d: Any, where: str, defaults_stand_for_none: bool) -> Figures | None:
    """A request's figures from a meta_info or a spec_tokens_details object, or None when it has none."""
    if not isinstance(d, dict) or "spec_verify_ct" not in d:
        return None
    steps = count(d["spec_verify_ct"])
    if steps is None:
        raise ImportProblem(f"{where}: spec_verify_ct is {json.dumps(d['spec_verify_ct'])}, not a count")
    if steps == 0 and defaults_stand_for_none:
        return None  # sglext fills 0 for a request that never verified: no figure, not a zero
    accepted = _first(d, ACCEPTED_KEYS, where)
    proposed = _first(d, PROPOSED_KEYS, where)
    hist = _first(d, HISTOGRAM_KEYS, where, hist=True)
    if steps == 0:  # early servers wrote spec_verify_ct 0 for a request that never verified
        accepted, proposed, hist = accepted or 0, proposed or 0, hist or [0]
    return Figures(steps, accepted, proposed, hist)


def _usage_tokens(obj: dict, where: str) -> int | None:
    usage = obj.get("usage")
    return core(usage, "completion_tokens", f"{where}: usage") if isinstance(usage, dict) else None


def _native(obj: dict, where: str) -> Request:
    meta = obj["meta_info"]
    if not isinstance(meta, dict):
        raise ImportProblem(f"{where}: meta_info is not an object")
    fig = _figures(meta, f"{where}: meta_info", defaults_stand_for_none=False)
    return Request([fig] if fig else None, 1, core(meta, "completion_tokens", f"{where}: meta_info"))


def _sglext_figures(obj: dict, where: str) -> tuple[list[Figures] | None, bool]:
    ext = obj.get("sglext")
    details = ext.get("spec_tokens_details") if isinstance(ext, dict) else None
    if isinstance(details, list):
        figs = [_figures(x, f"{where}: sglext.spec_tokens_details[{i}]", True) for i, x in enumerate(details)]
        return ([f for f in figs if f] or None), True
    fig = _figures(details, f"{where}: sglext.spec_tokens_details", True)
    return ([fig] if fig else None), False


def read(path: Path) -> tuple[list[Request], int, str | None, str]:
    """The requests of a file, in order, how many content chunks were passed over, the model the
    first response naming one names (OpenAI-style responses do; native meta_info does not), and
    the file's SHA-256."""
    requests: list[Request] = []
    model: str | None = None
    by_id: dict[str, Request] = {}  # streamed responses: sglext and usage arrive in separate chunks
    content_chunks = 0
    with HashedLines(path) as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            item = parse_json_line(path, number, line)
            where = f"{path}: line {number}"
            for obj in item if isinstance(item, list) else [item]:
                if not isinstance(obj, dict):
                    raise ImportProblem(f"{where}: not a JSON object")
                if model is None and isinstance(obj.get("model"), str):
                    model = obj["model"]
                if "meta_info" in obj:
                    requests.append(_native(obj, where))
                    continue
                choices = obj.get("choices")
                if not isinstance(choices, list):
                    from .sniff import describe_guess

                    raise ImportProblem(
                        f"{where}: neither a native SGLang response (meta_info) nor an OpenAI-style one (choices), so it is not {FORMAT} output{describe_guess(path, FORMAT)}"
                    )
                streamed_part = not choices or str(obj.get("object", "")).endswith(".chunk")
                if streamed_part and "usage" not in obj and "sglext" not in obj:
                    content_chunks += 1
                    continue
                figs, listed = _sglext_figures(obj, where)
                rid = obj.get("id")
                req = by_id.get(rid) if streamed_part and isinstance(rid, str) else None
                if req is None:
                    req = Request(choices=None if streamed_part else len(choices))
                    requests.append(req)
                    if streamed_part and isinstance(rid, str):
                        by_id[rid] = req
                if "sglext" in obj:
                    req.figures, req.listed = figs, listed
                if "usage" in obj:
                    req.completion_tokens = _usage_tokens(obj, where)
        return requests, content_chunks, model, fh.sha256()


def total(requests: list[Request]) -> Totals:
    t = Totals()
    for req in requests:
        figs = req.figures
        # An n > 1 list names only the choices that had figures: covered only if it names them all.
        if figs and req.listed and (req.choices is None or len(figs) != req.choices):
            figs = None
        if not figs:
            t.without += 1
            continue
        t.with_figures += 1
        t.steps += sum(f.steps for f in figs)
        t.accepted = None if t.accepted is None or any(f.accepted is None for f in figs) else t.accepted + sum(f.accepted for f in figs)  # type: ignore[misc]  # none is None: any() above
        t.proposed = None if t.proposed is None or any(f.proposed is None for f in figs) else t.proposed + sum(f.proposed for f in figs)  # type: ignore[misc]  # none is None: any() above
        t.emitted = None if t.emitted is None or req.completion_tokens is None else t.emitted + req.completion_tokens
        if t.per_request is not None and all(f.accepted is not None and f.proposed is not None for f in figs):
            a, p = sum(f.accepted for f in figs), sum(f.proposed for f in figs)  # type: ignore[misc]  # none is None: all() above
            t.per_request.append(RequestCounts(p, a, sum(f.steps for f in figs)))
        else:
            t.per_request = None
        if t.hist is not None and all(f.hist is not None for f in figs):
            hist = t.hist
            for f in figs:
                h = f.hist
                assert h is not None  # all() above
                width = max(len(hist), len(h))
                hist = [a + b for a, b in zip(hist + [0] * (width - len(hist)), h + [0] * (width - len(h)))]
            t.hist = hist
        else:
            t.hist = None
    return t


def import_file(path: Path) -> list[Imported]:
    requests, content_chunks, model, sha = read(path)
    if not requests:
        raise ImportProblem(f"{path}: holds no SGLang response")
    t = total(requests)
    speculative = t.with_figures > 0
    counts: dict[str, Any] = {"population": "benchmark-requests"}
    notes = []
    if speculative:
        counts.update(
            verification_steps=t.steps,
            proposed_drafts=t.proposed,
            accepted_drafts=t.accepted,
            accepted_length_histogram=t.hist or None,
            emitted_tokens=t.emitted,
            requests_with_metrics=t.with_figures,
            requests_without_metrics=t.without,
            missing_metrics_as="excluded",
        )
        counts = {k: v for k, v in counts.items() if v is not None}
        if t.without:
            notes.append(f"{t.without} of {len(requests)} requests carried no speculative figures; their tokens are not in the counts.")
        for name, value in (("accepted drafts", t.accepted), ("proposed drafts", t.proposed), ("output tokens", t.emitted)):
            if value is None:
                notes.append(f"Some requests with figures do not give their {name}, so the run's total is left out.")
        notes.append(ACCEPT_LENGTH_NOTE)
    else:
        emitted = [r.completion_tokens for r in requests]
        if all(e is not None for e in emitted):
            counts["emitted_tokens"] = sum(emitted)
    if content_chunks:
        notes.append(f"{content_chunks} streamed content chunk{'' if content_chunks == 1 else 's'} passed over.")
    served = provenance.note("SGLang", model=model, model_from="as the first response naming one names it")
    if served:
        notes.append(served)
    fields: dict[str, Any] = {"workload": {"num_requests": len(requests)}, "counts": counts}
    if speculative and t.per_request:
        for r in t.per_request:
            if r.accepted > r.proposed:
                raise ImportProblem(f"{path}: a request accepted {r.accepted} drafts of {r.proposed} proposed, which no SGLang count allows")
        built = distribution(t.per_request, SOURCE)
        fields["request_acceptance"] = built.model_dump(exclude_none=True) if built else None
    if notes:
        fields["notes"] = " ".join(notes)
    return [Imported(fields=fields, source=source(FORMAT, path, sha), speculative=speculative)]
