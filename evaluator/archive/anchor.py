"""The log's head witnessed outside sdeval: an RFC 3161 time stamp over it, kept beside the log.

A hash chain shows an edited or removed entry only to someone who knows the head from elsewhere:
whoever can rewrite the index, log.jsonl and archive.json together can rewrite everything
consistently. An *anchor* is a time-stamping authority's signed statement that a given head
existed at a given time; nobody without the authority's key can make one, or back-date one.

`log-anchors/` beside log.jsonl holds, per anchor, two files named `ENTRY-TIME` (ENTRY: the head's
sequence number, 8 digits; TIME: when it was asked for, UTC):
  .json   the statement: archive id, the head (number of entries and the last entry's hash), and
          the SHA-256 of archive.json, as canonical JSON bytes;
  .tst    the authority's time-stamp token (DER CMS SignedData) whose message imprint is the
          SHA-256 of those exact bytes, so `openssl ts -verify -data X.json -in X.tst -token_in
          -CAfile ROOT.pem` checks it without sdeval.
Each anchor is kept (never replaced). The token is written first: a .tst without its .json is an
anchor a killed command never finished, and is left out.

`archive.json` names the authority's URL and, once known, the SHA-256 fingerprint of the root its
tokens chain to ("anchoring": {"tsa": URL, "root": FPR}); anchors are verified against that root
only (a report signer's root cannot vouch for one), offline, at the time the token states.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import log as action_log
from .location import ANCHORS_FOLDER as FOLDER
from .location import ARCHIVE_FILE, NotAnArchive, anchor_problem, open_archive, read_description
from .store import read_kept, write_read_only, write_replacing

FORMAT = "sdeval-archive-anchor"
FORMAT_VERSION = 1


class AnchorProblem(Exception):
    """An anchor cannot be made (one line naming the authority)."""


@dataclass(frozen=True)
class Anchor:
    """One anchor as found in log-anchors/, verified or not."""

    name: str  # the file stem, e.g. 00000012-20261204T124501.123456Z
    statement: dict[str, Any]
    time: str | None  # the authority's time (ISO 8601 UTC), once the token verified
    authority: str | None  # the authority's certificate subject
    problem: str | None  # why the token does not verify (None: it does)

    @property
    def entries(self) -> int:
        return int(self.statement.get("entries", 0))

    @property
    def head_hash(self) -> str:
        return str(self.statement.get("head_hash"))

    def words(self) -> str:
        when = f" of {self.time}" if self.time else ""
        return f"anchor {FOLDER}/{self.name}{when}"


def statement_bytes(archive_id: str, head: tuple[int, str], archive_json: bytes) -> bytes:
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "archive_id": archive_id,
        "entries": head[0],
        "head_hash": head[1],
        "archive_json_sha256": hashlib.sha256(archive_json).hexdigest(),
    }
    return action_log.canonical(doc).encode("utf-8")


def request_token(url: str, data: bytes, *, timeout: float = 10.0) -> bytes:
    """The authority's RFC 3161 token (DER) over SHA-256(data); AnchorProblem names the authority."""
    from pyhanko.sign.timestamps import HTTPTimeStamper

    from .._infra.aio import run
    from ..report.signing import Timestamping, _timestamping_problem

    _quiet()
    digest = hashlib.sha256(data).digest()
    try:
        token = run(lambda: HTTPTimeStamper(url, timeout=timeout).async_timestamp(digest, "sha256"))
    except Exception as exc:
        raise AnchorProblem(_timestamping_problem(Timestamping(url, timeout=timeout), exc)) from None
    return token.dump()


@dataclass(frozen=True)
class TokenCheck:
    time: dt.datetime
    authority: str
    root: str | None  # SHA-256 of the root certificate it chains to; None when it does not
    problem: str | None


def check_token(token: bytes, data: bytes, roots: list[bytes]) -> TokenCheck:
    """The token is intact, covers SHA-256(data), and its authority chains to one of `roots`
    (DER) at the time it states. Offline: nothing is fetched."""
    from asn1crypto import cms, tsp
    from asn1crypto import x509 as asn1_x509
    from pyhanko.sign.validation.generic_cms import validate_tst_signed_data
    from pyhanko_certvalidator import ValidationContext

    from .._infra.aio import run

    _quiet()
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    try:
        signed = cms.ContentInfo.load(token)["content"]
        info = signed["encap_content_info"]["content"].parsed
        if not isinstance(info, tsp.TSTInfo):
            raise ValueError("not a time-stamp token")
        when = info["gen_time"].native
    except Exception as exc:
        return TokenCheck(epoch, "unknown", None, f"the token cannot be read ({type(exc).__name__})")
    anchors = [asn1_x509.Certificate.load(der) for der in roots]
    context = ValidationContext(trust_roots=anchors, allow_fetching=False, revocation_mode="soft-fail", moment=when)
    try:
        status = run(lambda: validate_tst_signed_data(signed, context, lambda algo: hashlib.new(algo, data).digest()))
    except Exception as exc:
        return TokenCheck(when, "unknown", None, f"the token does not validate ({type(exc).__name__})")
    cert = status.get("signing_cert")
    authority = cert.subject.human_friendly if cert is not None else "unknown"
    if not status.get("intact"):
        return TokenCheck(when, authority, None, "its time stamp does not cover this statement (the statement was changed)")
    if not status.get("valid"):
        return TokenCheck(when, authority, None, "its time stamp's signature is not valid")
    path = status.get("validation_path")
    if status.get("trust_problem_indic") is not None or path is None:
        return TokenCheck(when, authority, None, "its authority does not chain to the anchoring root")
    root = hashlib.sha256(path.trust_anchor.certificate.dump()).hexdigest()
    return TokenCheck(when, authority, root, None)


def _quiet() -> None:
    # pyHanko logs each failed path or imprint; the anchor's problem line says it once.
    for name in ("pyhanko", "pyhanko_certvalidator"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def time_text(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def store(root: Path, head: tuple[int, str], data: bytes, token: bytes) -> str:
    """Write the token, then the statement (never replacing a file); the anchor's name."""
    folder = root / FOLDER
    folder.mkdir(exist_ok=True)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
    name = f"{head[0]:08d}-{stamp}"
    write_read_only(folder / f"{name}.tst", token)
    write_read_only(folder / f"{name}.json", data)
    return name


def stored(root: Path) -> list[tuple[str, bytes, bytes | None]]:
    """(name, statement bytes, token bytes or None when missing) for each anchor, oldest first."""
    folder = root / FOLDER
    try:
        names = sorted(p.stem for p in folder.glob("*.json"))
    except OSError:
        return []
    out = []
    for name in names:
        try:
            data = read_kept(folder / f"{name}.json")
        except OSError:  # a folder or a FIFO named *.json: no statement, so its check fails
            data = b""
        try:
            token: bytes | None = read_kept(folder / f"{name}.tst")
        except OSError:  # missing (or a FIFO, a folder): checked as an anchor without its token
            token = None
        out.append((name, data, token))
    return out


def read_all(root: Path, archive_root: bytes | None) -> list[Anchor]:
    """Every stored anchor, each token checked against the anchoring root (DER)."""
    out = []
    for name, data, token in stored(root):
        try:
            statement = json.loads(data)
            if not isinstance(statement, dict) or statement.get("format") != FORMAT:
                raise ValueError
        except ValueError:
            out.append(Anchor(name, {}, None, None, "its statement is not an sdeval anchor statement"))
            continue
        if token is None:
            out.append(Anchor(name, statement, None, None, f"its token {FOLDER}/{name}.tst is missing"))
            continue
        if archive_root is None:
            out.append(Anchor(name, statement, None, None, "archive.json names no anchoring root to check it against"))
            continue
        checked = check_token(token, data, [archive_root])
        out.append(Anchor(name, statement, time_text(checked.time) if checked.problem is None else None, checked.authority, checked.problem))
    return out


def problems(
    anchors: list[Anchor], archive_id: str, index_log: list[action_log.Entry], file_log: list[action_log.Entry], archive_json: bytes, file_name: str
) -> list[str]:
    """Every way the archive is not what its anchors witnessed, naming the anchor and its time."""
    out = []
    for a in anchors:
        if a.problem is not None:
            out.append(f"{a.words()}: {a.problem}")
            continue
        if a.statement.get("archive_id") != archive_id:
            out.append(f"{a.words()}: witnessed archive {a.statement.get('archive_id')}, not this one ({archive_id}): archive.json was replaced")
            continue
        for where, entries in ((file_name, file_log), ("the index's log", index_log)):
            by_seq = {e.seq: e for e in entries}
            last = entries[-1].seq if entries else 0
            witnessed = by_seq.get(a.entries)
            if witnessed is None and a.entries > last:
                out.append(
                    f"{a.words()} witnessed entry {a.entries} (hash {a.head_hash}), but {where} ends at entry {last}: "
                    "its newest entries were removed, or a copy from before the anchor was restored"
                )
            elif witnessed is None or witnessed.hash != a.head_hash:
                out.append(f"{a.words()} witnessed entry {a.entries} with hash {a.head_hash}; {where} has another: the log was rewritten")
    good = [a for a in anchors if a.problem is None]
    if good:
        latest = good[-1]
        if latest.statement.get("archive_json_sha256") != hashlib.sha256(archive_json).hexdigest():
            out.append(
                f"{latest.words()}: archive.json is not the one it witnessed (SHA-256 {latest.statement.get('archive_json_sha256')}): it was replaced"
            )
    return out


def newest(anchors: list[Anchor]) -> Anchor | None:
    good = [a for a in anchors if a.problem is None]
    return good[-1] if good else None


def unfinished(root: Path) -> list[str]:
    """Tokens a killed command left without their statement (not anchors; never removed)."""
    folder = root / FOLDER
    try:
        return sorted(p.stem for p in folder.glob("*.tst") if not (folder / f"{p.stem}.json").exists())
    except OSError:
        return []


# ---------------------------------------------------------------------------- making anchors


def configured(description: dict[str, Any]) -> dict[str, Any] | None:
    """archive.json's "anchoring": {"tsa": URL, "root": FPR}, or None when the archive is not anchored."""
    value = description.get("anchoring")
    return value if isinstance(value, dict) and isinstance(value.get("tsa"), str) else None


def root_certificate(archive) -> bytes | None:
    """The anchoring root (DER), from the archive's trust anchors, checked against its name."""
    from .verification import load_certificates

    setting = configured(archive.description)
    fpr = setting.get("root") if setting else None
    if not isinstance(fpr, str):
        return None
    relative = f"anchors/{fpr}.pem"
    if anchor_problem(archive.root, relative, fpr, "archive.json's anchoring") is not None:
        return None
    return load_certificates(archive.root / relative)[0]


def configure(archive, url: str) -> str | None:
    """Record the authority in archive.json, with the root (among the archive's trust anchors) its
    tokens chain to, found from one token it is asked for now. A message when something changed."""
    from .verification import load_certificates

    setting = configured(archive.description)
    if setting and setting.get("tsa") == url and root_certificate(archive) is not None:
        return None
    probe = b"sdeval archive: which root does this authority chain to?"
    token = request_token(url, probe)
    with archive.index.reading() as conn:
        files = [archive.root / row.file for row in archive.index.anchors(conn)]
    roots = [der for path in files for der in load_certificates(path)]
    checked = check_token(token, probe, roots)
    if checked.root is None:
        raise AnchorProblem(
            f"--tsa {url}: its time stamps ({checked.authority}) do not chain to any of the archive's trust anchors "
            f"({checked.problem}); give the authority's root with --trust"
        )
    with _folder_lock(archive.root):
        doc = json.loads(read_kept(archive.root / ARCHIVE_FILE))
        doc["anchoring"] = {"tsa": url, "root": checked.root}
        write_replacing(archive.root / ARCHIVE_FILE, (json.dumps(doc, indent=2) + "\n").encode(), mode=0o444)
    archive.description = doc
    return f"anchoring with {url} (its root SHA-256 {checked.root}, {checked.authority}) after every write"


@dataclass(frozen=True)
class Made:
    name: str
    head: tuple[int, str]
    time: str
    authority: str

    def line(self) -> str:
        return f"log head anchored: entry {self.head[0]} (hash {self.head[1]}) at {self.time} by {self.authority}, {FOLDER}/{self.name}"


def anchor_head(archive) -> Made:
    """An anchor over the log's head now: read under the folder's lock (so no write is half done),
    stamped by the configured authority, checked against its root, then stored."""
    from . import faults
    from .index import IndexProblem

    setting = configured(archive.description)
    root = root_certificate(archive)
    if setting is None or root is None:
        raise AnchorProblem(f"{archive.root}: no time-stamping authority configured; give --tsa URL (and its root with --trust)")
    with _folder_lock(archive.root):
        with archive.index.reading() as conn:
            last = archive.index.last_entry(conn)
        kept = action_log.read_file(archive.log_file)
        if last is None:
            raise AnchorProblem(f"{archive.root}: the log is empty; nothing to anchor")
        head = (last.seq, last.hash)
        if not kept or (kept[-1].seq, kept[-1].hash) != head:
            raise IndexProblem(
                f"{archive.log_file} and the index's log end at different entries; nothing was anchored (see `sdeval archive log --check`)"
            )
        description = read_kept(archive.root / ARCHIVE_FILE)
    data = statement_bytes(archive.archive_id, head, description)
    token = request_token(setting["tsa"], data)
    checked = check_token(token, data, [root])
    if checked.problem is not None:
        raise AnchorProblem(f"--tsa {setting['tsa']}: its answer does not verify ({checked.problem}); nothing was anchored")
    faults.step("anchor-requested")
    name = store(archive.root, head, data, token)
    return Made(name, head, time_text(checked.time), checked.authority)


class _folder_lock:
    """The archive folder's flock, as location.Archive.writing() takes it: no write is half done meanwhile."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def __enter__(self) -> None:
        self.fd = os.open(self.root, os.O_RDONLY)
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)


def after_write(root: Path, db: str | None) -> str | None:
    """After a command that wrote, on an archive with an authority configured: its head anchored
    (one line to print), or why not (a note; the write stands, and the next one anchors again)."""
    from .index import IndexProblem

    try:
        if configured(read_description(root)) is None:
            return None
        archive = open_archive(root, db)
    except (NotAnArchive, IndexProblem):
        return None
    try:
        return anchor_head(archive).line()
    except (AnchorProblem, IndexProblem, action_log.LogFileProblem, OSError) as exc:
        return f"note: the log head was not anchored ({exc}); the next write, or `sdeval archive anchor`, anchors it"
    finally:
        archive.close()


def summary(root: Path) -> str | None:
    """ "N anchor(s), the newest witnessing entry E at T" for an intact log (the tokens already
    checked), None when there is none."""
    from asn1crypto import cms

    found = stored(root)
    if not found:
        return None
    name, data, token = found[-1]
    try:
        when = time_text(cms.ContentInfo.load(token or b"")["content"]["encap_content_info"]["content"].parsed["gen_time"].native)
        entries = int(json.loads(data)["entries"])
    except Exception:
        return None
    return f"{len(found)} anchor{'s' * (len(found) != 1)} verified, the newest witnessing entry {entries} at {when} ({FOLDER}/{name})"
