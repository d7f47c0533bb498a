"""vllm-responses: JSONL of OpenAI-compatible responses carrying metrics.speculative_decoding.

One line is one response: a complete /v1/chat/completions or /v1/completions body, or the
final usage chunk of a streamed one (`"choices": []` with `usage`, where vLLM puts the
metrics). Streamed content chunks without usage are not requests and are passed over.

Counts are sums over the requests whose `metrics.speculative_decoding` is present. A request
whose metrics are null (vLLM suppresses them for n > 1 and multi-prompt requests) is counted
as not covered, never as zeros.

Speed and memory (bench/import_vllm_responses.py): the file is streamed in blocks and decoded
line by line with typed msgspec decoders that build only the fields summed here, so memory
stays flat. A large file is cut at line boundaries into one byte range per core; each range is
summed by its own process (decoding holds the GIL, so threads would not help) and the parts
are added up, with every line still numbered from the top of the file. SHA-256 then runs in a
process of its own beside them (on a thread it would wait for the GIL between blocks); a file
under PARALLEL_MIN_BYTES is summed and then hashed in this process.
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import msgspec

from .common import Imported, ImportProblem, histogram, sha256_of, source

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


class Metrics(msgspec.Struct, gc=False):
    speculative_decoding: SpecDecoding | None = None


class Usage(msgspec.Struct, gc=False):
    completion_tokens: NonNeg | None = None


class Line(msgspec.Struct, gc=False):
    """What is summed from a line. `choices` is left out: msgspec still checks its JSON but
    builds nothing, which saves a quarter of the decoding time."""

    object: str | None = None
    usage: Usage | None = None
    metrics: Metrics | None = None


class Response(Line, gc=False):
    """Line 1 is decoded with `choices` too: a file with none of these fields is another tool's."""

    choices: list[msgspec.Raw] | None = None


_decode_first = msgspec.json.Decoder(Response).decode
_decode = msgspec.json.Decoder(Line).decode


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


def _add_columns(total: list[int] | None, rows: list[list[int]]) -> list[int] | None:
    """Column sums of histograms of any widths, added to the total (zip and sum run in C)."""
    if total is None or not rows:
        return total
    width = max(len(total), max(map(len, rows)))
    rows = [h if len(h) == width else h + [0] * (width - len(h)) for h in rows]
    total = total + [0] * (width - len(total))
    return [t + column for t, column in zip(total, map(sum, zip(*rows)))]


@contextmanager
def progress(path: Path, total: int) -> Iterator[Callable[[int], None] | None]:
    """A progress bar on a terminal only: piped or captured output gets none."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn(f"importing {path.name}"), BarColumn(), DownloadColumn(), TimeRemainingColumn(), transient=True) as bar:
        task = bar.add_task("import", total=total)
        yield lambda done: bar.update(task, completed=done)


def _blocks(fh, start: int, end: int, advance: Callable[[int], None] | None) -> Iterator[list[bytes]]:
    """The lines of bytes start..end (`end` is a line boundary), about 1 MiB of them at a time.
    readlines() splits in C and is three times cheaper here than splitting read() blocks."""
    fh.seek(start)
    at = start
    while at < end and (lines := fh.readlines(BLOCK)):
        was, at = at, fh.tell()
        while at > end:  # the last block ran into the next range
            at -= len(lines.pop())
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


def read(path: Path, skip_bad_lines: bool = False, processes: int | None = None) -> Totals:
    """Sum the responses of the file and hash it, numbering lines from the top of the file.
    `processes` byte ranges are summed in as many processes (forked: the caller must not be
    running other threads); by default one per core for a large file, when that is safe."""
    try:
        size = path.stat().st_size
        open(path, "rb").close()
    except OSError as exc:
        raise ImportProblem(f"{path}: cannot read ({exc.strerror})") from None
    ranges = _ranges(path, size, processes or _processes_for(size))
    from .._infra.forking import Forked, ProcessEnded, context

    hashing, children, counters = None, [], [0]  # counters: bytes summed per range, for the progress bar
    if len(ranges) > 1:
        counters = context().RawArray("q", len(ranges))
        # Hashing gets a process too: on a thread it would wait for this process's GIL between blocks.
        # All are forked before the progress bar starts its thread.
        hashing = Forked(_hash_in_child, path, role="hashing")
        children = [Forked(_sum_in_child, path, span, skip_bad_lines, _Counter(counters, i), role="line-summing") for i, span in enumerate(ranges[1:], 1)]
    try:
        with progress(path, size) as show:
            def shown() -> None:
                if show is not None:
                    show(sum(counters))

            first = _sum_range(path, ranges[0], skip_bad_lines, _Counter(counters, 0, shown))
            totals = _combine(path, itertools.chain([first], (child.receive(shown) for child in children)))
            totals.sha256 = hashing.receive(shown) if hashing is not None else sha256_of(path)
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
        offset += part.lines
    t.lines = offset
    return t


class _Refused(Exception):
    """A bad line ends the range (without --skip-bad-lines)."""


def _sum_range(path: Path, span: tuple[int, int], skip_bad_lines: bool, advance: Callable[[int], None] | None) -> Totals:
    t = Totals()
    start, end = span

    def refuse(number: int, why: str) -> None:
        """A bad line: skipped and counted, or the end of the range."""
        if not skip_bad_lines:
            t.bad_line = (number, why)
            raise _Refused
        t.skipped += 1
        t.first_skipped = t.first_skipped or number

    # The hot loop of a million-line import: every name it touches is a local, the rare cases
    # sit in branches, and histograms are added up a block at a time.
    steps = drafts = accepted = emitted = 0
    with_metrics = without_metrics = 0
    usage_complete = True
    hist: list[int] | None = []
    add_k = t.k_values.add
    decode = _decode
    sd = last = None
    number = 0
    try:
        with open(path, "rb", buffering=BLOCK) as fh:
            for lines in _blocks(fh, start, end, advance):
                histograms: list[list[int]] = []
                keep = histograms.append
                for number, line in enumerate(lines, number + 1):
                    try:
                        response = decode(line)
                    except msgspec.DecodeError:
                        if not line.strip():
                            continue
                        if number == 1 and start == 0:
                            _refuse_other_format(path)
                        refuse(number, f"not a valid response ({_why_not(line)})")
                        continue
                    metrics = response.metrics
                    if metrics is None or (sd := metrics.speculative_decoding) is None:
                        if number == 1 and start == 0:
                            _refuse_if_not_a_response(path, line)
                        if response.usage is None and (response.object or "").endswith(".chunk"):
                            t.content_chunks += 1  # a streamed content chunk, not a finished request
                        else:
                            without_metrics += 1
                        continue
                    s, p, a, h = sd.num_spec_steps, sd.num_draft_tokens, sd.num_accepted_draft_tokens, sd.acceptance_histogram
                    if s is None or p is None or a is None:
                        refuse(number, "metrics.speculative_decoding lacks num_spec_steps, num_draft_tokens or num_accepted_draft_tokens")
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
                    with_metrics += 1
                    steps += s
                    drafts += p
                    accepted += a
                    add_k(sd.num_spec_tokens)  # None included: dropped at the end
                    keep(h)
                    usage = response.usage
                    if usage is not None and (tokens := usage.completion_tokens) is not None:
                        emitted += tokens
                    else:
                        usage_complete = False
                    last = sd
                if hist is not None:
                    hist = _add_columns(hist, histograms)  # type: ignore[arg-type]
    except _Refused:
        pass
    t.hist = hist
    t.steps, t.drafts, t.accepted = steps, drafts, accepted
    t.requests_with, t.requests_without = with_metrics, without_metrics
    t.emitted = emitted if usage_complete else None
    t.k_values.discard(None)  # type: ignore[arg-type]
    t.last = last
    t.lines = number
    return t


def _why_not(line: bytes) -> str:
    """msgspec's reason, for the line as the user sees it (without the newline readlines keeps)."""
    try:
        _decode(line.rstrip(b"\r\n"))
    except msgspec.DecodeError as exc:
        return str(exc)
    return "not JSON"  # not reached: the line failed with its newline, so it fails without


def _refuse_if_not_a_response(path: Path, line: bytes) -> None:
    """Line 1 with none of a response's fields is another tool's output."""
    response = _decode_first(line)
    if response.object is None and response.choices is None and response.usage is None and response.metrics is None:
        _refuse_other_format(path, "has no choices, usage or metrics", always=True)


def _refuse_other_format(path: Path, why: str = "is not a JSON response", always: bool = False) -> None:
    """Line 1 of another tool's file: say which. A response file whose first line is merely
    malformed goes on to the bad-line handling."""
    from .sniff import describe_guess

    guess = describe_guess(path, FORMAT)
    if guess or always:
        raise ImportProblem(f"{path}: line 1 {why}, so this is not {FORMAT} output{guess}")


# The pre-merge shape of vLLM PR #48915 (dev builds only): stats per choice, histogram as an object.
PRE_MERGE_KEY = b'"speculative_decoding_stats"'


def _holds(path: Path, needle: bytes) -> bool:
    """Whether the file contains these bytes (read in blocks; only when nothing else was found)."""
    with open(path, "rb") as fh:
        tail = b""
        while block := fh.read(BLOCK):
            if needle in tail + block:
                return True
            tail = block[-len(needle):]
    return False


def import_file(path: Path, skip_bad_lines: bool = False) -> Imported:
    t = read(path, skip_bad_lines)
    sha = t.sha256
    if t.requests_with == 0 and t.requests_without == 0:
        raise ImportProblem(f"{path}: no responses found (only streamed content chunks without a final usage chunk?)")
    if t.requests_with == 0 and _holds(path, PRE_MERGE_KEY):
        raise ImportProblem(
            f"{path}: its responses carry choices[i].speculative_decoding_stats, the pre-merge shape of vLLM's per-request "
            "metrics (PR #48915 before it merged, development builds only), which sdeval does not read; vLLM's releases put "
            "them in metrics.speculative_decoding at the response root"
        )
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
    # A tool's own figure exists for the run only when the run is one request.
    if t.requests_with == 1 and t.last is not None:
        reported = {"acceptance_rate": t.last.draft_acceptance_rate, "mean_acceptance_length": t.last.mean_acceptance_length}
        fields["reported"] = {k: v for k, v in reported.items() if v is not None} or None
    notes = []
    warnings = []
    if t.skipped:
        lines = f"{t.skipped} malformed line{'s' if t.skipped != 1 else ''}"
        notes.append(f"{lines} skipped (first at line {t.first_skipped}).")
        warnings.append(f"{path}: skipped {lines} (first at line {t.first_skipped})")
    if len(t.k_values) > 1:
        notes.append(f"Requests reported different num_spec_tokens: {sorted(t.k_values)}.")
    if t.requests_with and "emitted_tokens" in counts:
        notes.append("emitted_tokens sums usage.completion_tokens over the requests that carry speculative metrics.")
    if notes:
        fields["notes"] = " ".join(notes)
    return Imported(fields=fields, source=source(FORMAT, path, sha), speculative=t.requests_with > 0, warnings=warnings)
