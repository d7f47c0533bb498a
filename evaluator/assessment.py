"""From a loaded file to findings and per-claim verdicts.

load (loader.py) -> model (record.py) -> metrics (metrics.py) -> rules (rules/) -> here.
Reporters read the FileAssessment objects this module returns; nothing here prints.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from . import __version__
from .claim_figures import claimed_figure, claimed_value, output_figure
from .loader import LoadedFile
from .metrics import RunMetrics
from .record import RECORD_VERSION, EvidenceRecord
from .rules import REGISTRY, RULE_CATALOG_VERSION
from .context import Context
from .rules.registry import Path

ASSESSMENT_SCHEMA_VERSION = "1.0"
SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}

Verdict = Literal["established", "not-established"]


def pointer(path: Path) -> str:
    """RFC 6901 JSON Pointer for a path of keys and indexes."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


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


@dataclass
class FileAssessment:
    file: str
    sha256: str
    record: EvidenceRecord | None = None
    findings: list[Finding] = field(default_factory=list)
    claims: list[ClaimResult] = field(default_factory=list)
    metrics: dict[str, RunMetrics] = field(default_factory=dict)

    @property
    def outcome(self) -> str:
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
        result.findings = [Finding("parse", "error", (), p.message, line=p.line, column=p.column)]
        return result
    try:
        record = EvidenceRecord.model_validate(loaded.data)
    except ValidationError as exc:
        result.findings = _schema_findings(exc, loaded)
        return result
    ctx = Context(record)
    result.record = record
    result.metrics = ctx.metrics
    findings = []
    for rule in REGISTRY.values():
        if rule.check is None:
            continue
        for v in rule.check(ctx):
            line, column = loaded.positions.get(pointer(v.path), (None, None))
            findings.append(Finding(rule.code, rule.severity, v.path, v.message, v.claim, v.run, line, column))
    result.findings = sorted(set(findings), key=_finding_order)
    result.claims = [_claim_result(ctx, i, result.findings) for i in range(len(record.claims))]
    return result


def _finding_order(f: Finding) -> tuple:
    return (tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in f.path), f.code, f.claim or "", f.message)


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


def _claim_result(ctx: Context, index: int, findings: list[Finding]) -> ClaimResult:
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
        run=claim.run,
        baseline=claim.baseline,
        verdict=verdict,
        findings=behind,
        computed=None if figure is None else {"figure": figure.name, "value": figure.value, "unit": figure.unit},
        output=None if out is None else {"figure": out.name, "value": out.value, "unit": out.unit},
    )


def _schema_findings(exc: ValidationError, loaded: LoadedFile) -> list[Finding]:
    findings = []
    for error in exc.errors(include_url=False):
        path = _data_path(loaded.data, error["loc"])
        line, column = loaded.positions.get(pointer(path), (None, None))
        where = pointer(path) or "the record"
        message = f"{where}: {_schema_message(error)}"
        findings.append(Finding("schema", "error", path, message, line=line, column=column))
    return sorted(set(findings), key=_finding_order)


def _data_path(data: Any, loc: tuple) -> Path:
    """Pydantic's loc without its internal type tags: only steps that exist in the data,
    plus a final missing key."""
    path: list[str | int] = []
    node = data
    for step in loc:
        if isinstance(node, dict) and isinstance(step, str):
            path.append(step)
            if step not in node:
                break
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            path.append(step)
            node = node[step]
        # otherwise a pydantic tag such as 'function-after[...]' or a union branch name: skip it
    return tuple(path)


def _schema_message(error: dict, document: str = "the evidence record") -> str:
    kind = error["type"]
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return f"is not a field of {document} (misspelt, or in the wrong place)"
    shown = json.dumps(error.get("input"), default=str)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    msg = error["msg"]
    return f"{msg[0].lower()}{msg[1:]} (got {shown})"


# --------------------------------------------------------------------------- output


def as_document(results: list[FileAssessment], *, full: bool) -> dict[str, Any]:
    """The stable JSON shape of validate (full=False) and assess (full=True)."""
    files = []
    for r in results:
        entry: dict[str, Any] = {
            "file": r.file,
            "sha256": r.sha256,
            "outcome": r.outcome,
            "errors": r.count("error"),
            "warnings": r.count("warning"),
            "info": r.count("info"),
        }
        if full:
            entry["record_version"] = r.record.record_version if r.record else None
            entry["offer"] = (
                {"vendor": r.record.offer.vendor, "offer_id": r.record.offer.offer_id, "date": r.record.offer.date}
                if r.record
                else None
            )
            entry["claims"] = [
                {
                    "id": c.id,
                    "kind": c.kind,
                    "text": c.text,
                    "value": c.value,
                    "unit": c.unit,
                    "run": c.run,
                    "baseline": c.baseline,
                    "verdict": c.verdict,
                    "computed": c.computed,
                    "output": c.output,
                    "findings": [{"code": f.code, "severity": f.severity, "path": f.pointer} for f in c.findings],
                }
                for c in r.claims
            ]
            entry["runs"] = [m.as_dict() for m in r.metrics.values()]
        files.append(entry)
    every = [f.as_dict(r.file) for r in results for f in r.findings]
    errors = sum(r.count("error") for r in results)
    return {
        "schema_version": ASSESSMENT_SCHEMA_VERSION,
        "tool": {"name": "sdeval", "version": __version__, "rule_catalog_version": RULE_CATALOG_VERSION},
        "record_version": RECORD_VERSION,
        "outcome": "established" if all(r.outcome == "established" for r in results) else "not-established",
        "files": files,
        "findings": every,
        "summary": {
            "files": len(results),
            "errors": errors,
            "warnings": sum(r.count("warning") for r in results),
            "info": sum(r.count("info") for r in results),
        },
    }
