"""From a loaded file to findings and per-claim verdicts.

load (loader.py) -> model (record.py) -> metrics (metrics.py) -> rules (rules/) -> here.
Reporters read the FileAssessment objects this module returns; nothing here prints, and the
JSON document is built by reporters/json_report.py.

Each error finding also carries its rule's ask, filled in: what the buyer requests from the
vendor. A file's asks are those requests once each, with the claims they concern.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from pydantic import ValidationError

from .context import Context
from .figures import baseline_for, claimed_figure, claimed_text, claimed_value, output_figure
from .loader import LoadedFile, pointer
from .metrics import RunMetrics
from .record import EvidenceRecord
from .rules import REGISTRY
from .rules.registry import Path
from .schema import schema_problems

Verdict = Literal["established", "not-established"]


@dataclass(frozen=True)
class Finding:
    code: str
    severity: str
    path: Path
    message: str
    claim: str | None = None
    run: str | None = None
    line: int | None = None
    column: int | None = None
    # The request to the vendor (the rule's ask filled in), for error findings.
    ask: str | None = None

    @property
    def pointer(self) -> str:
        return pointer(self.path)

    def as_dict(self, file: str) -> dict[str, Any]:
        return {
            "file": file,
            "code": self.code,
            "severity": self.severity,
            "path": self.pointer,
            "message": self.message,
            "claim": self.claim,
            "run": self.run,
            "line": self.line,
            "column": self.column,
        }


@dataclass
class ClaimResult:
    id: str
    kind: str
    text: str
    value: float | None
    unit: str | None
    run: str
    baseline: str | None
    verdict: Verdict
    findings: list[Finding]
    computed: dict[str, Any] | None
    output: dict[str, Any] | None
    # The claimed figure as the vendor stated it ('up to 4x', '2.2-3.6x'); value is its (low) number.
    stated: str | None = None
    value_high: float | None = None
    bound: str | None = None

    # The claimed value exactly as the record writes it ("1.90"), read from the file only when a
    # report shows it (a large JSON file's text is walked once for it).
    written_in_file: Callable[[], str | None] = lambda: None

    @property
    def written(self) -> str | None:
        return self.written_in_file()


@dataclass(frozen=True)
class Ask:
    """One request to the vendor: the error code behind it, its words, and the claims it concerns
    (none when the finding concerns no claim, such as an unused run's broken counts)."""

    code: str
    text: str
    claims: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "text": self.text, "claims": list(self.claims)}


@dataclass
class FileAssessment:
    file: str
    sha256: str
    record: EvidenceRecord | None = None
    findings: list[Finding] = field(default_factory=list)
    claims: list[ClaimResult] = field(default_factory=list)
    metrics: dict[str, RunMetrics] = field(default_factory=dict)
    # Per run id: the K it drafted with (fixed, or its concurrency's band) and, for a speculative
    # run, the run it is compared with (figures.baseline_for), so reporters never pair runs themselves.
    k: dict[str, int | None] = field(default_factory=dict)
    baseline: dict[str, str | None] = field(default_factory=dict)
    # What to ask the vendor: every error finding's request, once per offer.
    asks: list[Ask] = field(default_factory=list)
    # "evidence-record", or "requirements-profile" when `sdeval validate` was given a buyer's profile.
    kind: str = "evidence-record"

    @property
    def outcome(self) -> str:
        if self.kind == "requirements-profile":
            return "invalid-profile" if self.count("error") else "valid-profile"
        if self.record is None:
            return "invalid"
        if any(f.severity == "error" for f in self.findings) or any(c.verdict != "established" for c in self.claims):
            return "not-established"
        return "established"

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)


def exit_code(results: list[FileAssessment]) -> int:
    """1 when any file has an error finding (parse and schema included), else 0."""
    return 1 if any(r.count("error") for r in results) else 0


def assess(loaded: LoadedFile) -> FileAssessment:
    result = FileAssessment(file=loaded.path, sha256=loaded.sha256)
    if loaded.problem is not None:
        p = loaded.problem
        ask = REGISTRY["parse"].request(problem=p.message)
        result.findings = [Finding("parse", "error", (), p.message, line=p.line, column=p.column, ask=ask)]
        result.asks = asks(result.findings, [])
        return result
    try:
        record = EvidenceRecord.model_validate(loaded.data)
    except ValidationError as exc:
        result.findings = _schema_findings(exc, loaded)
        result.asks = asks(result.findings, [])
        return result
    ctx = Context(record)
    result.record = record
    result.metrics = ctx.metrics
    result.k = {run.id: ctx.effective_k(run) for run in record.runs}
    result.baseline = {
        run.id: getattr(baseline_for(ctx, run), "id", None) if run.arrangement == "speculative" else None for run in record.runs
    }
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
    result.asks = asks(result.findings, result.claims)
    return result


def asks(findings: list[Finding], claims: list[ClaimResult]) -> list[Ask]:
    """Every error finding's request, once per code and wording, with the claims whose verdict it
    decides (in the record's order); requests come in the order of the findings behind them."""
    gathered: dict[tuple[str, str], list[str]] = {}
    for f in findings:
        if f.severity != "error" or not f.ask:
            continue
        ids = gathered.setdefault((f.code, f.ask), [])
        ids += [c.id for c in claims if f in c.findings and c.id not in ids]
    order = {c.id: n for n, c in enumerate(claims)}
    return [Ask(code, text, tuple(sorted(ids, key=order.__getitem__))) for (code, text), ids in gathered.items()]


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
    behind = [
        f
        for f in findings
        if f.claim == claim.id or (f.claim is None and any(f.path[: len(p)] == p for p in prefixes))
    ]
    verdict: Verdict = "not-established" if any(f.severity == "error" for f in behind) else "established"
    figure, out = claimed_figure(ctx, claim), output_figure(ctx, claim)
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
        computed=None if figure is None else {"figure": figure.name, "value": figure.value, "unit": figure.unit},
        output=None if out is None else {"figure": out.name, "value": out.value, "unit": out.unit},
        stated=None if claim.value is None else claimed_text(claim),
        value_high=claim.value_high,
        bound=claim.bound,
    )


def _schema_findings(exc: ValidationError, loaded: LoadedFile) -> list[Finding]:
    problems = schema_problems(exc.errors(include_url=False), loaded, "evidence-record.schema.json")
    schema_rule = REGISTRY["schema"]
    return [
        Finding("schema", "error", p.path, p.message, line=p.line, column=p.column,
                ask=schema_rule.request(where=pointer(p.path) or "the record", problem=p.message))
        for p in problems
    ]
