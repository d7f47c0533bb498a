"""From a loaded file to findings and per-claim verdicts.

load (engine/loader.py) -> model (engine/record.py) -> metrics (engine/metrics.py) -> rules (the
rule families beside this module) -> here. Outputs read the FileAssessment objects this module
returns (rules/results.py); nothing here prints, and the JSON document is built by
present/json_document.py.

Each error finding also carries its rule's ask, filled in: what the buyer requests from the
vendor. A file's asks are those requests once each, with the claims they concern.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from pydantic import ValidationError

from ..engine.baselines import baseline_for, refused_pairing
from ..engine.claim_figures import claimed_figure, claimed_text, claimed_value, output_figure, written_text
from ..engine.context import Context
from ..engine.loader import LoadedFile, pointer
from ..engine.metrics import speedup
from ..engine.record import EvidenceRecord
from ..engine.schema_wording import schema_problems
from ..engine.wording import num
from . import REGISTRY
from .addressee import addressed, source_of
from .quality import quality_below
from .registry import Path
from .results import Ask, ClaimResult, FileAssessment, Finding, Verdict
from .spread import claim_interval


def assess(loaded: LoadedFile) -> FileAssessment:
    result = FileAssessment(file=loaded.path, sha256=loaded.sha256, source=source_of(loaded.data))
    if loaded.problem is not None:
        p = loaded.problem
        ask: str | None = REGISTRY["parse"].request(problem=p.message)
        result.findings = [Finding("parse", "error", (), p.message, line=p.line, column=p.column, ask=ask)]
        result.asks = asks(result.findings, [])
        return result
    try:
        record = EvidenceRecord.model_validate(loaded.data)
    except ValidationError as exc:
        result.findings = _schema_findings(exc, loaded)
        result.asks = asks(result.findings, [], result.source)
        return result
    ctx = Context(record)
    result.record = record
    result.metrics = ctx.metrics
    result.k = {run.id: ctx.effective_k(run) for run in record.runs}
    result.baseline = {run.id: getattr(baseline_for(ctx, run), "id", None) if run.arrangement == "speculative" else None for run in record.runs}
    result.refused = {run.id: why for run in record.runs if (why := refused_pairing(ctx, run)) is not None}
    result.speedup = {
        run_id: speedup(m, ctx.metrics[base]) if (base := result.baseline.get(run_id)) in ctx.metrics else None for run_id, m in ctx.metrics.items()
    }
    result.per_task = {run.id: run.per_task for run in record.runs if run.per_task is not None}
    result.request_acceptance = {run.id: run.request_acceptance for run in record.runs if run.request_acceptance is not None}
    findings = []
    for rule in REGISTRY.values():
        if rule.check is None:
            continue
        for v in rule.check(ctx):
            line, column = loaded.position(pointer(v.path))
            ask = rule.request(**v.ask) if rule.severity == "error" else None
            findings.append(Finding(rule.code, rule.severity, v.path, v.message, v.claim, v.run, line, column, ask))
    result.findings = sorted(set(findings), key=_finding_order)
    result.claims = [_claim_result(ctx, i, result.findings, partial(loaded.written, f"/claims/{i}/value")) for i in range(len(record.claims))]
    result.asks = asks(result.findings, result.claims, result.source)
    return result


def asks(findings: list[Finding], claims: list[ClaimResult], source: str = "vendor") -> list[Ask]:
    """Every error finding's request, once per code and wording, with the claims whose verdict it
    decides (in the record's order); requests come in the order of the findings behind them."""
    gathered: dict[tuple[str, str], list[str]] = {}
    for f in findings:
        if f.severity != "error" or not f.ask:
            continue
        ids = gathered.setdefault((f.code, f.ask), [])
        ids += [c.id for c in claims if f in c.findings and c.id not in ids]
    order = {c.id: n for n, c in enumerate(claims)}
    # Addressed to whoever made the record (offer.source): the vendor, the buyer who typed it, or who measured it.
    return [Ask(code, addressed(text, code, source), tuple(sorted(ids, key=order.__getitem__))) for (code, text), ids in gathered.items()]


def _finding_order(f: Finding) -> tuple:
    """File order (line, column), as a person reads the file; then by place and code."""
    where = tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in f.path)
    return (f.line is None, f.line or 0, f.column or 0, where, f.code, f.claim or "", f.message)


def _relevant_prefixes(ctx: Context, index: int) -> list[Path]:
    """Parts of the record a claim rests on: itself, its run and baseline, and their configurations."""
    claim = ctx.record.claims[index]
    prefixes: list[Path] = [("claims", index), ("offer",)]
    for run_id in (claim.run, claim.baseline):
        run = ctx.run(run_id)
        if run is None:
            continue
        prefixes.append(("runs", ctx.run_index[run.id]))
        if run.configuration in ctx.config_index:
            prefixes.append(("configurations", ctx.config_index[run.configuration]))
    return prefixes


def _claim_result(ctx: Context, index: int, findings: list[Finding], written: Callable[[], str | None]) -> ClaimResult:
    claim = ctx.record.claims[index]
    prefixes = _relevant_prefixes(ctx, index)
    behind = [f for f in findings if f.claim == claim.id or (f.claim is None and any(f.path[: len(p)] == p for p in prefixes))]
    verdict: Verdict = "not-established" if any(f.severity == "error" for f in behind) else "established"
    figure, out = claimed_figure(ctx, claim), output_figure(ctx, claim)
    against = _unfavourable(ctx, claim, out) if verdict == "established" else None
    unfavourable, unfavourable_brief = against or (None, None)
    return ClaimResult(
        id=claim.id,
        kind=claim.kind,
        text=claim.text,
        value=claimed_value(claim),
        unit=claim.unit,
        written_in_file=written,
        run=claim.run,
        baseline=claim.baseline,
        verdict=verdict,
        findings=behind,
        computed=None if figure is None else _computed(claim, figure),
        output=None if out is None else (_computed(claim, out) if out == figure else {"figure": out.name, "value": out.value, "unit": out.unit}),
        stated=None if claim.value is None else claimed_text(claim),
        value_high=claim.value_high,
        bound=claim.bound,
        relative=claim.relative,
        unfavourable=unfavourable,
        unfavourable_brief=unfavourable_brief,
        interval=claim_interval(ctx, claim),
    )


def _computed(claim, figure) -> dict:
    """The recomputed figure; for a claim written as a change ('40 % lower'), also in that form."""
    computed = {"figure": figure.name, "value": figure.value, "unit": figure.unit}
    if claim.relative is not None:
        computed["as_written"] = written_text(claim, figure.value)
    return computed


def _unfavourable(ctx: Context, claim, out) -> tuple[str, str] | None:
    """What an established result says against the offer: a speedup below 1, or the run's quality
    below the baseline's on a task (both said, when both hold); in full and in a few words."""
    said, brief = [], []
    if claim.kind == "speedup" and out is not None and out.value is not None and out.value < 1:
        said.append(f"slower than its baseline: {num(out.value, 'x')} its output throughput")
        brief.append(f"slower than its baseline ({num(out.value, 'x')})")
    run = ctx.run(claim.run)
    # A lossless claim established by its own check is not contradicted by a score's wobble.
    for q in (run.quality or []) if run is not None and claim.kind != "lossless" else []:
        if (margin := quality_below(q)) is not None:
            said.append(f"its quality is below the baseline's on {q.task}: {q.metric} {num(q.score)} against {num(q.baseline_score)} ({margin})")
            brief.append(f"quality below the baseline's ({num(q.score)} against {num(q.baseline_score)})")
    return ("established, but " + "; ".join(said), "; ".join(brief)) if said else None


def _schema_findings(exc: ValidationError, loaded: LoadedFile) -> list[Finding]:
    problems = schema_problems(exc.errors(include_url=False), loaded, "evidence-record.schema.json")
    schema_rule = REGISTRY["schema"]
    return [
        Finding(
            "schema",
            "error",
            p.path,
            p.message,
            line=p.line,
            column=p.column,
            ask=schema_rule.request(where=pointer(p.path) or "the record", problem=p.message),
        )
        for p in problems
    ]
