"""Rules about the counts themselves: the identities hold, coverage is honest, the histogram is read."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from ..engine.context import Context, speculating
from ..engine.metrics import TOOL_TIMING_RESOLUTION_S, Bounds, exact, output_rate_bounds
from ..engine.record import Run
from ..engine.wording import disputed, num
from .registry import Violation, message, rule

CODE = "counts-inconsistent"

# acceptance-bimodal: a mode counts when it holds at least this share of steps...
BIMODAL_MIN_SHARE = 0.05
# ...and the dip between two such modes falls below this fraction of the smaller one.
BIMODAL_DIP = 0.5
# Over requests (record 1.3 request_acceptance): a fifth of them below A / P = 0.3 and a fifth at 0.6 or more.
REQUEST_LOW, REQUEST_HIGH, REQUEST_MODE_SHARE = 3, 6, 0.2


def _identity_violations(ctx: Context, i: int, run: Run) -> Iterator[Violation]:
    c = run.counts
    S, P, A, B, E = c.verification_steps, c.proposed_drafts, c.accepted_drafts, c.bonus_tokens, c.emitted_tokens
    at = ("runs", i, "counts")

    def v(text: str, field: str) -> Violation:
        return _inconsistent(run, text, (*at, field))

    if not speculating(ctx, run):
        why = "a target-only run" if run.arrangement == "target-only" else "a run at K = 0 (speculation off)"
        for name, value in (("verification_steps", S), ("proposed_drafts", P), ("accepted_drafts", A)):
            if value:
                yield v(f"{why} cannot have {name.replace('_', ' ')} ({value})", name)
        return
    if A is not None and P is not None and A > P:
        yield v(message(CODE, "a-exceeds-p", A=A, P=P), "accepted_drafts")
    D = c.outside_step_tokens  # record 1.2: tokens outside verification steps, where the counts give them
    if E is not None and A is not None and B is not None and E != A + B + (D or 0):
        if D is None:
            yield v(message(CODE, "e-not-a-plus-b", E=E, A=A, B=B, sum=A + B), "emitted_tokens")
        else:
            yield v(message(CODE, "e-not-a-plus-b-plus-d", E=E, A=A, B=B, D=D, sum=A + B + D), "emitted_tokens")
    if B is not None and S is not None and B > S:
        yield v(f"bonus/correction tokens B = {B} exceed verification steps S = {S} (at most one per step)", "bonus_tokens")
    k = ctx.effective_k(run)
    cfg = ctx.configuration(run)
    variable_k = cfg is not None and cfg.proposer.adaptive_verification
    if k is not None and S is not None and P is not None:
        offered = P + (c.invalidated_drafts or 0)
        if offered > k * S:
            yield v(
                f"P = {P}{' plus ' + str(c.invalidated_drafts) + ' invalidated' if c.invalidated_drafts else ''} exceeds K x S = {k} x {S} = {k * S}",
                "proposed_drafts",
            )
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


def _inconsistent(run: Run, problem: str, path: tuple) -> Violation:
    """One broken identity of a run: 'run X: problem', and the ask names the same problem."""
    return Violation(message(CODE, "run", run=run.id, problem=problem), path, run=run.id, ask={"run": run.id, "problem": problem})


def _coverage_totals(i: int, run: Run) -> Iterator[Violation]:
    c, n = run.counts, run.workload.num_requests
    if n is not None and c.requests_with_metrics is not None and c.requests_without_metrics is not None:
        if c.requests_with_metrics + c.requests_without_metrics != n:
            yield _inconsistent(
                run,
                f"{c.requests_with_metrics} requests with and {c.requests_without_metrics} without "
                f"per-request metrics do not add up to the {n} requests measured",
                ("runs", i, "counts", "requests_with_metrics"),
            )


def _scheduled_steps(i: int, run: Run) -> Iterator[Violation]:
    """Record 1.3's steps per scheduled K (vLLM spec_decode_scheduled_steps{K}) against the counts: a
    step at K = 0 emits one token outside verification (so no more of them than D), a step with drafts
    can be no more than the verification steps it could have made, nor offer more than K drafts."""
    c, at = run.counts, ("runs", i, "counts", "scheduled_steps_by_k")
    steps = c.scheduled_steps_by_k
    if not steps:
        return
    D, S, P = c.outside_step_tokens, c.verification_steps, c.proposed_drafts
    if D is not None and steps[0] > D:
        yield _inconsistent(run, f"{steps[0]} steps were sent to K = 0, each emitting one token outside verification, but D = {D}", at)
    drafting = sum(steps[1:])
    if S is not None and drafting < S:
        yield _inconsistent(run, f"{drafting} steps were scheduled with drafts (K >= 1), fewer than the S = {S} verification steps", at)
    slots = sum(k * n for k, n in enumerate(steps))
    if P is not None and P > slots:
        yield _inconsistent(run, f"P = {P} drafts were proposed, but the scheduled steps offer at most {slots} (sum of K x steps)", at)


def _repetition_totals(i: int, run: Run) -> Iterator[Violation]:
    summary = run.repetition_summary
    if summary is not None and run.repetitions and len(run.repetitions) != summary.count:
        yield _inconsistent(
            run,
            f"{len(run.repetitions)} repetitions are listed, but the summary states {summary.count}",
            ("runs", i, "repetition_summary", "count"),
        )
    if not run.repetitions:
        return
    total_e = sum(r.emitted_tokens for r in run.repetitions)
    total_t = sum(exact(r.duration_s) for r in run.repetitions)
    E, T = run.counts.emitted_tokens, run.interval.duration_s
    if E is not None and total_e != E:
        yield _inconsistent(run, f"repetitions emit {total_e} tokens in all, but the run states E = {E}", ("runs", i, "repetitions"))
    if T is not None and total_t != exact(T):
        yield _inconsistent(
            run,
            f"repetitions last {num(float(total_t), 's')} in all, but the interval states {num(T, 's')}",
            ("runs", i, "repetitions"),
        )


def _ratio(numerator: int | None, denominator: int | None, plus: int = 0) -> Bounds | None:
    if numerator is None or not denominator:
        return None
    return Bounds.exact(plus + Fraction(numerator, denominator))


def _apart(reported: float, computed: float, formula: str) -> tuple[str, str, str]:
    """The reported figure as stated and the recomputed one with enough digits to tell them apart (wording.disputed)."""
    shown, recomputed = disputed(reported, computed)
    return shown, formula, recomputed


def _reported_figures(ctx: Context, i: int, run: Run) -> Iterator[Violation]:
    if run.reported is None:
        return
    m, c = ctx.metrics[run.id], run.counts
    # A figure is compared at the precision it was stated to, and with the range E / T allows when
    # the duration was written rounded, or, for a run imported from a tool, timed at the tool's
    # resolution (A / P and 1 + A / S are ratios of counts: exact).
    resolution = TOOL_TIMING_RESOLUTION_S if run.source is not None else Fraction(0)
    for name, computed, formula, bounds in (
        ("acceptance_rate", m.acceptance_rate, "A / P", _ratio(c.accepted_drafts, c.proposed_drafts)),
        ("mean_acceptance_length", m.mean_acceptance_length, "1 + A / S", _ratio(c.accepted_drafts, c.verification_steps, 1)),
        (
            "output_tokens_per_s",
            m.emitted_tokens_per_s,
            "E / T",
            output_rate_bounds(c.emitted_tokens, run.interval.duration_s, timing_resolution=resolution),
        ),
    ):
        reported = getattr(run.reported, name)
        # (computed is there whenever bounds is: both need the same counts, and a duration is never 0)
        if reported is not None and bounds is not None and computed is not None and not bounds.allows(reported, stated_precision=True):
            yield _inconsistent(
                run,
                "the reported {} {} disagrees with {} = {}".format(name.replace("_", " "), *_apart(reported, computed, formula)),
                ("runs", i, "reported", name),
            )


@rule(
    "counts-inconsistent",
    "error",
    "The counting identities break",
    rationale="""The counts of one interval must agree with each other: A <= P, E = A + B (E = A + B + D
    where the record gives D, the tokens emitted outside verification steps), at most one
    bonus token per step, the histogram adds up to S steps and A accepted drafts, P <= K x S, per-request
    coverage adds up, repetitions add up to the run (and number as many as it says), a tool's own
    rate equals A / P, and (record 1.3) the steps per scheduled K agree: no more steps at K = 0 than D,
    no fewer steps with drafts than S, no more drafts than the scheduled K allow. When they do not,
    the figures were taken from different intervals or populations, or were edited.""",
    failing="E = 16 with A = 10 and B = 5.",
    passing="SD-201: S = 5, P = 20, A = 10, B = 5, E = 15, histogram [1, 1, 1, 1, 1].",
    reference="docs/claims.md, What a claim needs before it counts (the figures and their formulas); vLLM Per-Request Acceptance Metrics, https://docs.vllm.ai/en/stable/features/speculative_decoding/acceptance_metrics/",
    messages={
        "run": "run {run}: {problem}",
        "a-exceeds-p": "accepted drafts A = {A} exceed proposed drafts P = {P}",
        "e-not-a-plus-b": "emitted tokens E = {E} but A + B = {A} + {B} = {sum}",
        "e-not-a-plus-b-plus-d": "emitted tokens E = {E} but A + B + D = {A} + {B} + {D} = {sum}",
        "histogram-steps": "the accepted-length histogram adds up to {total} steps, not S = {S}",
        "histogram-accepted": "the accepted-length histogram gives {weighted} accepted drafts, not A = {A}",
    },
    ask="Please send run {run}'s counts again, all taken from one interval and one population of requests: {problem}.",
)
def counts_inconsistent(ctx: Context) -> Iterator[Violation]:
    for i, run in enumerate(ctx.record.runs):
        yield from _identity_violations(ctx, i, run)
        yield from _coverage_totals(i, run)
        yield from _repetition_totals(i, run)
        yield from _scheduled_steps(i, run)
        yield from _reported_figures(ctx, i, run)


def _disagreements(run: Run) -> list[str]:
    """Each count on which the server's counters and the benchmark differ, with the difference."""
    out = []
    for check in run.counts.population_check or []:
        if check.server != check.benchmark:
            diff = check.server - check.benchmark
            out.append(
                f"{check.count.replace('-', ' ')}: {check.server:,} on the server against {check.benchmark:,} in the benchmark "
                f"({abs(diff):,} {'more' if diff > 0 else 'fewer'})"
            )
    return out


def _capture_advice(run: Run) -> str:
    command = (
        " and import them with the result: sdeval import vllm-bench RESULT --metrics BEFORE AFTER"
        if run.source and run.source.format == "vllm-bench"
        else ""
    )
    return (
        "; to settle it, scrape the server's /metrics just before and just after the benchmark, with nothing else sent to it"
        f"{command}, so the server's request and token counts can show it served only the benchmark"
    )


@rule(
    "coverage-gap",
    "error",
    "Requests without per-request metrics are counted as zeros or left unexplained, or per-request and server totals are mixed",
    rationale="""vLLM's per-request metrics are null for requests with n > 1, while its server counters
    include them. Missing coverage is not a measured zero, and per-request sums reconcile with server
    totals only for an all-single-sequence workload. Likewise a benchmark's speculative figures taken
    from server counters cover every request the server handled: they are the benchmark's only when
    the server's own request and token counts over the same interval equal the benchmark's.""",
    failing="requests_without_metrics: 12 with missing_metrics_as: zero.",
    passing="requests_without_metrics: 0, population: benchmark-requests.",
    reference="docs/claims.md, The checklist behind the rules, item 7 (coverage); vLLM Per-Request Acceptance Metrics, https://docs.vllm.ai/en/stable/features/speculative_decoding/acceptance_metrics/",
    messages={
        "mixed": "run {run}: the counts mix server-wide counters with the benchmark's own requests, which may be different requests{advice}",
        "contradicted": "run {run}: the server's counters over the same interval show other requests than the benchmark's: {details}",
    },
    ask="Please send run {run}'s counts over one population of requests: say how requests without per-request metrics were treated (left out, never counted as zeros), and for a benchmark against a server, its /metrics scraped just before and just after the benchmark.",
)
def coverage_gap(ctx: Context) -> Iterator[Violation]:
    for i, run in enumerate(ctx.record.runs):
        c = run.counts
        if c.missing_metrics_as == "zero" and c.requests_without_metrics != 0:
            yield Violation(
                f"run {run.id}: requests without per-request metrics were counted as zeros, which understates acceptance",
                ("runs", i, "counts", "missing_metrics_as"),
                run=run.id,
                ask={"run": run.id},
            )
        elif c.requests_without_metrics and c.missing_metrics_as is None:
            yield Violation(
                f"run {run.id}: {c.requests_without_metrics} requests have no per-request metrics and the record does not say how they were treated",
                ("runs", i, "counts", "missing_metrics_as"),
                run=run.id,
                ask={"run": run.id},
            )
        disagreements = _disagreements(run)
        if c.population == "mixed" and (disagreements or not c.population_check):
            problem = "; ".join(disagreements)
            yield Violation(
                message("coverage-gap", "mixed", run=run.id, advice=f": {problem}" if problem else _capture_advice(run)),
                ("runs", i, "counts", "population"),
                run=run.id,
                ask={"run": run.id},
            )
        elif (
            disagreements
            and c.population != "server-wide"
            and any(v is not None for v in (c.verification_steps, c.proposed_drafts, c.accepted_drafts))
        ):
            yield Violation(
                message("coverage-gap", "contradicted", run=run.id, details="; ".join(disagreements)),
                ("runs", i, "counts", "population_check"),
                run=run.id,
                ask={"run": run.id},
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
    read the histogram, and expect the speedup to depend on the mix. Where the record keeps each
    request's own acceptance (record 1.3, runs[].request_acceptance), the requests are read the same
    way: at least a fifth accepting under 0.3 of their drafts, at least a fifth accepting 0.6 or more,
    and fewer between than in either group.""",
    failing="Histogram [39, 1, 0, 3] (K = 3), or 12 requests accepting under 0.1 of their drafts and 10 accepting at least 0.9 (none between).",
    passing="Histogram [1, 1, 1, 1, 1] (SD-201).",
    reference="vLLM Per-Request Acceptance Metrics (its n-gram example: 39 of 43 steps keep nothing, 3 keep everything), https://docs.vllm.ai/en/stable/features/speculative_decoding/acceptance_metrics/",
)
def acceptance_bimodal(ctx: Context) -> Iterator[Violation]:
    for i, run in enumerate(ctx.record.runs):
        h = run.counts.accepted_length_histogram
        modes = bimodal_modes(h) if h else None
        if h and modes:
            a, b = modes
            m = ctx.metrics[run.id].mean_acceptance_length
            yield Violation(
                f"run {run.id}: {h[a]} of {sum(h)} steps accepted {a} drafts and {h[b]} accepted {b}; "
                f"the mean acceptance length {num(m)} describes neither",
                ("runs", i, "counts", "accepted_length_histogram"),
                run=run.id,
            )
        # record 1.3: over requests, each request's own A / P in tenths (few requests spread thinly over
        # ten entries, so the reading is coarser than over steps: two groups at the ends, few between)
        r = run.request_acceptance
        split = request_modes(r.rate_histogram) if r is not None else None
        if r is not None and split is not None and r.proposed_drafts:
            low, high = split
            yield Violation(
                f"run {run.id}: {low} of {sum(r.rate_histogram)} requests accepted under {num(REQUEST_LOW / 10)} of their drafts and "
                f"{high} accepted {num(REQUEST_HIGH / 10)} or more; the run's acceptance rate {num(r.accepted_drafts / r.proposed_drafts)} "
                "describes neither",
                ("runs", i, "request_acceptance", "rate_histogram"),
                run=run.id,
            )


def request_modes(rates: list[int]) -> tuple[int, int] | None:
    """(requests below REQUEST_LOW tenths, requests at REQUEST_HIGH tenths or more) when each is at
    least REQUEST_MODE_SHARE of the requests and more than lie between; None otherwise."""
    total = sum(rates)
    low, middle, high = sum(rates[:REQUEST_LOW]), sum(rates[REQUEST_LOW:REQUEST_HIGH]), sum(rates[REQUEST_HIGH:])
    if total and min(low, high) >= REQUEST_MODE_SHARE * total and middle < min(low, high):
        return low, high
    return None
