"""guidellm: benchmarks.json (or .yaml), one run per benchmark.

Shapes of guidellm v0.3 (`benchmarks[i].args.strategy`, `run_stats`) through v0.7
(`benchmarks[i].config.strategy`, `scheduler_metrics`, `metadata.guidellm_version`), read from
vllm-project/guidellm at tags v0.3.1 and v0.4.0 .. v0.7.3. The load is the strategy:
synchronous (concurrency 1), concurrent (`streams`), throughput (`max_concurrency`), constant or
poisson (`rate`, open loop). guidellm computes no speculative-decoding figures; from 0.8 it keeps the
server's per-request metrics in `response_metrics`, read by guidellm_speculation.

The interval is the one the counts were counted over. Since v0.4 guidellm trims warm-up and
cool-down from a measurement window (`scheduler_metrics.measure_start_time` .. `measure_end_time`,
whose length is `duration`) but counts every request that overlaps the window, whole
(`GenerativeRequestsAccumulator.get_within_range`), so their tokens run past it. Its own output
tokens/s (`metrics.output_tokens_per_second.successful.mean`, a duration-weighted mean of rates
over the token events of `GenerativeRequestStats.output_tokens_timings`) is their tokens over the
span from their first to their last output token. When the file keeps every counted request
(`requests.successful`, not sampled), that span is the interval here and guidellm's figure goes to
`reported`; otherwise the interval is guidellm's `duration` only where nothing was trimmed, and
is left unstated where it was.

guidellm 0.8 divides its output tokens/s by the measurement window itself
(`rate_distribution_from_timings_function` with the window's start and end; `duration` is its
length), so from 0.8 on the interval is that window, and guidellm's figure goes to `reported` when E
over it gives the figure (a trimmed run counts whole the requests overlapping the window, and its
figure only the token events inside: then the figure is a note). The version
(`metadata.guidellm_version`) picks the basis; a release after 0.8 is read as 0.8 with a note.

Latencies by definition (GenerativeRequestStats, 0.8.1 `schemas/base/request_stats.py`):
`inter_token_latency_ms` is (last token - first token) / (output tokens - 1), the record's TPOT;
`time_per_output_token_ms` is (last token - request start) / output tokens, the first token's wait
included (`latency.tpot_with_first_ms`). guidellm keeps no gaps between streamed chunks, so no ITL.
Both distributions weight each request by its tokens.

guidellm v0.3 kept no warm-up or cool-down requests; its `duration` spans every request it
counted, incomplete and errored ones included (`GenerativeBenchmark.from_stats`), and its rate
distribution leaves out the last token event, so its figure stays a note.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from .common import (
    CLIENT_WALL_CLOCK,
    Imported,
    ImportProblem,
    count,
    drop_none,
    number,
    percentiles,
    read_json_document,
    source,
    untested_note,
    version_tuple,
)
from .guidellm_speculation import speculation

FORMAT = "guidellm"
# The guidellm release the tests run against the real engine (tests/importers/test_tools_live.py).
TESTED = (0, 8)
WINDOW_SINCE = (0, 8)
MEASUREMENT_WINDOW = {
    **CLIENT_WALL_CLOCK,
    "start_event": "start of guidellm's measurement window (scheduler_metrics.measure_start_time: first request sent, after any warm-up)",
    "end_event": "end of guidellm's measurement window (scheduler_metrics.measure_end_time: last response received, before any cool-down)",
}

TOKEN_SPAN = {
    **CLIENT_WALL_CLOCK,
    "start_event": "first output token of the requests guidellm counted, received by the client",
    "end_event": "last output token of the requests guidellm counted, received by the client",
}
REQUEST_SPAN = {
    **CLIENT_WALL_CLOCK,
    "start_event": "first request guidellm counted, sent by the client",
    "end_event": "last response of the requests guidellm counted, received by the client",
}


def _summary(metrics: dict, name: str) -> dict:
    """The `successful` distribution of a StatusDistributionSummary, or {}."""
    value = metrics.get(name)
    if isinstance(value, dict) and isinstance(value.get("successful"), dict):
        return value["successful"]
    return {}


def _latency(metrics: dict, name: str, scale: float = 1.0) -> dict | None:
    d = _summary(metrics, name)
    p = got if isinstance(got := d.get("percentiles"), dict) else {}
    return percentiles(d.get("mean"), d.get("median"), p.get("p90"), p.get("p95"), p.get("p99"), scale=scale)


def _load(strategy: dict) -> dict:
    kind = strategy.get("type_")
    if kind == "synchronous":
        return {"concurrency": 1, "loop": "closed"}
    if kind == "concurrent":
        return {"concurrency": count(strategy.get("streams")) or None, "loop": "closed"}
    if kind == "throughput":
        return {"concurrency": count(strategy.get("max_concurrency")) or None, "loop": "closed"}
    if kind in ("constant", "poisson"):
        return {"request_rate": number(strategy.get("rate")), "loop": "open"}
    return {}


def _g(value: float) -> str:
    return f"{value:.6g}"


def _token_span(request: dict) -> tuple[float, float] | None:
    """(first, last) output-token time of a streamed request (guidellm's output_tokens_timings),
    or None for a request without token iteration timings (not streamed)."""
    info = got if isinstance(got := request.get("info"), dict) else {}
    timings = got if isinstance(got := info.get("timings"), dict) else {}
    first, last = number(timings.get("first_token_iteration")), number(timings.get("last_token_iteration"))
    if first is None or last is None or (count(timings.get("token_iterations")) or 0) <= 1:
        return None
    return first, last


def _request_span(request: dict) -> tuple[float, float]:
    end = request["request_end_time"]
    start = number(request.get("request_start_time"))
    return (start if start is not None else end), end


def _counted_requests(bench: dict, window: tuple[float, float], successful: int | None, emitted: int | None) -> list[dict] | None:
    """The successful requests guidellm counted, when the file kept all of them (it may keep a sample)."""
    requests = bench.get("requests")
    kept = requests.get("successful") if isinstance(requests, dict) else None
    if not isinstance(kept, list) or successful is None or emitted is None:
        return None
    start, end = window
    counted = []
    for r in kept:
        if not isinstance(r, dict) or number(r.get("request_end_time")) is None:
            return None
        began = number(r.get("request_start_time"))
        if r["request_end_time"] >= start and (began <= end if began is not None else r["request_end_time"] <= end):
            counted.append(r)
    if len(counted) != successful or sum(count(r.get("output_tokens")) or 0 for r in counted) != emitted:
        return None
    return counted


def _measurement_window(sm: dict, own_rate: float | None, emitted: int | None, version: str) -> tuple[dict, float | None, list[str]] | None:
    """guidellm 0.8's basis: its measurement window, or None when the file gives none."""
    start, end = number(sm.get("measure_start_time")), number(sm.get("measure_end_time"))
    if start is None or end is None or end <= start:
        return None
    seconds = end - start
    notes = [
        f"guidellm {version}: the interval is its measurement window (scheduler_metrics.measure_start_time to measure_end_time, "
        f"{_g(seconds)} s), the one it divides its output tokens/s by."
    ]
    if own_rate is not None and emitted is not None and not math.isclose(emitted / seconds, own_rate, rel_tol=1e-6):
        notes.append(
            f"guidellm's own output tokens/s {_g(own_rate)} counts only the token events inside that window, while E counts whole "
            "the requests that overlap it, so it is a note, not a reported figure."
        )
        own_rate = None
    return {**MEASUREMENT_WINDOW, "duration_s": seconds}, own_rate, notes


def _interval(bench: dict, metrics: dict, successful: int | None, emitted: int | None, version: str | None) -> tuple[dict, float | None, list[str]]:
    """(interval, guidellm's own output tokens/s when the interval is its basis, notes)."""
    own_rate = number(_summary(metrics, "output_tokens_per_second").get("mean"))
    duration = number(bench.get("duration"))
    sm = got if isinstance(got := bench.get("scheduler_metrics"), dict) else None
    release = version_tuple(version)
    if sm is not None and version is not None and release is not None and release >= WINDOW_SINCE:
        measured = _measurement_window(sm, own_rate, emitted, version)
        if measured is not None:
            return measured
    if sm is None:  # v0.3: no trimming, duration spans every counted request
        notes = [
            "guidellm v0.3: the interval is its duration, from the first request it counted to the last, "
            "incomplete and errored ones included (their tokens are not in E)."
        ]
        if own_rate is not None:
            notes.append(f"guidellm's own output tokens/s {_g(own_rate)} leaves out the last token event, so it is a note, not a reported figure.")
        return {**CLIENT_WALL_CLOCK, "duration_s": duration or None}, None, notes
    start, end = number(sm.get("measure_start_time")), number(sm.get("measure_end_time"))
    trimmed = [(label, v) for label, key in (("warm-up", "warmup_duration"), ("cool-down", "cooldown_duration")) if (v := number(bench.get(key)))]
    window = f"its {_g(duration)} s measurement window" if duration else "its measurement window"
    if trimmed:
        window += " (after " + " and ".join(f"{_g(v)} s of {label}" for label, v in trimmed) + " were trimmed)"
    counted = _counted_requests(bench, (start, end), successful, emitted) if start is not None and end is not None else None
    if counted:
        spans = [_token_span(r) for r in counted]
        counted_note = f"guidellm counted the {len(counted)} successful requests that overlap {window}, whole"
        streamed = [s for s in spans if s is not None]
        if len(streamed) == len(spans):  # every one streamed
            first, last = min(s[0] for s in streamed), max(s[1] for s in streamed)
            if last > first:
                note = f"{counted_note}; the interval is from their first to their last output token ({_g(last - first)} s), guidellm's own basis for output tokens/s."
                return {**TOKEN_SPAN, "duration_s": last - first}, own_rate, [note]
        # Unstreamed requests have no token times: guidellm puts all their tokens at their end,
        # though they were generated before it; the requests' own span holds them all.
        first, last = min(_request_span(r)[0] for r in counted), max(_request_span(r)[1] for r in counted)
        if last > first:
            unstreamed = sum(1 for s in spans if s is None)
            notes = [
                f"{counted_note}; {unstreamed} of them were not streamed, so the interval is from the first of them sent to the last response received ({_g(last - first)} s)."
            ]
            if own_rate is not None:
                notes.append(
                    f"guidellm's own output tokens/s {_g(own_rate)} places an unstreamed request's tokens at its end, so it is a note, not a reported figure."
                )
            return {**REQUEST_SPAN, "duration_s": last - first}, None, notes
    rate_note = (
        f"guidellm's own output tokens/s {_g(own_rate)} is over its counted requests' token span, which the file does not give."
        if own_rate is not None
        else ""
    )
    if trimmed:
        return (
            {},
            None,
            [
                f"guidellm counted the requests that overlap {window}, whole, and the file does not keep them all "
                "(sampled), so the interval their tokens were counted over is unknown and left unstated.",
                rate_note,
            ],
        )
    return {**CLIENT_WALL_CLOCK, "duration_s": duration or None}, None, [rate_note]


def run_fields(bench: dict, where: str, version: str | None = None) -> dict[str, Any]:
    if not isinstance(bench, dict) or not isinstance(bench.get("metrics"), dict):
        raise ImportProblem(f"{where}: has no metrics object")
    metrics = bench["metrics"]
    config = got if isinstance(got := bench.get("config"), dict) else got if isinstance(got := bench.get("args"), dict) else {}
    strategy = got if isinstance(got := config.get("strategy"), dict) else {}
    totals = got if isinstance(got := metrics.get("request_totals") or bench.get("request_totals"), dict) else {}
    peak = count(_summary(metrics, "request_concurrency").get("max"))
    successful = count(totals.get("successful"))
    emitted = count(_summary(metrics, "output_token_count").get("total_sum"))
    interval, own_rate, notes = _interval(bench, metrics, successful, emitted, version)
    fields: dict[str, Any] = {
        "workload": {
            "num_requests": successful,
            "input_tokens_mean": number(_summary(metrics, "prompt_token_count").get("mean")),
            "output_tokens_mean": number(_summary(metrics, "output_token_count").get("mean")),
        },
        "load": {**_load(strategy), "measured_peak_concurrency": peak or None},
        "interval": interval,
        "counts": {"emitted_tokens": emitted, "population": "benchmark-requests"},
        "latency": {
            "ttft_ms": _latency(metrics, "time_to_first_token_ms"),
            # by definition (module docstring): guidellm's ITL is TPOT, its TPOT counts the first token in
            "tpot_ms": _latency(metrics, "inter_token_latency_ms"),
            "tpot_with_first_ms": _latency(metrics, "time_per_output_token_ms"),
            "e2e_ms": _latency(metrics, "request_latency", scale=1000.0),  # guidellm gives seconds
        },
        "reported": {"output_tokens_per_s": own_rate},
    }
    incomplete, errored = count(totals.get("incomplete")), count(totals.get("errored"))
    if incomplete or errored:
        notes.append(f"{incomplete or 0} incomplete and {errored or 0} errored requests are not in the counts.")
    # guidellm 0.8.1 can close a benchmark with a request still running (seen when run against llama-server):
    # it is in none of its totals, though the server generated its tokens.
    state = got if isinstance(got := bench.get("scheduler_state"), dict) else {}
    left = count(state.get("processing_requests"))
    if left:
        notes.append(
            f"guidellm ended this benchmark with {left} request{'s' if left != 1 else ''} still running (scheduler_state.processing_requests), "
            "in none of its totals: the server's counters over the run also hold tokens of "
            f"{'those requests' if left != 1 else 'that request'}, which E does not."
        )
    sm = got if isinstance(got := bench.get("scheduler_metrics"), dict) else {}
    start, end = number(sm.get("measure_start_time")), number(sm.get("measure_end_time"))
    counted = _counted_requests(bench, (start, end), successful, emitted) if start is not None and end is not None else None
    spec_counts, acceptance, spec_notes = speculation(bench, counted, where)
    fields["counts"].update(spec_counts)
    fields["request_acceptance"] = acceptance
    notes.extend(spec_notes)
    fields["notes"] = " ".join(n for n in notes if n) or None
    return drop_none(fields)


def import_file(path: Path) -> list[Imported]:
    data, sha = read_json_document(path, FORMAT)
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        from .sniff import describe_guess

        raise ImportProblem(f"{path}: has no benchmarks list, so it is not {FORMAT} output{describe_guess(path, FORMAT)}")
    meta = got if isinstance(got := data.get("metadata"), dict) else {}
    version = meta.get("guidellm_version") if isinstance(meta.get("guidellm_version"), str) else None
    newer = untested_note("guidellm", version, TESTED)
    out = []
    for i, bench in enumerate(data["benchmarks"]):
        entry = f"benchmarks[{i}]"
        fields = run_fields(bench, f"{path}: {entry}", version)
        if newer:
            fields["notes"] = f"{fields.get('notes') or ''} {newer}".strip()
        speculative = "request_acceptance" in fields  # the server's per-request speculation, passed through
        out.append(Imported(fields=fields, source=source(FORMAT, path, sha, version, entry), speculative=speculative))
    if not out:
        raise ImportProblem(f"{path}: the benchmarks list is empty")
    return out
