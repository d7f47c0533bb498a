"""Rules about what a claim counts and whether its number follows from the evidence."""

from __future__ import annotations

from collections.abc import Iterator

from ..figures import claimed_figure, claimed_value, output_figure
from ..metrics import within_relative
from ..context import Context
from ..wording import num, seconds
from .registry import Violation, rule

# Vendors round headline figures ("200 tokens/s", "3x"); a claim within 2 % of what the
# counts give is taken as the same figure.
CLAIM_TOLERANCE = 0.02

_KIND_WORDS = {
    "output-throughput": "throughput",
    "speedup": "speedup",
    "latency": "latency",
    "capacity": "capacity",
}


def _claimed(claim) -> str:
    return num(claim.value, claim.unit or "")


@rule(
    "acceptance-only",
    "error",
    "A speed, speedup, latency or capacity claim rests only on acceptance rate or acceptance length",
    rationale="""Acceptance rate (A / P) and mean acceptance length (1 + A / S) are diagnostics: neither
    contains time, so neither is a speed. "3 tokens per step" is not "3x faster", because a speculative
    step costs more than a plain decode step (proposer work, a wider verification pass, rejected work).
    Only emitted output over a complete measured interval, against a baseline, gives a speedup.""",
    failing='"3x faster" with counted: acceptance-length, because the mean acceptance length is 3.',
    passing="A 1.8x speedup counted as emitted output tokens/s of the run over the baseline's.",
    reference="README, The checklist behind the rules, item 1 (output, not acceptance); vLLM Per-Request Acceptance Metrics, https://docs.vllm.ai/en/stable/features/speculative_decoding/acceptance_metrics/",
)
def acceptance_only(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.performance_claims():
        if claim.counted not in ("acceptance-length", "acceptance-rate"):
            continue
        basis = claimed_figure(ctx, claim)
        what = "mean acceptance length" if claim.counted == "acceptance-length" else "draft acceptance rate"
        shown = f" ({num(basis.value)} in run {claim.run})" if basis and basis.value is not None else ""
        message = f"the claimed {_KIND_WORDS[claim.kind]} of {_claimed(claim)} is a {what}{shown}, which contains no time"
        out = output_figure(ctx, claim)
        if out is not None and out.value is not None:
            message += f"; {out.name} measured over complete intervals is {num(out.value, out.unit)}"
        elif claim.kind == "speedup":
            message += "; no output throughput against a baseline supports it"
        yield Violation(message, ("claims", i, "counted"), claim=claim.id)


@rule(
    "throughput-basis",
    "error",
    "A tokens/s claim counts proposed or accepted drafts instead of emitted output",
    rationale="""Proposed drafts include tokens the target rejected, and accepted drafts leave out the
    token the target adds itself each step. Only emitted output tokens (E = A + B) are what users
    receive, so only E / T is an output throughput. Two offers both saying "200 tokens/s" can be
    counting different things.""",
    failing="SD-201 offer A: 200 tokens/s counted over proposed drafts (20 in 0.100 s); it emits 150 tokens/s.",
    passing="SD-201 offer B: 200 tokens/s counted over emitted output (15 in 0.075 s).",
    reference="README, What a claim needs before it counts (the figures and their formulas); Leviathan, Kalman, Matias, Fast Inference from Transformers via Speculative Decoding, ICML 2023, https://proceedings.mlr.press/v202/leviathan23a.html",
)
def throughput_basis(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        if claim.kind not in ("output-throughput", "speedup") or claim.counted not in ("proposed-drafts", "accepted-drafts"):
            continue
        run = ctx.run(claim.run)
        what = claim.counted.replace("-", " ")
        message = f"the claimed {_claimed(claim)} counts {what}"
        if run is not None and claim.kind == "output-throughput":
            m = ctx.metrics[run.id]
            if m.emitted_tokens_per_s is not None:
                message += (
                    f"; emitted output over the same {seconds(m.duration_s)} interval is "
                    f"{num(m.emitted_tokens_per_s, 'tokens/s')}"
                )
            else:
                message += f"; run {run.id} gives no emitted output over a measured interval"
        yield Violation(message, ("claims", i, "counted"), claim=claim.id)


@rule(
    "claim-mismatch",
    "error",
    "The claimed value differs from what the run's counts and interval give",
    rationale=f"""Every figure is recomputed from counts and the measured interval, never copied from the
    vendor's text. A claim more than {int(CLAIM_TOLERANCE * 100)} % away from the recomputed figure for
    what it says it counts is not supported by its own evidence.""",
    failing="A claim of 250 tokens/s where E / T = 15 / 0.075 s = 200 tokens/s.",
    passing="A claim of 200 tokens/s where E / T = 200 tokens/s.",
    reference="README, What a claim needs before it counts (the figures and their formulas); vLLM Speculative Decoding, https://docs.vllm.ai/en/stable/features/speculative_decoding/",
)
def claim_mismatch(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        figure = claimed_figure(ctx, claim)
        value = claimed_value(claim)
        if figure is None or figure.value is None or value is None:
            continue
        if not within_relative(value, figure.value, CLAIM_TOLERANCE):
            yield Violation(
                f"the claimed {_claimed(claim)} does not match the evidence: {figure.name} is "
                f"{num(figure.value, figure.unit)}",
                ("claims", i, "value"),
                claim=claim.id,
            )


@rule(
    "counts-missing",
    "error",
    "The run lacks the counts or latency the claim's figure is computed from",
    rationale="""A claimed number is only evidence when it can be recomputed: a throughput needs the
    emitted tokens and the interval's duration, an acceptance rate needs A and P, a latency claim
    needs the stated percentile. A figure the record cannot reproduce is an assertion, not a result.""",
    failing="An output-throughput claim on a run that states no emitted_tokens.",
    passing="The run states emitted_tokens and duration_s, so E / T can be computed.",
    reference="README, What a claim needs before it counts (the figures and their formulas); README, The checklist behind the rules, item 2 (a complete measured interval)",
)
def counts_missing(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        if claim.kind in ("capacity", "lossless"):
            continue
        if claim.value is None:
            yield Violation(f'claim "{claim.id}" states no value', ("claims", i, "value"), claim=claim.id)
            continue
        figure = claimed_figure(ctx, claim)
        if figure is None or figure.value is not None:
            continue
        # A missing baseline or duration has its own rule; name only what is missing here.
        needs = [n for n in figure.needs if n not in ("baseline",) and not n.endswith("duration_s")]
        if claim.kind == "latency" and (claim.latency_metric is None or claim.percentile is None):
            yield Violation(
                "a latency claim must say which latency (latency_metric) and which percentile",
                ("claims", i, "latency_metric" if claim.latency_metric is None else "percentile"),
                claim=claim.id,
            )
        elif needs:
            run_index = ctx.run_index[claim.run]
            yield Violation(
                f"{figure.name} cannot be computed for the claimed {_claimed(claim)}: run {claim.run} lacks "
                + ", ".join(needs),
                ("runs", run_index, "latency" if claim.kind == "latency" else "counts"),
                claim=claim.id,
            )


@rule(
    "speedups-compounded",
    "error",
    "A speedup is composed from separately measured speedups instead of measured together",
    rationale="""Batching, speculation, quantisation and sparse-expert serving all spend one pool of idle
    compute, so their separately measured speedups cannot be multiplied or added. Only a run with all of
    them switched on together measures the combination.""",
    failing='"6x" obtained as 2x from speculation times 3x from fp8 quantisation (composition: multiplied).',
    passing="The combined 2.4x measured in one run with speculation and fp8 both on (composition: measured-together).",
    reference="README, The checklist behind the rules, item 9 (speedups do not compound)",
)
def speedups_compounded(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        if claim.composition is not None and claim.composition.method in ("multiplied", "added"):
            parts = ", ".join(claim.composition.components) or "separately measured optimisations"
            yield Violation(
                f"the claimed {_claimed(claim)} was {claim.composition.method} from {parts}; these share one pool "
                "of idle compute and only a run with all of them on measures the combination",
                ("claims", i, "composition", "method"),
                claim=claim.id,
            )


@rule(
    "installation-mixed",
    "error",
    "Installation or equipment work appears inside a software claim",
    rationale="""New equipment (a server to rack, cabling, site work) is a physical installation project.
    It is recorded and reported on its own; a software performance claim that depends on it mixes two
    decisions and is not judged as a software result.""",
    failing="A throughput claim whose installation_items lists 'second-gpu-server'.",
    passing="The same installation item recorded under installation_scope, with no claim depending on it.",
    reference="README, The checklist behind the rules, item 11 (separate scopes)",
)
def installation_mixed(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        if claim.installation_items:
            yield Violation(
                f'claim "{claim.id}" depends on installation work ({", ".join(claim.installation_items)}); '
                "equipment is reported separately and cannot carry a software performance claim",
                ("claims", i, "installation_items"),
                claim=claim.id,
            )


@rule(
    "task-extrapolated",
    "error",
    "A claim is stated for a task its run did not measure",
    rationale="""Speedup depends on the task: EAGLE-2 on Vicuna-7B reached 2.66x on maths reasoning but
    1.78x on translation with the same model, card and method (Spec-Bench, RTX 3090, batch 1). A claim
    holds for the task it was measured on.""",
    failing='A claim for task "translation" resting on a run whose workload task is "math reasoning".',
    passing="The claim's task and the run's workload task are the same.",
    reference="README, The checklist behind the rules, item 8 (task dependence and repeatability); Spec-Bench, https://github.com/hemingkx/Spec-Bench",
)
def task_extrapolated(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        run = ctx.run(claim.run)
        if claim.task is None or run is None:
            continue
        measured = run.workload.task
        if measured is None or measured.strip().lower() != claim.task.strip().lower():
            yield Violation(
                f'the claim is stated for task "{claim.task}" but run {run.id} measured '
                + (f'"{measured}"' if measured else "no stated task"),
                ("claims", i, "task"),
                claim=claim.id,
            )

