"""Rules about the load a claim was measured at."""

from __future__ import annotations

from collections.abc import Iterator

from ..engine.claim_figures import claimed_text, unreached
from ..engine.context import Context
from ..engine.matched import rate_of
from ..engine.record import Claim, Run
from ..engine.unit_figures import per_user, tokens_per_s
from ..engine.wording import and_join, num
from .registry import Violation, message, rule


def _load_text(concurrency: int | None, rate: float | None) -> str:
    if concurrency is not None:
        return f"concurrency {concurrency}"
    if rate is not None:
        return f"{num(rate)} requests/s"
    return "no stated load"


@rule(
    "load-unstated",
    "error",
    "A claim, or the run it rests on, states no concurrency or request rate",
    rationale="""Speculation spends the same idle compute that batching spends on other requests. At
    concurrency 1 the extra draft positions are nearly free; at high concurrency they compete with real
    tokens. A speedup with no stated load is not a result (the Spec-Bench leaderboard's numbers are at
    batch size 1, and say so).""",
    failing='"2x faster" with no concurrency on the claim or its runs.',
    passing="The claim and its run both state concurrency 8.",
    reference="docs/claims.md, The checklist behind the rules, item 3 (the load it was measured at); vLLM Speculative Decoding, https://docs.vllm.ai/en/stable/features/speculative_decoding/",
    messages={
        "claim": "the claimed {value} states no concurrency or request rate",
        "run": "{role} {run} states no concurrency or request rate",
    },
    ask="Please state the concurrency or request rate {subject} was measured at.",
)
def load_unstated(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.performance_claims():
        if claim.kind == "capacity":
            continue  # a capacity claim's value is itself a load
        # At matched interactivity (or throughput) the claim is stated at a per-user speed (a throughput per
        # accelerator), not a load; its runs state theirs.
        matched = claim.at_per_user_speed is not None or claim.at_accelerator_throughput is not None
        if claim.concurrency is None and claim.request_rate is None and not matched:
            yield Violation(
                message("load-unstated", "claim", value=claimed_text(claim)),
                ("claims", i, "concurrency"),
                claim=claim.id,
                ask={"subject": f"the claimed {claimed_text(claim)}"},
            )
        for role, run_id in (("run", claim.run), ("baseline", claim.baseline)):
            run = ctx.run(run_id)
            if run is not None and run.load.concurrency is None and run.load.request_rate is None:
                yield Violation(
                    message("load-unstated", "run", role=role, run=run.id),
                    ("runs", ctx.run_index[run.id], "load"),
                    claim=claim.id,
                    ask={"subject": f"{'run' if role == 'run' else 'baseline run'} {run.id}"},
                )


@rule(
    "load-extrapolated",
    "error",
    "A claim is about a load (or a capacity) no run was measured at",
    rationale="""A quiet-machine result says nothing about a busy one: vLLM's own dynamic speculative
    decoding example switches speculation off above concurrency 128. A claim holds at the load its run
    was measured at, and a capacity claim needs a run at that capacity. A comparison at matched interactivity
    ("58 % more tokens/s per GPU at 57 tokens/s per user") needs, on each side, a measured run at least that
    fast per user: a curve is neither read between its measured points nor extended past them.""",
    failing="A claim stated for concurrency 64 resting on a run measured at concurrency 1.",
    passing="The claim and its run both at concurrency 64.",
    reference="docs/claims.md, The checklist behind the rules, item 3 (the load it was measured at); vLLM Dynamic Speculative Decoding (concurrency 129-512: K = 0), https://docs.vllm.ai/en/stable/features/speculative_decoding/dynamic_speculative_decoding/",
    ask="Please send a run measured at {wanted}, or restate the claim for {measured}, the load run {run} was measured at.",
)
def load_extrapolated(ctx: Context) -> Iterator[Violation]:
    for i, claim in ctx.performance_claims():
        run = ctx.run(claim.run)
        if run is None:
            continue
        for role, runs in unreached(ctx, claim):
            if claim.at_per_user_speed is None:
                yield _throughput_unreached(ctx, claim, i, role, runs)
                continue
            # At matched interactivity: a side none of whose runs was as fast per user has no point there.
            speed = f"{num(claim.at_per_user_speed)} tokens/s per user"
            user, fastest = max((u, r.id) for r in runs if (u := per_user(r, tokens_per_s(r))[0]) is not None)
            yield Violation(
                f"the claim is stated at {speed}, but no {role} run reaches it ({and_join(r.id for r in runs)}; the fastest, "
                f"{fastest}, {num(float(user))} tokens/s per user); a curve is not extended past its measured points",
                ("claims", i, "at_per_user_speed"),
                claim=claim.id,
                ask={"wanted": f"{speed} or more", "measured": f"{num(float(user))} tokens/s per user", "run": fastest},
            )
        measured = (run.load.concurrency, run.load.request_rate)
        if claim.kind == "capacity":
            # The capacity claimed must have been measured by the run the claim rests on.
            if claim.value is not None and (run.load.concurrency is None or run.load.concurrency < claim.value):
                yield Violation(
                    f"the claimed capacity of {claimed_text(claim)} was not measured: run {run.id} ran at {_load_text(*measured)}",
                    ("claims", i, "value"),
                    claim=claim.id,
                    ask={"wanted": f"concurrency {num(claim.value)}", "measured": _load_text(*measured), "run": run.id},
                )
            continue
        stated = (claim.concurrency, claim.request_rate)
        if stated == (None, None) or measured == (None, None):
            continue  # load-unstated says so
        mismatch = (claim.concurrency is not None and claim.concurrency != run.load.concurrency) or (
            claim.request_rate is not None and claim.request_rate != run.load.request_rate
        )
        if mismatch:
            yield Violation(
                f"the claim is stated for {_load_text(*stated)} but run {run.id} was measured at {_load_text(*measured)}",
                ("claims", i, "concurrency" if claim.concurrency is not None else "request_rate"),
                claim=claim.id,
                ask={"wanted": _load_text(*stated), "measured": _load_text(*measured), "run": run.id},
            )


@rule(
    "k-band-unmeasured",
    "info",
    "A band of the K schedule has no measured run",
    rationale="""With dynamic speculative decoding the offer behaves differently in each concurrency band
    (vLLM's example: K = 3 up to 64, K = 1 up to 128, off above). A band without a run is a load at which
    nothing is known about this offer; whether that matters depends on the loads the buyer will run.""",
    failing="A schedule with bands 1-64, 65-128 and 129-512 and runs only at concurrency 1 and 8.",
    passing="At least one run of this configuration in every band.",
    reference="vLLM Dynamic Speculative Decoding (K by concurrency band), https://docs.vllm.ai/en/stable/features/speculative_decoding/dynamic_speculative_decoding/",
)
def k_band_unmeasured(ctx: Context) -> Iterator[Violation]:
    for c, cfg in enumerate(ctx.record.configurations):
        if not cfg.proposer.k_schedule:
            continue
        measured = [r.load.concurrency for r in ctx.record.runs if r.configuration == cfg.id and r.load.concurrency]
        for b, band in enumerate(cfg.proposer.k_schedule):
            if not any(band.min_concurrency <= x <= band.max_concurrency for x in measured):
                yield Violation(
                    f"configuration {cfg.id} uses K = {band.k} at concurrency {band.min_concurrency}-"
                    f"{band.max_concurrency}, and no run was measured in that band",
                    ("configurations", c, "proposer", "k_schedule", b),
                )


THROUGHPUT_KINDS = ("output-throughput", "speedup", "capacity")


def lost_requests(run) -> tuple[int, int | None] | None:
    """(requests that failed or never completed, requests sent) where the run says any were lost."""
    w = run.workload
    failed = w.requests_failed
    if failed is None and w.requests_sent is not None and w.num_requests is not None and w.requests_sent > w.num_requests:
        failed = w.requests_sent - w.num_requests
    if not failed:
        return None
    sent = w.requests_sent if w.requests_sent is not None else (w.num_requests + failed if w.num_requests is not None else None)
    return failed, sent


@rule(
    "requests-failed",
    "error",
    "A throughput, capacity or speedup claim rests on a run in which requests failed or did not complete",
    rationale="""A request that fails or times out leaves the measured interval without its tokens, and the
    slow requests are the ones that time out first: the tokens per second of what completed overstates
    what the machine serves, and a speedup over such a run compares different work. MLPerf rejects a run
    in which any query did not complete; older benchmark_serving.py results report only the completed
    requests (1,015 of 2,000 in one published file).""",
    failing="The speedup's run sent 2,000 requests and 1,015 completed (985 lost).",
    passing="Every request sent in the interval completed (requests_failed 0, or requests_sent equal to num_requests).",
    reference="MLPerf Inference rules, every query must complete, https://github.com/mlcommons/inference_policies/blob/master/inference_rules.adoc; docs/claims.md, The checklist behind the rules, item 3",
    messages={
        "run": "{role} {run}: {failed} of {sent} requests sent failed or did not complete{share}; the claimed {value} counts only those that did",
    },
    ask="Please measure {subject} again until every request completes (or at a load the server sustains), and send the run with its failed requests stated.",
)
def requests_failed(ctx: Context) -> Iterator[Violation]:
    for _, claim in ctx.performance_claims():
        if claim.kind not in THROUGHPUT_KINDS:
            continue
        for role, run_id in (("run", claim.run), ("baseline", claim.baseline)):
            run = ctx.run(run_id)
            if run is None or (lost := lost_requests(run)) is None:
                continue
            failed, sent = lost
            share = "" if not sent else f" ({100 * failed / sent:.1f} %)"
            field = "requests_failed" if run.workload.requests_failed else "requests_sent"
            yield Violation(
                message(
                    "requests-failed",
                    "run",
                    role=role,
                    run=run.id,
                    failed=failed,
                    sent="an unknown number" if sent is None else sent,
                    share=share,
                    value=claimed_text(claim),
                ),
                ("runs", ctx.run_index[run.id], "workload", field),
                claim=claim.id,
                ask={"subject": f"{'run' if role == 'run' else 'baseline run'} {run.id}"},
            )


@rule(
    "concurrency-unreachable",
    "warning",
    "A run states a concurrency higher than the requests it sent",
    rationale="""A closed loop holds as many requests in flight as its concurrency only while that many
    are left to send: concurrency 32 over 8 requests never had more than 8 in flight, so the run was
    measured at a lighter load than it states, and a claim read at concurrency 32 describes a load no
    request reached. Either the concurrency or the request count was transcribed wrongly, or the run
    is lighter than it says.""",
    failing="A run stating concurrency 32 with 8 requests.",
    passing="A run stating concurrency 8 with 200 requests.",
    reference="docs/claims.md, The checklist behind the rules, item 3 (load)",
    ask="Please confirm the concurrency and the number of requests of run {run}: concurrency {concurrency} cannot be held with {requests} requests.",
)
def concurrency_unreachable(ctx: Context) -> Iterator[Violation]:
    for i, run in enumerate(ctx.record.runs):
        w, concurrency = run.workload, run.load.concurrency
        # Requests sent (completed or not) when stated, else those counted: the most the loop could hold.
        requests = w.requests_sent if w.requests_sent is not None else w.num_requests
        if concurrency is None or requests is None or concurrency <= requests:
            continue
        yield Violation(
            f"run {run.id} states concurrency {concurrency} but sent only {requests} requests, so at most {requests} were ever in flight",
            ("runs", i, "load", "concurrency"),
            run=run.id,
            ask={"run": run.id, "concurrency": concurrency, "requests": requests},
        )


def _throughput_unreached(ctx: Context, claim: Claim, i: int, role: str, runs: list[Run]) -> Violation:
    """At matched throughput per accelerator (record 1.3): a side none of whose runs served that much."""
    at = f"{num(claim.at_accelerator_throughput)} output tokens/s per accelerator"
    rate, busiest = max((r, run.id) for run in runs if (r := rate_of(ctx, run, per_accelerator=True)[0]) is not None)
    return Violation(
        f"the claim is stated at {at}, but no {role} run reaches it ({and_join(r.id for r in runs)}; the busiest, "
        f"{busiest}, {num(float(rate))} tokens/s per accelerator); a curve is not extended past its measured points",
        ("claims", i, "at_accelerator_throughput"),
        claim=claim.id,
        ask={"wanted": f"{at} or more", "measured": f"{num(float(rate))} tokens/s per accelerator", "run": busiest},
    )
