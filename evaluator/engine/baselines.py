"""Which baseline a run is compared with, decided here once (`baseline_for`), on the fields that
must be equal between them (`comparison_fields`, brief 3.4); the rules, the claim figures, the
figures across loads and the PDF all use it."""

from __future__ import annotations

from .context import Context
from .record import Run

_GENERATION_STAGES = {"proposal", "verification", "decode"}


def comparison_fields(ctx: Context, run: Run) -> dict[str, object]:
    """Everything that must be equal between a run and its baseline (brief 3.4)."""
    cfg = ctx.configuration(run)
    fields: dict[str, object] = {}
    if cfg is not None:
        for part, names in (
            ("target", ("model", "revision", "tokenizer", "tokenizer_revision")),
            ("numerics", ("weights", "activations", "kv_cache")),
            ("sampling", ("temperature", "top_p", "top_k", "seed", "n")),
            ("hardware", ("accelerator", "count", "memory_gb", "interconnect")),
        ):
            for name in names:
                fields[f"{part}.{name}"] = getattr(getattr(cfg, part), name)
    for name in ("task", "dataset", "num_requests", "input_tokens_mean", "max_output_tokens"):
        fields[f"workload.{name}"] = getattr(run.workload, name)
    for name in ("concurrency", "request_rate", "loop"):
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
