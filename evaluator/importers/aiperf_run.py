"""One AIPerf run's record fields from its metric blocks: the speculative counts, the interval AIPerf
divided its rates by, which output-token count is E (the server's usage or AIPerf's own tokenizer's),
the latencies by definition and the figures AIPerf reported."""

from __future__ import annotations

import math
from datetime import datetime
from pathlib import Path
from typing import Any

from .aiperf_blocks import BY_NAME, TESTED, TOP_LEVEL, Metrics, as_dict
from .aiperf_config import goodput_of, identity_note, variation_note
from .aiperf_window import PROFILING_WINDOW, WINDOW_SINCE  # (its own module: the server-metrics importer reads it too)
from .common import (
    CLIENT_WALL_CLOCK,
    ImportProblem,
    count,
    drop_none,
    histogram,
    number,
    percent_to_fraction,
    untested_note,
    version_tuple,
)


def _speculative_counts(path: Path, data: dict, m: Metrics, requests: int | None) -> tuple[dict, list[str]]:
    counts: dict[str, Any] = {
        "verification_steps": m.spec_total("total_spec_decode_steps", "spec_decode_steps"),
        "proposed_drafts": m.spec_total("total_draft_tokens", "spec_decode_draft_tokens"),
        "accepted_drafts": m.spec_total("total_accepted_draft_tokens", "spec_decode_accepted_draft_tokens"),
        "accepted_length_histogram": histogram(
            data.get("pooled_spec_decode_acceptance_histogram"), f"{path}: pooled_spec_decode_acceptance_histogram"
        ),
    }
    notes = []
    # Requests whose responses carried spec-decode stats are the ones counted in spec_decode_steps.
    covered = count(m.block("spec_decode_steps").get("count"))
    speculative = any(counts[k] is not None for k in ("verification_steps", "proposed_drafts", "accepted_drafts"))
    if speculative and covered is not None and requests is not None and covered <= requests:
        counts.update(requests_with_metrics=covered, requests_without_metrics=requests - covered, missing_metrics_as="excluded")
        notes.append(f"Requests with speculative metrics: spec_decode_steps.count ({covered}) of request_count ({requests}).")
    return counts, notes


def _profiling_window(data: dict) -> float | None:
    """Seconds from start_time to end_time (ISO times to the microsecond, both local), or None."""
    try:
        start, end = datetime.fromisoformat(data["start_time"]), datetime.fromisoformat(data["end_time"])
    except (KeyError, TypeError, ValueError):
        return None
    seconds = (end - start).total_seconds()
    return seconds if seconds > 0 else None


def _interval(data: dict, m: Metrics, divided: int | None, sweep_point: bool = False) -> tuple[dict | None, str | None, bool]:
    """(the interval AIPerf divided its output_token_throughput by, a note, whether that figure is E / T
    of it): its profiling window from 0.13 on, its benchmark_duration before. Where the file's own figure
    (over `divided` tokens) shows the other basis, that one is taken. A sweep point keeps no window, so
    a 0.13 point's figure, over its window, is then no reported figure."""
    duration, window = m.seconds("benchmark_duration"), _profiling_window(data)
    version = version_tuple(data.get("aiperf_version"))
    bases = [(window, PROFILING_WINDOW, "its profiling window (start_time to end_time)"), (duration, CLIENT_WALL_CLOCK, "its benchmark_duration")]
    if version is None or version < WINDOW_SINCE:
        bases.reverse()
    if bases[0][0] is None and bases[1][0] is None:
        return None, None, True
    chosen = bases[0]
    rate = number(m.block("output_token_throughput").get("avg"))
    if rate is not None and divided:
        # The other basis only where the file's own figure shows it (AIPerf times in ns; its
        # start_time and end_time are written to the microsecond).
        matching = [b for b in bases if b[0] is not None and math.isclose(divided / b[0], rate, rel_tol=1e-6)]
        chosen = matching[0] if matching else chosen
        if sweep_point and not matching and chosen[0] is not None:
            return (
                {**chosen[1], "duration_s": chosen[0]},
                f"The interval is the point's benchmark_duration, {chosen[0]:.6g} s; AIPerf's output_token_throughput {rate:.6g} is over "
                "its profiling window, which the sweep file does not keep, so it is a note, not a reported figure.",
                False,
            )
    seconds, events, named = chosen
    if seconds is None:
        return None, None, True
    return (
        {**events, "duration_s": seconds},
        f"The interval is {named}, {seconds:.6g} s: the one AIPerf divided its output_token_throughput by.",
        True,
    )


def _server_tokens(data: dict, m: Metrics, emitted: int | None, emitted_from: str | None) -> tuple[int | None, bool, list[str]]:
    """(E, whether E is the count AIPerf's own throughput is over, notes). AIPerf counts output tokens
    with its tokenizer over the response text unless run with --use-server-token-count; since 0.13 the
    file also keeps the server's usage counts (total_usage_completion_tokens) and the requests whose
    two counts differ (usage_discrepancy_count). E is the server's count where the file has it."""
    usage = m.total("total_usage_completion_tokens")
    if usage is None:
        if emitted is None:
            return None, False, []
        if as_dict(as_dict(data.get("input_config")).get("endpoint")).get("use_server_token_count") is True:
            return emitted, True, [f"E ({emitted_from}) is the server's usage count: AIPerf ran with --use-server-token-count."]
        return (
            emitted,
            True,
            [
                f"E is AIPerf's own count ({emitted_from}), which it takes with its tokenizer from the response text unless run with "
                "--use-server-token-count; the file holds no server usage counts (total_usage_completion_tokens) to check it against."
            ],
        )
    if emitted is None or emitted == usage:
        return usage, emitted is not None, []
    differing = m.total("usage_discrepancy_count")
    requests = f"; usage_discrepancy_count {differing} requests" if differing is not None else ""
    return (
        usage,
        False,
        [
            f"E is the server's count of completion tokens, total_usage_completion_tokens {usage}; AIPerf's own count with its "
            f"tokenizer ({emitted_from} {emitted}) differs by {emitted - usage:+d}{requests}. AIPerf's output_token_throughput is over "
            "its own count, so it is a note here, not a reported figure."
        ],
    )


def summary_run(
    path: Path, data: dict, blocks: dict[str, dict], layout: str, load: dict, load_notes: list[str], where: str = ""
) -> tuple[dict, bool]:
    """A run's fields from its metric blocks; `data` is the export around them (config, histogram, run info)."""
    m = Metrics(blocks)
    notes: list[str] = []
    requests = m.total("request_count")
    if requests is None:
        requests = count(m.block("request_count").get("sum"))
    if requests is None and layout == BY_NAME:
        # Every successful request has a time to last token; the pre-release wrote no request count.
        requests = count(m.block("time_to_last_token").get("count"))
    own, reasoning, emitted_from = m.emitted()
    emitted, own_basis, token_notes = _server_tokens(data, m, own, emitted_from)
    interval, interval_note, rate_is_e_over_t = _interval(data, m, own, sweep_point=bool(where))
    if (
        emitted is None
        and interval is None
        and not any(m.block(t) for t in ("time_to_first_token", "inter_token_latency", "request_latency", "time_to_last_token"))
    ):
        raise ImportProblem(
            f"{path}: {where}an AIPerf export ({layout}) without any metric sdeval reads: no token totals, benchmark duration or latencies"
        )
    spec_counts, spec_notes = _speculative_counts(path, data, m, requests)
    counts = {**spec_counts, "emitted_tokens": emitted, "reasoning_tokens": reasoning, "population": "benchmark-requests"}
    speculative = any(spec_counts[k] is not None for k in ("verification_steps", "proposed_drafts", "accepted_drafts"))
    if layout != TOP_LEVEL:
        notes.append(f"AIPerf export with {layout}.")
    if layout == BY_NAME:
        notes.append("That pre-release wrote latency distributions only: no benchmark duration, token counts or load.")
        if requests is not None:
            notes.append(f"The request count is the {requests} requests behind its Time to Last Token.")
    if emitted_from is not None and emitted_from != "total_osl" and own_basis and not token_notes:
        notes.append(f"Emitted tokens from {emitted_from}.")
    notes.extend(token_notes)
    if interval_note:
        notes.append(interval_note)
    if reasoning:
        notes.append(f"E includes {reasoning} reasoning tokens (total_reasoning_tokens): every generated token is output.")
    errors = m.total("error_request_count")
    if errors:
        notes.append(f"{errors} errored requests (error_request_count) are not in the counts.")
    if data.get("was_cancelled") is True:
        notes.append("AIPerf marked the run as cancelled.")
    notes.extend(spec_notes)
    notes.extend(load_notes)
    goodput, goodput_notes = goodput_of(path, data, m)
    notes.extend(goodput_notes)
    notes.extend(n for n in (variation_note(data), identity_note(data), untested_note("AIPerf", data.get("aiperf_version"), TESTED)) if n)
    fields = {
        "workload": {
            "num_requests": requests,
            "input_tokens_mean": number(m.block("input_sequence_length").get("avg")),
            "output_tokens_mean": number(m.block("output_sequence_length").get("avg")),
        },
        "load": load,
        "interval": interval,
        "counts": counts,
        # AIPerf's inter_token_latency is (request latency - TTFT) / (output tokens - first chunk's
        # tokens): the record's TPOT. Its inter_chunk_latency is the gaps between streamed content
        # chunks (every gap of every request pooled): the record's ITL.
        "latency": {
            "ttft_ms": m.latency("time_to_first_token"),
            "tpot_ms": m.latency("inter_token_latency"),
            "itl_ms": m.latency("inter_chunk_latency"),
            "e2e_ms": m.latency("request_latency", "time_to_last_token"),
        },
        "goodput": goodput,
        "reported": {
            "acceptance_rate": percent_to_fraction(m.block("spec_decode_overall_draft_acceptance_rate").get("avg")),
            "mean_acceptance_length": number(m.block("spec_decode_token_weighted_acceptance_length").get("avg")),
            "output_tokens_per_s": number(m.block("output_token_throughput").get("avg")) if own_basis and rate_is_e_over_t else None,
        },
        "notes": " ".join(n for n in notes if n) or None,
    }
    return drop_none(fields), speculative
