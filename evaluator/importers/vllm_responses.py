"""vllm-responses: JSONL of OpenAI-compatible responses carrying metrics.speculative_decoding.

One line is one response: a complete /v1/chat/completions or /v1/completions body, or the
final usage chunk of a streamed one (`"choices": []` with `usage`, where vLLM puts the
metrics). Streamed content chunks without usage are not requests and are passed over.

Counts are sums over the requests whose `metrics.speculative_decoding` is present. A request
whose metrics are null (vLLM suppresses them for n > 1 and multi-prompt requests) is counted
as not covered, never as zeros. The file is streamed in blocks and decoded line by line with
typed msgspec decoders that build only the fields summed here, so memory stays flat
(bench/import_vllm_responses.py).
"""

from __future__ import annotations

import hashlib
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
    """Sums over one file."""

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
    sha256: str = ""


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


class _Hasher:
    """SHA-256 of the blocks on a second thread: hashlib releases the GIL on large buffers, so
    hashing runs on another core while this one decodes. The queue is bounded, so memory stays flat."""

    def __init__(self) -> None:
        import queue
        import threading

        self.digest = hashlib.sha256()
        self.blocks: queue.Queue[bytes | None] = queue.Queue(maxsize=8)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while (block := self.blocks.get()) is not None:
            self.digest.update(block)

    def hexdigest(self) -> str:
        self.blocks.put(None)
        self.thread.join()
        return self.digest.hexdigest()


def _lines(fh, hasher: _Hasher, advance: Callable[[int], None] | None) -> Iterator[bytes]:
    """Lines of a binary file read in 1 MiB blocks, each block also handed to the hasher (one pass)."""
    rest = b""
    done = 0
    for block in iter(lambda: fh.read(BLOCK), b""):
        hasher.blocks.put(block)
        done += len(block)
        lines = (rest + block).split(b"\n")
        rest = lines.pop()
        yield from lines
        if advance is not None:
            advance(done)
    if rest:
        yield rest


def _bad_line(path: Path, number: int, message: str) -> ImportProblem:
    return ImportProblem(f"{path}: line {number}: {message}; pass --skip-bad-lines to import the other lines")


def read(path: Path, skip_bad_lines: bool = False) -> Totals:
    """Sum the responses of the file, and hash it, in one streaming pass."""
    try:
        size = path.stat().st_size
        fh = open(path, "rb")
    except OSError as exc:
        raise ImportProblem(f"{path}: cannot read ({exc.strerror})") from None
    hasher = _Hasher()
    try:
        with fh, progress(path, size) as advance:
            t = _sum(path, fh, hasher, advance, skip_bad_lines)
    finally:
        sha256 = hasher.hexdigest()  # also ends the hashing thread when a line is refused
    t.sha256 = sha256
    return t


def _sum(path: Path, fh, hasher: _Hasher, advance, skip_bad_lines: bool) -> Totals:
    t = Totals()
    # The hot loop of a million-line import: sums live in locals, histograms are summed in batches.
    steps = drafts = accepted = emitted = 0
    with_metrics = without_metrics = 0
    usage_complete = True
    batch: list[list[int]] = []
    for number, line in enumerate(_lines(fh, hasher, advance), 1):
        try:
            response = _decode(line)
        except msgspec.DecodeError as exc:
            if not line.strip():
                continue
            if number == 1:
                _refuse_other_format(path)
            if not skip_bad_lines:
                raise _bad_line(path, number, f"not a valid response ({exc})") from None
            t.skipped += 1
            t.first_skipped = t.first_skipped or number
            continue
        metrics = response.metrics
        sd = metrics.speculative_decoding if metrics is not None else None
        if sd is None:
            if number == 1 and response.object is None and response.choices is None and response.usage is None and metrics is None:
                _refuse_other_format(path, "has no choices, usage or metrics", always=True)
            if response.usage is None and (response.object or "").endswith(".chunk"):
                t.content_chunks += 1  # a streamed content chunk, not a finished request
            else:
                without_metrics += 1
            continue
        if sd.num_spec_steps is None or sd.num_draft_tokens is None or sd.num_accepted_draft_tokens is None:
            if not skip_bad_lines:
                raise _bad_line(path, number, "metrics.speculative_decoding lacks num_spec_steps, num_draft_tokens or num_accepted_draft_tokens")
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
                    raise _bad_line(path, number, "acceptance_histogram keys must be numbers of accepted drafts") from None
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
