"""Checking what is kept: `archive verify` (each stored file against the index, verified again in
full, every indexed fact against the report, the log against log.jsonl) and `archive rebuild` (a
lost index made again from log.jsonl and objects/, each report verified again)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._infra.exit_codes import EXIT_FINDINGS, EXIT_OK
from . import location
from .common import ArchiveProblem, anchor_paths, log_quietly, now_text, selected, withdrawal_of
from .facts import indexed_facts
from .faults import step
from .index import Index
from .location import Archive
from .log import check_chain, current_user
from .reverify import Checked, check_all, in_shard, unverified_since
from .store import Store, StoreProblem, read_kept

# ---------------------------------------------------------------------------- verify


def verify(
    archive: Archive,
    idents: list[str],
    *,
    strict: bool,
    workers: int | None = None,
    shard: tuple[int, int] | None = None,
    since: str | None = None,
) -> tuple[list[Checked], list[str], str | None]:
    """Each stored file's hash against the index, the full verification and every indexed fact
    against the verified report, across the cores (reverify.py); with no ids, no shard and no
    --since also the stored files the index lacks; always the log against log.jsonl and its
    anchors. `shard` (i, N): every N-th report; `since`: only those not passed since then.
    (results, archive-wide problems, a note when the run could not be logged)."""
    rows = [r for r in selected(archive, idents) if in_shard(r.id, shard)]
    with archive.index.reading() as conn:
        details = archive.index.details(conn, [r.id for r in rows])
    if since is not None:
        rows = [r for r in rows if unverified_since(details[r.id], since)]
    ordered = check_all(archive.root, rows, details, anchor_paths(archive), strict=strict, workers=workers)
    for c in ordered:
        c.withdrawn = withdrawal_of(details[c.id])
    problems = [f"log: {p}" for p in log_problems(archive)]
    if not idents and shard is None and since is None:
        problems += [
            f"{relative}: stored, but the index has no report for it (its row was removed, or an older index restored)"
            for relative in unindexed(archive, [r.stored_as for r in rows])
        ]
    failed = [c.id for c in ordered if not c.passed]
    summary = verify_summary(ordered, problems)
    detail: dict[str, Any] = {"reports": len(ordered), "failed": failed, "strict": strict, "problems": problems, "summary": summary}
    if shard is not None:
        detail["shard"] = f"{shard[0]}/{shard[1]}"
    if since is not None:
        detail["since"] = since
    note = log_quietly(archive, "verify", detail, verified=[(c.id, c.passed, c.reason) for c in ordered])
    return ordered, problems, note


def verify_summary(checked: list[Checked], problems: list[str]) -> str:
    failed = sum(not c.passed for c in checked)
    withdrawn = sum(c.withdrawn is not None for c in checked)
    return (
        f"verified {len(checked)} report{'s' * (len(checked) != 1)}: {len(checked) - failed} passed, {failed} failed"
        + (f" ({withdrawn} withdrawn)" if withdrawn else "")
        + (f"; {len(problems)} archive problem{'s' * (len(problems) != 1)}" if problems else "")
    )


def unindexed(archive: Archive, indexed: list[str]) -> list[str]:
    """objects/ files no report row names."""
    known = set(indexed)
    try:
        stored = sorted(str(p.relative_to(archive.root)) for p in archive.store.objects.glob("*/*.pdf"))
    except OSError:
        return []
    return [relative for relative in stored if relative not in known]


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
    return problems + action_log.compare(entries, kept, name) + anchor_problems(archive, entries, kept)


def anchor_problems(archive: Archive, entries: list[Any], kept: list[Any]) -> list[str]:
    """Every anchor in log-anchors/ checked offline against the anchoring root and both copies of the log."""
    from . import anchor

    found = anchor.read_all(archive.root, anchor.root_certificate(archive))
    if not found:
        return []
    try:
        description = read_kept(archive.root / location.ARCHIVE_FILE)
    except OSError as exc:
        return [f"{archive.root / location.ARCHIVE_FILE}: cannot read ({exc.strerror or exc})"]
    return anchor.problems(found, archive.archive_id, entries, kept, description, location.LOG_FILE)


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
    location.settle_for_rebuild(root)
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
            # An index with tables but no log is one an interrupted rebuild of an older sdeval created
            # (this one makes its tables in the transaction that fills them): carry on with it.
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
        step("rebuild-verified")
        when, user = now_text(), current_user()
        recovered, verified_rows = [], []
        rebuild_seq = (kept[-1].seq if kept else 0) + 1
        # The tables, the rows and the log commit in one transaction (SQLite and PostgreSQL both
        # make tables transactionally): a rebuild killed before its commit leaves no index at all.
        archive = Archive(root, doc["archive_id"], store, index, doc)
        with archive.writing(copying=kept, created_at=kept[0].time if kept else now_text()) as w:
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
        return Rebuilt(lines, exit_code=EXIT_FINDINGS if problems else EXIT_OK, head=archive.head)
    finally:
        index.close()
