"""Fixtures for the archive tests: signed reports made once, a real PostgreSQL server, the backends.

The PostgreSQL server is Debian's (`scripts/setup test` installs `postgresql`): a throwaway cluster
in a temporary folder, reached over a Unix socket there, never over the network; started as the
`postgres` user when the tests run as root (the server refuses root), stopped and removed at the end.
Without it the PostgreSQL cases skip with the reason.
"""

from __future__ import annotations

import glob
import itertools
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import sqlalchemy as sa
from conftest import ROOT, example


class Reports:
    """Signed reports, rendered once per kind and re-signed for each copy: pyHanko writes a new
    document id with every signature, so each copy is a distinct file that passes verify."""

    def __init__(self, folder: Path) -> None:
        from evaluator.report.signing import keygen

        self.folder = folder
        self.key, self.cert = keygen(folder / "assessor", common_name="Archive Assessor", force=False)
        self.other_key, self.other_cert = keygen(folder / "stranger", common_name="Unknown Assessor", force=False)
        self._unsigned: dict[str, bytes] = {}
        self._count = itertools.count(1)

    def unsigned(self, kind: str) -> bytes:
        if kind not in self._unsigned:
            self._unsigned[kind] = _render(kind)
        return self._unsigned[kind]

    def signed(self, kind: str = "offer-b", *, stranger: bool = False, name: str | None = None) -> Path:
        from evaluator.report.signing import load_identity, sign

        key, cert = (self.other_key, self.other_cert) if stranger else (self.key, self.cert)
        identity = load_identity(key=key, cert=cert, pkcs12=None, password_file=None)
        path = self.folder / (name or f"{kind}-{next(self._count)}.pdf")
        path.write_bytes(sign(self.unsigned(kind), identity))
        return path

    def timestamped(self) -> tuple[Path, str, Path]:
        """A report whose signature carries an RFC 3161 time stamp (PAdES B-T) from a throwaway
        authority (pyHanko's in-process DummyTimeStamper); (the report, the authority's fingerprint,
        the authority's certificate: the anchor an archive must trust for it)."""
        import datetime as dt
        import hashlib
        import io

        from asn1crypto import keys as asn1_keys
        from asn1crypto import x509 as asn1_x509
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
        from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
        from pyhanko.sign import fields
        from pyhanko.sign.signers import PdfSignatureMetadata, PdfSigner
        from pyhanko.sign.timestamps.dummy_client import DummyTimeStamper

        from evaluator._infra.aio import run
        from evaluator.report.signing import FIELD_NAME, load_identity

        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Test Time-Stamping Authority")])
        now = dt.datetime.now(dt.timezone.utc)
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=30))
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True)
            .sign(key, hashes.SHA256())
        )
        der = cert.public_bytes(serialization.Encoding.DER)
        stamper = DummyTimeStamper(
            asn1_x509.Certificate.load(der),
            asn1_keys.PrivateKeyInfo.load(
                key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
            ),
        )
        identity = load_identity(key=self.key, cert=self.cert, pkcs12=None, password_file=None)
        meta = PdfSignatureMetadata(field_name=FIELD_NAME, subfilter=fields.SigSeedSubFilter.PADES, md_algorithm="sha256")
        out = io.BytesIO()
        signer = PdfSigner(meta, signer=identity.signer, timestamper=stamper)
        run(lambda: signer.async_sign_pdf(IncrementalPdfFileWriter(io.BytesIO(self.unsigned("offer-b"))), output=out))
        n = next(self._count)
        path = self.folder / f"timestamped-{n}.pdf"
        path.write_bytes(out.getvalue())
        authority = self.folder / f"tsa-{n}.pem"
        authority.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        return path, hashlib.sha256(der).hexdigest(), authority

    def draft(self, kind: str = "offer-b") -> Path:
        path = self.folder / f"draft-{next(self._count)}.pdf"
        path.write_bytes(self.unsigned(kind))
        return path


def _render(kind: str) -> bytes:
    from evaluator.pipeline import assess_paths
    from evaluator.report import render as render_module

    if kind == "offer-b":
        files = ["sd201-offer-b.json"]
    elif kind == "offer-a":
        files = ["sd201-offer-a.json"]
    elif kind == "older-catalog":
        files = ["sd201-offer-b.json"]
    elif kind == "requirements":
        files = ["sd201-offer-a.json", "sd201-offer-b.json"]
    else:
        raise AssertionError(kind)
    # Relative names, as a user in the repository would give them: the report keeps only the file names.
    names = [os.path.relpath(example(f), ROOT) for f in files]
    profile = os.path.relpath(example("requirements-sd201.yaml"), ROOT) if kind == "requirements" else None
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        assessed = assess_paths(names, profile=profile, for_report=True)  # as `sdeval render` names them
    finally:
        os.chdir(cwd)
    if kind == "older-catalog":
        # A report as sdeval 0.1.0's rule catalog (1.2) made it: its one claim was not established, on a
        # finding today's catalog no longer makes. The archive admits it (a real older catalog may differ).
        def older(doc):
            doc["tool"].update(version="0.1.0", rule_catalog_version="1.2")
            claim = doc["files"][0]["claims"][0]
            claim["verdict"] = "not-established"
            claim["findings"].append({"code": "load-unstated", "severity": "error", "path": "/claims/0"})
            doc["findings"].append(
                {
                    "file": doc["files"][0]["file"],
                    "code": "load-unstated",
                    "severity": "error",
                    "path": "/claims/0",
                    "message": "the claim states no concurrency",
                    "claim": claim["id"],
                    "run": None,
                    "line": None,
                    "column": None,
                }
            )
            doc["files"][0]["outcome"] = doc["outcome"] = "not-established"

        older(assessed.document)
    return render_module.render_pdf(assessed, signer="Archive Assessor")


@pytest.fixture(scope="session")
def reports(tmp_path_factory) -> Reports:
    return Reports(tmp_path_factory.mktemp("reports"))


# ---------------------------------------------------------------------------- PostgreSQL


def _bindir() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if found:
        return os.path.dirname(found[-1])
    pg_ctl = shutil.which("pg_ctl")
    return os.path.dirname(pg_ctl) if pg_ctl else None


class PostgresServer:
    def __init__(self, folder: str) -> None:
        self.folder = folder
        self._names = itertools.count(1)

    def url(self, database: str) -> str:
        return f"postgresql://postgres@/{database}?host={self.folder}"

    def new_database(self) -> str:
        import psycopg

        name = f"archive_{next(self._names)}"
        with psycopg.connect(host=self.folder, user="postgres", dbname="postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


@pytest.fixture(scope="session")
def pg_server():
    bindir = _bindir()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (scripts/setup test installs Debian's postgresql)")
    folder = tempfile.mkdtemp(prefix="sdeval-pg-")  # short: a Unix socket path has ~107 bytes
    as_user: list[str] = []
    if os.geteuid() == 0:
        import pwd

        try:
            account = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(folder)
            pytest.skip("running as root and there is no postgres user to run the server as")
        os.chown(folder, account.pw_uid, account.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data, log = os.path.join(folder, "data"), os.path.join(folder, "server.log")
    steps = [
        [f"{bindir}/initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"],
        [
            f"{bindir}/pg_ctl",
            "-D",
            data,
            "-l",
            log,
            "-w",
            "-t",
            "60",
            "-o",
            f"-c listen_addresses='' -c unix_socket_directories={folder} -c fsync=off",
            "start",
        ],
    ]
    for step in steps:
        done = subprocess.run(as_user + step, capture_output=True, text=True)
        if done.returncode != 0:
            reason = (done.stderr.strip().splitlines() or ["no message"])[-1]
            shutil.rmtree(folder, ignore_errors=True)
            pytest.skip(f"PostgreSQL could not be started ({os.path.basename(step[0])}: {reason})")
    stop = as_user + [f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "stop"]
    # pytest killed (a timeout's SIGTERM, SIGKILL) runs no `finally`: a watcher in a session of its
    # own stops the cluster once this process is gone, so no server outlives the tests.
    watcher = subprocess.Popen(
        ["sh", "-c", f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 1; done; {shlex.join(stop)} >/dev/null 2>&1; rm -rf {shlex.quote(folder)}"],
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield PostgresServer(folder)
    finally:
        subprocess.run(stop, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
        watcher.kill()
        watcher.wait()


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request) -> str | None:
    """The index: None for SQLite in the archive folder, or a fresh PostgreSQL database's URL."""
    if request.param == "sqlite":
        return None
    return request.getfixturevalue("pg_server").new_database()


# ---------------------------------------------------------------------------- running commands


@pytest.fixture
def archive(tmp_path, sdeval, reports, db):
    """A fresh archive trusting the test assessor; `run(command, *args)` runs `sdeval archive COMMAND`."""
    root = tmp_path / "archive"
    out = sdeval(*archive_args("init", root, db, "--trust", reports.cert))
    assert out.exit_code == 0, out.stderr

    class Archive:
        def __init__(self):
            self.root, self.db = root, db

        def run(self, command, *args):
            return sdeval(*archive_args(command, root, db, *args))

        def engine(self):
            return sa.create_engine(db.replace("postgresql://", "postgresql+psycopg://") if db else f"sqlite:///{root / 'index.sqlite'}")

        def objects(self):
            return sorted(p.name for p in (root / "objects").rglob("*.pdf"))

    return Archive()


def archive_args(command: str, root: Path, db: str | None, *args) -> list[str]:
    return ["archive", command, "--archive", str(root), *(["--db", db] if db else []), *[str(a) for a in args]]


def sdeval_process(*args: str, env: dict | None = None, **kwargs) -> subprocess.Popen:
    """`sdeval ARGS` as its own process (for killing it, or running two at once)."""
    return subprocess.Popen(
        [sys.executable, "-m", "evaluator", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )
