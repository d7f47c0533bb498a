"""Rules about the measured interval: defined, complete, one clock, and wide enough for the claim."""

from __future__ import annotations

from collections.abc import Iterator

from ..engine.claim_figures import claimed_text
from ..engine.context import Context, speculating
from ..engine.record import Interval
from ..engine.wording import and_join, num
from .registry import Violation, rule

REQUIRED_STAGES = {
    "speculative": ("proposal", "verification", "scheduling"),
    "target-only": ("decode", "scheduling"),
}

# interval-undefined's missing fields, as the ask words them.
_UNDEFINED_WORDS = {
    "start_event": "the event that starts the clock",
    "end_event": "the event that stops it",
    "duration_s": "the measured duration",
    "scope": "whether it is generation-only or end-to-end",
    "measurement": "whether it was one clock or a sum of stage timings",
}


def covered_by_definition(interval: Interval) -> bool:
    """An end-to-end interval, or one clock around the whole generation call, holds every stage
    of the generation by definition, whether or not the stages are listed."""
    return interval.scope == "end-to-end" or interval.whole_generation_call


@rule(
    "interval-undefined",
    "error",
    "A run lacks start/end events, a duration, a scope or how it was timed",
    rationale="""A throughput is tokens over a time, and the time means nothing without the events that
    start and end it. The interval must also say whether it is generation-only or end-to-end, and whether
    it was one clock or a sum of stages. A latency is measured per request: a run that only latency
    claims rest on needs its interval defined, not its length.""",
    failing="A run with duration_s 0.075 and no start or end event.",
    passing='start_event "just before the first proposal", end_event "last output token", scope, measurement and duration_s all given.',
    reference="docs/claims.md, The checklist behind the rules, item 2 (a complete measured interval)",
    ask="Please state, for run {run}'s timed interval, {missing}.",
)
def interval_undefined(ctx: Context) -> Iterator[Violation]:
    for i, run in ctx.timed_runs():
        missing = [
            name
            for name in ("start_event", "end_event", "duration_s", "scope", "measurement")
            if getattr(run.interval, name) in (None, "") and (name != "duration_s" or ctx.needs_duration(run))
        ]
        if missing:
            yield Violation(
                f"run {run.id}'s interval does not state {', '.join(missing)}",
                ("runs", i, "interval", missing[0]),
                run=run.id,
                ask={"run": run.id, "missing": and_join(_UNDEFINED_WORDS[m] for m in missing)},
            )


@rule(
    "interval-incomplete",
    "error",
    "The interval leaves out, or does not say it includes, proposal, verification or scheduling work",
    rationale="""The cost of speculation is the proposer's work, the wider verification pass and the
    scheduling around them, wherever the proposer runs. An interval that times only the target's pass,
    or leaves out a drafter running on another device, shows the gain without the cost. A stage stated
    as excluded is left out; a stage neither listed nor covered is not known to be inside. An end-to-end
    interval, or one clock around the whole generation call, covers every stage by definition.""",
    failing="A speculative run whose stages_excluded lists proposal (the drafter ran on a separate GPU), or one that lists no stages at all.",
    passing="stages_included lists proposal, verification and scheduling; or the scope is end-to-end; or whole_generation_call is true.",
    reference="docs/claims.md, The checklist behind the rules, item 2 (a complete measured interval)",
    ask="Please send run {run} timed over one interval that includes {stages}{why}, or show that its interval already includes them.",
)
def interval_incomplete(ctx: Context) -> Iterator[Violation]:
    for i, run in ctx.timed_runs():
        interval = run.interval
        required = REQUIRED_STAGES["speculative" if speculating(ctx, run) else "target-only"]
        # Stated as excluded: left out, whatever the scope says.
        excluded = [s for s in required if s in interval.stages_excluded]
        # Neither listed nor covered by the interval's own definition: not known to be inside.
        unstated = [] if covered_by_definition(interval) else [s for s in required if s not in interval.stages_included and s not in excluded]
        at = ("runs", i, "interval")
        if excluded:
            cfg = ctx.configuration(run)
            where = f" (the proposer runs on {cfg.proposer.device})" if cfg and cfg.proposer.device and "proposal" in excluded else ""
            yield Violation(
                f"run {run.id}'s interval leaves out {and_join(excluded)}{where}",
                (*at, "stages_excluded"),
                run=run.id,
                ask={"run": run.id, "stages": and_join(excluded), "why": where},
            )
        if unstated:
            yield Violation(
                f"run {run.id}'s interval does not say whether it includes {and_join(unstated)}",
                (*at, "stages_included"),
                run=run.id,
                ask={"run": run.id, "stages": and_join(unstated), "why": ""},
            )


@rule(
    "interval-warmup",
    "error",
    "The measured interval counts the warm-up",
    rationale="""The first requests a server sees pay for compilation, CUDA graph capture, cold caches
    and memory allocation. Counted into the measured interval they lower the throughput and raise the
    latency percentiles by an amount that depends on how long the run was, so two runs cannot be
    compared. MLPerf Endpoints runs the warm-up before the performance phase and records none of it;
    a run must keep its warm-up out of the interval and its counts.""",
    failing="A run whose interval.warmup says excluded: false (32 warm-up requests counted in).",
    passing="interval.warmup with excluded: true, or no warm-up stated.",
    reference="docs/claims.md, The checklist behind the rules, item 2 (a complete measured interval); MLPerf Endpoints (mlcommons/endpoints) src/inference_endpoint/config/schema.py WarmupConfig, https://github.com/mlcommons/endpoints",
    ask="Please send run {run} measured after its warm-up, with the warm-up requests{warmup} kept out of the interval and its counts.",
)
def interval_warmup(ctx: Context) -> Iterator[Violation]:
    for i, run in ctx.timed_runs():
        warmup = run.interval.warmup
        if warmup is None or warmup.excluded:
            continue
        size = ", ".join(
            p
            for p in (warmup.requests is not None and f"{warmup.requests} requests", warmup.duration_s is not None and f"{num(warmup.duration_s)} s")
            if p
        )
        yield Violation(
            f"run {run.id}'s measured interval counts its warm-up{f' ({size})' if size else ''}, so its throughput and latencies include the server's cold start",
            ("runs", i, "interval", "warmup", "excluded"),
            run=run.id,
            ask={"run": run.id, "warmup": f" ({size})" if size else ""},
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
    reference="docs/claims.md, The checklist behind the rules, item 2 (a complete measured interval) and item 10 (stage timings are diagnostics)",
    ask="Please send run {run}'s duration measured with one clock from its start event to its end event, not added up from stage timings.",
)
def interval_stage_sum(ctx: Context) -> Iterator[Violation]:
    for i, run in enumerate(ctx.record.runs):
        if run.interval.measurement == "stage-sum":
            yield Violation(
                f"run {run.id}'s duration is a sum of separately timed stages, not one measured interval",
                ("runs", i, "interval", "measurement"),
                run=run.id,
                ask={"run": run.id},
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
                    ask={"run": run.id},
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
    reference="docs/claims.md, The checklist behind the rules, item 2 (a complete measured interval)",
    ask="Please send an end-to-end measurement (from request arrival to the last token delivered) for the claimed {value}; {role} {run} was timed over generation only.",
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
                    ask={"value": claimed_text(claim), "role": role, "run": run.id},
                )
                break
