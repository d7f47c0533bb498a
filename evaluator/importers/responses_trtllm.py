"""trtllm-responses: TensorRT-LLM's per-choice `speculative_decoding` block in OpenAI-compatible responses.

Read by vllm_responses' line reader, responses_sum (the same JSONL-of-responses shape); this module holds what
differs. Field names from NVIDIA/TensorRT-LLM PR #19311 ("Report per-request speculative-decoding
acceptance on the response", PyTorch backend, open when read in 2026-09) and the AIPerf adapter
written for it (ai-dynamo/aiperf PR #1433): each choice of a /v1/chat/completions or /v1/completions
response carries

    "speculative_decoding": {"acceptance_rate": 0.5, "total_accepted_draft_tokens": 30,
                             "total_draft_tokens": 60, "num_spec_steps": 20,
                             "acceptance_histogram": [8, 0, 6, 6], "num_spec_tokens": 3}

that is A, P, S, the dense histogram of steps that accepted exactly j drafts (sum h = S, sum j h[j]
= A, the identities the PR tests) and K (null under draft_len_schedule, where K varies by batch
size). Tree drafting counts paths, not tree nodes, in total_draft_tokens. No TensorRT-LLM release
writes it yet, so this is tested on files built to that shape only.

A response is one request: its choices' counts are added (n > 1); a response in which some choice
lacks the block is not covered, and so is a response without any. Where a streamed response
(`.chunk` objects, joined by their id) carries the block is not documented; each choice's block is
taken from whichever chunk carries it and the completion tokens from the usage chunk.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import msgspec

from . import provenance
from .common import Imported, request_acceptance, source

NonNeg = Annotated[int, msgspec.Meta(ge=0)]
FORMAT = "trtllm-responses"
# Only TensorRT-LLM's block names its counts so: a line without these bytes is not decoded again.
KEY = b'"total_accepted_draft_tokens"'
SOURCE = "TensorRT-LLM's per-choice speculative_decoding (total_draft_tokens, total_accepted_draft_tokens, num_spec_steps)"


class Block(msgspec.Struct, gc=False):
    total_accepted_draft_tokens: NonNeg | None = None
    total_draft_tokens: NonNeg | None = None
    num_spec_steps: NonNeg | None = None
    acceptance_histogram: list[NonNeg] | None = None
    num_spec_tokens: NonNeg | None = None
    acceptance_rate: float | None = None


class Choice(msgspec.Struct, gc=False):
    index: int = 0
    speculative_decoding: Block | None = None


class Usage(msgspec.Struct, gc=False):
    completion_tokens: NonNeg | None = None


class Line(msgspec.Struct, gc=False):
    id: str | None = None
    object: str | None = None
    choices: list[Choice] | None = None
    usage: Usage | None = None


_decode = msgspec.json.Decoder(Line).decode


@dataclass
class Request:
    """One response's figures so far: per choice index, (P, A, S, histogram)."""

    choices: dict[int, tuple[int, int, int, list[int]]] = field(default_factory=dict)
    without: set[int] = field(default_factory=set)  # choice indexes seen without a block
    tokens: int | None = None


@dataclass
class Requests:
    """TensorRT-LLM's requests of one file, by response id (or line number when a response has none)."""

    refuse: Callable[[int, str], None]
    by_id: dict[str, Request] = field(default_factory=dict)
    k_values: set[int] = field(default_factory=set)

    def line(self, number: int, line: bytes) -> None:
        try:
            response = _decode(line)
        except (msgspec.DecodeError, RecursionError) as exc:
            self.refuse(number, f"not a valid TensorRT-LLM response ({exc})")
            return
        chunk = (response.object or "").endswith(".chunk")
        key = response.id if response.id is not None and chunk else f"line {number}"
        request = self.by_id.setdefault(key, Request())
        for choice in response.choices or []:
            block = choice.speculative_decoding
            if block is None:
                if not chunk:  # a streamed content chunk carries no block; a complete choice without one is not covered
                    request.without.add(choice.index)
                continue
            why = _check(block)
            if why is not None:
                self.refuse(number, why)
                return
            assert block.total_draft_tokens is not None and block.total_accepted_draft_tokens is not None  # _check
            assert block.num_spec_steps is not None and block.acceptance_histogram is not None
            request.choices[choice.index] = (
                block.total_draft_tokens,
                block.total_accepted_draft_tokens,
                block.num_spec_steps,
                block.acceptance_histogram,
            )
            if block.num_spec_tokens is not None:
                self.k_values.add(block.num_spec_tokens)
        if response.usage is not None and response.usage.completion_tokens is not None:
            request.tokens = response.usage.completion_tokens

    def totals(self) -> Totals:
        t = Totals()
        for request in self.by_id.values():
            if not request.choices or request.without - set(request.choices):
                t.without += 1
                continue
            p = sum(c[0] for c in request.choices.values())
            a = sum(c[1] for c in request.choices.values())
            s = sum(c[2] for c in request.choices.values())
            t.covered += 1
            t.drafts, t.accepted, t.steps = t.drafts + p, t.accepted + a, t.steps + s
            for _, _, _, h in request.choices.values():
                t.hist = [x + y for x, y in zip(t.hist + [0] * (len(h) - len(t.hist)), h + [0] * (len(t.hist) - len(h)))]
            t.emitted = None if t.emitted is None or request.tokens is None else t.emitted + request.tokens
            t.per_request[(p, a, s)] += 1
        return t


@dataclass
class Totals:
    covered: int = 0
    without: int = 0
    drafts: int = 0
    accepted: int = 0
    steps: int = 0
    hist: list[int] = field(default_factory=list)
    emitted: int | None = 0
    per_request: Counter = field(default_factory=Counter)


def _check(block: Block) -> str | None:
    """The block's counts against each other, as TensorRT-LLM's own test checks them."""
    p, a, s, h = block.total_draft_tokens, block.total_accepted_draft_tokens, block.num_spec_steps, block.acceptance_histogram
    if p is None or a is None or s is None or h is None:
        return "a choice's speculative_decoding lacks total_draft_tokens, total_accepted_draft_tokens, num_spec_steps or acceptance_histogram"
    if a > p:
        return f"a choice's speculative_decoding accepted {a} drafts of {p} proposed (total_accepted_draft_tokens > total_draft_tokens)"
    if sum(h) != s or sum(j * n for j, n in enumerate(h)) != a:
        return (
            f"a choice's acceptance_histogram {h} adds up to {sum(h)} steps and {sum(j * n for j, n in enumerate(h))} accepted drafts, "
            f"not num_spec_steps {s} and total_accepted_draft_tokens {a}"
        )
    return None


def run(path: Path, trt: Totals, k_values: set[int], model: str | None, sha256: str, notes: list[str], warnings: list[str]) -> Imported:
    """The run of a trtllm-responses file from its requests' sums (notes: the reader's own so far)."""
    counts: dict[str, Any] = {
        "population": "benchmark-requests",
        "requests_with_metrics": trt.covered,
        "requests_without_metrics": trt.without,
        "missing_metrics_as": "excluded",
    }
    fields: dict[str, Any] = {"workload": {"num_requests": trt.covered + trt.without}, "counts": counts}
    if trt.covered:
        counts.update(verification_steps=trt.steps, proposed_drafts=trt.drafts, accepted_drafts=trt.accepted, accepted_length_histogram=trt.hist)
        if trt.emitted is not None:
            counts["emitted_tokens"] = trt.emitted
            notes.append("emitted_tokens sums usage.completion_tokens over the requests whose every choice carries speculative_decoding.")
        fields["request_acceptance"] = request_acceptance(trt.per_request, SOURCE)
    if trt.without:
        notes.append(
            f"{trt.without} of {trt.covered + trt.without} responses have a choice without speculative_decoding "
            "(TensorRT-LLM writes it on the PyTorch backend only) and are not in the counts."
        )
    if len(k_values) > 1:
        notes.append(f"Choices reported different num_spec_tokens: {sorted(k_values)}.")
    notes.append(
        "TensorRT-LLM's per-choice speculative_decoding is read from the shape of its pull request #19311 (not in a release when "
        "this importer was written): tested on files built to that shape only."
    )
    served = provenance.note("TensorRT-LLM", model=model, model_from="as the first response names it")
    if served:
        notes.append(served)
    fields["notes"] = " ".join(notes)
    return Imported(fields=fields, source=source(FORMAT, path, sha256), speculative=trt.covered > 0, warnings=warnings)
