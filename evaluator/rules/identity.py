"""Rules about configuration identity: what exactly was measured."""

from __future__ import annotations

from collections.abc import Iterator

from ..engine.context import Context
from ..engine.record import MODEL_FREE_METHODS, Configuration, EvidenceRecord
from ..engine.wording import and_join
from .registry import Violation, rule

# Each identity field as the ask words it.
_WORDS = {
    ("target", "model"): "the target model",
    ("target", "revision"): "the target model's revision",
    ("target", "tokenizer"): "the tokenizer",
    ("target", "tokenizer_revision"): "the tokenizer's revision",
    ("proposer", "method_name"): "the proposer method's name",
    ("proposer", "model"): "the drafter",
    ("proposer", "revision"): "the drafter's revision",
    ("proposer", "k"): "the draft length K",
    ("proposer", "k_schedule"): "the K of each concurrency band",
    ("proposer", "k_by_length"): "the K of each sequence-length band",
    ("deployment", "pools"): "each worker pool's worker count and parallel sizes",
    ("numerics", "weights"): "the number format of the weights",
    ("numerics", "activations"): "the number format of the activations",
    ("numerics", "kv_cache"): "the number format of the KV cache",
    ("sampling", "temperature"): "the sampling temperature",
    ("sampling", "top_p"): "top-p",
    ("sampling", "top_k"): "top-k",
    ("sampling", "n"): "the completions per request (n)",
    ("runtime", "name"): "the serving software",
    ("runtime", "version"): "the serving software's exact version",
    ("hardware", "accelerator"): "the accelerator",
    ("hardware", "count"): "the number of accelerators",
}


def per_request_counts(record: EvidenceRecord, cfg: Configuration) -> bool:
    """Whether a run of this configuration sums acceptance counts over requests' own metrics
    without stating their coverage: requests with n > 1 report none, so n decides what they cover."""
    for run in record.runs:
        c = run.counts
        if run.configuration != cfg.id or c.population not in ("benchmark-requests", "mixed"):
            continue
        drafted = any(x is not None for x in (c.verification_steps, c.proposed_drafts, c.accepted_drafts))
        if drafted and c.requests_without_metrics is None and run.load.multi_sequence_share is None:
            return True
    return False


def missing_identity(cfg: Configuration, n_needed: bool = True) -> list[tuple[str, str]]:
    """Paths (inside the configuration) of identity fields the configuration does not state.
    `n_needed`: whether completions per request change this configuration's evidence
    (per_request_counts); elsewhere n is not part of what must be pinned."""
    missing: list[tuple[str, str]] = []  # (section, field)
    for name in ("model", "revision", "tokenizer", "tokenizer_revision"):
        if not getattr(cfg.target, name):
            missing.append(("target", name))
    p = cfg.proposer
    if p.method == "other" and not p.method_name:
        missing.append(("proposer", "method_name"))
    # MTP heads ship inside the target checkpoint: its revision pins them, unless the proposer names
    # a checkpoint of its own (a separately published MTP module), which then needs its revision.
    in_target = p.method == "mtp" and (not p.model or (cfg.target.model is not None and same_model(p.model, cfg.target.model)))
    if p.method not in MODEL_FREE_METHODS and not in_target:
        for name in ("model", "revision"):
            if not getattr(p, name):
                missing.append(("proposer", name))
    # Lookahead and Jacobi decoding have no single K: their window and n-gram settings, stated with
    # the command that ran them, are what pins the draft length.
    windowed = p.method in ("lookahead", "jacobi") and cfg.runtime.flags
    # Record 1.3: a K schedule of a stated kind pins K only with its table.
    kind_table = {"per-concurrency": ("k_schedule", p.k_schedule), "per-sequence-length": ("k_by_length", p.k_by_length)}
    if p.k_schedule_kind in kind_table and not kind_table[p.k_schedule_kind][1]:
        missing.append(("proposer", kind_table[p.k_schedule_kind][0]))
    scheduled = bool(p.k_schedule or p.k_by_length) or p.adaptive_verification or p.k_schedule_kind == "adaptive"
    if p.method != "none" and p.k is None and not scheduled and not windowed and p.k_schedule_kind not in kind_table:
        missing.append(("proposer", "k"))
    for name in ("weights", "activations", "kv_cache"):
        if not getattr(cfg.numerics, name):
            missing.append(("numerics", name))
    s = cfg.sampling
    if s.temperature is None:
        # Also when the source says only "greedy" or "stochastic": the temperature pins the comparison.
        missing.append(("sampling", "temperature"))
        if s.mode == "stochastic":
            missing += [("sampling", name) for name in ("top_p", "top_k") if getattr(s, name) is None]
    elif s.temperature > 0:
        for name in ("top_p", "top_k"):
            if getattr(s, name) is None:
                missing.append(("sampling", name))
    if s.n is None and n_needed:
        missing.append(("sampling", "n"))
    for name in ("name", "version"):
        if not getattr(cfg.runtime, name):
            missing.append(("runtime", name))
    for name in ("accelerator", "count"):
        if getattr(cfg.hardware, name) in (None, ""):
            missing.append(("hardware", name))
    # Record 1.3: a worker pool named without its worker count or parallel sizes does not pin the deployment.
    if cfg.deployment is not None and any(pool.workers is None or pool.parallelism is None for pool in cfg.deployment.pools):
        missing.append(("deployment", "pools"))
    return missing


@rule(
    "identity-incomplete",
    "error",
    "Target revision, tokenizer, proposer identity, numerics, sampling, runtime version or hardware is missing",
    rationale="""A result belongs to a configuration: the target model and its revision, the tokenizer,
    the proposer and its revision, K, the number formats, the sampling settings, the runtime version and
    the hardware. A changed target or sampling policy is a different comparison even when the acceptance
    figure looks the same; a result whose configuration is not pinned cannot be reproduced or compared.
    Completions per request (n) are required only where they change the evidence: where acceptance counts
    are summed from per-request metrics, which requests with n > 1 do not report.""",
    failing="A configuration naming the target model but not its revision or the vLLM version.",
    passing="Every identity field stated, for example revision 'a1b2c3d', vLLM 0.32.0, bf16 weights.",
    reference="docs/claims.md, The checklist behind the rules, item 5 (configuration identity)",
    ask="Please state, for configuration {configuration}, {missing}.",
)
def identity_incomplete(ctx: Context) -> Iterator[Violation]:
    for c, cfg in ctx.used_configurations():
        missing = missing_identity(cfg, per_request_counts(ctx.record, cfg))
        if missing:
            yield Violation(
                f"configuration {cfg.id} does not state " + ", ".join(".".join(m) for m in missing),
                ("configurations", c, *missing[0]),
                ask={"configuration": cfg.id, "missing": and_join(_WORDS[m] for m in missing)},
            )


def same_model(named: str, target: str) -> bool:
    """Whether the model a tool names is the configuration's target: the same name (letter case
    aside), or the same last component where one of them is a bare name or a local path
    ("opt-125m", "/models/opt-125m" for "facebook/opt-125m"); another organisation's model of the
    same name is another model."""
    a, b = named.strip().lower().rstrip("/"), target.strip().lower().rstrip("/")
    if a == b:
        return True
    bare = lambda s: "/" not in s or s.startswith(("/", ".", "~"))  # noqa: E731
    return (bare(a) or bare(b)) and a.rsplit("/", 1)[-1] == b.rsplit("/", 1)[-1]


@rule(
    "model-mismatch",
    "error",
    "The model a run's tool output names is not its configuration's target model",
    rationale="""An imported run carries the model its benchmark tool says it ran. When that is not the
    target the configuration declares (a facebook/opt-125m baseline under a configuration that says
    Qwen/Qwen3.8-27B-FP8), the run measured something else, and every figure taken from it describes
    the wrong model.""",
    failing="A run imported from vllm bench serve output naming facebook/opt-125m, under a configuration whose target is Qwen/Qwen3.8-27B-FP8.",
    passing="The run's source names the configuration's target model (or the same model as a bare name or local path).",
    reference="docs/claims.md, The checklist behind the rules, item 5 (configuration identity)",
    ask="Please confirm which model run {run} measured: its tool output names {named}, its configuration {configuration} declares {target}.",
)
def model_mismatch(ctx: Context) -> Iterator[Violation]:
    for i, run in enumerate(ctx.record.runs):
        named = run.source.model if run.source is not None else None
        cfg = ctx.configuration(run)
        target = cfg.target.model if cfg is not None else None
        if named and target and cfg is not None and not same_model(named, target):  # (a target is a configuration's)
            yield Violation(
                f"run {run.id}: its tool output names the model {named}, but configuration {cfg.id} declares {target}",
                ("runs", i, "source", "model"),
                run=run.id,
                ask={"run": run.id, "named": named, "configuration": cfg.id, "target": target},
            )


@rule(
    "pinned-acceptance-adaptive",
    "warning",
    "Acceptance is pinned synthetically while adaptive verification is on",
    rationale="""A run with acceptance forced by a benchmark setting (a fixed acceptance length or rate) is
    read as what the system does at that acceptance. Adaptive verification changes K per request and step
    from the drafter's confidence, so under it the forced acceptance no longer fixes what each step
    verifies: the figure is neither the pinned point nor real traffic. InferenceX's recipes turn adaptive
    verification off for pinned runs.""",
    failing="A configuration with simulated_acceptance set and proposer.adaptive_verification true.",
    passing="The same pinned configuration with adaptive verification off.",
    reference="vLLM Adaptive Verification, https://docs.vllm.ai/en/stable/features/speculative_decoding/adaptive_verification/; docs/claims.md, The checklist behind the rules, item 5 (configuration identity)",
    ask="Please measure configuration {configuration} with adaptive verification off while acceptance is pinned, or without pinning acceptance.",
)
def pinned_acceptance_adaptive(ctx: Context) -> Iterator[Violation]:
    for c, cfg in enumerate(ctx.record.configurations):
        if not cfg.proposer.adaptive_verification:
            continue
        pinned = cfg.proposer.simulated_acceptance is not None or any(
            run.configuration == cfg.id and run.simulated_acceptance is not None for run in ctx.record.runs
        )
        if pinned:
            yield Violation(
                f"configuration {cfg.id} pins acceptance synthetically while adaptive verification is on, so K is not what the pinned figure assumes",
                ("configurations", c, "proposer", "adaptive_verification"),
                ask={"configuration": cfg.id},
            )
