"""Rules about output quality and repeatability."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from .registry import Violation, rule


@rule(
    "quality-missing",
    "error",
    "A performance claim has no task-quality result",
    rationale="""Losslessness is a sampling guarantee, qualified by hardware numerics and batch effects; it
    is not correctness and not identical text. A faster offer must still produce outputs that meet the
    buyer's quality bar on the task, so a performance claim needs a quality result for its run.""",
    failing="A throughput claim on a run with an empty quality list.",
    passing="The run reports pass@1 on the buyer's task, or a greedy-equality check against target-only outputs.",
    reference="README, The checklist behind the rules, item 6 (task quality)",
)
def quality_missing(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.performance_claims():
        run = ctx.run(claim.run)
        if run is not None and run.arrangement == "speculative" and not run.quality:
            yield Violation(
                f"run {run.id} reports no task-quality result for the claimed {claim.kind.replace('-', ' ')}",
                ("runs", ctx.run_index[run.id], "quality"),
                claim=claim.id,
            )


@rule(
    "lossy-acceptance",
    "error",
    "Relaxed acceptance is on while the offer claims losslessness or has no quality evidence",
    rationale="""Relaxed acceptance (TensorRT-LLM MTP use_relaxed_acceptance_for_thinking: accept a draft in
    the target's top-k within a log-probability distance) accepts tokens the target would not have
    sampled. It is lossy by design: such an offer may not claim losslessness, and needs quality evidence.""",
    failing="relaxed_acceptance.enabled: true with a 'lossless' claim.",
    passing="relaxed_acceptance.enabled: true, no lossless claim, and a quality result on the buyer's task.",
    reference="README, The checklist behind the rules, item 6 (task quality); TensorRT-LLM speculative decoding (MTP relaxed acceptance), https://nvidia.github.io/TensorRT-LLM/examples/llm_speculative_decoding.html",
)
def lossy_acceptance(ctx: Context) -> Iterator[Violation]:
    for i, run in enumerate(ctx.record.runs):
        cfg = ctx.configuration(run)
        relaxed = cfg.proposer.relaxed_acceptance if cfg else None
        if not relaxed or not relaxed.enabled:
            continue
        for c, claim in ctx.claims():
            if claim.kind == "lossless" and claim.run == run.id:
                yield Violation(
                    f"claim {claim.id} says the output is lossless, but run {run.id} uses relaxed acceptance",
                    ("claims", c, "kind"),
                    claim=claim.id,
                )
        if not run.quality:
            yield Violation(
                f"run {run.id} uses relaxed (lossy) acceptance and reports no quality result",
                ("runs", i, "quality"),
                run=run.id,
            )


@rule(
    "single-run",
    "warning",
    "Stochastic sampling with a single repetition (no spread)",
    rationale="""With temperature above 0 the output, and with it the acceptance and the throughput, changes
    from run to run. One repetition gives one draw; without repetitions there is no spread, and no way to
    tell a real difference from noise.""",
    failing="temperature 0.7 and one repetition (or none listed).",
    passing="temperature 0.7 and three repetitions with their figures, or greedy decoding.",
    reference="README, The checklist behind the rules, item 8 (task dependence and repeatability)",
)
def single_run(ctx: Context) -> Iterator[Violation]:
    for i, run in enumerate(ctx.record.runs):
        cfg = ctx.configuration(run)
        if cfg is None or not cfg.sampling.temperature:
            continue
        if len(run.repetitions) < 2:
            yield Violation(
                f"run {run.id} samples at temperature {cfg.sampling.temperature} but has "
                f"{len(run.repetitions) or 'no'} repetition{'s' if len(run.repetitions) != 1 else ''}, so no spread",
                ("runs", i, "repetitions"),
                run=run.id,
            )
