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

Speed and memory (bench/import_vllm_responses.py): the file is streamed in blocks and decoded
line by line with typed msgspec decoders that build only the fields summed here, so memory
stays flat. A large file is cut at line boundaries into one byte range per core; each range is
summed by its own process (decoding holds the GIL, so threads would not help) and the parts
are added up, with every line still numbered from the top of the file. SHA-256 then runs in a
process of its own beside them (on a thread it would wait for the GIL between blocks); a file
under PARALLEL_MIN_BYTES is summed and then hashed in this process.
"""

from __future__ import annotations

import hashlib
import itertools
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import msgspec

from .._infra import progress
from . import provenance, responses_duckdb, responses_openai, responses_trtllm
from .common import Imported, ImportProblem, histogram, request_acceptance, sha256_of, source

FORMAT = "vllm-responses"
BLOCK = 1 << 20
# Smaller files are summed in this process: starting another costs more than it saves.
PARALLEL_MIN_BYTES = 32 << 20

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


class Choice(msgspec.Struct, gc=False):
    finish_reason: str | None = None


class LlamaLine(msgspec.Struct, gc=False):
    """A line carrying llama.cpp timings, decoded again for what tells a final response (and its
    choices) from a running chunk."""

    id: str | None = None
    choices: list[Choice] | None = None
    tokens_predicted: NonNeg | None = None


# msgspec raises RecursionError, not DecodeError, on a line nested past Python's recursion limit:
# both make a bad line (one line of error, never a traceback).
UNREADABLE = (msgspec.DecodeError, RecursionError)

_decode_first = msgspec.json.Decoder(Response).decode
_decode = msgspec.json.Decoder(Line).decode
_decode_llama = msgspec.json.Decoder(LlamaLine).decode


@dataclass
class Totals:
    """Sums over one file, or over one byte range of it (then line numbers count from the range's start)."""

    requests_with: int = 0
    requests_without: int = 0
    steps: int = 0
    drafts: int = 0
    accepted: int = 0
    emitted: int | None = 0  # None once a request with metrics lacks usage.completion_tokens
    hist: list[int] | None = field(default_factory=list)  # None once a request lacks a histogram
    k_values: set[int] = field(default_factory=set)
    last: SpecDecoding | None = None
    skipped: int = 0
    first_skipped: int | None = None  # line number
    content_chunks: int = 0
    lines: int = 0
    bad_line: tuple[int, str] | None = None  # (line number, why) of a refused line, when not skipping
    sha256: str = ""
    processes: int = 1  # processes that summed the file
    draft_lengths: set[int] = field(default_factory=set)  # from acceptance_histogram_by_draft_length / per_step_drafted
    detailed: int = 0  # requests whose per_step_* arrays were checked
    # llama.cpp: requests with timings.draft_n, their P, A and E; timings seen at all; n > 1 responses
    llama_with: int = 0
    llama_drafts: int = 0
    llama_accepted: int = 0
    llama_emitted: int | None = 0
    timings_seen: int = 0
    multi_choice: int = 0
    merged_choices: int = 0  # streamed n > 1 choices added to their request
    plain_emitted: int | None = 0  # completion tokens of the requests without figures (a run without speculation)
    first_model: str | None = None
    fingerprint: str | None = None
    # Record 1.3 request_acceptance: (P, A, S or None for llama.cpp) -> requests with those counts
    per_request: Counter = field(default_factory=Counter)
    trt: responses_trtllm.Totals | None = None  # trtllm-responses: its requests' sums
    trt_seen: int = 0  # lines carrying TensorRT-LLM's block, under another format
    predictions: responses_openai.Predictions = field(default_factory=responses_openai.Predictions)
    engine: str = "python"  # which summed the file: python (this module) or duckdb (responses_duckdb)


def _add_columns(total: list[int] | None, rows: list[list[int]]) -> list[int] | None:
    """Column sums of histograms of any widths, added to the total (zip and sum run in C)."""
    if total is None or not rows:
        return total
    width = max(len(total), max(map(len, rows)))
    rows = [h if len(h) == width else h + [0] * (width - len(h)) for h in rows]
    total = total + [0] * (width - len(total))
    return [t + column for t, column in zip(total, map(sum, zip(*rows)))]


# An import still running after this many seconds shows a progress bar (where bars are wanted).
PROGRESS_AFTER_S = 2.0


def _blocks(fh, start: int, end: int, advance: Callable[[int], None] | None, hasher=None) -> Iterator[list[bytes]]:
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


def _ranges(path: Path, size: int, parts: int) -> list[tuple[int, int]]:
    """Byte ranges of about equal size, each ending just after a newline (or at the end of the file)."""
    bounds = [0]
    with open(path, "rb") as fh:
        for i in range(1, parts):
            pos = max(size * i // parts, bounds[-1])
            fh.seek(pos)
            while block := fh.read(BLOCK):  # to the start of the next line
                newline = block.find(b"\n")
                if newline >= 0:
                    pos += newline + 1
                    break
                pos += len(block)
            bounds.append(pos)
    bounds.append(size)
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a] or [(0, 0)]


def _processes_for(size: int) -> int:
    """One process per core for a large file, when forking is safe."""
    from .._infra.forking import fork_is_safe

    if size < PARALLEL_MIN_BYTES or not fork_is_safe():
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, 8))


def _bad_line(path: Path, number: int, message: str) -> ImportProblem:
    return ImportProblem(f"{path}: line {number}: {message}; pass --skip-bad-lines to import the other lines")


def read(path: Path, skip_bad_lines: bool = False, processes: int | None = None, fmt: str = FORMAT) -> Totals:
    """Sum the responses of the file and hash it, numbering lines from the top of the file.
    `processes` byte ranges are summed in as many processes (forked: the caller must not be
    running other threads); by default one per core for a large file, when that is safe."""
    try:
        size = path.stat().st_size
        open(path, "rb").close()
    except OSError as exc:
        raise ImportProblem(f"{path}: cannot read ({exc.strerror})") from None
    if processes is None and responses_duckdb.engine(size, fmt) == "duckdb":
        # The bar follows the thread that hashes and checks the lines beside DuckDB's query.
        with progress.bar(f"importing {path.name}", size, unit="bytes", after=PROGRESS_AFTER_S, least=1) as show:
            summed = responses_duckdb.read(path, lambda line: _first_totals(path, line, fmt), show.advance)
        if summed is not None:
            return Totals(**summed)
    ranges = _ranges(path, size, processes or _processes_for(size))
    from .._infra.forking import Forked, ProcessEnded, context

    hashing, children, counters = None, [], [0]  # counters: bytes summed per range, for the progress bar
    # One process hashes the bytes as it sums them. Several cannot share one SHA-256 (it runs
    # from the first byte to the last), so beside them a process of its own reads the file again.
    hasher = hashlib.sha256() if len(ranges) == 1 else None
    if len(ranges) > 1:
        counters = context().RawArray("q", len(ranges))
        # Hashing gets a process too: on a thread it would wait for this process's GIL between blocks.
        hashing = Forked(_hash_in_child, path, role="hashing")
        children = [
            Forked(_sum_in_child, path, span, skip_bad_lines, _Counter(counters, i), role="line-summing") for i, span in enumerate(ranges[1:], 1)
        ]
    try:
        with progress.bar(f"importing {path.name}", size, unit="bytes", after=PROGRESS_AFTER_S, least=1) as show:

            def shown() -> None:
                show.update(sum(counters))

            first = _sum_range(path, ranges[0], skip_bad_lines, _Counter(counters, 0, shown), fmt, hasher)
            totals = _combine(path, itertools.chain([first], (child.receive(shown) for child in children)))
            totals.sha256 = hashing.receive(shown) if hashing is not None else hasher.hexdigest()  # type: ignore[union-attr]  # hasher exactly when hashing is None
            totals.processes = len(ranges)
    except ProcessEnded as exc:
        raise ImportProblem(f"{path}: {exc}") from None
    finally:
        for process in [hashing, *children] if hashing is not None else []:
            process.stop()
    return totals


def _hash_in_child(connection, path: Path) -> str:
    return sha256_of(path)


def _sum_in_child(connection, path: Path, span: tuple[int, int], skip_bad_lines: bool, advance: Callable[[int], None]) -> Totals:
    return _sum_range(path, span, skip_bad_lines, advance)


@dataclass
class _Counter:
    """Adds a range's progress to its slot of the shared counters (and redraws the bar, in this process)."""

    counters: Any
    index: int
    shown: Callable[[], None] | None = None

    def __call__(self, n: int) -> None:
        self.counters[self.index] += n
        if self.shown is not None:
            self.shown()


def _combine(path: Path, parts: Iterable[Totals]) -> Totals:
    """The file's totals from its ranges', taken in file order. A refused line stops at once with its
    number counted from the top; later ranges are not waited for."""
    t = Totals()
    offset = 0
    for part in parts:
        if part.bad_line is not None:
            number, why = part.bad_line
            raise _bad_line(path, offset + number, why)
        t.requests_with += part.requests_with
        t.requests_without += part.requests_without
        t.steps += part.steps
        t.drafts += part.drafts
        t.accepted += part.accepted
        t.emitted = None if t.emitted is None or part.emitted is None else t.emitted + part.emitted
        t.hist = None if part.hist is None else _add_columns(t.hist, [part.hist])
        t.k_values |= part.k_values
        t.last = part.last or t.last
        t.skipped += part.skipped
        if t.first_skipped is None and part.first_skipped is not None:
            t.first_skipped = offset + part.first_skipped
        t.content_chunks += part.content_chunks
        t.draft_lengths |= part.draft_lengths
        t.detailed += part.detailed
        t.llama_with += part.llama_with
        t.llama_drafts += part.llama_drafts
        t.llama_accepted += part.llama_accepted
        t.llama_emitted = None if t.llama_emitted is None or part.llama_emitted is None else t.llama_emitted + part.llama_emitted
        t.plain_emitted = None if t.plain_emitted is None or part.plain_emitted is None else t.plain_emitted + part.plain_emitted
        t.timings_seen += part.timings_seen
        t.multi_choice += part.multi_choice
        t.merged_choices += part.merged_choices
        t.per_request.update(part.per_request)
        t.trt = part.trt or t.trt  # read in one range
        t.trt_seen += part.trt_seen
        t.predictions.add(part.predictions)
        if offset == 0:
            t.first_model, t.fingerprint = part.first_model, part.fingerprint
        offset += part.lines
    t.lines = offset
    return t


class _Refused(Exception):
    """A bad line ends the range (without --skip-bad-lines)."""


def _sum_range(
    path: Path, span: tuple[int, int], skip_bad_lines: bool, advance: Callable[[int], None] | None, fmt: str = FORMAT, hasher=None
) -> Totals:
    t = Totals()
    start, end = span

    def refuse(number: int, why: str) -> None:
        """A bad line: skipped and counted, or the end of the range."""
        if not skip_bad_lines:
            t.bad_line = (number, why)
            raise _Refused
        t.skipped += 1
        t.first_skipped = t.first_skipped or number

    llama = _LlamaRequests(t, refuse)
    trt = responses_trtllm.Requests(refuse) if fmt == responses_trtllm.FORMAT else None
    tally = t.per_request
    # The hot loop of a million-line import: every name it touches is a local, the rare cases
    # sit in branches, and histograms are added up a block at a time.
    steps = drafts = accepted = emitted = plain = 0
    with_metrics = without_metrics = 0
    usage_complete = plain_complete = True
    hist: list[int] | None = []
    add_k = t.k_values.add
    decode = _decode
    sd = last = None
    number = 0
    try:
        with open(path, "rb", buffering=BLOCK) as fh:
            for lines in _blocks(fh, start, end, advance, hasher):
                histograms: list[list[int] | None] = []  # a None only once hist is None, which stays None
                keep = histograms.append
                counted: list[tuple[int, int, int]] = []  # the block's (P, A, S), tallied at once (in C)
                count_request = counted.append
                for number, line in enumerate(lines, number + 1):  # noqa: B020 (enumerate took its start before the loop rebinds it)
                    try:
                        response = decode(line)
                    except UNREADABLE:
                        if not line.strip():
                            continue
                        if number == 1 and start == 0:
                            _refuse_other_format(path, fmt)
                        refuse(number, f"not a valid response ({_why_not(line)})")
                        continue
                    if number == 1 and start == 0:
                        _first_line(path, line, t)
                    metrics = response.metrics
                    if metrics is None or (sd := metrics.speculative_decoding) is None:
                        if number == 1 and start == 0:
                            _refuse_if_not_a_response(path, line, fmt)
                        if response.timings is not None:
                            llama.line(number, line, response)
                        elif trt is not None:
                            trt.line(number, line)
                        elif response.stop is False or (response.usage is None and (response.object or "").endswith(".chunk")):
                            t.content_chunks += 1  # a streamed content chunk, not a finished request
                        else:
                            without_metrics += 1
                            usage = response.usage
                            if usage is not None and (tokens := usage.completion_tokens) is not None:
                                if usage.completion_tokens_details is not None:
                                    tokens = t.predictions.take(usage.completion_tokens_details, tokens, number, refuse)
                                plain += tokens
                            else:
                                plain_complete = False
                            if responses_trtllm.KEY in line:
                                t.trt_seen += 1
                        continue
                    s, p, a, h = sd.num_spec_steps, sd.num_draft_tokens, sd.num_accepted_draft_tokens, sd.acceptance_histogram
                    if s is None or p is None or a is None:
                        refuse(number, "metrics.speculative_decoding lacks num_spec_steps, num_draft_tokens or num_accepted_draft_tokens")
                        continue
                    if a > p:
                        refuse(
                            number, f"metrics.speculative_decoding accepted {a} drafts of {p} proposed (num_accepted_draft_tokens > num_draft_tokens)"
                        )
                        continue
                    if h.__class__ is not list:
                        if h is None:
                            hist = None  # one request without a histogram: a partial sum would mislead
                        else:
                            try:
                                h = histogram(h, "")
                            except ImportProblem:
                                refuse(number, "acceptance_histogram keys must be numbers of accepted drafts")
                                continue
                    # (both per-step arrays are None or neither: one test for the two)
                    if sd.per_step_accepted is not sd.per_step_drafted or sd.acceptance_histogram_by_draft_length is not None:
                        why = _detailed(sd, s, p, a, t)
                        if why is not None:
                            refuse(number, why)
                            continue
                    with_metrics += 1
                    steps += s
                    drafts += p
                    accepted += a
                    add_k(sd.num_spec_tokens)  # type: ignore[arg-type]  # None included: dropped at the end
                    keep(h)
                    count_request((p, a, s))
                    usage = response.usage
                    if usage is not None and (tokens := usage.completion_tokens) is not None:
                        emitted += tokens
                    else:
                        usage_complete = False
                    last = sd
                tally.update(counted)
                if hist is not None:
                    hist = _add_columns(hist, histograms)  # type: ignore[arg-type]  # no None row while hist is a list
        llama.finish()
        if trt is not None:
            t.trt = trt.totals()
            t.k_values |= trt.k_values
    except _Refused:
        pass
    t.hist = hist
    t.steps, t.drafts, t.accepted = steps, drafts, accepted
    t.requests_with, t.requests_without = with_metrics, without_metrics + llama.without
    t.emitted = emitted if usage_complete else None
    t.plain_emitted = None if not plain_complete or t.plain_emitted is None else plain + t.plain_emitted
    t.k_values.discard(None)
    t.last = last
    t.lines = number
    return t


def _histogram_mismatch(h: list[int], s: int, a: int) -> str:
    return (
        f"its acceptance_histogram {h} adds up to {sum(h)} steps and {sum(j * n for j, n in enumerate(h))} accepted drafts, "
        f"not num_spec_steps {s} and num_accepted_draft_tokens {a}"
    )


def _detailed(sd: SpecDecoding, s: int, p: int, a: int, t: Totals) -> str | None:
    """The `detailed` arrays against the request's own counts, as vLLM's e2e test checks them; the
    draft lengths they and acceptance_histogram_by_draft_length show go to t.draft_lengths."""
    acc, dra, rows = sd.per_step_accepted, sd.per_step_drafted, sd.acceptance_histogram_by_draft_length
    if (acc is None) != (dra is None):
        return "metrics.speculative_decoding has one of per_step_accepted and per_step_drafted without the other"
    if acc is not None and dra is not None:
        if len(acc) != s or len(dra) != s:
            return f"per_step_accepted and per_step_drafted hold {len(acc)} and {len(dra)} steps, not num_spec_steps {s}"
        if sum(acc) != a or sum(dra) != p:
            return (
                f"per_step_accepted adds up to {sum(acc)} and per_step_drafted to {sum(dra)}, "
                f"not num_accepted_draft_tokens {a} and num_draft_tokens {p}"
            )
        if any(x > y for x, y in zip(acc, dra)):
            return "a step of per_step_accepted accepted more drafts than per_step_drafted proposed"
        t.draft_lengths.update(dra)
        t.detailed += 1
    if rows is not None:
        for key, row in rows.items():
            if not key.isdigit() or len(row) > int(key) + 1:
                return f"acceptance_histogram_by_draft_length row {key!r} is not a draft length with at most length + 1 entries"
            if sum(row):
                t.draft_lengths.add(int(key))
    return None


def _first_line(path: Path, line: bytes, t: Totals) -> None:
    """What served the file, as its first response names it."""
    try:
        first = _decode_first(line)
    except UNREADABLE:
        return
    t.first_model, t.fingerprint = first.model, first.system_fingerprint


def _first_totals(path: Path, line: bytes, fmt: str) -> Totals:
    """Line 1 as _sum_range checks it, for the DuckDB engine: msgspec.DecodeError or ImportProblem
    when it is not a plain vLLM response (the default reader then reads the file and says why)."""
    t = Totals()
    response = _decode(line)
    _first_line(path, line, t)
    if response.metrics is None or response.metrics.speculative_decoding is None:
        _refuse_if_not_a_response(path, line, fmt)
    return t


class _LlamaRequests:
    """llama.cpp's requests, from the lines that carry `timings` (a rare path: decoded once more)."""

    def __init__(self, t: Totals, refuse: Callable[[int, str], None]):
        self.t, self.refuse = t, refuse
        self.without = 0
        self.streamed: dict[str, list] = {}  # id -> [covered, P, A, E] of a streamed request's choices so far

    def line(self, number: int, line: bytes, response: Line) -> None:
        t, tm = self.t, response.timings
        assert tm is not None  # called only for a response with timings
        t.timings_seen += 1
        try:
            extra = _decode_llama(line)
        except UNREADABLE as exc:
            self.refuse(number, f"not a valid llama.cpp response ({exc})")
            return
        chunk = (response.object or "").endswith(".chunk")
        choices = extra.choices or []
        if chunk:
            final = response.usage is not None or any(c.finish_reason is not None for c in choices)
        elif response.stop is not None:  # native /completion
            final = response.stop
        else:
            final = True
        if not final:
            t.content_chunks += 1  # a running chunk (timings_per_token)
            return
        usage = response.usage
        tokens = usage.completion_tokens if usage is not None else None
        if tokens is None:
            tokens = extra.tokens_predicted if extra.tokens_predicted is not None else tm.predicted_n
        covered = tm.draft_n is not None
        if covered and tm.draft_n_accepted is None:
            self.refuse(number, "timings has draft_n without draft_n_accepted")
            return
        if covered and tm.draft_n_accepted > tm.draft_n:  # type: ignore[operator]  # both set: checked above
            self.refuse(number, f"timings accepted {tm.draft_n_accepted} drafts of {tm.draft_n} (draft_n_accepted > draft_n)")
            return
        if not chunk and len(choices) > 1:
            t.multi_choice += 1  # one choice's timings and usage for all of them: not this request's figures
            covered = False
        figures = [covered, tm.draft_n or 0, tm.draft_n_accepted or 0, tokens]
        rid = extra.id if chunk else None
        seen = self.streamed.get(rid) if rid is not None else None
        if seen is None:
            if rid is not None:
                self.streamed[rid] = figures  # its request's counts are known at the end of the file
            elif covered:
                t.per_request[(figures[1], figures[2], None)] += 1
            self._count(figures, +1)
            return
        # Another choice of a streamed n > 1 request: one request, covered only if every choice is.
        t.merged_choices += 1
        if seen[0] and covered:
            self._add(figures, +1)
            seen[1] += figures[1]
            seen[2] += figures[2]
            seen[3] = None if seen[3] is None or tokens is None else seen[3] + tokens
            return
        if seen[0]:  # covered so far, not this choice: the request leaves the covered ones
            self._count(seen, -1)
            seen[0] = False
            self._count(seen, +1)
        self._plain(tokens)

    def finish(self) -> None:
        """The streamed requests' counts, now that all their choices are in."""
        for covered, proposed, accepted, _ in self.streamed.values():
            if covered:
                self.t.per_request[(proposed, accepted, None)] += 1

    def _count(self, figures: list, sign: int) -> None:
        if figures[0]:
            self.t.llama_with += sign
            self._add(figures, sign)
        else:
            self.without += sign
            if sign > 0:
                self._plain(figures[3])

    def _add(self, figures: list, sign: int) -> None:
        t = self.t
        t.llama_drafts += sign * figures[1]
        t.llama_accepted += sign * figures[2]
        t.llama_emitted = None if t.llama_emitted is None or figures[3] is None else t.llama_emitted + sign * figures[3]

    def _plain(self, tokens: int | None) -> None:
        t = self.t
        t.plain_emitted = None if t.plain_emitted is None or tokens is None else t.plain_emitted + tokens


def _why_not(line: bytes) -> str:
    """msgspec's reason, for the line as the user sees it (without the newline readlines keeps)."""
    try:
        _decode(line.rstrip(b"\r\n"))
    except UNREADABLE as exc:
        return str(exc)
    return "not JSON"  # not reached: the line failed with its newline, so it fails without


def _refuse_if_not_a_response(path: Path, line: bytes, fmt: str = FORMAT) -> None:
    """Line 1 with none of a response's fields is another tool's output."""
    try:
        response = _decode_first(line)
    except UNREADABLE:
        return  # decodes as a line: a response whose model or fingerprint is not a string
    if all(
        v is None
        for v in (response.object, response.choices, response.usage, response.metrics, response.timings, response.stop, response.tokens_predicted)
    ):
        _refuse_other_format(path, fmt, "has no choices, usage or metrics", always=True)


def _refuse_other_format(path: Path, fmt: str = FORMAT, why: str = "is not a JSON response", always: bool = False) -> None:
    """Line 1 of another tool's file: say which. A response file whose first line is merely
    malformed goes on to the bad-line handling."""
    from .sniff import describe_guess

    guess = describe_guess(path, fmt)
    if guess or always:
        raise ImportProblem(f"{path}: line 1 {why}, so this is not {fmt} output{guess}")


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
LLAMA_SOURCE = "llama.cpp's timings.draft_n and draft_n_accepted (no per-request steps)"


def _contradictions(path: Path) -> Iterator[tuple[int, str, SpecDecoding, list[int], int | None]]:
    """The lines whose accepted-length histogram disagrees with their own S or A (vLLM's e2e test
    asserts sum h = S and sum j h[j] = A). Looked for only when the file's totals disagree, so the
    common case pays nothing for it."""
    with open(path, "rb") as fh:
        for number, line in enumerate(fh, 1):
            try:
                response = _decode(line)
            except UNREADABLE:
                continue
            sd = response.metrics.speculative_decoding if response.metrics is not None else None
            if sd is None or sd.acceptance_histogram is None or sd.num_spec_steps is None or sd.num_accepted_draft_tokens is None:
                continue
            try:
                h = histogram(sd.acceptance_histogram, "")
            except ImportProblem:
                continue
            assert h is not None  # there is a histogram: checked above
            if sum(h) != sd.num_spec_steps or sum(j * n for j, n in enumerate(h)) != sd.num_accepted_draft_tokens:
                tokens = response.usage.completion_tokens if response.usage is not None else None
                yield number, _histogram_mismatch(h, sd.num_spec_steps, sd.num_accepted_draft_tokens), sd, h, tokens


def _drop_contradictions(path: Path, t: Totals, skip_bad_lines: bool) -> None:
    h = t.hist
    if h is None or not t.requests_with or (sum(h) == t.steps and sum(j * n for j, n in enumerate(h)) == t.accepted):
        return
    for number, why, sd, row, tokens in _contradictions(path):
        if not skip_bad_lines:
            raise _bad_line(path, number, why)
        t.requests_with -= 1
        t.steps -= sd.num_spec_steps or 0
        t.drafts -= sd.num_draft_tokens or 0
        t.accepted -= sd.num_accepted_draft_tokens or 0
        t.hist = h = [a - b for a, b in zip(h, row + [0] * (len(h) - len(row)))]
        t.per_request[(sd.num_draft_tokens, sd.num_accepted_draft_tokens, sd.num_spec_steps)] -= 1
        t.emitted = None if t.emitted is None or tokens is None else t.emitted - tokens
        t.skipped += 1
        t.first_skipped = number if t.first_skipped is None else min(t.first_skipped, number)


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
        return _llama_run(path, t)
    if trt is not None:
        notes, warnings = _skipped(path, t)
        return responses_trtllm.run(path, trt, t.k_values, t.first_model, t.sha256, notes, warnings)
    if t.requests_with == 0 and _holds(path, PRE_MERGE_KEY):
        raise ImportProblem(
            f"{path}: its responses carry choices[i].speculative_decoding_stats, the pre-merge shape of vLLM's per-request "
            "metrics (PR #48915 before it merged, development builds only), which sdeval does not read; vLLM's releases put "
            "them in metrics.speculative_decoding at the response root"
        )
    _drop_contradictions(path, t, skip_bad_lines)
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
    notes, warnings = _skipped(path, t)
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


def _skipped(path: Path, t: Totals) -> tuple[list[str], list[str]]:
    if not t.skipped:
        return [], []
    lines = f"{t.skipped} malformed line{'s' if t.skipped != 1 else ''}"
    return [f"{lines} skipped (first at line {t.first_skipped})."], [f"{path}: skipped {lines} (first at line {t.first_skipped})"]


def _llama_run(path: Path, t: Totals) -> Imported:
    covered, without = t.llama_with, t.requests_without
    counts: dict[str, Any] = {"population": "benchmark-requests"}
    notes, warnings = _skipped(path, t)
    if covered:
        counts.update(
            proposed_drafts=t.llama_drafts,
            accepted_drafts=t.llama_accepted,
            requests_with_metrics=covered,
            requests_without_metrics=without,
            missing_metrics_as="excluded",
        )
        if t.llama_emitted is not None:
            counts["emitted_tokens"] = t.llama_emitted
            notes.append("emitted_tokens sums the completion tokens of the requests with timings.draft_n.")
        notes.append(
            "llama.cpp reports no verification steps per request (timings has draft_n and draft_n_accepted only): S and the histogram are missing."
        )
        if without - t.multi_choice > 0:
            notes.append(
                f"{without - t.multi_choice} of {covered + without} requests have no timings.draft_n (llama.cpp writes it only when the "
                "request drafted, so speculation was off or proposed nothing for them) and are not in the counts."
            )
    elif t.plain_emitted is not None:
        counts["emitted_tokens"] = t.plain_emitted
    if t.multi_choice:
        one = t.multi_choice == 1
        notes.append(
            f"{t.multi_choice} response{'' if one else 's'} with several choices (n > 1 or several prompts) "
            f"{'carries' if one else 'carry'} one choice's timings and usage for all of them, so {'it is' if one else 'they are'} not covered."
        )
    if t.merged_choices:
        one = t.merged_choices == 1
        notes.append(
            f"{t.merged_choices} further choice{'' if one else 's'} of streamed n > 1 requests, each with its own timings, "
            f"{'was' if one else 'were'} added to {'its' if one else 'their'} request."
        )
    if t.content_chunks:
        notes.append(f"{t.content_chunks} streamed content chunk{'s' if t.content_chunks != 1 else ''} passed over.")
    version = t.fingerprint
    served = provenance.note(
        "llama.cpp server" + (f" {version}" if version else ""), model=t.first_model, model_from="as the first response names it"
    )
    if served:
        notes.append(served)
    if version:
        notes.append(f"The tool version is the responses' system_fingerprint {version} (llama.cpp's build number and commit).")
    notes.extend(t.predictions.notes())
    fields: dict[str, Any] = {"workload": {"num_requests": covered + without}, "counts": counts}
    if covered:
        fields["request_acceptance"] = request_acceptance(t.per_request, LLAMA_SOURCE)
    if notes:
        fields["notes"] = " ".join(notes)
    return Imported(fields=fields, source=source("llamacpp-responses", path, t.sha256, version), speculative=covered > 0, warnings=warnings)
