"""The archive's index: SQLAlchemy Core over SQLite (a file in the archive folder, the default)
or PostgreSQL (`--db URL`), one code path for both.

Writers are serialized for the few milliseconds their transaction lasts: SQLite takes its write
lock at BEGIN IMMEDIATE (WAL mode, so readers never wait), PostgreSQL a transaction-level advisory
lock. That keeps the log's sequence numbers and hash links gap-free under concurrent adds; the
unique constraint on reports.sha256 is the second guard against storing one report twice.

Times are stored as ISO 8601 text in UTC, so both databases sort and compare them the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from . import log as action_log

SCHEMA_VERSION = 2
# Any 64-bit number of our own: the PostgreSQL advisory lock all archive writers take.
_PG_WRITE_LOCK = 0x5DE7A1A2C417E


class IndexProblem(Exception):
    """The index cannot be used (one line)."""


metadata = sa.MetaData()

meta = sa.Table(
    "archive_meta",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)
anchors = sa.Table(
    "anchors",
    metadata,
    sa.Column("fingerprint_sha256", sa.String(64), primary_key=True),
    sa.Column("subject", sa.Text, nullable=False),
    sa.Column("file", sa.Text, nullable=False),  # relative to the archive folder
    sa.Column("added_at", sa.String(40), nullable=False),
    sa.Column("added_by", sa.Text, nullable=False),
)
reports = sa.Table(
    "reports",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("sha256", sa.String(64), nullable=False, unique=True),
    sa.Column("size", sa.BigInteger, nullable=False),
    sa.Column("stored_as", sa.Text, nullable=False),  # relative to the archive folder
    sa.Column("source_name", sa.Text, nullable=False),  # the file name it was added from
    sa.Column("admitted_at", sa.String(40), nullable=False),
    sa.Column("admitted_by", sa.Text, nullable=False),
    sa.Column("log_seq", sa.Integer, nullable=False),  # the log entry that admitted it
    sa.Column("assessed_at", sa.String(40)),
    sa.Column("outcome", sa.String(32)),
    sa.Column("requirements_outcome", sa.String(16)),
    sa.Column("catalog", sa.String(32)),
    sa.Column("sdeval_version", sa.String(32)),
    sa.Column("signer", sa.Text),
    sa.Column("signer_subject", sa.Text),
    sa.Column("fingerprint_sha256", sa.String(64)),
    sa.Column("timestamp_time", sa.String(40)),
    sa.Column("timestamp_authority", sa.Text),
    sa.Column("timestamp_authority_fingerprint", sa.String(64)),
    sa.Column("checks", sa.Text, nullable=False),  # JSON: the checks as verified at admission
    sa.Index("reports_fingerprint", "fingerprint_sha256"),
    sa.Index("reports_assessed_at", "assessed_at"),
)
offers = sa.Table(
    "offers",
    metadata,
    sa.Column("report_id", sa.Integer, sa.ForeignKey("reports.id"), primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True),
    sa.Column("file", sa.Text, nullable=False),
    sa.Column("vendor", sa.Text),
    sa.Column("offer_id", sa.Text),
    sa.Column("offer_date", sa.Text),
    sa.Column("outcome", sa.String(32)),
    sa.Index("offers_vendor", "vendor"),
    sa.Index("offers_offer_id", "offer_id"),
)
claims = sa.Table(
    "claims",
    metadata,
    sa.Column("report_id", sa.Integer, sa.ForeignKey("reports.id"), primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True),  # the offer's position in the report
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("claim_id", sa.Text, nullable=False),
    sa.Column("kind", sa.Text),
    sa.Column("verdict", sa.String(32)),
    sa.Column("codes", sa.Text, nullable=False),  # JSON list of the finding codes behind the verdict
)
inputs = sa.Table(
    "inputs",
    metadata,
    sa.Column("report_id", sa.Integer, sa.ForeignKey("reports.id"), primary_key=True),
    sa.Column("attachment", sa.Text, primary_key=True),
    sa.Column("file", sa.Text, nullable=False),
    sa.Column("role", sa.Text, nullable=False),
    sa.Column("sha256", sa.String(64), nullable=False),
)
log = sa.Table(
    "action_log",
    metadata,
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("time", sa.String(40), nullable=False),
    sa.Column("user_name", sa.Text, nullable=False),
    sa.Column("action", sa.String(32), nullable=False),
    sa.Column("detail", sa.Text, nullable=False),
    sa.Column("prev_hash", sa.String(64), nullable=False),
    sa.Column("hash", sa.String(64), nullable=False),
)

# Version 2: a report withdrawn (never deleted), and each report's last verification.
withdrawals = sa.Table(
    "withdrawals",
    metadata,
    sa.Column("report_id", sa.Integer, sa.ForeignKey("reports.id"), primary_key=True),
    sa.Column("time", sa.String(40), nullable=False),
    sa.Column("user_name", sa.Text, nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("log_seq", sa.Integer, nullable=False),
)
verifications = sa.Table(
    "last_verifications",
    metadata,
    sa.Column("report_id", sa.Integer, sa.ForeignKey("reports.id"), primary_key=True),
    sa.Column("time", sa.String(40), nullable=False),
    sa.Column("result", sa.String(16), nullable=False),  # passed | failed
    sa.Column("reason", sa.Text, nullable=False),
)
V1_TABLES = [meta, anchors, reports, offers, claims, inputs, log]


def _create_v1(conn: sa.Connection) -> None:
    # Version 1's tables are unchanged since; a later version that changes one must copy its
    # version-1 definition here, so an index of any age reaches the current schema the same way.
    metadata.create_all(conn, tables=V1_TABLES)


def _create_v2(conn: sa.Connection) -> None:
    metadata.create_all(conn, tables=[withdrawals, verifications])


# version -> the step that brings an index from version - 1 to it
MIGRATIONS = {1: _create_v1, 2: _create_v2}


# ---------------------------------------------------------------------------- connecting


def sqlite_url(path: Path, *, read_only: bool) -> str:
    if read_only:
        # A read-only folder cannot hold WAL's shared-memory file: open the file as immutable.
        return f"sqlite:///file:{path}?mode=ro&immutable=1&uri=true"
    return f"sqlite:///{path}"


def engine_for(url: str, *, read_only: bool = False) -> sa.Engine:
    if url.startswith(("postgresql://", "postgres://")):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    try:
        parsed = sa.make_url(url)
    except sa.exc.ArgumentError:
        raise IndexProblem(f"{printable_url(url)}: not a database URL (e.g. postgresql://user@host/dbname)") from None
    if parsed.get_backend_name() == "sqlite":
        engine = sa.create_engine(parsed, connect_args={"timeout": 60}, poolclass=sa.pool.NullPool)
        sa.event.listen(engine, "connect", _sqlite_connect if not read_only else _sqlite_connect_read_only)
        sa.event.listen(engine, "begin", _sqlite_begin)
        return engine
    if parsed.get_backend_name() != "postgresql":
        raise IndexProblem(f"{printable_url(url)}: only SQLite and PostgreSQL indexes are supported")
    try:
        return sa.create_engine(parsed, poolclass=sa.pool.NullPool)
    except ImportError as exc:
        raise IndexProblem(f"PostgreSQL driver missing ({exc}); install psycopg[binary]") from None


def printable_url(url: str) -> str:
    """A URL fit to print: never its password."""
    try:
        return sa.make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "the --db URL"


def _sqlite_connect(dbapi, _record) -> None:
    dbapi.isolation_level = None  # sqlite3 must not begin transactions itself: _sqlite_begin does
    cursor = dbapi.cursor()
    cursor.execute("PRAGMA busy_timeout = 60000")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA synchronous = FULL")  # a reported admission survives a power cut
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.close()


def _sqlite_connect_read_only(dbapi, _record) -> None:
    dbapi.isolation_level = None
    cursor = dbapi.cursor()
    cursor.execute("PRAGMA busy_timeout = 60000")
    cursor.close()


def _sqlite_begin(conn: sa.Connection) -> None:
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.info.get("writing") else "BEGIN")


# ---------------------------------------------------------------------------- the index


@dataclass(frozen=True)
class Filters:
    vendor: str | None = None
    offer: str | None = None
    outcome: str | None = None
    signer: str | None = None  # certificate fingerprint, or a prefix of it
    since: str | None = None  # on assessed_at: from this time (stored form, see commands.utc_text)
    before: str | None = None  # on assessed_at: up to this time, excluded
    catalog: str | None = None


class Index:
    def __init__(self, url: str, *, read_only: bool = False) -> None:
        self.url = url
        self.shown = printable_url(url)
        self.engine = engine_for(url, read_only=read_only)
        self.read_only = read_only

    @property
    def backend(self) -> str:
        return self.engine.dialect.name

    def close(self) -> None:
        self.engine.dispose()

    # -- transactions

    @contextmanager
    def reading(self) -> Iterator[sa.Connection]:
        try:
            with self.engine.connect() as conn:
                with conn.begin():
                    yield conn
        except sa.exc.OperationalError as exc:
            raise IndexProblem(f"{self.shown}: cannot read the index ({_one_line(exc)})") from None
        except sa.exc.DatabaseError as exc:
            raise self._corrupted(exc) from None

    @contextmanager
    def writing(self) -> Iterator[sa.Connection]:
        """One transaction holding the archive's write lock."""
        if self.read_only:
            raise IndexProblem(f"{self.shown}: the index is read-only here")
        try:
            with self.engine.connect() as conn:
                conn.info["writing"] = True
                with conn.begin():
                    if self.backend == "postgresql":
                        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_WRITE_LOCK})
                    yield conn
        except sa.exc.OperationalError as exc:
            raise IndexProblem(f"{self.shown}: cannot write the index ({_one_line(exc)})") from None
        except sa.exc.DatabaseError as exc:
            raise self._corrupted(exc) from None

    def _corrupted(self, exc: sa.exc.DatabaseError) -> Exception:
        """A file that is not (or no longer) a database: say which, and how to get the index back.
        A constraint the code relies on (IntegrityError) is not corruption and passes on."""
        if isinstance(exc, sa.exc.IntegrityError):
            return exc
        where = self.engine.url.database if self.backend == "sqlite" else self.shown  # the file, for SQLite
        return IndexProblem(f"{where}: the archive index is corrupted ({_one_line(exc)}); run `sdeval archive rebuild` to rebuild it")

    # -- schema

    def version(self, conn: sa.Connection) -> int | None:
        if not sa.inspect(conn).has_table(meta.name):
            return None
        value = conn.execute(sa.select(meta.c.value).where(meta.c.key == "schema_version")).scalar()
        return int(value) if value is not None else None

    def initialize(self, archive_id: str, now: str) -> tuple[str, bool]:
        """Create the tables (or bring them up to date); the archive id the index holds, and
        whether this call created it."""
        with self.writing() as conn:
            return self.create(conn, archive_id, now)

    def create(self, conn: sa.Connection, archive_id: str, now: str) -> tuple[str, bool]:
        """initialize's work inside the caller's transaction (rebuild: tables and rows commit together)."""
        found = self.version(conn)
        self._migrate(conn, found or 0)
        if found is None:
            conn.execute(sa.insert(meta), [{"key": "archive_id", "value": archive_id}, {"key": "created_at", "value": now}])
            return archive_id, True
        return self.meta_value(conn, "archive_id") or "", False

    def open_checked(self, archive_id: str, *, missing_hint: str = "run `sdeval archive init`") -> None:
        """The index exists, belongs to this archive folder and has the current schema (migrated if older)."""
        with self.reading() as conn:
            found = self.version(conn)
            owner = self.meta_value(conn, "archive_id") if found is not None else None
        if found is None:
            raise IndexProblem(f"{self.shown}: holds no sdeval archive index; {missing_hint}")
        if found > SCHEMA_VERSION:
            raise IndexProblem(f"{self.shown}: index schema version {found} was written by a newer sdeval (this one knows {SCHEMA_VERSION})")
        if owner != archive_id:
            raise IndexProblem(f"{self.shown}: this index belongs to another archive (id {owner}, the folder's is {archive_id})")
        if found < SCHEMA_VERSION:
            if self.read_only:
                raise IndexProblem(f"{self.shown}: index schema version {found} needs migrating, and the index is read-only here")
            with self.writing() as conn:
                self._migrate(conn, self.version(conn) or 0)

    def _migrate(self, conn: sa.Connection, found: int) -> None:
        for version in range(found + 1, SCHEMA_VERSION + 1):
            MIGRATIONS[version](conn)
            stmt = sa.update(meta).where(meta.c.key == "schema_version").values(value=str(version))
            if version == 1 or conn.execute(stmt).rowcount == 0:
                conn.execute(sa.insert(meta).values(key="schema_version", value=str(version)))

    def meta_value(self, conn: sa.Connection, key: str) -> str | None:
        return conn.execute(sa.select(meta.c.value).where(meta.c.key == key)).scalar()

    # -- log

    def append_entry(self, conn: sa.Connection, *, time: str, user: str, action: str, detail: dict[str, Any]) -> action_log.Entry:
        """Append one entry inside a `writing()` transaction (whose lock keeps the chain linear).
        Commands call it through location.Archive.writing(), which also keeps log.jsonl."""
        last = self.last_entry(conn)
        seq, prev = (last.seq + 1, last.hash) if last else (1, action_log.GENESIS)
        text = action_log.canonical(detail)
        digest = action_log.entry_hash(seq, time, user, action, text, prev)
        conn.execute(sa.insert(log).values(seq=seq, time=time, user_name=user, action=action, detail=text, prev_hash=prev, hash=digest))
        return action_log.Entry(seq, time, user, action, text, prev, digest)

    def last_entry(self, conn: sa.Connection) -> Any:
        return conn.execute(sa.select(log.c.seq, log.c.hash).order_by(log.c.seq.desc()).limit(1)).first()

    def copy_log(self, conn: sa.Connection, entries: list[action_log.Entry]) -> None:
        """The log as kept in log.jsonl, entry for entry (archive rebuild)."""
        if entries:
            conn.execute(
                sa.insert(log),
                [
                    {
                        "seq": e.seq,
                        "time": e.time,
                        "user_name": e.user,
                        "action": e.action,
                        "detail": e.detail,
                        "prev_hash": e.prev_hash,
                        "hash": e.hash,
                    }
                    for e in entries
                ],
            )

    def log_entries(self, conn: sa.Connection) -> list[action_log.Entry]:
        rows = conn.execute(sa.select(log).order_by(log.c.seq)).all()
        return [action_log.Entry(r.seq, r.time, r.user_name, r.action, r.detail, r.prev_hash, r.hash) for r in rows]

    def admission_entries(self, conn: sa.Connection) -> dict[int, int]:
        return {r.id: r.log_seq for r in conn.execute(sa.select(reports.c.id, reports.c.log_seq))}

    # -- anchors

    def anchors(self, conn: sa.Connection) -> list[Any]:
        return list(conn.execute(sa.select(anchors).order_by(anchors.c.added_at, anchors.c.fingerprint_sha256)).all())

    def add_anchor(self, conn: sa.Connection, **row: Any) -> None:
        conn.execute(sa.insert(anchors).values(**row))

    # -- reports

    def find(self, conn: sa.Connection, sha256: str) -> Any:
        return conn.execute(sa.select(reports).where(reports.c.sha256 == sha256)).first()

    def insert_report(self, conn: sa.Connection, row: dict[str, Any], offer_rows: list[dict], claim_rows: list[dict], input_rows: list[dict]) -> int:
        key = conn.execute(sa.insert(reports).values(**row)).inserted_primary_key
        assert key is not None  # an insert of one row has its key
        report_id = key[0]
        for rows, table in ((offer_rows, offers), (claim_rows, claims), (input_rows, inputs)):
            if rows:
                conn.execute(sa.insert(table), [{**r, "report_id": report_id} for r in rows])
        return report_id

    def resolve(self, conn: sa.Connection, ident: str) -> Any:
        """A report by its number, or by its SHA-256 or a unique prefix of it (at least 6 hex digits)."""
        ident = ident.strip().lower()
        if ident.isdigit():
            row = conn.execute(sa.select(reports).where(reports.c.id == int(ident))).first()
            if row is None:
                raise IndexProblem(f"no report {ident} in the archive")
            return row
        if len(ident) < 6 or any(ch not in "0123456789abcdef" for ch in ident):
            raise IndexProblem(f"{ident}: not a report number or SHA-256 prefix (at least 6 hex digits)")
        rows = conn.execute(sa.select(reports).where(reports.c.sha256.like(ident + "%")).limit(2)).all()
        if not rows:
            raise IndexProblem(f"no report with SHA-256 {ident}... in the archive")
        if len(rows) > 1:
            raise IndexProblem(f"{ident}: more than one report's SHA-256 starts so; give more digits")
        return rows[0]

    def withdraw(self, conn: sa.Connection, report_id: int, *, time: str, user: str, reason: str, log_seq: int) -> None:
        conn.execute(sa.insert(withdrawals).values(report_id=report_id, time=time, user_name=user, reason=reason, log_seq=log_seq))

    def withdrawal(self, conn: sa.Connection, report_id: int) -> Any:
        return conn.execute(sa.select(withdrawals).where(withdrawals.c.report_id == report_id)).first()

    def record_verifications(self, conn: sa.Connection, time: str, results: list[tuple[int, bool, str]]) -> None:
        """Each report's latest verification replaces its previous one."""
        ids = [r[0] for r in results]
        for start in range(0, len(ids), 500):
            conn.execute(sa.delete(verifications).where(verifications.c.report_id.in_(ids[start : start + 500])))
        if results:
            conn.execute(
                sa.insert(verifications),
                [{"report_id": i, "time": time, "result": "passed" if ok else "failed", "reason": why} for i, ok, why in results],
            )

    def set_next_id(self, conn: sa.Connection) -> None:
        """After rows inserted with their own ids (rebuild), PostgreSQL's id sequence must move past them."""
        if self.backend == "postgresql":
            conn.execute(sa.text("SELECT setval(pg_get_serial_sequence('reports', 'id'), COALESCE((SELECT MAX(id) FROM reports), 0) + 1, false)"))

    def all_reports(self, conn: sa.Connection) -> list[Any]:
        return list(conn.execute(sa.select(reports).order_by(reports.c.id)).all())

    def query(self, conn: sa.Connection, f: Filters) -> list[Any]:
        stmt = sa.select(reports).order_by(reports.c.id)
        if f.vendor is not None or f.offer is not None:
            matching = sa.select(offers.c.report_id)
            if f.vendor is not None:
                matching = matching.where(sa.func.lower(offers.c.vendor) == f.vendor.lower())
            if f.offer is not None:
                matching = matching.where(offers.c.offer_id == f.offer)
            stmt = stmt.where(reports.c.id.in_(matching))
        if f.outcome is not None:
            stmt = stmt.where(reports.c.outcome == f.outcome)
        if f.signer is not None:
            stmt = stmt.where(reports.c.fingerprint_sha256.like(f.signer.lower().replace(":", "") + "%"))
        if f.since is not None:
            stmt = stmt.where(reports.c.assessed_at >= f.since)
        if f.before is not None:
            stmt = stmt.where(reports.c.assessed_at < f.before)
        if f.catalog is not None:
            stmt = stmt.where(reports.c.catalog == f.catalog)
        return list(conn.execute(stmt).all())

    def details(self, conn: sa.Connection, report_ids: list[int]) -> dict[int, dict[str, list[Any]]]:
        """Each report's offers, claims and inputs."""
        out: dict[int, dict[str, list[Any]]] = {i: {"offers": [], "claims": [], "inputs": [], "withdrawn": [], "verified": []} for i in report_ids}
        if not report_ids:
            return out
        for name, table, order in (
            ("offers", offers, (offers.c.report_id, offers.c.position)),
            ("claims", claims, (claims.c.report_id, claims.c.position, claims.c.seq)),
            ("inputs", inputs, (inputs.c.report_id, inputs.c.attachment)),
            ("withdrawn", withdrawals, (withdrawals.c.report_id,)),
            ("verified", verifications, (verifications.c.report_id,)),
        ):
            # Chunked: a long IN list is slower than a few shorter ones on both databases.
            for start in range(0, len(report_ids), 500):
                chunk = report_ids[start : start + 500]
                for row in conn.execute(sa.select(table).where(table.c.report_id.in_(chunk)).order_by(*order)):
                    out[row.report_id][name].append(row)
        return out


def codes_of(claim_row: Any) -> list[str]:
    return json.loads(claim_row.codes)


def _one_line(exc: Exception) -> str:
    return " ".join(str(getattr(exc, "orig", exc)).split())[:200]
