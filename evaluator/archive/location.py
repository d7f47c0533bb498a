"""Which archive a command works on: the folder (`--archive DIR` or SDEVAL_ARCHIVE) and its index
(SQLite inside the folder, or `--db URL` / SDEVAL_ARCHIVE_DB for PostgreSQL).

`archive.json` in the folder names the archive (a random id the index also holds, so a folder is
never paired with another archive's index by mistake) and, for PostgreSQL, the index URL without
its password, so later commands find it without `--db` (the password then comes from libpq's
usual places: ~/.pgpass, PGPASSWORD, or the URL given again).

`log.jsonl` in the folder is the second copy of the action log (see log.py): every write goes
through `Archive.writing()`, which holds a flock on the folder, checks that the index's log and
the file end at the same entry, and appends the new entries to the file before the index commits
(cut back if the commit fails), so the two part only by tampering or a kill inside that step.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import log as action_log
from .faults import step
from .index import Index, IndexProblem, printable_url, sqlite_url
from .store import Store, _unlink_quietly, read_kept

ARCHIVE_FILE = "archive.json"
SQLITE_FILE = "index.sqlite"
LOG_FILE = "log.jsonl"
ANCHORS_FOLDER = "log-anchors"  # the log's head time-stamped by an authority (anchor.py)
PENDING_FILE = "log.pending"  # in tmp/: the entries a write is adding to log.jsonl, until the index commits
FORMAT = "sdeval-archive"
FORMAT_VERSION = 1


class NotAnArchive(Exception):
    """The folder is not an sdeval archive (one line)."""


class LogWriter:
    """The log entries one `Archive.writing()` transaction appends (to the index now, to log.jsonl
    just before the commit)."""

    def __init__(self, archive: "Archive", conn) -> None:
        self.archive, self.conn = archive, conn
        self.entries: list[action_log.Entry] = []

    def append(self, *, time: str, user: str, action: str, detail: dict[str, Any]) -> int:
        entry = self.archive.index.append_entry(self.conn, time=time, user=user, action=action, detail=detail)
        self.entries.append(entry)
        return entry.seq


@dataclass
class Archive:
    root: Path
    archive_id: str
    store: Store
    index: Index
    description: dict[str, Any] = field(default_factory=dict)
    head: tuple[int, str] | None = None  # the log's last entry after this command's last write
    notes: list[str] = field(default_factory=list)  # what opening it repaired, for the user

    @property
    def log_file(self) -> Path:
        return self.root / LOG_FILE

    def close(self) -> None:
        self.index.close()

    @contextmanager
    def writing(self, *, copying: list[action_log.Entry] | None = None, created_at: str | None = None) -> Iterator[LogWriter]:
        """One index transaction under the folder's flock, its log entries also appended to
        log.jsonl; refused (nothing written) when the index's log and log.jsonl already differ.
        `copying`: log.jsonl's entries, first copied into a new index's empty log (rebuild), whose
        tables (archive created at `created_at`) are made in this same transaction: a rebuild
        commits its whole index in one step, or nothing of it."""
        lock = os.open(self.root, os.O_RDONLY)
        appended_at = None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            with self.index.writing() as conn:
                writer = LogWriter(self, conn)
                if copying is not None:
                    assert created_at is not None, "a rebuild names when its archive was created"
                    held, _ = self.index.create(conn, self.archive_id, created_at)
                    if held != self.archive_id:
                        raise IndexProblem(f"{self.index.shown}: holds another archive's index (id {held}); nothing was rebuilt")
                    step("rebuild-initialized")
                    if self.index.last_entry(conn) is not None:
                        raise IndexProblem(f"{self.index.shown}: its log is not empty; nothing was rebuilt")
                    self.index.copy_log(conn, copying)
                if copying is None:
                    self._settle_killed_write(conn)
                kept_size = self._log_in_step(conn)
                yield writer
                if writer.entries:
                    appended_at = kept_size
                    self._note_pending(kept_size, writer.entries)
                    self._append_lines(writer.entries, kept_size)
                    step("log-written")
            # committed
            if writer.entries:
                step("committed")
                _unlink_quietly(self.pending_file)
                self.head = (writer.entries[-1].seq, writer.entries[-1].hash)
        except BaseException:
            if appended_at is not None:
                self._cut_back(appended_at)  # the index did not commit: neither does the file
                _unlink_quietly(self.pending_file)
            raise
        finally:
            os.close(lock)

    @property
    def pending_file(self) -> Path:
        return self.store.tmp / PENDING_FILE

    def _note_pending(self, kept_size: int, entries: list[action_log.Entry]) -> None:
        """Before log.jsonl grows: what it grows by, so a command killed before the index commits
        can be told from an older index put back (see settle_killed_write)."""
        from .store import write_replacing

        doc = {"size": kept_size, "entries": [[e.seq, e.hash] for e in entries]}
        write_replacing(self.pending_file, json.dumps(doc).encode(), mode=0o644)

    def settle_killed_write(self) -> str | None:
        """Under the folder's lock: finish what a command killed inside `writing()` left (a no-op
        when nothing was left, or on an archive this user cannot write); what was done, one line."""
        stale = list(self.store.tmp.glob(f".{PENDING_FILE}.*.tmp"))
        if not (self.pending_file.exists() or stale) or self.index.read_only or not self.store.writable():
            return None
        lock = os.open(self.root, os.O_RDONLY)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            with self.index.writing() as conn:
                return self._settle_killed_write(conn)
        finally:
            os.close(lock)

    def _settle_killed_write(self, conn) -> str | None:
        """The folder's lock is held, so whoever wrote tmp/log.pending is gone. If the index
        committed its entries, the file is just removed; if not, and log.jsonl ends with exactly
        those entries (or part of them), log.jsonl is cut back to where it was."""
        for stale in self.store.tmp.glob(f".{PENDING_FILE}.*.tmp"):  # its writer was killed mid-write
            _unlink_quietly(stale)
        try:
            doc = json.loads(read_kept(self.pending_file))
            size, pending = int(doc["size"]), [(int(s), str(h)) for s, h in doc["entries"]]
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            raise IndexProblem(f"{self.pending_file}: not a record of an unfinished write; nothing was written") from None
        last = self.index.last_entry(conn)
        if last is not None and (last.seq, last.hash) in pending:
            _unlink_quietly(self.pending_file)  # the index committed: the file was right
            return None
        try:
            data = read_kept(self.log_file)
        except FileNotFoundError:
            data = b""
        except OSError as exc:
            raise IndexProblem(f"{self.log_file}: cannot read ({exc.strerror or exc}); nothing was written") from None
        before = action_log.parse(data[:size], self.log_file)
        after = [(e.seq, e.hash) for e in action_log.parse(data[size:], self.log_file)]
        ends = (before[-1].seq, before[-1].hash) if before else None
        if ends != ((last.seq, last.hash) if last is not None else None) or after != pending[: len(after)]:
            raise IndexProblem(
                f"{self.pending_file}: an unfinished write, but log.jsonl and the index's log do not match it; nothing was written "
                "(see `sdeval archive log --check`)"
            )
        if pending and _witnessed_entries(self.root) >= pending[0][0]:
            raise IndexProblem(f"{self.pending_file}: names entries an anchor witnessed; nothing was written (see `sdeval archive log --check`)")
        self._cut_back(size)
        _unlink_quietly(self.pending_file)
        gone = f"entry {pending[0][0]}" if len(pending) == 1 else f"entries {pending[0][0]}-{pending[-1][0]}"
        return f"removed {gone} from {LOG_FILE}: written by a command killed before its index committed"

    def _log_in_step(self, conn) -> int:
        """log.jsonl's size up to its last whole line, once it is known to end where the index's log does."""
        last = self.index.last_entry(conn)
        try:
            data = read_kept(self.log_file)
        except FileNotFoundError:
            if last is None or "log" not in self.description:
                # A new archive, or one made before log.jsonl existed: the file starts as the index's log.
                self._export(conn)
                return self.log_file.stat().st_size
            raise IndexProblem(f"{self.log_file}: missing (the archive's copy of its log); nothing was written") from None
        except OSError as exc:  # a folder or a FIFO put in its place
            raise IndexProblem(f"{self.log_file}: cannot read ({exc.strerror or exc}); nothing was written") from None
        kept = data.rfind(b"\n") + 1
        tail = action_log.read_file(self.log_file)
        mine = (tail[-1].seq, tail[-1].hash) if tail else None
        theirs = (last.seq, last.hash) if last else None
        if mine != theirs:
            raise IndexProblem(
                f"{self.log_file} ends at {_entry_words(mine)}, the index's log at {_entry_words(theirs)}; "
                "nothing was written (see `sdeval archive log --check`)"
            )
        return kept

    def _export(self, conn) -> None:
        from .store import write_replacing

        lines = b"".join(action_log.line_of(e) for e in self.index.log_entries(conn))
        write_replacing(self.log_file, lines, mode=0o644)
        if self.description and "log" not in self.description:  # from now on the file must be there
            self.description = {**self.description, "log": LOG_FILE}
            write_replacing(self.root / ARCHIVE_FILE, (json.dumps(self.description, indent=2) + "\n").encode(), mode=0o444)

    def _append_lines(self, entries: list[action_log.Entry], kept_size: int) -> None:
        fd = os.open(self.log_file, os.O_WRONLY)
        try:
            os.ftruncate(fd, kept_size)  # drop a line a killed command left unfinished
            os.lseek(fd, kept_size, os.SEEK_SET)
            data = memoryview(b"".join(action_log.line_of(e) for e in entries))
            while data:
                data = data[os.write(fd, data) :]
            os.fsync(fd)
        finally:
            os.close(fd)

    def _cut_back(self, size: int) -> None:
        try:
            os.truncate(self.log_file, size)
        except OSError:
            pass


def settle_for_rebuild(root: Path) -> None:
    """Before `rebuild` reads log.jsonl: entries a killed rebuild appended but never committed
    (its index is empty, so none of tmp/log.pending's entries committed) are cut off again."""
    pending = root / "tmp" / PENDING_FILE
    lock = os.open(root, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for stale in pending.parent.glob(f".{PENDING_FILE}.*.tmp"):  # its writer was killed mid-write
            _unlink_quietly(stale)
        try:
            doc = json.loads(read_kept(pending))
        except FileNotFoundError:
            return
        except ValueError:
            raise IndexProblem(f"{pending}: not a record of an unfinished write; nothing was rebuilt") from None
        data = read_kept(root / LOG_FILE)
        after = [[e.seq, e.hash] for e in action_log.parse(data[doc["size"] :], root / LOG_FILE)]
        if after != doc["entries"][: len(after)]:
            raise IndexProblem(f"{pending}: an unfinished write, but {LOG_FILE} does not end with its entries; nothing was rebuilt")
        os.truncate(root / LOG_FILE, doc["size"])
        _unlink_quietly(pending)
    finally:
        os.close(lock)


def _witnessed_entries(root: Path) -> int:
    """The newest entry any anchor's statement in log-anchors/ names (0 when none; see anchor.py)."""
    best = 0
    for path in (root / ANCHORS_FOLDER).glob("*.json"):
        try:
            best = max(best, int(json.loads(read_kept(path)).get("entries", 0)))
        except (OSError, ValueError, TypeError, AttributeError):
            continue
    return best


def _entry_words(head: tuple[int, str] | None) -> str:
    return f"entry {head[0]} (hash {head[1]})" if head else "no entry"


def describe(root: Path, archive_id: str, db: str | None) -> bytes:
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "archive_id": archive_id,
        "index": _without_password(db) if db else "sqlite",
        "log": LOG_FILE,
    }
    return (json.dumps(doc, indent=2) + "\n").encode()


def read_description(root: Path) -> dict:
    path = root / ARCHIVE_FILE
    if not root.is_dir():
        raise NotAnArchive(f"{root}: no such folder; create the archive with `sdeval archive init`")
    try:
        doc = json.loads(read_kept(path).decode("utf-8"))
    except FileNotFoundError:
        raise NotAnArchive(f"{root}: not an sdeval archive (no {ARCHIVE_FILE}); create one with `sdeval archive init`") from None
    except (OSError, ValueError) as exc:
        raise NotAnArchive(f"{path}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("archive_id"), str):
        raise NotAnArchive(f"{path}: not an sdeval archive description")
    if doc.get("format_version") != FORMAT_VERSION:
        raise NotAnArchive(f"{path}: archive format version {doc.get('format_version')}; this sdeval reads {FORMAT_VERSION}")
    return doc


def index_url(root: Path, db: str | None, described: str | None, *, read_only: bool) -> str:
    if db:
        return db
    if described and described != "sqlite":
        return described
    return sqlite_url(root.resolve() / SQLITE_FILE, read_only=read_only)


def open_archive(root: Path, db: str | None) -> Archive:
    """An existing archive, checked: folder, description, and an index that belongs to it.
    A folder this user cannot write is opened read-only (list, show, extract and verify work)."""
    doc = read_description(root)
    store = Store(root)
    read_only = not store.writable()
    url = index_url(root, db, doc.get("index"), read_only=read_only)
    if db and doc.get("index") == "sqlite":
        raise NotAnArchive(f"{root}: its index is the SQLite file inside it; --db {printable_url(db)} is another index")
    if not db and doc.get("index") == "sqlite" and not (root / SQLITE_FILE).exists():
        # Opening it would leave an empty index behind, and the reports would seem gone.
        raise NotAnArchive(f"{root / SQLITE_FILE}: missing; {REBUILD_HINT}")
    index = Index(url, read_only=read_only and url.startswith("sqlite"))
    try:
        index.open_checked(doc["archive_id"], missing_hint=REBUILD_HINT)
        archive = Archive(root, doc["archive_id"], store, index, doc)
        check_anchors(archive)
        try:
            settled = archive.settle_killed_write()
        except IndexProblem:
            settled = None  # `log --check` says what does not match; writing commands refuse
        if settled:
            archive.notes.append(settled)
        if not read_only and store.writable():  # what killed adds left in tmp/
            archive.notes += store.recover(lambda sha: _indexed(index, sha))
        with index.reading() as conn:
            if index.last_entry(conn) is None:  # every archive's log starts with its init
                raise NotAnArchive(f"{index.shown}: holds no action log (a rebuild was interrupted); {REBUILD_HINT}")
    except (IndexProblem, NotAnArchive):
        index.close()
        raise
    return archive


def _indexed(index: Index, sha256: str) -> bool:
    with index.reading() as conn:
        return index.find(conn, sha256) is not None


REBUILD_HINT = "run `sdeval archive rebuild` to re-create the index from objects/ and log.jsonl"


def check_anchors(archive: Archive) -> None:
    """Each trust anchor the index records is the certificate its file name and row say: a file
    swapped for another certificate under the same name must not decide what is trusted."""
    with archive.index.reading() as conn:
        rows = archive.index.anchors(conn)
    for row in rows:
        problem = anchor_problem(archive.root, row.file, row.fingerprint_sha256, "the index record")
        if problem:
            raise NotAnArchive(problem)


def anchor_problem(root: Path, relative: str, recorded: str, by: str) -> str | None:
    """None when anchors/<recorded>.pem holds exactly the certificate with that SHA-256; else one
    line naming the file and both fingerprints (`by`: who recorded it, e.g. "the index record")."""
    from .verification import fingerprint, load_certificates

    path = root / relative
    if relative != f"anchors/{recorded}.pem":
        return f"{path}: {by} trust anchor {recorded} under this file name, which names another fingerprint; nothing was done"
    try:
        found = [fingerprint(der) for der in load_certificates(path)]
    except OSError as exc:
        return f"{path}: trust anchor {recorded} cannot be read ({exc.strerror or exc}); nothing was done"
    except ValueError:
        found = []
    if found != [recorded]:
        return (
            f"{path}: holds SHA-256 {', '.join(found) or 'no certificate'}, but its name and {by} {recorded}: "
            "the trust anchor was replaced; nothing was done"
        )
    return None


def _without_password(url: str) -> str:
    import sqlalchemy as sa

    try:
        return sa.make_url(url).set(password=None).render_as_string(hide_password=False)
    except Exception:
        raise IndexProblem("the --db URL cannot be read (e.g. postgresql://user@host/dbname)") from None
