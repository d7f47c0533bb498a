"""Which archive a command works on: the folder (`--archive DIR` or SDEVAL_ARCHIVE) and its index
(SQLite inside the folder, or `--db URL` / SDEVAL_ARCHIVE_DB for PostgreSQL).

`archive.json` in the folder names the archive (a random id the index also holds, so a folder is
never paired with another archive's index by mistake) and, for PostgreSQL, the index URL without
its password, so later commands find it without `--db` (the password then comes from libpq's
usual places: ~/.pgpass, PGPASSWORD, or the URL given again).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .index import Index, IndexProblem, printable_url, sqlite_url
from .store import Store

ARCHIVE_FILE = "archive.json"
SQLITE_FILE = "index.sqlite"
FORMAT = "sdeval-archive"
FORMAT_VERSION = 1


class NotAnArchive(Exception):
    """The folder is not an sdeval archive (one line)."""


@dataclass
class Archive:
    root: Path
    archive_id: str
    store: Store
    index: Index

    def close(self) -> None:
        self.index.close()


def describe(root: Path, archive_id: str, db: str | None) -> bytes:
    doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "archive_id": archive_id, "index": _without_password(db) if db else "sqlite"}
    return (json.dumps(doc, indent=2) + "\n").encode()


def read_description(root: Path) -> dict:
    path = root / ARCHIVE_FILE
    if not root.is_dir():
        raise NotAnArchive(f"{root}: no such folder; create the archive with `sdeval archive init`")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise NotAnArchive(f"{root}: not an sdeval archive (no {ARCHIVE_FILE}); create one with `sdeval archive init`") from None
    except (OSError, ValueError) as exc:
        raise NotAnArchive(f"{path}: cannot be read ({exc})") from None
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
    index = Index(url, read_only=read_only and url.startswith("sqlite"))
    try:
        index.open_checked(doc["archive_id"])
    except IndexProblem:
        index.close()
        raise
    return Archive(root, doc["archive_id"], store, index)


def _without_password(url: str) -> str:
    import sqlalchemy as sa

    try:
        return sa.make_url(url).set(password=None).render_as_string(hide_password=False)
    except Exception:
        raise IndexProblem("the --db URL cannot be read (e.g. postgresql://user@host/dbname)") from None
