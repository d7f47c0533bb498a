"""Rules about output quality, whether acceptance was real, and repeatability."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..engine.context import Context
from ..engine.record import Configuration, SimulatedAcceptance
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
    implementations that artificially manipulate acceptance rates.""",
    failing="A run whose server environment holds SGLANG_SIMULATE_ACC_LEN=3, or a speculative-config with rejection_sample_method synthetic.",
    passing="The standard rejection sampler, with SGLANG_SIMULATE_ACC_LEN unset or -1 (off).",
    reference=(
        "MLPerf Inference rules, appendix Speculative Decoding ('Implementations that artificially manipulate acceptance "
        "rates are disallowed'), https://github.com/mlcommons/inference_policies/blob/master/inference_rules.adoc; "
        "vLLM vllm/config/speculative.py (rejection_sample_method, synthetic_acceptance_length), "
        "https://github.com/vllm-project/vllm; SGLang python/sglang/srt/speculative/spec_utils.py (SGLANG_SIMULATE_ACC_LEN), "
        "https://github.com/sgl-project/sglang; TensorRT-LLM tensorrt_llm/_torch/speculative/interface.py "
        "(TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS), https://github.com/NVIDIA/TensorRT-LLM"
    ),
    ask="Please send {subject} again with acceptance decided by the target model on real drafts, without {setting}.",
)
def acceptance_simulated(ctx: Context) -> Iterator[Violation]:
    for c, cfg in ctx.used_configurations():
        for path, says, setting in _configuration_settings(c, cfg):
            yield Violation(
                f"{says}: acceptance was forced by the benchmark, not decided by the target model, so its runs say nothing about real traffic",
                path,
                ask={"subject": f"the runs of configuration {cfg.id}", "setting": setting},
            )
    for i, run in enumerate(ctx.record.runs):
        if run.simulated_acceptance is not None:
            setting = _forced(run.simulated_acceptance)
            yield Violation(
                f"run {run.id}'s acceptance was forced ({setting}), not measured on real drafts, "
                "so the run says nothing about what real traffic gets",
                ("runs", i, "simulated_acceptance"),
                run=run.id,
                ask={"subject": f"run {run.id}", "setting": run.simulated_acceptance.mechanism},
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
