"""The speedup per task (record 1.3, runs[].per_task): a claim measured on a mixed workload whose
tasks speed up differently, and a claim for one task set against that task's own figures."""

from __future__ import annotations

from collections.abc import Iterator

from ..engine.claim_figures import as_comparison, claimed_text
from ..engine.context import Context
from ..engine.record import Claim, Run, TaskFigures
from ..engine.wording import num
from .registry import Violation, rule
from .spread import claimed_speedups, measured_speedup, outside_interval


def task_speedups(run: Run) -> list[TaskFigures]:
    """The run's tasks whose paired speedup has an interval, slowest median first."""
    if run.per_task is None:
        return []
    tasks = [t for t in run.per_task.tasks if t.speedup is not None and t.speedup.low is not None and t.speedup.high is not None]
    return sorted(tasks, key=lambda t: (t.speedup.median if t.speedup else 0, t.task))


def task_text(t: TaskFigures) -> str:
    """'code 1.2x [1.1, 1.3]': a task's median speedup and its 95 % interval."""
    s = t.speedup
    assert s is not None and s.low is not None and s.high is not None
    return f"{t.task} {num(s.median, 'x')} [{num(s.low)}, {num(s.high)}]"


def separated(tasks: list[TaskFigures]) -> bool:
    """Whether some two tasks' intervals do not overlap."""
    lows = [t.speedup.low for t in tasks if t.speedup and t.speedup.low is not None]
    highs = [t.speedup.high for t in tasks if t.speedup and t.speedup.high is not None]
    return bool(lows and highs) and min(highs) < max(lows)


def _speedup_claim(claim: Claim) -> bool:
    return as_comparison(claim).kind in ("speedup", "output-throughput")


def _one_task(run: Run, claim: Claim) -> TaskFigures | None:
    if claim.task is None or run.per_task is None:
        return None
    return next((t for t in run.per_task.tasks if t.task == claim.task), None)


def _own_windows(run: Run, claim: Claim) -> bool:
    """The run measured the claim's task in windows of its own (sdeval measure --per-task-windows):
    its E / T and the paired speedup's interval over repetitions are the task's, the figure a claim
    on it states, so the per-prompt median (another estimator of the same speedup) does not judge it."""
    u = run.uncertainty.speedup if run.uncertainty else None
    return run.workload.task == claim.task and u is not None and u.baseline_run == claim.baseline


@rule(
    "task-speedup-spread",
    "warning",
    "A claim measured on a mixed workload whose tasks speed up differently",
    rationale="""A speculative-decoding speedup belongs to a method, a load and the text being
    generated: EAGLE-2 on Vicuna-7B reached 2.66x on maths reasoning and 1.78x on translation with
    the same model, card and method (Spec-Bench, RTX 3090, batch 1). A measurement that mixes tasks gives one figure for a mix the buyer may not run.
    Where the record splits the run by task (record 1.3, runs[].per_task, each task's paired
    per-prompt speedup with a 95 % interval on its median) and two tasks' intervals do not overlap,
    the single figure hides a real difference: the finding names every task's speedup, slowest first,
    so a buyer can weigh them by their own traffic (a requirements profile's task mix).""",
    failing="A 2.1x claim on a mixed run whose tasks give code 1.2x [1.1, 1.3] and maths 2.9x [2.6, 3.1].",
    passing="A claim on a mixed run whose tasks give prose 1.9x [1.7, 2.2] and code 2.1x [1.8, 2.3] (the intervals overlap), or a claim for one task.",
    reference="docs/measure.md, Per task; docs/claims.md, The checklist behind the rules, item 8 (task dependence and repeatability); Spec-Bench, https://github.com/hemingkx/Spec-Bench",
    ask="Please state claim {claim}'s speedup per task ({tasks}), or for the task mix we will run, rather than for the mixed workload alone.",
)
def task_speedup_spread(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        run = ctx.run(claim.run)
        if run is None or not _speedup_claim(claim) or _one_task(run, claim) is not None:
            continue
        tasks = task_speedups(run)
        if len(tasks) < 2 or not separated(tasks):
            continue
        block = run.uncertainty.speedup if run.uncertainty is not None else None
        overall = measured_speedup(block) if block is not None else None
        head = f"{num(overall.interval.mean, 'x')} overall ({overall.average}); " if overall is not None and overall.interval is not None else ""
        listed = ", ".join(task_text(t) for t in tasks)
        yield Violation(
            f"claim {claim.id} rests on run {run.id}, a mixed workload whose tasks speed up differently (paired per-prompt speedup, "
            f"median [95 % interval]): {head}{listed}; slowest: {tasks[0].task}",
            ("claims", i, "run"),
            claim=claim.id,
            run=run.id,
            ask={"claim": claim.id, "tasks": listed},
        )


@rule(
    "task-speedup-interval",
    "warning",
    "A speedup claimed for one task outside the 95 % interval that task's paired prompts give",
    rationale="""A claim that names a task (claims[].task) is about that task's text, not the mix
    it was measured in. Where the run splits its requests by task (record 1.3, runs[].per_task), the
    task's own prompts, each paired with the same salted prompt in the baseline run, give a median
    speedup and a distribution-free 95 % interval on it. A claimed figure outside that interval is not
    what the task's prompts bear out; a claim of faster whose interval reaches 1.0 is inside the noise.
    A run that measured the task in windows of its own (workload.task is the task, with its own
    speedup interval over repetitions) is judged by speedup-interval on that figure instead.""",
    failing="A claim of 2.5x for code where code's paired prompts give 1.2x [1.1, 1.3].",
    passing="A claim of 1.2x for code where code's paired prompts give 1.2x [1.1, 1.3].",
    reference="docs/measure.md, Per task; docs/claims.md, The checklist behind the rules, item 8 (task dependence and repeatability)",
    ask="Please restate claim {claim} for {task} within its measured interval ({interval}), or measure {task} again with more prompts.",
)
def task_speedup_interval(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        run = ctx.run(claim.run)
        if run is None or as_comparison(claim).kind != "speedup":
            continue
        task = _one_task(run, claim)
        s = task.speedup if task is not None else None
        if task is None or s is None or s.low is None or s.high is None or s.baseline_run != claim.baseline:
            continue
        if _own_windows(run, claim):
            continue  # measured for this task alone: speedup-interval judges it on the run's own E / T ratio
        claimed = claimed_speedups(as_comparison(claim))
        if claimed is None:
            continue
        if reasons := outside_interval(claimed, s.low, s.high, "the task's"):
            interval = f"{num(s.median, 'x')} [{num(s.low)}, {num(s.high)}] over {s.pairs} paired prompts"
            yield Violation(
                f"claim {claim.id}'s {claimed_text(claim)} for {task.task} {' and '.join(reasons)}: run {run.id}'s {task.task} prompts "
                f"give {interval}",
                ("claims", i, "value"),
                claim=claim.id,
                run=run.id,
                ask={"claim": claim.id, "task": task.task, "interval": interval},
            )
