"""What the archive tests read from an archive's own files and index: hashes, the index's rows, the
consistency a killed command must leave, and the index lost or put back as an earlier copy."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import sqlalchemy as sa


def sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def rows(archive) -> dict[str, str]:
    """sha256 -> stored_as, straight from the index."""
    engine = archive.engine()
    try:
        with engine.connect() as conn:
            return dict(conn.execute(sa.text("SELECT sha256, stored_as FROM reports")).all())
    finally:
        engine.dispose()  # no session left open: a test may drop the database


def assert_consistent(archive) -> None:
    """Every index row has its file, with its hash, read-only; every stored file has its row."""
    log = archive.run("log", "--check")  # first: opening the archive clears what a killed command left
    assert log.exit_code == 0, log.stdout
    indexed = rows(archive)
    stored = {p.stem: p for p in (archive.root / "objects").rglob("*.pdf")}
    assert set(stored) == set(indexed)
    for sha, relative in indexed.items():
        assert sha256(archive.root / relative) == sha
        assert (archive.root / relative).stat().st_mode & 0o777 == 0o444


def snapshot_index(archive, pg_server):
    """A copy of the index as it is now; returns a function that puts it back in place."""
    if archive.db is None:
        index = archive.root / "index.sqlite"
        assert not (archive.root / "index.sqlite-wal").exists() or (archive.root / "index.sqlite-wal").stat().st_size == 0
        saved = archive.root.parent / "index-copy.sqlite"
        shutil.copy2(index, saved)
        return lambda: shutil.copy2(saved, index)
    import psycopg

    name = sa.make_url(archive.db).database
    admin = dict(host=pg_server.folder, user="postgres", dbname="postgres", autocommit=True)
    with psycopg.connect(**admin) as conn:
        conn.execute(f'CREATE DATABASE "{name}_copy" TEMPLATE "{name}"')

    def restore():
        with psycopg.connect(**admin) as conn:
            conn.execute(f'DROP DATABASE "{name}"')
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{name}_copy"')

    return restore


def lose_index(archive, pg_server) -> None:
    if archive.db is None:
        for name in ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm"):
            (archive.root / name).unlink(missing_ok=True)
        return
    import psycopg

    name = sa.make_url(archive.db).database
    with psycopg.connect(host=pg_server.folder, user="postgres", dbname="postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
