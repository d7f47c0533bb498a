"""Per-task figures from one measurement (record 1.3 `runs[].per_task`) and the per-request
acceptance distribution of each run (`runs[].request_acceptance`), from the capture's requests.

A measured window mixes the tasks of the prompt set, so a task has no E / T of its own: its figures
are per request. The speedup of a task pairs each of its prompts with the same salted prompt in the
baseline arm at the same load (the same text sent to both), as the output-equality check pairs them;
the median of those ratios and a distribution-free interval on it (statistics.median_interval) say
how fast speculation is on that task, and how sure that is.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..engine.request_acceptance import RequestCounts, distribution
from ..engine.statistics import CONFIDENCE, MIN_MEDIAN_PAIRS, TOO_FEW_PAIRS, median_interval, percentile
from .measurement import counted_requests
from .task_windows import UNLABELLED

Times = Callable[[dict], tuple[float, float, float]]  # a request's (TTFT, TPOT, end-to-end) in ms
LLAMA_SOURCE = "llama.cpp per-response timings (draft_n, draft_n_accepted; a response without draft_n proposed nothing)"
METHOD = (
    "Per task label, over the run's completed requests: decode speed per request = 1 / TPOT (tokens after the first over the time "
    "after the first token); TTFT percentiles as the run's. Speedup per prompt = its output speed (completion tokens / end-to-end "
    "time) in this run over the same salted prompt's (same prompt id and salt, same load) in the baseline run; the median of "
    f"those ratios with a distribution-free {round(CONFIDENCE * 100)} % interval [x(j), x(n + 1 - j)] from the binomial(n, 1/2) "
    f"order statistics (at least {MIN_MEDIAN_PAIRS} pairs; no resampling). Acceptance A / P (and 1 + A / S where steps are "
    "given) from each request's own counts, summed over the task's requests."
)


def task_of(request: dict) -> str:
    return request.get("task") or UNLABELLED


def request_counts(request: dict) -> RequestCounts | None:
    """A request's own speculation counts from llama.cpp's timings: P = draft_n and A =
    draft_n_accepted, both 0 where the response has timings but no draft_n (llama.cpp writes them
    only when the request drafted). None for a response without timings (another server)."""
    timings = request.get("server_timings") or {}
    if "predicted_n" not in timings:
        return None
    proposed, accepted = timings.get("draft_n", 0), timings.get("draft_n_accepted", 0)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (proposed, accepted)):
        return None
    if accepted > proposed or min(proposed, accepted) < 0:
        return None  # not a count: left out rather than placed in the histogram
    return RequestCounts(proposed, accepted)


def acceptance_block(requests: Iterable[dict]) -> dict[str, Any] | None:
    """The per-request distribution over those requests that carry counts, as the record states it."""
    counts = [c for c in (request_counts(r) for r in requests) if c is not None]
    made = distribution(counts, LLAMA_SOURCE)
    return None if made is None else made.model_dump(exclude_none=True)


def _output_speed(r: dict) -> float | None:
    seconds = r["finished"] - r["sent"]
    return r["completion_tokens"] / seconds if seconds > 0 and r["completion_tokens"] > 0 else None


def _decode_speeds(requests: Sequence[dict], times: Times) -> dict[str, float] | None:
    speeds = sorted(1000 / tpot for tpot in (times(r)[1] for r in requests if r["completion_tokens"] > 1) if tpot > 0)
    if not speeds:
        return None
    return {
        "mean": round(sum(speeds) / len(speeds), 3),
        **{k: round(percentile(speeds, q), 3) for k, q in (("p10", 0.1), ("p50", 0.5), ("p90", 0.9))},
    }


def _speedup(mine: Sequence[dict], theirs: dict[tuple, dict], baseline_run: str) -> dict[str, Any] | None:
    ratios = []
    for r in mine:
        other = theirs.get((r["prompt"], r.get("salt")))
        if other is None:
            continue
        a, b = _output_speed(r), _output_speed(other)
        if a is not None and b is not None:
            ratios.append(a / b)
    if not ratios:
        return None
    m = median_interval(ratios)
    block: dict[str, Any] = {"baseline_run": baseline_run, "pairs": len(m.values), "median": round(m.median, 6)}
    if m.low is not None and m.high is not None:
        block.update(low=round(m.low, 6), high=round(m.high, 6))
    else:
        block["note"] = TOO_FEW_PAIRS
    return block


def task_figures(
    task: str, mine: Sequence[dict], theirs: dict[tuple, dict] | None, baseline_run: str | None, speculative: bool, method: str, times: Times
) -> dict[str, Any]:
    figures: dict[str, Any] = {"task": task, "requests": len(mine), "output_tokens": sum(r["completion_tokens"] for r in mine)}
    if (speeds := _decode_speeds(mine, times)) is not None:
        figures["decode_tokens_per_s"] = speeds
    if mine:
        ttft = sorted(times(r)[0] for r in mine)
        figures["ttft_ms"] = {
            "mean": round(sum(ttft) / len(ttft), 3),
            **{k: round(percentile(ttft, q, method), 3) for k, q in (("p50", 0.5), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99))},
            "method": method,
        }
    if speculative and theirs is not None and baseline_run is not None and (speedup := _speedup(mine, theirs, baseline_run)) is not None:
        figures["speedup"] = speedup
    if speculative and (acceptance := acceptance_block(mine)) is not None:
        figures["request_acceptance"] = acceptance
        if acceptance["proposed_drafts"]:
            figures["acceptance_rate"] = round(acceptance["accepted_drafts"] / acceptance["proposed_drafts"], 6)
        if acceptance.get("verification_steps"):
            figures["acceptance_length"] = round(1 + acceptance["accepted_drafts"] / acceptance["verification_steps"], 6)
    return figures


def attach_per_task(
    runs: list[dict[str, Any]], arms: list[dict], windows: Iterable[tuple], requests: dict[tuple, list[dict]], method: str, times: Times
) -> None:
    """Give each run its per-task block and, for a speculative run whose server gave per-request
    counts, its request_acceptance: the per-task figures from the completed requests of its
    finished windows ((arm, load, repetition) keys into `requests`), the run's distribution from
    the requests its steady intervals counted (the run's P and A);
    `times` is build's definition of a request's (TTFT, TPOT, end-to-end), the one the run's
    percentiles use; the baseline is the first target-only arm, as the run's paired speedup takes it."""
    baseline = next((a["name"] for a in arms if a["arrangement"] == "target-only"), None)
    completed: dict[tuple, list[dict]] = defaultdict(list)
    counted: dict[tuple, list[dict]] = defaultdict(list)  # the requests the run's E, P and A count
    for arm, c, rep in windows:
        measured = requests.get((arm, c, rep), [])
        completed[(arm, c)] += [r for r in measured if r["outcome"] == "completed"]
        counted[(arm, c)] += counted_requests(measured, c)
    for run in runs:
        arm, c = run["configuration"], run["load"]["concurrency"]
        mine = completed.get((arm, c), [])
        if not mine:
            continue
        speculative = run["arrangement"] == "speculative"
        theirs = {(r["prompt"], r.get("salt")): r for r in completed.get((baseline, c), [])} if baseline and speculative else None
        # The run's distribution covers the requests its counts cover, so it adds up to its P and
        # A; a task's covers all the task's completed requests, as its latencies do.
        if speculative and (acceptance := acceptance_block(counted.get((arm, c), []))) is not None:
            run["request_acceptance"] = acceptance
        by_task: dict[str, list[dict]] = defaultdict(list)
        for r in mine:
            by_task[task_of(r)].append(r)
        run["per_task"] = {
            "method": METHOD,
            "tasks": [
                task_figures(t, by_task[t], theirs, f"{baseline}-c{c}" if baseline else None, speculative, method, times) for t in sorted(by_task)
            ],
        }
