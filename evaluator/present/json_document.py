"""--format json: the stable, versioned document of validate (full=False) and assess (full=True).

With a requirements profile, the same document gains one top-level key, `requirements`: the
requirements x offers results (fit.results.Comparison.as_dict). With `--references`, the pipeline
adds `references` (references/judge.ReferenceComparison.as_dict): each references file's SHA-256
and sources, and every claim beside the independent rows at its key. This document is also what a
PDF report attaches as assessment.json and what `sdeval verify` re-creates to compare.

Each file entry carries `asks`: every error finding turned into a request to the vendor,
`{"code", "text", "claims"}`, once per code and wording.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .. import __version__
from .._infra.safe_text import json_shown
from ..engine.record import RECORD_VERSION
from ..engine.wording import names_of
from ..rules import RULE_CATALOG_VERSION
from ..rules.results import FileAssessment

if TYPE_CHECKING:
    from ..buyer.results import Comparison

# 1.1: each file entry gained `asks`, each claim `value_high` and `bound` (additions only).
# 1.2: each claim gained `unfavourable`; each run gained `k`, `baseline_run` and `speedup` (additions; present/differences.as_of_schema).
# 1.3: in `requirements`, a break-even and a cost at a load not measured are given as the measured
#      bracket with the interpolated `estimate` beside it (break_even: `bracket`, `estimate`, no
#      `interpolated`/`between`; economics points: basis `bracketed`, `bound`, `bracket`, `estimate`;
#      cheapest: `bound`, `estimate`; offers: `cost_ratio_bound`). Nothing outside `requirements` changed
#      (present/differences.as_of_schema).
# A claim gains `interval` only where its run states an uncertainty (record 1.3, which no earlier document
# could hold), so every earlier document keeps its shape.
ASSESSMENT_SCHEMA_VERSION = "1.3"


def render(results: list[FileAssessment], full: bool, comparison: Comparison | None = None) -> str:
    # A string from an input keeps its characters as data; those a terminal acts on are JSON escapes.
    return json_shown(json.dumps(document(results, full=full, comparison=comparison), indent=2, ensure_ascii=False)) + "\n"


def _run_entry(r: FileAssessment, run_id: str, m) -> dict[str, Any]:
    """A run's figures, with what the PDF shows beside them (K, the paired baseline and the speedup
    over it), so that verify's reproduction check covers every figure a signed report prints."""
    entry = {**m.as_dict(), "k": r.k.get(run_id), "baseline_run": r.baseline.get(run_id), "speedup": r.speedup.get(run_id)}
    # Only for a run whose record splits it by task or keeps per-request acceptance (record 1.3).
    if run_id in r.per_task:
        entry["per_task"] = r.per_task[run_id].model_dump(exclude_none=True)
    if run_id in r.request_acceptance:
        entry["request_acceptance"] = r.request_acceptance[run_id].model_dump(exclude_none=True)
    return entry


def document(results: list[FileAssessment], *, full: bool = True, comparison: Comparison | None = None) -> dict[str, Any]:
    """Every key is always present, so a reader can rely on the shape (`schema_version`)."""
    files = []
    for r, name in zip(results, names_of(results)):
        entry: dict[str, Any] = {
            "file": r.file,
            "name": name,  # what the text and the PDF call it; `file` is the path as given
            "kind": r.kind,
            "sha256": r.sha256,
            "outcome": r.outcome,
            "errors": r.count("error"),
            "warnings": r.count("warning"),
            "info": r.count("info"),
            # What to ask the vendor: one request per error code and wording, with its claims.
            "asks": [a.as_dict() for a in r.asks],
        }
        if full:
            entry["record_version"] = r.record.record_version if r.record else None
            entry["offer"] = {"vendor": r.record.offer.vendor, "offer_id": r.record.offer.offer_id, "date": r.record.offer.date} if r.record else None
            entry["claims"] = [
                {
                    "id": c.id,
                    "kind": c.kind,
                    "text": c.text,
                    "value": c.value,
                    "value_high": c.value_high,
                    "bound": c.bound,
                    # Only for a claim written as a change (record 1.2): as written ("40 % lower"); its computed
                    # figure then has "as_written" too.
                    **({"relative": c.relative, "stated": c.stated} if c.relative is not None else {}),
                    "unit": c.unit,
                    "run": c.run,
                    "baseline": c.baseline,
                    "verdict": c.verdict,
                    "unfavourable": c.unfavourable,
                    "computed": c.computed,
                    "output": c.output,
                    "findings": [{"code": f.code, "severity": f.severity, "path": f.pointer} for f in c.findings],
                    # Only for a claim whose run states its uncertainty (record 1.3): the figure's measured interval.
                    **({"interval": c.interval} if c.interval is not None else {}),
                }
                for c in r.claims
            ]
            entry["runs"] = [_run_entry(r, run_id, m) for run_id, m in r.metrics.items()]
        files.append(entry)
    every = [f.as_dict(r.file) for r in results for f in r.findings]
    errors = sum(r.count("error") for r in results)
    doc: dict[str, Any] = {
        "schema_version": ASSESSMENT_SCHEMA_VERSION,
        "tool": {"name": "sdeval", "version": __version__, "rule_catalog_version": RULE_CATALOG_VERSION},
        "record_version": RECORD_VERSION,
        "outcome": "established" if all(r.outcome in ("established", "valid-profile", "valid-configuration") for r in results) else "not-established",
        "files": files,
        "findings": every,
        "summary": {
            "files": len(results),
            "errors": errors,
            "warnings": sum(r.count("warning") for r in results),
            "info": sum(r.count("info") for r in results),
        },
    }
    if comparison is not None:
        doc["requirements"] = comparison.as_dict()
    return doc
