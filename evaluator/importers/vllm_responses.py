"""vllm-responses, llamacpp-responses, trtllm-responses and openai-responses: JSONL of OpenAI-compatible
responses with per-request speculation (TensorRT-LLM's per-choice block: responses_trtllm).

Every covered request's own (P, A, S) is tallied into record 1.3 `runs[].request_acceptance`
through the one builder (engine/request_acceptance.py); llama.cpp gives no S. openai-responses
reads OpenAI's Predicted Outputs counts (usage.completion_tokens_details): prediction tokens are the
client's own guess of the output, compared with it, not a drafter's proposals verified per step, so
they are never P or A; the rejected ones are counted into completion_tokens for billing but were
never emitted, so E leaves them out (any format).

One line is one response: a complete /v1/chat/completions or /v1/completions body, or the
final usage chunk of a streamed one (`"choices": []` with `usage`, where vLLM puts the
metrics). Streamed content chunks without usage are not requests and are passed over.

vllm-responses: counts are sums over the requests whose `metrics.speculative_decoding` is
present (vLLM's --per-request-spec-decode-metrics summary|detailed, vllm PR #48915: S, P, A, K and
the dense accepted-length histogram; `detailed` adds per_step_accepted and per_step_drafted, checked
here against S, P and A as vLLM's own e2e test checks them; acceptance_histogram_by_draft_length
names the draft lengths a request was verified at). A request whose metrics are null (vLLM
suppresses them for n > 1 and multi-prompt requests) is counted as not covered, never as zeros.

llamacpp-responses: the same OpenAI shape from llama.cpp's server, which adds a `timings` object at
the response root (and on the last chunk of a stream), or its native /completion responses
(`stop: true` marks the final one). Read from ggml-org/llama.cpp tools/server/server-task.cpp at
17f5f8a8 (result_timings::to_json, to_json_oaicompat*, checked against llama-server b1-7e4c0a9):
`timings.draft_n` (P) and `timings.draft_n_accepted` (A) are written only when the request
drafted (`draft_n > 0`); `predicted_n` is the request's decoded tokens, as usage.completion_tokens.
llama.cpp gives no per-request verification steps or histogram, so S stays missing. A request
without draft_n (speculation off, or nothing proposed) is not covered. An n > 1 or multi-prompt
response carries one choice's timings and usage for all its choices, so it is not covered; a
streamed n > 1 request sends each choice's final chunk with that choice's own timings under the
same id, and those are added up as one request. With `timings_per_token` every content chunk
carries running timings; only the chunk with a finish_reason (or the usage chunk) is final.

The reading is spread over modules of one concern each: responses_lines (the line structs and the
block reader), responses_reader (byte ranges summed in parallel processes, or by DuckDB),
responses_sum (one range summed and its refusals), responses_totals (the sums and how ranges add
up), responses_llama (llama.cpp's per-request path). This module is the door the registry imports:
import_file, and the refusals that need the whole file's sums.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import provenance, responses_openai, responses_trtllm
from .common import Imported, ImportProblem, request_acceptance, source
from .responses_lines import BLOCK, FORMAT
from .responses_llama import llama_run
from .responses_reader import read
from .responses_sum import drop_contradictions
from .responses_totals import Totals, skipped_lines

# The pre-merge shape of vLLM PR #48915 (dev builds only): stats per choice, histogram as an object.
PRE_MERGE_KEY = b'"speculative_decoding_stats"'


def _holds(path: Path, needle: bytes) -> bool:
    """Whether the file contains these bytes (read in blocks; only when nothing else was found)."""
    with open(path, "rb") as fh:
        tail = b""
        while block := fh.read(BLOCK):
            if needle in tail + block:
                return True
            tail = block[-len(needle) :]
    return False


OPENAI = responses_openai.FORMAT
FORMATS = ("vllm-responses", "llamacpp-responses", responses_trtllm.FORMAT, OPENAI)
VLLM_SOURCE = "vLLM's per-request metrics.speculative_decoding (num_draft_tokens, num_accepted_draft_tokens, num_spec_steps)"


def _refuse_the_other(path: Path, t: Totals, fmt: str) -> None:
    """A file of the other server's per-request figures, given under this format: say which."""
    if fmt == responses_trtllm.FORMAT and (t.requests_with or t.llama_with or t.timings_seen):
        other = "vLLM's metrics.speculative_decoding" if t.requests_with else "llama.cpp's timings"
        raise ImportProblem(f"{path}: its responses carry {other}, not TensorRT-LLM's per-choice speculative_decoding, so this is not {fmt} output")
    if fmt == OPENAI and (t.requests_with or t.timings_seen):
        other, right = ("vLLM's metrics.speculative_decoding", "vllm-responses") if t.requests_with else ("llama.cpp's timings", "llamacpp-responses")
        raise ImportProblem(f"{path}: its responses carry {other}, so they are {right} output (try `sdeval import {right} {path.name}`)")
    if fmt != responses_trtllm.FORMAT and t.trt_seen and not (t.requests_with or t.llama_with):
        raise ImportProblem(
            f"{path}: its responses carry TensorRT-LLM's per-choice speculative_decoding (total_draft_tokens), so this is not {fmt} "
            f"output; it looks like trtllm-responses output (try `sdeval import trtllm-responses {path.name}`)"
        )
    if t.requests_with and t.llama_with:
        raise ImportProblem(
            f"{path}: mixes vLLM responses (metrics.speculative_decoding) with llama.cpp ones (timings.draft_n); import each server's responses on their own"
        )
    if fmt == "vllm-responses" and not t.requests_with and t.timings_seen:
        raise ImportProblem(
            f"{path}: its responses carry llama.cpp's timings, not vLLM's metrics.speculative_decoding, so this is not vllm-responses "
            f"output; it looks like llamacpp-responses output (try `sdeval import llamacpp-responses {path.name}`)"
        )
    if fmt == "llamacpp-responses" and t.requests_with:
        raise ImportProblem(
            f"{path}: its responses carry vLLM's metrics.speculative_decoding, not llama.cpp's timings, so this is not llamacpp-responses "
            f"output; it looks like vllm-responses output (try `sdeval import vllm-responses {path.name}`)"
        )
    if fmt == "llamacpp-responses" and not t.timings_seen:
        from .sniff import describe_guess

        raise ImportProblem(
            f"{path}: no response carries llama.cpp's timings object, so this is not llamacpp-responses output{describe_guess(path, fmt)}"
        )


def import_file(path: Path, skip_bad_lines: bool = False, fmt: str = "vllm-responses") -> Imported:
    # llama.cpp's streamed n > 1 choices are joined by id, so its file is read in one range.
    # TensorRT-LLM's streamed choices are joined by id too.
    t = read(path, skip_bad_lines, processes=1 if fmt != "vllm-responses" else None, fmt=fmt)
    sha = t.sha256
    trt = t.trt
    if t.requests_with == 0 and t.requests_without == 0 and t.llama_with == 0 and not (trt and (trt.covered or trt.without)):
        raise ImportProblem(f"{path}: no responses found (only streamed content chunks without a final usage chunk?)")
    _refuse_the_other(path, t, fmt)
    if fmt == "llamacpp-responses":
        return llama_run(path, t)
    if trt is not None:
        notes, warnings = skipped_lines(path, t)
        return responses_trtllm.run(path, trt, t.k_values, t.first_model, t.sha256, notes, warnings)
    if t.requests_with == 0 and _holds(path, PRE_MERGE_KEY):
        raise ImportProblem(
            f"{path}: its responses carry choices[i].speculative_decoding_stats, the pre-merge shape of vLLM's per-request "
            "metrics (PR #48915 before it merged, development builds only), which sdeval does not read; vLLM's releases put "
            "them in metrics.speculative_decoding at the response root"
        )
    drop_contradictions(path, t, skip_bad_lines)
    counts: dict[str, Any] = {
        "population": "benchmark-requests",
        "requests_with_metrics": t.requests_with,
        "requests_without_metrics": t.requests_without,
        "missing_metrics_as": "excluded",
    }
    if t.requests_with:
        counts.update(verification_steps=t.steps, proposed_drafts=t.drafts, accepted_drafts=t.accepted)
        if t.hist is not None:
            counts["accepted_length_histogram"] = t.hist
        if t.emitted is not None:
            counts["emitted_tokens"] = t.emitted
    fields: dict[str, Any] = {"workload": {"num_requests": t.requests_with + t.requests_without}, "counts": counts}
    if t.requests_with:
        fields["request_acceptance"] = request_acceptance(t.per_request, VLLM_SOURCE)
    elif t.plain_emitted is not None:
        counts["emitted_tokens"] = t.plain_emitted
    # A tool's own figure exists for the run only when the run is one request.
    if t.requests_with == 1 and t.last is not None:
        reported = {"acceptance_rate": t.last.draft_acceptance_rate, "mean_acceptance_length": t.last.mean_acceptance_length}
        fields["reported"] = {k: v for k, v in reported.items() if v is not None} or None
    notes, warnings = skipped_lines(path, t)
    if len(t.k_values) > 1:
        notes.append(f"Requests reported different num_spec_tokens: {sorted(t.k_values)}.")
    if t.detailed:
        notes.append(
            f"{t.detailed} request{'s' if t.detailed != 1 else ''} carried per_step_accepted and per_step_drafted (detailed), checked against their S, P and A."
        )
    if len(t.draft_lengths) > 1:
        notes.append(
            f"Steps were verified at draft lengths {sorted(t.draft_lengths)} (per_step_drafted, acceptance_histogram_by_draft_length): K varied."
        )
    if t.requests_with and "emitted_tokens" in counts:
        notes.append("emitted_tokens sums usage.completion_tokens over the requests that carry speculative metrics.")
    notes.extend(t.predictions.notes())
    served = provenance.note("vLLM" if fmt == FORMAT else "the server", model=t.first_model, model_from="as the first response names it")
    if served:
        notes.append(served)
    if notes:
        fields["notes"] = " ".join(notes)
    return Imported(fields=fields, source=source(fmt, path, sha), speculative=t.requests_with > 0, warnings=warnings)
