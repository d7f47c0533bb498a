"""Every claim of every assessed record beside the independent rows at its key, and the two
reference findings (rules/references.py) added to the claim and its file."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine.context import Context
from ..engine.wording import num
from ..rules.results import FileAssessment, Finding
from .document import ReferencesInput
from .match import BASIS_WORDS, ClaimReferences, compare_record
from .tables import TABLES_VERSION


@dataclass
class ReferenceComparison:
    references: list[ReferencesInput]
    claims: list[ClaimReferences]

    def as_dict(self) -> dict[str, Any]:
        return {
            "tables_version": TABLES_VERSION,
            "files": [{"file": r.path, "sha256": r.sha256, "rows": len(r.rows), "sources": r.doc["sources"]} for r in self.references],
            "claims": [c.as_dict() for c in self.claims],
        }


def compare(results: list[FileAssessment], references: list[ReferencesInput]) -> ReferenceComparison:
    compared: list[ClaimReferences] = []
    for r in results:
        if r.record is None:
            continue
        ctx = Context(r.record, r.metrics)
        by_id = {c.id: c for c in r.claims}
        for found in compare_record(r.file, ctx, references):
            compared.append(found)
            claim = by_id.get(found.claim)
            finding = _finding(found, references)
            if claim is not None:
                claim.independent = found
            if finding is not None:
                r.findings.append(finding)
                if claim is not None:
                    claim.findings.append(finding)
    return ReferenceComparison(references, compared)


def _finding(found: ClaimReferences, references: list[ReferencesInput]) -> Finding | None:
    path = ("claims", found.index)
    words = BASIS_WORDS.get(found.basis or "", "")
    if found.outcome == "exceeds-every":
        rows = "; ".join(f"{r.label()} {num(r.figure['value'], words)} ({num(r.ratio, 'x')})" for r in found.same_key if r.figure and r.ratio)
        message = (
            f"the claimed {num(found.claimed, words)} is more than 2 % above every independent result at its key: {rows}; "
            "check what the vendor measured differently (software version, configuration, the figure's definition)"
        )
        return Finding("claim-above-independent-results", "warning", path, message, claim=found.claim)
    if found.outcome == "no-row-at-key":
        files = ", ".join(r.path for r in references)
        partial = [r for r in found.rows if r.match == "partial"]
        more = f"; {len(partial)} partial match{'es' * (len(partial) != 1)} shown, each differing field named" if partial else ""
        message = f"no independent result at this claim's key in {files}{more}"
        return Finding("no-independent-result-at-key", "info", path, message, claim=found.claim)
    return None
