"""Issue 43: the log's head anchored with an RFC 3161 time-stamping authority (a real one, on
127.0.0.1: tests/support/local_pki.py). Someone who rewrites the index, log.jsonl and archive.json
together, consistently, is found by the anchors; each anchor verifies offline, with the authority's
root only. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
import sqlalchemy as sa
from support.archive_fixtures import archive_args
from support.archive_state import snapshot_index
from support.local_pki import TsaServer

from evaluator.archive import log as action_log

pytestmark = pytest.mark.archive

TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"


@pytest.fixture
def tsa():
    server = TsaServer(lifetime=600)
    yield server
    server.stop()


@pytest.fixture
def anchored(tmp_path, sdeval, reports, db, tsa):
    """An archive anchored with the local authority from its init on, holding two reports."""
    root = tmp_path / "archive"
    tsa_root = tmp_path / "tsa-root.pem"
    tsa_root.write_bytes(tsa.pki.tsa_root.pem())
    out = sdeval(*archive_args("init", root, db, "--trust", reports.cert, "--trust", tsa_root, "--tsa", tsa.tsa_url))
    assert out.exit_code == 0, out.stdout + out.stderr

    class Archive:
        def __init__(self):
            self.root, self.db, self.tsa_root = root, db, tsa_root

        def run(self, command, *args):
            return sdeval(*archive_args(command, root, db, *args))

        def engine(self):
            return sa.create_engine(db.replace("postgresql://", "postgresql+psycopg://") if db else f"sqlite:///{root / 'index.sqlite'}")

        def anchors(self) -> list[str]:
            return sorted(p.stem for p in (root / "log-anchors").glob("*.json"))

    archive = Archive()
    for kind in ("offer-b", "offer-a"):
        added = archive.run("add", reports.signed(kind))
        assert added.exit_code == 0, added.stdout + added.stderr
    return archive


def kept_log(archive) -> list[action_log.Entry]:
    return action_log.read_file(archive.root / "log.jsonl")


def rewrite_log(archive, entries: list[action_log.Entry]) -> None:
    """What someone with write access to everything leaves: the index's log and log.jsonl both
    exactly `entries`, each chained to the one before (so the chain check alone passes)."""
    chained, prev = [], action_log.GENESIS
    for e in entries:
        digest = action_log.entry_hash(e.seq, e.time, e.user, e.action, e.detail, prev)
        chained.append(action_log.Entry(e.seq, e.time, e.user, e.action, e.detail, prev, digest))
        prev = digest
    engine = archive.engine()
    with engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM action_log"))
        for e in chained:
            conn.execute(
                sa.text("INSERT INTO action_log VALUES (:seq, :time, :user, :action, :detail, :prev, :hash)"),
                dict(seq=e.seq, time=e.time, user=e.user, action=e.action, detail=e.detail, prev=e.prev_hash, hash=e.hash),
            )
    engine.dispose()
    path = archive.root / "log.jsonl"
    path.write_bytes(b"".join(action_log.line_of(e) for e in chained))


def remove_last_report(archive) -> None:
    """The newest report gone from the index and objects/, as if it had never been admitted."""
    engine = archive.engine()
    with engine.begin() as conn:
        report_id, stored = conn.execute(sa.text("SELECT id, stored_as FROM reports ORDER BY id DESC LIMIT 1")).one()
        for table in ("offers", "claims", "inputs", "last_verifications", "withdrawals"):
            conn.execute(sa.text(f"DELETE FROM {table} WHERE report_id = :i"), {"i": report_id})
        conn.execute(sa.text("DELETE FROM reports WHERE id = :i"), {"i": report_id})
    engine.dispose()
    path = archive.root / stored
    path.chmod(0o644)
    path.unlink()


def broken(out) -> list[str]:
    assert out.exit_code == 1, out.stdout + out.stderr
    return [line.removeprefix("BROKEN: ") for line in out.stdout.splitlines()]


def test_every_write_is_anchored_and_an_intact_archive_passes_offline(anchored, tsa):
    # init, then each add: one anchor per write, each over the head that write left
    names = anchored.anchors()
    assert [int(n[:8]) for n in names] == [1, 2, 3]
    head = kept_log(anchored)[-1]
    statement = json.loads((anchored.root / "log-anchors" / f"{names[-1]}.json").read_bytes())
    assert (statement["entries"], statement["head_hash"], statement["archive_id"]) == (
        3,
        head.hash,
        json.loads((anchored.root / "archive.json").read_bytes())["archive_id"],
    )
    tsa.stop()  # checking the anchors needs no authority: they are verified offline
    check = anchored.run("log", "--check")
    assert check.exit_code == 0, check.stdout
    assert re.fullmatch(
        rf"log intact: 3 entries, each chained to the one before; head hash {head.hash}; "
        rf"3 anchors verified, the newest witnessing entry 3 at {TIME} \(log-anchors/{names[-1]}\)\n",
        check.stdout,
    ), check.stdout
    verified = anchored.run("verify")
    assert verified.exit_code == 0 and verified.stdout == "verified 2 reports: 2 passed, 0 failed\n"
    # verify wrote its entry; with the authority gone the head is not anchored, and it says so
    assert "sdeval: note: the log head was not anchored (--tsa " in verified.stderr


def test_an_anchor_verifies_with_openssl_and_the_authoritys_root(anchored):
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command")
    name = anchored.anchors()[-1]
    folder = anchored.root / "log-anchors"
    args = ["openssl", "ts", "-verify", "-data", folder / f"{name}.json", "-in", folder / f"{name}.tst", "-token_in"]
    done = subprocess.run([*map(str, args), "-CAfile", str(anchored.tsa_root)], capture_output=True, text=True)
    assert done.returncode == 0 and "Verification: OK" in done.stdout, done.stdout + done.stderr


def test_a_removed_tail_fails_naming_the_anchor_and_its_time(anchored):
    name = anchored.anchors()[-1]
    witnessed = kept_log(anchored)[-1]
    remove_last_report(anchored)
    rewrite_log(anchored, kept_log(anchored)[:-1])
    lines = broken(anchored.run("log", "--check"))
    for where in ("log.jsonl", "the index's log"):
        assert any(
            re.fullmatch(
                rf"anchor log-anchors/{name} of {TIME} witnessed entry 3 \(hash {witnessed.hash}\), but {re.escape(where)} ends at entry 2: "
                "its newest entries were removed, or a copy from before the anchor was restored",
                line,
            )
            for line in lines
        ), lines
    out = anchored.run("verify")
    assert out.exit_code == 1 and f"FAIL log: anchor log-anchors/{name} of " in out.stdout


def test_a_rewritten_entry_fails_naming_every_anchor_that_witnessed_it(anchored):
    entries = kept_log(anchored)
    detail = json.loads(entries[1].detail)
    detail["summary"] = detail["summary"].replace("admitted", "ADMITTED")
    entries[1] = action_log.Entry(entries[1].seq, entries[1].time, entries[1].user, entries[1].action, action_log.canonical(detail), "", "")
    rewrite_log(anchored, entries)
    assert anchored.run("log").exit_code == 0  # the chain itself holds: only the anchors know
    lines = broken(anchored.run("log", "--check"))
    names = anchored.anchors()
    expected = [
        rf"anchor log-anchors/{name} of {TIME} witnessed entry {seq} with hash [0-9a-f]{{64}}; {re.escape(where)} has another: the log was rewritten"
        for name, seq in ((names[1], 2), (names[2], 3))
        for where in ("log.jsonl", "the index's log")
    ]
    assert len(lines) == 4 and all(re.fullmatch(p, line) for p, line in zip(expected, lines)), lines


def test_an_index_restored_from_before_an_anchor_fails(anchored, reports, request):
    restore = snapshot_index(anchored, request.getfixturevalue("pg_server") if anchored.db else None)
    before = (anchored.root / "log.jsonl").read_bytes()
    later = reports.signed()
    assert anchored.run("add", later).exit_code == 0
    name = anchored.anchors()[-1]
    restore()  # the older index, and log.jsonl and objects/ made to agree with it
    (anchored.root / "log.jsonl").write_bytes(before)
    stored = next(p for p in (anchored.root / "objects").rglob("*.pdf") if p.read_bytes() == later.read_bytes())
    stored.chmod(0o644)
    stored.unlink()
    lines = broken(anchored.run("log", "--check"))
    assert len(lines) == 2 and all(line.startswith(f"anchor log-anchors/{name} of ") and "witnessed entry 4" in line for line in lines), lines


@pytest.mark.parametrize("how", ["dropped", "another root"])
def test_a_replaced_archive_json_fails(anchored, reports, how):
    path = anchored.root / "archive.json"
    doc = json.loads(path.read_bytes())
    if how == "dropped":
        del doc["anchoring"]  # as if the archive had never been anchored
    else:  # the report signer's root (also a trust anchor of this archive) put in the authority's place
        from evaluator.archive.verification import fingerprint, load_certificates

        doc["anchoring"]["root"] = fingerprint(load_certificates(reports.cert)[0])
    path.chmod(0o644)
    path.write_text(json.dumps(doc, indent=2) + "\n")
    lines = broken(anchored.run("log", "--check"))
    names = anchored.anchors()
    why = "archive.json names no anchoring root to check it against" if how == "dropped" else "its authority does not chain to the anchoring root"
    assert lines == [f"anchor log-anchors/{name}: {why}" for name in names]


def test_a_changed_statement_fails(anchored):
    name = anchored.anchors()[0]
    path = anchored.root / "log-anchors" / f"{name}.json"
    path.chmod(0o644)
    path.write_bytes(path.read_bytes().replace(b'"entries":1', b'"entries":2'))
    lines = broken(anchored.run("log", "--check"))
    assert lines[0] == f"anchor log-anchors/{name}: its time stamp does not cover this statement (the statement was changed)"


def test_anchor_configures_an_existing_archive_and_names_a_missing_root(archive, reports, tsa, tmp_path):
    assert archive.run("add", reports.signed()).exit_code == 0
    refused = archive.run("anchor", "--tsa", tsa.tsa_url)
    assert refused.exit_code == 2
    assert refused.stderr.startswith(f"sdeval: --tsa {tsa.tsa_url}: its time stamps (")
    assert "do not chain to any of the archive's trust anchors" in refused.stderr and "give the authority's root with --trust" in refused.stderr
    assert not (archive.root / "log-anchors").exists()
    root = tmp_path / "tsa-root.pem"
    root.write_bytes(tsa.pki.tsa_root.pem())
    out = archive.run("anchor", "--tsa", tsa.tsa_url, "--trust", root)
    assert out.exit_code == 0, out.stdout + out.stderr
    head = kept_log(archive)[-1]  # the trust anchor's entry
    assert head.action == "trust"
    assert re.search(rf"log head anchored: entry {head.seq} \(hash {head.hash}\) at {TIME} by .*sdeval test TSA", out.stdout), out.stdout
    assert archive.run("log", "--check").exit_code == 0
    again = archive.run("add", reports.signed("offer-a"))  # from now on, every write is anchored
    assert f"log head anchored: entry {head.seq + 1} " in again.stderr
