"""The archive's commands: init, add, list, show, extract, verify, rejudge, log, withdraw, rebuild.

Each returns plain data (and messages); cli.py prints it. Every command that acts on reports
writes one entry in the action log (verify and rejudge too, since what was checked when is what
an auditor is asked about).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine.wording import offer_names
from . import location
from .index import Filters, Index, IndexProblem, codes_of
from .location import ARCHIVE_FILE, SQLITE_FILE, Archive, NotAnArchive
from .log import LogFileProblem, check_chain, current_user
from .store import Staged, Store, StoreProblem, pause_point, write_read_only

MAX_REPORT_BYTES = 200 * 1024 * 1024  # as `sdeval verify` accepts


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


# ---------------------------------------------------------------------------- init


@dataclass
class InitResult:
    messages: list[str]
    changed: bool
    exit_code: int = 0
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
            exit_code=2,
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


def anchor_paths(archive: Archive) -> list[Path]:
    with archive.index.reading() as conn:
        return [archive.root / row.file for row in archive.index.anchors(conn)]


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
        pause_point("staged")
        unique = [(i, s) for i, s in staged if s.fd >= 0]
        verdicts = dict(zip([i for i, _ in unique], verify_many([s.part for _, s in unique], anchors, strict=strict)))
        pause_point("verified")
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
        pause_point("stored")
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
                logged = w.append(
                    time=when, user=user, action="add", detail={"source": source, "sha256": item.sha256, "report_id": report_id, "summary": summary}
                )
                assert logged == seq
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
        pause_point("indexed")
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


def indexed_facts(verified) -> dict[str, Any]:
    """What the index keeps of a verified report, from its embedded assessment and manifest."""
    from .reassess import requirements_outcome

    doc, manifest = verified.assessment, verified.manifest
    tool = doc.get("tool") or {}
    signer, stamp = verified.signer, verified.timestamp
    report = {
        "assessed_at": utc_text(manifest["assessed_at"]) if manifest.get("assessed_at") else None,
        "outcome": doc.get("outcome"),
        "requirements_outcome": requirements_outcome(doc),
        "catalog": tool.get("rule_catalog_version"),
        "sdeval_version": tool.get("version"),
        "signer": signer.name if signer else None,
        "signer_subject": signer.subject if signer else None,
        "fingerprint_sha256": signer.fingerprint_sha256 if signer else None,
        "timestamp_time": stamp.time if stamp else None,
        "timestamp_authority": stamp.authority if stamp else None,
        "timestamp_authority_fingerprint": stamp.authority_fingerprint_sha256 if stamp else None,
        "checks": json.dumps(verified.checks, ensure_ascii=False),
    }
    offers, claims = [], []
    for position, f in enumerate(doc.get("files") or []):
        offer = f.get("offer") or {}
        offers.append(
            {
                "position": position,
                "file": str(f.get("file")),
                "vendor": offer.get("vendor"),
                "offer_id": offer.get("offer_id"),
                "offer_date": _text(offer.get("date")),
                "outcome": f.get("outcome"),
            }
        )
        for seq, c in enumerate(f.get("claims") or []):
            codes = sorted({str(x["code"]) for x in c.get("findings") or []})
            claims.append(
                {
                    "position": position,
                    "seq": seq,
                    "claim_id": str(c.get("id")),
                    "kind": c.get("kind"),
                    "verdict": c.get("verdict"),
                    "codes": json.dumps(codes),
                }
            )
    inputs = [
        {"attachment": i["attachment"], "file": i["file"], "role": i.get("role", "evidence record"), "sha256": i["sha256"]}
        for i in manifest["inputs"]
    ]
    inputs.append(
        {
            "attachment": manifest["assessment"]["attachment"],
            "file": manifest["assessment"]["attachment"],
            "role": "assessment",
            "sha256": manifest["assessment"]["sha256"],
        }
    )
    return {"report": report, "offers": offers, "claims": claims, "inputs": inputs}


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


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
        row = _resolve(archive, conn, ident)
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


def _resolve(archive: Archive, conn, ident: str) -> Any:
    try:
        return archive.index.resolve(conn, ident)
    except IndexProblem as exc:
        raise ArchiveProblem(str(exc)) from None


def extract(archive: Archive, ident: str, out_dir: Path, *, force: bool) -> list[Path]:
    """The stored report (under the name it was added with) and its attachments, into out_dir."""
    from .._infra.atomic import OutputRefused, write_atomic
    from .verification import read_attachments

    with archive.index.reading() as conn:
        row = _resolve(archive, conn, ident)
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
    import hashlib

    try:
        data = archive.store.read(row.stored_as)
    except StoreProblem as exc:
        raise ArchiveProblem(f"report {row.id}: {row.stored_as}: {exc}") from None
    actual = hashlib.sha256(data).hexdigest()
    if actual != row.sha256:
        raise ArchiveProblem(f"report {row.id}: {row.stored_as}: changed (SHA-256 {actual}, the index says {row.sha256})")
    return data


# ---------------------------------------------------------------------------- verify


@dataclass
class Checked:
    id: int
    sha256: str
    stored_as: str
    passed: bool
    reason: str  # one line: what is wrong with it ("passed" when nothing is)
    problem: str | None = None  # the stored file is missing, changed or unreadable, or not a report
    checks: list[dict[str, Any]] = field(default_factory=list)
    withdrawn: dict[str, Any] | None = None  # {time, by, reason} when the report was withdrawn

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "sha256": self.sha256,
            "stored_as": self.stored_as,
            "passed": self.passed,
            "problem": self.problem,
            "reason": None if self.passed else self.reason,
            "checks": self.checks,
            "withdrawn": self.withdrawn,
        }


def selected(archive: Archive, idents: list[str]) -> list[Any]:
    with archive.index.reading() as conn:
        if not idents:
            return archive.index.all_reports(conn)
        rows = [_resolve(archive, conn, i) for i in idents]
    return list({r.id: r for r in rows}.values())


def verify(archive: Archive, idents: list[str], *, strict: bool, workers: int | None = None) -> tuple[list[Checked], list[str], str | None]:
    """Each stored file's hash against the index, then the full verification across the cores,
    then every indexed fact against the verified report; with no ids also the stored files the
    index lacks, and always the log against log.jsonl. (results, archive-wide problems, a note
    when the run could not be logged)."""
    from .verification import verify_many

    rows = selected(archive, idents)
    anchors = anchor_paths(archive)
    with archive.index.reading() as conn:
        details = archive.index.details(conn, [r.id for r in rows])
    results: dict[int, Checked] = {}
    intact = []
    for row in rows:
        try:
            actual = archive.store.sha256_of(row.stored_as)
        except StoreProblem as exc:
            results[row.id] = Checked(row.id, row.sha256, row.stored_as, False, str(exc), str(exc))
            continue
        if actual != row.sha256:
            changed = f"changed (SHA-256 {actual}, the index says {row.sha256})"
            results[row.id] = Checked(row.id, row.sha256, row.stored_as, False, changed, changed)
            continue
        intact.append(row)
    outcomes = verify_many([archive.store.path_of(r.stored_as) for r in intact], anchors, strict=strict, workers=workers)
    for row, outcome in zip(intact, outcomes):
        passed, reason = outcome.passed, outcome.reason
        if passed:
            differences = index_differences(row, details[row.id], outcome)
            if differences:
                passed, reason = False, "the index differs from the report: " + "; ".join(differences)
        results[row.id] = Checked(row.id, row.sha256, row.stored_as, passed, reason, outcome.problem, outcome.checks)
    ordered = [results[r.id] for r in rows]
    for c in ordered:
        c.withdrawn = withdrawal_of(details[c.id])
    problems = [f"log: {p}" for p in log_problems(archive)]
    if not idents:
        problems += [
            f"{relative}: stored, but the index has no report for it (its row was removed, or an older index restored)"
            for relative in unindexed(archive, [r.stored_as for r in rows])
        ]
    failed = [c.id for c in ordered if not c.passed]
    summary = verify_summary(ordered, problems)
    note = _log_quietly(
        archive,
        "verify",
        {"reports": len(ordered), "failed": failed, "strict": strict, "problems": problems, "summary": summary},
        verified=[(c.id, c.passed, c.reason) for c in ordered],
    )
    return ordered, problems, note


def verify_summary(checked: list[Checked], problems: list[str]) -> str:
    failed = sum(not c.passed for c in checked)
    withdrawn = sum(c.withdrawn is not None for c in checked)
    return (
        f"verified {len(checked)} report{'s' * (len(checked) != 1)}: {len(checked) - failed} passed, {failed} failed"
        + (f" ({withdrawn} withdrawn)" if withdrawn else "")
        + (f"; {len(problems)} archive problem{'s' * (len(problems) != 1)}" if problems else "")
    )


def withdrawal_of(detail: dict[str, list[Any]]) -> dict[str, Any] | None:
    w = detail["withdrawn"][0] if detail["withdrawn"] else None
    return {"time": w.time, "by": w.user_name, "reason": w.reason, "log_entry": w.log_seq} if w else None


# The report-level columns the index fills from a verified report (commands.indexed_facts).
REPORT_FIELDS = (
    "assessed_at",
    "outcome",
    "requirements_outcome",
    "catalog",
    "sdeval_version",
    "signer",
    "signer_subject",
    "fingerprint_sha256",
    "timestamp_time",
    "timestamp_authority",
    "timestamp_authority_fingerprint",
)


def index_differences(row: Any, detail: dict[str, list[Any]], verified) -> list[str]:
    """Every indexed fact that is not what the verified report says, naming the field and both values."""
    try:
        facts = indexed_facts(verified)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return [f"its assessment cannot be indexed ({type(exc).__name__}: {exc})"]
    out = []

    def differ(name: str, indexed: Any, reported: Any) -> None:
        if indexed != reported:
            out.append(f"{name}: the index says {json.dumps(indexed, ensure_ascii=False)}, the report {json.dumps(reported, ensure_ascii=False)}")

    for key in REPORT_FIELDS:
        differ(key, getattr(row, key), facts["report"][key])
    differ("number of offers", len(detail["offers"]), len(facts["offers"]))
    for o_row, o in zip(detail["offers"], facts["offers"]):
        for key in ("file", "vendor", "offer_id", "offer_date", "outcome"):
            differ(f"offer {o['position'] + 1} {key}", getattr(o_row, key), o[key])
    differ("number of claims", len(detail["claims"]), len(facts["claims"]))
    for c_row, c in zip(detail["claims"], facts["claims"]):
        name = f"offer {c['position'] + 1} claim {c['claim_id']}"
        differ(f"{name} position", [c_row.position, c_row.seq], [c["position"], c["seq"]])
        for key in ("claim_id", "kind", "verdict"):
            differ(f"{name} {key}", getattr(c_row, key), c[key])
        differ(f"{name} codes", codes_of(c_row), json.loads(c["codes"]))
    indexed_inputs = {i.attachment: i for i in detail["inputs"]}
    reported_inputs = {i["attachment"]: i for i in facts["inputs"]}
    differ("attachments", sorted(indexed_inputs), sorted(reported_inputs))
    for name in sorted(set(indexed_inputs) & set(reported_inputs)):
        for key in ("file", "role", "sha256"):
            differ(f"attachment {name} {key}", getattr(indexed_inputs[name], key), reported_inputs[name][key])
    return out


def unindexed(archive: Archive, indexed: list[str]) -> list[str]:
    """objects/ files no report row names."""
    known = set(indexed)
    try:
        stored = sorted(str(p.relative_to(archive.root)) for p in archive.store.objects.glob("*/*.pdf"))
    except OSError:
        return []
    return [relative for relative in stored if relative not in known]


def _log_quietly(archive: Archive, action: str, detail: dict[str, Any], verified: list[tuple[int, bool, str]] | None = None) -> str | None:
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
        row = _resolve(archive, w.conn, ident)
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


# ---------------------------------------------------------------------------- rebuild


@dataclass
class Rebuilt:
    lines: list[str]
    exit_code: int
    head: tuple[int, str] | None


def rebuild(root: Path, db: str | None, *, workers: int | None = None) -> Rebuilt:
    """A new index for an archive whose index is gone, from log.jsonl (anchors, admissions with
    their numbers, times and users, withdrawals) and objects/ (each report verified again)."""
    from . import log as action_log
    from .verification import certificate_subject, load_certificates, verify_many

    doc = location.read_description(root)
    store = Store(root)
    url = location.index_url(root, db, doc.get("index"), read_only=False)
    log_file = root / location.LOG_FILE
    try:
        kept = action_log.read_file(log_file)
    except action_log.LogFileProblem as exc:
        raise ArchiveProblem(f"{exc}; the index cannot be rebuilt without it") from None
    broken = check_chain(kept)
    if broken:
        raise ArchiveProblem(f"{log_file}: {broken[0]}; the index cannot be rebuilt from it")
    index = Index(url)
    try:
        with index.reading() as conn:
            # An index with tables but no log is one an interrupted rebuild created: carry on with it.
            if index.version(conn) is not None and index.last_entry(conn) is not None:
                raise ArchiveProblem(
                    f"{index.shown}: already holds an archive index; rebuild re-creates a missing one only (move this one aside first)"
                )
        lines, problems = [], []
        # Anchors: each file checked against its name, recorded as the log says it was added.
        added: dict[str, Any] = {}
        for e in kept:
            d = json.loads(e.detail)
            if e.action in ("init", "trust"):
                for fpr in d.get("anchors") or []:
                    added.setdefault(fpr, e)
        anchor_rows = []
        for fpr, e in added.items():
            path = root / f"anchors/{fpr}.pem"
            problem = location.anchor_problem(root, f"anchors/{fpr}.pem", fpr, f"log entry {e.seq} record")
            if problem:
                raise ArchiveProblem(problem)
            anchor_rows.append(
                {
                    "fingerprint_sha256": fpr,
                    "subject": certificate_subject(load_certificates(path)[0]),
                    "file": f"anchors/{fpr}.pem",
                    "added_at": e.time,
                    "added_by": e.user,
                }
            )
        # Admissions as logged, and the stored files no admission names (recovered after them).
        admissions, withdrawals, seen = [], [], set()
        for e in kept:
            d = json.loads(e.detail)
            if e.action == "add" and d.get("sha256") and "duplicate_of" not in d and d["sha256"] not in seen:
                seen.add(d["sha256"])
                admissions.append((e, d))
            elif e.action == "withdraw":
                withdrawals.append((e, d))
        unlogged = [p for p in sorted(store.objects.glob("*/*.pdf")) if p.stem not in seen]
        # (stored file, its add entry and detail; None and None for a file no entry logged)
        candidates: list[tuple[str, Any, Any]] = [(store.relative(d["sha256"]), e, d) for e, d in admissions] + [
            (str(p.relative_to(root)), None, None) for p in unlogged
        ]
        present = []
        for rel, e, d in candidates:
            try:
                actual = store.sha256_of(rel)
            except StoreProblem as exc:
                whose = f"report {d.get('report_id', '?')} (log entry {e.seq}, {d.get('source')}): its stored file {rel}" if e else rel
                problems.append(f"{whose} is {exc}")
                continue
            if actual != Path(rel).stem:
                problems.append(f"{rel}: left out, its SHA-256 is {actual}, not the one its name says")
                continue
            present.append((rel, e, d))
        outcomes = verify_many([root / rel for rel, _, _ in present], [root / r["file"] for r in anchor_rows], strict=False, workers=workers)
        when, user = now_text(), current_user()
        recovered, verified_rows = [], []
        rebuild_seq = (kept[-1].seq if kept else 0) + 1
        archive_id, _ = index.initialize(doc["archive_id"], kept[0].time if kept else now_text())
        archive = Archive(root, archive_id, store, index, doc)
        with archive.writing(copying=kept) as w:
            for row in anchor_rows:
                index.add_anchor(w.conn, **row)
            next_id = max([int(d["report_id"]) for _, d in admissions if isinstance(d.get("report_id"), int)] + [0]) + 1
            numbered = []
            for (rel, e, d), outcome in zip(present, outcomes):
                if not outcome.passed:
                    problems.append(f"{rel}: left out, it does not verify ({outcome.reason})")
                    continue
                report_id = d.get("report_id") if d and isinstance(d.get("report_id"), int) else None
                numbered.append((report_id, rel, e, d, outcome))
            for report_id, rel, e, d, outcome in numbered:
                if report_id is None:
                    report_id, next_id = next_id, next_id + 1
                facts = indexed_facts(outcome)
                data_size = (root / rel).stat().st_size
                sha = Path(rel).stem
                row = {
                    **facts["report"],
                    "id": report_id,
                    "sha256": sha,
                    "size": data_size,
                    "stored_as": rel,
                    "source_name": os.path.basename(str(d["source"])) if d else Path(rel).name,
                    "admitted_at": e.time if e else when,
                    "admitted_by": e.user if e else user,
                    "log_seq": e.seq if e else rebuild_seq,
                }  # recovered without one: the rebuild's entry
                index.insert_report(w.conn, row, facts["offers"], facts["claims"], facts["inputs"])
                recovered.append((report_id, e is None))
                verified_rows.append((report_id, True, "passed"))
            index.set_next_id(w.conn)
            ids = {r for r, _ in recovered}
            withdrawn = 0
            for e, d in withdrawals:
                if d.get("report_id") in ids:
                    index.withdraw(w.conn, d["report_id"], time=e.time, user=e.user, reason=str(d.get("reason")), log_seq=e.seq)
                    withdrawn += 1
            summary = (
                f"rebuilt the index from {location.LOG_FILE} ({len(kept)} entries) and objects/: "
                f"{len(recovered)} report{'s' * (len(recovered) != 1)} recovered"
                + (f", {withdrawn} of them withdrawn" if withdrawn else "")
                + (f", {sum(u for _, u in recovered)} with no admission in the log" if any(u for _, u in recovered) else "")
                + (f", {len(problems)} problem{'s' * (len(problems) != 1)}" if problems else "")
            )
            seq = w.append(time=when, user=user, action="rebuild", detail={"recovered": sorted(ids), "problems": problems, "summary": summary})
            assert seq == rebuild_seq
            index.record_verifications(w.conn, when, verified_rows)
        lines.append(summary)
        for report_id, unlogged_one in sorted(recovered):
            lines.append(f"  report {report_id}" + (": stored with no admission in the log; recovered with a new number" if unlogged_one else ""))
        lines += [f"sdeval: {p}" for p in problems]
        return Rebuilt(lines, 1 if problems else 0, archive.head)
    finally:
        index.close()


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
            str(archive.store.path_of(r.stored_as)),
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
    note = _log_quietly(
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
    import hashlib

    from ..report.container import MANIFEST_NAME
    from .reassess import CannotReassess, assess_again, claim_changes, requirements_outcome
    from .verification import read_attachments

    report_id, sha256, path, stored_as, catalog_before, vendor, offer_id = job
    result = Rejudged(report_id, sha256, vendor, offer_id, catalog_before, catalog)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        result.problem = f"{stored_as}: {'missing' if isinstance(exc, FileNotFoundError) else f'unreadable ({exc.strerror})'}"
        return result
    if (actual := hashlib.sha256(data).hexdigest()) != sha256:
        result.problem = f"{stored_as}: changed (SHA-256 {actual}, the index says {sha256})"
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


# ---------------------------------------------------------------------------- log


def log_entries(archive: Archive) -> tuple[list[Any], list[str]]:
    """The log in order, and every break in its chain or difference from log.jsonl."""
    with archive.index.reading() as conn:
        entries = archive.index.log_entries(conn)
    return entries, log_problems(archive, entries)


def log_problems(archive: Archive, entries: list[Any] | None = None) -> list[str]:
    """Every break in the index's log chain, in log.jsonl's, and every difference between the two."""
    from . import log as action_log

    with archive.index.reading() as conn:
        if entries is None:
            entries = archive.index.log_entries(conn)
        admitted = archive.index.admission_entries(conn)
    problems = check_chain(entries, admitted)
    try:
        kept = action_log.read_file(archive.log_file)
    except action_log.LogFileProblem as exc:
        if "log" not in archive.description and not archive.log_file.exists():
            return problems  # an archive from before log.jsonl: the next command that writes makes it
        return problems + [str(exc)]
    name = location.LOG_FILE
    problems += [f"{name}: {p}" for p in check_chain(kept)]
    return problems + action_log.compare(entries, kept, name)


def open_existing(root: Path | None, db: str | None) -> Archive:
    if root is None:
        raise ArchiveProblem("give the archive folder: --archive DIR (or set SDEVAL_ARCHIVE)")
    try:
        return location.open_archive(root, db)
    except (NotAnArchive, IndexProblem) as exc:
        raise ArchiveProblem(str(exc)) from None
