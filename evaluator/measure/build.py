"""The evidence record (1.3), built from the capture alone: runs per arm and load, counts from the
servers' counter deltas settled against the client's own, latencies per request, the output-equality
quality result, and a first claim per speculative run (the schema wants one; `sdeval claim` adds more)."""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from typing import Any

from .._infra.safe_text import shown
from ..importers.vllm_metrics import SERVERS
from .capture import Capture, MeasureProblem
from .configuration import configuration
from .intervals import attach_uncertainty
from .measurement import MIN_PER_SLOT, counted_in, counting_interval, measurement, server_drafts
from .merge import split_note
from .per_task import attach_per_task
from .scrape import summed_deltas
from .task_windows import run_id, run_ids, window_key
from .uncertainty import WindowFigures

# The steady interval of each window (measurement.steady_interval), as the record states it.
STEADY_START = "c measured requests are first in flight: the c-th is sent, warm-up slots handed over without draining (client)"
STEADY_END = "the first slot with nothing left to send receives its last response's last byte (client)"
WHOLE_START, WHOLE_END = "the first measured request is sent (client)", "the last byte of the last measured response arrives (client)"
EITHER_START = f"per window, {STEADY_START}; in the windows the notes name, {WHOLE_START}"
EITHER_END = f"per window, {STEADY_END}; in the windows the notes name, {WHOLE_END}"
RECORD_VERSION = "1.3"  # 1.3: each run's `uncertainty` (intervals.py) and `measurement` (measurement.py)


def _percentiles(values: list[float], method: str) -> dict[str, Any] | None:
    if not values:
        return None
    ordered = sorted(values)

    def at(q: float) -> float:
        pos = (len(ordered) - 1) * q
        lo, hi = math.floor(pos), math.ceil(pos)
        if method == "lower":  # the lower of the two closest ranks (numpy method="lower", MLPerf Endpoints)
            return ordered[lo]
        return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)  # interpolated, numpy's default

    figures: dict[str, Any] = {
        k: round(v, 3) for k, v in (("mean", sum(ordered) / len(ordered)), ("p50", at(0.5)), ("p90", at(0.9)), ("p95", at(0.95)), ("p99", at(0.99)))
    }
    return {**figures, "method": method}


def request_times(r: dict) -> tuple[float, float, float]:
    """(TTFT, TPOT, end-to-end) in ms: from sending to the first content, and to the finishing chunk."""
    ttft = (r["first_token"] - r["sent"]) * 1000
    e2e = (r["finished"] - r["sent"]) * 1000
    n = r["completion_tokens"]
    tpot = (e2e - ttft) / (n - 1) if n > 1 else 0.0
    return round(ttft, 3), round(max(tpot, 0.0), 3), round(e2e, 3)


class Findings(list):
    """What the measurement found wrong; measure prints each and exits 1 when there are any."""


def build(capture: Capture, session: dict, arms: list[dict]) -> tuple[dict[str, Any], Findings, list[dict]]:
    entries = capture.entries()
    findings = Findings()
    windows, position = {}, {}
    for n, e in enumerate(entries):
        if e["kind"] == "window":
            windows[window_key(e)] = e
            position[window_key(e)] = n
    # each window's place in the order measured, every arm and load (shows whether arms were interleaved)
    sequence = {key: n for n, key in enumerate(sorted(windows, key=position.__getitem__))}
    # interleaved only where one call measured every arm of the record so; an arm added by --append is arm by arm
    orders = {
        arm: e["order"] if set(e["arms"]) >= {a["name"] for a in arms} else "arm-by-arm" for e in entries if e["kind"] == "call" for arm in e["arms"]
    }
    requests: dict[tuple, list[dict]] = defaultdict(list)
    warmups: dict[tuple, list[dict]] = defaultdict(list)  # inside the scrapes' span where the window did not drain
    for e in entries:
        key = window_key(e)
        if e["kind"] == "window-start":
            requests[key], warmups[key] = [], []  # an earlier, unfinished attempt at this window is left out
        elif e["kind"] == "request" and key in windows:
            (warmups if e["warmup"] else requests)[key].append(e)
    configurations = [_configuration(arm, session["settings"]) for arm in arms]
    runs, table = [], []
    # One group of windows per task measured in its own windows (--per-task-windows), or the one
    # group of a mixed capture (task None): each group's runs are paired, checked and given their
    # intervals among themselves only, so no pair crosses tasks.
    suffixes = run_ids(key[3] for key in windows)
    for task in sorted({key[3] for key in windows}, key=lambda t: t or ""):
        group, said = _group(
            capture, session, arms, task, ({k[:3]: v for k, v in d.items() if k[3] == task} for d in (windows, requests, warmups, sequence)), orders
        )
        for run in group[0]:
            _name_task_run(run, suffixes[task])
        runs += group[0]
        table += group[1]
        findings += [f"task {shown(task)}: {finding}" if task is not None else finding for finding in said]
    if not runs:
        raise MeasureProblem(f"{capture.log}: holds no finished measurement window")
    measured = [r for key in windows for r in requests[key]]
    if measured and all(r["outcome"] != "completed" for r in measured):
        raise MeasureProblem(_none_completed(measured, capture))
    placed = sorted(range(len(runs)), key=lambda i: ([a["name"] for a in arms].index(runs[i]["configuration"]), runs[i]["load"]["concurrency"]))
    return _record(configurations, [runs[i] for i in placed], session), findings, [table[i] for i in placed]


def _none_completed(measured: list[dict], capture: Capture) -> str:
    """Why there is no record, in one line: the failures by kind and the first one's reason."""
    kinds = Counter(r["outcome"] for r in measured)
    first = measured[0]
    return (
        f"no request completed ({len(measured)} of {len(measured)} failed: {', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))}; "
        f"the first: {first['outcome']}: {shown(first['detail'][:300])}), so there is nothing to write a record about; "
        f"every attempt is in {capture.dir}"
    )


def _group(capture: Capture, session: dict, arms: list[dict], task: str | None, views, orders: dict) -> tuple[tuple[list, list], Findings]:
    """The runs (and their rows of the end-of-run table) of one group of windows, each window keyed
    by (arm, concurrency, repetition): a task's own windows, or every window of a mixed capture."""
    windows, requests, warmups, sequence = views
    settings = session["settings"]
    findings = Findings()
    runs, table = [], []
    outputs: dict[tuple, tuple] = {}  # (arm, concurrency, repetition, index) -> (salt, text), for the equality check
    for arm in arms:
        for c in settings["concurrencies"]:
            reps = [(rep, windows[(arm["name"], c, rep)]) for rep in range(settings["repetitions"]) if (arm["name"], c, rep) in windows]
            if not reps:
                continue
            run, row, whole_span = _run(capture, arm, c, reps, requests, settings, session, findings, outputs, warmups)
            if task is not None:  # every window of the run sent only this task's prompts
                run["workload"]["task"] = task
                run["notes"] += f" Per-task windows (--per-task-windows): every window of this run sent only {task}'s prompts."
            run["measurement"] = measurement(arm["name"], c, reps, requests, session, sequence, orders.get(arm["name"], "arm-by-arm"), findings)
            run["measurement"].update(whole_span)
            if row["preempted"] is not None:
                run["measurement"]["preempted_requests"] = row["preempted"]
                if row["preempted"]:
                    findings.append(
                        f"{arm['name']} c={c}: the server preempted {row['preempted']} requests during the windows: the run was slowed by memory pressure, not only by the offer"
                    )
            runs.append(run)
            table.append(row)
    _equality(runs, arms, outputs, settings)
    attach_uncertainty(runs, arms, window_figures(windows, requests))
    attach_per_task(runs, arms, sorted(windows), requests, settings.get("percentile_method", "linear"), request_times)
    for run, row in zip(runs, table):
        row["uncertainty"] = run.get("uncertainty")
        row["per_task"] = run.get("per_task")
    return (runs, table), findings


def _name_task_run(run: dict, suffix: str) -> None:
    """A task's run (--per-task-windows) takes the task in its id, and so does the baseline run its
    speedups name (intervals.py and per_task.py name it by arm and load: the same task's run)."""
    if not suffix:
        return
    run["id"] += suffix
    blocks = [(run.get("uncertainty") or {}).get("speedup"), *(t.get("speedup") for t in (run.get("per_task") or {}).get("tasks", []))]
    for block in blocks:
        if block is not None:
            block["baseline_run"] += suffix


def steady_part(measured: list[dict], c: int, window: dict) -> tuple[list[dict], int, bool]:
    """The completed requests counted in the window's steady interval, its length in microseconds
    (a fixed resolution, so the repetitions add up exactly to the run's interval), and whether it
    is the steady interval (measurement.py) or, for a window too short for one, the whole window
    (first send to last byte)."""
    interval = counting_interval(measured, c)
    if interval is None:
        return [r for r in measured if r["outcome"] == "completed"], window["duration_us"], False
    return [r for r in measured if counted_in(r, interval)], max(1, round((interval[1] - interval[0]) * 1e6)), True


def window_figures(windows: dict[tuple, dict], requests: dict[tuple, list[dict]]) -> list[WindowFigures]:
    """Each finished window's figures, for the intervals (uncertainty.py): E / T over its steady
    interval, the latencies of all its completed requests."""
    out = []
    for (arm, c, rep), window in sorted(windows.items()):
        done = [r for r in requests.get((arm, c, rep), []) if r["outcome"] == "completed"]
        steady, micros, _ = steady_part(requests.get((arm, c, rep), []), c, window)
        times = [request_times(r) for r in done]
        out.append(
            WindowFigures(
                arm=arm,
                concurrency=c,
                repetition=rep,
                emitted_tokens=sum(r["completion_tokens"] for r in steady),
                seconds=micros / 1e6,
                ttft_ms=tuple(t[0] for t in times),
                tpot_ms=tuple(t[1] for t in times),
                prompt_ids=tuple(r["prompt"] for r in done),
            )
        )
    return out


def _configuration(arm: dict, settings: dict) -> dict:
    return configuration(arm["name"], arm["arrangement"], arm["models"][0], arm.get("configuration"), settings)


def _run(capture, arm, c, reps, requests, settings, session, findings: Findings, outputs, warmups) -> tuple[dict, dict, dict]:
    """The run of one arm at one load, its row of the end-of-run table, and what its measurement
    block says of the windows' drain and of the whole span the server's scrapes cover."""
    name = arm["name"]
    speculative = arm["arrangement"] == "speculative"
    completed: list[dict] = []
    steady: list[dict] = []  # the completed requests counted in the windows' steady intervals
    failures: defaultdict[str, int] = defaultdict(int)
    repetitions, models = [], set()
    totals: dict[str, Any] = defaultdict(int)
    per_position: list[int] = []
    checks = {k: [0, 0] for k in ("output-tokens", "requests-in-flight", "requests", "proposed-drafts", "accepted-drafts")}
    have: set[str] = set()  # the counts and checks the server's metrics gave
    unreadable: list[str] = []  # windows whose counters cannot be differenced
    whole_windows: list[str] = []  # windows that never had c requests in flight: their whole span is counted
    spanned_requests, spanned_tokens = 0, 0  # what the scrapes' span held on the client's side
    drains: set[bool] = set()
    duration_us = 0
    preempted: int | None = None  # vLLM's preemptions over the run's windows, where it exports them
    for rep, window in reps:
        measured = requests[(name, c, rep)]
        done = [r for r in measured if r["outcome"] == "completed"]
        for r in measured:
            if r["outcome"] != "completed":
                failures[r["outcome"]] += 1
                findings.append(f"{name} c={c} repetition {rep + 1} of {len(reps)}: request {r['index']} {r['outcome']}: {shown(r['detail'])}")
            if r.get("model"):
                models.add(r["model"])
        for r in done:
            outputs[(name, c, rep, r["index"])] = (r.get("salt"), r["text"])
        inside, micros, is_steady = steady_part(measured, c, window)
        if not is_steady:
            whole_windows.append(f"repetition {rep + 1}")
        emitted = sum(r["completion_tokens"] for r in inside)
        completed += done
        steady += inside
        repetitions.append({"emitted_tokens": emitted, "duration_s": micros / 1e6})
        duration_us += micros
        # The scrapes span the measured requests and, where the window did not drain (loop.py),
        # its warm-up as well: the client's side of the population check is what they span.
        drained = window.get("drain", True)
        drains.add(drained)
        sent = measured + ([] if drained else warmups[(name, c, rep)])
        spanned = [r for r in sent if r["outcome"] == "completed"]
        if window.get("scrape_problem"):  # a scrape failed mid-run (unreachable, too slow, too large)
            unreadable.append(f"repetition {rep + 1} ({shown(window['scrape_problem'])})")
        elif window.get("scrapes", {}).get("after"):
            server = SERVERS[window["metrics_format"]]
            befores, afters = ([w] if isinstance(w, str) else w for w in (window["scrapes"]["before"], window["scrapes"]["after"]))
            try:
                d = summed_deltas([(capture.dir / b, capture.dir / a) for b, a in zip(befores, afters)], server)
            except MeasureProblem as exc:  # a counter reset, or NaN or infinite, within the window
                unreadable.append(f"repetition {rep + 1} ({shown(exc)})")
                continue
            spanned_requests += len(sent)
            spanned_tokens += sum(r["completion_tokens"] for r in spanned)
            for field in ("verification_steps", "proposed_drafts", "accepted_drafts"):
                if field in d.counts:
                    totals[field] += d.counts[field]
                    have.add(field)
            # the per-request counts (llama.cpp timings) summed over the same span, against the counters
            drafts = [server_drafts(r) for r in spanned]
            if speculative and spanned and all(x is not None for x in drafts):
                for k, (check, field) in enumerate((("proposed-drafts", "proposed_drafts"), ("accepted-drafts", "accepted_drafts"))):
                    if field in d.counts:
                        checks[check][0] += sum(x[k] for x in drafts if x is not None)
                        checks[check][1] += d.counts[field]
                        have.add(check)
            if d.preemptions is not None:
                preempted = (preempted or 0) + d.preemptions
            pos = d.counts.get("accepted_per_position") or []
            per_position = [a + b for a, b in zip(per_position + [0] * (len(pos) - len(per_position)), pos + [0] * (len(per_position) - len(pos)))]
            if "emitted_tokens" in d.counts:
                checks["output-tokens"][0] += sum(r["completion_tokens"] for r in spanned)
                checks["output-tokens"][1] += d.counts["emitted_tokens"]
                have.add("output-tokens")
            if d.in_flight_after is not None:
                checks["requests-in-flight"][1] += d.in_flight_after
                have.add("requests-in-flight")
            if d.finished_requests is not None:
                checks["requests"][0] += len(sent)
                checks["requests"][1] += d.finished_requests
                have.add("requests")
    if unreadable:
        # The other windows' counts would cover a shorter span than the run's output tokens:
        # the run keeps its client-side figures and no server count at all.
        have.clear()
        findings.append(
            f"{name} c={c}: the server's counters cannot be differenced over {', '.join(unreadable)}; "
            "the run's server counts are left out (its output tokens are the responses' usage)"
        )
    buffered = sum(1 for r in completed if r["content_chunks"] > 1 and r["first_token"] == r["finished"])
    if buffered:
        findings.append(
            f"{name} c={c}: {buffered} of {len(completed)} responses arrived in one piece (a buffering gateway or proxy?): their TTFT and TPOT are not the server's"
        )
    for model in sorted(models - set(arm["models"])):
        findings.append(f'{name}: responses name model "{shown(model)}", not the {shown(", ".join(arm["models"]))} /v1/models lists')
    E = sum(r["completion_tokens"] for r in steady)
    counts: dict[str, Any] = {"emitted_tokens": E}
    notes = [
        f"Measured by: {session['command']}",
        "Client timing, one monotonic clock; repetition durations at microsecond resolution.",
        "E and T cover each window's steady interval; E counts whole requests whose finishing chunk arrived inside it.",
    ]
    if False in drains and settings["warmup"] < c:
        notes.append(
            f"A warm-up of {settings['warmup']} requests for {c} slots: {c - settings['warmup']} measured requests per window started "
            f"together with it (a start burst; --warmup {c} or more hands every slot over busy)."
        )
    if whole_windows:
        notes.append(
            f"{', '.join(whole_windows)}: too short for a steady interval (never {c} requests in flight, or fewer than "
            f"{MIN_PER_SLOT} requests per slot): E and T there cover the whole window, fill and drain included."
        )
    if (shared := split_note([window for _, window in reps])) is not None:
        notes.append(shared)
    if arm.get("configuration_corrected"):
        notes.append(f"Configuration as corrected with --resume ({arm['configuration_corrected']}), not as first given.")
    # Within the steady interval, P and A come from each request's own counts (llama.cpp timings), over
    # the same whole requests E counts; S has no per-request count, so S, B and D stay whole-span figures.
    steady_drafts = [server_drafts(r) for r in steady]
    drafted = any("draft_n" in (r.get("server_timings") or {}) for r in steady)  # a server that never writes draft_n gives no P
    per_request = speculative and drafted and all(x is not None for x in steady_drafts)
    if per_request:
        counts["proposed_drafts"] = sum(x[0] for x in steady_drafts if x is not None)
        counts["accepted_drafts"] = sum(x[1] for x in steady_drafts if x is not None)
        counts["requests_with_metrics"] = len(steady)
        if any(x[2] != r["completion_tokens"] for x, r in zip(steady_drafts, steady) if x is not None):
            findings.append(f"{name} c={c}: the server's per-request predicted_n differs from the usage it sent for some requests")
        notes.append(
            "P and A of the steady interval are the sums of the counted requests' own timings.draft_n and timings.draft_n_accepted; "
            "S, B and D have no per-request count, so they are given for the whole span only (measurement.whole_span)."
        )
    elif speculative:
        notes.append(
            "The server gave no per-request draft counts (llama.cpp timings.draft_n): S, P and A are given for the whole span only "
            "(measurement.whole_span, the server's counters), not for the steady interval."
        )
    population_check: list[dict[str, Any]] = [{"count": k, "benchmark": v[0], "server": v[1]} for k, v in checks.items() if k in have]
    whole: dict[str, Any] = {"drain": drains.pop()} if len(drains) == 1 else {}  # windows that differ (a --resume across versions) say nothing
    if population_check:
        settled = all(p["benchmark"] == p["server"] for p in population_check)
        span: dict[str, Any] = {"requests": spanned_requests, "emitted_tokens": spanned_tokens}
        if speculative:
            span.update({f: totals[f] for f in ("verification_steps", "proposed_drafts", "accepted_drafts") if f in have})
            if per_position and any(per_position):
                span["accepted_per_position"] = per_position
        counts["population"] = "benchmark-requests" if settled else "mixed"
        counts["population_check"] = population_check
        compared = "; ".join(f"{p['count'].replace('-', ' ')} {p['benchmark']} measured, {p['server']} on the server" for p in population_check)
        if settled:
            notes.append(
                f"The server's counter deltas over each window's whole span match the client's ({compared}): it served only the measured and warm-up requests."
            )
        else:
            findings.append(
                f"{name} c={c}: the server's counters do not match the measured requests ({compared}): it served other requests too, or its usage is wrong"
            )
            notes.append(f"The server's counter deltas do not match the client's ({compared}).")
        S, A = span.get("verification_steps"), span.get("accepted_drafts")
        if speculative and settled and S is not None and A is not None and spanned_tokens - A - S >= 0:
            # Each verification step emits one token the target samples itself (B = S); the rest of E
            # beyond A + B came outside verification steps: first tokens, and steps with no draft.
            span["bonus_tokens"] = S
            span["outside_step_tokens"] = spanned_tokens - A - S
            notes.append("Over the whole span B = S: the engine emits one target-sampled token per verification step; D = E - A - B.")
        whole["whole_span"] = span
    else:
        counts["population"] = "benchmark-requests"
        if unreadable:
            notes.append(
                f"The server's counters could not be differenced over {', '.join(unreadable)}: "
                "output tokens from the responses' usage only; no speculative counts from the counters."
            )
        else:
            notes.append("No --metrics for this arm: output tokens from the responses' usage only; no speculative counts from the counters.")
    if failures:
        notes.append("Failed requests, never counted as completed: " + ", ".join(f"{n} {k}" for k, n in sorted(failures.items())) + ".")
    times = [request_times(r) for r in completed]
    method = settings.get("percentile_method", "linear")
    prompt_tokens = [r["prompt_tokens"] for r in completed if isinstance(r.get("prompt_tokens"), int)]
    tasks = sorted({r.get("task") or "unlabelled" for r in completed})
    run: dict[str, Any] = {
        "id": run_id(name, c),
        "arrangement": arm["arrangement"],
        "configuration": name,
        "workload": {
            "task": tasks[0] if len(tasks) == 1 else "mixed: " + ", ".join(tasks),
            "dataset": f"{settings['dataset']} (sha256 {settings['dataset_sha256'][:12]})",
            "num_requests": len(completed),
            "requests_sent": len(completed) + sum(failures.values()),
            "requests_failed": sum(failures.values()),
            "input_tokens_mean": round(sum(prompt_tokens) / len(prompt_tokens), 3)
            if prompt_tokens and len(prompt_tokens) == len(completed)
            else None,
            "output_tokens_mean": round(sum(r["completion_tokens"] for r in completed) / len(completed), 3) if completed else None,
            "max_output_tokens": settings["max_tokens"],
            "salted": True,
        },
        "load": {"concurrency": c, "loop": "closed"},
        "interval": {
            "start_event": STEADY_START if not whole_windows else WHOLE_START if len(whole_windows) == len(reps) else EITHER_START,
            "end_event": STEADY_END if not whole_windows else WHOLE_END if len(whole_windows) == len(reps) else EITHER_END,
            "scope": "end-to-end",
            "measurement": "complete-interval",
            "duration_s": duration_us / 1e6,
        },
        "counts": counts,
        "latency": {
            "ttft_ms": _percentiles([t[0] for t in times], method),
            "tpot_ms": _percentiles([t[1] for t in times], method),
            "e2e_ms": _percentiles([t[2] for t in times], method),
        },
        "repetitions": repetitions,
        "request_latencies": {"ttft_ms": [t[0] for t in times], "tpot_ms": [t[1] for t in times], "e2e_ms": [t[2] for t in times]},
        "source": {"format": "sdeval-measure", "file": capture.log.name, "sha256": hashlib.sha256(capture.log.read_bytes()).hexdigest()},
        "notes": " ".join(notes),
    }
    run["workload"] = {k: v for k, v in run["workload"].items() if v is not None}
    run["latency"] = {k: v for k, v in run["latency"].items() if v is not None} or None
    if run["latency"] is None:
        del run["latency"]
    if not times:
        del run["request_latencies"]
    seconds = duration_us / 1e6
    ttft, tpot = _percentiles([t[0] for t in times], method), _percentiles([t[1] for t in times], method)  # None without times
    row = {
        "arm": name,
        "concurrency": c,
        "completed": len(completed),
        "failed": sum(failures.values()),
        "tokens_per_s": E / seconds if seconds else 0.0,
        "ttft_p50": ttft["p50"] if ttft else None,
        "ttft_p99": ttft["p99"] if ttft else None,
        "tpot_p50": tpot["p50"] if tpot else None,
        "acceptance": _acceptance(counts) or _acceptance(whole.get("whole_span", {})),
        "population": counts["population"],
        "preempted": preempted,
    }
    return run, row, whole


def _acceptance(counts: dict) -> float | None:
    return counts["accepted_drafts"] / counts["proposed_drafts"] if counts.get("proposed_drafts") else None


def _equality(runs: list[dict], arms: list[dict], outputs: dict, settings: dict) -> None:
    """At temperature 0, each speculative run's outputs against the target-only arm's, prompt by prompt."""
    if settings["temperature"] != 0:
        return
    baseline = next((a["name"] for a in arms if a["arrangement"] == "target-only"), None)
    if baseline is None:
        return
    for run in runs:
        if run["arrangement"] != "speculative":
            continue
        c = run["load"]["concurrency"]
        # the same prompt only: a window measured again after a crash carried other salts
        pairs = [(mine, outputs.get((baseline, c, rep, i))) for (arm, cc, rep, i), mine in outputs.items() if arm == run["configuration"] and cc == c]
        pairs = [(a[1], b[1]) for a, b in pairs if b is not None and a[0] == b[0]]
        if not pairs:
            continue
        matched = sum(a == b for a, b in pairs)
        run["quality"] = [
            {
                "task": run["workload"]["task"],
                "metric": "greedy output equality with target-only",
                "score": round(matched / len(pairs), 6),
                "baseline_score": 1.0,
                "method": f"sdeval measure: the same {len(pairs)} salted prompts at temperature 0 sent to arm {baseline}; outputs compared text for text",
                "equality_check": "greedy-equality",
                "equality_matched": matched,
                "equality_total": len(pairs),
            }
        ]


def _record(configurations: list[dict], runs: list[dict], session: dict) -> dict[str, Any]:
    from ..authoring.claims import build_claim

    record: dict[str, Any] = {
        "record_version": RECORD_VERSION,
        "offer": {
            "vendor": session.get("vendor") or "not stated (measured by the buyer)",
            "offer_id": session.get("offer_id") or f"measured-{session['started'][:10]}",
            "claim_text": f"Measured with sdeval measure: {', '.join(c['id'] for c in configurations)} at concurrency "
            f"{', '.join(str(c) for c in session['settings']['concurrencies'])}.",
            "source": "buyer-measured",
        },
        "configurations": configurations,
        "runs": runs,
        "claims": [],
    }
    claims: list[dict[str, Any]] = []
    for run in runs:
        if run["arrangement"] == "speculative" and run["counts"].get("emitted_tokens"):
            from ..importers.common import ImportProblem

            try:
                claims.append(
                    build_claim(
                        {**record, "claims": claims}, record_name="the measured record", run_id=run["id"], baseline_id=None, kind="output-throughput"
                    )
                )
            except ImportProblem:
                pass
    if not claims:  # the schema wants a claim: the first run's output throughput
        for run in runs:
            if run["counts"].get("emitted_tokens"):
                claims.append(
                    build_claim(
                        {**record, "claims": claims}, record_name="the measured record", run_id=run["id"], baseline_id=None, kind="output-throughput"
                    )
                )
                break
    if not claims:
        raise MeasureProblem("no request completed, so there is nothing to write a record about")
    record["claims"] = claims
    return record
