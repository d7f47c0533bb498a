"""mlperf-endpoints: the result summary of MLCommons' endpoints client (mlcommons/endpoints), one run per file.

Read from mlcommons/endpoints at ea332753 (2026-08-21): `metrics/report.py` (`Report`,
`from_snapshot`, `to_json`), `docs/metrics/report_design.md`, the metrics aggregator
(`async_utils/services/metrics_aggregator/aggregator.py`, `metrics_table.py`, `registry.py`),
`load_generator/session.py` and `commands/benchmark/{execute,pipeline}.py`; earlier shapes from
the same history (2a60f634, April 2026, and c60b6545's `metrics/reporter.py`).

- Each `inference-endpoint benchmark` run writes one `performance/result_summary.json` (before
  April 2026, `result_summary.json` in the report directory) beside `config.yaml`: one file per
  load point, no other per-point file. It is flat JSON: `version`, `git_sha`, `n_samples_issued`,
  `n_samples_completed`, `n_samples_failed`, `duration_ns`, `state` and `complete` (since May
  2026), the series `ttft`, `tpot`, `latency`, `output_sequence_lengths`, `input_sequence_lengths`
  (since August 2026), `qps` and `tps` (written since June 2026), `legacy_loadgen_window_duration_ns`,
  `finish_reason_counts`, `run_config` (`load_pattern`, `warmup`, seeds; since July 2026).
- Counts cover the performance phase only (warm-up and accuracy phases are not tracked). A failed
  request is completed too (the client publishes ERROR, then COMPLETE), so the requests that
  succeeded are n_samples_completed - n_samples_failed; the latency series time every completed
  request, the failed ones included.
- `duration_ns` is the tracked window: from the start of the performance phase, as the client
  begins issuing, to the completion of the last tracked request. `qps` = completed / duration and
  `tps` = output tokens / duration, unless the run used the legacy LoadGen window (poisson only):
  then both are over `legacy_loadgen_window_duration_ns` and `tps` is not E / T.
- Series are in nanoseconds (tokens for the lengths): `total`, `min`, `max`, `median`, `avg`,
  `std_dev`, `percentiles` keyed "50.0", "90.0", "99.0" ("50", "90", "99" before April 2026),
  `histogram`. `tpot` is (completion - first chunk) / output tokens after the first chunk.
- `output_sequence_lengths.total` is E: the client re-tokenises each response (text, or reasoning
  and tool calls through the chat template) with the benchmark's tokenizer, not the server's usage.
  A report with `complete` false (drain timed out, interrupted) may miss pending tokenizations, so
  E is then left unstated.
- `run_config.load_pattern`: `type` concurrency (`target_concurrency`, a closed loop), poisson
  (`target_qps`, an open loop), max_throughput (every query at once, offline) or agentic_inference.
- The file names no model or tokenizer (`config.yaml` beside it does) and no command line.
- Record 1.2: `run_config.warmup` (`WarmupConfig` in `config/schema.py`: `enabled`, `n_requests`,
  `salt`, `drain`) becomes `interval.warmup`, excluded: the warm-up "runs before the performance
  phase; results are not recorded". Its `salt` salts the warm-up prompts only, so it says nothing
  about the measured queries (the agentic dataset's `enable_salt` is not in this file): `salted` is
  left unstated. TTFT is taken at the first non-empty streamed fragment, text or reasoning
  (`openai/accumulator.py` at 00598fb9: the first `delta.content` or `delta.reasoning`), which is
  `latency.ttft_definition` first-fragment-any-kind.

Read against the published MLPerf Inference v6.1 results (mlcommons/inference_results_v6.1 at
e777c7be, closed/NVIDIA/results/VR-NVL72_VR-288GB_aarch64x72_TRT/deepseek-r1/Interactive/performance/
result_summary.json: version 0.1.0, git_sha null, `test_started_at`, `state` complete, poisson on the
legacy LoadGen window, no input_sequence_lengths or finish_reason_counts). Its percentiles are sample
values (nanosecond integers, median = p50): the aggregator's exact path (`registry.py`
`SeriesSampler._exact_stat`, run for a COMPLETE report) takes the lower ranked value (numpy
method="lower"), recorded as each figure's `method`; an interrupted report keeps its live HDR
estimates and a file before `state` (May 2026) does not say, so their method is left unstated. `early_stopping_percentiles` (p50 and up,
null under a percentile's floor) are MLPerf's early-stopping estimates, the bounds its latency limits
are checked against: a note, never the record's percentiles. Each series' `histogram` (`buckets`
[lo, hi] pairs and `counts`) is checked for its shape; the latency one counts every completed request.
The file is not copied into the project: the test builds one of that shape with other numbers. The `system_tps` and `tps_per_user` of the MLPerf Endpoints rules
(issue 27) are not keys of this file or names in this repository at that commit: `tps` is the
system figure; no per-user figure is written.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from .common import Imported, ImportProblem, count, drop_none, number, read_json_document, source

FORMAT = "mlperf-endpoints"
RETOKENISED = (
    "MLPerf Endpoints counts output tokens by re-tokenising each response with the benchmark's tokenizer, "
    "not from the server's usage, so E can differ from the server's count."
)
INTERVAL = {
    "start_event": "performance phase started by the client, as it begins issuing requests",
    "end_event": "last tracked response completed at the client",
    "scope": "end-to-end",
    "measurement": "complete-interval",
}


def _series(d: dict, key: str, path: Path) -> dict:
    value = d.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ImportProblem(f"{path}: {key}: not an object")
    return value


def _ns_to_ms(value: Any) -> float | None:
    v = number(value)
    return None if v is None else float(Fraction(repr(v)) / 10**6)


def _percentile(series: dict, p: int) -> Any:
    perc = v if isinstance(v := series.get("percentiles"), dict) else {}
    for key in (f"{p}.0", str(p)):
        if key in perc:
            return perc[key]
    return series.get("median") if p == 50 else None


def _latency(series: dict, exact: bool) -> dict | None:
    out: dict[str, Any] = {"mean": _ns_to_ms(series.get("avg"))}
    for p in (50, 90, 95, 99):
        out[f"p{p}"] = _ns_to_ms(_percentile(series, p))
    out = {k: v for k, v in out.items() if v is not None}
    if exact and any(k.startswith("p") for k in out):
        out["method"] = "lower"  # the complete report ranks the exact samples and takes the lower (module docstring)
    return out or None


# The series MLPerf's latency limits apply to, as they are named in its text report.
_LIMITED = (("ttft", "TTFT"), ("tpot", "TPOT"), ("latency", "latency"))


def _early_stopping(d: dict, path: Path) -> str | None:
    """MLPerf's early-stopping estimates, the figures its latency limits are checked against, as a note."""
    parts = []
    for key, name in _LIMITED:
        es = _series(d, key, path).get("early_stopping_percentiles")
        if not isinstance(es, dict):
            continue
        shown = []
        for p in ("90.0", "95.0", "99.0"):
            if p in es:
                ms = _ns_to_ms(es[p])
                shown.append(f"p{p.removesuffix('.0')} {'none (too few requests for it)' if ms is None else f'{ms!r} ms'}")
        if shown:
            parts.append(f"{name} {', '.join(shown)}")
    if not parts:
        return None
    return (
        "MLPerf's early-stopping estimates (early_stopping_percentiles: upper bounds at 99% confidence, which MLPerf checks "
        f"its latency limits against, not the percentiles above): {'; '.join(parts)}."
    )


def _histograms(d: dict, path: Path, completed: int) -> list[str]:
    """Each series' histogram checked for its shape; the latency series times every completed request."""
    notes = []
    for key in ("ttft", "tpot", "latency", "output_sequence_lengths", "input_sequence_lengths"):
        hist = _series(d, key, path).get("histogram")
        if hist is None or hist == []:
            continue
        buckets = hist.get("buckets") if isinstance(hist, dict) else None
        counts = hist.get("counts") if isinstance(hist, dict) else None
        if not isinstance(buckets, list) or not isinstance(counts, list) or len(buckets) != len(counts):
            raise ImportProblem(f"{path}: {key}.histogram: not buckets and counts of the same length")
        if any(count(c) is None for c in counts):
            raise ImportProblem(f"{path}: {key}.histogram.counts: not whole numbers of requests")
        if key == "latency" and sum(counts) != completed:
            notes.append(
                f"The latency histogram counts {sum(counts)} requests, not the {completed} completed (n_samples_completed): "
                "its figures may not cover every request."
            )
    return notes


def _load(run_config: dict) -> tuple[dict, str | None]:
    pattern = v if isinstance(v := run_config.get("load_pattern"), dict) else {}
    kind = pattern.get("type")
    if kind == "concurrency" and count(pattern.get("target_concurrency")):
        return {"concurrency": count(pattern.get("target_concurrency")), "loop": "closed"}, None
    if kind == "poisson" and number(pattern.get("target_qps")):
        return {"request_rate": number(pattern.get("target_qps")), "loop": "open"}, None
    if kind == "max_throughput":
        return {}, "load_pattern max_throughput issues every query at once (offline): the load is left unstated."
    if isinstance(kind, str) and kind:
        return {}, f"load_pattern {kind}: neither a fixed concurrency nor a request rate, so the load is left unstated."
    return {}, "The file has no run_config.load_pattern (written since July 2026): the load is left unstated."


def _version(d: dict) -> str | None:
    version = d.get("version") if isinstance(d.get("version"), str) and d.get("version") not in ("", "unknown") else None
    sha = d.get("git_sha") if isinstance(d.get("git_sha"), str) and d.get("git_sha") else None
    if version and sha:
        return f"{version} (git {sha})"
    return version or (f"git {sha}" if sha else None)


def import_file(path: Path) -> list[Imported]:
    d, sha = read_json_document(path, FORMAT)
    if not (isinstance(d, dict) and "n_samples_completed" in d and "n_samples_issued" in d):
        from .sniff import describe_guess

        raise ImportProblem(
            f"{path}: not an MLPerf Endpoints result summary (n_samples_issued, n_samples_completed), "
            f"so it is not {FORMAT} output{describe_guess(path, FORMAT)}"
        )
    issued, completed = count(d.get("n_samples_issued")), count(d.get("n_samples_completed"))
    failed = count(d.get("n_samples_failed", 0))
    for key, value in (("n_samples_issued", issued), ("n_samples_completed", completed), ("n_samples_failed", failed)):
        if value is None:
            raise ImportProblem(f"{path}: {key}: not a whole number of samples")
    assert issued is not None and completed is not None and failed is not None  # the loop above raised otherwise
    if failed > completed:
        raise ImportProblem(f"{path}: n_samples_failed ({failed}) is more than n_samples_completed ({completed}), which counts the failed ones too")
    succeeded = completed - failed
    run_config = v if isinstance(v := d.get("run_config"), dict) else {}
    notes = [RETOKENISED]

    duration_ns = d.get("duration_ns")
    duration = None
    if duration_ns is not None:
        ns = count(duration_ns)
        if ns is None:
            raise ImportProblem(f"{path}: duration_ns: not a whole number of nanoseconds")
        duration = float(Fraction(ns, 10**9)) or None
    if duration is None:
        notes.append("The file has no duration_ns, so the run has no interval.")

    # `state` (since May 2026): complete, or interrupted / drain timed out; `complete` says the same.
    incomplete = d.get("complete") is False or (isinstance(d.get("state"), str) and d.get("state") != "complete")
    osl = _series(d, "output_sequence_lengths", path)
    emitted = None
    if osl:
        emitted = count(osl.get("total"))
        if emitted is None:
            raise ImportProblem(f"{path}: output_sequence_lengths.total: not a whole number of tokens")
    if incomplete:
        notes.append(
            f"The report is marked incomplete (state {d.get('state')!s}, complete false): its token series may miss "
            "pending tokenizations, so E is left unstated."
        )
        emitted = None
    elif not osl:
        notes.append("output_sequence_lengths is empty (no output tokens were counted), so E is left unstated.")

    if failed:
        notes.append(
            f"{failed} of {completed} completed requests failed (n_samples_failed): they are not in the request count, "
            "but Endpoints' latency series include them."
        )
    if issued > completed:
        notes.append(f"{issued - completed} of {issued} requests issued in the performance phase never completed.")
    load, load_note = _load(run_config)
    if load_note:
        notes.append(load_note)
    warmup = v if isinstance(v := run_config.get("warmup"), dict) else {}
    warmup_fields = None
    if warmup.get("enabled") is True:
        n = count(warmup.get("n_requests"))
        notes.append(f"A warm-up of {f'{n} requests' if n else 'the dataset once'} ran before the performance phase and is not counted.")
        if warmup.get("drain") is False:
            notes.append("The warm-up was not drained (drain false): its last requests may still have been in flight as the measured phase began.")
        warmup_fields = {"requests": n, "excluded": True}
    legacy = count(d.get("legacy_loadgen_window_duration_ns"))
    tps = number(d.get("tps"))
    if legacy:
        notes.append(
            f"qps and tps are over the legacy MLPerf LoadGen window ({float(Fraction(legacy, 10**9))!r} s, first request "
            f"issued to completion of the last-issued one), not duration_ns: tps {tps!r} is kept as a note only."
        )
        tps = None
    # The exact path (sorted samples, method "lower") runs for a COMPLETE report only; a report cut
    # short keeps the live HDR histogram's estimates, and a file before `state` does not say.
    exact = d.get("state") == "complete"
    if incomplete:
        notes.append("Its percentiles are the live HDR histogram's estimates (the exact ones are computed only for a complete run).")
    notes.extend(_histograms(d, path, completed))
    early = _early_stopping(d, path)
    if early:
        notes.append(early)
    reasons = v if isinstance(v := d.get("finish_reason_counts"), dict) else {}
    shown = [f"{k} {count(v)}" for k, v in reasons.items() if count(v)]
    if shown:
        notes.append(f"Finish reasons: {', '.join(shown)}.")
    notes.append("The result summary names no model or tokenizer (config.yaml beside it does).")

    fields = {
        "workload": {
            "num_requests": succeeded,
            # Issued but not succeeded: failed, or never completed before the run ended.
            "requests_sent": issued,
            "requests_failed": issued - succeeded if issued >= succeeded else None,
            "input_tokens_mean": number(_series(d, "input_sequence_lengths", path).get("avg")),
            "output_tokens_mean": number(osl.get("avg")),
        },
        "load": load,
        "interval": {**INTERVAL, "duration_s": duration, "warmup": warmup_fields} if duration is not None else None,
        "counts": {"emitted_tokens": emitted, "population": "benchmark-requests"},
        "latency": {
            "ttft_ms": (ttft := _latency(_series(d, "ttft", path), exact)),
            "ttft_definition": "first-fragment-any-kind" if ttft else None,
            "tpot_ms": _latency(_series(d, "tpot", path), exact),
            "e2e_ms": _latency(_series(d, "latency", path), exact),
        },
        "reported": {"output_tokens_per_s": tps if emitted is not None else None},
        "notes": " ".join(notes),
    }
    return [Imported(fields=drop_none(fields), source=source(FORMAT, path, sha, _version(d)), speculative=False)]
