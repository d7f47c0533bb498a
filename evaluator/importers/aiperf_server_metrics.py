"""aiperf-server-metrics: AIPerf's server_metrics_export.json, the server's own Prometheus counters as
AIPerf scraped them through the run (on by default since 0.12; `--server-metrics URL`), split into its
phases: `metrics` for the profiling phase (`metrics_phase`), `warmup_metrics` for the warm-up.

Read from the files AIPerf 0.13.0 wrote against llama-server (tests/importers/test_tools_live.py) and
its ServerMetricsJsonExporter: {"schema_version", "aiperf_version", "benchmark_id", "summary":
{"endpoints_configured", "start_time", "end_time", "endpoint_info", "phase_time_ranges":
{"profiling": {"start_ns", "end_ns"}, "warmup": {...}}}, "metrics_phase", "metrics": {name: {"type",
"description", "series": [{"endpoint_url", "labels"?, "stats": {...}}]}}, "warmup_metrics", ...}.
A counter's name drops Prometheus' `_total` suffix, and its stats are {"total" (its rise over the
phase), "rate"}; a gauge's are avg, min, max and percentiles.

S, P, A, the per-position acceptance and E are the counters' totals over the profiling phase, summed
over series (endpoints, engines, labels), for the servers vllm_metrics knows (vLLM, llama.cpp). The
interval is the profiling phase's own time range, the window AIPerf 0.13 divides its rates by; the
warm-up phase is left out and its counts said. Server counters count every request the server
handled, so alone the population is server-wide; beside its AIPerf summary (`sdeval import aiperf
SUMMARY --server-metrics FILE`) the two E are compared, and where they agree the server served only
AIPerf's requests, so its S, P and A are the benchmark's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .common import Imported, ImportProblem, count, read_json_document, source
from .vllm_metrics import LLAMACPP, VLLM, Server

FORMAT = "aiperf-server-metrics"
COUNTERS = (("drafts", "verification_steps"), ("draft_tokens", "proposed_drafts"), ("accepted", "accepted_drafts"), ("generated", "emitted_tokens"))


def _name(server: Server, field: str) -> str:
    """The counter's name as AIPerf writes it: the Prometheus name without `_total`."""
    return str(getattr(server, field)).removesuffix("_total")


def _server(path: Path, metrics: dict) -> Server:
    for server in (VLLM, LLAMACPP):
        if any(_name(server, field) in metrics for field, _ in COUNTERS):
            return server
    prefixes = sorted({name.split(":", 1)[0] + ":" for name in metrics if isinstance(name, str) and ":" in name})
    raise ImportProblem(
        f"{path}: metrics holds no vLLM (vllm:) or llama.cpp (llamacpp:) token counters"
        f"{' (only ' + ', '.join(prefixes) + ')' if prefixes else ''}, so it gives no S, P, A or E"
    )


def _total(path: Path, where: str, family: Any) -> tuple[int, dict[int, int]]:
    """A counter family's rise over the phase, summed over its series, and per `position` label."""
    if not isinstance(family, dict) or not isinstance(family.get("series"), list):
        raise ImportProblem(f"{path}: {where} is not a metric with a series list")
    if family.get("type") != "counter":
        raise ImportProblem(f"{path}: {where} is of type {family.get('type')!r}, not a counter")
    total, per_position = 0, dict[int, int]()
    for i, series in enumerate(family["series"]):
        stats = series.get("stats") if isinstance(series, dict) else None
        value = count(stats.get("total")) if isinstance(stats, dict) else None
        if value is None:
            raise ImportProblem(f"{path}: {where}.series[{i}].stats.total is not a whole count")
        total += value
        labels = series.get("labels") or {}
        if not isinstance(labels, dict):  # a position it holds would be lost, the per-position counts wrong
            raise ImportProblem(f"{path}: {where}.series[{i}].labels is not an object")
        position = labels.get("position")
        if position is not None:
            if not str(position).isdigit():
                raise ImportProblem(f"{path}: {where}.series[{i}] has position {position!r}")
            per_position[int(position)] = per_position.get(int(position), 0) + value
    return total, per_position


def phase_counts(path: Path, metrics: dict, where: str, server: Server) -> dict[str, Any]:
    """S, P, A, E and the accepted drafts per position, over one phase."""
    counts: dict[str, Any] = {}
    for attr, field in COUNTERS:
        name = _name(server, attr)
        if name in metrics:
            counts[field] = _total(path, f"{where}.{name}", metrics[name])[0]
    name = _name(server, "per_position")
    if name in metrics:
        _, positions = _total(path, f"{where}.{name}", metrics[name])
        if positions:
            counts["accepted_per_position"] = [positions.get(p, 0) for p in range(max(positions) + 1)]
    return counts


def speculated(server: Server, counts: dict) -> bool:
    # llama.cpp writes its speculative counters at zero without a draft model: it speculated if it drafted.
    if server is LLAMACPP:
        return bool(counts.get("verification_steps")) or "accepted_per_position" in counts
    return any(k in counts for k in ("verification_steps", "proposed_drafts", "accepted_drafts"))


def _window_s(path: Path, summary: dict) -> float:
    ranges = summary.get("phase_time_ranges")
    profiling = ranges.get("profiling") if isinstance(ranges, dict) else None
    start, end = (count(profiling.get(k)) for k in ("start_ns", "end_ns")) if isinstance(profiling, dict) else (None, None)
    if start is None or end is None or end <= start:
        raise ImportProblem(f"{path}: summary.phase_time_ranges.profiling has no start_ns and later end_ns, so the phase's interval is unknown")
    return (end - start) / 1e9


def read(path: Path) -> tuple[dict, str, Server, dict[str, Any], dict[str, Any] | None]:
    """(the export, its sha256, the server, the profiling phase's counts, the warm-up's or None)."""
    data, sha = read_json_document(path, FORMAT)
    if isinstance(data, dict) and isinstance(data.get("data"), dict) and isinstance(data.get("phase"), dict):
        raise ImportProblem(
            f"{path}: AIPerf's server metrics of one phase (phases/NAME/server_metrics.json, phase {data['phase'].get('phase_name')!r}); "
            "import the run's server_metrics_export.json, which keeps the profiling phase and the warm-up apart"
        )
    if not (isinstance(data, dict) and isinstance(data.get("metrics"), dict) and isinstance(data.get("summary"), dict)):
        from .sniff import describe_guess

        raise ImportProblem(
            f'{path}: has no "metrics" and "summary" objects, so it is not AIPerf\'s server_metrics_export.json{describe_guess(path, FORMAT)}'
        )
    if data.get("metrics_phase") != "profiling":
        raise ImportProblem(f"{path}: metrics_phase is {data.get('metrics_phase')!r}: sdeval reads the profiling phase's metrics only")
    server = _server(path, data["metrics"])
    counts = phase_counts(path, data["metrics"], "metrics", server)
    warm = data.get("warmup_metrics")
    warmup = phase_counts(path, warm, "warmup_metrics", server) if isinstance(warm, dict) and warm else None
    return data, sha, server, counts, warmup


def warmup_note(warmup: dict[str, Any] | None) -> str | None:
    if not warmup:
        return None
    shown = ", ".join(f"{field.replace('_', ' ')} {warmup[field]}" for _, field in COUNTERS if field in warmup)
    return f"AIPerf's warm-up phase is left out of the counts (the server counted {shown} in it)."


def import_file(path: Path) -> list[Imported]:
    data, sha, server, counts, warmup = read(path)
    seconds = _window_s(path, data["summary"])
    speculative = speculated(server, counts)
    if not speculative:
        for field in ("verification_steps", "proposed_drafts", "accepted_drafts", "accepted_per_position"):
            counts.pop(field, None)
    from .aiperf_window import PROFILING_WINDOW

    notes = [
        f"The server's own counters ({server.prefix}) over AIPerf's profiling phase, as AIPerf scraped them: every request the server "
        "handled in that time, not only AIPerf's (import the summary with --server-metrics to compare them).",
        warmup_note(warmup),
    ]
    fields = {
        "interval": {**PROFILING_WINDOW, "duration_s": seconds},
        "counts": {**counts, "population": "server-wide"},
        "notes": " ".join(n for n in notes if n),
    }
    return [Imported(fields=fields, source=source(FORMAT, path, sha, data.get("aiperf_version")), speculative=speculative)]


def beside_summary(item: Imported, summary: dict, path: Path) -> Imported:
    """An AIPerf summary's run with the server's counters of its profiling phase from `path`
    (`sdeval import aiperf SUMMARY --server-metrics FILE`): S, P and A are the server's, and E is
    compared, as the population check says."""
    data, sha, server, counts, warmup = read(path)
    ours, theirs = summary.get("benchmark_id"), data.get("benchmark_id")
    if isinstance(ours, str) and isinstance(theirs, str) and ours != theirs:
        raise ImportProblem(f"{path}: benchmark_id {theirs} is not the summary's ({ours}): the server metrics are of another AIPerf run")
    fields = dict(item.fields)
    bench = dict(fields.get("counts") or {})
    checks = []
    if bench.get("emitted_tokens") is not None and "emitted_tokens" in counts:
        checks.append({"count": "output-tokens", "benchmark": bench["emitted_tokens"], "server": counts["emitted_tokens"]})
    for name, field in (("verification-steps", "verification_steps"), ("proposed-drafts", "proposed_drafts"), ("accepted-drafts", "accepted_drafts")):
        if bench.get(field) is not None and field in counts:
            checks.append({"count": name, "benchmark": bench[field], "server": counts[field]})
    if not checks:
        raise ImportProblem(
            f"{path}: the server's counters give no output tokens to compare with the summary's, so they cannot show whom the server served"
        )
    settled = all(c["benchmark"] == c["server"] for c in checks)
    speculative = speculated(server, counts)
    if speculative:
        for field in ("verification_steps", "proposed_drafts", "accepted_drafts", "accepted_per_position"):
            if field in counts:
                bench[field] = counts[field]
        for field in ("requests_with_metrics", "requests_without_metrics", "missing_metrics_as"):
            bench.pop(field, None)  # the server counted every request, covered or not
    bench["population"] = "benchmark-requests" if settled or not speculative else "mixed"
    bench["population_check"] = checks
    fields["counts"] = bench
    shown = "; ".join(f"{c['count'].replace('-', ' ')} {c['benchmark']} in the summary, {c['server']} on the server" for c in checks)
    verdict = (
        f"The server's counters over AIPerf's profiling phase ({path.name}) match the summary's ({shown}): it served only AIPerf's requests"
        + (", so S, P and A are its counters'." if speculative else ".")
        if settled
        else f"The server's counters over AIPerf's profiling phase ({path.name}) do not match the summary's ({shown}): it served other requests too."
    )
    fields["notes"] = " ".join(n for n in (fields.get("notes"), verdict, warmup_note(warmup)) if n)
    origin = {**item.source, "server_scrapes": [{"file": path.name, "sha256": sha}]}
    return Imported(fields=fields, source=origin, speculative=item.speculative or speculative)
