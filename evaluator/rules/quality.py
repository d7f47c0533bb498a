"""Rules about output quality, whether acceptance was real, and repeatability."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

from ..engine.context import Context
from ..engine.record import AcceptanceReference, Claim, Configuration, Quality, Run, SimulatedAcceptance
from ..engine.wording import num
from .registry import Violation, rule

# A setting's name, then = or : (quoted or not), then its value.
_SETTING = r"({name})[\s:=\"']{{1,4}}(-?[^\s,;}}\"']+)"
# Benchmark settings that force acceptance, as they appear in a server command, a
# speculative-config JSON or an environment listing, and the values that leave them off.
_FORCING_SETTINGS = (
    # vLLM vllm/config/speculative.py (commit 002e77c1): RejectionSampleMethod "synthetic" accepts
    # drafts at set rates, tuned by synthetic_acceptance_length or synthetic_acceptance_rates.
    (_SETTING.format(name="rejection_sample_method"), lambda value: value != "synthetic"),
    (_SETTING.format(name="synthetic_acceptance_(?:length|rates)"), lambda value: value.lower() in ("null", "none")),
    # SGLang python/sglang/srt/environ.py (commit 21ff4b08): EnvFloat(-1), "turn off if < 0".
    (_SETTING.format(name="SGLANG_SIMULATE_ACC_LEN"), lambda value: (_number(value) or 0) < 0),
    # TensorRT-LLM tensorrt_llm/_torch/speculative/interface.py (commit 00b6d5a2): default 0, off.
    (_SETTING.format(name="TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS"), lambda value: _number(value) == 0),
)


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None  # a shell variable such as $SYNTHETIC_ACCEPT_LEN: set, value unknown


def forcing_settings(text: str | None) -> list[str]:
    """The acceptance-forcing settings a recorded command or environment switches on, as name=value."""
    found = []
    for pattern, off in _FORCING_SETTINGS:
        for m in re.finditer(pattern, text or ""):
            if not off(m.group(2)):
                found.append(f"{m.group(1)}={m.group(2)}")
    return found


# Quality metrics where less is better; every other metric is read as higher-is-better.
_LOWER_IS_BETTER = ("perplexity", "wer", "cer", "error", "loss", "latency")
# With no error stated, a difference within this share of the baseline's score is read as noise: a
# pass rate of 0.86 on 384 items has a standard error of 0.018 (sqrt(p (1 - p) / n)), and judges,
# seeds and sampling move a score by more than 1 % from one evaluation to the next.
QUALITY_TOLERANCE = 0.01


def quality_below(q: Quality) -> str | None:
    """How far the run's score is below the baseline's beyond its uncertainty, in words; None when
    it is not below, or the difference is within the error the result states (else within
    QUALITY_TOLERANCE of the baseline's score)."""
    if q.baseline_score is None:
        return None
    lower_better = any(word in q.metric.lower() for word in _LOWER_IS_BETTER)
    worse_by = (q.score - q.baseline_score) if lower_better else (q.baseline_score - q.score)
    stated = q.score_error
    if stated is not None:
        allowed, what = stated, f"the stated error {num(stated)}"
    else:
        allowed, what = QUALITY_TOLERANCE * abs(q.baseline_score), f"the {num(100 * QUALITY_TOLERANCE)} % tolerance"
    if worse_by <= allowed:
        return None
    return f"{num(round(worse_by, 9))} worse, beyond {what}"  # round: 0.861 - 0.8 is 0.06100000000000005


@rule(
    "quality-missing",
    "error",
    "A performance claim has no task-quality result",
    rationale="""Losslessness is a sampling guarantee, qualified by hardware numerics and batch effects; it
    is not correctness and not identical text. A faster offer must still produce outputs that meet the
    buyer's quality bar on the task, so a performance claim needs a quality result for its run.""",
    failing="A throughput claim on a run with an empty quality list.",
    passing="The run reports pass@1 on the buyer's task, or a greedy-equality check against target-only outputs.",
    reference="docs/claims.md, The checklist behind the rules, item 6 (task quality)",
    ask="Please send a task-quality result for run {run}'s outputs: a score on the task the claim is about, or a greedy-equality check against target-only outputs.",
)
def quality_missing(ctx: Context) -> Iterator[Violation]:
    for _, claim in ctx.performance_claims():
        run = ctx.run(claim.run)
        if run is not None and run.arrangement == "speculative" and not run.quality:
            yield Violation(
                f"run {run.id} reports no task-quality result for the claimed {claim.kind.replace('-', ' ')}",
                ("runs", ctx.run_index[run.id], "quality"),
                claim=claim.id,
                ask={"run": run.id},
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
    reference="docs/claims.md, The checklist behind the rules, item 6 (task quality); TensorRT-LLM speculative decoding (MTP relaxed acceptance), https://nvidia.github.io/TensorRT-LLM/examples/llm_speculative_decoding.html",
    ask="Please send a task-quality result for run {run}, which uses relaxed (lossy) acceptance, and call output lossless only for runs with the standard acceptance test.",
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
                    ask={"run": run.id},
                )
        if not run.quality:
            yield Violation(
                f"run {run.id} uses relaxed (lossy) acceptance and reports no quality result",
                ("runs", i, "quality"),
                run=run.id,
                ask={"run": run.id},
            )


def _forced(setting: SimulatedAcceptance) -> str:
    length = "" if setting.acceptance_length is None else f", acceptance length {num(setting.acceptance_length)}"
    return f"{setting.mechanism}{length}"


def forced_lengths(text: str | None) -> list[tuple[str, float]]:
    """(setting, the acceptance length it forces) for each forcing setting with a numeric value in a
    command or environment. TensorRT-LLM's variable counts accepted drafts only, so it forces its value
    plus the target's own token (InferenceX golden_al_distribution/README.md: 'set it to the golden AL
    minus 1')."""
    out = []
    for setting in forcing_settings(text):
        name, _, value = setting.partition("=")
        v = _number(value)
        if v is None or name in ("rejection_sample_method", "synthetic_acceptance_rates"):
            continue
        out.append((setting, v + 1 if name == "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS" else v))
    return out


def _configuration_settings(c: int, cfg: Configuration) -> Iterator[tuple[tuple, str, str]]:
    """(where, what the record says, the setting) for each way the configuration forces acceptance."""
    forced = cfg.proposer.simulated_acceptance
    if forced is not None:
        path = ("configurations", c, "proposer", "simulated_acceptance")
        yield path, f"configuration {cfg.id} forces acceptance ({_forced(forced)})", forced.mechanism
    for name, words in (("flags", "server command"), ("environment", "environment")):
        settings = ", ".join(forcing_settings(getattr(cfg.runtime, name)))
        if settings:
            yield ("configurations", c, "runtime", name), f"configuration {cfg.id}'s {words} sets {settings}", settings


# Claims about what the system delivers: a run pinned to a stated acceptance can support them at that
# acceptance. Everything else (a speedup, acceptance figures, losslessness, a rate of drafts) is about
# the drafter, or the output, which a forced acceptance does not measure.
_SYSTEM_KINDS = ("output-throughput", "latency", "capacity")
_DRAFT_COUNTED = ("acceptance-length", "acceptance-rate", "accepted-drafts", "proposed-drafts")


def system_claim(claim: Claim) -> bool:
    return claim.kind in _SYSTEM_KINDS and claim.counted not in _DRAFT_COUNTED


def pinned_words(ref: AcceptanceReference) -> str:
    """The pinning as the output states it: 'acceptance length 2.97 (InferenceX golden_al_distribution, model x, thinking, K = 3)'."""
    parts = [ref.name] + [p for p in (ref.model and f"model {ref.model}", ref.mode, ref.k is not None and f"K = {ref.k}") if p]
    return f"acceptance length {num(ref.acceptance_length)} ({', '.join(parts)})"


def _about_drafter(claim: Claim) -> str:
    if claim.kind == "speedup":
        return "a speedup, which credits the drafter's acceptance"
    if claim.kind == "lossless":
        return "lossless output, while forced acceptance keeps drafts the target did not accept"
    if claim.kind in ("acceptance-rate", "acceptance-length") or claim.counted in _DRAFT_COUNTED:
        return "an acceptance figure, which is the drafter's"
    return f"a {claim.kind.replace('-', ' ')} figure"


def _pinned_claims(ctx: Context, pinned: set[int]) -> Iterator[Violation]:
    """Each claim resting on a pinned run (by index: with a duplicate id, the run a claim's id resolves
    to) that the pinning cannot support, and why."""
    for c, claim in ctx.claims():
        for role, run_id in (("run", claim.run), ("baseline", claim.baseline)):
            run = ctx.run(run_id)
            if run is None or ctx.run_index[run.id] not in pinned or (role == "baseline" and claim.baseline == claim.run):
                continue
            ref = ctx.pinning(run)
            assert ref is not None  # pinned holds the indices of the runs with a pinning
            pin = pinned_words(ref)
            setting = _run_setting(ctx, run)
            alternative = ""
            if role == "baseline":
                says = f"claim {claim.id} is compared with run {run.id}, whose acceptance was pinned to {pin}: a pinned baseline measures no real acceptance"
            elif not system_claim(claim):
                says = (
                    f"claim {claim.id} states {_about_drafter(claim)}, but run {run.id}'s acceptance was pinned to {pin}, "
                    "not decided by the target on the drafter's proposals: a pinned run says what the system does at that acceptance, nothing about the drafter"
                )
            elif claim.at_pinned_acceptance is None:
                says = (
                    f"claim {claim.id} rests on run {run.id}, whose acceptance was pinned to {pin}, but does not say it holds only at that "
                    "pinned acceptance (at_pinned_acceptance), so it reads as what real traffic gets"
                )
                alternative = f", or state that claim {claim.id} holds only at the pinned acceptance length {num(ref.acceptance_length)}"
            else:
                continue  # a system claim at the stated pinning: acceptance-pin-mismatch checks they agree
            yield Violation(
                says,
                ("claims", c, role),
                claim=claim.id,
                ask={"subject": f"run {run.id}", "setting": setting, "alternative": alternative},
            )


def _run_setting(ctx: Context, run: Run) -> str:
    """The setting that forced the run's acceptance, as the record states it."""
    cfg = ctx.configuration(run)
    for forced in (run.simulated_acceptance, cfg.proposer.simulated_acceptance if cfg else None):
        if forced is not None:
            return forced.mechanism
    settings = [s for name in ("flags", "environment") for s in forcing_settings(getattr(cfg.runtime, name) if cfg else None)]
    return ", ".join(settings) or "the forced acceptance"


@rule(
    "acceptance-simulated",
    "error",
    "Acceptance was forced by a benchmark setting instead of decided by the target on real drafts",
    rationale="""Benchmark harnesses can force acceptance: vLLM's synthetic rejection sampler
    (rejection_sample_method synthetic, with synthetic_acceptance_length or synthetic_acceptance_rates)
    accepts drafts at set rates whether or not the target agrees, SGLang's SGLANG_SIMULATE_ACC_LEN fixes
    the acceptance length (and overwrites the emitted tokens), TensorRT-LLM's
    TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS fixes the accepted drafts per step. Published suites use them
    to pin acceptance to a chosen curve. The throughput of such a run is what the engine does at that
    acceptance, not what real traffic gets, and its output is not the target's; MLPerf Inference disallows
    implementations that artificially manipulate acceptance rates. When the run states the reference its
    acceptance was pinned to (record 1.2), a claim about the system made at that acceptance can stand,
    as such; a speedup, an acceptance figure or losslessness cannot, since the drafter's real acceptance
    was never measured.""",
    failing="A run whose server environment holds SGLANG_SIMULATE_ACC_LEN=3, or a speculative-config with rejection_sample_method synthetic; or a speedup from a run pinned to a golden acceptance length.",
    passing="The standard rejection sampler, with SGLANG_SIMULATE_ACC_LEN unset or -1 (off); or an output-throughput claim stated at the run's pinned acceptance length.",
    reference=(
        "MLPerf Inference rules, appendix Speculative Decoding ('Implementations that artificially manipulate acceptance "
        "rates are disallowed'), https://github.com/mlcommons/inference_policies/blob/master/inference_rules.adoc; "
        "vLLM vllm/config/speculative.py (rejection_sample_method, synthetic_acceptance_length), "
        "https://github.com/vllm-project/vllm; SGLang python/sglang/srt/speculative/spec_utils.py (SGLANG_SIMULATE_ACC_LEN), "
        "https://github.com/sgl-project/sglang; TensorRT-LLM tensorrt_llm/_torch/speculative/interface.py "
        "(TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS), https://github.com/NVIDIA/TensorRT-LLM; "
        "InferenceX golden_al_distribution/README.md, https://github.com/SemiAnalysisAI/InferenceX"
    ),
    ask="Please send {subject} again with acceptance decided by the target model on real drafts, without {setting}{alternative}.",
)
def acceptance_simulated(ctx: Context) -> Iterator[Violation]:
    # Runs pinned to a stated reference are judged claim by claim (record 1.2); the others as a whole.
    pinned = {i for i, run in enumerate(ctx.record.runs) if ctx.pinning_judged() and ctx.pinning(run) is not None}
    for c, cfg in ctx.used_configurations():
        runs = [(i, run) for i, run in enumerate(ctx.record.runs) if run.configuration == cfg.id]
        for path, says, setting in _configuration_settings(c, cfg):
            if not any(i in pinned for i, _ in runs):
                yield Violation(
                    f"{says}: acceptance was forced by the benchmark, not decided by the target model, so its runs say nothing about real traffic",
                    path,
                    ask={"subject": f"the runs of configuration {cfg.id}", "setting": setting, "alternative": ""},
                )
                continue
            for i, run in runs:
                if i not in pinned:
                    yield Violation(
                        f"{says}, and run {run.id} states no pinned reference: acceptance was forced by the benchmark, "
                        "not decided by the target model, so the run says nothing about real traffic",
                        ("runs", i, "configuration"),
                        run=run.id,
                        ask={"subject": f"run {run.id}", "setting": setting, "alternative": ""},
                    )
    for i, run in enumerate(ctx.record.runs):
        if run.simulated_acceptance is not None and i not in pinned:
            setting = _forced(run.simulated_acceptance)
            yield Violation(
                f"run {run.id}'s acceptance was forced ({setting}), not measured on real drafts, "
                "so the run says nothing about what real traffic gets",
                ("runs", i, "simulated_acceptance"),
                run=run.id,
                ask={"subject": f"run {run.id}", "setting": run.simulated_acceptance.mechanism, "alternative": ""},
            )
    yield from _pinned_claims(ctx, pinned)


def _same(a: float, b: float) -> bool:
    """Equal but for float noise: within 1e-9 of the larger, or of 1."""
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


@rule(
    "acceptance-pin-mismatch",
    "error",
    "The acceptance a claim or run says was pinned does not agree with the pinning the run states",
    rationale="""A claim made at pinned acceptance holds only at the acceptance length the run was
    really pinned to: another value is another operating point (InferenceX's golden curves give one
    value per model, thinking mode and K, and a submission may not substitute another). The claim's
    stated value, the reference's value and K, and the value the setting forces must agree;
    TensorRT-LLM's TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS counts drafts only, so it forces its
    value plus one.""",
    failing="A claim at pinned acceptance length 2.97 on a run pinned to 3.24; or a run pinned to 3.24 whose environment sets SGLANG_SIMULATE_ACC_LEN=3.5.",
    passing="The claim states 3.24, the run is pinned to the reference's 3.24 for its K, and its setting forces 3.24 (or TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=2.24).",
    reference="docs/claims.md, Pinned acceptance; InferenceX golden_al_distribution/README.md (Fairness Guidelines for AgentX), https://github.com/SemiAnalysisAI/InferenceX",
    ask="Please state the acceptance length {subject} was pinned to, the reference value for its model, mode and K, and the setting that forced it, so that they agree: {detail}.",
)
def acceptance_pin_mismatch(ctx: Context) -> Iterator[Violation]:
    for c, claim in ctx.claims():
        run = ctx.run(claim.run)
        if claim.at_pinned_acceptance is None or run is None:
            continue
        ref = ctx.pinning(run)
        if ref is None:
            detail = f"claim {claim.id} says it holds at pinned acceptance length {num(claim.at_pinned_acceptance)}, but run {run.id} states no pinned acceptance"
        elif not _same(claim.at_pinned_acceptance, ref.acceptance_length):
            detail = (
                f"claim {claim.id} says it holds at pinned acceptance length {num(claim.at_pinned_acceptance)}, "
                f"but run {run.id} was pinned to {pinned_words(ref)}"
            )
        else:
            continue
        yield Violation(detail, ("claims", c, "at_pinned_acceptance"), claim=claim.id, ask={"subject": f"run {run.id}", "detail": detail})
    for i, run in enumerate(ctx.record.runs):
        ref = ctx.pinning(run)
        if ref is None:
            continue
        cfg = ctx.configuration(run)
        forced = [(f.mechanism, f.acceptance_length) for f in (run.simulated_acceptance, cfg.proposer.simulated_acceptance if cfg else None) if f]
        if cfg is not None:
            forced += forced_lengths(cfg.runtime.flags) + forced_lengths(cfg.runtime.environment)
        for setting, length in forced:
            if length is not None and not _same(length, ref.acceptance_length):
                detail = f"run {run.id} was pinned to {pinned_words(ref)}, but {setting} forces acceptance length {num(length)}"
                yield Violation(detail, ("runs", i, "simulated_acceptance"), run=run.id, ask={"subject": f"run {run.id}", "detail": detail})
        k = ctx.effective_k(run)
        if ref.k is not None and k is not None and ref.k != k:
            detail = f"run {run.id} was pinned to the reference value for K = {ref.k}, but drafts K = {k}"
            yield Violation(detail, ("runs", i, "simulated_acceptance"), run=run.id, ask={"subject": f"run {run.id}", "detail": detail})


@rule(
    "acceptance-pinned",
    "info",
    "A claim about the system holds at a pinned acceptance length, not at what real traffic gets",
    rationale="""A run pinned to a published acceptance length (InferenceX's golden curves) measures what
    the serving system delivers at that acceptance, the same for every submission, so systems can be
    compared. It says nothing about the acceptance a buyer's traffic gets with this drafter: the claim
    is established as a figure at that acceptance, and the output says so.""",
    failing="An output-throughput claim stated at the run's pinned acceptance length 2.97.",
    passing="An output-throughput claim on a run whose acceptance the target decided.",
    reference="docs/claims.md, Pinned acceptance; InferenceX golden_al_distribution/README.md, https://github.com/SemiAnalysisAI/InferenceX",
)
def acceptance_pinned(ctx: Context) -> Iterator[Violation]:
    for c, claim in ctx.claims():
        run = ctx.run(claim.run)
        ref = ctx.pinning(run)
        if (
            ref is None
            or claim.at_pinned_acceptance is None
            or not system_claim(claim)
            or not _same(claim.at_pinned_acceptance, ref.acceptance_length)
        ):
            continue
        yield Violation(
            f"claim {claim.id} holds at pinned {pinned_words(ref)}, the acceptance run {claim.run} was forced to: "
            "it says what the system delivers at that acceptance, not what real traffic gets with this drafter",
            ("claims", c, "at_pinned_acceptance"),
            claim=claim.id,
        )


@rule(
    "single-run",
    "warning",
    "Stochastic sampling without each repetition's figures (no spread)",
    rationale="""With temperature above 0 the output, and with it the acceptance and the throughput, changes
    from run to run. One repetition gives one draw; without repetitions there is no spread, and no way to
    tell a real difference from noise. "Mean of 3 runs" without each run's figures is a spread nobody can
    see.""",
    failing="temperature 0.7 and one repetition (or none listed), or 'mean of 3 runs' without their figures.",
    passing="temperature 0.7 and three repetitions with their figures, or greedy decoding.",
    reference="docs/claims.md, The checklist behind the rules, item 8 (task dependence and repeatability)",
)
def single_run(ctx: Context) -> Iterator[Violation]:
    for i, run in enumerate(ctx.record.runs):
        cfg = ctx.configuration(run)
        if cfg is None or not cfg.sampling.temperature:
            continue
        summary = run.repetition_summary
        if len(run.repetitions) < 2 and summary is not None and summary.count >= 2:
            of = f" ({summary.statistic})" if summary.statistic else ""
            yield Violation(
                f"run {run.id} samples at temperature {cfg.sampling.temperature} and states {summary.count} "
                f"repetitions{of} but not each one's figures, so no spread",
                ("runs", i, "repetitions"),
                run=run.id,
            )
        elif len(run.repetitions) < 2:
            yield Violation(
                f"run {run.id} samples at temperature {cfg.sampling.temperature} but has "
                f"{len(run.repetitions) or 'no'} repetition{'s' if len(run.repetitions) != 1 else ''}, so no spread",
                ("runs", i, "repetitions"),
                run=run.id,
            )
