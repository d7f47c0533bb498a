"""What a claim's number should be, recomputed from the run (and baseline) it names, and which
baseline a run is compared with.

Two figures per claim: the one for what the claim says it counts (so a claimed
"200 tokens/s of proposed drafts" is checked against P / T), and the output
figure the claim ought to rest on (E / T, or the output-throughput speedup).

The pairing of a run with its baseline lives here once (`baseline_for`), on the fields that
must be equal between them (`comparison_fields`); the rules, the figures across loads and
the PDF all use it, and every speedup is metrics.speedup.
"""

from __future__ import annotations

from dataclasses import dataclass

from .context import Context
from .metrics import RunMetrics, speedup
from .record import Claim, Run


@dataclass(frozen=True)
class Figure:
    name: str  # what was computed, in a buyer's words
    value: float | None
    unit: str
    needs: tuple[str, ...] = ()  # what the record lacks to compute it


def _throughput(m: RunMetrics, counted: str | None) -> Figure:
    if counted == "proposed-drafts":
        return Figure("proposed draft tokens/s (P / T)", m.proposed_tokens_per_s, "tokens/s", _missing(m, "proposed_drafts"))
    if counted == "accepted-drafts":
        return Figure("accepted draft tokens/s (A / T)", m.accepted_tokens_per_s, "tokens/s", _missing(m, "accepted_drafts"))
    if counted == "acceptance-length":
        return _acceptance_length(m)
    if counted == "acceptance-rate":
        return _acceptance_rate(m)
    return Figure("emitted output tokens/s (E / T)", m.emitted_tokens_per_s, "tokens/s", _missing(m, "emitted_tokens"))


def _acceptance_length(m: RunMetrics) -> Figure:
    return Figure(
        "mean acceptance length (1 + A / S)",
        m.mean_acceptance_length,
        "tokens/step",
        tuple(n for n in ("accepted_drafts", "verification_steps") if getattr(m, n) is None),
    )


def _acceptance_rate(m: RunMetrics) -> Figure:
    return Figure(
        "draft acceptance rate (A / P)",
        m.acceptance_rate,
        "fraction",
        tuple(n for n in ("accepted_drafts", "proposed_drafts") if getattr(m, n) is None),
    )


def _missing(m: RunMetrics, count: str) -> tuple[str, ...]:
    needs = []
    if getattr(m, count) is None:
        needs.append(count)
    if m.duration_s is None:
        needs.append("duration_s")
    return tuple(needs)


def output_speedup(ctx: Context, claim: Claim) -> Figure:
    run, base = ctx.run(claim.run), ctx.run(claim.baseline)
    if run is None or base is None:
        return Figure("output-throughput speedup against the baseline", None, "x", ("baseline",))
    m, b = ctx.metrics[run.id], ctx.metrics[base.id]
    needs = tuple(f"{r.id}: {n}" for r, x in ((run, m), (base, b)) for n in _missing(x, "emitted_tokens"))
    return Figure("output-throughput speedup against the baseline", speedup(m, b), "x", needs)


def latency_value(run: Run, metric: str | None, percentile: str | None) -> float | None:
    if run.latency is None or metric is None or percentile is None:
        return None
    block = getattr(run.latency, f"{metric}_ms")
    return None if block is None else getattr(block, percentile)


def claimed_figure(ctx: Context, claim: Claim) -> Figure | None:
    """The figure for what the claim says it counts; None when no figure applies (capacity, lossless)."""
    run = ctx.run(claim.run)
    if run is None:
        return None
    m = ctx.metrics[run.id]
    if claim.kind == "output-throughput":
        return _throughput(m, claim.counted)
    if claim.kind == "speedup":
        if claim.counted == "acceptance-length":
            return _acceptance_length(m)
        if claim.counted == "acceptance-rate":
            return _acceptance_rate(m)
        if claim.counted in (None, "emitted-output"):
            return output_speedup(ctx, claim)
        return None
    if claim.kind == "latency":
        value = latency_value(run, claim.latency_metric, claim.percentile)
        needs = () if value is not None else (f"latency.{claim.latency_metric}_ms.{claim.percentile}",)
        return Figure(f"{claim.percentile} {claim.latency_metric} latency", value, "ms", needs)
    if claim.kind == "acceptance-rate":
        return _acceptance_rate(m)
    if claim.kind == "acceptance-length":
        return _acceptance_length(m)
    return None


def output_figure(ctx: Context, claim: Claim) -> Figure | None:
    """The emitted-output figure a speed claim should rest on, for messages and reports."""
    run = ctx.run(claim.run)
    if run is None:
        return None
    if claim.kind == "output-throughput":
        return _throughput(ctx.metrics[run.id], "emitted-output")
    if claim.kind == "speedup":
        return output_speedup(ctx, claim)
    return None


def claimed_value(claim: Claim) -> float | None:
    """The claimed number on the figure's own scale: percentages become fractions."""
    if claim.value is None:
        return None
    if claim.kind == "acceptance-rate" and (claim.unit or "").strip().lower() in ("%", "percent", "per cent"):
        return claim.value / 100
    return claim.value


# ------------------------------------------------------------------------- baselines

# How tokens are generated differs by arrangement (proposal + verification, or plain decode);
# the rest of the interval definition must match.
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
    for name in ("start_event", "end_event", "scope", "measurement"):
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
