"""Rules about what a claim counts and whether its number follows from the evidence."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from ..engine.claim_figures import (
    CLAIM_FORMULAS,
    RELATIVE_KINDS,
    UNDEFINED,
    Figure,
    basis_undefined,
    claimed_figure,
    claimed_range,
    claimed_text,
    claimed_value,
    output_figure,
    speedup_of,
    speedup_rises_with_value,
    unpriced,
    written_text,
)
from ..engine.context import Context
from ..engine.matched import PER_USER_SPEED
from ..engine.metrics import Bounds, exact
from ..engine.record import Claim
from ..engine.wording import LATENCY_WORDS, and_join, num, seconds
from .registry import Violation, rule

# Vendors round headline figures ("200 tokens/s", "3x"); a claim within 2 % of what the
# counts give is taken as the same figure.
CLAIM_TOLERANCE = 0.02

_KIND_WORDS = {
    "output-throughput": "throughput",
    "speedup": "speedup",
    "latency": "latency",
    "capacity": "capacity",
    "cost": "cost",
}


def _claimed(claim) -> str:
    return claimed_text(claim)


# What a speed claim should be restated as, for acceptance-only's ask.
_RESTATED_AS = {
    "output-throughput": "emitted output tokens per second",
    "speedup": "an output-throughput speedup against a target-only baseline",
    "latency": "a measured latency",
    "capacity": "a number of concurrent requests served",
    "cost": "a cost per million emitted output tokens at a stated price",
}


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
    reference="docs/claims.md, The checklist behind the rules, item 1 (output, not acceptance); vLLM Per-Request Acceptance Metrics, https://docs.vllm.ai/en/stable/features/speculative_decoding/acceptance_metrics/",
    ask="Please restate the claimed {value} as {figure} measured over a complete interval{evidence}; a {what} contains no time.",
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
        evidence = ", and send the counts and the interval it rests on"
        if out is not None and out.value is not None:
            message += f"; {out.name} measured over complete intervals is {num(out.value, out.unit)}"
            evidence = f" (run {claim.run}'s counts give {num(out.value, out.unit)})"
        elif claim.kind == "speedup":
            message += "; no output throughput against a baseline supports it"
        ask = {"value": _claimed(claim), "figure": _RESTATED_AS[claim.kind], "evidence": evidence, "what": what}
        yield Violation(message, ("claims", i, "counted"), claim=claim.id, ask=ask)


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
    reference="docs/claims.md, What a claim needs before it counts (the figures and their formulas); Leviathan, Kalman, Matias, Fast Inference from Transformers via Speculative Decoding, ICML 2023, https://proceedings.mlr.press/v202/leviathan23a.html",
    ask="Please restate the claimed {value} in emitted output tokens (what users receive) per second of run {run}'s measured interval, not in {what}.",
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
                message += f"; emitted output over the same {seconds(m.duration_s)} interval is {num(m.emitted_tokens_per_s, 'tokens/s')}"
            else:
                message += f"; run {run.id} gives no emitted output over a measured interval"
        yield Violation(message, ("claims", i, "counted"), claim=claim.id, ask={"value": _claimed(claim), "run": claim.run, "what": what})


@rule(
    "claim-mismatch",
    "error",
    "The claimed value differs from what the run's counts and interval give",
    rationale=f"""Every figure is recomputed from counts and the measured interval, never copied from the
    vendor's text, and known only within the range its inputs allow at the precision they were written (a
    duration written 0.08 s lies between 0.075 and 0.085 s). A claim more than {int(CLAIM_TOLERANCE * 100)} %
    outside that range for what it says it counts is not supported by its own evidence. A claim stated as a range holds when the
    figure lies in it, one stated as a floor ("over 250 tokens/s") or a ceiling ("under 40 ms") when the
    figure keeps to it; a best case ("up to 2.8x") is the figure of the run it names.""",
    failing="A claim of 250 tokens/s where E / T = 15 / 0.075 s = 200 tokens/s.",
    passing="A claim of 200 tokens/s where E / T = 200 tokens/s, or of 'at least 180 tokens/s'.",
    reference="docs/claims.md, What a claim needs before it counts (the figures and their formulas); vLLM Speculative Decoding, https://docs.vllm.ai/en/stable/features/speculative_decoding/",
    ask="Please show how the claimed {value} follows from run {run}, whose counts give {figure} = {computed}, or correct the claim.",
)
def claim_mismatch(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        figure = claimed_figure(ctx, claim)
        value = claimed_value(claim)
        if figure is None or figure.value is None or value is None:
            continue
        if not _supported(claim, value, figure):
            computed = num(figure.value, figure.unit)
            if (as_written := written_text(claim, figure.value)) is not None:
                computed = f"{computed}, that is {as_written}"
            impossible = ""
            if claim.relative is not None and speedup_of(claim, exact(value)) is None:
                impossible = f"; nothing falls by 100 % or more, so {_claimed(claim)} is no reduction at all"
            yield Violation(
                f"the claimed {_claimed(claim)} does not match the evidence: {figure.name} is {computed}{impossible}",
                ("claims", i, "value"),
                claim=claim.id,
                ask={"value": _claimed(claim), "run": claim.run, "figure": figure.name, "computed": computed},
            )


def _supported(claim: Claim, value: float, figure: Figure) -> bool:
    """Whether the recomputed figure bears out the claim as stated (a figure, a range, a floor or a
    ceiling), within the tolerance (or, for a value copied from a tool's print, its printed
    precision) and within the precision the figure's inputs were written to: the claim admits
    computed values in an interval, and the figure lies in `figure.bounds`. A claim written as a
    change ('40 % lower') admits the speedups its values amount to."""
    assert figure.value is not None  # claim_mismatch judges only figures with a value
    ends = claimed_range(claim)
    low: Fraction | None  # None: a relative value that is no ratio (below)
    high: Fraction | None
    low, high = (exact(ends[0]), exact(ends[1])) if ends is not None else (exact(value), exact(value))
    no_low = claim.bound == "at-most" and ends is None
    no_high = claim.bound == "at-least" and ends is None
    tol = exact(CLAIM_TOLERANCE)
    if claim.printed_decimals is not None:
        # As a tool's reported figure: any figure that rounds to the printed value (metrics.Bounds.allows).
        half = Bounds.half_unit_at(claim.printed_decimals)
        low, high, tol = low - half, high + half, Fraction(0)
    if claim.relative is not None:
        low, high = speedup_of(claim, low), speedup_of(claim, high)
        if not speedup_rises_with_value(claim):
            low, high, no_low, no_high = high, low, no_high, no_low
        if (low is None and not no_low) or (high is None and not no_high):
            return False  # '140 % lower' (or cheaper) is no ratio at all
    # |claimed - x| <= tolerance * x  <=>  claimed / (1 + tolerance) <= x <= claimed / (1 - tolerance)
    # (a None end is one without a limit: no ratio was refused above)
    admits_low = None if no_low or low is None else low / (1 + tol)
    admits_high = None if no_high or high is None else high / (1 - tol)
    bounds = figure.bounds or Bounds.exact(Fraction(figure.value))
    return (admits_low is None or bounds.high >= admits_low) and (admits_high is None or bounds.low <= admits_high)


# What each missing input is, in a buyer's words, for the ask.
_NEED_WORDS = {
    "emitted_tokens": "emitted output tokens (E)",
    "duration_s": "measured interval duration (T)",
    "accepted_drafts": "accepted drafts (A)",
    "proposed_drafts": "proposed drafts (P)",
    "verification_steps": "verification steps (S)",
    "per_user_throughput": "per-user output throughput",
    "hardware.count": "number of accelerators (hardware.count of its configuration)",
}


def _need_words(field: str) -> str:
    if PER_USER_SPEED in field:
        return field
    if field.startswith("latency."):
        _, block, percentile = field.split(".")
        return f"{percentile} {LATENCY_WORDS[block.removesuffix('_ms')]}"
    if field.startswith("per_user_throughput ("):
        return f"per-user output throughput ({field.split('(')[1]}"
    return _NEED_WORDS.get(field, field)


def _by_run(figure: Figure) -> dict[str, list[str]]:
    """The figure's missing inputs grouped by the run that lacks them, in the order named."""
    grouped: dict[str, list[str]] = {}
    for run_id, field in figure.needs:
        if run_id is not None:
            grouped.setdefault(run_id, []).append(field)
    return grouped


def _lacking_at(ctx: Context, run_id: str, fields: list[str]) -> tuple:
    at = ("runs", ctx.run_index[run_id])
    if fields == ["hardware.count"] and (cfg := ctx.configuration(ctx.run(run_id))) is not None:
        return ("configurations", ctx.config_index[cfg.id], "hardware")
    if any(PER_USER_SPEED in f for f in fields):
        run = ctx.run(run_id)
        return (*at, "latency" if run is not None and run.load.loop == "open" else "load")
    if any(f.startswith("latency.") for f in fields):
        return (*at, "latency")
    if any(f.startswith("per_user_throughput") for f in fields):
        return (*at, "per_user_throughput")
    if fields == ["duration_s"]:
        return (*at, "interval", "duration_s")
    return (*at, "counts")


@rule(
    "counts-missing",
    "error",
    "The claim states no figure, or its run or baseline lacks the counts, duration, latency or per-user figure it is computed from",
    rationale="""A claimed number is only evidence when it can be recomputed: a throughput needs the
    emitted tokens and the interval's duration, a speedup needs them for the run and for its baseline, an
    acceptance rate needs A and P, a latency claim needs the stated percentile, a per-user figure needs the
    run's per-user throughput. Every missing input is named, whatever else the claim lacks (a baseline has
    its own rule). A figure the record cannot reproduce is an assertion, not a result.""",
    failing="An output-throughput claim on a run that states no emitted_tokens.",
    passing="The run states emitted_tokens and duration_s, so E / T can be computed.",
    reference="docs/claims.md, What a claim needs before it counts (the figures and their formulas); docs/claims.md, The checklist behind the rules, item 2 (a complete measured interval)",
    ask="Please state {needs}, so that {subject} can be recomputed from the evidence.",
)
def counts_missing(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        if claim.kind == "lossless":
            continue
        if claim.value is None:
            yield Violation(
                f'claim "{claim.id}" states no value',
                ("claims", i, "value"),
                claim=claim.id,
                ask={"needs": f'the figure claim "{claim.id}" makes', "subject": "it"},
            )
        subject = f"the claimed {_claimed(claim)}"
        timed = claim.kind == "latency" or (claim.kind == "speedup" and claim.counted == "response-time")
        if timed and claim.percentile == "unstated":
            what = "a latency claim" if claim.kind == "latency" else "a response-time speedup"
            yield Violation(
                f"{what} must say which statistic its {claim.latency_metric or 'stated'} latency is (mean, median or a "
                "percentile); without it the figure cannot be compared with a limit or a baseline",
                ("claims", i, "percentile"),
                claim=claim.id,
                ask={"needs": "which statistic (mean, median or a percentile) the latency is", "subject": subject},
            )
            continue
        figure = claimed_figure(ctx, claim)
        if figure is None or figure.value is not None:
            continue
        unstated = [field for run_id, field in figure.needs if run_id is None and field in ("latency_metric", "percentile")]
        if unstated:
            what = "a latency claim" if claim.kind == "latency" else "a response-time speedup"
            yield Violation(
                f"{what} must say which latency (latency_metric) and which percentile",
                ("claims", i, unstated[0]),
                claim=claim.id,
                ask={"needs": "which latency and which percentile (or the mean) the claim is about", "subject": subject},
            )
        if (None, "price.accelerators_per_server") in figure.needs:
            yield Violation(
                f"{figure.name} cannot be computed for {subject}: a price per server-hour needs the accelerators in one server",
                ("claims", i, "price"),
                claim=claim.id,
                ask={"needs": "how many accelerators one server holds (price.accelerators_per_server)", "subject": subject},
            )
        for run_id, fields in _by_run(figure).items():
            role = "run" if run_id in (claim.run, *claim.sweep) else "baseline"
            yield Violation(
                f"{figure.name} cannot be computed for {subject}: {role} {run_id} lacks {', '.join(fields)}",
                _lacking_at(ctx, run_id, fields),
                claim=claim.id,
                ask={"needs": f"{role} {run_id}'s " + and_join(_need_words(f) for f in fields), "subject": subject},
            )


@rule(
    "claim-basis-undefined",
    "error",
    "The claim's kind and what it counts have no formula to recompute it",
    rationale="""No claim is established without being recomputed from the evidence, and every kind of claim
    has its own formula over what it counts: an output throughput is E / T, a speedup of output throughput
    (E / T) / (E_b / T_b), a speedup of response time the baseline's latency over the run's at the same
    latency and statistic, a capacity the requests per second or the concurrency the run held, a cost the
    hour's price over the output tokens emitted in that hour, at the price the claim states. A claim whose
    kind and basis match none of them (a throughput counted as response time, a latency counted as
    tokens) says something sdeval cannot check.""",
    failing="kind: output-throughput, counted: response-time.",
    passing="kind: speedup, counted: response-time, latency_metric: e2e, percentile: p50.",
    reference="docs/claims.md, What a claim needs before it counts (how each claim kind is recomputed)",
    ask="Please {request}, or say what its figure measures.",
)
def claim_basis_undefined(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        if not basis_undefined(claim):
            continue
        if claim.relative is not None and claim.kind not in RELATIVE_KINDS:
            yield Violation(
                f"{_article(claim.kind)} {claim.kind} claim written as {claim.relative} than its baseline has no formula; "
                "only a speedup, a latency, a throughput or a cost is compared as a change",
                ("claims", i, "relative"),
                claim=claim.id,
                ask={"request": f"restate claim {claim.id} as a figure of its own run, not as a change against a baseline"},
            )
        elif unpriced(claim):
            yield Violation(
                f"the claimed cost of {_claimed(claim)} states no price: a cost per million output tokens is recomputed from the run's "
                "output throughput at a price per accelerator-hour or per server-hour",
                ("claims", i, "price") if claim.price is not None else ("claims", i, "kind"),
                claim=claim.id,
                ask={
                    "request": f"state the price per accelerator-hour or per server-hour (and its currency) the claimed {_claimed(claim)} was computed at"
                },
            )
        else:
            defined = sorted(
                {
                    c
                    for (k, c), f in CLAIM_FORMULAS.items()
                    if k == claim.kind and c and f != UNDEFINED and ", refused by" not in f and not f.startswith("refused")
                }
            )
            article = _article(claim.kind)
            kinds = f"{article} {claim.kind} counted as " + and_join(defined, "or")
            yield Violation(
                f"{article} {claim.kind} claim counted as {claim.counted} has no formula; {article} {claim.kind} claim "
                "counts " + and_join(defined, "or"),
                ("claims", i, "counted"),
                claim=claim.id,
                ask={"request": f"restate the claim as {kinds}"},
            )


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


@rule(
    "figure-provenance",
    "error",
    "The claimed figure was derived from other figures, or selected from a sweep without naming its configuration",
    rationale="""A figure computed from other figures (an aggregate given as per-user throughput times the
    batch size) was never measured: batching does not scale linearly, so only a run measuring it establishes
    it. A figure selected as the best point of a sweep over many configurations holds only for the
    configuration that gave it, which the claim must name.""",
    failing="An aggregate of 2,151 tokens/s derived as 134.4 tokens/s per user x 16 users (measured: 1,728).",
    passing="The best of a 16-point sweep, with selected_configuration naming beam width 3, beam length 5.",
    reference="docs/record.md, The evidence record (record 1.1: provenance)",
    ask="Please send the run that measured {value} directly, or name the configuration it was selected from.",
)
def figure_provenance(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        claimed = f"the claimed {_claimed(claim)}"
        if claim.provenance == "derived":
            how = f" ({claim.provenance_detail})" if claim.provenance_detail else ""
            problem = (f"{claimed} was derived from other figures{how}, not measured; only a run measuring it establishes it", "provenance")
        elif claim.provenance == "selected" and claim.selected_configuration is None:
            problem = (
                f"{claimed} is the best point of a sweep but names no configuration it was selected from (selected_configuration)",
                "provenance",
            )
        elif claim.provenance == "selected" and claim.selected_configuration not in ctx.config_index:
            problem = (
                f"{claimed} was selected from configuration {claim.selected_configuration}, which the record does not have",
                "selected_configuration",
            )
        else:
            continue
        message, field = problem
        yield Violation(message, ("claims", i, field), claim=claim.id, ask={"value": _claimed(claim)})


@rule(
    "speedups-compounded",
    "error",
    "A speedup is composed from separately measured speedups instead of measured together",
    rationale="""Batching, speculation, quantisation and sparse-expert serving all spend one pool of idle
    compute, so their separately measured speedups cannot be multiplied or added. Only a run with all of
    them switched on together measures the combination.""",
    failing='"6x" obtained as 2x from speculation times 3x from fp8 quantisation (composition: multiplied).',
    passing="The combined 2.4x measured in one run with speculation and fp8 both on (composition: measured-together).",
    reference="docs/claims.md, The checklist behind the rules, item 9 (speedups do not compound)",
    ask="Please send one run with {parts} all switched on together, compared with a target-only baseline, instead of {how} separately measured speedups into {value}.",
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
                ask={
                    "parts": and_join(claim.composition.components) if claim.composition.components else "every optimisation it combines",
                    "how": "multiplying" if claim.composition.method == "multiplied" else "adding",
                    "value": _claimed(claim),
                },
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
    reference="docs/claims.md, The checklist behind the rules, item 11 (separate scopes)",
    ask="Please state claim {claim}'s figure for the software offer alone, measured without {items}, and quote that installation work separately.",
)
def installation_mixed(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        if claim.installation_items:
            yield Violation(
                f'claim "{claim.id}" depends on installation work ({", ".join(claim.installation_items)}); '
                "equipment is reported separately and cannot carry a software performance claim",
                ("claims", i, "installation_items"),
                claim=claim.id,
                ask={"claim": claim.id, "items": and_join(claim.installation_items)},
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
    reference="docs/claims.md, The checklist behind the rules, item 8 (task dependence and repeatability); Spec-Bench, https://github.com/hemingkx/Spec-Bench",
    ask='Please send a run measured on the task "{task}" that the claim is stated for; run {run} measured {measured}.',
)
def task_extrapolated(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        run = ctx.run(claim.run)
        if claim.task is None or run is None:
            continue
        measured = run.workload.task
        # a task of a mixed run's per-task block was measured too, and is judged on its own figures (rules/tasks.py)
        split = {t.task.strip().lower() for t in run.per_task.tasks} if run.per_task is not None else set()
        if (measured is None or measured.strip().lower() != claim.task.strip().lower()) and claim.task.strip().lower() not in split:
            yield Violation(
                f'the claim is stated for task "{claim.task}" but run {run.id} measured ' + (f'"{measured}"' if measured else "no stated task"),
                ("claims", i, "task"),
                claim=claim.id,
                ask={"task": claim.task, "run": run.id, "measured": f'"{measured}"' if measured else "no stated task"},
            )
