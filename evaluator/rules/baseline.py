"""Rules about what a claim is compared with."""

from __future__ import annotations

import json
from collections.abc import Iterator

from ..engine.baselines import comparison_fields
from ..engine.claim_figures import claimed_text
from ..engine.context import Context
from ..engine.record import Claim, Run
from ..engine.wording import and_join, num
from .registry import Violation, message, rule


def _load(claim: Claim, run: Run | None) -> str:
    """The load a baseline must be measured at: the claim's, else its run's."""
    for concurrency, rate in ((claim.concurrency, claim.request_rate), (run.load.concurrency, run.load.request_rate) if run else (None, None)):
        if concurrency is not None:
            return f"concurrency {concurrency}"
        if rate is not None:
            return f"{num(rate)} requests/s"
    return "the same load"


def _shown(value) -> str:
    if value is None:
        return "not stated"
    if isinstance(value, (set, frozenset)):
        value = sorted(value)
    return json.dumps(value)


@rule(
    "baseline-missing",
    "error",
    "A speedup claim has no baseline run, or compares a run with itself",
    rationale="""A speedup is a ratio, and a ratio needs a denominator measured under the same
    conditions. Without a baseline run (normally target-only decoding) an offer is an optimisation
    hypothesis, not a result.""",
    failing='"2x faster" with no baseline named.',
    passing='The claim names baseline "target-only-c8", a target-only run under the same settings.',
    reference="docs/claims.md, The checklist behind the rules, item 4 (a baseline on equal terms)",
    messages={
        "none": "the claimed speedup ({value}) names no baseline run to compare with",
        "itself": "the claimed speedup compares run {run} with itself",
    },
    ask="Please send the target-only run at {load} with the same target, sampling, workload and interval definition as run {run}, so that the claimed {value} can be computed.",
)
def baseline_missing(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        # A claim with no run at all is evidence-missing, whose ask includes the baseline.
        if (claim.kind != "speedup" and claim.relative is None) or claim.run is None:
            continue
        ask = {"load": _load(claim, ctx.run(claim.run)), "run": claim.run, "value": claimed_text(claim, "x")}
        if claim.baseline is None:
            yield Violation(
                message("baseline-missing", "none", value=claimed_text(claim, "x") if claim.value is not None else "no figure stated"),
                ("claims", i, "baseline"),
                claim=claim.id,
                ask=ask,
            )
        elif claim.baseline == claim.run:
            yield Violation(
                message("baseline-missing", "itself", run=claim.run),
                ("claims", i, "baseline"),
                claim=claim.id,
                ask=ask,
            )


@rule(
    "baseline-mismatch",
    "error",
    "The baseline differs in target, tokenizer, numerics, sampling, task, load, interval definition, hardware or how it is deployed",
    rationale="""A comparison is only fair when the one thing that changed is the arrangement being sold.
    A baseline with another target revision, number format, sampling policy, request population, load,
    interval definition or hardware measures something else; so does one split differently across the
    same accelerators (tensor, pipeline, data or expert parallel sizes), running other MoE kernels,
    under other clock or power settings, or with queries salted differently against caching. A value
    stated for one run and not for the other is a difference too: equal terms cannot be shown. A
    baseline that says it is the same server with drafting switched off per request must use the
    speculative run's own configuration.""",
    failing="A speculative run at temperature 0.7 compared with a greedy target-only run; or a TP8 speculative run compared with a TP4 baseline.",
    passing="Both runs share target, tokenizer, numerics, sampling, workload, load, interval, hardware and parallel sizes.",
    reference="docs/claims.md, The checklist behind the rules, item 4 (a baseline on equal terms) and item 5 (configuration identity)",
    ask="Please send a baseline run that matches run {run} in {fields}; baseline {base} differs in them.",
)
def baseline_mismatch(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        run, base = ctx.run(claim.run), ctx.run(claim.baseline)
        if run is None or base is None or run is base or claim.kind not in ("speedup", "output-throughput", "latency", "cost"):
            continue
        ours, theirs = comparison_fields(ctx, run), comparison_fields(ctx, base)
        if claim.at_per_user_speed is not None or claim.at_accelerator_throughput is not None:
            # At matched interactivity (or throughput) each side's point is taken at whatever load reaches the
            # per-user speed (the throughput): the loads (and the requests a load was run with) differ by design.
            for name in MATCHED_BY_DESIGN:
                ours.pop(name, None), theirs.pop(name, None)
        # A baseline that is the run's own server with drafting switched off per request must be that
        # server: the configuration itself is then compared, not only the fields below.
        if base.drafting_off == "per-request" and run.arrangement == "speculative":
            ours, theirs = {"configuration": run.configuration, **ours}, {"configuration": base.configuration, **theirs}
        # A run whose configuration is not in the record (reported by its own rule) has no
        # configuration fields: compare what both runs state.
        differing = [name for name in ours if name in theirs and ours[name] != theirs[name]]
        hit_rates = _hit_rates(run, base)
        if hit_rates is not None:
            ours["workload.prefix_cache.hit_rate"], theirs["workload.prefix_cache.hit_rate"] = hit_rates
            differing.append("workload.prefix_cache.hit_rate")
        if differing:
            detail = "; ".join(f"{name} {_shown(ours[name])} vs {_shown(theirs[name])}" for name in differing)
            if "configuration" in differing:
                detail += f" (baseline {base.id} says it is the same server with drafting switched off per request)"
            yield Violation(
                f"baseline {base.id} is not measured on equal terms with run {run.id}: {detail}",
                ("claims", i, "baseline"),
                claim=claim.id,
                ask={"run": run.id, "fields": and_join(differing), "base": base.id},
            )


MATCHED_BY_DESIGN = ("load.concurrency", "load.request_rate", "workload.num_requests")
# Prefix-cache hit rates (record 1.3) further apart than this met a different cache: the prompt work differs.
HIT_RATE_TOLERANCE = 0.05


def _hit_rates(run: Run, base: Run) -> tuple[float | None, float | None] | None:
    """The two runs' prefix-cache hit rates when they differ by more than HIT_RATE_TOLERANCE, or one
    run states one and the other does not; None when they agree."""
    ours, theirs = (r.workload.prefix_cache.hit_rate if r.workload.prefix_cache else None for r in (run, base))
    if ours is None and theirs is None:
        return None
    if ours is not None and theirs is not None and abs(ours - theirs) <= HIT_RATE_TOLERANCE:
        return None
    return ours, theirs


@rule(
    "acceptance-incomparable",
    "error",
    "Acceptance figures are compared across runs whose K, K schedule, adaptive verification or acceptance rule differ",
    rationale="""Acceptance rate and length depend on how many drafts are offered and how they are
    judged: a longer K lowers the rate, adaptive verification varies K per request and step, and relaxed
    acceptance accepts drafts the target would not sample. Such figures cannot be compared.""",
    failing="An acceptance rate of 0.8 at K = 2 presented as an improvement over 0.6 at K = 4.",
    passing="Both runs use K = 3 with the standard acceptance test and no adaptive verification.",
    reference="docs/claims.md, The checklist behind the rules, item 9 (speedups do not compound); vLLM Adaptive Verification, https://docs.vllm.ai/en/stable/features/speculative_decoding/adaptive_verification/",
    ask="Please send the acceptance of runs {run} and {other} measured with the same K, K schedule, verification and acceptance rule; they differ in {differences}.",
)
def acceptance_incomparable(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        if claim.kind not in ("acceptance-rate", "acceptance-length"):
            continue
        run, other = ctx.run(claim.run), ctx.run(claim.baseline)
        if run is None or other is None or run is other:
            continue
        a, b = ctx.configuration(run), ctx.configuration(other)
        if a is None or b is None:
            continue
        differences = []
        ka, kb = ctx.effective_k(run), ctx.effective_k(other)
        if ka != kb:
            differences.append(f"K {_shown(ka)} vs {_shown(kb)}")
        if (a.proposer.k_schedule is None) != (b.proposer.k_schedule is None) or (
            a.proposer.k_schedule and a.proposer.k_schedule != b.proposer.k_schedule
        ):
            differences.append("K schedule differs")
        if a.proposer.adaptive_verification != b.proposer.adaptive_verification:
            differences.append("adaptive verification on in one run only")
        relaxed_a = bool(a.proposer.relaxed_acceptance and a.proposer.relaxed_acceptance.enabled)
        relaxed_b = bool(b.proposer.relaxed_acceptance and b.proposer.relaxed_acceptance.enabled)
        if relaxed_a != relaxed_b:
            differences.append("relaxed acceptance in one run only")
        if differences:
            yield Violation(
                f"acceptance of run {run.id} is compared with run {other.id}, but " + "; ".join(differences),
                ("claims", i, "baseline"),
                claim=claim.id,
                ask={"run": run.id, "other": other.id, "differences": and_join(differences)},
            )


@rule(
    "baseline-same-server",
    "info",
    "The baseline is the speculative server with drafting switched off per request, not a separate target-only deployment",
    rationale="""vLLM and SGLang let a request switch speculation off, so a vendor can measure the
    baseline on the speculative server itself. That is a comparison on equal terms (same deployment,
    same everything but drafting), but not against the best target-only deployment: the server still
    holds the drafter's weights and KV cache in memory and sizes its batches and graphs for
    speculation, so a deployment tuned for the target alone may serve more. The speedup holds against
    that server, and the output says so. The same holds for a target-only baseline whose configuration
    says the drafter's weights stay loaded (record 1.3 proposer.residency: loaded, for example MTP heads
    kept in memory unused): it serves with less memory for KV cache than the target alone.""",
    failing="A speedup whose baseline run states drafting_off: per-request, or whose baseline configuration states proposer.residency: loaded.",
    passing="A speedup whose baseline is a separate target-only deployment (drafting_off: separate-deployment, or not stated).",
    reference="docs/claims.md, Baselines and deployment; docs/claims.md, The checklist behind the rules, item 4 (a baseline on equal terms)",
)
def baseline_same_server(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.claims():
        base = ctx.run(claim.baseline)
        if base is None or claim.baseline == claim.run:
            continue
        cfg = ctx.configuration(base)
        if base.drafting_off != "per-request" and base.arrangement == "target-only" and cfg is not None and cfg.proposer.residency == "loaded":
            yield Violation(
                f"baseline {base.id}'s configuration {cfg.id} keeps the drafter's weights loaded (proposer.residency): the "
                "claim holds against a target-only server with less memory for KV cache than the target alone would have",
                ("claims", i, "baseline"),
                claim=claim.id,
            )
            continue
        if base.drafting_off != "per-request":
            continue
        yield Violation(
            f"baseline {base.id} is run {claim.run}'s own server with drafting switched off per request, not a separate "
            "target-only deployment: the claim holds against that server, which still reserves memory for the drafter; "
            "a deployment of the target alone may serve more",
            ("claims", i, "baseline"),
            claim=claim.id,
        )
