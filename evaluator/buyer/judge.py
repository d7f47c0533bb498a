"""Every requirement of a buyer's profile, judged for every offer: met, not met, or not established.

assessment.assess() judges each offer's own claims; this package asks the buyer's question of
the same evidence: evidence.py decides which evidence counts, loads.py and quality.py judge
the requirements that need figures, across_loads.py gives speedup and break-even across loads.

`compare()` returns a Comparison (results.py): the requirements x offers matrix, the ranking
statements, per offer the throughput/speedup series across concurrency, and the costs and
frontiers (economics.py).
"""

from __future__ import annotations

from ..engine.metrics import RunMetrics
from ..engine.record import Run
from ..engine.wording import LATENCY_WORDS, names_of, num, unrounded
from ..rules.registry import Path
from ..rules.results import FileAssessment
from .across_loads import Series, offered_runs, series_for_offer
from .economics import economics
from .evidence import OfferEvidence, condition_cell, offer_evidence, sampling_stated, sampling_text
from .loads import load_cell
from .profile import RequirementsProfile
from .quality import quality_cell
from .results import Cell, Comparison, Requirement, Standing
from .task_mix import mix_text, task_mix_cell


def requirement_list(profile: RequirementsProfile) -> list[Requirement]:
    out: list[Requirement] = []
    seen: dict[str, int] = {}

    def add(rid: str, kind: str, text: str, path: Path, index: int | None = None, source: str | None = None) -> None:
        seen[rid] = seen.get(rid, 0) + 1
        out.append(Requirement(rid if seen[rid] == 1 else f"{rid}-{seen[rid]}", kind, text, path, index, source))

    for i, lim in enumerate(profile.latency_limits):
        text = f"{lim.percentile} {LATENCY_WORDS[lim.metric]} below {unrounded(lim.limit_ms, 'ms')} at every required load"
        add(f"latency-{lim.metric}-{lim.percentile}", "latency", text, ("latency_limits", i), i, lim.source)
    t = profile.throughput
    if t.per_request_tokens_per_s is not None:
        add(
            "throughput-per-request",
            "throughput-per-request",
            f"at least {unrounded(t.per_request_tokens_per_s, 'output tokens/s')} per request at every required load",
            ("throughput", "per_request_tokens_per_s"),
        )
    if t.aggregate_tokens_per_s is not None:
        add(
            "throughput-aggregate",
            "throughput-aggregate",
            f"at least {unrounded(t.aggregate_tokens_per_s, 'output tokens/s')} in aggregate at every required load",
            ("throughput", "aggregate_tokens_per_s"),
        )
    for i, q in enumerate(profile.quality):
        bar = num(q.min_score) if q.min_score is not None else f"{num(q.min_share_of_baseline)} of the baseline's score"
        add(f"quality-{i + 1}", "quality", f'{q.metric} on "{q.task}" at least {bar}', ("quality", i), i)
    if profile.tasks:
        add("task", "task", "evidence measured on your task: " + ", ".join(f'"{x}"' for x in profile.tasks), ("tasks",))
    if profile.task_mix:
        add("task-mix", "task-mix", f"faster beyond the noise over your traffic mix ({mix_text(profile)})", ("task_mix",))
    if sampling_stated(profile):
        add("sampling", "sampling", "evidence sampled as you sample: " + sampling_text(profile), ("sampling",))
    if profile.scope is not None:
        add("scope", "scope", f"evidence timed {profile.scope}", ("scope",))
    if profile.pinned_identity:
        add("identity", "identity", "configuration is " + ", ".join(f"{k} {v}" for k, v in profile.pinned_identity.items()), ("pinned_identity",))
    if not profile.lossy_acceptance_allowed:
        add("lossless-acceptance", "lossless", "standard (lossless) acceptance test, no relaxed acceptance", ("lossy_acceptance_allowed",))
    return out


# --------------------------------------------------------------------------- compare


class BaselineNotGiven(Exception):
    """The profile names a baseline offer that is not among the offers given (exit 2)."""


def compare(profile: RequirementsProfile, results: list[FileAssessment], profile_file: str = "", profile_sha256: str = "") -> Comparison:
    offers = [offer_evidence(r) for r in results]
    names = dict(zip((r.file for r in results), names_of(results)))
    baseline = None
    baseline_text = "each offer's own target-only runs"
    if profile.baseline.kind == "offer":
        named = [o for o in offers if o.result.record and o.result.record.offer.offer_id == profile.baseline.offer_id]
        if not named:
            raise BaselineNotGiven(f"the profile's baseline offer {profile.baseline.offer_id!r} is not among the offers given")
        baseline = named[0]
        baseline_text = f"offer {profile.baseline.offer_id} ({names[baseline.file]})"
    requirements = requirement_list(profile)
    cells: list[Cell] = []
    for offer in offers:
        for req in requirements:
            cells.append(_judge(profile, req, offer, baseline))
    series = {o.file: _series(o, baseline) for o in offers if o.ctx is not None}
    standings = _rank([_standing(o, [c for c in cells if c.offer == o.file], names[o.file]) for o in offers])
    comparison = Comparison(profile_file, profile_sha256, profile, requirements, standings, cells, series, baseline_text, names)
    comparison.statements = ranking_statements(comparison)
    comparison.economics = economics(profile, requirements, offers, baseline, names)
    return comparison


def _judge(profile: RequirementsProfile, req: Requirement, offer: OfferEvidence, baseline: OfferEvidence | None) -> Cell:
    if offer.ctx is None:
        return Cell(req.id, offer.file, "not-established", offer.gate_codes, "the offer file is not a valid evidence record")
    if req.kind in ("latency", "throughput-per-request", "throughput-aggregate"):
        return load_cell(profile, req, offer)
    if req.kind == "quality":
        return quality_cell(profile, req, offer, baseline if baseline is not offer else None)
    if req.kind == "task-mix":
        return task_mix_cell(profile, req, offer)
    return condition_cell(profile, req, offer)


def _series(offer: OfferEvidence, baseline: OfferEvidence | None) -> list[Series]:
    if baseline is None or baseline is offer:
        return series_for_offer(offer.context, offer.result, offer.established)

    def from_baseline_offer(run: Run) -> tuple[str, RunMetrics] | None:
        for other in offered_runs(baseline.context):
            if other.load.concurrency == run.load.concurrency and other.workload.task == run.workload.task:
                return other.id, baseline.context.metrics[other.id]
        return None

    return series_for_offer(offer.context, offer.result, offer.established, from_baseline_offer)


def _standing(offer: OfferEvidence, cells: list[Cell], name: str) -> Standing:
    record = offer.result.record
    return Standing(
        file=offer.file,
        name=name,
        offer_id=record.offer.offer_id if record else None,
        vendor=record.offer.vendor if record else None,
        evidence=offer.result.outcome,
        met=sum(c.status == "met" for c in cells),
        not_met=sum(c.status == "not-met" for c in cells),
        not_established=sum(c.status == "not-established" for c in cells),
    )


def _rank_key(s: Standing) -> tuple:
    # Established evidence first, whatever the counts; then meeting everything; then how much is met.
    return (s.evidence != "established", not s.meets_all, -s.met)


def _rank(standings: list[Standing]) -> list[Standing]:
    ordered = sorted(standings, key=_rank_key)  # stable: ties keep the command-line order
    for i, s in enumerate(ordered):
        s.rank = ordered[i - 1].rank if i and _rank_key(ordered[i - 1]) == _rank_key(s) else i + 1
    return ordered


def _names(files: list[str]) -> str:
    return files[0] if len(files) == 1 else ", ".join(files[:-1]) + " and " + files[-1]


def ranking_statements(c: Comparison) -> list[str]:
    """Plain sentences: who meets everything, who ties, and why an offer ranks where it does."""
    out = []
    total = len(c.requirements)
    winners = c.meets_all
    if not winners:
        out.append("No offer meets every requirement.")
    elif len(winners) == 1:
        out.append(f"Only {c.name(winners[0])} meets every requirement.")
    else:
        out.append(f"{_names([c.name(w) for w in winners])} each meet every requirement: a tie that these requirements do not break.")
    by_rank: dict[int, list[Standing]] = {}
    for s in c.standings:
        by_rank.setdefault(s.rank, []).append(s)
    for rank, group in by_rank.items():
        if len(group) > 1 and not group[0].meets_all:
            out.append(f"{_names([s.name for s in group])} tie at rank {rank}: each meets {group[0].met} of {total} requirements.")
    if any(s.evidence == "established" for s in c.standings):
        for s in c.standings:
            if s.evidence != "established":
                out.append(f"{s.name}: its evidence is not established, so it ranks below every offer whose evidence is.")
    return out
