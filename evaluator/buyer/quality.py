"""Quality requirements: a task-quality score at least an absolute bar, or a share of the
baseline's score on the same task and metric."""

from __future__ import annotations

from fractions import Fraction

from ..engine.wording import distinct, num
from ..rules import requirements as fit_rules
from .across_loads import offered_runs
from .evidence import OfferEvidence, gated_cell, mismatches
from .profile import RequirementsProfile
from .results import Cell, Requirement


def quality_cell(profile: RequirementsProfile, req: Requirement, offer: OfferEvidence, baseline: OfferEvidence | None) -> Cell:
    assert req.index is not None  # a quality requirement indexes profile.quality
    q = profile.quality[req.index]
    ctx = offer.context
    key = (q.task.strip().lower(), q.metric.strip().lower())
    offered = offered_runs(ctx)
    runs = [r for r in offered if not mismatches(profile, ctx, r, ("sampling",))]
    entries = [(r, e) for r in runs for e in r.quality if (e.task.strip().lower(), e.metric.strip().lower()) == key]
    if not entries:
        unfit = [r for r in offered if r not in runs and any((e.task.strip().lower(), e.metric.strip().lower()) == key for e in r.quality)]
        if unfit:
            found = [m for r in unfit for _, m in mismatches(profile, ctx, r, ("sampling",))]
            return gated_cell(req, offer, "not-established", (fit_rules.SAMPLING_MISMATCH.code,), "; ".join(found))
        others = sorted({f'"{e.task}" ({e.metric})' for r in runs for e in r.quality})
        if others:
            return gated_cell(
                req,
                offer,
                "not-established",
                (fit_rules.TASK_MISMATCH.code,),
                f'no quality result for {q.metric} on "{q.task}"; the offer measured ' + ", ".join(others),
            )
        return gated_cell(req, offer, "not-established", (fit_rules.FIGURE_MISSING.code,), f'no quality result for {q.metric} on "{q.task}"')
    verdicts, missing, problems = [], [], set()
    for run, e in entries:
        problems |= offer.problems.get(run.id, set())
        if q.min_score is not None:
            bar, basis = q.min_score, ""
        else:
            base = e.baseline_score if baseline is None else _baseline_quality(baseline, key)
            if base is None:
                missing.append(f"run {run.id}: no baseline score to take a share of")
                continue
            bar = float(Fraction(repr(q.min_share_of_baseline)) * Fraction(repr(float(base))))
            basis = f" = {num(q.min_share_of_baseline)} x baseline {num(base)}"
        score, least = distinct(e.score, bar)  # rounded alike, 0.8598 and 0.8604 would both read 0.860
        verdicts.append((e.score >= bar, run.id, f"{score} against at least {least}{basis}"))
    grouped: dict[str, list[str]] = {}
    for _, run_id, message in verdicts:
        grouped.setdefault(message, []).append(run_id)
    text = "; ".join([f"run{'s' * (len(ids) > 1)} {', '.join(ids)}: {m}" for m, ids in grouped.items()] + missing)
    if problems:
        return gated_cell(req, offer, "not-established", tuple(sorted(problems)), f"{text}, but the evidence is not established")
    if any(not ok for ok, _, _ in verdicts):
        return gated_cell(req, offer, "not-met", (fit_rules.QUALITY_BELOW.code,), text)
    if missing:
        return gated_cell(req, offer, "not-established", (fit_rules.FIGURE_MISSING.code,), text)
    return gated_cell(req, offer, "met", (), text)


def _baseline_quality(baseline: OfferEvidence, key: tuple[str, str]) -> float | None:
    for run in offered_runs(baseline.context):
        for e in run.quality:
            if (e.task.strip().lower(), e.metric.strip().lower()) == key:
                return e.score
    return None
