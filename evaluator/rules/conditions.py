"""Rules about the conditions a result holds under (record 1.3): a claim's validity gates (latency
limits, the benchmark tool's own verdict), where a quality result's score was measured, and how far a
drafter that learns from live traffic had adapted."""

from __future__ import annotations

from collections.abc import Iterator

from ..engine.claim_figures import claimed_text, latency_value
from ..engine.context import Context
from ..engine.wording import LATENCY_WORDS, num
from .registry import Violation, rule


@rule(
    "validity-gate-unmet",
    "error",
    "A claim holds under validity gates its run does not meet or does not show it meets",
    rationale="""MLPerf states a server result only under its latency limits (for example p99 TTFT and p99
    TPOT) and only when its own harness prints "Result is VALID". A claim that says it holds under such
    gates holds for a run that met every one: a run over a limit, judged invalid by its tool, or one
    whose latency at the gated statistic or verdict is not recorded does not show the condition held.""",
    failing="A claim gated on p99 TTFT at most 2000 ms whose run records p99 TTFT 2400 ms; or a claim requiring the tool's verdict whose run states none.",
    passing="The run's p99 TTFT and TPOT are within the claim's limits and its validity says valid.",
    reference="MLPerf Inference rules, server scenario latency constraints and the LoadGen result validity, https://github.com/mlcommons/inference_policies/blob/master/inference_rules.adoc; docs/claims.md, The checklist behind the rules, item 3 (the load it was measured at)",
    ask="Please send {what} for run {run}, which claim {claim} says it holds under.",
)
def validity_gate_unmet(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        gates, run = claim.validity_gates, ctx.run(claim.run)
        if gates is None or run is None:
            continue
        for g, limit in enumerate(gates.latency_limits):
            value = latency_value(run, limit.metric, limit.percentile)
            latency = f"{limit.percentile} {LATENCY_WORDS[limit.metric]}"
            where = ("claims", i, "validity_gates", "latency_limits", g)
            if value is None:
                yield Violation(
                    f"the claimed {claimed_text(claim)} holds under {latency} at most {num(limit.limit_ms)} ms, but run {run.id} records no {latency}",
                    where,
                    claim=claim.id,
                    ask={"what": f"the {latency}", "run": run.id, "claim": claim.id},
                )
            elif value > limit.limit_ms:
                yield Violation(
                    f"the claimed {claimed_text(claim)} holds under {latency} at most {num(limit.limit_ms)} ms, but run {run.id}'s is {num(value)} ms",
                    where,
                    claim=claim.id,
                    ask={"what": f"a run within {latency} {num(limit.limit_ms)} ms", "run": run.id, "claim": claim.id},
                )
        if gates.tool_verdict and (run.validity is None or run.validity.verdict != "valid"):
            said = "states no verdict" if run.validity is None else "was judged invalid by its tool"
            yield Violation(
                f"the claimed {claimed_text(claim)} holds only where the benchmark tool judged the run valid, but run {run.id} {said}",
                ("claims", i, "validity_gates", "tool_verdict"),
                claim=claim.id,
                ask={"what": "the tool's verdict (its 'Result is VALID' line)", "run": run.id, "claim": claim.id},
            )


@rule(
    "quality-source-mismatch",
    "error",
    "A quality result's score comes from a separate run that is not of the same configuration",
    rationale="""MLPerf measures accuracy in a separate accuracy-mode run of the system, not in the timed
    run. Such a score speaks for the timed run only when both runs are the same configuration: another
    target revision, number format, sampling, drafter or K gives other outputs. A score linked to a run
    that is not in the record, or to a run of another configuration, is not the timed run's quality.""",
    failing="A quality result whose source_run uses configuration fp4 while the timed run uses fp8.",
    passing="The accuracy run and the timed run use the same configuration (or two configurations stated identically apart from their ids).",
    reference="MLPerf Inference rules, accuracy mode and performance mode runs of the same system, https://github.com/mlcommons/inference_policies/blob/master/inference_rules.adoc; docs/claims.md, The checklist behind the rules, item 5 (configuration identity)",
    ask="Please send the accuracy run of configuration {configuration} that run {run}'s quality comes from; {problem}.",
)
def quality_source_mismatch(ctx: Context) -> Iterator[Violation]:
    for r, run in enumerate(ctx.record.runs):
        for q, quality in enumerate(run.quality):
            if quality.source_run is None:
                continue
            source, where = ctx.run(quality.source_run), ("runs", r, "quality", q, "source_run")
            ask = {"configuration": run.configuration, "run": run.id}
            if source is None:
                problem = f"it names run {quality.source_run}, which is not in the record"
            elif not same_configuration(ctx, run.configuration, source.configuration):
                problem = f"its source run {source.id} uses configuration {source.configuration}, not {run.configuration}"
            else:
                continue
            yield Violation(f"run {run.id}'s {quality.metric} on {quality.task}: {problem}", where, run=run.id, ask={**ask, "problem": problem})


def same_configuration(ctx: Context, a: str, b: str) -> bool:
    """The same configuration id, or two configurations stated identically apart from their ids."""
    if a == b:
        return True
    found = {c.id: c for c in ctx.record.configurations}
    if a not in found or b not in found:
        return False
    return found[a].model_dump(exclude={"id"}) == found[b].model_dump(exclude={"id"})


@rule(
    "drafter-adaptation",
    "warning",
    "A claim rests on a drafter that learns from live traffic, measured at an adaptation state not stated or still changing",
    rationale="""Some drafters keep training on the traffic they serve (online adaptation: ATLAS-style
    adaptive speculators, online-distilled EAGLE heads). Their acceptance, and every speedup built on
    it, rises as they see requests like the measured ones and falls back when the traffic changes. A
    figure from such a drafter says something only with how far it had adapted when it was measured:
    fresh (as shipped: what a new deployment or a new kind of traffic gets), converged (what steady,
    similar traffic gets after adaptation), or adapting (a point on a moving curve, which the next
    hour's measurement will not repeat).""",
    failing="A claim whose run's configuration states proposer.online_adapted: true and no proposer.adaptation; or adaptation.state: adapting.",
    passing="The drafter is not adapted online; or its adaptation state is stated as fresh or converged.",
    reference="docs/claims.md, The checklist behind the rules, item 5 (configuration identity); docs/record.md, Record 1.3 (proposer.adaptation)",
    ask="Please state how far configuration {configuration}'s drafter had adapted when run {run} was measured (proposer.adaptation: fresh, adapting or converged, with the requests it had seen), {then}.",
)
def drafter_adaptation(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        for role, run in (("run", ctx.run(claim.run)), ("baseline", ctx.run(claim.baseline))):
            cfg = ctx.configuration(run)
            if run is None or cfg is None or not (cfg.proposer.online_adapted or cfg.proposer.adaptation is not None):
                continue
            state = cfg.proposer.adaptation
            ask = {"configuration": cfg.id, "run": run.id}
            if state is None:
                yield Violation(
                    f"the claimed {claimed_text(claim)} rests on run {run.id}, whose drafter (configuration {cfg.id}) learns from live "
                    "traffic, but how far it had adapted when it was measured is not stated",
                    ("claims", i, role),
                    claim=claim.id,
                    ask={**ask, "then": "so the figure can be read as a fresh or a converged drafter's"},
                )
            elif state.state == "adapting":
                seen = f" after {state.requests_seen:,} requests" if state.requests_seen is not None else ""
                yield Violation(
                    f"the claimed {claimed_text(claim)} rests on run {run.id}, measured while its drafter (configuration {cfg.id}) was "
                    f"still adapting{seen}: a point on a moving curve, which a later measurement will not repeat",
                    ("claims", i, role),
                    claim=claim.id,
                    ask={**ask, "then": "and measure it again fresh or once its acceptance has stopped rising"},
                )
