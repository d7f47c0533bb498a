"""An offer's evidence as the buyer may use it: which runs are established, and whether a run
matches the buyer's conditions (sampling, interval scope, task, pinned identity, lossless acceptance).

- Only established evidence can meet a requirement. An offer whose assessment has error
  findings, or a run that would fail the record rules if a claim rested on it, meets nothing:
  its cells are "not established", with the codes behind that (`gated_cell`).
- Evidence counts only if it matches the buyer's sampling policy, interval scope and tasks;
  otherwise the mismatch code is given instead of a verdict (`mismatches`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..engine.context import Context
from ..engine.record import Configuration, EvidenceRecord, Run
from ..engine.wording import num
from ..rules import REGISTRY
from ..rules import requirements as fit_rules
from ..rules.results import FileAssessment
from .across_loads import offered_runs
from .profile import RequirementsProfile
from .results import Cell, PointResult, Requirement, Status


def run_problems(record: EvidenceRecord) -> dict[str, set[str]]:
    """Error codes that point into each run or its configuration."""
    # The record rules, as if a performance claim rested on every run (see Context.every_run_timed).
    ctx = Context(record, every_run_timed=True)
    out: dict[str, set[str]] = {run.id: set() for run in record.runs}
    for rule in REGISTRY.values():
        if rule.check is None or rule.severity != "error":
            continue
        for v in rule.check(ctx):
            if v.path[:1] == ("runs",) and len(v.path) > 1 and isinstance(v.path[1], int) and v.path[1] < len(record.runs):
                out[record.runs[v.path[1]].id].add(rule.code)
            elif v.path[:1] == ("configurations",) and len(v.path) > 1 and isinstance(v.path[1], int):
                cfg_id = record.configurations[v.path[1]].id
                for run in record.runs:
                    if run.configuration == cfg_id:
                        out[run.id].add(rule.code)
    return out


@dataclass
class OfferEvidence:
    result: FileAssessment
    ctx: Context | None
    problems: dict[str, set[str]]
    gate_codes: tuple[str, ...]  # why the offer's own evidence is not established; () when it is

    @property
    def file(self) -> str:
        return self.result.file

    @property
    def context(self) -> Context:
        """ctx, for the judges of requirements: they see only offers whose record loaded (_judge, economics check ctx first)."""
        assert self.ctx is not None, f"{self.file}: not a valid evidence record"
        return self.ctx

    def established(self, run: Run) -> bool:
        return not self.gate_codes and not self.problems.get(run.id)


def offer_evidence(result: FileAssessment) -> OfferEvidence:
    if result.record is None:
        return OfferEvidence(result, None, {}, tuple(sorted({f.code for f in result.findings})) or ("schema",))
    ctx = Context(result.record, metrics=dict(result.metrics))
    gate = tuple(sorted({f.code for f in result.findings if f.severity == "error"}))
    return OfferEvidence(result, ctx, run_problems(result.record), gate)


# ------------------------------------------------------------------------ conditions


def sampling_fields(profile: RequirementsProfile) -> dict[str, Any]:
    s = profile.sampling
    if s is None:
        return {}
    return {n: getattr(s, n) for n in ("temperature", "top_p", "top_k", "n") if getattr(s, n) is not None}


def sampling_stated(profile: RequirementsProfile) -> bool:
    return bool(sampling_fields(profile))


def sampling_text(profile: RequirementsProfile) -> str:
    return ", ".join(f"{n} {num(v)}" for n, v in sampling_fields(profile).items())


def mismatches(profile: RequirementsProfile, ctx: Context, run: Run, which: Iterable[str]) -> list[tuple[str, str]]:
    """(code, message) for each way the run's evidence does not match the buyer's conditions."""
    out = []
    if "sampling" in which and sampling_stated(profile):
        cfg = ctx.configuration(run)
        theirs = cfg.sampling if cfg else None
        diffs = [
            f"{n} {num(getattr(theirs, n)) if theirs and getattr(theirs, n) is not None else 'not stated'} (yours {num(v)})"
            for n, v in sampling_fields(profile).items()
            if theirs is None or getattr(theirs, n) != v
        ]
        if diffs:
            out.append((fit_rules.SAMPLING_MISMATCH.code, f"run {run.id} was sampled with " + ", ".join(diffs)))
    if "scope" in which and profile.scope is not None and run.interval.scope != profile.scope:
        out.append((fit_rules.SCOPE_MISMATCH.code, f"run {run.id} was timed {run.interval.scope or 'over an unstated scope'}, not {profile.scope}"))
    if "task" in which and profile.tasks:
        wanted = {t.strip().lower() for t in profile.tasks}
        task = run.workload.task
        split = {t.task.strip().lower() for t in run.per_task.tasks} if run.per_task is not None else set()
        if (task is None or task.strip().lower() not in wanted) and not wanted & split:
            out.append((fit_rules.TASK_MISMATCH.code, f"run {run.id} measured " + (f'"{task}"' if task else "no stated task")))
    return out


CONDITIONS = ("sampling", "scope", "task")


def fits(profile: RequirementsProfile, ctx: Context, run: Run) -> bool:
    return not mismatches(profile, ctx, run, CONDITIONS)


def condition_cell(profile: RequirementsProfile, req: Requirement, offer: OfferEvidence) -> Cell:
    ctx = offer.context
    runs = offered_runs(ctx)
    if req.kind in CONDITIONS:
        matching = [r for r in runs if not mismatches(profile, ctx, r, (req.kind,))]
        if matching:
            how = {"sampling": "sampled as you sample", "scope": f"timed {profile.scope}", "task": "measured on your task"}[req.kind]
            return gated_cell(req, offer, "met", (), f"run{'s' * (len(matching) > 1)} {', '.join(r.id for r in matching)} {how}")
        problems = [m for r in runs for m in mismatches(profile, ctx, r, (req.kind,))]
        return gated_cell(req, offer, "not-met", (problems[0][0],), "; ".join(m for _, m in problems))
    configs = {cfg.id: cfg for r in runs if (cfg := ctx.configuration(r)) is not None}
    if req.kind == "identity":
        gaps = []
        for cfg in configs.values():
            for name, wanted in profile.pinned_identity.items():
                theirs = identity_value(cfg, name)
                if theirs is None or str(theirs).strip().lower() != wanted.strip().lower():
                    gaps.append(
                        f"configuration {cfg.id} has {name} {json.dumps(theirs) if theirs is not None else 'not stated'}, not {json.dumps(wanted)}"
                    )
        if gaps:
            return gated_cell(req, offer, "not-met", (fit_rules.IDENTITY_MISMATCH.code,), "; ".join(gaps))
        return gated_cell(req, offer, "met", (), "every offered configuration has the pinned identity")
    relaxed = [c.id for c in configs.values() if c.proposer.relaxed_acceptance and c.proposer.relaxed_acceptance.enabled]
    if relaxed:
        return gated_cell(req, offer, "not-met", (fit_rules.RELAXED_REFUSED.code,), f"configuration {', '.join(relaxed)} uses relaxed acceptance")
    return gated_cell(req, offer, "met", (), "no offered configuration uses relaxed acceptance")


def identity_value(cfg: Configuration, name: str) -> Any:
    """A dotted identity field of a configuration; proposer.k also reads a K schedule."""
    part, field_name = name.split(".")
    value = getattr(getattr(cfg, part), field_name)
    if name == "proposer.k" and value is None and cfg.proposer.k_schedule:
        value = ", ".join(f"{b.min_concurrency}-{b.max_concurrency}: {b.k}" for b in cfg.proposer.k_schedule)
    return value


def gated_cell(
    req: Requirement, offer: OfferEvidence, status: Status, codes: tuple[str, ...], message: str, points: tuple[PointResult, ...] = ()
) -> Cell:
    """Apply the offer-level gate: only established evidence can meet (or fail) a requirement."""
    if offer.gate_codes:
        return Cell(
            req.id,
            offer.file,
            "not-established",
            offer.gate_codes,
            f"the offer's evidence is not established ({', '.join(offer.gate_codes)}); the evidence says: {message}",
            points,
            message,
        )
    return Cell(req.id, offer.file, status, codes, message, points, message)
