"""Every requirement of a buyer's profile, judged for every offer: met, not met, or not established.

assessment.assess() judges each offer's own claims; this module asks the buyer's question of
the same evidence. The principles:

- Only established evidence can meet a requirement. An offer whose assessment has error
  findings, or a run that would fail the record rules if a claim rested on it, meets nothing:
  its cells are "not established", with the codes behind that.
- Evidence counts only if it matches the buyer's sampling policy, interval scope and tasks;
  otherwise the mismatch code is given instead of a verdict.
- A load-dependent requirement is judged at every required load: from a run at that load, or
  from the two nearest measured loads either side (same configuration and K band), taking the
  figure to change monotonically between them: met when both sides meet it, not met when
  neither does, undecided otherwise (requirement-between-loads). No numbers are made up
  between measured loads for a verdict, and beyond the measured range nothing is inferred
  (requirement-load-uncovered).
- A measured failure at any required load makes the requirement "not met".

`compare()` returns a Comparison: the requirements x offers matrix, the ranking statements,
and per offer the throughput/speedup series across concurrency (for text, JSON and charts).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

from .assessment import FileAssessment, pointer
from .claim_figures import latency_value
from .context import Context, num
from .load_figures import Series, offered_runs, series_for_offer
from .record import Configuration, EvidenceRecord, Run
from .requirements import RequirementsProfile
from .rules import REGISTRY
from .rules import requirements as fit_rules
from .rules.registry import Path

Status = Literal["met", "not-met", "not-established"]

_METRIC_WORDS = {"ttft": "time to first token", "tpot": "time per output token", "itl": "inter-token latency", "e2e": "end-to-end latency"}


@dataclass(frozen=True)
class Requirement:
    id: str
    kind: str  # latency, throughput-per-request, throughput-aggregate, quality, sampling, scope, task, identity, lossless
    text: str
    path: Path
    index: int | None = None  # into latency_limits or quality
    source: str | None = None  # where a published limit comes from

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "text": self.text, "path": pointer(self.path), "source": self.source}


@dataclass(frozen=True)
class PointResult:
    """One required load: which runs gave the figure, how, and the verdict there."""

    axis: str  # concurrency or request_rate
    load: float
    basis: str  # measured (one run at the load), bracketed (runs either side), or none
    runs: tuple[str, ...]
    values: tuple[float, ...]  # the figure of each run, in the order of runs
    status: Status
    codes: tuple[str, ...]
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "axis": self.axis,
            "load": self.load,
            "basis": self.basis,
            "runs": list(self.runs),
            "values": list(self.values),
            "status": self.status,
            "codes": list(self.codes),
            "message": self.message,
        }


@dataclass(frozen=True)
class Cell:
    requirement: str
    offer: str
    status: Status
    codes: tuple[str, ...]
    message: str
    points: tuple[PointResult, ...] = ()
    detail: str = ""  # what the evidence says, without the offer-level gate

    def as_dict(self) -> dict[str, Any]:
        return {
            "requirement": self.requirement,
            "offer": self.offer,
            "status": self.status,
            "codes": list(self.codes),
            "message": self.message,
            "points": [p.as_dict() for p in self.points],
        }


@dataclass
class Standing:
    file: str
    offer_id: str | None
    vendor: str | None
    evidence: str  # the offer's own outcome: established, not-established, invalid
    met: int
    not_met: int
    not_established: int
    rank: int = 0

    @property
    def total(self) -> int:
        return self.met + self.not_met + self.not_established

    @property
    def meets_all(self) -> bool:
        return self.evidence == "established" and self.met == self.total

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "offer_id": self.offer_id,
            "vendor": self.vendor,
            "evidence": self.evidence,
            "rank": self.rank,
            "meets_all": self.meets_all,
            "met": self.met,
            "not_met": self.not_met,
            "not_established": self.not_established,
        }


@dataclass
class Comparison:
    profile_file: str
    profile_sha256: str
    profile: RequirementsProfile
    requirements: list[Requirement]
    standings: list[Standing]  # in rank order
    cells: list[Cell]
    series: dict[str, list[Series]]  # offer file -> its series across concurrency
    baseline: str
    statements: list[str] = field(default_factory=list)

    def cell(self, requirement: str, offer: str) -> Cell:
        return next(c for c in self.cells if c.requirement == requirement and c.offer == offer)

    @property
    def offer_files(self) -> list[str]:
        """Offers in command-line order (standings are in rank order)."""
        return list(dict.fromkeys(c.offer for c in self.cells)) or [s.file for s in self.standings]

    @property
    def meets_all(self) -> list[str]:
        return [s.file for s in self.standings if s.meets_all]


# ------------------------------------------------------------------------ requirements


def requirement_list(profile: RequirementsProfile) -> list[Requirement]:
    out: list[Requirement] = []
    seen: dict[str, int] = {}

    def add(rid: str, kind: str, text: str, path: Path, index: int | None = None, source: str | None = None) -> None:
        seen[rid] = seen.get(rid, 0) + 1
        out.append(Requirement(rid if seen[rid] == 1 else f"{rid}-{seen[rid]}", kind, text, path, index, source))

    for i, lim in enumerate(profile.latency_limits):
        text = f"{lim.percentile} {_METRIC_WORDS[lim.metric]} below {num(lim.limit_ms, 'ms')} at every required load"
        add(f"latency-{lim.metric}-{lim.percentile}", "latency", text, ("latency_limits", i), i, lim.source)
    t = profile.throughput
    if t.per_request_tokens_per_s is not None:
        add("throughput-per-request", "throughput-per-request",
            f"at least {num(t.per_request_tokens_per_s, 'output tokens/s')} per request at every required load",
            ("throughput", "per_request_tokens_per_s"))
    if t.aggregate_tokens_per_s is not None:
        add("throughput-aggregate", "throughput-aggregate",
            f"at least {num(t.aggregate_tokens_per_s, 'output tokens/s')} in aggregate at every required load",
            ("throughput", "aggregate_tokens_per_s"))
    for i, q in enumerate(profile.quality):
        bar = num(q.min_score) if q.min_score is not None else f"{num(q.min_share_of_baseline)} of the baseline's score"
        add(f"quality-{i + 1}", "quality", f'{q.metric} on "{q.task}" at least {bar}', ("quality", i), i)
    if profile.tasks:
        add("task", "task", "evidence measured on your task: " + ", ".join(f'"{x}"' for x in profile.tasks), ("tasks",))
    if _sampling_stated(profile):
        add("sampling", "sampling", "evidence sampled as you sample: " + _sampling_text(profile), ("sampling",))
    if profile.scope is not None:
        add("scope", "scope", f"evidence timed {profile.scope}", ("scope",))
    if profile.pinned_identity:
        add("identity", "identity", "configuration is " + ", ".join(f"{k} {v}" for k, v in profile.pinned_identity.items()), ("pinned_identity",))
    if not profile.lossy_acceptance_allowed:
        add("lossless-acceptance", "lossless", "standard (lossless) acceptance test, no relaxed acceptance", ("lossy_acceptance_allowed",))
    return out


def _sampling_fields(profile: RequirementsProfile) -> dict[str, Any]:
    s = profile.sampling
    if s is None:
        return {}
    return {n: getattr(s, n) for n in ("temperature", "top_p", "top_k", "n") if getattr(s, n) is not None}


def _sampling_stated(profile: RequirementsProfile) -> bool:
    return bool(_sampling_fields(profile))


def _sampling_text(profile: RequirementsProfile) -> str:
    return ", ".join(f"{n} {num(v)}" for n, v in _sampling_fields(profile).items())


# --------------------------------------------------------------------- offer evidence


class _EveryRunTimed(Context):
    """The record rules, applied as if a performance claim rested on every run: a buyer may use
    any run, so each one needs a complete interval, consistent counts, and so on."""

    def timed_runs(self) -> list[tuple[int, Run]]:
        return list(enumerate(self.record.runs))


def run_problems(record: EvidenceRecord) -> dict[str, set[str]]:
    """Error codes that point into each run or its configuration."""
    ctx = _EveryRunTimed(record)
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
class _Offer:
    result: FileAssessment
    ctx: Context | None
    problems: dict[str, set[str]]
    gate_codes: tuple[str, ...]  # why the offer's own evidence is not established; () when it is

    @property
    def file(self) -> str:
        return self.result.file

    def established(self, run: Run) -> bool:
        return not self.gate_codes and not self.problems.get(run.id)


def _offer(result: FileAssessment) -> _Offer:
    if result.record is None:
        return _Offer(result, None, {}, tuple(sorted({f.code for f in result.findings})) or ("schema",))
    ctx = Context(result.record, metrics=dict(result.metrics))
    gate = tuple(sorted({f.code for f in result.findings if f.severity == "error"}))
    return _Offer(result, ctx, run_problems(result.record), gate)


# ------------------------------------------------------------------------ conditions


def _mismatches(profile: RequirementsProfile, ctx: Context, run: Run, which: Iterable[str]) -> list[tuple[str, str]]:
    """(code, message) for each way the run's evidence does not match the buyer's conditions."""
    out = []
    if "sampling" in which and _sampling_stated(profile):
        cfg = ctx.configuration(run)
        theirs = cfg.sampling if cfg else None
        diffs = [
            f"{n} {num(getattr(theirs, n)) if theirs and getattr(theirs, n) is not None else 'not stated'} (yours {num(v)})"
            for n, v in _sampling_fields(profile).items()
            if theirs is None or getattr(theirs, n) != v
        ]
        if diffs:
            out.append((fit_rules.SAMPLING_MISMATCH.code, f"run {run.id} was sampled with " + ", ".join(diffs)))
    if "scope" in which and profile.scope is not None and run.interval.scope != profile.scope:
        out.append((fit_rules.SCOPE_MISMATCH.code, f"run {run.id} was timed {run.interval.scope or 'over an unstated scope'}, not {profile.scope}"))
    if "task" in which and profile.tasks:
        wanted = {t.strip().lower() for t in profile.tasks}
        task = run.workload.task
        if task is None or task.strip().lower() not in wanted:
            out.append((fit_rules.TASK_MISMATCH.code, f"run {run.id} measured " + (f'"{task}"' if task else "no stated task")))
    return out


_CONDITIONS = ("sampling", "scope", "task")


def _fits(profile: RequirementsProfile, ctx: Context, run: Run) -> bool:
    return not _mismatches(profile, ctx, run, _CONDITIONS)


def _condition_cell(profile: RequirementsProfile, req: Requirement, offer: _Offer) -> Cell:
    ctx = offer.ctx
    runs = offered_runs(ctx)
    if req.kind in _CONDITIONS:
        matching = [r for r in runs if not _mismatches(profile, ctx, r, (req.kind,))]
        if matching:
            how = {"sampling": "sampled as you sample", "scope": f"timed {profile.scope}", "task": "measured on your task"}[req.kind]
            return _cell(req, offer, "met", (), f"run{'s' * (len(matching) > 1)} {', '.join(r.id for r in matching)} {how}")
        problems = [m for r in runs for m in _mismatches(profile, ctx, r, (req.kind,))]
        return _cell(req, offer, "not-met", (problems[0][0],), "; ".join(m for _, m in problems))
    configs = {ctx.configuration(r).id: ctx.configuration(r) for r in runs if ctx.configuration(r) is not None}
    if req.kind == "identity":
        gaps = []
        for cfg in configs.values():
            for name, wanted in profile.pinned_identity.items():
                theirs = identity_value(cfg, name)
                if theirs is None or str(theirs).strip().lower() != wanted.strip().lower():
                    gaps.append(f"configuration {cfg.id} has {name} {json.dumps(theirs) if theirs is not None else 'not stated'}, not {json.dumps(wanted)}")
        if gaps:
            return _cell(req, offer, "not-met", (fit_rules.IDENTITY_MISMATCH.code,), "; ".join(gaps))
        return _cell(req, offer, "met", (), "every offered configuration has the pinned identity")
    relaxed = [c.id for c in configs.values() if c.proposer.relaxed_acceptance and c.proposer.relaxed_acceptance.enabled]
    if relaxed:
        return _cell(req, offer, "not-met", (fit_rules.RELAXED_REFUSED.code,), f"configuration {', '.join(relaxed)} uses relaxed acceptance")
    return _cell(req, offer, "met", (), "no offered configuration uses relaxed acceptance")


def identity_value(cfg: Configuration, name: str) -> Any:
    """A dotted identity field of a configuration; proposer.k also reads a K schedule."""
    part, field_name = name.split(".")
    value = getattr(getattr(cfg, part), field_name)
    if name == "proposer.k" and value is None and cfg.proposer.k_schedule:
        value = ", ".join(f"{b.min_concurrency}-{b.max_concurrency}: {b.k}" for b in cfg.proposer.k_schedule)
    return value


def _cell(req: Requirement, offer: _Offer, status: Status, codes: tuple[str, ...], message: str, points: tuple[PointResult, ...] = ()) -> Cell:
    """Apply the offer-level gate: only established evidence can meet (or fail) a requirement."""
    if offer.gate_codes:
        return Cell(req.id, offer.file, "not-established", offer.gate_codes,
                    f"the offer's evidence is not established ({', '.join(offer.gate_codes)}); the evidence says: {message}",
                    points, message)
    return Cell(req.id, offer.file, status, codes, message, points, message)


# ---------------------------------------------------------------------- load figures


Figure = Callable[[Run], tuple[float | None, str]]  # value, or None and what is missing


def _figure_for(req: Requirement, profile: RequirementsProfile, ctx: Context) -> tuple[Figure, Callable[[float], bool], str]:
    """The figure a load requirement is judged on, the test it must pass, and its unit."""
    if req.kind == "latency":
        lim = profile.latency_limits[req.index]

        def latency(run: Run) -> tuple[float | None, str]:
            value = latency_value(run, lim.metric, lim.percentile)
            return value, f"run {run.id} reports no {lim.percentile} {_METRIC_WORDS[lim.metric]}"

        return latency, lambda v: v < lim.limit_ms, "ms"
    if req.kind == "throughput-aggregate":
        least = profile.throughput.aggregate_tokens_per_s

        def aggregate(run: Run) -> tuple[float | None, str]:
            return ctx.metrics[run.id].emitted_tokens_per_s, f"run {run.id} gives no emitted tokens over a measured interval"

        return aggregate, lambda v: v >= least, "tokens/s"
    least = profile.throughput.per_request_tokens_per_s

    def per_request(run: Run) -> tuple[float | None, str]:
        tps = ctx.metrics[run.id].emitted_tokens_per_s
        if run.load.loop == "open" or run.load.concurrency is None:
            return None, f"run {run.id} has no closed-loop concurrency to divide its output throughput by"
        if tps is None:
            return None, f"run {run.id} gives no emitted tokens over a measured interval"
        return float(Fraction(tps) / run.load.concurrency), ""

    return per_request, lambda v: v >= least, "tokens/s per request"


def required_points(profile: RequirementsProfile, ctx: Context, runs: list[Run]) -> list[tuple[str, float]]:
    """Each load to judge at: stated concurrencies and rates, and for a band its ends, the offer's
    measured loads inside it, and the edges of the offer's K bands inside it."""
    points: list[tuple[str, float]] = [("concurrency", c) for c in profile.loads.concurrency]
    for band in profile.loads.concurrency_bands:
        a, b = band.min_concurrency, band.max_concurrency
        inside = {r.load.concurrency for r in runs if r.load.concurrency is not None and a < r.load.concurrency < b}
        for run in runs:
            cfg = ctx.configuration(run)
            for kb in (cfg.proposer.k_schedule or []) if cfg else []:
                inside |= {e for e in (kb.min_concurrency, kb.max_concurrency) if a < e < b}
        points += [("concurrency", v) for v in sorted({a, b} | inside)]
    points += [("request_rate", r) for r in profile.loads.request_rates]
    return list(dict.fromkeys(points))


def _band_k(ctx: Context, run: Run, concurrency: float) -> tuple[int | None, int | None]:
    """(index, K) of the configuration's K band holding this concurrency; (None, K) without a schedule."""
    cfg = ctx.configuration(run)
    if cfg is None or not cfg.proposer.k_schedule:
        return None, cfg.proposer.k if cfg else None
    for i, kb in enumerate(cfg.proposer.k_schedule):
        if kb.min_concurrency <= concurrency <= kb.max_concurrency:
            return i, kb.k
    return None, None


def _locate(ctx: Context, runs: list[Run], axis: str, load: float) -> tuple[str, list[Run], str]:
    """measured (a run at the load), bracketed (the nearest run on each side, same configuration
    and K band), or none, with the reason when the nearest runs cannot bracket the load."""
    on_axis = [r for r in runs if getattr(r.load, axis) is not None]
    exact = [r for r in on_axis if getattr(r.load, axis) == load]
    if exact:
        return "measured", exact[:1], ""
    below = [r for r in on_axis if getattr(r.load, axis) < load]
    above = [r for r in on_axis if getattr(r.load, axis) > load]
    if not below or not above:
        return "none", [], ""
    lo = max(below, key=lambda r: getattr(r.load, axis))
    hi = min(above, key=lambda r: getattr(r.load, axis))
    if lo.configuration != hi.configuration:
        return "none", [lo, hi], f"the nearest runs {lo.id} and {hi.id} measured different configurations"
    if axis == "concurrency":
        (band, k), (band_lo, k_lo), (band_hi, k_hi) = (_band_k(ctx, lo, c) for c in (load, lo.load.concurrency, hi.load.concurrency))
        if not band == band_lo == band_hi:
            return "none", [lo, hi], (
                f"the nearest runs {lo.id} (K = {k_lo}) and {hi.id} (K = {k_hi}) lie in other K bands "
                f"than concurrency {num(load)} (K = {k})"
            )
    return "bracketed", [lo, hi], ""


def _load_text(axis: str, load: float) -> str:
    return f"concurrency {num(load)}" if axis == "concurrency" else f"{num(load)} requests/s"


def _point(profile: RequirementsProfile, offer: _Offer, req: Requirement, axis: str, load: float) -> PointResult:
    ctx = offer.ctx
    offered = offered_runs(ctx)
    fitting = [r for r in offered if _fits(profile, ctx, r)]
    figure, passes, unit = _figure_for(req, profile, ctx)
    where = _load_text(axis, load)
    basis, runs, reason = _locate(ctx, fitting, axis, load)
    if basis == "none":
        unfit_basis, unfit, _ = _locate(ctx, offered, axis, load)
        if unfit_basis != "none" and any(r not in fitting for r in unfit):
            found = [m for r in unfit for m in _mismatches(profile, ctx, r, _CONDITIONS)]
            codes = tuple(dict.fromkeys(c for c, _ in found))
            return PointResult(axis, load, "none", tuple(r.id for r in unfit), (), "not-established", codes,
                               f"at {where}: " + "; ".join(m for _, m in found))
        measured = sorted({getattr(r.load, axis) for r in fitting if getattr(r.load, axis) is not None})
        shown = ", ".join(num(m) for m in measured) or "none"
        why = f"no run at {where}" + (f"; {reason}" if reason else f" nor on both sides of it (measured: {shown})")
        return PointResult(axis, load, "none", tuple(r.id for r in runs), (), "not-established", (fit_rules.LOAD_UNCOVERED.code,), why)
    values = [figure(r) for r in runs]
    missing = [msg for v, msg in values if v is None]
    ids = tuple(r.id for r in runs)
    if missing:
        return PointResult(axis, load, basis, ids, (), "not-established", (fit_rules.FIGURE_MISSING.code,), f"at {where}: " + "; ".join(missing))
    figures = tuple(v for v, _ in values)
    if basis == "measured":
        text = f"at {where}: {num(figures[0], unit)} (run {ids[0]})"
    else:
        text = (
            f"at {where}, between measured {num(getattr(runs[0].load, axis))} ({num(figures[0], unit)}, run {ids[0]}) "
            f"and {num(getattr(runs[1].load, axis))} ({num(figures[1], unit)}, run {ids[1]})"
        )
    problems = sorted(set().union(*(offer.problems.get(r.id, set()) for r in runs)))
    if problems:
        return PointResult(axis, load, basis, ids, figures, "not-established", tuple(problems),
                           f"{text}, but the run's evidence is not established ({', '.join(problems)})")
    verdicts = [passes(v) for v in figures]
    if all(verdicts):
        return PointResult(axis, load, basis, ids, figures, "met", (), text)
    if not any(verdicts):
        code = fit_rules.SLO_NOT_MET.code if req.kind == "latency" else fit_rules.THROUGHPUT_BELOW.code
        return PointResult(axis, load, basis, ids, figures, "not-met", (code,), text)
    # Met on one side, not on the other: the crossing lies somewhere between, and where was not measured.
    return PointResult(axis, load, basis, ids, figures, "not-established", (fit_rules.BETWEEN_LOADS.code,),
                       f"{text}: met on one side only, so undecided here")


def _combine(points: list[PointResult]) -> tuple[Status, tuple[str, ...]]:
    """A measured failure anywhere is "not met"; else any gap is "not established"; else met."""
    codes = tuple(dict.fromkeys(c for p in points if p.status != "met" for c in p.codes))
    if any(p.status == "not-met" for p in points):
        return "not-met", codes
    if any(p.status == "not-established" for p in points):
        return "not-established", codes
    return "met", ()


def _load_cell(profile: RequirementsProfile, req: Requirement, offer: _Offer) -> Cell:
    runs = offered_runs(offer.ctx)
    points = [_point(profile, offer, req, axis, load) for axis, load in required_points(profile, offer.ctx, runs)]
    status, codes = _combine(points)
    message = "; ".join(p.message for p in points)
    return _cell(req, offer, status, codes, message, tuple(points))


# --------------------------------------------------------------------------- quality


def _quality_cell(profile: RequirementsProfile, req: Requirement, offer: _Offer, baseline: _Offer | None) -> Cell:
    q = profile.quality[req.index]
    ctx = offer.ctx
    key = (q.task.strip().lower(), q.metric.strip().lower())
    offered = offered_runs(ctx)
    runs = [r for r in offered if not _mismatches(profile, ctx, r, ("sampling",))]
    entries = [(r, e) for r in runs for e in r.quality if (e.task.strip().lower(), e.metric.strip().lower()) == key]
    if not entries:
        unfit = [r for r in offered if r not in runs and any((e.task.strip().lower(), e.metric.strip().lower()) == key for e in r.quality)]
        if unfit:
            found = [m for r in unfit for _, m in _mismatches(profile, ctx, r, ("sampling",))]
            return _cell(req, offer, "not-established", (fit_rules.SAMPLING_MISMATCH.code,), "; ".join(found))
        others = sorted({f'"{e.task}" ({e.metric})' for r in runs for e in r.quality})
        if others:
            return _cell(req, offer, "not-established", (fit_rules.TASK_MISMATCH.code,),
                         f'no quality result for {q.metric} on "{q.task}"; the offer measured ' + ", ".join(others))
        return _cell(req, offer, "not-established", (fit_rules.FIGURE_MISSING.code,), f'no quality result for {q.metric} on "{q.task}"')
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
        verdicts.append((e.score >= bar, run.id, f"{num(e.score)} against at least {num(bar)}{basis}"))
    grouped: dict[str, list[str]] = {}
    for _, run_id, message in verdicts:
        grouped.setdefault(message, []).append(run_id)
    text = "; ".join([f"run{'s' * (len(ids) > 1)} {', '.join(ids)}: {m}" for m, ids in grouped.items()] + missing)
    if problems:
        return _cell(req, offer, "not-established", tuple(sorted(problems)), f"{text}, but the evidence is not established")
    if any(not ok for ok, _, _ in verdicts):
        return _cell(req, offer, "not-met", (fit_rules.QUALITY_BELOW.code,), text)
    if missing:
        return _cell(req, offer, "not-established", (fit_rules.FIGURE_MISSING.code,), text)
    return _cell(req, offer, "met", (), text)


def _baseline_quality(baseline: _Offer, key: tuple[str, str]) -> float | None:
    for run in offered_runs(baseline.ctx):
        for e in run.quality:
            if (e.task.strip().lower(), e.metric.strip().lower()) == key:
                return e.score
    return None


# --------------------------------------------------------------------------- compare


class BaselineNotGiven(Exception):
    """The profile names a baseline offer that is not among the offers given (exit 2)."""


def compare(profile: RequirementsProfile, results: list[FileAssessment], profile_file: str = "", profile_sha256: str = "") -> Comparison:
    offers = [_offer(r) for r in results]
    baseline = None
    baseline_text = "each offer's own target-only runs"
    if profile.baseline.kind == "offer":
        named = [o for o in offers if o.result.record and o.result.record.offer.offer_id == profile.baseline.offer_id]
        if not named:
            raise BaselineNotGiven(f"the profile's baseline offer {profile.baseline.offer_id!r} is not among the offers given")
        baseline = named[0]
        baseline_text = f"offer {profile.baseline.offer_id} ({baseline.file})"
    requirements = requirement_list(profile)
    cells: list[Cell] = []
    for offer in offers:
        for req in requirements:
            cells.append(_judge(profile, req, offer, baseline))
    series = {o.file: _series(o, baseline) for o in offers if o.ctx is not None}
    standings = _rank([_standing(o, [c for c in cells if c.offer == o.file]) for o in offers])
    comparison = Comparison(profile_file, profile_sha256, profile, requirements, standings, cells, series, baseline_text)
    comparison.statements = ranking_statements(comparison)
    return comparison


def _judge(profile: RequirementsProfile, req: Requirement, offer: _Offer, baseline: _Offer | None) -> Cell:
    if offer.ctx is None:
        return Cell(req.id, offer.file, "not-established", offer.gate_codes, "the offer file is not a valid evidence record")
    if req.kind in ("latency", "throughput-per-request", "throughput-aggregate"):
        return _load_cell(profile, req, offer)
    if req.kind == "quality":
        return _quality_cell(profile, req, offer, baseline if baseline is not offer else None)
    return _condition_cell(profile, req, offer)


def _series(offer: _Offer, baseline: _Offer | None) -> list[Series]:
    if baseline is None or baseline is offer:
        return series_for_offer(offer.ctx, offer.established)

    def from_baseline_offer(run: Run) -> tuple[str | None, float | None]:
        for other in offered_runs(baseline.ctx):
            if other.load.concurrency == run.load.concurrency and other.workload.task == run.workload.task:
                return other.id, baseline.ctx.metrics[other.id].emitted_tokens_per_s
        return None, None

    return series_for_offer(offer.ctx, offer.established, from_baseline_offer)


def _standing(offer: _Offer, cells: list[Cell]) -> Standing:
    record = offer.result.record
    return Standing(
        file=offer.file,
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
        out.append(f"Only {winners[0]} meets every requirement.")
    else:
        out.append(f"{_names(winners)} each meet every requirement: a tie that these requirements do not break.")
    by_rank: dict[int, list[Standing]] = {}
    for s in c.standings:
        by_rank.setdefault(s.rank, []).append(s)
    for rank, group in by_rank.items():
        if len(group) > 1 and not group[0].meets_all:
            out.append(f"{_names([s.file for s in group])} tie at rank {rank}: each meets {group[0].met} of {total} requirements.")
    if any(s.evidence == "established" for s in c.standings):
        for s in c.standings:
            if s.evidence != "established":
                out.append(f"{s.file}: its evidence is not established, so it ranks below every offer whose evidence is.")
    return out


# ----------------------------------------------------------------------------- output


def comparison_document(c: Comparison) -> dict[str, Any]:
    """The `requirements` section of the assessment JSON (also what a PDF table and chart draw from)."""
    p = c.profile
    return {
        "profile": {
            "file": c.profile_file,
            "sha256": c.profile_sha256,
            "requirements_version": p.requirements_version,
            "buyer": p.buyer.name,
            "profile_id": p.buyer.profile_id,
            "source": p.source,
        },
        "baseline": c.baseline,
        "requirements": [r.as_dict() for r in c.requirements],
        "offers": [s.as_dict() for s in c.standings],
        "matrix": {
            r.id: {f: {"status": c.cell(r.id, f).status, "codes": list(c.cell(r.id, f).codes)} for f in c.offer_files}
            for r in c.requirements
        },
        "results": [cell.as_dict() for cell in c.cells],
        "ranking": {"meets_all": c.meets_all, "statements": c.statements},
        "figures": [
            {"offer": file, "series": [s.as_dict() for s in series]} for file, series in c.series.items()
        ],
    }


def chart_data(c: Comparison) -> dict[str, Any]:
    """For a throughput-vs-concurrency chart: one line per offered configuration and one per
    baseline, each a list of (concurrency, tokens/s) measured points, plus each break-even."""
    lines = []
    for file, series_list in c.series.items():
        for s in series_list:
            lines.append({
                "offer": file,
                "configuration": s.configuration,
                "role": "offer",
                "points": [(p.concurrency, p.tokens_per_s) for p in s.points if p.tokens_per_s is not None],
                "established": all(p.established for p in s.points),
                "break_even": s.break_even.as_dict(),
            })
            base = [(p.concurrency, p.baseline_tokens_per_s) for p in s.points if p.baseline_tokens_per_s is not None]
            if base:
                lines.append({"offer": file, "configuration": s.configuration, "role": "baseline", "points": base,
                              "established": lines[-1]["established"], "break_even": None})
    return {"x": "concurrency", "y": "output tokens/s (E / T)", "lines": lines}
