"""Rules about the measured interval: defined, complete, one clock, and wide enough for the claim."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context, speculating
from .registry import Violation, rule

REQUIRED_STAGES = {
    "speculative": ("proposal", "verification", "scheduling"),
    "target-only": ("decode", "scheduling"),
}


@rule(
    "interval-undefined",
    "error",
    "A run lacks start/end events, a duration, a scope or how it was timed",
    rationale="""A throughput is tokens over a time, and the time means nothing without the events that
    start and end it. The interval must also say whether it is generation-only or end-to-end, and whether
    it was one clock or a sum of stages.""",
    failing="A run with duration_s 0.075 and no start or end event.",
    passing='start_event "just before the first proposal", end_event "last output token", scope, measurement and duration_s all given.',
    reference="README, The checklist behind the rules, item 2 (a complete measured interval)",
)
def interval_undefined(ctx: Context) -> Iterator[Violation]:
    for i, run in ctx.timed_runs():
        missing = [
            name
            for name in ("start_event", "end_event", "duration_s", "scope", "measurement")
            if getattr(run.interval, name) in (None, "")
        ]
        if missing:
            yield Violation(
                f"run {run.id}'s interval does not state {', '.join(missing)}",
                ("runs", i, "interval", missing[0]),
                run=run.id,
            )


@rule(
    "interval-incomplete",
    "error",
    "The interval leaves out proposal, verification or scheduling work",
    rationale="""The cost of speculation is the proposer's work, the wider verification pass and the
    scheduling around them, wherever the proposer runs. An interval that times only the target's pass,
    or leaves out a drafter running on another device, shows the gain without the cost.""",
    failing="A speculative run whose stages_excluded lists proposal (the drafter ran on a separate GPU).",
    passing="stages_included lists proposal, verification and scheduling.",
    reference="README, The checklist behind the rules, item 2 (a complete measured interval)",
)
def interval_incomplete(ctx: Context) -> Iterator[Violation]:
    for i, run in ctx.timed_runs():
        interval = run.interval
        if not interval.stages_included and not interval.stages_excluded:
            yield Violation(
                f"run {run.id}'s interval does not say which stages it includes",
                ("runs", i, "interval", "stages_included"),
                run=run.id,
            )
            continue
        lacking = [
            s
            for s in REQUIRED_STAGES["speculative" if speculating(ctx, run) else "target-only"]
            if s not in interval.stages_included or s in interval.stages_excluded
        ]
        if lacking:
            cfg = ctx.configuration(run)
            where = f" (the proposer runs on {cfg.proposer.device})" if cfg and cfg.proposer.device and "proposal" in lacking else ""
            yield Violation(
                f"run {run.id}'s interval leaves out {', '.join(lacking)}{where}",
                ("runs", i, "interval", "stages_excluded" if any(s in interval.stages_excluded for s in lacking) else "stages_included"),
                run=run.id,
            )


@rule(
    "interval-stage-sum",
    "error",
    "The duration is a sum of separately timed stages",
    rationale="""Drafting, verification and scheduling overlap in a serving engine. Adding up their
    separate timings is not the time a user waits, in either direction. Stage timings are diagnostics;
    the claim rests on one complete interval.""",
    failing="duration_s = drafting_s + verification_s, or measurement: stage-sum.",
    passing="measurement: complete-interval, with stage timings kept only as diagnostics.",
    reference="README, The checklist behind the rules, item 2 (a complete measured interval) and item 10 (stage timings are diagnostics)",
)
def interval_stage_sum(ctx: Context) -> Iterator[Violation]:
    for i, run in enumerate(ctx.record.runs):
        if run.interval.measurement == "stage-sum":
            yield Violation(
                f"run {run.id}'s duration is a sum of separately timed stages, not one measured interval",
                ("runs", i, "interval", "measurement"),
                run=run.id,
            )
            continue
        timings, duration = run.stage_timings, run.interval.duration_s
        if timings and duration and timings.drafting_s is not None and timings.verification_s is not None:
            if abs(timings.drafting_s + timings.verification_s - duration) <= 1e-9 * max(1.0, duration):
                yield Violation(
                    f"run {run.id}'s duration {duration} s equals drafting_s + verification_s: "
                    "the stage timings were added up instead of measuring the interval",
                    ("runs", i, "interval", "duration_s"),
                    run=run.id,
                )


@rule(
    "scope-exceeded",
    "error",
    "A generation-only interval supports an end-to-end or response-time claim",
    rationale="""A generation-only interval leaves out prompt processing, queueing and delivery to the
    client. It supports claims about generation speed, not about the time a user waits for a response
    (end-to-end latency, time to first token).""",
    failing="An end-to-end claim, or a time-to-first-token claim, on a generation-only run.",
    passing="An end-to-end claim on a run whose interval scope is end-to-end.",
    reference="README, The checklist behind the rules, item 2 (a complete measured interval)",
)
def scope_exceeded(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        for role, run_id in (("run", claim.run), ("baseline", claim.baseline)):
            run = ctx.run(run_id)
            if run is None or run.interval.scope != "generation-only":
                continue
            response_time = claim.kind == "latency" and claim.latency_metric in ("ttft", "e2e")
            if claim.scope == "end-to-end" or response_time:
                what = f"{claim.latency_metric} latency" if response_time else "end-to-end"
                yield Violation(
                    f"the claim is about {what} but {role} {run.id} was timed over a generation-only interval",
                    ("claims", i, "scope" if claim.scope == "end-to-end" else "latency_metric"),
                    claim=claim.id,
                )
                break
