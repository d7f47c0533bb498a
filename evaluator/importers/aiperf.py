"""aiperf: profile_export_aiperf.json in every layout AIPerf has written it, its sweep aggregate
(profile_export_aiperf_sweep.json, one run per point) and its per-request records (profile_export.jsonl).

Read from ai-dynamo/aiperf's history (`exporters/json_exporter.py`, `common/models/export_models.py`
and `metrics/types/*.py`, mirror at db4f6397, 2025-10-10), its `docs/reference/json-export-schema.md`
(commit 1554b478) and the files kept in ../shared/real-outputs/aiperf:

- June 2025 pre-release (JsonExporter added in ai-dynamo/aiperf#49, cfa53de2): one record per
  metric keyed by its display name ("Time to First Token", with `name`), under `records` in
  ajcasagrande/aiperf's artifacts (4e8e0e30). Only latency distributions: TTFT, TTST, ITL and
  "Time to Last Token" (request start to last response, i.e. the request latency); no request
  count, token count or benchmark duration.
- July to 10 October 2025 (eb497af9 .. 43b78902): `records` keyed by metric tag, each block
  with `tag` and `header`; time to first and second token tagged `ttft` and `ttst`. Values are
  in the block's `unit` (nanoseconds before ai-dynamo/aiperf#203, display units after).
- Since ai-dynamo/aiperf#343 (GenAI-Perf's layout): each metric tag is a top-level block
  {"unit", "avg", "p50", ..., "count", "sum"}; later files add `aiperf_version`,
  `schema_version` and the speculative-decoding metrics.

Emitted tokens are every generated token: AIPerf's output sequence length is output plus
reasoning tokens (`OutputSequenceLengthMetric`), and its `output_token_throughput` is their
total over the benchmark duration, while `total_output_tokens` leaves reasoning tokens out. So
E is `total_osl` (since ai-dynamo/aiperf#319), or `benchmark_token_count` (its name in August
2025), or `total_output_tokens` plus `total_reasoning_tokens`; the reasoning share is kept.
The benchmark duration runs from the first request sent to the last response received.
Speculative counts come from the run totals (or the per-request metric's `sum`), the histogram
from pooled_spec_decode_acceptance_histogram (string keys). AIPerf's acceptance rates are
percentages; the token-weighted one is kept, as a fraction, in `reported`. AIPerf 0.13 takes them
from the server's per-request records (vLLM's metrics.speculative_decoding and others), so the
requests counted in spec_decode_steps are those covered, the rest counted as not covered.

The load: `input_config.loadgen` (2025), or the phases AIPerf counts in its results of 0.11's
`input_config.phases` (below), or a sweep point's `run_info.variation_values`. Goodput
(`goodput`, `good_request_count`) is kept with the SLOs it was counted at, `input_config.slos`
(0.11 on) or `input_config.input.goodput` (2025), and only with them. What ran (issue 28.4): the
models of `input_config.models.items` (or `endpoint.model_names`), the tokenizer and its revision,
and the command line of `run_info.cli_command` (or `input_config.cli_command`) go to the notes.
"""

from __future__ import annotations

import math
import re
from datetime import datetime
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal, overload

from . import provenance
from .aiperf_window import PROFILING_WINDOW, WINDOW_SINCE  # (its own module: the server-metrics importer reads it too)
from .common import (
    CLIENT_WALL_CLOCK,
    HashedLines,
    Imported,
    ImportProblem,
    count,
    drop_none,
    histogram,
    number,
    parse_json_line,
    percent_to_fraction,
    percentiles,
    read_json_document,
    source,
    untested_note,
    version_tuple,
)

FORMAT = "aiperf"
# The AIPerf release the tests run against the real engine (tests/importers/test_tools_live.py).
TESTED = (0, 13)
# The statistics a metric block may hold (JsonMetricResult, export_models.py at 896729cf).
_BLOCK_KEYS = ("unit", "avg", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "min", "max", "std", "count", "sum")
# Exact factors, so 52,000,000 ns is 52 ms and not 52.00000000000001.
TO_SECONDS = {
    "s": Fraction(1),
    "sec": Fraction(1),
    "secs": Fraction(1),
    "seconds": Fraction(1),
    "ms": Fraction(1, 10**3),
    "us": Fraction(1, 10**6),
    "ns": Fraction(1, 10**9),
}
TO_MS = {unit: factor * 1000 for unit, factor in TO_SECONDS.items()}


def _convert(value: Any, factor: Fraction) -> float | None:
    v = number(value)
    return None if v is None else v if factor == 1 else float(Fraction(v) * factor)


# Earlier names of today's tags (display names are turned into tags by _tag first).
ALIASES = {
    "ttft": "time_to_first_token",
    "ttst": "time_to_second_token",
    "total_output_sequence_length": "total_osl",
    "total_input_sequence_length": "total_isl",
}
# The three layouts, as named in notes and refusals.
TOP_LEVEL, BY_TAG, BY_NAME = (
    "top-level metric blocks",
    "records keyed by tag (July to October 2025)",
    "records keyed by display name (June 2025 pre-release)",
)


def _tag(key: str, block: dict) -> str:
    """A block's metric tag: its `tag`, else its key or display name as a tag ("Time to First Token" -> time_to_first_token)."""
    raw = tag if isinstance(tag := block.get("tag"), str) else name if isinstance(name := block.get("name"), str) else key
    tag = re.sub(r"[^a-z0-9]+", "_", raw.lower()).strip("_")
    return ALIASES.get(tag, tag)


def _is_block(value: Any) -> bool:
    return isinstance(value, dict) and "unit" in value and "avg" in value


def metric_blocks(data: Any) -> tuple[dict[str, dict], str] | None:
    """The metric blocks by tag and the layout they came in, or None when the file holds none."""
    if not isinstance(data, dict):
        return None
    records = data.get("records")
    if isinstance(records, dict):
        blocks = {_tag(k, v): v for k, v in records.items() if _is_block(v)}
        by_name = any(isinstance(v, dict) and "name" in v and "tag" not in v for v in records.values())
        return (blocks, BY_NAME if by_name else BY_TAG) if blocks else None
    blocks = {_tag(k, v): v for k, v in data.items() if _is_block(v)}
    if not blocks:
        return None
    by_name = any(" " in k for k, v in data.items() if _is_block(v))
    return blocks, BY_NAME if by_name else TOP_LEVEL


class _Metrics:
    def __init__(self, blocks: dict[str, dict]):
        self.blocks = blocks

    def block(self, tag: str) -> dict:
        return self.blocks.get(tag, {})

    def total(self, *tags: str) -> int | None:
        """The first of these run totals the file has (aggregate metrics carry the value as `avg`)."""
        for tag in tags:
            value = count(self.block(tag).get("avg"))
            if value is not None:
                return value
        return None

    def spec_total(self, total_tag: str, per_request_tag: str) -> int | None:
        value = self.total(total_tag)
        return value if value is not None else count(self.block(per_request_tag).get("sum"))

    def latency(self, *tags: str) -> dict | None:
        for tag in tags:
            b = self.block(tag)
            scale = TO_MS.get(str(b.get("unit", "ms")).lower())
            if b and scale is not None:
                return percentiles(*(_convert(b.get(k), scale) for k in ("avg", "p50", "p90", "p95", "p99")))
        return None

    def seconds(self, tag: str) -> float | None:
        b = self.block(tag)
        factor = TO_SECONDS.get(str(b.get("unit", "")).lower())
        return _convert(b.get("avg"), factor) or None if factor is not None else None

    def emitted(self) -> tuple[int | None, int | None, str | None]:
        """(E, reasoning tokens of E, where E came from)."""
        reasoning = self.total("total_reasoning_tokens")
        for tag in ("total_osl", "benchmark_token_count"):
            value = self.total(tag)
            if value is not None:
                return value, reasoning, tag
        output = self.total("total_output_tokens")
        if output is not None:
            return output + (reasoning or 0), reasoning, "total_output_tokens + total_reasoning_tokens" if reasoning else "total_output_tokens"
        return None, reasoning, None


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


# Phase types of AIPerf's config v2 (src/aiperf/config/phases.py, ai-dynamo/aiperf at aa0efdfd):
# `concurrency` is a closed loop at `concurrency`; `poisson`, `gamma` and `constant` send at `rate`
# requests/s (or follow a `rate_series`), with `concurrency` as a cap; `user_centric` shares `rate`
# among `users`; `fixed_schedule` replays a trace's timestamps.
RATE_PHASES = ("poisson", "gamma", "constant", "user_centric")


def _counted_phases(phases: list) -> list[dict]:
    """The phases AIPerf counts in its results: not excluded, not of kind (or name) warmup."""
    out = []
    for phase in phases:
        if not isinstance(phase, dict) or phase.get("exclude_from_results") is True:
            continue
        if (phase.get("kind") or phase.get("name")) == "warmup":
            continue
        out.append(phase)
    return out


def _phase_load(phase: dict) -> tuple[dict, list[str]]:
    kind, name = phase.get("type"), phase.get("name", "?")
    notes = []
    if phase.get("concurrency_ramp") or phase.get("rate_ramp") or phase.get("prefill_ramp"):
        notes.append(f"Phase {name} ramped its load up (concurrency_ramp, rate_ramp or prefill_ramp), so part of it ran below the stated load.")
    if kind == "concurrency":
        concurrency = count(phase.get("concurrency")) or None
        return {"concurrency": concurrency, "loop": "closed" if concurrency else None}, notes
    if kind in RATE_PHASES:
        rate = number(phase.get("rate"))
        if rate is None:
            notes.append(f"Phase {name} ({kind}) followed a rate_series, not one rate: the load is left unstated.")
            return {}, notes
        if kind == "user_centric":
            notes.append(f"Phase {name} shared {rate!r} requests/s among {phase.get('users')} users (user_centric).")
        return {"request_rate": rate, "concurrency": count(phase.get("concurrency")) or None, "loop": "open"}, notes
    if kind == "fixed_schedule":
        notes.append(f"Phase {name} replayed a trace's timestamps (fixed_schedule): the load is the trace's, left unstated.")
        return {}, notes
    notes.append(f"Phase {name} is of type {kind!r}, which sdeval does not read: the load is left unstated.")
    return {}, notes


def _load(data: dict) -> tuple[dict, list[str]]:
    """The load, from the 2025 `input_config.loadgen`, the 0.11 `input_config.phases`, or a sweep's variation values."""
    cfg = _dict(data.get("input_config"))
    loadgen = _dict(cfg.get("loadgen"))
    if loadgen:
        concurrency, rate = count(loadgen.get("concurrency")) or None, number(loadgen.get("request_rate"))
        return {"concurrency": concurrency, "request_rate": rate, "loop": "open" if rate is not None else ("closed" if concurrency else None)}, []
    phases = cfg.get("phases")
    if isinstance(phases, list) and phases:
        counted = _counted_phases(phases)
        skipped = [p.get("name", "?") for p in phases if isinstance(p, dict) and p not in counted]
        notes = (
            [f"AIPerf leaves its warm-up phase{'s' if len(skipped) > 1 else ''} ({', '.join(map(str, skipped))}) out of its results."]
            if skipped
            else []
        )
        if len(counted) == 1:
            load, more = _phase_load(counted[0])
            return load, notes + more
        if counted:
            loads = [_phase_load(p)[0] for p in counted]
            if all(load == loads[0] for load in loads):
                return loads[0], notes + [f"AIPerf counted {len(counted)} phases, all at the same load."]
            return {}, notes + [
                f"AIPerf counted {len(counted)} phases at different loads ({', '.join(str(p.get('name')) for p in counted)}): the load is left unstated."
            ]
    variations = _dict(_dict(data.get("run_info")).get("variation_values"))
    concurrency = count(variations.get("phases.profiling.concurrency")) or None
    return {"concurrency": concurrency, "loop": "closed" if concurrency else None}, []


# AIPerf's --goodput SLOs, each a metric tag and a limit in the metric's display unit (ms here:
# set_slos in src/aiperf/metrics/types/good_request_count_metric.py, ai-dynamo/aiperf at cf79369e,
# converts display to base units). A request is good when every one holds (<= for smaller-is-better
# metrics) and it has a value for each: a one-token response has no inter_token_latency, so it is not
# good under an ITL limit. AIPerf's per-request inter_token_latency is (request latency - TTFT) /
# (output tokens - first chunk's tokens) (inter_token_latency_metric.py at d2d69500): the time per
# output token after the first, the record's TPOT.
SLO_LIMITS = {"time_to_first_token": "ttft_limit_ms", "inter_token_latency": "tpot_limit_ms", "request_latency": "e2e_limit_ms"}


def _slos(data: dict) -> dict | None:
    """The SLOs goodput was counted at: `input_config.slos` (0.11 on) or `input_config.input.goodput`
    (2025's UserConfig, aiperf/common/config/input_config.py at db4f6397: "VALUE is a number in the
    metric's display unit")."""
    cfg = _dict(data.get("input_config"))
    for slos in (cfg.get("slos"), _dict(cfg.get("input")).get("goodput")):
        if isinstance(slos, dict) and slos:
            return slos
    return None


def _goodput(path: Path, data: dict, m: _Metrics) -> tuple[dict | None, list[str]]:
    rate = number(m.block("goodput").get("avg"))
    good = count(m.block("good_request_count").get("avg"))
    if rate is None:
        return None, []
    slos = _slos(data)
    requests = count(m.block("request_count").get("avg"))
    counted = (
        f"{good}{f' of {requests}' if requests is not None else ''} requests good (good_request_count)" if good is not None else "its good requests"
    )
    if slos is None:
        return None, [f"AIPerf's goodput {rate!r} requests/s is not kept: the file does not record the SLOs it was counted at."]
    limits, stated = {}, []
    for tag, value in slos.items():
        v = number(value)
        if v is None:
            raise ImportProblem(f"{path}: input_config.slos.{tag} is {value!r}, not a limit")
        stated.append(f"{tag} <= {int(v) if v.is_integer() else v!r}")
        if tag in SLO_LIMITS:
            limits[SLO_LIMITS[tag]] = v
    definition = (
        f"AIPerf --goodput: a request is good when it meets every SLO ({', '.join(stated)}; time limits in ms) "
        "and has a value for each metric; goodput = good_request_count / the run's interval"
    )
    others = [tag for tag in slos if tag not in SLO_LIMITS]
    notes = [f"Goodput: AIPerf counted {counted} at its SLOs."]
    if others:
        notes.append(
            f"Its SLOs on {', '.join(others)} have no field of their own; they are in goodput.definition, and only make its good requests fewer."
        )
    return {"requests_per_s": rate, **limits, "definition": definition[:2000], "good_requests": good}, notes


def _named(data: dict) -> tuple[list[str], str | None, str | None]:
    """The model(s), the tokenizer's name and the tokenizer with its revision, as input_config names them."""
    cfg = _dict(data.get("input_config"))
    models = (
        [item.get("name") for item in _dict(cfg.get("models")).get("items", []) if isinstance(item, dict)]
        if isinstance(_dict(cfg.get("models")).get("items"), list)
        else []
    )
    if not models and isinstance(_dict(cfg.get("endpoint")).get("model_names"), list):
        models = _dict(cfg.get("endpoint"))["model_names"]
    tokenizer = _dict(cfg.get("tokenizer"))
    name = tokenizer.get("name") if isinstance(tokenizer.get("name"), str) else None
    tok = f"{name} (revision {tokenizer['revision']})" if name and isinstance(tokenizer.get("revision"), str) else name
    return [m for m in models if isinstance(m, str)], name, tok


def _identity(data: dict) -> str | None:
    """Item 4: the model(s), tokenizer and command line the file names."""
    cfg = _dict(data.get("input_config"))
    models, _, tok = _named(data)
    command = _dict(data.get("run_info")).get("cli_command") or cfg.get("cli_command")
    return provenance.note("AIPerf", data.get("aiperf_version"), models, tok, command)


def _variation(data: dict) -> str | None:
    """A point of an AIPerf sweep (`run_info`, 0.11 on): which one."""
    info = _dict(data.get("run_info"))
    label, index = info.get("variation_label"), count(info.get("variation_index"))
    if not isinstance(label, str):
        return None
    trial = count(info.get("trial"))
    sweep = f"AIPerf sweep {info['sweep_id']}" if isinstance(info.get("sweep_id"), str) else "an AIPerf sweep"
    return f"One point of {sweep}: {label} (variation {index}{f', trial {trial}' if trial is not None else ''})."


def _speculative_counts(path: Path, data: dict, m: _Metrics, requests: int | None) -> tuple[dict, list[str]]:
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


def _interval(data: dict, m: _Metrics, divided: int | None, sweep_point: bool = False) -> tuple[dict | None, str | None, bool]:
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


def _server_tokens(data: dict, m: _Metrics, emitted: int | None, emitted_from: str | None) -> tuple[int | None, bool, list[str]]:
    """(E, whether E is the count AIPerf's own throughput is over, notes). AIPerf counts output tokens
    with its tokenizer over the response text unless run with --use-server-token-count; since 0.13 the
    file also keeps the server's usage counts (total_usage_completion_tokens) and the requests whose
    two counts differ (usage_discrepancy_count). E is the server's count where the file has it."""
    usage = m.total("total_usage_completion_tokens")
    if usage is None:
        if emitted is None:
            return None, False, []
        if _dict(_dict(data.get("input_config")).get("endpoint")).get("use_server_token_count") is True:
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


def import_with_server_metrics(path: Path, server_metrics: Path) -> list[Imported]:
    """`sdeval import aiperf SUMMARY --server-metrics FILE`: one profiling run and its server's counters."""
    if _is_records_file(path):
        raise ImportProblem(f"{path}: --server-metrics goes with AIPerf's summary (profile_export_aiperf.json), not its per-request records")
    data, _ = read_json_document(path, FORMAT)
    if not isinstance(data, dict) or isinstance(data.get("per_combination_metrics"), list):
        raise ImportProblem(f"{path}: --server-metrics goes with one run's profile_export_aiperf.json, not a sweep aggregate")
    from .aiperf_server_metrics import beside_summary

    return [beside_summary(item, data, server_metrics) for item in import_file(path)]


def import_file(path: Path) -> list[Imported]:
    if _is_records_file(path):
        return [_records(path)]
    data, sha = read_json_document(path, FORMAT)
    if isinstance(data, dict) and isinstance(data.get("per_combination_metrics"), list):
        return _sweep(path, data, sha)
    if isinstance(data, dict) and _dict(data.get("metadata")).get("aggregation_type") == "confidence":
        runs = count(data["metadata"].get("num_profile_runs"))
        raise ImportProblem(
            f"{path}: an AIPerf confidence aggregate (metadata.aggregation_type 'confidence', over {runs if runs is not None else 'several'} "
            "profile run(s)): statistics across runs, not one run's counts; import each run's own profile_export_aiperf.json"
        )
    found = metric_blocks(data)
    if found is None:
        from .sniff import describe_guess

        raise ImportProblem(
            f'{path}: holds no AIPerf metric blocks ({{"unit", "avg", ...}} at the top level or under records), '
            f"so it is not {FORMAT} output{describe_guess(path, FORMAT)}"
        )
    blocks, layout = found
    load, load_notes = _load(data)
    fields, speculative = _run(path, data, blocks, layout, load, load_notes)
    models, tokenizer, _ = _named(data)
    origin = source(FORMAT, path, sha, data.get("aiperf_version"), model=models, tokenizer=tokenizer)
    return [Imported(fields=fields, source=origin, speculative=speculative)]


def _run(path: Path, data: dict, blocks: dict[str, dict], layout: str, load: dict, load_notes: list[str], where: str = "") -> tuple[dict, bool]:
    """A run's fields from its metric blocks; `data` is the export around them (config, histogram, run info)."""
    m = _Metrics(blocks)
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
    goodput, goodput_notes = _goodput(path, data, m)
    notes.extend(goodput_notes)
    notes.extend(n for n in (_variation(data), _identity(data), untested_note("AIPerf", data.get("aiperf_version"), TESTED)) if n)
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


# ------------------------------------------------------------------ profile_export_aiperf_sweep.json

# Read from ai-dynamo/aiperf: the exporter (src/aiperf/exporters/aggregate/aggregate_sweep_json_exporter.py
# at c1cfd86b) writes {"aggregation_type": "sweep", "num_profile_runs", "num_successful_runs",
# "failed_runs", "metadata": {"sweep_parameters": [{"name", "values"}], "num_combinations", ...},
# "per_combination_metrics": [{"parameters": {...}, "metrics": {...}}], "best_configurations",
# "pareto_optimal"}. A point run once (src/aiperf/cli_runner/_sweep_aggregate.py at 68e913b9,
# _json_metric_to_stats) keeps that run's blocks under their metric tags, as {"mean" (= avg),
# "avg", "std": 0, "min", "max", "cv": 0, "ci_low", "ci_high", "unit", p1..p99, "count", "sum"}
# (earlier versions without the percentiles, count and sum); a point run several times holds
# ConfidenceAggregation statistics across its trials under flattened keys ("request_throughput_avg":
# {"mean", "std", ...}), means of the trials' figures, not one run's counts.
PARAMETER_LOAD = {"concurrency": "concurrency", "request_rate": "request_rate", "rate": "request_rate"}
_FLATTENED = re.compile(r"_(avg|p\d+|min|max|std|count|sum)$")


def _sweep_trials(data: dict) -> int | None:
    meta = _dict(data.get("metadata"))
    trials = count(meta.get("num_trials_per_value"))
    if trials:
        return trials
    runs, combinations = count(data.get("num_profile_runs") or meta.get("num_profile_runs")), count(meta.get("num_combinations"))
    if runs and combinations and runs % combinations == 0:
        return runs // combinations
    return None


def _sweep(path: Path, data: dict, sha: str) -> list[Imported]:
    combos = data["per_combination_metrics"]
    if not combos:
        raise ImportProblem(f"{path}: an AIPerf sweep aggregate with no points (per_combination_metrics is empty)")
    trials = _sweep_trials(data)
    flattened = any(
        isinstance(c, dict)
        and isinstance(c.get("metrics"), dict)
        and any(_FLATTENED.search(k) for k in c["metrics"])
        and "request_count" not in c["metrics"]
        for c in combos
    )
    if (trials or 1) > 1 or (trials is None and flattened):
        over = f"{trials} trials" if trials else "several trials"
        raise ImportProblem(
            f"{path}: an AIPerf sweep aggregate whose points are means over {over} (AIPerf's confidence aggregation), "
            "not one run's counts; import each trial's own profile_export_aiperf.json instead, one run each"
        )
    failed = data.get("failed_runs") if isinstance(data.get("failed_runs"), list) else []
    out = []
    for i, combo in enumerate(combos):
        where = f"per_combination_metrics[{i}]"
        if not isinstance(combo, dict) or not isinstance(combo.get("metrics"), dict) or not isinstance(combo.get("parameters"), dict):
            raise ImportProblem(f'{path}: {where} is not a point ({{"parameters": ..., "metrics": ...}})')
        blocks = {}
        for tag, stats in combo["metrics"].items():
            if isinstance(stats, dict) and "unit" in stats and ("avg" in stats or "mean" in stats):
                blocks[ALIASES.get(tag, tag)] = {**{k: v for k, v in stats.items() if k in _BLOCK_KEYS}, "avg": stats.get("avg", stats.get("mean"))}
        if not blocks:
            raise ImportProblem(f"{path}: {where}.metrics holds no metric with a unit and a value")
        load: dict[str, Any] = {}
        other: list[str] = []
        for name, value in combo["parameters"].items():
            leaf = str(name).rsplit(".", 1)[-1]
            if leaf in PARAMETER_LOAD and (number(value) is not None):
                load[PARAMETER_LOAD[leaf]] = (count(value) or None) if PARAMETER_LOAD[leaf] == "concurrency" else number(value)
            else:
                other.append(f"{name}={value!r}")
        if "request_rate" in load:
            load["loop"] = "open"
        elif load.get("concurrency"):
            load["loop"] = "closed"
        label = ", ".join(f"{k}={v!r}" for k, v in combo["parameters"].items())
        notes = [
            f"Point {i} of an AIPerf sweep aggregate ({label}), run once; the sweep file records no input_config, so the model, "
            "tokenizer, SLOs and command line are in each point's own profile_export_aiperf.json."
        ]
        if other:
            notes.append(f"Swept parameters other than the load: {', '.join(other)}.")
        if failed and i == 0:
            notes.append(f"The sweep lists {len(failed)} failed run(s), whose points are absent.")
        fields, speculative = _run(path, {}, blocks, TOP_LEVEL, load, notes, where=f"{where}: ")
        out.append(Imported(fields=fields, source=source(FORMAT, path, sha, entry=where), speculative=speculative))
    return out


# ------------------------------------------------------------------ profile_export.jsonl (per request)

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


def _is_records_file(path: Path) -> bool:
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
    return _convert(value, factor)


def _records(path: Path) -> Imported:
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
