"""The evidence record: everything a speculative-decoding claim needs, as pydantic models.

The committed JSON Schema (schemas/evidence-record.schema.json) is generated from
these models (`sdeval schema`), and every description below becomes help text in
the blank form (`sdeval init`) and the browser form. Write them for a buyer.

Counts follow the brief's symbols: S verification steps, P proposed drafts,
A accepted drafts, B bonus/correction tokens, E emitted output tokens.
Nothing derived (rates, lengths, tokens/s) is stored here: metrics.py computes
it from counts and intervals, so a vendor's own figure can only be compared,
never copied.

Record 1.1 adds, all optional so every 1.0 record loads unchanged: an undated offer,
claims stated as a range or a bound, per-user throughput, repetitions stated without
their figures, an interval timed around the whole generation call, more proposer
families, the server's environment, and simulated (forced) acceptance.

Record 1.2 adds D, the tokens a target emitted outside verification steps
(counts.outside_step_tokens), so E = A + B + D holds for a real engine; `sdeval measure`
writes 1.2. Every 1.0 and 1.1 record loads unchanged.

Record 1.2 also adds, all optional: acceptance pinned to a named reference (a golden acceptance
length) and a claim stated at that pinning; a target-only run that is the speculative server with
drafting switched off per request; parallelism, the MoE kernel backend and clock/power settings;
a run's TTFT definition, warm-up and per-query salting (MLPerf Endpoints). It also adds
the claim forms 2026's claims use (docs/claims.md, "How the form a claim is written in changes
it"): a cost per million output tokens at a stated price, a figure written as a change against
its baseline, throughput per accelerator, a comparison at matched interactivity over each side's
sweep, and a value copied from a tool's rounded print.

Record 1.3 is additive as well: every 1.0, 1.1 and 1.2 record loads and is judged unchanged
(docs/record.md, "Record 1.3", lists what it adds).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .. import RECORD_VERSION  # noqa: E402,F401  (defined with the package version; see evaluator/__init__.py)
from .record_deployment import (  # noqa: F401  (record 1.3's deployment and conditions; Parallelism re-exported)
    Adaptation,
    Deployment,
    KLengthBand,
    KScheduleKind,
    Parallelism,
    PrefixCache,
    ToolVerdict,
    ValidityGates,
)
from .record_types import (  # noqa: F401  (re-exported: the record's types are imported from here)
    MAX_COUNT,
    Count,
    DraftLength,
    Fraction01,
    Ident,
    IdentityText,
    LinesText,
    LongText,
    NonNegFloat,
    PositiveCount,
    Seconds,
    SignedFloat,
    Text,
    Whole,
    _Model,
)

# Every version this tool reads; each is a valid record of the next (1.0 of 1.1, 1.1 of 1.2, 1.2 of 1.3).
READ_VERSIONS = ("1.0", "1.1", "1.2", "1.3")
SCHEMA_ID = "https://sdeval.example/schemas/evidence-record/1.1/evidence-record.schema.json"


# --------------------------------------------------------------------------- offer


RecordSource = Literal["vendor", "buyer-transcribed", "buyer-measured", "tool"]


class Offer(_Model):
    vendor: IdentityText = Field(description="Company making the offer, as named on its documents.")
    offer_id: IdentityText = Field(description="The vendor's reference for this offer (quote or proposal number).")
    date: str | None = Field(
        default=None,
        pattern=r"^\d{4}-\d{2}-\d{2}$",
        description="Date of the offer document, YYYY-MM-DD. Leave out when the material states no date "
        "(a README or a documentation page often does not); the report then says 'not stated'.",
    )
    contact: Text | None = Field(default=None, description="Who at the vendor answers questions about the evidence.")
    claim_text: LongText = Field(
        description="The vendor's performance claim exactly as written in their material, copied verbatim "
        "(for example 'up to 3x faster generation'). Kept for the record; the typed claims below are what is judged."
    )
    source_documents: list[Text] = Field(
        default_factory=list,
        max_length=100,
        description="Documents the evidence was taken from (slide deck, benchmark report, email), by name or link.",
    )
    source: RecordSource | None = Field(
        default=None,
        description="Record 1.3: who made this record, which decides whom each request addresses. vendor: the vendor wrote it "
        "(ask the vendor); buyer-transcribed: the buyer typed it from the vendor's material, as `sdeval init` starts it (fill in "
        "what is missing from that material, or ask the vendor for it); buyer-measured: the buyer measured it, as "
        "`sdeval measure` writes it (measure again); tool: a program wrote it from benchmark output (fill in what the "
        "tool could not state). Left out: vendor.",
    )


# ------------------------------------------------------------ configuration identity

ProposerMethod = Literal[
    "draft-model",
    "eagle",
    "eagle-2",
    "eagle-3",
    "medusa",
    "hydra",
    "recurrent-drafter",
    "mlp-speculator",
    "ngram",
    "suffix",
    "lookahead",
    "jacobi",
    "mtp",
    "combined",
    "dspark",
    "dflash",
    "atlas",
    "other",
    "none",
]
# Proposers that guess from the text itself (the prompt, the output so far, or parallel
# Jacobi iterations of the target): no separate drafter model to identify.
MODEL_FREE_METHODS = ("ngram", "suffix", "lookahead", "jacobi", "none")


class TargetModel(_Model):
    model: IdentityText | None = Field(
        default=None, description="The large model whose output the user receives (for example 'meta-llama/Llama-3.1-70B-Instruct')."
    )
    revision: Text | None = Field(
        default=None,
        description="Exact revision of the target model weights (commit hash or release tag). A different revision is a different comparison.",
    )
    tokenizer: Text | None = Field(
        default=None, description="Tokenizer used to count tokens; token counts from different tokenizers are not comparable."
    )
    tokenizer_revision: Text | None = Field(default=None, description="Exact revision of the tokenizer.")


class KBand(_Model):
    min_concurrency: Count = Field(description="Lowest number of concurrent requests this band covers (inclusive).")
    max_concurrency: Count = Field(description="Highest number of concurrent requests this band covers (inclusive).")
    k: DraftLength = Field(description="Draft tokens proposed per step in this band; 0 means speculation is switched off.")


class RelaxedAcceptance(_Model):
    enabled: bool = Field(
        description="True when drafts may be accepted that the target would not have sampled (for example TensorRT-LLM use_relaxed_acceptance_for_thinking). Such acceptance is lossy by design."
    )
    top_k: Count | None = Field(default=None, description="A draft is accepted if it is among the target's top-k candidates (relaxed_topk).")
    delta: NonNegFloat | None = Field(
        default=None, description="Largest log-probability distance from the target's top token at which a draft is still accepted (relaxed_delta)."
    )
    threshold_single: Fraction01 | None = Field(
        default=None,
        description="A draft token is accepted when the target gives it at least this probability (SGLang --speculative-accept-threshold-single); below 1 this accepts tokens the target would not have sampled.",
    )
    description: Text | None = Field(
        default=None,
        description="The acceptance or sampling mode in the source's own words, when the source says it may not preserve the target's output distribution.",
    )


class Proposer(_Model):
    method: ProposerMethod = Field(
        description="How candidate tokens are proposed: a separate draft model, EAGLE heads, Medusa or Hydra heads, a recurrent drafter (ReDrafter), an MLP or LSTM speculator, n-gram or suffix matching, lookahead (Jacobi iteration with an n-gram pool) or plain Jacobi decoding, multi-token-prediction (MTP) heads, record 1.3's DSpark, DFlash (a block-diffusion drafter) and ATLAS (an online-adapted speculator), combined (one proposer with another as fallback: name the fallback in fallback_method), another family (other, named in method_name), or none for target-only decoding."
    )
    method_name: Text | None = Field(
        default=None, description="The method as the vendor names it (for example 'P-EAGLE', 'EAGLE 3.1', 'DSpark'). Required when method is other."
    )
    fallback_method: ProposerMethod | None = Field(
        default=None,
        description="For a combined proposer: the method used when the main one proposes nothing (for example a trained speculator with suffix decoding as fallback).",
    )
    model: IdentityText | None = Field(
        default=None, description="Identity of the drafter (model name or heads checkpoint). Not needed for n-gram, suffix or none."
    )
    revision: Text | None = Field(default=None, description="Exact revision of the drafter.")
    k: DraftLength | None = Field(
        default=None,
        description="Draft tokens proposed per verification step (num_speculative_tokens), when fixed. Lookahead and Jacobi decoding have no single K: state their window and n-gram settings in the runtime flags instead.",
    )
    k_schedule: list[KBand] | None = Field(
        default=None,
        max_length=64,
        description="K by concurrency band, when the draft length changes with load (vLLM dynamic speculative decoding). Give this or k.",
    )
    adaptive_verification: bool = Field(
        default=False,
        description="True when K varies per request and step under a global token budget (vLLM adaptive verification). Acceptance figures are then not comparable with fixed-K runs.",
    )
    online_adapted: bool = Field(
        default=False, description="True when the drafter keeps learning from live traffic, so its acceptance drifts over time."
    )
    # Record 1.3 (record_deployment.py): the K schedule's kind, K by sequence length, residency, adaptation.
    k_schedule_kind: KScheduleKind | None = Field(
        default=None,
        description="Record 1.3: how K is chosen: fixed (k), per concurrency band (k_schedule, vLLM's per-concurrency table), per sequence length (k_by_length), or adaptive (confidence-scheduled verification, adaptive_verification). Steps sent to K = 0 are counted in counts.scheduled_steps_by_k.",
    )
    k_by_length: list[KLengthBand] | None = Field(
        default=None, max_length=64, description="Record 1.3: K by sequence length, when the draft length changes with how long the sequence is."
    )
    residency: Literal["loaded", "not-loaded"] | None = Field(
        default=None,
        description="Record 1.3: whether the drafter's weights (for example MTP heads inside the target checkpoint) are held in accelerator memory. For a target-only configuration: loaded when they stay in memory unused, not-loaded when the server skips them, which frees memory for KV cache (an open question in the MLPerf Endpoints rules).",
    )
    adaptation: Adaptation | None = Field(
        default=None, description="Record 1.3: for an online-adapted drafter, how far it had adapted when the run was measured."
    )
    relaxed_acceptance: RelaxedAcceptance | None = Field(
        default=None, description="Whether the acceptance test is relaxed (lossy). Leave out when the standard, lossless test is used."
    )
    device: Text | None = Field(
        default=None, description="Where the proposer runs when not on the target's accelerators (for example a separate GPU or the CPU)."
    )
    simulated_acceptance: SimulatedAcceptance | None = Field(
        default=None,
        description="Set when this configuration forces acceptance with a benchmark setting instead of letting the target model verify real drafts. Every run of it then says nothing about what real traffic gets.",
    )


class Numerics(_Model):
    weights: Text | None = Field(default=None, description="Number format of the model weights (for example bf16, fp8, int4-awq).")
    activations: Text | None = Field(default=None, description="Number format used for activations.")
    kv_cache: Text | None = Field(default=None, description="Number format of the key-value cache.")


class Sampling(_Model):
    mode: Literal["greedy", "stochastic"] | None = Field(
        default=None,
        description="How the source describes sampling when it gives no temperature: greedy, or stochastic ('sampling on'). The temperature is still needed to pin the comparison.",
    )
    temperature: NonNegFloat | None = Field(
        default=None,
        description="Sampling temperature; 0 means greedy decoding (deterministic). Above 0 the output is random and results need repetitions.",
    )
    top_p: Fraction01 | None = Field(default=None, description="Nucleus sampling threshold (1 = off).")
    top_k: Count | None = Field(default=None, description="Top-k sampling limit (0 or -1 in some tools means off; record 0 for off).")
    seed: Count | None = Field(default=None, description="Random seed, when fixed.")
    n: PositiveCount | None = Field(
        default=None,
        description="Completions generated per request. Needed where counts are summed from per-request acceptance metrics, which are missing for requests with n > 1.",
    )
    reasoning_effort: Text | None = Field(
        default=None,
        description="Record 1.3: the target's reasoning effort as the request or server set it (for example low, medium, high: OpenAI-style reasoning_effort). It changes how many tokens are generated and how predictable they are.",
    )
    thinking: bool | None = Field(
        default=None,
        description="Record 1.3: whether the target's thinking (reasoning) mode was on (for example chat_template_kwargs enable_thinking). Acceptance differs between the two.",
    )


class Runtime(_Model):
    name: Text | None = Field(default=None, description="Serving software (for example vLLM, SGLang, TensorRT-LLM).")
    version: Text | None = Field(default=None, description="Exact version of the serving software.")
    flags: LinesText | None = Field(default=None, description="Command line or configuration used to start the server, verbatim.")
    environment: LinesText | None = Field(
        default=None,
        description="Environment variables the server or benchmark ran with, verbatim (for example SGLANG_SIMULATE_ACC_LEN=-1). Some settings, including forced acceptance, are made only here.",
    )
    moe_backend: Text | None = Field(
        default=None,
        description="Record 1.2: the kernel backend that ran the mixture-of-experts layers, as the engine names it (vLLM --moe-backend, SGLang --moe-runner-backend, TensorRT-LLM moe_config backend; for example marlin, flashinfer_cutlass, DEEPGEMM). Kernels differ in speed, so runs compared must share it.",
    )


class Hardware(_Model):
    accelerator: Text | None = Field(default=None, description="Accelerator model (for example NVIDIA H100 SXM 80GB).")
    count: Count | None = Field(default=None, description="Number of accelerators serving the model.")
    memory_gb: NonNegFloat | None = Field(default=None, description="Memory per accelerator, in GB.")
    interconnect: Text | None = Field(default=None, description="Link between accelerators (for example NVLink 4, PCIe 5).")
    host: Text | None = Field(default=None, description="Host machine (CPU, memory), where relevant.")
    locked_clock_mhz: NonNegFloat | None = Field(
        default=None,
        description="Record 1.2: the accelerator clock the run was locked to, in MHz (for example nvidia-smi --lock-gpu-clocks). Leave out when clocks were left to the driver.",
    )
    power_limit_w: NonNegFloat | None = Field(
        default=None,
        description="Record 1.2: the power limit each accelerator ran under, in watts, when one was set (for example nvidia-smi --power-limit, or a TDP cap). A lower limit slows every arrangement, so runs compared must share it.",
    )


class Configuration(_Model):
    id: Ident = Field(description="Short name for this arrangement, used by runs (for example 'eagle3' or 'target-only').")
    target: TargetModel = Field(description="The target model: its output is what the user receives.")
    proposer: Proposer = Field(description="The proposer (drafter); method 'none' for plain target-only decoding.")
    numerics: Numerics = Field(default_factory=Numerics, description="Number formats of weights, activations and KV cache.")
    sampling: Sampling = Field(default_factory=Sampling, description="Sampling settings the outputs were generated with.")
    runtime: Runtime = Field(default_factory=Runtime, description="Serving software and version.")
    hardware: Hardware = Field(default_factory=Hardware, description="Accelerators the model ran on.")
    parallelism: Parallelism | None = Field(
        default=None,
        description="Record 1.2: how the target model was split across the accelerators (tensor, pipeline, data, expert and decode context parallel sizes). The same hardware split differently is a different deployment.",
    )
    deployment: Deployment | None = Field(
        default=None,
        description="Record 1.3: how the configuration was deployed beyond one set of parallel sizes: the prefill and decode worker pools of a disaggregated deployment, and whether the arms ran at the same time on separate hardware.",
    )


# ------------------------------------------------------------------------------ runs

Stage = Literal[
    "queueing",
    "prompt-processing",
    "scheduling",
    "proposal",
    "verification",
    "decode",
    "sampling",
    "detokenization",
    "client-delivery",
]


class Workload(_Model):
    task: Text | None = Field(
        default=None,
        description="The task the requests represent (for example 'chat', 'code completion', 'summarisation'). A speedup holds for the task it was measured on.",
    )
    dataset: Text | None = Field(default=None, description="Dataset or prompt set used, with version.")
    num_requests: Count | None = Field(default=None, description="Number of requests in the measured interval.")
    requests_sent: Count | None = Field(
        default=None,
        description="Record 1.2: requests sent in the measured interval, completed or not (a benchmark's num_prompts). With num_requests, the difference is the requests that did not complete.",
    )
    requests_failed: Count | None = Field(
        default=None,
        description="Record 1.2: requests sent in the measured interval that failed or never completed (an error, a timeout, a truncated stream); they are not in num_requests or the counts.",
    )
    input_tokens_mean: NonNegFloat | None = Field(default=None, description="Mean prompt length, in tokens.")
    output_tokens_mean: NonNegFloat | None = Field(default=None, description="Mean generated length per request, in tokens.")
    max_output_tokens: Count | None = Field(default=None, description="Cap on generated tokens per request.")
    salted: bool | None = Field(
        default=None,
        description="Record 1.2: true when every query carried its own salt (a unique random prefix or marker, as MLPerf Endpoints adds) so the server could not answer it from a prefix or response cache filled by an earlier query; false when queries were sent unsalted. Runs compared must agree, since cache hits change every latency and throughput.",
    )
    prefix_cache: PrefixCache | None = Field(
        default=None, description="Record 1.3: the prefix-cache state the run met: on or off, cold or warm, and its hit rate."
    )


class Load(_Model):
    concurrency: PositiveCount | None = Field(
        default=None, description="Number of requests in flight at once (closed loop) during the measurement. 1 means a quiet machine."
    )
    request_rate: NonNegFloat | None = Field(
        default=None, description="Requests per second offered (open loop), when load was set by rate instead of concurrency."
    )
    loop: Literal["closed", "open", "batch-synchronous"] | None = Field(
        default=None,
        description="Closed loop: a new request starts when one finishes (fixed concurrency). Open loop: requests arrive at a set rate. Batch-synchronous (record 1.3): rounds of concurrency requests sent together, the next round after the whole round finished ('3 rounds of 64 simultaneous requests'; give rounds).",
    )
    rounds: PositiveCount | None = Field(default=None, description="Record 1.3: for a batch-synchronous load, how many rounds were sent.")
    measured_peak_concurrency: Count | None = Field(
        default=None, description="Highest concurrency actually observed, when the tool reports it separately from the configured value."
    )
    multi_sequence_share: Fraction01 | None = Field(
        default=None, description="Share of requests asking for more than one completion (n > 1), from 0 to 1."
    )


class Warmup(_Model):
    requests: Count | None = Field(default=None, description="Requests sent to warm the server up before the measured interval.")
    duration_s: Seconds | None = Field(default=None, description="How long the warm-up lasted, in seconds, when it was set by time.")
    excluded: bool = Field(
        description="True when the warm-up requests, their tokens and their time are outside the measured interval and its counts (as MLPerf Endpoints requires); false when they were counted in it."
    )


class Interval(_Model):
    start_event: Text | None = Field(default=None, description="Event at which timing starts (for example 'just before the first proposal').")
    end_event: Text | None = Field(default=None, description="Event at which timing ends (for example 'last output token leaves the server').")
    stages_included: list[Stage] = Field(
        default_factory=list,
        description="Work inside the interval. A speculative run must include proposal, verification and scheduling; an end-to-end interval, or one timed around the whole generation call, includes them by definition.",
    )
    stages_excluded: list[Stage] = Field(
        default_factory=list, description="Work outside the interval, stated explicitly (for example prompt-processing, queueing, client-delivery)."
    )
    scope: Literal["generation-only", "end-to-end"] | None = Field(
        default=None,
        description="generation-only: output generation after the prompt is processed; end-to-end: from request arrival to last token delivered, so every stage is inside. Only end-to-end supports response-time claims.",
    )
    whole_generation_call: bool = Field(
        default=False,
        description="True when one clock wraps the whole generation call (for example time.time() around model.generate() in a research harness at batch size 1), so proposal, verification, scheduling and sampling are all inside even where the source does not list them.",
    )
    measurement: Literal["complete-interval", "stage-sum"] | None = Field(
        default=None,
        description="complete-interval: one clock from start to end event. stage-sum: separately timed stages added up (stages overlap, so this is not an interval).",
    )
    duration_s: Seconds | None = Field(default=None, description="Length of the measured interval, in seconds.")
    warmup: Warmup | None = Field(
        default=None,
        description="Record 1.2: the warm-up before the measured interval (requests, duration) and whether it was kept out of the interval. A first request pays for compilation, graph capture and cold caches; counted in, it understates throughput and inflates latency percentiles.",
    )


class PopulationCheck(_Model):
    count: Literal["requests", "output-tokens", "verification-steps", "proposed-drafts", "accepted-drafts", "requests-in-flight"] = Field(
        description="Which count is compared: requests finished, output tokens, verification steps, proposed or accepted drafts, or requests still running or waiting when the later scrape was taken."
    )
    benchmark: Count = Field(
        description="The count as the benchmark tool reported it for its own requests (0 requests in flight once it has finished)."
    )
    server: Count = Field(
        description="The same count from the server's own counters: the difference between the scrapes taken just before and just after the benchmark (for requests in flight, the later scrape's value)."
    )


class Counts(_Model):
    verification_steps: Count | None = Field(default=None, description="S: target-model passes that verified a proposal.")
    proposed_drafts: Count | None = Field(
        default=None, description="P: candidate tokens proposed by the drafter (after removing any invalidated by structured-output constraints)."
    )
    accepted_drafts: Count | None = Field(
        default=None, description="A: proposed tokens the target kept. Excludes the extra token the target adds itself."
    )
    bonus_tokens: Count | None = Field(
        default=None,
        description="B: tokens the target sampled itself after each step (a correction after a rejection, or a bonus after a fully accepted block).",
    )
    emitted_tokens: Count | None = Field(
        default=None,
        description="E: output tokens the users received in the interval (E = A + B + D for a speculative run). This is what output throughput counts.",
    )
    outside_step_tokens: Count | None = Field(
        default=None,
        description="D (record 1.2): output tokens the target emitted outside verification steps, so not counted in A or B: each request's first token, which comes from the prompt pass, and one token for each decode step in which the drafter proposed nothing. Then E = A + B + D.",
    )
    input_tokens: Count | None = Field(
        default=None,
        description="I (record 1.3): prompt tokens the requests of the interval sent, counted as the tokenizer counts them. A total-tokens throughput is (I + E) / T.",
    )
    scheduled_steps_by_k: list[Count] | None = Field(
        default=None,
        max_length=65,
        description="Record 1.3: entry k = decode steps scheduled with k draft tokens (vLLM spec_decode_scheduled_steps{K}); entry 0 counts the steps a dynamic K schedule sent to K = 0, which verify nothing and emit one token each (counted in D).",
    )
    reasoning_tokens: Count | None = Field(
        default=None,
        description="Of the emitted tokens E, how many were reasoning (thinking) tokens, where the tool reports them. They are part of E: every generated token is output.",
    )
    invalidated_drafts: Count | None = Field(
        default=None, description="Drafts discarded by structured-output (grammar) constraints before verification."
    )
    accepted_length_histogram: list[Count] | None = Field(
        default=None, max_length=257, description="Entry j = number of steps that accepted exactly j drafts (j = 0..K). Entries add up to S."
    )
    accepted_per_position: list[Count] | None = Field(
        default=None,
        max_length=256,
        description="Entry i = number of steps whose draft at position i+1 was accepted (a survival count, so never increasing).",
    )
    population: Literal["benchmark-requests", "server-wide", "mixed"] | None = Field(
        default=None,
        description="Whose tokens these counts cover: the measured benchmark requests only, everything the server did in the interval (server counters), or a mix of both.",
    )
    requests_with_metrics: Count | None = Field(default=None, description="Requests that reported per-request speculative metrics.")
    requests_without_metrics: Count | None = Field(
        default=None, description="Requests without per-request metrics (for example n > 1). Missing coverage, not zeros."
    )
    missing_metrics_as: Literal["excluded", "zero"] | None = Field(
        default=None,
        description="How requests without per-request metrics were treated in the totals. 'zero' understates acceptance and is a coverage gap.",
    )
    population_check: list[PopulationCheck] | None = Field(
        default=None,
        max_length=16,
        description="The benchmark's own counts set against the server's counters over the same interval, when the server was scraped just before and just after the benchmark. Where every pair agrees, the server served only the benchmark's requests, so its counters are the benchmark's; where one differs, they cover other requests too.",
    )


class Percentiles(_Model):
    mean: NonNegFloat | None = Field(default=None, description="Mean, in milliseconds.")
    p50: NonNegFloat | None = Field(default=None, description="Median (50th percentile), in milliseconds.")
    p90: NonNegFloat | None = Field(default=None, description="90th percentile, in milliseconds.")
    p95: NonNegFloat | None = Field(default=None, description="95th percentile, in milliseconds.")
    p99: NonNegFloat | None = Field(default=None, description="99th percentile, in milliseconds.")
    unstated: NonNegFloat | None = Field(
        default=None,
        description="A latency the source gives without saying whether it is a mean, a median or a percentile, in milliseconds. Kept as stated; it cannot be compared with a limit or another run.",
    )
    method: Literal["linear", "lower"] | None = Field(
        default=None,
        description="Record 1.3: how a percentile falling between two ranked values was taken: linear, interpolated between them (numpy's default); lower, the lower of the two (MLPerf Endpoints, numpy method='lower'). Small samples differ between them by up to a whole gap.",
    )


class Latency(_Model):
    ttft_ms: Percentiles | None = Field(default=None, description="Time to first token, in milliseconds (includes prompt processing).")
    ttft_definition: Literal["first-fragment-any-kind", "first-text-token", "first-response-event", "other"] | None = Field(
        default=None,
        description="Record 1.2: what counts as the first token: the first non-empty streamed fragment of any kind, text, reasoning or tool call (MLPerf Endpoints); the first visible text token, reasoning not counted; the first streamed event even when empty (for example a role-only chunk); or another definition (say which in notes). A reasoning model's TTFT differs by seconds between them.",
    )
    tpot_ms: Percentiles | None = Field(default=None, description="Time per output token after the first, in milliseconds.")
    itl_ms: Percentiles | None = Field(default=None, description="Inter-token latency: gap between streamed tokens, in milliseconds.")
    e2e_ms: Percentiles | None = Field(default=None, description="End-to-end response time per request, in milliseconds.")
    tpot_with_first_ms: Percentiles | None = Field(
        default=None,
        description="Record 1.3: time per output token with the first token counted in: request latency / output tokens, in milliseconds (guidellm's time_per_output_token_ms). Above TPOT by the time to first token spread over the tokens; a TPOT or ITL claim is never read from it.",
    )


class StageTimings(_Model):
    drafting_s: NonNegFloat | None = Field(
        default=None, description="Time spent proposing drafts, in seconds. A diagnostic: never added into the interval."
    )
    verification_s: NonNegFloat | None = Field(
        default=None, description="Time spent verifying drafts, in seconds. A diagnostic: never added into the interval."
    )


class RepetitionSummary(_Model):
    count: Count = Field(ge=1, description="Number of repetitions the material says it ran (for example 3 for 'mean speedup over 3 different runs').")
    statistic: Literal["mean", "median", "best", "other"] | None = Field(
        default=None, description="How the stated figures summarise the repetitions: their mean, median, best, or another statistic."
    )


class PerUserThroughput(_Model):
    tokens_per_s: NonNegFloat = Field(
        description="Output tokens per second for each user (request), as the tool or vendor stated it. Not the aggregate output throughput E / T, which counts every user's tokens."
    )
    statistic: Literal["mean", "p50", "p90", "p95", "p99"] | None = Field(
        default=None, description="Which statistic over the requests this is, when stated (mean, median or a percentile)."
    )
    definition: Text | None = Field(
        default=None,
        description="How the figure is computed, verbatim from the tool or source (for example trtllm-bench 'Per User Output Throughput (tokens/sec/user)', or 1 / p90 of end-to-end latency per output token). Tools define it differently, so per-user figures from different tools are not comparable.",
    )


class RequestLatencies(_Model):
    ttft_ms: list[NonNegFloat] | None = Field(
        default=None,
        max_length=1_000_000,
        description="Each completed request's time to first token, in milliseconds, in the order the tool lists the requests.",
    )
    tpot_ms: list[NonNegFloat] | None = Field(
        default=None,
        max_length=1_000_000,
        description="Each completed request's time per output token after the first, in milliseconds, same order (vLLM: (latency - TTFT) / (output tokens - 1), 0 for a one-token output).",
    )
    e2e_ms: list[NonNegFloat] | None = Field(
        default=None, max_length=1_000_000, description="Each completed request's end-to-end response time, in milliseconds, same order."
    )


class ToolGoodput(_Model):
    requests_per_s: NonNegFloat = Field(
        description="Requests per second that met every limit below, as the tool reported it (vllm bench serve request_goodput: such requests / duration)."
    )
    ttft_limit_ms: NonNegFloat | None = Field(
        default=None,
        description="The time-to-first-token limit the tool held each request to, in milliseconds (vllm bench serve --goodput ttft:MS; the result file does not record it).",
    )
    tpot_limit_ms: NonNegFloat | None = Field(
        default=None, description="The time-per-output-token limit the tool held each request to, in milliseconds (--goodput tpot:MS)."
    )
    e2e_limit_ms: NonNegFloat | None = Field(
        default=None, description="The end-to-end response-time limit the tool held each request to, in milliseconds (--goodput e2el:MS)."
    )
    definition: Text | None = Field(
        default=None, description="How the tool counts a request as good, verbatim where it says (vLLM: every given metric at or below its limit)."
    )
    good_requests: Count | None = Field(
        default=None,
        description="Record 1.3: how many requests the tool counted as good (AIPerf good_request_count), beside the rate they make over the tool's interval.",
    )


class Repetition(_Model):
    emitted_tokens: Count = Field(description="Output tokens emitted in this repetition.")
    duration_s: Seconds = Field(description="Length of this repetition's measured interval, in seconds.")


class Quality(_Model):
    task: Text = Field(description="Task the quality was measured on.")
    metric: Text = Field(description="Quality metric (for example 'pass@1', 'exact match', 'ROUGE-L').")
    score: float = Field(ge=-(10**9), le=10**9, description="Score this run's outputs achieved.")
    baseline_score: float | None = Field(
        default=None, ge=-(10**9), le=10**9, description="Score of target-only outputs on the same task, for comparison."
    )
    method: Text | None = Field(default=None, description="How the score was obtained (harness, judge, sample size).")
    source_run: Ident | None = Field(
        default=None,
        description="Record 1.3: when the score comes from a separate accuracy-mode run of the same system (MLPerf's accuracy run beside the timed performance run): that run's id. It must use the same configuration.",
    )
    score_error: float | None = Field(
        default=None,
        ge=0,
        le=10**9,
        description="Record 1.3: the error the quality result states for the difference from the baseline's score (a standard "
        "error or a confidence half-width, in the metric's units). A score lower than the baseline's by no more than this is "
        "not called below it; left out, a difference within 1 % of the baseline's score is not.",
    )
    equality_check: Literal["greedy-equality", "output-equivalence", "none"] | None = Field(
        default=None,
        description="Whether outputs were compared with target-only outputs: token-for-token under greedy decoding, or equivalence of answers.",
    )
    equality_matched: Count | None = Field(default=None, description="Outputs that matched in the equality check.")
    equality_total: Count | None = Field(default=None, description="Outputs compared in the equality check.")


class ReportedFigures(_Model):
    acceptance_rate: Fraction01 | None = Field(
        default=None, description="Acceptance rate as the vendor or tool reported it, as a fraction (0.5, not 50 %). Compared with A / P."
    )
    mean_acceptance_length: NonNegFloat | None = Field(default=None, description="Mean acceptance length as reported. Compared with 1 + A / S.")
    output_tokens_per_s: NonNegFloat | None = Field(default=None, description="Output throughput as reported, in tokens/s. Compared with E / T.")


class SourceFile(_Model):
    file: Text = Field(description="Name of the file.")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="SHA-256 of the file.")


class Source(_Model):
    format: Text = Field(description="Tool output the run was imported from (for example vllm-bench).")
    file: Text = Field(description="Name of the imported file.")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="SHA-256 of the imported file.")
    tool_version: Text | None = Field(default=None, description="Version of the tool that wrote the file, when it says.")
    model: Text | None = Field(
        default=None,
        description="Record 1.2: the model the tool says it ran (vllm bench serve's model_id, LLMPerf's model, AIPerf's model names), as the file writes it; compared with the configuration's target model.",
    )
    tokenizer: Text | None = Field(default=None, description="Record 1.2: the tokenizer the tool says it counted with, as the file writes it.")
    parallelism: Parallelism | None = Field(
        default=None,
        description="Record 1.2: the parallel sizes the tool's file says the server ran with (trtllm-bench world_info, SGLang server_info, vllm bench sweep parameters). Used where the configuration states none.",
    )
    entry: Text | None = Field(
        default=None,
        description="Which part of the file the run came from, when the file holds several runs (for example 'line 3' or 'benchmarks[2]').",
    )
    earlier_scrape: SourceFile | None = Field(
        default=None,
        description="For counts taken as the difference of two server-counter scrapes: the scrape taken before the measured interval. file and sha256 above are then the scrape taken after it.",
    )
    server_scrapes: list[SourceFile] | None = Field(
        default=None,
        max_length=2,
        description="The server's counter scrapes taken just before and just after the benchmark, when they were imported with its result to check whose requests the server counted (before first).",
    )


class AcceptanceReference(_Model):
    name: Text = Field(description="The reference the acceptance was pinned to, by name (for example 'InferenceX golden_al_distribution').")
    source: Text | None = Field(
        default=None,
        description="Where the reference value is published, at a fixed version (for example the golden YAML file's URL at a commit).",
    )
    model: Text | None = Field(
        default=None, description="The model the reference value was measured for, as the reference names it (for example qwen3.8-27b)."
    )
    mode: Literal["thinking", "non-thinking"] | None = Field(
        default=None, description="The thinking mode the reference value is for (InferenceX keys its curves thinking_on and thinking_off)."
    )
    k: DraftLength | None = Field(default=None, description="The draft length (num_speculative_tokens) the reference value is for.")
    acceptance_length: NonNegFloat = Field(
        description="The reference acceptance length (1 + accepted drafts / verification steps) the run was pinned to, as published (for example 3.67)."
    )


class SimulatedAcceptance(_Model):
    mechanism: Text = Field(
        description="The setting that forced acceptance, verbatim (for example vLLM rejection_sample_method=synthetic, SGLANG_SIMULATE_ACC_LEN=3, TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=2)."
    )
    acceptance_length: NonNegFloat | None = Field(
        default=None,
        description="The acceptance length the setting forced, when it states one (TensorRT-LLM's TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS counts drafts only: its value plus 1).",
    )
    pinned_to: AcceptanceReference | None = Field(
        default=None,
        description="Record 1.2: when acceptance was pinned to a published reference (a golden acceptance length): the reference, its model, mode, K and value. A claim about the system at that acceptance can then be judged; a speedup or acceptance figure still cannot.",
    )


class MeasuredWindow(_Model):
    repetition: Count = Field(le=999, description="Which repetition at this load the window is, counted from 0 (as the capture counts it).")
    sequence: Count = Field(
        description="The window's place among all windows measured into this record, every arm and load, counted from 0: shows whether arms were interleaved."
    )
    requests: Count = Field(description="Measured requests counted in the window (completed or failed).")
    resent: Count = Field(
        description="Requests sent a second time, on a fresh connection, because a kept-alive connection was closed before any response byte: the server never saw the first attempt."
    )
    cached_prompt_tokens: Count | None = Field(
        default=None,
        description="Prompt tokens the server says it served from its prefix cache, summed over the window's measured requests (usage.prompt_tokens_details.cached_tokens, llama.cpp timings.cache_n); absent when it reports none.",
    )
    achieved_concurrency: NonNegFloat | None = Field(
        default=None,
        description="Time-weighted mean number of measured requests in flight over the window's steady part (from when c requests are first in flight to when the first slot has nothing left to send; a slot held through the client's turnaround to its next send); below 95 % of the load's concurrency is a finding.",
    )
    steady_share: Fraction01 | None = Field(
        default=None,
        description="The steady part's share of the window's measured interval; the rest is fill (before c requests are in flight) and drain (after the first slot has nothing left to send), which the run's E/T leaves out (record 1.3).",
    )
    steady_requests: Count | None = Field(
        default=None,
        description="Record 1.3: completed requests counted in the window's steady interval (whole requests whose finishing chunk arrived inside it), or every completed request where the window was too short for one and is counted whole; the run's E and T for this repetition are theirs, and N / T divides by them.",
    )
    loop_lag_ms_max: NonNegFloat | None = Field(
        default=None,
        description="The client's longest event-loop lag over the window (a timer's actual wake-up minus its scheduled one), in milliseconds.",
    )
    loop_lag_ms_p99: NonNegFloat | None = Field(
        default=None,
        description="The 99th percentile of the client's event-loop lag over the window, in milliseconds (sampled every 10 ms); above 50 ms the client's timestamps are its own delay, a finding.",
    )
    clock_uncertainty_us: NonNegFloat | None = Field(
        default=None,
        description="Record 1.3: for a window measured by workers on other clocks (--ray), how uncertain its merged edges are, in microseconds: twice the least certain worker's offset bound, measured NTP-style against the driver at each worker's start and end. Above 1 % of the window is a finding.",
    )
    client_cpu_fraction: NonNegFloat | None = Field(
        default=None,
        description="CPU time of the measuring client's event-loop thread over the window divided by the window's wall time: 1.0 is one core busy the whole window; 0.9 or more is a finding (the client, not the server, set the pace).",
    )


class MeasurementSalt(_Model):
    scheme: Text = Field(description="How each request's text is salted so that no request finds another's in a prefix cache.")
    nonce: Text = Field(
        description="The random part of the salts, drawn once per measurement; the same in every arm, so the arms' prompts stay token-for-token equal."
    )


class WholeSpanCounts(_Model):
    requests: Count = Field(
        description="Record 1.3: requests the scrapes' span held on the client's side (measured, and warm-up where the windows did not drain)."
    )
    emitted_tokens: Count = Field(description="Record 1.3: E over the whole span: output tokens of the span's completed requests (their usage).")
    verification_steps: Count | None = Field(default=None, description="Record 1.3: S over the whole span, from the server's counters.")
    proposed_drafts: Count | None = Field(default=None, description="Record 1.3: P over the whole span, from the server's counters.")
    accepted_drafts: Count | None = Field(default=None, description="Record 1.3: A over the whole span, from the server's counters.")
    bonus_tokens: Count | None = Field(default=None, description="Record 1.3: B = S over the whole span (one target-sampled token per step).")
    outside_step_tokens: Count | None = Field(default=None, description="Record 1.3: D = E - A - B over the whole span.")
    accepted_per_position: list[Count] | None = Field(
        default=None, max_length=256, description="Record 1.3: accepted drafts per draft position over the whole span, from the server's counters."
    )


class Measurement(_Model):
    order: Literal["interleaved", "arm-by-arm"] = Field(
        description="interleaved: at each load every arm's repetition r was measured before any arm's r + 1, the arms' order alternating per repetition, so drift of the machine lands on both arms; arm-by-arm: one arm's loads and repetitions, then the other's (--append, one server restarted between arms)."
    )
    salt: MeasurementSalt | None = Field(default=None, description="The salt the measured prompts carried.")
    cached_prompt_tokens: Count | None = Field(
        default=None,
        description="Prompt tokens served from the server's prefix cache, summed over the run's measured requests that report it; absent when the server reports none.",
    )
    requests_reporting_cache: Count | None = Field(
        default=None, description="How many of the run's measured requests reported their cached prompt tokens."
    )
    cache_allowance_tokens: Count | None = Field(
        default=None,
        description="The most cached prompt tokens the salts allow over the same requests: per request the salt's UTF-8 bytes (a token is at least one byte) plus the tokens a template puts before it (1 for completions, 32 for chat). Above it, a prompt's own text was served from cache: a finding.",
    )
    resent_requests: Count | None = Field(
        default=None,
        description="Measured requests sent a second time on a fresh connection after a kept-alive connection was closed before any response byte (both attempts are in the capture).",
    )
    preempted_requests: Count | None = Field(
        default=None,
        description="vLLM's vllm:num_preemptions_total delta over the run's windows; absent where the server exports no such counter. Above 0 is a finding: preemptions slow a run for reasons other than the offer.",
    )
    drain: bool | None = Field(
        default=None,
        description="Record 1.3: false when each window's warm-up slots were handed straight to measured requests without draining first (as the MLPerf Endpoints client's warmup.drain: false), so the load is steady when the interval starts; true when the warm-up drained before the window.",
    )
    whole_span: WholeSpanCounts | None = Field(
        default=None,
        description="Record 1.3: the counts over each window's whole span, from the server's /metrics scraped before its warm-up (before its measured requests where it drained) and after its last response. The run's counts cover the steady intervals; S/P/A scrapes cannot be cut to them, so they are here, with E over the same span: E = A + B + D holds here, and the population check compares this span.",
    )
    windows: list[MeasuredWindow] | None = Field(default=None, max_length=1000, description="Each measured window, in repetition order.")


class MeanInterval(_Model):
    values: list[Annotated[float, Field(ge=0, le=10**12)]] = Field(
        min_length=1, max_length=1000, description="Record 1.3: the figure of each repetition, in repetition order."
    )
    mean: NonNegFloat = Field(description="Record 1.3: the mean of the values.")
    low: SignedFloat | None = Field(
        default=None,
        description="Record 1.3: the interval's lower end: mean - t(0.975, n - 1) x s / sqrt(n) (Student t over the n values, s their sample standard deviation). Left out below 3 repetitions.",
    )
    high: SignedFloat | None = Field(default=None, description="Record 1.3: the interval's upper end: mean + t(0.975, n - 1) x s / sqrt(n).")
    note: Text | None = Field(default=None, description="Record 1.3: why there is no interval (too few repetitions for an interval).")


class FailedPairing(_Model):
    repetition: Count = Field(description="Record 1.3: the repetition (numbered from 0) both runs measured whose ratio has no log.")
    reason: Text = Field(description="Record 1.3: why, in words (for example: the baseline's window emitted no tokens).")


class SpeedupInterval(_Model):
    values: list[Annotated[float, Field(ge=0, le=10**12)]] = Field(
        max_length=1000,
        description="Record 1.3: the paired ratio of each repetition in paired_repetitions, in that order, each above 0 (a ratio with no log is in failed_pairings instead); empty when every pairing failed.",
    )
    mean: NonNegFloat | None = Field(
        default=None,
        description="Record 1.3: the geometric mean of the values, exp(mean(log r)); absent when every pairing failed. A block without `method` (written before the log scale) holds their arithmetic mean.",
    )
    low: SignedFloat | None = Field(
        default=None,
        description="Record 1.3: the interval's lower end, exp(mean(log r) - t(0.975, n - 1) x s_log / sqrt(n)), s_log the sample standard deviation of the n logs: always above 0, and the upper end's inverse when the arms are swapped. Left out below 3 repetitions or with a failed pairing. A block without `method` holds mean - t(0.975, n - 1) x s / sqrt(n) over the ratios themselves, which can fall below 0.",
    )
    high: SignedFloat | None = Field(
        default=None, description="Record 1.3: the interval's upper end, exp(mean(log r) + t(0.975, n - 1) x s_log / sqrt(n))."
    )
    note: Text | None = Field(
        default=None, description="Record 1.3: why there is no interval (too few repetitions for an interval, or the failed pairings named)."
    )
    method: Literal["geometric mean; Student t over the logs of the paired ratios", "arithmetic mean; Student t over the paired ratios"] | None = (
        Field(
            default=None,
            description="Record 1.3: how mean, low and high were computed; sdeval measure writes the geometric mean with the Student-t interval of the logs. A block without it was written by a build before the log scale and is read as the arithmetic mean with the Student-t interval of the ratios, as that build computed it.",
        )
    )
    baseline_run: Ident = Field(description="Record 1.3: the run the speedup is over (the target-only arm at the same load).")
    paired_repetitions: list[Count] = Field(
        max_length=1000,
        description="Record 1.3: the repetitions (numbered from 0) both runs measured with a ratio above 0, each value being that repetition's (E / T) / (E_b / T_b).",
    )
    failed_pairings: list[FailedPairing] | None = Field(
        default=None,
        max_length=1000,
        description="Record 1.3: the repetitions both runs measured whose ratio is 0 or has no finite value (a window that emitted no tokens), which no log takes: each is named, and with any there is no interval.",
    )


class PercentileInterval(_Model):
    value: NonNegFloat = Field(description="Record 1.3: the percentile over all the run's completed requests, in milliseconds.")
    low: NonNegFloat | None = Field(default=None, description="Record 1.3: the bootstrap interval's lower end, in milliseconds.")
    high: NonNegFloat | None = Field(default=None, description="Record 1.3: the bootstrap interval's upper end, in milliseconds.")
    note: Text | None = Field(default=None, description="Record 1.3: why there is no interval (too few requests beyond the percentile).")


class PercentileIntervals(_Model):
    p50: PercentileInterval | None = Field(default=None, description="Record 1.3: the median and its interval.")
    p90: PercentileInterval | None = Field(default=None, description="Record 1.3: the 90th percentile and its interval.")
    p95: PercentileInterval | None = Field(default=None, description="Record 1.3: the 95th percentile and its interval.")
    p99: PercentileInterval | None = Field(default=None, description="Record 1.3: the 99th percentile and its interval.")


class Uncertainty(_Model):
    confidence: Annotated[float, Field(gt=0, le=1)] = Field(description="Record 1.3: the intervals' confidence level (0.95 for 95 %).")
    method: LongText = Field(description="Record 1.3: how every interval below was computed, in words (sdeval measure states its methods).")
    output_throughput: MeanInterval | None = Field(
        default=None, description="Record 1.3: E / T of each repetition of this run, their mean and its Student-t interval."
    )
    speedup: SpeedupInterval | None = Field(
        default=None,
        description="Record 1.3: for a speculative run, its output-throughput speedup over the baseline run, paired repetition by repetition at the same load: the geometric mean of the paired ratios and the Student-t interval of their logs, taken back by exp (see its method).",
    )
    ttft_ms: PercentileIntervals | None = Field(default=None, description="Record 1.3: TTFT percentiles with bootstrap intervals over the requests.")
    tpot_ms: PercentileIntervals | None = Field(default=None, description="Record 1.3: TPOT percentiles with bootstrap intervals over the requests.")
    bootstrap_resamples: PositiveCount | None = Field(
        default=None, description="Record 1.3: how many bootstrap resamples the percentile intervals drew."
    )
    bootstrap_seed: Annotated[int, Field(ge=0, le=2**63 - 1)] | None = Field(
        default=None, description="Record 1.3: the seed of the bootstrap's random draws, so the intervals can be drawn again."
    )


# Per-request acceptance: A / P in tenths, and mean accepted length per step (1 + A / S) in halves.
RATE_BINS = 10
LENGTH_BIN_WIDTH = 0.5


class RequestAcceptance(_Model):
    source: Text = Field(
        description="Record 1.3: where the per-request counts come from (for example llama.cpp's timings.draft_n and draft_n_accepted, vLLM's per-request speculative_decoding block, TensorRT-LLM's per-choice speculative_decoding)."
    )
    requests: Count = Field(description="Record 1.3: requests with per-request counts (those without are not in the distribution).")
    requests_without_proposals: Count = Field(
        description="Record 1.3: of those, requests for which the drafter proposed nothing (P = 0): they have no acceptance rate and are not in rate_histogram."
    )
    proposed_drafts: Count = Field(description="Record 1.3: the requests' P, summed.")
    accepted_drafts: Count = Field(description="Record 1.3: the requests' A, summed.")
    verification_steps: Count | None = Field(
        default=None, description="Record 1.3: the requests' S, summed, where every request gives its steps; absent otherwise."
    )
    rate_histogram: list[Count] = Field(
        min_length=RATE_BINS,
        max_length=RATE_BINS,
        description="Record 1.3: entry i = requests whose own acceptance rate A / P lies in [i / 10, (i + 1) / 10); the last entry includes 1.0. Adds up to requests - requests_without_proposals.",
    )
    length_histogram: list[Count] | None = Field(
        default=None,
        max_length=130,
        description="Record 1.3: where per-request steps are known, entry i = requests whose mean accepted length per step 1 + A / S lies in [1 + i / 2, 1 + (i + 1) / 2); requests with S = 0 are left out.",
    )


class DecodeSpeed(_Model):
    mean: NonNegFloat = Field(description="Record 1.3: the mean of the requests' decode speeds, in tokens/s.")
    p10: NonNegFloat = Field(description="Record 1.3: the 10th percentile (the slow requests), in tokens/s.")
    p50: NonNegFloat = Field(description="Record 1.3: the median, in tokens/s.")
    p90: NonNegFloat = Field(description="Record 1.3: the 90th percentile, in tokens/s.")


class TaskSpeedup(_Model):
    baseline_run: Ident = Field(
        description="Record 1.3: the run whose requests the task's requests are paired with (the target-only arm at the same load)."
    )
    pairs: PositiveCount = Field(
        description="Record 1.3: prompts of this task measured in both runs with the same salt (the same text sent to both arms), each a paired speedup."
    )
    median: NonNegFloat = Field(description="Record 1.3: the median of the paired per-prompt speedups.")
    low: NonNegFloat | None = Field(
        default=None,
        description="Record 1.3: the 95 % interval's lower end: an order statistic of the speedups (distribution-free, see per_task.method).",
    )
    high: NonNegFloat | None = Field(default=None, description="Record 1.3: the 95 % interval's upper end.")
    note: Text | None = Field(default=None, description="Record 1.3: why there is no interval (fewer than 6 pairs).")


class TaskFigures(_Model):
    task: Text = Field(
        description="Record 1.3: the task label the prompts carry (as the prompt set writes it; 'unlabelled' for prompts without one)."
    )
    requests: Count = Field(description="Record 1.3: completed requests of this task in the run's windows.")
    output_tokens: Count = Field(description="Record 1.3: their output tokens (usage.completion_tokens), summed.")
    decode_tokens_per_s: DecodeSpeed | None = Field(
        default=None,
        description="Record 1.3: each request's decode speed, 1 / TPOT (tokens after the first over the time after the first token), over the task's requests with more than one token.",
    )
    ttft_ms: Percentiles | None = Field(default=None, description="Record 1.3: TTFT percentiles over the task's requests, in milliseconds.")
    speedup: TaskSpeedup | None = Field(
        default=None,
        description="Record 1.3: for a speculative run, the paired per-prompt speedup: each prompt's output speed (tokens over its end-to-end time) here over the same salted prompt's in the baseline run; its median and 95 % interval.",
    )
    acceptance_rate: Fraction01 | None = Field(
        default=None, description="Record 1.3: A / P over the task's requests' own counts (request_acceptance), where the server gives them."
    )
    acceptance_length: NonNegFloat | None = Field(
        default=None, description="Record 1.3: 1 + A / S over the task's requests' own counts, where every request gives its steps."
    )
    request_acceptance: RequestAcceptance | None = Field(
        default=None,
        description="Record 1.3: the task's per-request acceptance distribution (as runs[].request_acceptance, over this task's requests).",
    )


class PerTask(_Model):
    method: LongText = Field(description="Record 1.3: how the per-task figures were computed, in words (pairing, the interval on the median).")
    tasks: list[TaskFigures] = Field(default_factory=list, max_length=200, description="Record 1.3: one entry per task label, in name order.")


class Run(_Model):
    id: Ident = Field(description="Short name for this run, used by claims (for example 'spec-c64').")
    arrangement: Literal["speculative", "target-only"] = Field(
        description="speculative: with a proposer; target-only: plain decoding, usually the baseline."
    )
    configuration: Ident = Field(description="The id of the configuration this run used.")
    workload: Workload = Field(default_factory=Workload, description="What was generated: task, dataset, requests and lengths.")
    load: Load = Field(default_factory=Load, description="How busy the server was during the measurement.")
    interval: Interval = Field(default_factory=Interval, description="What was timed, from which event to which, and for how long.")
    counts: Counts = Field(default_factory=Counts, description="Token and step counts over the interval.")
    latency: Latency | None = Field(default=None, description="Latency percentiles, where measured.")
    peak_memory_gb: NonNegFloat | None = Field(default=None, description="Peak accelerator memory during the run, in GB (a diagnostic).")
    stage_timings: StageTimings | None = Field(default=None, description="Drafting and verification time, kept as diagnostics only.")
    repetitions: list[Repetition] = Field(
        default_factory=list,
        max_length=1000,
        description="Each repetition's output tokens and duration, so a spread can be computed. When given, they add up to the run's E and duration.",
    )
    repetition_summary: RepetitionSummary | None = Field(
        default=None,
        description="When the material says how many repetitions the figures summarise (for example 'mean of 3 runs') without giving each one's figures. The spread is then unknown.",
    )
    per_user_throughput: PerUserThroughput | None = Field(
        default=None, description="Per-user (per-request) output throughput, where the tool or vendor states it beside or instead of the aggregate."
    )
    request_latencies: RequestLatencies | None = Field(
        default=None,
        description="Each completed request's latencies, where the tool kept them (vllm bench serve --save-detailed): goodput at the buyer's own limits is counted from them.",
    )
    goodput: ToolGoodput | None = Field(
        default=None, description="Requests per second served within per-request latency limits, as the tool reported it, with the limits it used."
    )
    quality: list[Quality] = Field(default_factory=list, max_length=100, description="Task-quality results for this run's outputs.")
    measurement: Measurement | None = Field(
        default=None,
        description="Record 1.3: how sdeval measure took this run (order, salt, cache hits, resends, each window's achieved concurrency and the client's own load).",
    )
    reported: ReportedFigures | None = Field(
        default=None, description="Figures as the vendor or tool stated them; checked against the counts, never used instead of them."
    )
    simulated_acceptance: SimulatedAcceptance | None = Field(
        default=None,
        description="Set when the run's acceptance was forced by a benchmark setting instead of measured on real drafts: such a run says nothing about what real traffic gets.",
    )
    drafting_off: Literal["separate-deployment", "per-request"] | None = Field(
        default=None,
        description="Record 1.2: for a target-only run, how drafting was switched off: a separate deployment serving the target alone, or the speculative server itself with speculation switched off for each request (vLLM and SGLang let a request disable it). A per-request baseline must use the speculative run's own configuration.",
    )
    uncertainty: Uncertainty | None = Field(
        default=None,
        description="Record 1.3: how sure the run's figures are: E / T per repetition and, for a speculative run, the speedup paired with its baseline's repetitions, each with a 95 % interval; TTFT and TPOT percentiles with bootstrap intervals. sdeval measure writes it.",
    )
    request_acceptance: RequestAcceptance | None = Field(
        default=None,
        description="Record 1.3: how acceptance spreads over the run's requests, where the server or tool gives per-request counts: a mean acceptance can hide a bimodal workload, the histogram shows it.",
    )
    validity: ToolVerdict | None = Field(
        default=None, description="Record 1.3: the benchmark tool's own verdict on the run (MLPerf 'Result is VALID')."
    )
    per_task: PerTask | None = Field(
        default=None,
        description="Record 1.3: the run's requests split by the task label of their prompts (one measurement, a block under the run rather than a run per task: the tasks shared the windows and the load, so a task has per-request figures but no E / T of its own). sdeval measure writes it.",
    )
    source: Source | None = Field(default=None, description="Where the run was imported from, when it was.")
    notes: LongText | None = Field(default=None, description="Anything else the evidence says about this run.")


# Proposer names SimulatedAcceptance before it is defined (it sits beside Run, where runs use
# it too): resolve the forward reference now, so the schema and the blank form see the model.
Proposer.model_rebuild(force=True)


# ---------------------------------------------------------------------------- claims

ClaimKind = Literal[
    "output-throughput",
    "speedup",
    "latency",
    "capacity",
    "acceptance-rate",
    "acceptance-length",
    "lossless",
    "cost",
]
Counted = Literal[
    "emitted-output",
    "total-tokens",
    "per-user-output",
    "accepted-drafts",
    "proposed-drafts",
    "acceptance-length",
    "acceptance-rate",
    "response-time",
    "requests",
]


class Composition(_Model):
    method: Literal["measured-together", "multiplied", "added"] = Field(
        description="How a combined speedup was obtained: measured in one run with everything on, or computed by multiplying or adding separately measured speedups."
    )
    components: list[Text] = Field(
        default_factory=list,
        max_length=20,
        description="The optimisations combined (for example speculation, fp8 quantisation, batching), with their separate speedups.",
    )


class ClaimPrice(_Model):
    currency: str = Field(
        pattern=r"^[A-Z]{3}$",
        description="Record 1.2: the currency of the claimed cost and of the price below, as an ISO 4217 code (for example USD).",
    )
    per_accelerator_hour: Annotated[float, Field(gt=0, le=10**9)] | None = Field(
        default=None,
        description="Record 1.2: the price of one accelerator per hour the cost was computed at. The hour's price is this times the accelerators of the run's configuration (hardware.count).",
    )
    per_server_hour: Annotated[float, Field(gt=0, le=10**9)] | None = Field(
        default=None,
        description="Record 1.2: the price of one server per hour the cost was computed at (with accelerators_per_server: the run's accelerators fill whole servers).",
    )
    accelerators_per_server: PositiveCount | None = Field(
        default=None, description="Record 1.2: accelerators in one server, for a price per server-hour (4 accelerators at 8 per server is 1 server)."
    )
    source: Text | None = Field(default=None, description="Record 1.2: where the price comes from (a price list and its date, the vendor's page).")


class Claim(_Model):
    id: Ident = Field(description="Short name for this claim (for example 'c1').")
    text: LongText = Field(description="The claim as the vendor worded it.")
    kind: ClaimKind = Field(
        description="What is claimed: output throughput (tokens/s), speedup (x), latency (ms), capacity (requests), acceptance rate, acceptance length, lossless output, or cost (record 1.2: per million output tokens, at the price stated in price)."
    )
    value: float | None = Field(
        default=None,
        ge=-(10**12),
        le=10**12,
        description="The claimed number (200 for '200 tokens/s', 3 for '3x'). For a range ('2.2-3.6x') its low end. Not needed for lossless.",
    )
    value_high: float | None = Field(
        default=None,
        ge=-(10**12),
        le=10**12,
        description="For a claim stated as a range ('2.2-3.6x'): the high end (3.6); value holds the low end. Leave out for a single figure.",
    )
    bound: Literal["up-to", "at-least", "at-most"] | None = Field(
        default=None,
        description="When the vendor qualifies the figure: up-to for a best case reached ('up to 2.8x', the figure of the run the claim names), at-least for a floor ('over 250 tokens/s'), at-most for a ceiling ('p99 time per output token under 40 ms'). Leave out for a plain figure or a range.",
    )
    unit: Text | None = Field(default=None, description="Unit of the value (tokens/s, x, ms, requests, fraction, tokens/step).")
    counted: Counted | None = Field(
        default=None,
        description="What the number counts: emitted output tokens (all users together), total tokens (record 1.3: prompt plus output tokens, (I + E) / T), emitted output per user (per-request throughput, as engine blogs state 'tokens/s per user'), accepted drafts, proposed drafts, acceptance length or rate, response time (a speedup in latency), or requests. A speed must count emitted output.",
    )
    run: Ident | None = Field(
        default=None,
        description="Id of the run the claim rests on. Leave out when the vendor sent the claim with nothing measured behind it (an e-mail, a slide): it is then recorded as stated and not established, with no evidence attached.",
    )
    baseline: Ident | None = Field(
        default=None, description="Id of the run it is compared with (normally target-only decoding under the same settings). Required for speedups."
    )
    concurrency: PositiveCount | None = Field(
        default=None, description="Concurrency the claim is stated for. A speedup with no stated load is not a result."
    )
    request_rate: NonNegFloat | None = Field(
        default=None, description="Request rate (per second) the claim is stated for, when load is given as a rate."
    )
    scope: Literal["generation-only", "end-to-end"] | None = Field(
        default=None, description="Whether the claim is about output generation only or about end-to-end response time."
    )
    task: Text | None = Field(default=None, description="Task the claim is stated for, when it names one.")
    latency_metric: Literal["ttft", "tpot", "itl", "e2e"] | None = Field(
        default=None,
        description="For latency claims and response-time speedups: which latency (time to first token, time per output token, inter-token latency, end-to-end).",
    )
    percentile: Literal["mean", "p50", "p90", "p95", "p99", "unstated"] | None = Field(
        default=None,
        description="For latency claims and response-time speedups: which percentile (or the mean); 'unstated' when the source does not say. For per-user throughput: which statistic, when stated.",
    )
    composition: Composition | None = Field(default=None, description="For combined speedups: how the combination was obtained.")
    provenance: Literal["measured", "derived", "selected"] | None = Field(
        default=None,
        description="Where the claimed figure comes from: measured in the run; derived, computed from other figures (for example per-user throughput times the batch size); or selected, the best point of a sweep over many configurations.",
    )
    provenance_detail: Text | None = Field(
        default=None, description="How a derived figure was computed, or what a selected one was selected from, in the source's words."
    )
    selected_configuration: Ident | None = Field(
        default=None,
        description="For a selected figure: the id of the configuration that gave it. A best-of-sweep figure holds only for that configuration.",
    )
    at_pinned_acceptance: NonNegFloat | None = Field(
        default=None,
        description="Record 1.2: for a claim about the system (output throughput, per-user throughput, latency, capacity) made on a run whose acceptance was pinned: the acceptance length the claim says it holds at (2.97 for 'at the golden acceptance length 2.97'). It must be the run's pinned value.",
    )
    installation_items: list[Ident] = Field(
        default_factory=list,
        max_length=100,
        description="Installation-scope items (by id) the claimed figure depends on. Any entry mixes equipment work into a software claim.",
    )
    relative: Literal["lower", "higher"] | None = Field(
        default=None,
        description="Record 1.2: for a claim written as a change against its baseline rather than as a ratio: lower for '40 % lower p50 TPOT', '57 % cheaper' or 'reduces latency by 1.5-3x'; higher for '34 % higher throughput' or '58 % more tokens/s per GPU'. With unit % the value is the percentage (40), otherwise the factor (1.5 and 3). It is recomputed as the speedup it amounts to (40 % lower latency: baseline / run = 1 / 0.6) and shown as written.",
    )
    price: ClaimPrice | None = Field(
        default=None,
        description="Record 1.2: for a cost claim (per million output tokens): the currency and the hourly price the cost was computed at, per accelerator-hour or per server-hour. Without it a cost cannot be checked.",
    )
    throughput_per: Literal["accelerator", "deployment"] | None = Field(
        default=None,
        description="Record 1.2: for a throughput or a throughput comparison: per accelerator ('tokens/s per GPU', divided by the configuration's hardware.count) or for the whole deployment (all its accelerators together, the default).",
    )
    at_per_user_speed: Annotated[float, Field(gt=0, le=10**6)] | None = Field(
        default=None,
        description="Record 1.2: for a comparison at matched interactivity ('58 % more tokens/s per GPU at 57 tokens/s per user'): the per-user speed U, in output tokens/s per user. Each side's figure is its highest-throughput measured run whose per-user speed is at least U (a step function, never interpolated).",
    )
    sweep: list[Ident] = Field(
        default_factory=list,
        max_length=200,
        description="Record 1.2: for a claim at matched interactivity (record 1.3: or at matched throughput per accelerator): the runs of the claim's side (its load sweep) the point is chosen from, besides run.",
    )
    baseline_sweep: list[Ident] = Field(
        default_factory=list,
        max_length=200,
        description="Record 1.2: for a claim at matched interactivity (record 1.3: or at matched throughput per accelerator): the baseline side's runs (its load sweep), besides baseline.",
    )
    at_accelerator_throughput: Annotated[float, Field(gt=0, le=10**9)] | None = Field(
        default=None,
        description="Record 1.3: for a per-user comparison at matched throughput per accelerator ('1.87x tokens/s per user at nearly identical GPU throughput'): the output tokens/s per accelerator X. Each side's figure is the highest per-user speed among its measured runs whose output tokens/s per accelerator is at least X (a step function, never interpolated); give sweep and baseline_sweep.",
    )
    validity_gates: ValidityGates | None = Field(
        default=None,
        description="Record 1.3: the conditions the claim holds under: latency limits its run must meet and whether the benchmark tool's own verdict must be valid (MLPerf).",
    )
    printed_decimals: Annotated[int, Field(ge=0, le=12), Whole] | None = Field(
        default=None,
        description="Record 1.2: when the claimed value is copied from a tool's rounded print ('0.07 req/s'), the number of decimals it was printed with (2). It is then consistent with any figure that rounds to it, as a tool's reported figures are, instead of within 2 %.",
    )


# ---------------------------------------------------------------------- installation


class InstallationItem(_Model):
    id: Ident = Field(description="Short name for this item.")
    category: Literal["equipment", "mounting", "cabling", "site", "other"] = Field(description="Kind of physical work.")
    description: LongText = Field(description="What the vendor identified, in their words.")


class InstallationScope(_Model):
    items: list[InstallationItem] = Field(
        default_factory=list,
        max_length=200,
        description="Separately identified physical work: servers to rack, cabling, site work. Reported on its own, outside the software performance verdict.",
    )
    notes: LongText | None = Field(default=None, description="Anything else about the installation project.")


# ---------------------------------------------------------------------------- record


class EvidenceRecord(_Model):
    record_version: Literal["1.0", "1.1", "1.2", "1.3"] = Field(
        description="Version of the evidence-record format. This tool reads 1.0, 1.1, 1.2 and 1.3; write 1.2 where the counts give D (tokens outside verification steps), 1.3 where the record carries what only 1.3 states (a measurement's uncertainty, total tokens, worker pools, validity gates: docs/record.md, Record 1.3), else 1.1."
    )
    offer: Offer = Field(description="Who makes the offer and what they claim, verbatim.")
    configurations: list[Configuration] = Field(
        max_length=100,
        description="Each arrangement measured: target model, proposer, numerics, sampling, runtime, hardware. Empty when the vendor sent claims with no evidence.",
    )
    runs: list[Run] = Field(
        max_length=5000,
        description="Each measured run: speculative or target-only, with workload, load, interval and counts. Empty when the vendor sent claims with no evidence.",
    )
    claims: list[Claim] = Field(
        min_length=1, max_length=500, description="The vendor's claims, each typed and tied to the run (and baseline) it rests on."
    )
    installation_scope: InstallationScope | None = Field(
        default=None, description="Physical installation work, recorded apart from the software claims and never an input to their verdicts."
    )
