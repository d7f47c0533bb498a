"""`sdeval archive`: every command, on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import stat
import subprocess
import sys

import pytest
import sqlalchemy as sa
from conftest import ROOT
from support.archive_fixtures import archive_args
from support.archive_state import sha256
from support.pdf_helpers import flip

from evaluator import __version__
from evaluator.rules import RULE_CATALOG_VERSION

pytestmark = pytest.mark.archive


# ---------------------------------------------------------------------------- init


def test_init_records_the_anchors_and_a_second_init_changes_nothing_without_add_trust(archive, reports):
    from evaluator.archive.verification import fingerprint, load_certificates

    fpr = fingerprint(load_certificates(reports.cert)[0])
    assert (archive.root / "anchors" / f"{fpr}.pem").read_bytes().startswith(b"-----BEGIN CERTIFICATE-----\n")
    assert stat.S_IMODE((archive.root / "anchors" / f"{fpr}.pem").stat().st_mode) == 0o444
    description = json.loads((archive.root / "archive.json").read_text())
    assert description["format"] == "sdeval-archive"
    if archive.db is None:
        assert description["index"] == "sqlite"
    else:  # the URL, without a password, so later commands find the index without --db
        assert sa.make_url(description["index"]) == sa.make_url(archive.db)

    again = archive.run("init", "--trust", reports.cert)
    assert again.exit_code == 0
    assert again.stdout == f"{archive.root}: already an archive with 1 trust anchor; nothing changed\n"

    other = archive.run("init", "--trust", reports.other_cert)
    assert other.exit_code == 2
    assert other.stderr == (
        f"sdeval: {archive.root}: already an archive; nothing changed ({reports.other_cert}: not among its trust anchors; pass --add-trust to add)\n"
    )
    assert len(list((archive.root / "anchors").iterdir())) == 1

    added = archive.run("init", "--trust", reports.other_cert, "--add-trust")
    assert added.exit_code == 0, added.stderr
    assert added.stdout.startswith(
        f"{archive.root}: added 1 trust anchor\n  anchor O=sdeval trial identity (self-signed),CN=Unknown Assessor (SHA-256 "
    )
    assert len(list((archive.root / "anchors").iterdir())) == 2
    log = archive.run("log", "-f", "json").json()["entries"]
    assert [e["action"] for e in log] == ["init", "trust"]


def test_init_needs_trust_and_a_fresh_folder(tmp_path, sdeval, reports):
    out = sdeval(*archive_args("init", tmp_path / "a", None))
    assert out.exit_code == 2
    assert out.stderr == "sdeval: give the archive's trust anchors: --trust CERT.pem (signers' and time-stamping authorities' roots)\n"
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    out = sdeval(*archive_args("init", tmp_path / "busy", None, "--trust", reports.cert))
    assert out.exit_code == 2
    assert out.stderr == f"sdeval: {tmp_path / 'busy'}: exists and holds other files; give a new or empty folder\n"
    out = sdeval(*archive_args("init", tmp_path / "a", None, "--trust", ROOT / "README.md"))
    assert out.exit_code == 2
    assert out.stderr == f"sdeval: {ROOT / 'README.md'}: not a certificate (PEM or DER) (--trust)\n"
    out = sdeval("archive", "list", "--archive", tmp_path / "nowhere")
    assert out.exit_code == 2
    assert out.stderr == f"sdeval: {tmp_path / 'nowhere'}: no such folder; create the archive with `sdeval archive init`\n"


def test_the_archive_folder_and_index_can_come_from_the_environment(tmp_path, sdeval, reports, monkeypatch, db):
    monkeypatch.setenv("SDEVAL_ARCHIVE", str(tmp_path / "env-archive"))
    if db:
        monkeypatch.setenv("SDEVAL_ARCHIVE_DB", db)
    assert sdeval("archive", "init", "--trust", reports.cert).exit_code == 0
    assert sdeval("archive", "add", reports.signed()).exit_code == 0
    assert len(sdeval("archive", "list", "-f", "json").json()["reports"]) == 1


# ---------------------------------------------------------------------------- add


def test_add_admits_only_what_verifies_and_stores_each_report_once(archive, reports):
    first, second, offer_a = reports.signed(), reports.signed(), reports.signed("offer-a")
    stranger, draft = reports.signed(stranger=True), reports.draft()
    tampered = reports.folder / "tampered.pdf"
    data = first.read_bytes()
    tampered.write_bytes(flip(data, len(data) // 3))
    missing = reports.folder / "no-such.pdf"

    out = archive.run("add", first, second, offer_a, first, stranger, draft, tampered, missing)
    assert out.exit_code == 1
    lines = out.stdout.splitlines()
    assert lines[0] == f"admitted {first} as report 1 (SD-201 Offer B (fictional), SD-201-B; established; SHA-256 {sha256(first)})"
    assert lines[1] == f"admitted {second} as report 2 (SD-201 Offer B (fictional), SD-201-B; established; SHA-256 {sha256(second)})"
    assert lines[2] == f"admitted {offer_a} as report 3 (SD-201 Offer A (fictional), SD-201-A; not-established; SHA-256 {sha256(offer_a)})"
    assert lines[3] == f"{first}: already archived as report 1 (SHA-256 {sha256(first)}); stored once"
    assert lines[4].startswith(f"refused {stranger}: trust failed: the signer's certificate does not chain to a trust anchor ")
    assert lines[5] == f"refused {draft}: signature failed: the report is not signed (an unsigned draft)"
    assert lines[6].startswith(f"refused {tampered}: signature failed: ")
    assert lines[7] == f"refused {missing}: {missing}: cannot read (No such file or directory)"
    assert lines[8] == "3 admitted, 1 already archived, 4 refused"
    assert len(lines) == 9

    # Stored content-addressed and read-only; nothing refused is kept; nothing left in tmp/.
    assert archive.objects() == sorted(f"{sha256(p)}.pdf" for p in (first, second, offer_a))
    for p in (first, second, offer_a):
        stored = archive.root / "objects" / sha256(p)[:2] / f"{sha256(p)}.pdf"
        assert stored.read_bytes() == p.read_bytes()
        assert stat.S_IMODE(stored.stat().st_mode) == 0o444
    assert list((archive.root / "tmp").iterdir()) == []

    again = archive.run("add", second)
    assert again.exit_code == 0
    assert again.stdout == (
        f"{second}: already archived as report 2 (SHA-256 {sha256(second)}); stored once\n0 admitted, 1 already archived, 0 refused\n"
    )
    # Logged as it happened: the unreadable file is refused while copying, before any verification.
    actions = [(e["action"], e["detail"].get("source")) for e in archive.run("log", "-f", "json").json()["entries"]]
    assert actions == [
        ("init", None),
        ("refuse", str(missing)),
        ("add", str(first)),
        ("add", str(second)),
        ("add", str(offer_a)),
        ("add", str(first)),
        ("refuse", str(stranger)),
        ("refuse", str(draft)),
        ("refuse", str(tampered)),
        ("add", str(second)),
    ]


def test_add_indexes_every_fact_an_auditor_asks_for(archive, reports):
    from evaluator.archive.verification import fingerprint, load_certificates

    report = reports.signed("offer-a")
    assert archive.run("add", report).exit_code == 0
    shown = archive.run("show", "1", "-f", "json").json()
    assert shown["sha256"] == sha256(report)
    assert (shown["vendor"], shown["offer_id"], shown["offer_date"]) == ("SD-201 Offer A (fictional)", "SD-201-A", "2026-10-20")
    assert shown["outcome"] == "not-established" and shown["requirements_outcome"] is None
    assert (shown["catalog"], shown["sdeval_version"]) == (RULE_CATALOG_VERSION, __version__)
    assert shown["signer"] == "Archive Assessor"
    assert shown["signer_subject"] == "O=sdeval trial identity (self-signed),CN=Archive Assessor"
    assert shown["fingerprint_sha256"] == fingerprint(load_certificates(reports.cert)[0])
    assert shown["timestamp_time"] is None and shown["timestamp_authority"] is None
    assert shown["claims"] == [
        {"file": "sd201-offer-a.json", "id": "a-200", "kind": "output-throughput", "verdict": "not-established", "codes": ["throughput-basis"]}
    ]
    record = (ROOT / "examples" / "sd201-offer-a.json").read_bytes()
    inputs = {i["attachment"]: i for i in shown["inputs"]}
    assert inputs["sd201-offer-a.json"] == {
        "attachment": "sd201-offer-a.json",
        "file": "sd201-offer-a.json",
        "role": "evidence record",
        "sha256": hashlib.sha256(record).hexdigest(),
    }
    assert set(inputs) == {"sd201-offer-a.json", "assessment.json"}
    assert shown["admitted_by"] == __import__("pwd").getpwuid(os.getuid()).pw_name
    assert [c["name"] for c in shown["checks_at_admission"]] == ["signature", "timestamp", "trust", "attachments", "reproduction"]
    assert [c["status"] for c in shown["checks_at_admission"]] == ["pass", "none", "pass", "pass", "pass"]  # no timestamp: none
    assert shown["log_entry"] == 2
    text = archive.run("show", sha256(report)[:10])
    assert text.exit_code == 0
    assert "    claim a-200 (output-throughput): not-established [throughput-basis]" in text.stdout


def test_a_signature_time_stamp_is_indexed_with_its_authority(archive, reports):
    report, authority, authority_cert = reports.timestamped()
    refused = archive.run("add", report)  # the authority is not among the archive's anchors yet
    assert refused.exit_code == 1
    assert refused.stdout.startswith(f"refused {report}: timestamp failed: signature timestamp ")
    assert archive.run("init", "--trust", authority_cert, "--add-trust").exit_code == 0
    out = archive.run("add", report)
    assert out.exit_code == 0, out.stdout
    shown = archive.run("show", "1", "-f", "json").json()
    assert shown["timestamp_authority"] == "CN=Test Time-Stamping Authority"
    assert shown["timestamp_authority_fingerprint"] == authority
    stamped = __import__("datetime").datetime.fromisoformat(shown["timestamp_time"])
    admitted = __import__("datetime").datetime.fromisoformat(shown["admitted_at"])
    assert 0 <= (admitted - stamped).total_seconds() < 600
    assert archive.run("list", "-f", "json").json()["reports"][0]["timestamp_time"] == shown["timestamp_time"]


def test_a_report_with_buyer_requirements_indexes_each_offer_and_the_requirements_outcome(archive, reports):
    report = reports.signed("requirements")
    out = archive.run("add", report)
    assert out.exit_code == 0, out.stdout
    assert "as report 1 (SD-201 Offer A (fictional), SD-201-A; SD-201 Offer B (fictional), SD-201-B; not-established;" in out.stdout
    row = archive.run("list", "-f", "json").json()["reports"][0]
    assert row["requirements_outcome"] == "met"
    assert row["vendor"] == "SD-201 Offer A (fictional); SD-201 Offer B (fictional)"
    assert [o["outcome"] for o in row["offers"]] == ["not-established", "established"]
    profile = [i for i in archive.run("show", "1", "-f", "json").json()["inputs"] if i["role"] == "requirements profile"]
    assert profile[0]["file"] == "requirements-sd201.yaml"
    assert archive.run("list", "--vendor", "sd-201 offer b (fictional)", "-f", "json").json()["reports"][0]["id"] == 1


def test_strict_add_refuses_a_report_a_newer_catalog_assesses_differently(archive, reports):
    older = reports.signed("older-catalog")
    out = archive.run("add", "--strict", older)
    assert out.exit_code == 1
    assert out.stdout.startswith(
        f"refused {older}: reproduction failed: sdeval {__version__} (rule catalog {RULE_CATALOG_VERSION}) assesses the inputs differently"
    )
    assert archive.run("add", older).exit_code == 0


# ---------------------------------------------------------------------------- list


def test_list_filters_and_formats(archive, reports):
    b1, a1, b2 = reports.signed(), reports.signed("offer-a"), reports.signed(stranger=False)
    assert archive.run("add", b1, a1, b2).exit_code == 0
    everything = archive.run("list", "-f", "json").json()["reports"]
    assert [r["id"] for r in everything] == [1, 2, 3]
    first = everything[0]
    for key in ("id", "sha256", "vendor", "offer_id", "offer_date", "outcome", "signer", "fingerprint_sha256", "catalog", "admitted_at"):
        assert key in first
    assert first["sha256"] == sha256(b1)

    def ids(*args):
        out = archive.run("list", *args, "-f", "json")
        assert out.exit_code == 0, out.stderr
        return [r["id"] for r in out.json()["reports"]]

    fpr = first["fingerprint_sha256"]
    today = first["assessed_at"][:10]
    assert ids("--vendor", "SD-201 Offer A (fictional)") == [2]
    assert ids("--offer", "SD-201-B") == [1, 3]
    assert ids("--outcome", "not-established") == [2]
    assert ids("--outcome", "established", "--offer", "SD-201-A") == []
    assert ids("--signer", fpr[:12]) == [1, 2, 3]
    assert ids("--signer", "0" * 64) == []
    assert ids("--since", today, "--until", today) == [1, 2, 3]
    assert ids("--until", "2000-01-01") == []
    assert ids("--since", "2999-01-01") == []
    assert ids("--catalog", RULE_CATALOG_VERSION) == [1, 2, 3]
    assert ids("--catalog", "0.9") == []

    table = archive.run("list", "--offer", "SD-201-A")
    assert table.stdout.splitlines()[0].split() == [
        "id",
        "assessed",
        "vendor",
        "offer",
        "offer",
        "date",
        "outcome",
        "signer",
        "catalog",
        "sha256",
        "last",
        "verified",
        "status",
    ]
    assert table.stdout.splitlines()[-1] == "1 report"
    rows = list(csv.DictReader(io.StringIO(archive.run("list", "-f", "csv").stdout)))
    assert [r["id"] for r in rows] == ["1", "2", "3"] and rows[1]["outcome"] == "not-established"
    assert archive.run("list", "--vendor", "nobody").stdout == "no report matches\n"
    bad = archive.run("list", "--since", "last week")
    assert bad.exit_code == 2 and bad.stderr == "sdeval: 'last week': not a date (YYYY-MM-DD) or ISO 8601 time\n"


# ---------------------------------------------------------------------------- show / extract


def test_extract_writes_the_report_and_its_attachments(archive, reports, tmp_path):
    report = reports.signed("offer-a")
    archive.run("add", report)
    out = archive.run("extract", "1", "-o", tmp_path / "out")
    assert out.exit_code == 0, out.stderr
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == sorted([report.name, "sd201-offer-a.json", "assessment.json", "sdeval-report.json"])
    assert (tmp_path / "out" / report.name).read_bytes() == report.read_bytes()
    assert (tmp_path / "out" / "sd201-offer-a.json").read_bytes() == (ROOT / "examples" / "sd201-offer-a.json").read_bytes()
    again = archive.run("extract", "1", "-o", tmp_path / "out")
    assert again.exit_code == 2
    assert again.stderr.endswith("already exists; pass --force to replace it\n")
    assert archive.run("extract", "1", "-o", tmp_path / "out", "--force").exit_code == 0
    unknown = archive.run("show", "7")
    assert unknown.exit_code == 2 and unknown.stderr == "sdeval: no report 7 in the archive\n"


# ---------------------------------------------------------------------------- verify


def test_verify_names_a_changed_a_missing_and_an_unreadable_stored_file(archive, reports):
    paths = [reports.signed() for _ in range(4)]
    assert archive.run("add", *paths).exit_code == 0
    ok = archive.run("verify")
    assert ok.exit_code == 0
    assert ok.stdout == "verified 4 reports: 4 passed, 0 failed\n"

    stored = [archive.root / "objects" / sha256(p)[:2] / f"{sha256(p)}.pdf" for p in paths]
    os.chmod(stored[1], 0o644)
    stored[1].write_bytes(flip(stored[1].read_bytes(), 1000))
    stored[2].unlink()
    os.chmod(stored[3], 0o644)
    stored[3].unlink()
    stored[3].mkdir()  # unreadable as a file
    out = archive.run("verify")
    assert out.exit_code == 1
    rel = [str(p.relative_to(archive.root)) for p in stored]
    assert out.stdout.splitlines() == [
        f"FAIL report 2 ({rel[1]}): changed (SHA-256 {sha256(stored[1])}, the index says {sha256(paths[1])})",
        f"FAIL report 3 ({rel[2]}): missing",
        f"FAIL report 4 ({rel[3]}): unreadable (Is a directory)",
        "verified 4 reports: 1 passed, 3 failed",
    ]
    # Neither extract nor rejudge uses a stored file that is not the one admitted.
    extracted = archive.run("extract", "2", "-o", archive.root.parent / "out")
    assert extracted.exit_code == 2
    assert extracted.stderr == f"sdeval: report 2: {rel[1]}: changed (SHA-256 {sha256(stored[1])}, the index says {sha256(paths[1])})\n"
    rejudged = archive.run("rejudge").stdout.splitlines()
    assert rejudged[0].endswith(
        f"catalog {RULE_CATALOG_VERSION} -> {RULE_CATALOG_VERSION}): {rel[1]}: changed (SHA-256 {sha256(stored[1])}, the index says {sha256(paths[1])})"
    )
    assert rejudged[1].endswith(f"catalog {RULE_CATALOG_VERSION} -> {RULE_CATALOG_VERSION}): {rel[2]}: missing")
    assert (
        rejudged[-1]
        == f"rejudged 4 reports with rule catalog {RULE_CATALOG_VERSION}: 0 would change verdicts, 0 differ only in findings, 1 unchanged, 3 could not be re-assessed"
    )
    doc = archive.run("verify", "1", "2", "-f", "json").json()
    assert doc["summary"] == {"reports": 2, "passed": 1, "failed": 1, "withdrawn": 0, "archive_problems": 0}
    assert [r["passed"] for r in doc["reports"]] == [True, False]
    assert [c["name"] for c in doc["reports"][0]["checks"]] == ["signature", "timestamp", "trust", "attachments", "reproduction"]
    entries = archive.run("log", "-f", "json").json()["entries"]
    assert [e["detail"]["summary"] for e in entries if e["action"] == "verify"] == [
        "verified 4 reports: 4 passed, 0 failed",
        "verified 4 reports: 1 passed, 3 failed",
        "verified 2 reports: 1 passed, 1 failed",
    ]


def test_verify_fails_a_stored_report_whose_signer_the_archive_no_longer_trusts(archive, reports):
    """The full verification runs again, not only the hash: with the signer's certificate gone
    from the anchors (its file and row replaced by a stranger's), the stored report fails trust."""
    from evaluator.archive.verification import fingerprint, load_certificates

    report = reports.signed()
    archive.run("add", report)
    real = fingerprint(load_certificates(reports.cert)[0])
    other = fingerprint(load_certificates(reports.other_cert)[0])
    anchor = archive.root / "anchors" / f"{real}.pem"
    os.chmod(anchor, 0o644)
    anchor.rename(archive.root / "anchors" / f"{other}.pem")
    (archive.root / "anchors" / f"{other}.pem").write_bytes(reports.other_cert.read_bytes())
    _tamper(archive, f"UPDATE anchors SET fingerprint_sha256 = '{other}', file = 'anchors/{other}.pem'")
    out = archive.run("verify")
    assert out.exit_code == 1
    assert "trust failed: the signer's certificate does not chain to a trust anchor" in out.stdout


# ---------------------------------------------------------------------------- rejudge


def test_rejudge_lists_the_reports_whose_verdicts_the_installed_catalog_changes(archive, reports):
    current, older = reports.signed(), reports.signed("older-catalog")
    assert archive.run("add", current, older).exit_code == 0
    before = {p.name: p.read_bytes() for p in (archive.root / "objects").rglob("*.pdf")}
    listed_before = archive.run("list", "-f", "json").json()

    out = archive.run("rejudge")
    assert out.exit_code == 1
    assert out.stdout.splitlines() == [
        f"report 2 (SD-201 Offer B (fictional), SD-201-B; {sha256(older)[:12]}; catalog 1.2 -> {RULE_CATALOG_VERSION}): outcome not-established -> established",
        "  claim b-200 (sd201-offer-b.json): not-established -> established [-load-unstated]",
        f"rejudged 2 reports with rule catalog {RULE_CATALOG_VERSION}: 1 would change verdicts, 0 differ only in findings, 1 unchanged",
    ]
    doc = archive.run("rejudge", "-f", "json").json()
    assert doc["reports"][0]["claims"] == [
        {
            "file": "sd201-offer-b.json",
            "claim": "b-200",
            "before": "not-established",
            "after": "established",
            "verdict_changed": True,
            "codes_appeared": [],
            "codes_disappeared": ["load-unstated"],
        }
    ]
    # Nothing archived changed.
    assert {p.name: p.read_bytes() for p in (archive.root / "objects").rglob("*.pdf")} == before
    assert archive.run("list", "-f", "json").json() == listed_before
    only_current = archive.run("rejudge", "1")
    assert only_current.exit_code == 0
    assert (
        only_current.stdout
        == f"rejudged 1 report with rule catalog {RULE_CATALOG_VERSION}: 0 would change verdicts, 0 differ only in findings, 1 unchanged\n"
    )


def test_rejudge_with_a_changed_rule_catalog_names_codes_that_appear(archive, reports, monkeypatch):
    """A catalog whose `throughput-basis` no longer fires: offer A's claim would now be judged on
    what remains, and the code disappears; offer B's report is untouched."""
    from evaluator.rules import REGISTRY

    a, b = reports.signed("offer-a"), reports.signed()
    archive.run("add", a, b)
    rule = REGISTRY["throughput-basis"]
    monkeypatch.setitem(REGISTRY, "throughput-basis", type(rule)(**{**rule.__dict__, "check": lambda ctx: iter(())}))
    out = archive.run("rejudge")
    assert out.exit_code == 1
    lines = out.stdout.splitlines()
    assert lines[0].startswith("report 1 (SD-201 Offer A (fictional), SD-201-A; ")
    assert lines[1].startswith("  claim a-200 (sd201-offer-a.json): not-established -> ")
    assert "-throughput-basis" in lines[1]
    assert lines[-1].startswith(f"rejudged 2 reports with rule catalog {RULE_CATALOG_VERSION}: 1 would change verdicts")


# ---------------------------------------------------------------------------- log


def _tamper(archive, statement: str) -> None:
    with archive.engine().begin() as conn:
        conn.execute(sa.text(statement))


def test_log_check_finds_an_edited_entry(archive, reports):
    signed = reports.signed()
    archive.run("add", signed, reports.draft())
    archive.run("verify")
    intact = archive.run("log", "--check")
    assert intact.exit_code == 0
    assert intact.stdout.startswith("log intact: 4 entries, each chained to the one before; head hash ")
    listing = archive.run("log").stdout.splitlines()
    assert [line.split()[0] for line in listing] == ["1", "2", "3", "4"]
    assert listing[1].endswith(f"admitted {signed}: SD-201 Offer B (fictional), SD-201-B (established)")
    assert listing[2].split()[3] == "refuse"

    _tamper(archive, "UPDATE action_log SET detail = replace(detail, 'refused', 'admitted') WHERE seq = 3")
    out = archive.run("log", "--check")
    assert out.exit_code == 1
    assert out.stdout == "BROKEN: entry 3 was edited: its content does not match its hash\n"
    doc = archive.run("log", "--check", "-f", "json").json()["check"]
    assert doc["intact"] is False and doc["problems"] == ["entry 3 was edited: its content does not match its hash"]


def test_log_check_finds_a_rehashed_edit_and_a_removed_entry(archive, reports):
    from evaluator.archive.log import entry_hash

    archive.run("add", reports.signed(), reports.signed())
    archive.run("verify")
    archive.run("rejudge")
    with archive.engine().begin() as conn:
        row = conn.execute(sa.text("SELECT * FROM action_log WHERE seq = 2")).mappings().one()
        forged = row["user_name"] + "-forged"
        digest = entry_hash(2, row["time"], forged, row["action"], row["detail"], row["prev_hash"])
        conn.execute(sa.text("UPDATE action_log SET user_name = :u, hash = :h WHERE seq = 2"), {"u": forged, "h": digest})
    kept = json.loads((archive.root / "log.jsonl").read_text().splitlines()[1])["hash"]
    # The rehashed entry also differs from the folder's copy of the log (log.jsonl).
    differs = f"BROKEN: entry 2 differs: the index has hash {digest}, log.jsonl has {kept}"
    out = archive.run("log", "--check")
    assert out.stdout.splitlines() == ["BROKEN: entry 3 does not follow entry 2: entry 2 was edited or replaced", differs]

    _tamper(archive, "DELETE FROM action_log WHERE seq = 4")
    out = archive.run("log", "--check")
    assert out.exit_code == 1
    assert out.stdout.splitlines() == [
        "BROKEN: entry 3 does not follow entry 2: entry 2 was edited or replaced",
        "BROKEN: entry 4 is missing: removed from the log",
        differs,
    ]
    # The newest entries removed: the chain left still holds, but an admitted report names its entry.
    _tamper(archive, "DELETE FROM action_log WHERE seq >= 3")
    out = archive.run("log", "--check")
    assert "BROKEN: entry 3, which admitted report 2, is missing: removed from the log" in out.stdout.splitlines()


# ---------------------------------------------------------------------------- schema, imports


def test_an_index_written_by_a_newer_sdeval_is_refused(archive):
    _tamper(archive, "UPDATE archive_meta SET value = '99' WHERE key = 'schema_version'")
    out = archive.run("list")
    assert out.exit_code == 2
    assert out.stderr.endswith(": index schema version 99 was written by a newer sdeval (this one knows 2)\n")


def test_an_older_index_is_migrated_step_by_step_when_opened(archive, reports, monkeypatch):
    """The migration machinery, with a made-up version 3 that adds a column: an index at version 2
    is brought to 3 by the next command, its reports kept."""
    from evaluator.archive import index

    archive.run("add", reports.signed())

    def to_v2(conn):
        conn.execute(sa.text("ALTER TABLE reports ADD COLUMN retention_until VARCHAR(40)"))

    monkeypatch.setattr(index, "SCHEMA_VERSION", 3)
    monkeypatch.setitem(index.MIGRATIONS, 3, to_v2)
    out = archive.run("list", "-f", "json")
    assert out.exit_code == 0, out.stderr
    assert [r["id"] for r in out.json()["reports"]] == [1]
    with archive.engine().connect() as conn:
        assert conn.execute(sa.text("SELECT value FROM archive_meta WHERE key = 'schema_version'")).scalar() == "3"
        assert conn.execute(sa.text("SELECT retention_until FROM reports")).all() == [(None,)]


def test_a_folder_is_never_paired_with_another_archives_index(tmp_path, sdeval, reports, pg_server):
    url = pg_server.new_database()
    assert sdeval(*archive_args("init", tmp_path / "one", url, "--trust", reports.cert)).exit_code == 0
    other = sdeval(*archive_args("init", tmp_path / "two", url, "--trust", reports.cert))
    assert other.exit_code == 2
    assert "already holds an archive index" in other.stderr and other.stderr.endswith("give an empty database\n")
    second = pg_server.new_database()
    assert sdeval(*archive_args("init", tmp_path / "three", second, "--trust", reports.cert)).exit_code == 0
    mixed = sdeval(*archive_args("list", tmp_path / "one", second))
    assert mixed.exit_code == 2
    assert "this index belongs to another archive" in mixed.stderr


def test_validate_imports_nothing_of_the_archive():
    """Only the stand-in sub-app (cli/lazy.py) is loaded: nothing of the archive, its CLI or SQLAlchemy."""
    code = (
        "import sys; from evaluator.cli import main; sys.argv=['sdeval','validate','examples/complete-offer.yaml'];\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('LOADED', sorted(m for m in sys.modules if m.startswith(('evaluator.archive', 'evaluator.cli.archive', 'sqlalchemy', 'psycopg'))))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert "LOADED []" in result.stdout, result.stdout + result.stderr
