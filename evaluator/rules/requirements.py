"""Rules about fit to the buyer's requirements profile (`sdeval assess ... --requirements`).

These judge an offer against a buyer, not a record on its own, so they have no `check`
over a single record: buyer/ (evidence, loads, quality, economics) applies them and names them in each requirement x
offer result. They are registered here so `sdeval rules` lists and explains them.
"""

from __future__ import annotations

from .registry import Rule, register

# The codes of this family, for tests and listings: they are judged per requirement x offer,
# so their cases live in tests/buyer/test_requirements.py rather than in record rule cases.
FIT_CODES: tuple[str, ...] = ()

_BRIEF = "docs/claims.md, The checklist behind the rules, items 3 (load), 4 (baseline), 5 (identity), 6 (quality) and 8 (task)"


def _fit(code: str, title: str, rationale: str, failing: str, passing: str, reference: str, ask: str) -> Rule:
    global FIT_CODES
    FIT_CODES += (code,)
    return register(Rule(code, "error", title, " ".join(rationale.split()), failing, passing, reference, ask=ask))


LOAD_UNCOVERED = _fit(
    "requirement-load-uncovered",
    "No run at, or on both sides of, a load the buyer will run",
    """Speculation behaves differently at each load: at concurrency 1 draft positions are nearly free, at
    high concurrency they compete with real tokens, and a dynamic K schedule changes the arrangement from
    band to band. A figure is known at a measured load and, bounded by the two, between two measured
    loads of the same configuration and K band; beyond the measured range nothing is known, and sdeval
    does not extrapolate.""",
    "Buyer at concurrency 32 to 128; the offer was measured at concurrency 1 and 8 only.",
    "Runs at concurrency 32, 64 and 128, or at 16 and 256 within one K band.",
    "docs/claims.md, The checklist behind the rules, item 3 (the load it was measured at); vLLM Dynamic Speculative Decoding, https://docs.vllm.ai/en/stable/features/speculative_decoding/dynamic_speculative_decoding/",
    "Please send runs at the loads you will run, or at loads on both sides of each within one K band.",
)

BETWEEN_LOADS = _fit(
    "requirement-between-loads",
    "A required load lies between two measured loads, and the requirement is met at only one of them",
    """Between two measured loads a figure is taken to lie between the two measured values (latency
    rises and throughput changes steadily with load). When both meet the requirement it is met in
    between; when neither does it is not; when one does and the other does not, the crossing lies
    somewhere in between and where was not measured. sdeval does not guess it with a straight line.""",
    "Aggregate minimum 1500 tokens/s at concurrency 32; measured 553 tokens/s at 8 and 2226 at 64.",
    "A run at concurrency 32, or both neighbouring runs above 1500 tokens/s.",
    "docs/claims.md, The checklist behind the rules, item 3 (the load it was measured at)",
    "Please send a run at the load between the two measured ones that you will run.",
)

SLO_NOT_MET = _fit(
    "slo-not-met",
    "A latency percentile is not below the buyer's limit at a required load",
    """A response-time limit is a promise about the slowest requests a user sees. The offer's measured
    percentile (time to first token, time per output token, inter-token or end-to-end latency) must be
    below the limit at every load the buyer will run; MLPerf Inference judges LLM results the same way,
    p99 TTFT and p99 TPOT each strictly below the benchmark's limit.""",
    "Limit: p99 end-to-end below 20000 ms at concurrency 64; the run measured 23500 ms.",
    "The run at concurrency 64 measured p99 end-to-end 19800 ms.",
    "MLPerf Inference submission checker (llm_check, LLM_LATENCY_LIMITS), https://github.com/mlcommons/inference/tree/master/tools/submission",
    "Please show how the offer meets your latency limit at that load, or send a configuration measured below it.",
)

THROUGHPUT_BELOW = _fit(
    "throughput-below-requirement",
    "Output throughput, per request or in aggregate, is below the buyer's minimum at a required load",
    """Only emitted output tokens over a complete measured interval are an output throughput (E / T).
    Per request, a closed-loop run at concurrency c gives each request E / T / c tokens/s on average;
    in aggregate the deployment emits E / T. Either must reach the buyer's minimum at every required load.""",
    "Requirement: 180 output tokens/s per request at concurrency 1; the run emits 150 tokens/s.",
    "SD-201 offer B: 15 tokens in 0.075 s at concurrency 1, 200 tokens/s per request.",
    "docs/claims.md, What a claim needs before it counts (the figures and their formulas); docs/claims.md, The checklist behind the rules, item 1 (output, not acceptance)",
    "Please show how the offer reaches your minimum output throughput at that load, or send a configuration measured above it.",
)

QUALITY_BELOW = _fit(
    "quality-below-threshold",
    "A task-quality score is below the buyer's threshold",
    """Losslessness is a sampling guarantee, not correctness: the offer's outputs must meet the buyer's
    quality bar on the buyer's task, as an absolute score or as a share of the baseline's score on the
    same task and metric. The lowest score among the offer's runs decides.""",
    "Threshold: at least 0.99 of the baseline's rubric pass rate; the offer scores 0.84 against 0.861.",
    "The offer scores 0.858 against the baseline's 0.861 (0.9965 of it) with a threshold of 0.98.",
    "docs/claims.md, The checklist behind the rules, item 6 (task quality)",
    "Please send a configuration whose task-quality score meets your threshold, measured on your task.",
)

SAMPLING_MISMATCH = _fit(
    "sampling-mismatch",
    "The offer's evidence was sampled differently from the buyer's sampling policy",
    """Acceptance, and with it throughput and latency, depends on the sampling policy: greedy decoding
    accepts more drafts than sampling at temperature 0.7. A result measured under another temperature,
    top-p, top-k or n answers a different question than the buyer's.""",
    "Buyer samples at temperature 0.7; the offer was measured with greedy decoding (temperature 0).",
    "Buyer and offer both at temperature 0.7, top-p 0.95.",
    "docs/claims.md, The checklist behind the rules, item 4 (a baseline on equal terms) and item 5 (configuration identity)",
    "Please send runs measured with your sampling settings (temperature, top-p, top-k and n).",
)

SCOPE_MISMATCH = _fit(
    "scope-mismatch",
    "The offer's interval scope differs from the one the buyer's requirements are about",
    """A generation-only interval leaves out prompt processing, queueing and delivery, so it says nothing
    about the time a user waits; an end-to-end interval includes them, so it is not a generation speed.
    Evidence counts for the buyer only over the interval the buyer's requirements are about.""",
    "Buyer's limits are end-to-end; the offer's runs were timed generation-only.",
    "Buyer and offer runs both end-to-end.",
    "docs/claims.md, The checklist behind the rules, item 2 (a complete measured interval)",
    "Please send runs timed over the interval your requirements are about (end-to-end or generation-only).",
)

TASK_MISMATCH = _fit(
    "task-mismatch",
    "The offer's evidence was measured on a task the buyer does not run",
    """Speedup and quality depend on the task: EAGLE-2 on Vicuna-7B reached 2.66x on maths reasoning and
    1.78x on translation (Spec-Bench, RTX 3090, batch 1). Evidence counts for the buyer only on the
    buyer's own tasks.""",
    "Buyer runs customer-support chat; the offer measured code completion.",
    "The offer's runs and quality results name the buyer's task.",
    "docs/claims.md, The checklist behind the rules, item 8 (task dependence and repeatability); Spec-Bench, https://github.com/hemingkx/Spec-Bench",
    "Please send runs and quality results measured on your own task.",
)

FIGURE_MISSING = _fit(
    "requirement-figure-missing",
    "A run at a required load lacks the figure a requirement is judged on",
    """A requirement is met only by a measured figure: a latency limit needs that latency at that
    percentile, a per-request throughput needs a closed-loop concurrency, a quality share needs the
    baseline's score. Missing is not zero and not a pass.""",
    "Limit on p99 time to first token; the run at concurrency 64 reports only the p50.",
    "The run reports p50 and p99 time to first token.",
    _BRIEF,
    "Please send the figure the requirement is judged on (the latency percentile, closed-loop concurrency or baseline score) for the run at that load.",
)

TASK_MIX_UNCOVERED = _fit(
    "task-mix-uncovered",
    "The offer's speculative runs do not give a speedup with an interval for every task of the buyer's traffic mix",
    """A speedup depends on the text generated, so a buyer who states a traffic mix (task_mix) is judged
    on the speedup of that mix: each task's paired per-prompt speedup (record 1.3, runs[].per_task)
    weighted by the task's share. A run that does not split its requests by the buyer's tasks, or whose
    task has too few paired prompts for an interval, cannot say what the mix gains; its one mixed figure
    is for someone else's traffic.""",
    "task_mix: {code: 0.8, prose: 0.2}; the offer's runs have no per-task figures, or none for code.",
    "Every speculative run splits by task, with code and prose each holding an interval.",
    "docs/measure.md, Per task; docs/claims.md, The checklist behind the rules, item 8 (task dependence and repeatability)",
    "Please send runs split by task (per-task paired speedups with their intervals) covering the tasks of our traffic.",
)

TASK_MIX_NO_SPEEDUP = _fit(
    "task-mix-no-speedup",
    "Weighted by the buyer's traffic mix, speculation is not faster beyond the noise",
    """Weighted by the buyer's task shares, the per-task speedups give the speedup of the buyer's own
    traffic: 1 / sum(w / s), the time the mix takes with speculation against without (a weighted
    harmonic mean; the shares are of output tokens). Its range runs from the same mean over each task's
    interval ends (each task 95 %; together at least 1 - 0.05 x the number of tasks). Where that range
    reaches 1.0, the offer may not speed the buyer's traffic up at all, however fast the mixed run was.""",
    "task_mix: {code: 1}; code's paired speedup 0.8x [0.7, 0.9] on a run that gave 2.1x mixed.",
    "task_mix: {maths: 1}; maths 2.9x [2.6, 3.1].",
    "docs/measure.md, Per task",
    "Please show a speedup for our traffic mix whose range lies above 1.0, or tell us which tasks speculation should be switched off for.",
)

IDENTITY_MISMATCH = _fit(
    "identity-mismatch",
    "The offered configuration differs from the identity the buyer pinned",
    """What the buyer receives must be what was measured, and what the buyer will run: a different target
    model or revision, drafter, number format, runtime version or accelerator is a different offer, even
    when its evidence is established. The buyer pins the identity fields that must have given values.""",
    "Buyer pins hardware.accelerator: NVIDIA H100 SXM5 80GB; the offer was measured on another accelerator.",
    "The offer's configuration states exactly the pinned target model and accelerator.",
    "docs/claims.md, The checklist behind the rules, item 5 (configuration identity)",
    "Please send evidence measured with the configuration you pinned (target model, drafter, number format, runtime or accelerator).",
)


RELAXED_REFUSED = _fit(
    "relaxed-acceptance-refused",
    "The offer uses relaxed (lossy) acceptance, which the buyer does not accept",
    """Relaxed acceptance (TensorRT-LLM MTP use_relaxed_acceptance_for_thinking) accepts drafts the
    target would not have sampled, so the output distribution is no longer the target's. A buyer who
    requires lossless speculation cannot take such an offer, whatever its quality results.""",
    "lossy_acceptance_allowed: false; the offer's configuration has relaxed_acceptance.enabled: true.",
    "The offer uses the standard acceptance test.",
    "docs/claims.md, The checklist behind the rules, item 6 (task quality); TensorRT-LLM speculative decoding (MTP relaxed acceptance), https://nvidia.github.io/TensorRT-LLM/examples/llm_speculative_decoding.html",
    "Please send evidence measured with the standard, lossless acceptance test.",
)


COST_BASIS_MISSING = _fit(
    "cost-basis-missing",
    "No cost per output token: the buyer's price or the configuration's accelerator count is missing",
    """A cost per million output tokens is the hourly price of the hardware an offer runs on, divided by
    the output tokens it emits in an hour: price per accelerator-hour x accelerators / (E / T) / 3600 x
    1,000,000, as InferenceX and the cloud price sheets compute it. Without the buyer's price, or without
    the number of accelerators the configuration ran on, there is no cost to give. A missing price is not
    a free offer, and a missing accelerator count is not one accelerator: no cost is shown, and this
    code says why.""",
    "The requirements profile states latency limits but no price block; or a configuration has no hardware.count.",
    "price: {currency: USD, per_accelerator_hour: 2.40}, and every offered configuration states hardware.count.",
    "InferenceX (SemiAnalysis), cost per million tokens by throughput per GPU, https://github.com/SemiAnalysisAI/InferenceX",
    "Please state how many accelerators each offered configuration runs on (hardware.count), so its cost per million output tokens can be computed.",
)
