"""vllm-metrics and llamacpp-metrics: two Prometheus text scrapes of a server's /metrics, before and after the measured interval.

vLLM (`vllm/v1/spec_decode/metrics.py` `SpecDecodingProm`, `vllm/v1/metrics/loggers.py`; see
../shared/formats.md section 2): counter deltas give S (vllm:spec_decode_num_drafts_total),
P (..._num_draft_tokens_total), A (..._num_accepted_tokens_total), per-position acceptance
(..._per_pos_total{position}) and E (vllm:generation_tokens_total); requests finished are
vllm:request_success_total (labelled by finished_reason), and vllm:num_requests_running and
..._waiting say what was still in flight.

llama.cpp's server (`--metrics`; ggml-org/llama.cpp tools/server/server-task.cpp,
`server_task_result_metrics::to_metrics`, in the versions carrying the speculative counters,
llama.cpp PR #26389) names its counters after vLLM's with a `llamacpp:` prefix:
llamacpp:spec_decode_num_drafts_total (verification steps), ..._num_draft_tokens_total,
..._num_accepted_tokens_total, ..._num_accepted_tokens_per_pos_total{position} and
llamacpp:tokens_predicted_total (generated tokens); the gauges llamacpp:requests_processing and
..._deferred say what was in flight. It keeps no finished-request counter. Its speculative
counters are written at zero on a server without a draft model, and all counters move when a
request finishes, so a scrape taken mid-request misses that request entirely.

Every series is summed over its labels (one per engine for data-parallel ranks, one per served
model). `*_created` series are timestamps and ignored. Server counters count every request the
server handled, so the population is server-wide.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .common import Imported, ImportProblem, source

MAX_SCRAPE_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Server:
    format: str
    prefix: str
    drafts: str
    draft_tokens: str
    accepted: str
    per_position: str
    generated: str
    finished: str | None  # counter of finished requests, when the server keeps one
    in_flight: tuple[str, ...]  # gauges of requests running or waiting
    counts_at_finish: bool  # counters move only when a request finishes (llama.cpp), not every step (vLLM)

    def wanted(self) -> tuple[str, ...]:
        names = (self.drafts, self.draft_tokens, self.accepted, self.per_position, self.generated, self.finished, *self.in_flight)
        return tuple(n for n in names if n)


VLLM = Server(
    format="vllm-metrics",
    prefix="vllm:",
    drafts="vllm:spec_decode_num_drafts_total",
    draft_tokens="vllm:spec_decode_num_draft_tokens_total",
    accepted="vllm:spec_decode_num_accepted_tokens_total",
    per_position="vllm:spec_decode_num_accepted_tokens_per_pos_total",
    generated="vllm:generation_tokens_total",
    finished="vllm:request_success_total",
    in_flight=("vllm:num_requests_running", "vllm:num_requests_waiting"),
    counts_at_finish=False,
)
LLAMACPP = Server(
    format="llamacpp-metrics",
    prefix="llamacpp:",
    drafts="llamacpp:spec_decode_num_drafts_total",
    draft_tokens="llamacpp:spec_decode_num_draft_tokens_total",
    accepted="llamacpp:spec_decode_num_accepted_tokens_total",
    per_position="llamacpp:spec_decode_num_accepted_tokens_per_pos_total",
    generated="llamacpp:tokens_predicted_total",
    finished=None,
    in_flight=("llamacpp:requests_processing", "llamacpp:requests_deferred"),
    counts_at_finish=True,
)
SERVERS = {s.format: s for s in (VLLM, LLAMACPP)}
# Requests the scheduler evicted and recomputed (vLLM): kept by series beside the counters read, in
# any engine's scrape, for measure's preemption count.
PREEMPTIONS = "vllm:num_preemptions_total"
FORMAT = VLLM.format


EXACT = 2.0**53  # the first count a float cannot hold to the token: a step of 1 past it is lost

# Lines parsed at a time: the parser holds a family's samples until the family ends, so one family
# of 700,000 series (50 MB) took 850 MB at once; a batch's samples are the same as the whole text's
# (a sample is one line; a TYPE line changes no sample's name, labels or value).
_BATCH_LINES = 20_000


def _batches(text: str) -> Iterator[str]:
    start = 0
    while start < len(text):
        end = start
        for _ in range(_BATCH_LINES):
            end = text.find("\n", end) + 1
            if end == 0:
                end = len(text)
                break
        yield text[start:end]
        start = end


def _digest(name: str, labels: dict[str, str]) -> bytes:
    """A series other than the counters read, in 16 bytes: enough to find one given twice."""
    parts = [name, *(f"{k}\0{v}" for k, v in sorted(labels.items()))]
    return hashlib.blake2b("\0\0".join(parts).encode("utf-8", "surrogatepass"), digest_size=16).digest()


class Scrape:
    def __init__(self, path: Path, server: Server):
        from prometheus_client.parser import text_string_to_metric_families

        self.path, self.server = path, server
        try:
            with open(path, "rb") as fh:  # at most one byte past the limit is ever read
                raw = fh.read(MAX_SCRAPE_BYTES + 1)
        except OSError as exc:
            raise ImportProblem(f"{path}: cannot read ({exc.strerror})") from None
        if len(raw) > MAX_SCRAPE_BYTES:
            raise ImportProblem(f"{path}: over the {MAX_SCRAPE_BYTES}-byte limit for a scrape")
        self.sha256 = hashlib.sha256(raw).hexdigest()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ImportProblem(f"{path}: not valid UTF-8 at byte {exc.start}") from None
        del raw  # (the text is what is read from here on: a 64 MB scrape is not held twice)
        self.totals: dict[str, float] = defaultdict(float)
        self.per_position: dict[int, float] = defaultdict(float)
        self.seen: set[str] = set()
        # Each series (name and label set) of the counters read once: the value it had, to compare
        # per series. Every other series only by its digest, to refuse one given twice all the same.
        self.series: dict[tuple[str, frozenset], float] = {}
        wanted = set(server.wanted())
        kept = wanted | {PREEMPTIONS}
        others: set[bytes] = set()
        try:
            for batch in _batches(text):
                for family in text_string_to_metric_families(batch):
                    for sample in family.samples:
                        if sample.name in kept:
                            key = (sample.name, frozenset(sample.labels.items()))
                            if key in self.series:
                                self._twice(text, key)
                            self.series[key] = sample.value
                            if sample.name in wanted:
                                if not (math.isfinite(sample.value) and sample.value >= 0):
                                    line = _lines_of(text, key)[0]
                                    raise ImportProblem(
                                        f"{path}: {'line ' + str(line) + ': ' if line else ''}{series_name(key)} is {sample.value:g}, "
                                        "where a server's counter or gauge is a finite number, never negative"
                                    )
                                self._take(sample.name, sample.labels, sample.value)
                        elif (digest := _digest(sample.name, sample.labels)) in others:  # *_created and every other family
                            self._twice(text, (sample.name, frozenset(sample.labels.items())))
                        else:
                            others.add(digest)
        except ValueError as exc:
            line = _bad_line(text)
            raise ImportProblem(
                f"{path}: {'line ' + str(line) + ': ' if line else ''}not Prometheus text format ({exc or 'unreadable sample'}){_guess(path, server)}"
            ) from None
        if not self.seen & {server.drafts, server.draft_tokens, server.accepted, server.per_position, server.generated}:
            raise ImportProblem(
                f"{path}: has no {server.prefix}spec_decode_* or {server.generated} counters, "
                f"so it is not a {server.format} scrape{_guess(path, server)}"
            )

    def _twice(self, text: str, key: tuple[str, frozenset]) -> None:
        first, second = _lines_of(text, key)
        raise ImportProblem(
            f"{self.path}: lines {first} and {second}: the series {series_name(key)} appears twice in one scrape; summing both would count it twice"
        )

    def _take(self, name: str, labels: dict[str, str], value: float) -> None:
        self.seen.add(name)
        if EXACT <= abs(value) < math.inf:  # (NaN and infinities are refused where a window is differenced)
            raise ImportProblem(
                f"{self.path}: {series_name((name, frozenset(labels.items())))} is {value:g}, past 2^53: "
                "a count that large is not held to the token, so no window can be differenced from it"
            )
        if name == self.server.per_position:
            position = labels.get("position", "")
            if not position.isdigit():
                raise ImportProblem(f"{self.path}: {name} sample with position {position!r}")
            self.per_position[int(position)] += value
        else:
            self.totals[name] += value  # summed over engine, model_name and finished_reason labels

    def in_flight(self) -> int | None:
        present = [g for g in self.server.in_flight if g in self.seen]
        return int(sum(self.totals[g] for g in present)) if present else None


def _guess(path: Path, server: Server) -> str:
    from .sniff import describe_guess

    return describe_guess(path, server.format)


def series_name(key: tuple[str, frozenset]) -> str:
    """A series as the Prometheus text format writes it: name{label="value",...}."""
    import json

    name, labels = key
    inside = ",".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in sorted(labels))
    return f"{name}{{{inside}}}" if inside else name


def _lines_of(text: str, key: tuple[str, frozenset]) -> tuple[int | None, int | None]:
    """The first two lines holding a sample of series `key` (only when it is repeated)."""
    from prometheus_client.parser import text_string_to_metric_families

    found: list[int] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("#") or not line.strip():
            continue
        try:
            samples = [s for family in text_string_to_metric_families(line + "\n") for s in family.samples]
        except ValueError:
            continue
        if any((s.name, frozenset(s.labels.items())) == key for s in samples):
            found.append(number)
            if len(found) == 2:
                break
    return (found + [None, None])[0], (found + [None, None])[1]


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
        raise ImportProblem(
            f"{later}: {name} went down ({before:g} -> {after:g}); the server restarted between scrapes, or the files are in the wrong order (before first)"
        )
    if not float(d).is_integer():
        raise ImportProblem(f"{later}: {name} changed by {d:g}, not a whole number")
    return int(d)


@dataclass
class Deltas:
    """What the server counted between two scrapes."""

    counts: dict[str, Any]  # verification_steps, proposed_drafts, accepted_drafts, emitted_tokens, accepted_per_position
    finished_requests: int | None
    in_flight_after: int | None
    speculative: bool
    before: Scrape
    after: Scrape


def _check_counters(before: Scrape, after: Scrape, server: Server) -> None:
    """Each counter series may only rise: one that fell (an engine restarted inside the window)
    would be masked in the sum by another engine's rise."""
    order = {name: i for i, name in enumerate(n for n in server.wanted() if n not in server.in_flight)}
    # In the server's order (steps first), each name's series sorted by label: the same series on every run.
    for key, earlier in sorted(((k, v) for k, v in before.series.items() if k[0] in order), key=lambda kv: (order[kv[0][0]], sorted(kv[0][1]))):
        later = after.series.get(key)
        if later is None:
            raise ImportProblem(
                f"{after.path}: the counter {series_name(key)} was {earlier:g} in {before.path} and is missing here; "
                "its engine restarted or stopped between the scrapes, so the window cannot be counted"
            )
        if later < earlier:
            raise ImportProblem(
                f"{after.path}: the counter {series_name(key)} went down from {earlier:g} (in {before.path}) to {later:g}; "
                "an engine restarted between the scrapes, or the files are in the wrong order (before first)"
            )


def deltas(before_path: Path, after_path: Path, server: Server = VLLM) -> Deltas:
    before, after = Scrape(before_path, server), Scrape(after_path, server)
    _check_counters(before, after, server)
    counts: dict[str, Any] = {}
    for name, field in (
        (server.drafts, "verification_steps"),
        (server.draft_tokens, "proposed_drafts"),
        (server.accepted, "accepted_drafts"),
        (server.generated, "emitted_tokens"),
    ):
        if name in after.seen:
            counts[field] = _delta(before.totals.get(name, 0.0), after.totals[name], name, after_path)
    if after.per_position:
        positions = range(max(after.per_position) + 1)
        counts["accepted_per_position"] = [
            _delta(before.per_position.get(p, 0.0), after.per_position.get(p, 0.0), f'{server.per_position}{{position="{p}"}}', after_path)
            for p in positions
        ]
    finished = None
    if server.finished and server.finished in after.seen:
        finished = _delta(before.totals.get(server.finished, 0.0), after.totals[server.finished], server.finished, after_path)
    if server is LLAMACPP:
        # llama.cpp writes its speculative counters at zero without a draft model: it speculated if it drafted.
        speculative = bool(counts.get("verification_steps")) or server.per_position in after.seen
    else:
        speculative = any(name in after.seen for name in (server.drafts, server.draft_tokens, server.accepted))
    if not speculative:
        for field in ("verification_steps", "proposed_drafts", "accepted_drafts"):
            counts.pop(field, None)
    return Deltas(counts, finished, after.in_flight(), speculative, before, after)


def import_scrapes(paths: list[Path], fmt: str) -> Imported:
    """`sdeval import vllm-metrics|llamacpp-metrics BEFORE AFTER`."""
    if len(paths) != 2:
        raise ImportProblem(f"{fmt} takes two scrapes, BEFORE and AFTER the measured interval; got {len(paths)} file(s)")
    return import_files(paths[0], paths[1], SERVERS[fmt])


def import_files(before_path: Path, after_path: Path, server: Server = VLLM) -> Imported:
    d = deltas(before_path, after_path, server)
    src = source(server.format, after_path, d.after.sha256)
    src["earlier_scrape"] = {"file": before_path.name, "sha256": d.before.sha256}
    notes = ["Counter deltas between two /metrics scrapes: every request the server handled in between, not only a benchmark's."]
    if d.finished_requests is not None:
        notes.append(f"Requests finished in between: {d.finished_requests}.")
    if d.in_flight_after:
        counted = "none of their tokens" if server.counts_at_finish else "their tokens so far"
        notes.append(f"Requests still running or waiting at the later scrape: {d.in_flight_after}; the counters hold {counted}.")
    return Imported(fields={"counts": {**d.counts, "population": "server-wide"}, "notes": " ".join(notes)}, source=src, speculative=d.speculative)
