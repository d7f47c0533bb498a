"""The parallel reader of vllm_responses: a file's byte ranges summed in as many forked processes
and their Totals added up (or the whole file handed to DuckDB, responses_duckdb, when that engine
is chosen).

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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._infra import progress
from . import responses_duckdb
from .common import ImportProblem, sha256_of
from .responses_lines import BLOCK, FORMAT
from .responses_sum import first_totals, sum_range
from .responses_totals import Totals, combine

# Smaller files are summed in this process: starting another costs more than it saves.
PARALLEL_MIN_BYTES = 32 << 20

# An import still running after this many seconds shows a progress bar (where bars are wanted).
PROGRESS_AFTER_S = 2.0


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
            summed = responses_duckdb.read(path, lambda line: first_totals(path, line, fmt), show.advance)
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

            first = sum_range(path, ranges[0], skip_bad_lines, _Counter(counters, 0, shown), fmt, hasher)
            totals = combine(path, itertools.chain([first], (child.receive(shown) for child in children)))
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
    return sum_range(path, span, skip_bad_lines, advance)


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
