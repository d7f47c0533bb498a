"""vllm-metrics: two Prometheus text scrapes of vLLM's /metrics, before and after the measured interval.

Counter deltas give S (vllm:spec_decode_num_drafts_total), P (..._num_draft_tokens_total),
A (..._num_accepted_tokens_total), per-position acceptance (..._per_pos_total{position}) and
E (vllm:generation_tokens_total). Every series is summed over its labels (one per engine for
data-parallel ranks, one per served model). `*_created` series are timestamps and ignored.
Server counters count every request the server handled, so the population is server-wide.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path
from typing import Any

from .common import Imported, ImportProblem, source

FORMAT = "vllm-metrics"
MAX_SCRAPE_BYTES = 64 * 1024 * 1024

DRAFTS = "vllm:spec_decode_num_drafts_total"
DRAFT_TOKENS = "vllm:spec_decode_num_draft_tokens_total"
ACCEPTED = "vllm:spec_decode_num_accepted_tokens_total"
PER_POSITION = "vllm:spec_decode_num_accepted_tokens_per_pos_total"
GENERATION_TOKENS = "vllm:generation_tokens_total"
WANTED = (DRAFTS, DRAFT_TOKENS, ACCEPTED, PER_POSITION, GENERATION_TOKENS)


class Scrape:
    def __init__(self, path: Path):
        from prometheus_client.parser import text_string_to_metric_families

        self.path = path
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise ImportProblem(f"{path}: cannot read ({exc.strerror})") from None
        if len(raw) > MAX_SCRAPE_BYTES:
            raise ImportProblem(f"{path}: over the {MAX_SCRAPE_BYTES}-byte limit for a scrape")
        self.sha256 = hashlib.sha256(raw).hexdigest()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ImportProblem(f"{path}: not valid UTF-8 at byte {exc.start}") from None
        self.totals: dict[str, float] = defaultdict(float)
        self.per_position: dict[int, float] = defaultdict(float)
        self.seen: set[str] = set()
        try:
            for family in text_string_to_metric_families(text):
                for sample in family.samples:
                    self._take(sample.name, sample.labels, sample.value)
        except ValueError as exc:
            line = _bad_line(text)
            raise ImportProblem(f"{path}: {'line ' + str(line) + ': ' if line else ''}not Prometheus text format ({exc or 'unreadable sample'}){_guess(path)}") from None
        if not self.seen:
            raise ImportProblem(f"{path}: has no vllm:spec_decode_* or vllm:generation_tokens counters{_guess(path)}")

    def _take(self, name: str, labels: dict[str, str], value: float) -> None:
        if name not in WANTED:
            return  # *_created and every other family
        self.seen.add(name)
        if name == PER_POSITION:
            position = labels.get("position", "")
            if not position.isdigit():
                raise ImportProblem(f"{self.path}: {PER_POSITION} sample with position {position!r}")
            self.per_position[int(position)] += value
        else:
            self.totals[name] += value  # summed over engine and model_name labels


def _guess(path: Path) -> str:
    from . import describe_guess

    return describe_guess(path, FORMAT)


def _bad_line(text: str) -> int | None:
    """The first line the parser rejects, found by parsing line by line (only on failure)."""
    from prometheus_client.parser import text_string_to_metric_families

    for number, line in enumerate(text.splitlines(), 1):
        try:
            list(text_string_to_metric_families(line + "\n"))
        except ValueError:
            return number
    return None


def _delta(before: float, after: float, name: str, later: Path) -> int:
    d = after - before
    if d < 0:
        raise ImportProblem(f"{later}: {name} went down ({before:g} -> {after:g}); the server restarted between scrapes, or the files are in the wrong order (before first)")
    if not float(d).is_integer():
        raise ImportProblem(f"{later}: {name} changed by {d:g}, not a whole number")
    return int(d)


def import_files(before_path: Path, after_path: Path) -> Imported:
    before, after = Scrape(before_path), Scrape(after_path)
    counts: dict[str, Any] = {"population": "server-wide"}
    for name, field in ((DRAFTS, "verification_steps"), (DRAFT_TOKENS, "proposed_drafts"), (ACCEPTED, "accepted_drafts"), (GENERATION_TOKENS, "emitted_tokens")):
        if name in after.seen:
            counts[field] = _delta(before.totals.get(name, 0.0), after.totals[name], name, after_path)
    if after.per_position:
        positions = range(max(after.per_position) + 1)
        counts["accepted_per_position"] = [
            _delta(before.per_position.get(p, 0.0), after.per_position.get(p, 0.0), f"{PER_POSITION}{{position=\"{p}\"}}", after_path)
            for p in positions
        ]
    speculative = any(name in after.seen for name in (DRAFTS, DRAFT_TOKENS, ACCEPTED))
    src = source(FORMAT, after_path, after.sha256)
    src["earlier_scrape"] = {"file": before_path.name, "sha256": before.sha256}
    notes = "Counter deltas between two /metrics scrapes: every request the server handled in between, not only a benchmark's."
    return Imported(fields={"counts": counts, "notes": notes}, source=src, speculative=speculative)
