"""Which baseline a run is compared with, decided here once (`baseline_for`), on the fields that
must be equal between them (`comparison_fields`, brief 3.4); the rules, the claim figures, the
figures across loads and the PDF all use it."""

from __future__ import annotations

from .context import Context
from .record import Deployment, Run

_GENERATION_STAGES = {"proposal", "verification", "decode"}
PARALLEL_SIZES = ("tensor", "pipeline", "data", "expert", "context")


def parallelism(ctx: Context, run: Run) -> dict[str, int | None]:
    """Each parallel size the run was served with: the configuration's where it states one, else what
    the tool's own file says (record 1.2; a 1.0 or 1.1 record states none)."""
    cfg = ctx.configuration(run)
    stated = cfg.parallelism if cfg is not None else None
    tool = run.source.parallelism if run.source is not None else None
    return {name: next((getattr(p, name) for p in (stated, tool) if p is not None and getattr(p, name) is not None), None) for name in PARALLEL_SIZES}


def deployment_fields(deployment: Deployment | None) -> dict[str, object]:
    """A deployment's pools as comparable values: each pool's role, workers, accelerators per worker and
    parallel sizes, in the order stated."""
    if deployment is None:
        return {"deployment.pools": None, "deployment.arms_concurrent": None}
    pools = tuple(
        (p.role, p.workers, p.accelerators_per_worker, *(getattr(p.parallelism, n) if p.parallelism else None for n in PARALLEL_SIZES))
        for p in deployment.pools
    )
    return {"deployment.pools": pools or None, "deployment.arms_concurrent": deployment.arms_concurrent}


def comparison_fields(ctx: Context, run: Run) -> dict[str, object]:
    """Everything that must be equal between a run and its baseline (brief 3.4)."""
    cfg = ctx.configuration(run)
    fields: dict[str, object] = {}
    if cfg is not None:
        for part, names in (
            ("target", ("model", "revision", "tokenizer", "tokenizer_revision")),
            ("numerics", ("weights", "activations", "kv_cache")),
            ("sampling", ("temperature", "top_p", "top_k", "seed", "n", "reasoning_effort", "thinking")),
            ("hardware", ("accelerator", "count", "memory_gb", "interconnect")),
        ):
            for name in names:
                fields[f"{part}.{name}"] = getattr(getattr(cfg, part), name)
        # Record 1.2: the MoE kernels and clock/power settings are part of the deployment compared.
        fields["runtime.moe_backend"] = cfg.runtime.moe_backend
        fields["hardware.locked_clock_mhz"] = cfg.hardware.locked_clock_mhz
        fields["hardware.power_limit_w"] = cfg.hardware.power_limit_w
        # Record 1.3: disaggregated worker pools and whether the arms ran at once on separate hardware.
        fields.update(deployment_fields(cfg.deployment))
    for name, size in parallelism(ctx, run).items():
        fields[f"parallelism.{name}"] = size
    for name in ("task", "dataset", "num_requests", "input_tokens_mean", "max_output_tokens", "salted"):
        fields[f"workload.{name}"] = getattr(run.workload, name)
    cache = run.workload.prefix_cache
    for name in ("enabled", "state"):  # record 1.3; the hit rate is compared within a tolerance (rules/baseline.py)
        fields[f"workload.prefix_cache.{name}"] = getattr(cache, name) if cache is not None else None
    for name in ("concurrency", "request_rate", "loop", "rounds"):
        fields[f"load.{name}"] = getattr(run.load, name)
    for name in ("start_event", "end_event", "scope", "measurement", "whole_generation_call"):
        fields[f"interval.{name}"] = getattr(run.interval, name)
    fields["interval.stages_included"] = frozenset(run.interval.stages_included) - _GENERATION_STAGES
    fields["interval.stages_excluded"] = frozenset(run.interval.stages_excluded) - _GENERATION_STAGES
    return fields


def baseline_for(ctx: Context, run: Run) -> Run | None:
    """The run `run` is compared with: the baseline a claim on `run` names, when one does; otherwise
    the offer's own target-only run measured on equal terms (every comparison field the same)."""
    for claim in ctx.record.claims:
        if claim.run == run.id and claim.baseline and claim.baseline != run.id and ctx.run(claim.baseline) is not None:
            return ctx.run(claim.baseline)
    want = comparison_fields(ctx, run)
    for other in ctx.record.runs:
        if other.arrangement == "target-only" and other is not run and comparison_fields(ctx, other) == want:
            return other
    return None


def refused_pairing(ctx: Context, run: Run) -> str | None:
    """Why a speculative run has no baseline although a target-only run at its load exists: the
    fields that differ (a refused pairing is said as refused, never as 'none'); None otherwise."""
    if run.arrangement != "speculative" or baseline_for(ctx, run) is not None:
        return None
    ours = comparison_fields(ctx, run)
    for other in ctx.record.runs:
        if other.arrangement != "target-only" or other.load.concurrency != run.load.concurrency or other.load.request_rate != run.load.request_rate:
            continue
        theirs = comparison_fields(ctx, other)
        differing = [n for n in ours if n in theirs and ours[n] != theirs[n]]
        shown = "; ".join(f"{n} {_shown(ours[n])} vs {_shown(theirs[n])}" for n in differing[:3])
        return f"refused: {other.id} is not on equal terms ({shown}{'; ...' if len(differing) > 3 else ''})"
    return None


def _shown(value: object) -> str:
    if isinstance(value, (set, frozenset)):
        value = sorted(value)
    return "not stated" if value is None else str(value)
