"""vllm-responses: JSONL of OpenAI-compatible responses carrying metrics.speculative_decoding.

One line is one response: a complete /v1/chat/completions or /v1/completions body, or the
final usage chunk of a streamed one (`"choices": []` with `usage`, where vLLM puts the
metrics). Streamed content chunks without usage are not requests and are passed over.

Counts are sums over the requests whose `metrics.speculative_decoding` is present. A request
whose metrics are null (vLLM suppresses them for n > 1 and multi-prompt requests) is counted
as not covered, never as zeros. The file is read line by line with typed msgspec decoders that
build only the fields summed here, so memory stays flat and a million lines take seconds
(bench/import_vllm_responses.py).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import msgspec

from .common import Imported, ImportProblem, add_histogram, histogram, sha256_of, source

FORMAT = "vllm-responses"

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


class Totals:
    def __init__(self) -> None:
        self.requests_with = self.requests_without = 0
        self.steps = self.drafts = self.accepted = 0
        self.emitted: int | None = 0
        self.hist: list[int] | None = []
        self.k_values: set[int] = set()
        self.last: SpecDecoding | None = None
        self.skipped = 0
        self.first_skipped: int | None = None
        self.content_chunks = 0

    def add(self, sd: SpecDecoding, usage: Usage | None, where: str) -> None:
        if sd.num_spec_steps is None or sd.num_draft_tokens is None or sd.num_accepted_draft_tokens is None:
            raise ImportProblem(f"{where}: metrics.speculative_decoding lacks num_spec_steps, num_draft_tokens or num_accepted_draft_tokens")
        self.requests_with += 1
        self.steps += sd.num_spec_steps
        self.drafts += sd.num_draft_tokens
        self.accepted += sd.num_accepted_draft_tokens
        if sd.num_spec_tokens is not None:
            self.k_values.add(sd.num_spec_tokens)
        if self.hist is not None:
            h = sd.acceptance_histogram
            if h is None:
                self.hist = None  # one request without a histogram: a partial sum would mislead
            else:
                add_histogram(self.hist, h if isinstance(h, list) else histogram(h, where))  # type: ignore[arg-type]
        if self.emitted is not None:
            if usage is None or usage.completion_tokens is None:
                self.emitted = None
            else:
                self.emitted += usage.completion_tokens
        self.last = sd


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


def read(path: Path, skip_bad_lines: bool = False) -> Totals:
    totals = Totals()
    try:
        size = path.stat().st_size
        fh = open(path, "rb")
    except OSError as exc:
        raise ImportProblem(f"{path}: cannot read ({exc.strerror})") from None
    with fh, progress(path, size) as advance:
        done = 0
        for number, line in enumerate(fh, 1):
            done += len(line)
            if advance is not None and number % 65536 == 0:
                advance(done)
            if not line.strip():
                continue
            try:
                response = _decode(line)
            except msgspec.DecodeError as exc:
                if number == 1:
                    _refuse_other_format(path)
                if not skip_bad_lines:
                    raise ImportProblem(f"{path}: line {number}: not a valid response ({exc}); pass --skip-bad-lines to import the other lines") from None
                totals.skipped += 1
                totals.first_skipped = totals.first_skipped or number
                continue
            if number == 1 and response.object is None and response.choices is None and response.usage is None and response.metrics is None:
                _refuse_other_format(path, "has no choices, usage or metrics")
            sd = response.metrics.speculative_decoding if response.metrics is not None else None
            if sd is not None:
                totals.add(sd, response.usage, f"{path}: line {number}")
            elif response.usage is None and (response.object or "").endswith(".chunk"):
                totals.content_chunks += 1  # a streamed content chunk, not a finished request
            else:
                totals.requests_without += 1
        if advance is not None:
            advance(done)
    return totals


def _refuse_other_format(path: Path, why: str = "is not a JSON response per line") -> None:
    from . import describe_guess

    raise ImportProblem(f"{path}: line 1 {why}, so this is not {FORMAT} output{describe_guess(path, FORMAT)}")


def import_file(path: Path, skip_bad_lines: bool = False) -> Imported:
    t = read(path, skip_bad_lines)
    sha = sha256_of(path)
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
