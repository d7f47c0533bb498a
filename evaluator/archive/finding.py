"""Finding and showing: `archive list`, `archive show`, `archive extract` and `archive log` (all
read-only)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .common import ArchiveProblem, resolve, withdrawal_of
from .index import Filters, codes_of
from .location import Archive
from .store import StoreProblem
from .verifying import log_problems

# ---------------------------------------------------------------------------- list / show / extract


def report_summary(row: Any, detail: dict[str, list[Any]]) -> dict[str, Any]:
    offers = detail["offers"]

    def joined(key: str) -> str | None:
        values = [getattr(o, key) for o in offers]
        return "; ".join(str(v) for v in values) if values and any(v is not None for v in values) else None

    return {
        "id": row.id,
        "sha256": row.sha256,
        "vendor": joined("vendor"),
        "offer_id": joined("offer_id"),
        "offer_date": joined("offer_date"),
        "outcome": row.outcome,
        "requirements_outcome": row.requirements_outcome,
        "signer": row.signer,
        "fingerprint_sha256": row.fingerprint_sha256,
        "catalog": row.catalog,
        "sdeval_version": row.sdeval_version,
        "assessed_at": row.assessed_at,
        "admitted_at": row.admitted_at,
        "admitted_by": row.admitted_by,
        "timestamp_time": row.timestamp_time,
        "source_name": row.source_name,
        "withdrawn": withdrawal_of(detail),
        "last_verification": (
            {"time": detail["verified"][0].time, "result": detail["verified"][0].result, "reason": detail["verified"][0].reason}
            if detail["verified"]
            else None
        ),
        "offers": [{"file": o.file, "vendor": o.vendor, "offer_id": o.offer_id, "offer_date": o.offer_date, "outcome": o.outcome} for o in offers],
    }


def list_reports(archive: Archive, filters: Filters) -> list[dict[str, Any]]:
    with archive.index.reading() as conn:
        rows = archive.index.query(conn, filters)
        details = archive.index.details(conn, [r.id for r in rows])
    return [report_summary(r, details[r.id]) for r in rows]


def show(archive: Archive, ident: str) -> dict[str, Any]:
    with archive.index.reading() as conn:
        row = resolve(archive, conn, ident)
        detail = archive.index.details(conn, [row.id])[row.id]
    out = report_summary(row, detail)
    out.update(
        {
            "size": row.size,
            "stored_as": row.stored_as,
            "signer_subject": row.signer_subject,
            "timestamp_authority": row.timestamp_authority,
            "timestamp_authority_fingerprint": row.timestamp_authority_fingerprint,
            "log_entry": row.log_seq,
            "claims": [
                {
                    "file": detail["offers"][c.position].file if c.position < len(detail["offers"]) else None,
                    "id": c.claim_id,
                    "kind": c.kind,
                    "verdict": c.verdict,
                    "codes": codes_of(c),
                }
                for c in detail["claims"]
            ],
            "inputs": [{"attachment": i.attachment, "file": i.file, "role": i.role, "sha256": i.sha256} for i in detail["inputs"]],
            "checks_at_admission": json.loads(row.checks),
        }
    )
    return out


def extract(archive: Archive, ident: str, out_dir: Path, *, force: bool) -> list[Path]:
    """The stored report (under the name it was added with) and its attachments, into out_dir."""
    from .._infra.atomic import OutputRefused, write_atomic
    from .verification import read_attachments

    with archive.index.reading() as conn:
        row = resolve(archive, conn, ident)
    data = _stored_bytes(archive, row)
    files = {_safe_name(row.source_name, f"report-{row.id}.pdf"): data}
    for name, content in read_attachments(data).items():
        files.setdefault(_safe_name(name, "attachment"), content)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ArchiveProblem(f"{out_dir}: cannot create ({exc.strerror or exc})") from None
    existing = [name for name in files if (out_dir / name).exists()]
    if existing and not force:
        raise ArchiveProblem(f"{out_dir / existing[0]}: already exists; pass --force to replace it")
    written = []
    for name, content in files.items():
        try:
            write_atomic(out_dir / name, content, force=force)
        except (OutputRefused, OSError) as exc:
            raise ArchiveProblem(str(exc)) from None
        written.append(out_dir / name)
    return written


def _safe_name(name: str, fallback: str) -> str:
    base = os.path.basename(name.replace("\\", "/"))
    return base if base not in ("", ".", "..") and not base.startswith(".") else fallback


def _stored_bytes(archive: Archive, row: Any) -> bytes:
    """The stored file, only if it is still the one admitted."""
    try:
        return archive.store.read_admitted(row.stored_as, row.sha256)
    except StoreProblem as exc:
        raise ArchiveProblem(f"report {row.id}: {row.stored_as}: {exc}") from None


# ---------------------------------------------------------------------------- log


def log_entries(archive: Archive) -> tuple[list[Any], list[str]]:
    """The log in order, and every break in its chain or difference from log.jsonl."""
    with archive.index.reading() as conn:
        entries = archive.index.log_entries(conn)
    return entries, log_problems(archive, entries)
