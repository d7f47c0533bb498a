"""profile_export.jsonl: AIPerf's per-request records, summed over its profiling phase."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, overload

from .aiperf_blocks import FORMAT, TO_MS, convert
from .common import HashedLines, Imported, ImportProblem, count, drop_none, number, parse_json_line, source

# One line per request (MetricRecordInfo, src/aiperf/common/models/record_export_models.py at 745695dd;
# its metadata is MetricRecordMetadata, src/aiperf/common/metric_records_wire.py at ab282c49):
# {"metadata": {"benchmark_phase": "warmup" | "profiling", "request_start_ns", "request_end_ns",
# "was_cancelled", ...}, "metrics": {tag: {"value", "unit"}} in display units, "error": {...} when the
# request failed}. AIPerf 0.13's per-request speculation is there as spec_decode_steps,
# spec_decode_draft_tokens and spec_decode_accepted_draft_tokens, on the requests whose response
# carried the server's per-request record (spec_decode_metrics.py at 388b4f26).
RECORD_SPEC = {
    "verification_steps": "spec_decode_steps",
    "proposed_drafts": "spec_decode_draft_tokens",
    "accepted_drafts": "spec_decode_accepted_draft_tokens",
}
RECORD_LATENCIES = {"ttft_ms": "time_to_first_token", "tpot_ms": "inter_token_latency", "e2e_ms": "request_latency"}


def is_records_file(path: Path) -> bool:
    import json

    try:
        with open(path, "rb") as fh:
            first = fh.readline(1 << 20)
        item = json.loads(first)
    except (OSError, ValueError):
        return False
    # (a summary or aggregate written on one line also holds "metadata" and "metrics", without a phase)
    return (
        isinstance(item, dict)
        and isinstance(item.get("metadata"), dict)
        and "benchmark_phase" in item["metadata"]
        and isinstance(item.get("metrics"), dict)
    )


@overload
def _record_value(path: Path, line_no: int, metrics: dict, tag: str, ms: Literal[False] = False) -> int | None: ...
@overload
def _record_value(path: Path, line_no: int, metrics: dict, tag: str, ms: Literal[True]) -> float | None: ...
def _record_value(path: Path, line_no: int, metrics: dict, tag: str, ms: bool = False) -> float | int | None:
    """A count (ms False), or a time in milliseconds."""
    entry = metrics.get(tag)
    if entry is None:
        return None
    if not isinstance(entry, dict) or number(entry.get("value")) is None:
        raise ImportProblem(f'{path}: line {line_no}: metrics.{tag} is not {{"value": a number, "unit": ...}}')
    value = entry["value"]
    if not ms:
        counted = count(value)
        if counted is None:
            raise ImportProblem(f"{path}: line {line_no}: metrics.{tag}.value {value!r} is not a count")
        return counted
    factor = TO_MS.get(str(entry.get("unit", "")).lower())
    if factor is None:
        raise ImportProblem(f"{path}: line {line_no}: metrics.{tag} is in {entry.get('unit')!r}, not a time unit")
    return convert(value, factor)


def import_records(path: Path) -> Imported:
    requests = errored = warmup = cancelled = 0
    spec = {k: 0 for k in RECORD_SPEC}
    covered = 0
    emitted: int | None = 0
    lists: dict[str, list[float] | None] = {k: [] for k in RECORD_LATENCIES}
    with HashedLines(path) as fh:
        for number_, line in enumerate(fh, 1):
            if not line.strip():
                continue
            item = parse_json_line(path, number_, line)
            if not isinstance(item, dict) or not isinstance(item.get("metadata"), dict) or not isinstance(item.get("metrics"), dict):
                raise ImportProblem(f'{path}: line {number_}: not an AIPerf per-request record ({{"metadata": ..., "metrics": ...}})')
            meta, metrics = item["metadata"], item["metrics"]
            if meta.get("benchmark_phase") != "profiling":
                warmup += 1
                continue
            if item.get("error"):
                errored += 1
                continue
            requests += 1
            cancelled += meta.get("was_cancelled") is True
            osl = _record_value(path, number_, metrics, "output_sequence_length")
            emitted = None if emitted is None or osl is None else emitted + osl
            values = {k: _record_value(path, number_, metrics, tag) for k, tag in RECORD_SPEC.items()}
            if values["verification_steps"] is not None:
                if None in values.values():
                    raise ImportProblem(
                        f"{path}: line {number_}: spec_decode_steps without spec_decode_draft_tokens and spec_decode_accepted_draft_tokens"
                    )
                covered += 1
                for k, v in values.items():
                    spec[k] += v  # type: ignore[operator]  # none is None: refused above
            for k, tag in RECORD_LATENCIES.items():
                ms = _record_value(path, number_, metrics, tag, ms=True)
                lists[k] = None if lists[k] is None or ms is None else lists[k] + [ms]  # type: ignore[operator]  # lists[k] is not None: tested first
        sha = fh.sha256()
    if not requests:
        raise ImportProblem(f"{path}: an AIPerf per-request records file without a completed request of the profiling phase")
    counts: dict[str, Any] = {"population": "benchmark-requests", "emitted_tokens": emitted}
    notes = [
        "AIPerf's per-request records (profile_export.jsonl): counts summed over the completed requests of its profiling phase; "
        "the records carry no benchmark duration, so the interval (and the load) are in profile_export_aiperf.json beside it."
    ]
    if covered:
        counts.update(spec, requests_with_metrics=covered, requests_without_metrics=requests - covered, missing_metrics_as="excluded")
        if requests - covered:
            notes.append(
                f"{requests - covered} of {requests} requests carried no per-request speculative record (spec decode off, "
                "no verification step, or the server reported none) and are not in S, P and A."
            )
    if errored:
        notes.append(
            f"{errored} errored request{'s' if errored != 1 else ''} (records with an error) {'is' if errored == 1 else 'are'} not in the counts."
        )
    if warmup:
        notes.append(f"{warmup} record{'s' if warmup != 1 else ''} of the warm-up phase left out.")
    if cancelled:
        notes.append(f"{cancelled} completed record{'s' if cancelled != 1 else ''} marked was_cancelled are in the counts.")
    kept = {k: v for k, v in lists.items() if v}
    missing = [RECORD_LATENCIES[k] for k, v in lists.items() if v is None]
    if missing:
        notes.append(
            f"Not every request has {', '.join(missing)} (a one-token response has no inter_token_latency), so "
            f"{'that list is' if len(missing) == 1 else 'those lists are'} not kept."
        )
    fields = {"workload": {"num_requests": requests}, "counts": counts, "request_latencies": kept or None, "notes": " ".join(notes)}
    return Imported(fields=drop_none(fields), source=source(FORMAT, path, sha), speculative=covered > 0)
