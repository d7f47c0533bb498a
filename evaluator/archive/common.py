"""What every archive command shares: its one error, its times, opening the archive, resolving a
report's number or hash, and logging a command that only reads.

Every command that acts on reports writes one entry in the action log (verify and rejudge too,
since what was checked when is what an auditor is asked about)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from . import location
from .index import IndexProblem
from .location import Archive, NotAnArchive
from .log import LogFileProblem, current_user


class ArchiveProblem(Exception):
    """The command cannot run (exit 2, one line)."""


def now_text() -> str:
    """Admission and log times: UTC with microseconds, fixed width, so text order is time order."""
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")


def utc_text(value: str) -> str:
    """A report's assessment time (or a --since/--until bound) in the one form the index compares:
    YYYY-MM-DDTHH:MM:SS+00:00. A date alone is midnight UTC; a time without a zone is UTC."""
    try:
        when = dt.datetime.fromisoformat(value.strip())
    except ValueError:
        raise ArchiveProblem(f"{value!r}: not a date (YYYY-MM-DD) or ISO 8601 time") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return when.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def until_bound(value: str) -> str:
    """--until is inclusive: a date means up to the end of that day."""
    bound = utc_text(value)
    if len(value.strip()) == 10:  # a date: the next midnight
        day = dt.datetime.fromisoformat(bound) + dt.timedelta(days=1)
        return day.strftime("%Y-%m-%dT%H:%M:%S+00:00")
    return (dt.datetime.fromisoformat(bound) + dt.timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def open_existing(root: Path | None, db: str | None) -> Archive:
    if root is None:
        raise ArchiveProblem("give the archive folder: --archive DIR (or set SDEVAL_ARCHIVE)")
    try:
        return location.open_archive(root, db)
    except (NotAnArchive, IndexProblem) as exc:
        raise ArchiveProblem(str(exc)) from None


def resolve(archive: Archive, conn, ident: str) -> Any:
    try:
        return archive.index.resolve(conn, ident)
    except IndexProblem as exc:
        raise ArchiveProblem(str(exc)) from None


def selected(archive: Archive, idents: list[str]) -> list[Any]:
    with archive.index.reading() as conn:
        if not idents:
            return archive.index.all_reports(conn)
        rows = [resolve(archive, conn, i) for i in idents]
    return list({r.id: r for r in rows}.values())


def anchor_paths(archive: Archive) -> list[Path]:
    with archive.index.reading() as conn:
        return [archive.root / row.file for row in archive.index.anchors(conn)]


def withdrawal_of(detail: dict[str, list[Any]]) -> dict[str, Any] | None:
    w = detail["withdrawn"][0] if detail["withdrawn"] else None
    return {"time": w.time, "by": w.user_name, "reason": w.reason, "log_entry": w.log_seq} if w else None


def log_quietly(archive: Archive, action: str, detail: dict[str, Any], verified: list[tuple[int, bool, str]] | None = None) -> str | None:
    """Log a read-only command (and, for verify, each report's result as its last verification);
    on an archive this user cannot write, say so instead."""
    if archive.index.read_only:
        return f"note: the archive's index is read-only here, so this {action} was not logged"
    if not archive.store.writable():
        return f"note: the archive folder is read-only here, so this {action} was not logged"
    try:
        with archive.writing() as w:
            when = now_text()
            w.append(time=when, user=current_user(), action=action, detail=detail)
            if verified is not None:
                archive.index.record_verifications(w.conn, when, verified)
    except (IndexProblem, LogFileProblem) as exc:
        return f"note: this {action} was not logged ({exc})"
    return None
