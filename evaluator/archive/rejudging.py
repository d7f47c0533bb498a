"""Judging again and withdrawing: `archive rejudge` (every archived report's inputs assessed with
the installed rule catalog, differences reported, nothing changed) and `archive withdraw` (a
report marked withdrawn in the index and the log; its file and row stay)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .common import ArchiveProblem, log_quietly, now_text, resolve, selected
from .finding import report_summary
from .location import Archive
from .log import current_user
from .store import Store, StoreProblem

# ---------------------------------------------------------------------------- rejudge


@dataclass
class Rejudged:
    id: int
    sha256: str
    vendor: str | None
    offer_id: str | None
    catalog_before: str | None
    catalog_after: str
    outcome_before: str | None = None
    outcome_after: str | None = None
    requirements_before: str | None = None
    requirements_after: str | None = None
    claims: list[Any] = field(default_factory=list)  # reassess.ClaimChange
    problem: str | None = None

    @property
    def verdicts_change(self) -> bool:
        return (
            any(c.verdict_changed for c in self.claims)
            or self.outcome_before != self.outcome_after
            or self.requirements_before != self.requirements_after
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "sha256": self.sha256,
            "vendor": self.vendor,
            "offer_id": self.offer_id,
            "catalog_before": self.catalog_before,
            "catalog_after": self.catalog_after,
            "outcome_before": self.outcome_before,
            "outcome_after": self.outcome_after,
            "requirements_before": self.requirements_before,
            "requirements_after": self.requirements_after,
            "verdicts_change": self.verdicts_change,
            "claims": [c.as_dict() for c in self.claims],
            "problem": self.problem,
        }


def rejudge(archive: Archive, idents: list[str], *, workers: int | None = None) -> tuple[list[Rejudged], str, str | None]:
    """Every archived report's inputs assessed with the installed catalog; (the reports whose
    verdicts or findings would differ, or which could not be re-assessed; a summary; a note)."""
    from functools import partial

    from .._infra.forking import map_across_cores
    from ..rules import RULE_CATALOG_VERSION

    rows = selected(archive, idents)
    with archive.index.reading() as conn:
        details = archive.index.details(conn, [r.id for r in rows])
    jobs = [
        (
            r.id,
            r.sha256,
            str(archive.root),
            r.stored_as,
            r.catalog,
            report_summary(r, details[r.id])["vendor"],
            report_summary(r, details[r.id])["offer_id"],
        )
        for r in rows
    ]
    results = map_across_cores(partial(_rejudge_one, catalog=RULE_CATALOG_VERSION), jobs, workers=workers, label="re-judging")
    differing = [r for r in results if r.problem or r.claims or r.verdicts_change]
    changed = sum(1 for r in differing if r.verdicts_change)
    problems = sum(1 for r in differing if r.problem)
    summary = (
        f"rejudged {len(results)} report{'s' * (len(results) != 1)} with rule catalog {RULE_CATALOG_VERSION}: "
        f"{changed} would change verdicts, {len(differing) - changed - problems} differ only in findings, "
        f"{len(results) - len(differing)} unchanged" + (f", {problems} could not be re-assessed" if problems else "")
    )
    note = log_quietly(
        archive,
        "rejudge",
        {
            "catalog": RULE_CATALOG_VERSION,
            "reports": len(results),
            "changed": [r.id for r in differing if r.verdicts_change],
            "problems": [r.id for r in differing if r.problem],
            "summary": summary,
        },
    )
    return differing, summary, note


def _rejudge_one(job: tuple, catalog: str) -> Rejudged:
    from ..report.container import MANIFEST_NAME
    from .reassess import CannotReassess, assess_again, claim_changes, requirements_outcome
    from .verification import read_attachments

    report_id, sha256, root, stored_as, catalog_before, vendor, offer_id = job
    result = Rejudged(report_id, sha256, vendor, offer_id, catalog_before, catalog)
    try:
        data = Store(Path(root)).read_admitted(stored_as, sha256)
    except StoreProblem as exc:
        result.problem = f"{stored_as}: {exc}"
        return result
    attached = read_attachments(data)
    try:
        manifest = json.loads(attached[MANIFEST_NAME])
        before = json.loads(attached[manifest["assessment"]["attachment"]])
        after = assess_again(manifest, attached)
    except (KeyError, ValueError, TypeError, CannotReassess) as exc:
        result.problem = f"cannot be re-assessed: {exc}"
        return result
    result.outcome_before, result.outcome_after = before.get("outcome"), after.get("outcome")
    result.requirements_before, result.requirements_after = requirements_outcome(before), requirements_outcome(after)
    result.claims = claim_changes(before, after)
    return result


# ---------------------------------------------------------------------------- withdraw


def withdraw(archive: Archive, ident: str, reason: str) -> str:
    """Mark a report withdrawn in the index and the log; its file and row stay."""
    reason = " ".join(reason.split())
    if not reason:
        raise ArchiveProblem("--reason: say why the report is withdrawn")
    if not reason.isprintable():  # it is printed by list, show, verify and log for years
        raise ArchiveProblem("--reason: control characters are not allowed")
    if archive.index.read_only or not archive.store.writable():
        raise ArchiveProblem(f"{archive.root}: the archive is read-only here; nothing can be withdrawn")
    with archive.writing() as w:
        row = resolve(archive, w.conn, ident)
        earlier = archive.index.withdrawal(w.conn, row.id)
        if earlier is not None:
            raise ArchiveProblem(f"report {row.id}: already withdrawn on {earlier.time} by {earlier.user_name} ({earlier.reason})")
        when, user = now_text(), current_user()
        summary = f"withdrew report {row.id}: {reason}"
        seq = w.append(
            time=when, user=user, action="withdraw", detail={"report_id": row.id, "sha256": row.sha256, "reason": reason, "summary": summary}
        )
        archive.index.withdraw(w.conn, row.id, time=when, user=user, reason=reason, log_seq=seq)
    return f"report {row.id} withdrawn (log entry {seq}): {reason}; it stays stored, listed and verifiable"
