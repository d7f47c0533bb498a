"""What vllm_responses sums over a file or over one byte range of it (Totals), the ranges' sums
added up in file order, and the words for a refused or skipped line."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from . import responses_openai, responses_trtllm
from .common import ImportProblem
from .responses_lines import SpecDecoding


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
    engine: str = "python"  # which summed the file: python (responses_sum) or duckdb (responses_duckdb)


def add_columns(total: list[int] | None, rows: list[list[int]]) -> list[int] | None:
    """Column sums of histograms of any widths, added to the total (zip and sum run in C)."""
    if total is None or not rows:
        return total
    width = max(len(total), max(map(len, rows)))
    rows = [h if len(h) == width else h + [0] * (width - len(h)) for h in rows]
    total = total + [0] * (width - len(total))
    return [t + column for t, column in zip(total, map(sum, zip(*rows)))]


def bad_line_problem(path: Path, number: int, message: str) -> ImportProblem:
    return ImportProblem(f"{path}: line {number}: {message}; pass --skip-bad-lines to import the other lines")


def combine(path: Path, parts: Iterable[Totals]) -> Totals:
    """The file's totals from its ranges', taken in file order. A refused line stops at once with its
    number counted from the top; later ranges are not waited for."""
    t = Totals()
    offset = 0
    for part in parts:
        if part.bad_line is not None:
            number, why = part.bad_line
            raise bad_line_problem(path, offset + number, why)
        t.requests_with += part.requests_with
        t.requests_without += part.requests_without
        t.steps += part.steps
        t.drafts += part.drafts
        t.accepted += part.accepted
        t.emitted = None if t.emitted is None or part.emitted is None else t.emitted + part.emitted
        t.hist = None if part.hist is None else add_columns(t.hist, [part.hist])
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


def skipped_lines(path: Path, t: Totals) -> tuple[list[str], list[str]]:
    if not t.skipped:
        return [], []
    lines = f"{t.skipped} malformed line{'s' if t.skipped != 1 else ''}"
    return [f"{lines} skipped (first at line {t.first_skipped})."], [f"{path}: skipped {lines} (first at line {t.first_skipped})"]
