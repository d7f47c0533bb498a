"""Admitting reports: `archive init` (the archive and its trust anchors) and `archive add` (each
report verified in full, then stored and indexed, or refused with its reason; every outcome logged)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._infra.exit_codes import EXIT_CANNOT_RUN, EXIT_OK
from ..engine.wording import offer_names
from . import location
from .common import ArchiveProblem, anchor_paths, now_text
from .facts import indexed_facts
from .faults import step
from .index import Index
from .location import ARCHIVE_FILE, SQLITE_FILE, Archive
from .log import current_user
from .store import Staged, Store, StoreProblem, write_read_only

MAX_REPORT_BYTES = 200 * 1024 * 1024  # as `sdeval verify` accepts


# ---------------------------------------------------------------------------- init


@dataclass
class InitResult:
    messages: list[str]
    changed: bool
    exit_code: int = EXIT_OK
    head: tuple[int, str] | None = None


def init(root: Path, db: str | None, trust: list[Path], *, add_trust: bool) -> InitResult:
    """Create the archive with its trust anchors; on an existing archive, change nothing unless
    `add_trust` (then add the anchors it lacks)."""
    from .verification import fingerprint, load_certificates

    certificates: list[tuple[Path, bytes]] = []
    for path in trust:
        try:
            certificates += [(path, der) for der in load_certificates(path)]
        except OSError as exc:
            raise ArchiveProblem(f"{path}: cannot read ({exc.strerror or exc}) (--trust)") from None
        except ValueError as exc:  # already names the file and the option
            raise ArchiveProblem(str(exc)) from None
    wanted = {fingerprint(der): (path, der) for path, der in certificates}
    if (root / ARCHIVE_FILE).exists():
        archive = location.open_archive(root, db)
        try:
            result = _init_existing(archive, wanted, add_trust)
            result.head = archive.head
            return result
        finally:
            archive.close()
    if not trust:
        raise ArchiveProblem("give the archive's trust anchors: --trust CERT.pem (signers' and time-stamping authorities' roots)")
    if root.exists() and not root.is_dir():
        raise ArchiveProblem(f"{root}: exists and is not a folder")
    if root.is_dir() and any((root / "objects").glob("*/*.pdf")):
        raise ArchiveProblem(
            f"{root}: holds stored reports (objects/) but no {ARCHIVE_FILE}; restore {ARCHIVE_FILE} from a backup "
            "and run `sdeval archive rebuild`, rather than starting an empty archive over them"
        )
    ours = {"anchors", "objects", "tmp", location.LOG_FILE, SQLITE_FILE, f"{SQLITE_FILE}-wal", f"{SQLITE_FILE}-shm", f"{SQLITE_FILE}-journal"}
    if root.exists() and any(p.name not in ours for p in root.iterdir()):
        raise ArchiveProblem(f"{root}: exists and holds other files; give a new or empty folder")
    if not root.parent.is_dir():
        raise ArchiveProblem(f"{root}: its parent folder {root.parent} does not exist")
    store = Store(root)
    try:
        store.create()
    except OSError as exc:
        raise ArchiveProblem(f"{root}: cannot create ({exc.strerror or exc})") from None
    index = Index(location.index_url(root, db, None, read_only=False))
    try:
        when, user = now_text(), current_user()
        archive_id, created = index.initialize(secrets.token_hex(16), when)
        # An index already in the folder was made by an init interrupted before archive.json: carry
        # on with it. A database is another matter: it may be another archive's.
        if not created and db is not None:
            raise ArchiveProblem(f"{index.shown}: already holds an archive index (id {archive_id}); give an empty database")
        archive = Archive(root, archive_id, store, index)
        added = _add_anchors(archive, wanted, when, user, action="init", extra={"index": index.backend})
        # archive.json last: its presence says the archive is complete.
        write_read_only(root / ARCHIVE_FILE, location.describe(root, archive_id, db))
    except OSError as exc:
        raise ArchiveProblem(f"{root}: cannot write ({exc.strerror or exc})") from None
    finally:
        index.close()
    where = "SQLite index in the folder" if db is None else f"index in {index.shown}"
    return InitResult([f"created archive {root} ({where}) with {len(added)} trust anchor{'s' * (len(added) != 1)}", *added], True, head=archive.head)


def _init_existing(archive: Archive, wanted: dict[str, tuple[Path, bytes]], add_trust: bool) -> InitResult:
    with archive.index.reading() as conn:
        have = {row.fingerprint_sha256 for row in archive.index.anchors(conn)}
    new = {fpr: v for fpr, v in wanted.items() if fpr not in have}
    if not new:
        return InitResult([f"{archive.root}: already an archive with {len(have)} trust anchor{'s' * (len(have) != 1)}; nothing changed"], False)
    if not add_trust:
        names = ", ".join(sorted({str(path) for path, _ in new.values()}))
        return InitResult(
            [f"{archive.root}: already an archive; nothing changed ({names}: not among its trust anchors; pass --add-trust to add)"],
            False,
            exit_code=EXIT_CANNOT_RUN,
        )
    added = _add_anchors(archive, new, now_text(), current_user(), action="trust", extra={})
    return InitResult([f"{archive.root}: added {len(added)} trust anchor{'s' * (len(added) != 1)}", *added], True)


def _add_anchors(archive: Archive, wanted: dict[str, tuple[Path, bytes]], when: str, user: str, *, action: str, extra: dict) -> list[str]:
    import base64

    from .verification import certificate_subject

    lines, rows = [], []
    for fpr, (path, der) in wanted.items():
        relative = f"anchors/{fpr}.pem"
        target = archive.root / relative
        if not target.exists():
            body = base64.encodebytes(der).decode().replace("\n", "")
            pem = "-----BEGIN CERTIFICATE-----\n" + "\n".join(body[i : i + 64] for i in range(0, len(body), 64)) + "\n-----END CERTIFICATE-----\n"
            write_read_only(target, pem.encode())
        subject = certificate_subject(der)
        rows.append({"fingerprint_sha256": fpr, "subject": subject, "file": relative, "added_at": when, "added_by": user})
        lines.append(f"  anchor {subject} (SHA-256 {fpr}) from {path}")
    with archive.writing() as w:
        have = {row.fingerprint_sha256 for row in archive.index.anchors(w.conn)}
        for row in rows:
            if row["fingerprint_sha256"] not in have:
                archive.index.add_anchor(w.conn, **row)
        w.append(
            time=when,
            user=user,
            action=action,
            detail={**extra, "anchors": [r["fingerprint_sha256"] for r in rows], "summary": f"{len(rows)} trust anchor(s) recorded"},
        )
    return lines


# ---------------------------------------------------------------------------- add


@dataclass
class Added:
    source: str
    status: str  # admitted | duplicate | refused
    message: str
    report_id: int | None = None
    sha256: str | None = None


def add(archive: Archive, sources: list[Path], *, strict: bool) -> tuple[list[Added], list[str]]:
    """Verify each report in full and admit those that pass; (one result per source, notes)."""
    from .verification import verify_many

    if archive.index.read_only or not archive.store.writable():
        raise ArchiveProblem(f"{archive.root}: the archive is read-only here; nothing can be added")
    notes = recover(archive)
    anchors = anchor_paths(archive)
    user = current_user()
    results: list[Added | None] = [None] * len(sources)
    staged: list[tuple[int, Staged]] = []
    try:
        for i, source in enumerate(sources):
            try:
                item = archive.store.stage(source, MAX_REPORT_BYTES)
            except StoreProblem as exc:
                results[i] = _refuse(archive, str(source), None, str(exc), user)
                continue
            known = _already(archive, item.sha256)
            earlier = next((s for _, s in staged if s.sha256 == item.sha256), None)
            if known is not None:
                item.drop()
                results[i] = _duplicate(archive, str(source), known, item.sha256, user)
                continue
            if earlier is not None:
                item.drop()  # the same bytes given twice in one command: the first copy decides
            staged.append((i, item))
        step("staged")
        unique = [(i, s) for i, s in staged if s.fd >= 0]
        verdicts = dict(zip([i for i, _ in unique], verify_many([s.part for _, s in unique], anchors, strict=strict)))
        step("verified")
        for i, item in staged:
            if item.fd < 0:
                first = next(r for j, r in enumerate(results) if r is not None and r.sha256 == item.sha256 and j < i)
                if first.report_id is not None:
                    results[i] = _duplicate(archive, str(item.source), first.report_id, item.sha256, user)
                else:
                    results[i] = _refuse(archive, str(item.source), item.sha256, f"the same file as {first.source}, refused above", user)
                continue
            results[i] = _admit(archive, item, verdicts[i], user)
    finally:
        for _, item in staged:
            item.drop()
    return [r for r in results if r is not None], notes


def recover(archive: Archive) -> list[str]:
    """Clear what killed adds left behind (a no-op on an archive this user cannot write)."""
    if not archive.store.writable():
        return []
    return archive.store.recover(lambda sha: _already(archive, sha) is not None)


def _already(archive: Archive, sha256: str) -> int | None:
    with archive.index.reading() as conn:
        row = archive.index.find(conn, sha256)
    return row.id if row is not None else None


def _duplicate(archive: Archive, source: str, report_id: int, sha256: str, user: str) -> Added:
    with archive.writing() as w:
        w.append(
            time=now_text(),
            user=user,
            action="add",
            detail={"source": source, "sha256": sha256, "duplicate_of": report_id, "summary": f"duplicate of report {report_id}: {source}"},
        )
    return Added(source, "duplicate", f"{source}: already archived as report {report_id} (SHA-256 {sha256}); stored once", report_id, sha256)


def _refuse(archive: Archive, source: str, sha256: str | None, reason: str, user: str) -> Added:
    with archive.writing() as w:
        w.append(
            time=now_text(),
            user=user,
            action="refuse",
            detail={"source": source, "sha256": sha256, "reason": reason, "summary": f"refused {source}: {reason}"},
        )
    return Added(source, "refused", f"refused {source}: {reason}", None, sha256)


def _admit(archive: Archive, item: Staged, verified, user: str) -> Added:
    source = str(item.source)
    if not verified.passed:
        # Verification read the staged copy; the auditor knows the file by the name they gave.
        return _refuse(archive, source, item.sha256, verified.reason.replace(str(item.part), source), user)
    try:
        facts = indexed_facts(verified)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return _refuse(archive, source, item.sha256, f"its assessment cannot be indexed ({type(exc).__name__}: {exc})", user)
    with archive.store.report_lock(item.sha256):
        known = _already(archive, item.sha256)
        if known is not None:  # another process admitted the same report meanwhile
            return _duplicate(archive, source, known, item.sha256, user)
        relative = archive.store.place(item)
        step("stored")
        when = now_text()
        row = {
            **facts["report"],
            "sha256": item.sha256,
            "size": item.size,
            "stored_as": relative,
            "source_name": item.source.name,
            "admitted_at": when,
            "admitted_by": user,
        }
        try:
            with archive.writing() as w:
                summary = f"admitted {source}: " + _offer_words(facts["offers"]) + f" ({row['outcome']})"
                last = archive.index.last_entry(w.conn)
                seq = (last.seq if last else 0) + 1
                report_id = archive.index.insert_report(w.conn, {**row, "log_seq": seq}, facts["offers"], facts["claims"], facts["inputs"])
                # The report's number is in its entry, so `archive rebuild` gives it back the same one.
                # Admission is a full verification: the entry says so, and it is the report's last one.
                detail = {"source": source, "sha256": item.sha256, "report_id": report_id, "verified": "passed", "summary": summary}
                logged = w.append(time=when, user=user, action="add", detail=detail)
                assert logged == seq
                archive.index.record_verifications(w.conn, when, [(report_id, True, "passed")])
        except BaseException:
            # The row did not land, so neither does the file: unless the index cannot say (a
            # connection lost at commit), when the lock file left behind lets the next add decide.
            try:
                landed = _already(archive, item.sha256) is not None
            except Exception:
                landed = True
            if not landed:
                archive.store.remove_unindexed(relative)
            raise
        step("indexed")
    return Added(
        source,
        "admitted",
        f"admitted {source} as report {report_id} ({_offer_words(facts['offers'])}; {row['outcome']}; SHA-256 {item.sha256})",
        report_id,
        item.sha256,
    )


def _offer_words(offers: list[dict[str, Any]]) -> str:
    """The offers by the names the report's own pages give them ("vendor, offer id")."""
    return "; ".join(offer_names((o["file"], o["vendor"], o["offer_id"]) for o in offers)) or "no offer"
