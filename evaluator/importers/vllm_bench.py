"""vllm-bench: `vllm bench serve --save-result` JSON, or the `--append-result` form (one object a line).

Keys follow vllm/benchmarks/serve.py. The load as configured (`max_concurrency`,
`request_rate`) and the peak actually measured (`max_concurrent_requests`) are kept apart.
The spec_decode_* keys are deltas of the server's counters taken around the run, so they are
server-wide, while total_output_tokens counts the benchmark's own requests: a run with both
is marked population "mixed". spec_decode_acceptance_rate is a percentage; it is kept as a
fraction in `reported`, next to the tool's acceptance length and output throughput.

With `--metrics BEFORE AFTER` (vLLM /metrics scrapes taken just before and just after the
benchmark) the population is settled: when the server's own counters show it served only the
benchmark's requests (requests finished = the benchmark's completed + failed, generation tokens =
total_output_tokens, nothing left running or waiting, and its speculative deltas equal the
result's), the speculative counts are the benchmark's and the population is "benchmark-requests";
otherwise every comparison goes to `counts.population_check`, so `coverage-gap` names which
count disagrees and by how much. `vllm bench serve` sends one test prompt before the run unless
`--ready-check-timeout-sec 0`, and `--num-warmups` more (vllm/benchmarks/serve.py `benchmark()`,
commit 009e6d4a): scrapes around the whole command count those too.

Simulated acceptance: a result records the server's speculative config only where a caller put
it there: `vllm bench sweep` merges the serve parameters it varied into each result
(vllm/benchmarks/sweep/serve.py `_update_run_data`, as `speculative_config` or dotted
`speculative_config.rejection_sample_method`), and `--metadata KEY=VALUE` adds top-level keys.
`rejection_sample_method: "synthetic"` there (vLLM's synthetic rejection sampler, PR #40662)
marks the run's acceptance as forced, with `synthetic_acceptance_length` when given.

Goodput: with `--save-detailed` a result lists each request's `ttfts`, `latencies` (seconds) and
`output_lens`, aligned with `errors`; the completed requests' TTFT, end-to-end latency and TPOT
((latency - TTFT) / (output tokens - 1), 0 for one token, as vLLM counts it for goodput) become
`request_latencies`, so goodput can be counted at a buyer's own limits. `request_goodput` is counted
at the limits given to `vllm bench serve --goodput`, which the result does not record: it is kept
as `goodput` only when the same limits are given to the import (`--goodput ttft:MS,tpot:MS,e2el:MS`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .common import (
    CLIENT_WALL_CLOCK,
    Imported,
    ImportProblem,
    core,
    count,
    drop_none,
    import_entries,
    number,
    percent_to_fraction,
    serving_latency,
    serving_load,
)
from .sglang_bench import SGLANG_KEYS

FORMAT = "vllm-bench"
CORE_KEYS = ("duration", "completed", "total_output_tokens")


def _guess(path: Path) -> str:
    from .sniff import describe_guess

    return describe_guess(path, FORMAT)


def _sent(d: dict) -> int | None:
    prompts = count(d.get("num_prompts"))
    if prompts:
        return prompts
    completed, failed = count(d.get("completed")), count(d.get("failed"))
    return completed + (failed or 0) if completed is not None else None


def _failed(d: dict) -> int | None:
    """Requests sent that did not complete: `failed`, else num_prompts less completed (older
    benchmark_serving.py results have no `failed` key)."""
    failed = count(d.get("failed"))
    if failed is not None:
        return failed
    prompts, completed = count(d.get("num_prompts")), count(d.get("completed"))
    return prompts - completed if prompts is not None and completed is not None and prompts >= completed else None


def run_fields(d: dict, path: Path, entry: str | None) -> tuple[dict[str, Any], bool]:
    where = f"{path}{': ' + entry if entry else ''}"
    sglang = [k for k in SGLANG_KEYS if k in d]
    if sglang:
        raise ImportProblem(
            f"{where}: has {sglang[0]}, which only SGLang's bench_serving writes, so it is not {FORMAT} output; "
            f"it looks like sglang-bench output (try `sdeval import sglang-bench {path.name}`)"
        )
    missing = [k for k in CORE_KEYS if k not in d]
    if missing:
        raise ImportProblem(f"{where}: lacks {', '.join(missing)}, so it is not {FORMAT} output{_guess(path)}")
    completed = core(d, "completed", where)
    multi_turn = d.get("mode") == "multi_turn"
    # Multi-turn mode states its load as conversations in flight (multi_turn_concurrency).
    load, load_note = serving_load(d, _sent(d), "multi_turn_concurrency" if multi_turn else "max_concurrency")
    speculative = "spec_decode_num_drafts" in d or "spec_decode_draft_tokens" in d
    simulated = simulated_acceptance(d)
    counts: dict[str, Any] = {
        "emitted_tokens": core(d, "total_output_tokens", where),
        "verification_steps": core(d, "spec_decode_num_drafts", where),
        "proposed_drafts": core(d, "spec_decode_draft_tokens", where),
        "accepted_drafts": core(d, "spec_decode_accepted_tokens", where),
        "population": "mixed" if speculative else "benchmark-requests",
    }
    steps = counts["verification_steps"]
    per_pos = d.get("spec_decode_per_position_acceptance_rates")
    if steps and isinstance(per_pos, list):
        counts["accepted_per_position"] = _recover_counts(per_pos, steps)
    fields: dict[str, Any] = {
        "workload": {
            "num_requests": completed,
            # Sent and lost: num_prompts less completed where an older benchmark_serving.py has no `failed`.
            "requests_sent": _sent(d),
            "requests_failed": _failed(d),
            "input_tokens_mean": _mean(d.get("total_input_tokens"), completed),
            "output_tokens_mean": _mean(d.get("total_output_tokens"), completed),
        },
        "load": {**load, "measured_peak_concurrency": count(d.get("max_concurrent_requests"))},
        "interval": {**CLIENT_WALL_CLOCK, "duration_s": core(d, "duration", where, number) or None},
        "counts": counts,
        "latency": {m: serving_latency(d, k) for m, k in (("ttft_ms", "ttft"), ("tpot_ms", "tpot"), ("itl_ms", "itl"), ("e2e_ms", "e2el"))},
        "reported": {
            "acceptance_rate": percent_to_fraction(d.get("spec_decode_acceptance_rate")),
            "mean_acceptance_length": number(d.get("spec_decode_acceptance_length")),
            "output_tokens_per_s": number(d.get("output_throughput")),
        },
        "simulated_acceptance": simulated,
        "request_latencies": request_latencies(d, completed),
        "goodput": {"requests_per_s": number(d.get("request_goodput"))} if number(d.get("request_goodput")) is not None else None,
    }
    notes = [load_note]
    if multi_turn:
        notes.append(
            f"vllm bench serve multi-turn mode: {d.get('multi_turn_concurrency')} conversation(s) in flight; "
            f"{count(d.get('conversations_completed'))} conversation(s), {completed} requests (turns)."
        )
    if "run_number" in d:
        notes.append(f"From a vllm bench sweep summary: run_number {d['run_number']}.")
    if _failed(d):
        notes.append(f"{_failed(d)} of {_sent(d)} requests sent failed or did not complete and are not in the counts.")
    if speculative:
        notes.append(MIXED_NOTE)
    if any(notes):
        fields["notes"] = " ".join(n for n in notes if n)
    return drop_none(fields), speculative


def request_latencies(d: dict, completed: int | None) -> dict[str, list[float]] | None:
    """The completed requests' TTFT, TPOT and end-to-end latency in ms, from --save-detailed lists:
    one entry per request sent, aligned with `errors` (a request without an error completed); lists
    of only the completed requests (some forks write those) are taken as they are."""
    ttfts, latencies, lens, errors = (d.get(k) for k in ("ttfts", "latencies", "output_lens", "errors"))
    lists = [x for x in (ttfts, latencies, lens) if x is not None]
    if not lists or not all(isinstance(x, list) for x in lists) or len({len(x) for x in lists}) != 1:
        return None
    n = len(lists[0])
    if isinstance(errors, list) and len(errors) == n:
        keep = [i for i in range(n) if not errors[i]]
    elif n == completed:
        keep = list(range(n))
    else:
        return None

    def ms(values: list | None) -> list[float] | None:
        if values is None or not all(isinstance(values[i], (int, float)) for i in keep):
            return None
        return [round(values[i] * 1000, 6) for i in keep]  # to the nanosecond: no float noise

    tpot = None
    if ttfts is not None and latencies is not None and lens is not None and all(isinstance(lens[i], int) for i in keep):
        try:
            tpot = [round((latencies[i] - ttfts[i]) / (lens[i] - 1) * 1000, 6) if lens[i] > 1 else 0.0 for i in keep]
        except TypeError:
            tpot = None
    found = {"ttft_ms": ms(ttfts), "tpot_ms": tpot, "e2e_ms": ms(latencies)}
    return {k: v for k, v in found.items() if v is not None} or None


GOODPUT_DEFINITION = (
    "vllm bench serve --goodput: a request is good when each given metric is at or below its limit; request_goodput = good requests / duration"
)


def parse_goodput(spec: str) -> dict[str, float]:
    """`ttft:500,tpot:50,e2el:2000` (milliseconds, vllm bench serve's own --goodput syntax)."""
    names = {"ttft": "ttft_limit_ms", "tpot": "tpot_limit_ms", "e2el": "e2e_limit_ms"}
    limits: dict[str, float] = {}
    for part in spec.split(","):
        name, _, value = part.strip().partition(":")
        try:
            ms = float(value)
        except ValueError:
            ms = -1.0
        if name not in names or not 0 <= ms < 10**12 or names[name] in limits:
            raise ImportProblem(
                f"--goodput {spec!r}: write the limits as vllm bench serve takes them, for example ttft:500,tpot:50,e2el:2000 (milliseconds; ttft, tpot and e2el, each once)"
            )
        limits[names[name]] = ms
    return limits


def apply_goodput(imported: list[Imported], spec: str | None) -> None:
    """Keep each result's request_goodput with the limits it was counted at, or say why not."""
    limits = parse_goodput(spec) if spec is not None else None
    for item in imported:
        tool = item.fields.pop("goodput", None)
        where = item.source["file"] + (f": {item.source['entry']}" if item.source.get("entry") else "")
        if limits is not None:
            if tool is None:
                raise ImportProblem(
                    f"{where}: has no request_goodput (vllm bench serve was run without --goodput), so --goodput states limits for nothing"
                )
            item.fields["goodput"] = {**tool, **limits, "definition": GOODPUT_DEFINITION}
        elif tool is not None:
            item.warnings.append(
                f"{where}: request_goodput {tool['requests_per_s']} was not kept: the result does not record the limits "
                "it was counted at; pass the ones given to vllm bench serve, as --goodput ttft:MS,tpot:MS,e2el:MS"
            )


MIXED_NOTE = "spec_decode_* are server-counter deltas around the run (server-wide); total_output_tokens counts the benchmark's requests."
SYNTHETIC_KEYS = ("rejection_sample_method", "synthetic_acceptance_length", "synthetic_acceptance_rates")


def simulated_acceptance(d: dict) -> dict | None:
    """The synthetic rejection sampler's settings, where the result carries the speculative config."""
    config: dict[str, Any] = {}
    for key, value in d.items():
        name = key.replace("-", "_")
        if name == "speculative_config":
            if isinstance(value, str):
                try:
                    value = json.loads(value)
                except json.JSONDecodeError:
                    continue
            if isinstance(value, dict):
                config.update({k.replace("-", "_"): v for k, v in value.items()})
        elif name.startswith("speculative_config."):
            config[name.split(".", 1)[1]] = value
    if config.get("rejection_sample_method") != "synthetic":
        return None
    stated = {k: config[k] for k in SYNTHETIC_KEYS if k in config}
    return {
        "mechanism": "vLLM speculative_config " + json.dumps(stated, separators=(", ", ": ")),
        "acceptance_length": number(config.get("synthetic_acceptance_length")),
    }


def _mean(total: Any, n: int | None) -> float | None:
    t = number(total)
    return t / n if t is not None and n else None


def _recover_counts(rates: list, steps: int) -> list[int] | None:
    """vLLM reports per_pos[p] / drafts; with drafts known, the count is recovered exactly
    (a double holds the quotient to 1 part in 2**53, far below one step). Anything that does
    not come back to a whole number is left out rather than rounded."""
    out = []
    for r in rates:
        if number(r) is None:
            return None
        value = r * steps
        nearest = round(value)
        if abs(value - nearest) > 1e-6 * max(1, steps):
            return None
        out.append(int(nearest))
    return out


def import_file(path: Path, metrics: tuple[Path, Path] | None = None, goodput: str | None = None) -> list[Imported]:
    # `vllm bench sweep` writes each combination's summary.json as an array of bench-serve results.
    imported = import_entries(path, FORMAT, run_fields, arrays="vllm bench sweep summary.json")
    apply_goodput(imported, goodput)
    if metrics is None:
        return imported
    if len(imported) != 1:
        raise ImportProblem(
            f"{path}: holds {len(imported)} results, and --metrics BEFORE AFTER bracket one benchmark run; import each with its own scrapes"
        )
    from .common import read_json_document
    from .vllm_metrics import deltas

    item = imported[0]
    raw, _ = read_json_document(path, FORMAT) if item.source.get("entry") is None else (None, None)
    if raw is None:  # the one line of an --append-result file
        from .common import json_entries

        raw = json_entries(path, FORMAT)[0][0][1]
    scrapes = deltas(metrics[0], metrics[1])
    item.fields, item.speculative = settle_population(item.fields, raw, scrapes, path)
    item.source["server_scrapes"] = [
        {"file": metrics[0].name, "sha256": scrapes.before.sha256},
        {"file": metrics[1].name, "sha256": scrapes.after.sha256},
    ]
    return imported


SPEC_KEYS = (
    ("verification-steps", "verification_steps", "spec_decode_num_drafts"),
    ("proposed-drafts", "proposed_drafts", "spec_decode_draft_tokens"),
    ("accepted-drafts", "accepted_drafts", "spec_decode_accepted_tokens"),
)


def settle_population(fields: dict[str, Any], d: dict, scrapes, path: Path) -> tuple[dict[str, Any], bool]:
    """Set the benchmark's counts against the server's counters over the scrapes' interval."""
    bench_spec = "spec_decode_num_drafts" in d or "spec_decode_draft_tokens" in d
    if bench_spec and not scrapes.speculative:
        raise ImportProblem(
            f"{path}: has spec_decode_* figures but the scrapes {scrapes.after.path.name} and {scrapes.before.path.name} "
            "have no vllm:spec_decode_* counters; they are not of the server the benchmark ran against"
        )
    completed, failed = count(d.get("completed")), count(d.get("failed")) or 0
    checks: list[dict[str, Any]] = []
    if completed is not None and scrapes.finished_requests is not None:
        checks.append({"count": "requests", "benchmark": completed + failed, "server": scrapes.finished_requests})
    emitted = count(d.get("total_output_tokens"))
    if emitted is not None and "emitted_tokens" in scrapes.counts:
        checks.append({"count": "output-tokens", "benchmark": emitted, "server": scrapes.counts["emitted_tokens"]})
    if scrapes.in_flight_after is not None:
        checks.append({"count": "requests-in-flight", "benchmark": 0, "server": scrapes.in_flight_after})
    if bench_spec:
        for name, field, key in SPEC_KEYS:
            if count(d.get(key)) is not None and field in scrapes.counts:
                checks.append({"count": name, "benchmark": count(d[key]), "server": scrapes.counts[field]})
    if not any(c["count"] in ("requests", "output-tokens") for c in checks):
        raise ImportProblem(
            f"{path}: the scrapes lack vllm:request_success_total and vllm:generation_tokens_total, so they cannot show whom the server served"
        )
    settled = all(c["benchmark"] == c["server"] for c in checks)
    counts = dict(fields["counts"])
    if scrapes.speculative:
        for field in ("verification_steps", "proposed_drafts", "accepted_drafts", "accepted_per_position"):
            if field in scrapes.counts:
                counts[field] = scrapes.counts[field]
    counts["population"] = "benchmark-requests" if settled or not scrapes.speculative else "mixed"
    counts["population_check"] = checks
    fields = {**fields, "counts": counts}
    shown = "; ".join(f"{c['count'].replace('-', ' ')} {c['benchmark']} in the benchmark, {c['server']} on the server" for c in checks)
    if settled:
        verdict = f"The server's counters between the scrapes match the benchmark's ({shown}): it served only the benchmark's requests" + (
            ", so its speculative counters are the benchmark's." if scrapes.speculative else "."
        )
    else:
        verdict = f"The server's counters between the scrapes do not match the benchmark's ({shown}): it served other requests too."
    earlier = " ".join((fields.get("notes") or "").replace(MIXED_NOTE, "").split())
    fields["notes"] = f"{earlier} {verdict}".strip()
    return fields, bench_spec or scrapes.speculative
