"""Rules about the counts themselves: the identities hold, coverage is honest, the histogram is read."""

from __future__ import annotations

from collections.abc import Iterator

from ..metrics import agrees_at_stated_precision, exact
from ..record import Run
from ..context import Context, speculating
from ..wording import num
from .registry import Violation, message, rule

CODE = "counts-inconsistent"

# acceptance-bimodal: a mode counts when it holds at least this share of steps...
BIMODAL_MIN_SHARE = 0.05
# ...and the dip between two such modes falls below this fraction of the smaller one.
BIMODAL_DIP = 0.5


def _identity_violations(ctx: Context, i: int, run: Run) -> Iterator[Violation]:
    c = run.counts
    S, P, A, B, E = c.verification_steps, c.proposed_drafts, c.accepted_drafts, c.bonus_tokens, c.emitted_tokens
    at = ("runs", i, "counts")

    def v(text: str, field: str) -> Violation:
        return Violation(message(CODE, "run", run=run.id, problem=text), (*at, field), run=run.id)

    if not speculating(ctx, run):
        why = "a target-only run" if run.arrangement == "target-only" else "a run at K = 0 (speculation off)"
        for name, value in (("verification_steps", S), ("proposed_drafts", P), ("accepted_drafts", A)):
            if value:
                yield v(f"{why} cannot have {name.replace('_', ' ')} ({value})", name)
        return
    if A is not None and P is not None and A > P:
        yield v(message(CODE, "a-exceeds-p", A=A, P=P), "accepted_drafts")
    if E is not None and A is not None and B is not None and E != A + B:
        yield v(message(CODE, "e-not-a-plus-b", E=E, A=A, B=B, sum=A + B), "emitted_tokens")
    if B is not None and S is not None and B > S:
        yield v(f"bonus/correction tokens B = {B} exceed verification steps S = {S} (at most one per step)", "bonus_tokens")
    k = ctx.effective_k(run)
    cfg = ctx.configuration(run)
    variable_k = cfg is not None and cfg.proposer.adaptive_verification
    if k is not None and S is not None and P is not None:
        offered = P + (c.invalidated_drafts or 0)
        if offered > k * S:
            yield v(f"P = {P}{' plus ' + str(c.invalidated_drafts) + ' invalidated' if c.invalidated_drafts else ''} exceeds K x S = {k} x {S} = {k * S}", "proposed_drafts")
    h = c.accepted_length_histogram
    if h is not None:
        if S is not None and sum(h) != S:
            yield v(message(CODE, "histogram-steps", total=sum(h), S=S), "accepted_length_histogram")
        weighted = sum(j * n for j, n in enumerate(h))
        if A is not None and weighted != A:
            yield v(message(CODE, "histogram-accepted", weighted=weighted, A=A), "accepted_length_histogram")
        if k is not None and not variable_k and len(h) > k + 1:
            yield v(f"the histogram has {len(h)} entries but K = {k} allows at most {k + 1} (0..K)", "accepted_length_histogram")
    per_pos = c.accepted_per_position
    if per_pos is not None:
        if A is not None and sum(per_pos) != A:
            yield v(f"per-position acceptance adds up to {sum(per_pos)}, not A = {A}", "accepted_per_position")
        if any(later > earlier for earlier, later in zip(per_pos, per_pos[1:])):
            yield v("per-position acceptance increases with position; a draft is only accepted after all before it", "accepted_per_position")
        if S is not None and per_pos and per_pos[0] > S:
            yield v(f"position 1 was accepted {per_pos[0]} times in only S = {S} steps", "accepted_per_position")


def _coverage_totals(i: int, run: Run) -> Iterator[Violation]:
    c, n = run.counts, run.workload.num_requests
    if n is not None and c.requests_with_metrics is not None and c.requests_without_metrics is not None:
        if c.requests_with_metrics + c.requests_without_metrics != n:
            yield Violation(
                f"run {run.id}: {c.requests_with_metrics} requests with and {c.requests_without_metrics} without "
                f"per-request metrics do not add up to the {n} requests measured",
                ("runs", i, "counts", "requests_with_metrics"),
                run=run.id,
            )


def _repetition_totals(i: int, run: Run) -> Iterator[Violation]:
    if not run.repetitions:
        return
    total_e = sum(r.emitted_tokens for r in run.repetitions)
    total_t = sum(exact(r.duration_s) for r in run.repetitions)
    E, T = run.counts.emitted_tokens, run.interval.duration_s
    if E is not None and total_e != E:
        yield Violation(
            f"run {run.id}: repetitions emit {total_e} tokens in all, but the run states E = {E}",
            ("runs", i, "repetitions"),
            run=run.id,
        )
    if T is not None and total_t != exact(T):
        yield Violation(
            f"run {run.id}: repetitions last {num(float(total_t), 's')} in all, but the interval states {num(T, 's')}",
            ("runs", i, "repetitions"),
            run=run.id,
        )


def _reported_figures(ctx: Context, i: int, run: Run) -> Iterator[Violation]:
    if run.reported is None:
        return
    m = ctx.metrics[run.id]
    for name, computed, formula in (
        ("acceptance_rate", m.acceptance_rate, "A / P"),
        ("mean_acceptance_length", m.mean_acceptance_length, "1 + A / S"),
        ("output_tokens_per_s", m.emitted_tokens_per_s, "E / T"),
    ):
        reported = getattr(run.reported, name)
        if reported is not None and computed is not None and not agrees_at_stated_precision(reported, computed):
            yield Violation(
                f"run {run.id}: the reported {name.replace('_', ' ')} {num(reported)} disagrees with "
                f"{formula} = {num(computed)}",
                ("runs", i, "reported", name),
                run=run.id,
            )


@rule(
    "counts-inconsistent",
    "error",
    "The counting identities break",
    rationale="""The counts of one interval must agree with each other: A <= P, E = A + B, at most one
    bonus token per step, the histogram adds up to S steps and A accepted drafts, P <= K x S, per-request
    coverage adds up, repetitions add up to the run, and a tool's own rate equals A / P. When they do not,
    the figures were taken from different intervals or populations, or were edited.""",
    failing="E = 16 with A = 10 and B = 5.",
    passing="SD-201: S = 5, P = 20, A = 10, B = 5, E = 15, histogram [1, 1, 1, 1, 1].",
    reference="README, What a claim needs before it counts (the figures and their formulas); vLLM Per-Request Acceptance Metrics, https://docs.vllm.ai/en/stable/features/speculative_decoding/acceptance_metrics/",
    messages={
        "run": "run {run}: {problem}",
        "a-exceeds-p": "accepted drafts A = {A} exceed proposed drafts P = {P}",
        "e-not-a-plus-b": "emitted tokens E = {E} but A + B = {A} + {B} = {sum}",
        "histogram-steps": "the accepted-length histogram adds up to {total} steps, not S = {S}",
        "histogram-accepted": "the accepted-length histogram gives {weighted} accepted drafts, not A = {A}",
    },
)
def counts_inconsistent(ctx: Context) -> Iterator[Violation]:
    for i, run in enumerate(ctx.record.runs):
        yield from _identity_violations(ctx, i, run)
        yield from _coverage_totals(i, run)
        yield from _repetition_totals(i, run)
        yield from _reported_figures(ctx, i, run)


@rule(
    "coverage-gap",
    "error",
    "Requests without per-request metrics are counted as zeros, or per-request and server totals are mixed",
    rationale="""vLLM's per-request metrics are null for requests with n > 1, while its server counters
    include them. Missing coverage is not a measured zero, and per-request sums reconcile with server
    totals only for an all-single-sequence workload.""",
    failing="requests_without_metrics: 12 with missing_metrics_as: zero.",
    passing="requests_without_metrics: 0, population: benchmark-requests.",
    reference="README, The checklist behind the rules, item 7 (coverage); vLLM Per-Request Acceptance Metrics, https://docs.vllm.ai/en/stable/features/speculative_decoding/acceptance_metrics/",
)
def coverage_gap(ctx: Context) -> Iterator[Violation]:
    for i, run in enumerate(ctx.record.runs):
        c = run.counts
        if c.missing_metrics_as == "zero" and c.requests_without_metrics != 0:
            yield Violation(
                f"run {run.id}: requests without per-request metrics were counted as zeros, which understates acceptance",
                ("runs", i, "counts", "missing_metrics_as"),
                run=run.id,
            )
        elif c.requests_without_metrics and c.missing_metrics_as is None:
            yield Violation(
                f"run {run.id}: {c.requests_without_metrics} requests have no per-request metrics and the record "
                "does not say how they were treated",
                ("runs", i, "counts", "missing_metrics_as"),
                run=run.id,
            )
        if c.population == "mixed":
            yield Violation(
                f"run {run.id}: the counts mix per-request sums with server-wide counters, which cover different requests",
                ("runs", i, "counts", "population"),
                run=run.id,
            )


def bimodal_modes(histogram: list[int]) -> tuple[int, int] | None:
    """Two separated modes of the accepted-length histogram, or None."""
    total = sum(histogram)
    if total == 0:
        return None
    big = [j for j, n in enumerate(histogram) if n >= BIMODAL_MIN_SHARE * total]
    for a in big:
        for b in big:
            if b - a < 2:
                continue
            dip = min(histogram[a + 1 : b])
            if dip < BIMODAL_DIP * min(histogram[a], histogram[b]):
                return a, b
    return None


@rule(
    "acceptance-bimodal",
    "info",
    "The accepted-length histogram is bimodal, so its mean hides the workload",
    rationale="""A mean acceptance length summarises a histogram. vLLM's documentation example,
    [39, 1, 0, 3], is 39 steps that kept nothing and 3 that kept everything: a mean of 1.23 describes
    none of them. Such a workload has requests the drafter predicts well and requests it does not;
    read the histogram, and expect the speedup to depend on the mix.""",
    failing="Histogram [39, 1, 0, 3] (K = 3).",
    passing="Histogram [1, 1, 1, 1, 1] (SD-201).",
    reference="vLLM Per-Request Acceptance Metrics (its n-gram example: 39 of 43 steps keep nothing, 3 keep everything), https://docs.vllm.ai/en/stable/features/speculative_decoding/acceptance_metrics/",
)
def acceptance_bimodal(ctx: Context) -> Iterator[Violation]:
    for i, run in enumerate(ctx.record.runs):
        h = run.counts.accepted_length_histogram
        modes = bimodal_modes(h) if h else None
        if modes:
            a, b = modes
            m = ctx.metrics[run.id].mean_acceptance_length
            yield Violation(
                f"run {run.id}: {h[a]} of {sum(h)} steps accepted {a} drafts and {h[b]} accepted {b}; "
                f"the mean acceptance length {num(m)} describes neither",
                ("runs", i, "counts", "accepted_length_histogram"),
                run=run.id,
            )
