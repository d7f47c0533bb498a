"""`sdeval archive ...`: the typer wiring and the printing; the work is in archive/ (admitting, verifying, finding, rejudging).

Exit codes as elsewhere in sdeval: 0 done; 1 a report was refused, a stored report failed its
verification, a verdict would change (rejudge) or the log's chain is broken; 2 the command could
not run (no archive, unreadable index, bad option), with one line naming the file or option.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from .._infra.safe_text import json_shown, shown
from .._infra.working import ATTRIBUTE
from .choices import Format, ListFormat
from .exits import EXIT_FINDINGS, EXIT_OK, fail, typer_app

app = typer_app("archive", "The auditor's archive of signed reports.", add_completion=False)

ArchiveOpt = Annotated[
    Optional[Path],
    typer.Option("--archive", envvar="SDEVAL_ARCHIVE", metavar="DIR", help="The archive folder (or set SDEVAL_ARCHIVE)."),
]
DbOpt = Annotated[
    Optional[str],
    typer.Option(
        "--db",
        envvar="SDEVAL_ARCHIVE_DB",
        metavar="URL",
        help="PostgreSQL index, e.g. postgresql://user@host/dbname (or set SDEVAL_ARCHIVE_DB); default: SQLite in the folder.",
    ),
]
StrictOpt = Annotated[bool, typer.Option("--strict", help="Fail a report that a newer rule catalog assesses differently.")]
WorkersOpt = Annotated[Optional[int], typer.Option("--workers", min=1, help="Processes to verify with (default: one per core).")]
TsaOpt = Annotated[
    Optional[str],
    typer.Option("--tsa", metavar="URL", help="RFC 3161 time-stamping authority that anchors the log's head (its root: --trust)."),
]


IdsArg = Annotated[Optional[list[str]], typer.Argument(metavar="[ID...]", help="Report numbers or SHA-256 prefixes; default: every report.")]


class OutcomeChoice(str, Enum):
    established = "established"
    not_established = "not-established"


_fail = fail


class _Opened:
    """`with _Opened(archive, db) as a:` an existing archive, closed afterwards; problems exit 2."""

    def __init__(self, root: Path | None, db: str | None) -> None:
        self.root, self.db = root, db

    def __enter__(self):
        from ..archive.common import ArchiveProblem, open_existing

        try:
            self.archive = open_existing(self.root, self.db)
        except ArchiveProblem as exc:
            raise _fail(str(exc)) from None
        for note in self.archive.notes:  # what opening it repaired after a killed command
            typer.echo(f"sdeval: {note}", err=True)
        return self.archive

    def __exit__(self, exc_type, exc, tb) -> None:
        self.archive.close()
        if isinstance(exc, Exception) and not getattr(exc, ATTRIBUTE, None):
            try:
                setattr(exc, ATTRIBUTE, f"the archive {self.root}")  # an internal error names the archive
            except AttributeError:
                pass


def _problems():
    """The exceptions a command turns into `sdeval: ...` and exit 2."""
    from ..archive.common import ArchiveProblem
    from ..archive.index import IndexProblem
    from ..archive.location import NotAnArchive
    from ..archive.log import LogFileProblem
    from ..archive.store import StoreProblem

    return (ArchiveProblem, IndexProblem, LogFileProblem, NotAnArchive, StoreProblem)


def _echo_head(head: tuple[int, str] | None, root: Path | None, db: str | None) -> None:
    """After a command that wrote: the log's head, for the auditor to keep outside the archive,
    and, when the archive has a time-stamping authority, the head anchored with it."""
    from ..archive.anchor import after_write

    if head is not None:
        typer.echo(f"sdeval: log head: entry {head[0]}, hash {head[1]}", err=True)
        if root is not None and (line := after_write(root, db)):
            typer.echo(f"sdeval: {shown(line)}", err=True)


def _dump(doc) -> None:
    sys.stdout.write(json_shown(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n")


@app.command()
def init(
    archive: ArchiveOpt = None,
    db: DbOpt = None,
    trust: Annotated[
        Optional[list[Path]],
        typer.Option("--trust", metavar="CERT", help="Trust anchor certificates (PEM, one or more each, or DER); repeat for several."),
    ] = None,
    add_trust: Annotated[bool, typer.Option("--add-trust", help="On an existing archive: add the --trust certificates it lacks.")] = False,
    tsa: TsaOpt = None,
) -> None:
    """Create an archive and record its trust anchors. On an existing archive nothing changes
    unless --add-trust is given. With --tsa, the log's head is anchored with that RFC 3161
    time-stamping authority after every write (its root among the --trust certificates)."""
    from ..archive.admitting import init as run_init

    if archive is None:
        raise _fail("give the archive folder: --archive DIR (or set SDEVAL_ARCHIVE)")
    try:
        result = run_init(archive, db, trust or [], add_trust=add_trust)
    except _problems() as exc:
        raise _fail(str(exc)) from None
    for line in result.messages:
        typer.echo(line if result.exit_code == EXIT_OK else f"sdeval: {line}", err=result.exit_code != EXIT_OK)
    if tsa is not None and result.exit_code == EXIT_OK:
        _configure_anchoring(archive, db, tsa)
    _echo_head(result.head, archive, db)
    raise typer.Exit(result.exit_code)


def _configure_anchoring(root: Path, db: str | None, tsa: str) -> None:
    from ..archive.anchor import AnchorProblem, configure

    with _Opened(root, db) as opened:
        try:
            message = configure(opened, tsa)
        except (AnchorProblem, *_problems()) as exc:
            raise _fail(f"{exc}; nothing anchored (run `sdeval archive anchor --tsa URL` once it answers)") from None
    if message:
        typer.echo(shown(message))


@app.command()
def anchor(
    archive: ArchiveOpt = None,
    db: DbOpt = None,
    tsa: TsaOpt = None,
    trust: Annotated[
        Optional[list[Path]],
        typer.Option("--trust", metavar="CERT", help="The authority's root certificate, added to the archive's trust anchors if missing."),
    ] = None,
) -> None:
    """Anchor the log's head now: an RFC 3161 time stamp over its last entry's hash and the number
    of entries, kept in log-anchors/ beside log.jsonl (never replaced). With --tsa, that authority
    is also recorded in archive.json and anchors after every later write."""
    from ..archive.admitting import init as run_init
    from ..archive.anchor import AnchorProblem, anchor_head

    if archive is None:
        raise _fail("give the archive folder: --archive DIR (or set SDEVAL_ARCHIVE)")
    if trust:
        try:
            added = run_init(archive, db, trust, add_trust=True)
        except _problems() as exc:
            raise _fail(str(exc)) from None
        for line in added.messages[1:] if added.changed else []:
            typer.echo(line)
    if tsa is not None:
        _configure_anchoring(archive, db, tsa)
    with _Opened(archive, db) as opened:
        try:
            made = anchor_head(opened)
        except (AnchorProblem, *_problems()) as exc:
            raise _fail(str(exc)) from None
    typer.echo(shown(made.line()))


@app.command()
def add(
    reports: Annotated[list[Path], typer.Argument(metavar="REPORT...", help="Signed PDF reports written by `sdeval render`.")],
    archive: ArchiveOpt = None,
    db: DbOpt = None,
    strict: StrictOpt = False,
) -> None:
    """Verify each report in full against the archive's trust anchors and admit those that pass.
    Exit 1 if any was refused."""
    from .._infra import progress
    from ..archive.admitting import add as run_add

    with _Opened(archive, db) as opened, progress.allowed():
        try:
            results, notes = run_add(opened, reports, strict=strict)
        except _problems() as exc:
            raise _fail(str(exc)) from None
    for note in notes:
        typer.echo(f"sdeval: {note}", err=True)
    for r in results:
        typer.echo(shown(r.message))
    _echo_head(opened.head, archive, db)
    admitted = sum(r.status == "admitted" for r in results)
    duplicates = sum(r.status == "duplicate" for r in results)
    refused = sum(r.status == "refused" for r in results)
    typer.echo(f"{admitted} admitted, {duplicates} already archived, {refused} refused")
    raise typer.Exit(EXIT_FINDINGS if refused else EXIT_OK)


LIST_COLUMNS = [
    "id",
    "sha256",
    "vendor",
    "offer_id",
    "offer_date",
    "outcome",
    "requirements_outcome",
    "signer",
    "fingerprint_sha256",
    "catalog",
    "sdeval_version",
    "assessed_at",
    "admitted_at",
    "admitted_by",
    "timestamp_time",
    "source_name",
    "withdrawn_at",
    "withdrawn_reason",
    "last_verified_at",
    "last_verification",
]


def _flat(row: dict) -> dict:
    """A list row with its withdrawal and last verification as plain columns (CSV), each text
    escaped as on the terminal: CSV has no escape of its own for a control character."""
    w, v = row.get("withdrawn") or {}, row.get("last_verification") or {}
    flat = {
        **row,
        "withdrawn_at": w.get("time"),
        "withdrawn_reason": w.get("reason"),
        "last_verified_at": v.get("time"),
        "last_verification": v.get("result"),
    }
    return {key: shown(value) if isinstance(value, str) else value for key, value in flat.items()}


@app.command("list")
def list_(
    archive: ArchiveOpt = None,
    db: DbOpt = None,
    vendor: Annotated[Optional[str], typer.Option("--vendor", help="Reports on an offer by this vendor (any letter case).")] = None,
    offer: Annotated[Optional[str], typer.Option("--offer", metavar="ID", help="Reports on the offer with this id.")] = None,
    outcome: Annotated[Optional[OutcomeChoice], typer.Option("--outcome", help="The report's overall outcome.")] = None,
    signer: Annotated[
        Optional[str], typer.Option("--signer", metavar="FINGERPRINT", help="Signer certificate's SHA-256 fingerprint (or its start).")
    ] = None,
    since: Annotated[Optional[str], typer.Option("--since", metavar="DATE", help="Assessed on or after DATE (YYYY-MM-DD or ISO time).")] = None,
    until: Annotated[
        Optional[str], typer.Option("--until", metavar="DATE", help="Assessed on or before DATE (a date includes that whole day).")
    ] = None,
    catalog: Annotated[Optional[str], typer.Option("--catalog", metavar="VERSION", help="Made with this rule catalog version.")] = None,
    fmt: Annotated[ListFormat, typer.Option("--format", "-f", help="Output format.")] = ListFormat.text,
) -> None:
    """The archived reports, oldest admission first, optionally filtered."""
    from ..archive.common import until_bound, utc_text
    from ..archive.finding import list_reports
    from ..archive.index import Filters

    with _Opened(archive, db) as opened:
        try:
            filters = Filters(
                vendor=vendor,
                offer=offer,
                outcome=outcome.value if outcome else None,
                signer=signer,
                since=utc_text(since) if since else None,
                before=until_bound(until) if until else None,
                catalog=catalog,
            )
            rows = list_reports(opened, filters)
        except _problems() as exc:
            raise _fail(str(exc)) from None
    if fmt is ListFormat.json:
        _dump({"reports": rows})
    elif fmt is ListFormat.csv:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=LIST_COLUMNS, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(_flat(r) for r in rows)
        sys.stdout.write(out.getvalue())
    else:
        sys.stdout.write(_list_text(rows))


def _list_text(rows: list[dict]) -> str:
    if not rows:
        return "no report matches\n"
    table = [["id", "assessed", "vendor", "offer", "offer date", "outcome", "signer", "catalog", "sha256", "last verified", "status"]]
    for r in rows:
        v = r.get("last_verification")
        checked = f"{v['time'][:19].replace('T', ' ')} {v['result']}" if v else "never"
        status = f"withdrawn {r['withdrawn']['time'][:10]}" if r.get("withdrawn") else ""
        table.append(
            [
                str(r["id"]),
                (r["assessed_at"] or "")[:10],
                r["vendor"] or "",
                r["offer_id"] or "",
                r["offer_date"] or "",
                r["outcome"] or "",
                r["signer"] or "",
                r["catalog"] or "",
                r["sha256"][:12],
                checked,
                status,
            ]
        )
    table = [[shown(cell) for cell in row] for row in table]  # vendor strings: escaped, then measured
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in table]
    return "\n".join(lines) + f"\n{len(rows)} report{'s' * (len(rows) != 1)}\n"


@app.command()
def show(
    ident: Annotated[str, typer.Argument(metavar="ID", help="Report number or SHA-256 prefix.")],
    archive: ArchiveOpt = None,
    db: DbOpt = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.text,
) -> None:
    """Everything the archive holds about one report."""
    from ..archive.finding import show as run_show

    with _Opened(archive, db) as opened:
        try:
            doc = run_show(opened, ident)
        except _problems() as exc:
            raise _fail(str(exc)) from None
    if fmt is Format.json:
        _dump(doc)
        return
    lines = [f"report {doc['id']}  {doc['sha256']}"]
    for key in (
        "source_name",
        "stored_as",
        "size",
        "assessed_at",
        "admitted_at",
        "admitted_by",
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
        "log_entry",
    ):
        if doc.get(key) is not None:
            lines.append(f"  {key.replace('_', ' ')}: {doc[key]}")
    for o in doc["offers"]:
        lines.append(f"  offer {o['offer_id']} by {o['vendor']} ({o['offer_date']}), {o['file']}: {o['outcome']}")
        for c in doc["claims"]:
            if c["file"] == o["file"]:
                codes = f" [{', '.join(c['codes'])}]" if c["codes"] else ""
                lines.append(f"    claim {c['id']} ({c['kind']}): {c['verdict']}{codes}")
    if doc.get("withdrawn"):
        w = doc["withdrawn"]
        lines.append(f"  withdrawn: {w['time']} by {w['by']} (log entry {w['log_entry']}): {w['reason']}")
    if doc.get("last_verification"):
        v = doc["last_verification"]
        lines.append(f"  last verified: {v['time']}: {v['result']}" + (f" ({v['reason']})" if v["result"] != "passed" else ""))
    for i in doc["inputs"]:
        lines.append(f"  attached {i['attachment']} ({i['role']}: {i['file']}) SHA-256 {i['sha256']}")
    for c in doc["checks_at_admission"]:
        lines.append(f"  at admission, {c['name']}: {c['status']}: {c['reason']}")
    typer.echo("\n".join(shown(line) for line in lines))


@app.command()
def extract(
    ident: Annotated[str, typer.Argument(metavar="ID", help="Report number or SHA-256 prefix.")],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="DIR", help="Folder to write the report and its attachments into.")],
    archive: ArchiveOpt = None,
    db: DbOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Replace files already in DIR.")] = False,
) -> None:
    """Copy a report and its attached files out of the archive (after checking its SHA-256)."""
    from ..archive.finding import extract as run_extract

    with _Opened(archive, db) as opened:
        try:
            written = run_extract(opened, ident, output, force=force)
        except _problems() as exc:
            raise _fail(str(exc)) from None
    for path in written:
        typer.echo(shown(f"wrote {path}"))  # attachment names come from the report


@app.command()
def verify(
    ids: IdsArg = None,
    archive: ArchiveOpt = None,
    db: DbOpt = None,
    strict: StrictOpt = False,
    workers: WorkersOpt = None,
    shard: Annotated[
        Optional[str],
        typer.Option("--shard", metavar="i/N", help="Verify every N-th report only (the i-th share), so N machines share the work."),
    ] = None,
    since: Annotated[
        Optional[str], typer.Option("--since", metavar="DATE", help="Only reports that have not passed a verification since DATE.")
    ] = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.text,
) -> None:
    """Re-verify stored reports: each file's SHA-256 against the index, then the full verification
    (signature, trust, attachments, reproduction), across the cores, then every indexed field
    against the report; also stored files the index lacks and the log against log.jsonl.
    Exit 1 if any fails."""
    from .._infra import progress
    from ..archive.common import utc_text
    from ..archive.reverify import BadShard, parse_shard
    from ..archive.verifying import verify as run_verify

    with _Opened(archive, db) as opened, progress.allowed(fmt is not Format.json):
        try:
            results, problems, note = run_verify(
                opened,
                ids or [],
                strict=strict,
                workers=workers,
                shard=parse_shard(shard) if shard else None,
                since=utc_text(since) if since else None,
            )
        except (*_problems(), BadShard) as exc:
            raise _fail(str(exc)) from None
    from ..archive.verifying import verify_summary

    failed = [r for r in results if not r.passed]
    summary = {
        "reports": len(results),
        "passed": len(results) - len(failed),
        "failed": len(failed),
        "withdrawn": sum(r.withdrawn is not None for r in results),
        "archive_problems": len(problems),
    }
    if note:
        typer.echo(f"sdeval: {note}", err=True)
    _echo_head(opened.head, archive, db)
    if fmt is Format.json:
        _dump({"reports": [r.as_dict() for r in results], "archive_problems": problems, "summary": summary})
    else:
        for r in results:
            withdrawn = f" (withdrawn {r.withdrawn['time'][:10]}: {r.withdrawn['reason']})" if r.withdrawn else ""
            if not r.passed:
                typer.echo(shown(f"FAIL report {r.id} ({r.stored_as}){withdrawn}: {r.reason}"))
            elif r.withdrawn:
                typer.echo(shown(f"report {r.id} ({r.stored_as}){withdrawn}: passed"))
        for p in problems:
            typer.echo(shown(f"FAIL {p}"))
        typer.echo(verify_summary(results, problems))
    raise typer.Exit(EXIT_FINDINGS if failed or problems else EXIT_OK)


@app.command()
def rejudge(
    ids: IdsArg = None,
    archive: ArchiveOpt = None,
    db: DbOpt = None,
    workers: WorkersOpt = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.text,
) -> None:
    """Assess every archived report's inputs with the installed rule catalog and list the reports
    whose verdicts would change, claim by claim with the finding codes that appear (+) or
    disappear (-). Changes nothing archived. Exit 1 if any verdict would change."""
    from .._infra import progress
    from ..archive.rejudging import rejudge as run_rejudge

    with _Opened(archive, db) as opened, progress.allowed(fmt is not Format.json):
        try:
            results, summary, note = run_rejudge(opened, ids or [], workers=workers)
        except _problems() as exc:
            raise _fail(str(exc)) from None
    if note:
        typer.echo(f"sdeval: {note}", err=True)
    _echo_head(opened.head, archive, db)
    if fmt is Format.json:
        _dump({"reports": [r.as_dict() for r in results], "summary": summary})
    else:
        for r in results:
            head = f"report {r.id} ({r.vendor}, {r.offer_id}; {r.sha256[:12]}; catalog {r.catalog_before} -> {r.catalog_after})"
            if r.problem:
                typer.echo(shown(f"{head}: {r.problem}"))
                continue
            if r.outcome_before != r.outcome_after:
                head += f": outcome {r.outcome_before} -> {r.outcome_after}"
            typer.echo(shown(head))
            if r.requirements_before != r.requirements_after:
                typer.echo(f"  buyer requirements: {r.requirements_before} -> {r.requirements_after}")
            for c in r.claims:
                typer.echo(shown(f"  {c.text()}"))
        typer.echo(summary)
    raise typer.Exit(EXIT_FINDINGS if any(r.verdicts_change or r.problem for r in results) else EXIT_OK)


@app.command("log")
def log_(
    archive: ArchiveOpt = None,
    db: DbOpt = None,
    check: Annotated[bool, typer.Option("--check", help="Check the hash chain; exit 1 naming any edited or removed entry.")] = False,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.text,
) -> None:
    """The action log: every init, add, refusal, verify and rejudge, with its time, user and result."""
    from ..archive.anchor import summary as anchor_summary
    from ..archive.finding import log_entries

    with _Opened(archive, db) as opened:
        try:
            entries, problems = log_entries(opened)
        except _problems() as exc:
            raise _fail(str(exc)) from None
    head = entries[-1].hash if entries else None
    # The echo below is the index's head; `problems` already says where log.jsonl differs.
    if fmt is Format.json:
        doc: dict[str, Any] = {"entries": [e.as_dict() for e in entries]}
        if check:
            doc["check"] = {"intact": not problems, "problems": problems, "entries": len(entries), "head_hash": head}
        _dump(doc)
    else:
        if not check:
            for e in entries:
                typer.echo(shown(e.text()))
        elif problems:
            for p in problems:
                typer.echo(shown(f"BROKEN: {p}"))
        else:
            anchored = anchor_summary(opened.root)
            typer.echo(
                f"log intact: {len(entries)} entries, each chained to the one before; head hash {head}" + (f"; {anchored}" if anchored else "")
            )
    raise typer.Exit(EXIT_FINDINGS if check and problems else EXIT_OK)


@app.command()
def withdraw(
    ident: Annotated[str, typer.Argument(metavar="ID", help="Report number or SHA-256 prefix.")],
    reason: Annotated[str, typer.Option("--reason", metavar="TEXT", help="Why the report is withdrawn (kept in the index and the log).")],
    archive: ArchiveOpt = None,
    db: DbOpt = None,
) -> None:
    """Mark a report as withdrawn (admitted in error, superseded): it is never deleted; list, show,
    extract and verify still show it, marked withdrawn."""
    from ..archive.rejudging import withdraw as run_withdraw

    with _Opened(archive, db) as opened:
        try:
            message = run_withdraw(opened, ident, reason)
        except _problems() as exc:
            raise _fail(str(exc)) from None
    typer.echo(message)
    _echo_head(opened.head, archive, db)


@app.command()
def rebuild(
    archive: ArchiveOpt = None,
    db: DbOpt = None,
    workers: WorkersOpt = None,
) -> None:
    """Re-create a lost index from log.jsonl and objects/, verifying each stored report; say what was
    recovered and what not. Exit 1 if a logged report is missing or does not verify."""
    from ..archive.verifying import rebuild as run_rebuild

    if archive is None:
        raise _fail("give the archive folder: --archive DIR (or set SDEVAL_ARCHIVE)")
    try:
        result = run_rebuild(archive, db, workers=workers)
    except _problems() as exc:
        raise _fail(str(exc)) from None
    for line in result.lines:
        typer.echo(line, err=line.startswith("sdeval: "))
    _echo_head(result.head, archive, db)
    raise typer.Exit(result.exit_code)
