"""The JSONL of OpenAI-compatible responses read by vllm_responses, as it is read: a byte range's
lines a block at a time, and each line decoded by typed msgspec structs that build only the fields
summed (llama.cpp's second look at its lines is in responses_llama)."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Annotated

import msgspec

from . import responses_openai
from .common import MAX_LINE_BYTES, ImportProblem

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
    each block added to `hasher` (a hashlib object) when one is given. Read in blocks of BLOCK
    bytes, a line carried over to the next block, so no line longer than MAX_LINE_BYTES is ever
    held (an ImportProblem at its first byte); each block is split by BytesIO.readlines, in C."""
    fh.seek(start)
    at = start  # the end of the last whole line given
    carried: list[bytes] = []  # the start of a line that runs on past the blocks read so far
    carried_bytes = 0
    read_to = start
    while read_to < end and (block := fh.read(min(BLOCK, end - read_to))):
        read_to += len(block)
        cut = block.rfind(b"\n") + 1 if read_to < end else len(block)  # `end` closes the range's last line
        if cut == 0:
            carried.append(block)
            carried_bytes += len(block)
            if carried_bytes > MAX_LINE_BYTES:
                raise ImportProblem(f"{fh.name}: byte {at + 1}: a line runs on for over {MAX_LINE_BYTES} bytes, the limit for one line")
            continue
        whole = b"".join([*carried, block[:cut]]) if carried else block[:cut]
        carried, carried_bytes = ([block[cut:]], len(block) - cut) if cut < len(block) else ([], 0)
        if hasher is not None:
            hasher.update(whole)
        yield io.BytesIO(whole).readlines()
        was, at = at, at + len(whole)
        if advance is not None:
            advance(at - was)
