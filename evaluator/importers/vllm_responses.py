"""vllm-responses: JSONL of OpenAI-compatible responses carrying metrics.speculative_decoding.

One line is one response: a complete /v1/chat/completions or /v1/completions body, or the
final usage chunk of a streamed one (`"choices": []` with `usage`, where vLLM puts the
metrics). Streamed content chunks without usage are not requests and are passed over.

Counts are sums over the requests whose `metrics.speculative_decoding` is present. A request
whose metrics are null (vLLM suppresses them for n > 1 and multi-prompt requests) is counted
as not covered, never as zeros. The file is streamed in blocks and decoded line by line with
typed msgspec decoders that build only the fields summed here, so memory stays flat; a large
file is split at line boundaries between one worker process per core
(bench/import_vllm_responses.py).
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import msgspec

from .common import Imported, ImportProblem, histogram, source

FORMAT = "vllm-responses"
BLOCK = 1 << 20
# Below this size one process reads the file; above it, one worker per core (at most MAX_WORKERS).
PARALLEL_MIN_BYTES = 64 * 1024 * 1024
MAX_WORKERS = 4
_CAN_FORK = hasattr(os, "fork")

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


class Response(msgspec.Struct, gc=False):
    object: str | None = None
    usage: Usage | None = None
    metrics: Metrics | None = None
    choices: list[msgspec.Raw] | None = None


_decode = msgspec.json.Decoder(Response).decode


@dataclass
class Totals:
    """Sums over one file, or one line-aligned byte range of it (merged with `+`)."""

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
    first_skipped: int | None = None  # line number (in the range, until merged)
    content_chunks: int = 0
    sha256: str = ""

    def __add__(self, other: Totals) -> Totals:
        return Totals(
            self.requests_with + other.requests_with,
            self.requests_without + other.requests_without,
            self.steps + other.steps,
            self.drafts + other.drafts,
            self.accepted + other.accepted,
            None if self.emitted is None or other.emitted is None else self.emitted + other.emitted,
            _sum_histograms(self.hist, [other.hist]) if other.hist is not None else None,
            self.k_values | other.k_values,
            other.last or self.last,
            self.skipped + other.skipped,
            self.first_skipped if self.first_skipped is not None else other.first_skipped,
            self.content_chunks + other.content_chunks,
        )


class BadLine(Exception):
    """A malformed line, numbered within its range; the caller turns it into a file line number."""

    def __init__(self, line: int, message: str):
        super().__init__(line, message)
        self.line, self.message = line, message


def _sum_histograms(total: list[int] | None, batch: list[list[int]]) -> list[int] | None:
    """Column sums of a batch of histograms, added to the total (zip and sum run in C)."""
    if total is None or not batch:
        return total
    width = max(len(total), max(map(len, batch)))
    rows = [h if len(h) == width else h + [0] * (width - len(h)) for h in batch]
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


def _blocks(fh, start: int, end: int) -> Iterator[bytes]:
    fh.seek(start)
    left = end - start
    while left > 0:
        block = fh.read(min(BLOCK, left))
        if not block:
            return
        left -= len(block)
        yield block


def _lines(blocks: Iterator[bytes], digest=None, advance: Callable[[int], None] | None = None) -> Iterator[bytes]:
    """Lines from blocks of bytes, hashing each block on the way when asked (one pass)."""
    rest = b""
    done = 0
    for block in blocks:
        if digest is not None:
            digest.update(block)
        done += len(block)
        lines = (rest + block).split(b"\n")
        rest = lines.pop()
        yield from lines
        if advance is not None:
            advance(done)
    if rest:
        yield rest


def scan(path: str, start: int, end: int, skip_bad_lines: bool, digest=None, advance=None) -> Totals:
    """Sum the responses in bytes [start, end) of the file (both on line boundaries)."""
    t = Totals()
    # The hot loop of a million-line import: sums live in locals, histograms are summed in batches.
    steps = drafts = accepted = emitted = 0
    with_metrics = without_metrics = 0
    usage_complete = True
    batch: list[list[int]] = []
    first_range = start == 0
    with open(path, "rb") as fh:
        for number, line in enumerate(_lines(_blocks(fh, start, end), digest, advance), 1):
            try:
                response = _decode(line)
            except msgspec.DecodeError as exc:
                if not line.strip():
                    continue
                if number == 1 and first_range:
                    _refuse_other_format(Path(path))
                if not skip_bad_lines:
                    raise BadLine(number, f"not a valid response ({exc})") from None
                t.skipped += 1
                t.first_skipped = t.first_skipped or number
                continue
            metrics = response.metrics
            sd = metrics.speculative_decoding if metrics is not None else None
            if sd is None:
                if number == 1 and first_range and response.object is None and response.choices is None and response.usage is None and metrics is None:
                    _refuse_other_format(Path(path), "has no choices, usage or metrics", always=True)
                if response.usage is None and (response.object or "").endswith(".chunk"):
                    t.content_chunks += 1  # a streamed content chunk, not a finished request
                else:
                    without_metrics += 1
                continue
            if sd.num_spec_steps is None or sd.num_draft_tokens is None or sd.num_accepted_draft_tokens is None:
                if not skip_bad_lines:
                    raise BadLine(number, "metrics.speculative_decoding lacks num_spec_steps, num_draft_tokens or num_accepted_draft_tokens")
                t.skipped += 1
                t.first_skipped = t.first_skipped or number
                continue
            with_metrics += 1
            steps += sd.num_spec_steps
            drafts += sd.num_draft_tokens
            accepted += sd.num_accepted_draft_tokens
            if sd.num_spec_tokens is not None:
                t.k_values.add(sd.num_spec_tokens)
            h = sd.acceptance_histogram
            if h is None:
                t.hist = None  # one request without a histogram: a partial sum would mislead
            elif t.hist is not None:
                if type(h) is not list:
                    try:
                        h = histogram(h, "")
                    except ImportProblem:
                        raise BadLine(number, "acceptance_histogram keys must be numbers of accepted drafts") from None
                batch.append(h)  # type: ignore[arg-type]
                if len(batch) == 4096:
                    t.hist = _sum_histograms(t.hist, batch)
                    batch.clear()
            usage = response.usage
            if usage is not None and usage.completion_tokens is not None:
                emitted += usage.completion_tokens
            else:
                usage_complete = False
            t.last = sd
    t.hist = _sum_histograms(t.hist, batch)
    t.steps, t.drafts, t.accepted = steps, drafts, accepted
    t.requests_with, t.requests_without = with_metrics, without_metrics
    t.emitted = emitted if usage_complete else None
    return t


def _boundaries(path: Path, size: int, parts: int) -> list[int]:
    """Offsets that split the file into `parts` ranges, each starting at the beginning of a line."""
    cuts = [0]
    with open(path, "rb") as fh:
        for k in range(1, parts):
            fh.seek(max(size * k // parts, cuts[-1]))
            fh.readline()  # move to the start of the next line
            cuts.append(min(fh.tell(), size))
    return [*cuts, size]


def read(path: Path, skip_bad_lines: bool = False) -> Totals:
    """The file's totals and SHA-256. A large file is split between worker processes (one per
    core, as DuckDB uses one thread per core) while this process hashes it and counts the lines
    before each range, so line numbers in messages are the file's own."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ImportProblem(f"{path}: cannot read ({exc.strerror})") from None
    parts = max(1, min(os.cpu_count() or 1, MAX_WORKERS)) if size >= PARALLEL_MIN_BYTES and _CAN_FORK else 1
    cuts = _boundaries(path, size, parts)
    digest = hashlib.sha256()
    lines_before = [0] * parts
    try:
        if parts == 1:
            with progress(path, size) as advance:
                results = [scan(str(path), 0, size, skip_bad_lines, digest, advance)]
        else:
            results = _scan_in_workers(path, cuts, skip_bad_lines, digest, lines_before)
    except BadLine as bad:
        raise ImportProblem(f"{path}: line {bad.line}: {bad.message}; pass --skip-bad-lines to import the other lines") from None
    except OSError as exc:
        raise ImportProblem(f"{path}: cannot read ({exc.strerror})") from None
    for k, part in enumerate(results):
        if part.first_skipped is not None:
            part.first_skipped += lines_before[k]
    total = results[0]
    for part in results[1:]:
        total = total + part
    total.sha256 = digest.hexdigest()
    return total


def _scan_in_workers(path: Path, cuts: list[int], skip_bad_lines: bool, digest, lines_before: list[int]) -> list[Totals]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    parts = len(cuts) - 1
    # fork, with every worker started by the first submit and before the progress bar's thread
    # exists: no re-import of the program (spawn), no thread copied into a child.
    with ProcessPoolExecutor(parts, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = [pool.submit(scan, str(path), cuts[k], cuts[k + 1], skip_bad_lines) for k in range(parts)]
        newlines = 0
        with progress(path, cuts[-1]) as advance, open(path, "rb") as fh:
            for block_start, block in _offsets(_blocks(fh, 0, cuts[-1])):
                digest.update(block)
                for k in range(1, parts):
                    if block_start <= cuts[k] < block_start + len(block) and not lines_before[k]:
                        lines_before[k] = newlines + block.count(b"\n", 0, cuts[k] - block_start)
                newlines += block.count(b"\n")
                if advance is not None:
                    advance(block_start + len(block))
        results = []
        for k, future in enumerate(futures):
            try:
                results.append(future.result())
            except BadLine as bad:
                pool.shutdown(cancel_futures=True)
                raise BadLine(lines_before[k] + bad.line, bad.message) from None
    return results


def _offsets(blocks: Iterator[bytes]) -> Iterator[tuple[int, bytes]]:
    at = 0
    for block in blocks:
        yield at, block
        at += len(block)


def _refuse_other_format(path: Path, why: str = "is not a JSON response", always: bool = False) -> None:
    """Line 1 of another tool's file: say which. A response file whose first line is merely
    malformed goes on to the bad-line handling."""
    from . import describe_guess

    guess = describe_guess(path, FORMAT)
    if guess or always:
        raise ImportProblem(f"{path}: line 1 {why}, so this is not {FORMAT} output{guess}")


def import_file(path: Path, skip_bad_lines: bool = False) -> Imported:
    t = read(path, skip_bad_lines)
    sha = t.sha256
    if t.requests_with == 0 and t.requests_without == 0:
        raise ImportProblem(f"{path}: no responses found (only streamed content chunks without a final usage chunk?)")
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
