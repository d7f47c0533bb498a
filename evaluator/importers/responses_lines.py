"""The JSONL of OpenAI-compatible responses read by vllm_responses, as it is read: a byte range's
lines a block at a time, and each line decoded by typed msgspec structs that build only the fields
summed (llama.cpp's second look at its lines is in responses_llama)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated

import msgspec

from . import responses_openai

FORMAT = "vllm-responses"
BLOCK = 1 << 20

NonNeg = Annotated[int, msgspec.Meta(ge=0)]


# gc=False: these objects hold no references back, and skipping the garbage collector's
# tracking of a million short-lived objects is a third of the run time.
class SpecDecoding(msgspec.Struct, gc=False):
    num_spec_steps: NonNeg | None = None
    num_draft_tokens: NonNeg | None = None
    num_accepted_draft_tokens: NonNeg | None = None
    num_spec_tokens: NonNeg | None = None
    acceptance_histogram: list[NonNeg] | dict[str, NonNeg] | None = None
    draft_acceptance_rate: float | None = None
    mean_acceptance_length: float | None = None
    # --per-request-spec-decode-metrics detailed, and the newest docs' per-draft-length rows
    per_step_accepted: list[NonNeg] | None = None
    per_step_drafted: list[NonNeg] | None = None
    acceptance_histogram_by_draft_length: dict[str, list[NonNeg]] | None = None


class Metrics(msgspec.Struct, gc=False):
    speculative_decoding: SpecDecoding | None = None


class Usage(msgspec.Struct, gc=False):
    completion_tokens: NonNeg | None = None
    completion_tokens_details: responses_openai.TokenDetails | None = None


class Timings(msgspec.Struct, gc=False):
    """llama.cpp's per-request timings (only the counts read here)."""

    draft_n: NonNeg | None = None
    draft_n_accepted: NonNeg | None = None
    predicted_n: NonNeg | None = None


class Line(msgspec.Struct, gc=False):
    """What is summed from a line. `choices` is left out: msgspec still checks its JSON but
    builds nothing, which saves a quarter of the decoding time. `timings` and `stop` are
    llama.cpp's (absent from vLLM's lines, so they cost those nothing)."""

    object: str | None = None
    usage: Usage | None = None
    metrics: Metrics | None = None
    timings: Timings | None = None
    stop: bool | None = None


class Response(Line, gc=False):
    """Line 1 is decoded with `choices` too: a file with none of these fields is another tool's.
    Its model and system_fingerprint name what served the file (issue 28.4)."""

    choices: list[msgspec.Raw] | None = None
    model: str | None = None
    system_fingerprint: str | None = None
    tokens_predicted: NonNeg | None = None


# msgspec raises RecursionError, not DecodeError, on a line nested past Python's recursion limit:
# both make a bad line (one line of error, never a traceback).
UNREADABLE = (msgspec.DecodeError, RecursionError)

decode_response = msgspec.json.Decoder(Response).decode
decode_line = msgspec.json.Decoder(Line).decode


def blocks(fh, start: int, end: int, advance: Callable[[int], None] | None, hasher=None) -> Iterator[list[bytes]]:
    """The lines of bytes start..end (`end` is a line boundary), about 1 MiB of them at a time,
    each block added to `hasher` (a hashlib object) when one is given. readlines() splits in C and
    is three times cheaper here than splitting read() blocks."""
    fh.seek(start)
    at = start
    while at < end and (lines := fh.readlines(BLOCK)):
        was, at = at, fh.tell()
        while at > end:  # the last block ran into the next range
            at -= len(lines.pop())
        if hasher is not None:
            hasher.update(b"".join(lines))
        yield lines
        if advance is not None:
            advance(at - was)
