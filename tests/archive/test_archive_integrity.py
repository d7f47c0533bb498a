"""Issue 22: the archive cannot lie. An edited index, a restored older index, a removed tail, a
swapped trust anchor and a lost index are each found (or repaired), on SQLite and PostgreSQL;
a report can be withdrawn, and `list` shows each report's last verification."""

from __future__ import annotations

import json
import os

import pytest
import sqlalchemy as sa
from support.archive_state import lose_index, sha256, snapshot_index

from evaluator import RULE_CATALOG_VERSION

pytestmark = pytest.mark.archive


def stored(path) -> str:
    return f"objects/{sha256(path)[:2]}/{sha256(path)}.pdf"


def tamper(archive, *statements: str) -> None:
    engine = archive.engine()
    with engine.begin() as conn:
        for statement in statements:
            conn.execute(sa.text(statement))
    engine.dispose()


def log_file_head(archive) -> tuple[int, str]:
    last = json.loads((archive.root / "log.jsonl").read_text().splitlines()[-1])
    return last["seq"], last["hash"]


def test_every_writing_command_echoes_the_log_head_it_leaves(archive, reports):
    out = archive.run("add", reports.signed())
    assert out.exit_code == 0
    seq, digest = log_file_head(archive)
    assert seq == 2
    assert out.stderr == f"sdeval: log head: entry 2, hash {digest}\n"
    verified = archive.run("verify")
    assert verified.stderr == f"sdeval: log head: entry 3, hash {log_file_head(archive)[1]}\n"
    assert archive.run("log", "--check").stdout == f"log intact: 3 entries, each chained to the one before; head hash {log_file_head(archive)[1]}\n"
    assert archive.run("list").stderr == ""  # reading commands write nothing, so echo nothing


def test_verify_names_every_indexed_field_the_report_does_not_bear_out(archive, reports):
    offer_a, offer_b = reports.signed("offer-a"), reports.signed()
    assert archive.run("add", offer_a, offer_b).exit_code == 0
    tamper(
        archive,
        "UPDATE reports SET outcome = 'established' WHERE id = 1",
        "UPDATE claims SET verdict = 'established' WHERE report_id = 1",
        "UPDATE offers SET vendor = 'Someone Else' WHERE report_id = 2",
        "UPDATE reports SET fingerprint_sha256 = '" + "0" * 64 + "', catalog = '0.1' WHERE id = 2",
    )
    # The edit is believed where only the index is read...
    assert [r["id"] for r in archive.run("list", "--outcome", "established", "-f", "json").json()["reports"]] == [1, 2]
    # ...and found by verify, which reads the reports themselves.
    out = archive.run("verify")
    assert out.exit_code == 1
    assert out.stdout.splitlines() == [
        f"FAIL report 1 ({stored(offer_a)}): the index differs from the report: "
        'outcome: the index says "established", the report "not-established"; '
        'offer 1 claim a-200 verdict: the index says "established", the report "not-established"',
        f"FAIL report 2 ({stored(offer_b)}): the index differs from the report: "
        f'catalog: the index says "0.1", the report "{RULE_CATALOG_VERSION}"; '
        f'fingerprint_sha256: the index says "{"0" * 64}", the report "{archive.run("show", "1", "-f", "json").json()["fingerprint_sha256"]}"; '
        'offer 1 vendor: the index says "Someone Else", the report "SD-201 Offer B (fictional)"',
        "verified 2 reports: 0 passed, 2 failed",
    ]


def test_a_removed_last_report_and_its_log_entry_are_found_and_the_orphan_named(archive, reports):
    first, last = reports.signed(), reports.signed("offer-a")
    assert archive.run("add", first, last).exit_code == 0
    tamper(
        archive,
        *(f"DELETE FROM {t} WHERE report_id = 2" for t in ("claims", "offers", "inputs", "last_verifications")),
        "DELETE FROM reports WHERE id = 2",
        "DELETE FROM action_log WHERE seq = 3",
    )
    seq, digest = log_file_head(archive)
    assert seq == 3
    missing = (
        f"the index's log ends at entry 2, log.jsonl at entry 3 (hash {digest}): entry 3 missing from the index "
        "(an older copy of the index restored, or its newest entries removed)"
    )
    check = archive.run("log", "--check")
    assert check.exit_code == 1
    assert check.stdout == f"BROKEN: {missing}\n"
    out = archive.run("verify")
    assert out.exit_code == 1
    assert out.stdout.splitlines() == [
        f"FAIL log: {missing}",
        f"FAIL {stored(last)}: stored, but the index has no report for it (its row was removed, or an older index restored)",
        "verified 1 report: 1 passed, 0 failed; 2 archive problems",
    ]
    # Nothing more is written on top of a log that no longer matches its copy.
    assert out.stderr.startswith("sdeval: note: this verify was not logged (")
    refused = archive.run("add", reports.signed())
    assert refused.exit_code == 2
    assert refused.stderr == (
        f"sdeval: {archive.root / 'log.jsonl'} ends at entry 3 (hash {digest}), the index's log at entry 2 "
        f"(hash {json.loads((archive.root / 'log.jsonl').read_text().splitlines()[1])['hash']}); "
        "nothing was written (see `sdeval archive log --check`)\n"
    )


def test_an_older_copy_of_the_index_restored_is_detected(archive, reports, request):
    pg = request.getfixturevalue("pg_server") if archive.db else None
    first, later = reports.signed(), reports.signed("offer-a")
    assert archive.run("add", first).exit_code == 0
    restore = snapshot_index(archive, pg)
    assert archive.run("add", later).exit_code == 0
    assert archive.run("verify").exit_code == 0
    restore()
    seq, digest = log_file_head(archive)
    assert seq == 4
    missing = (
        f"the index's log ends at entry 2, log.jsonl at entry 4 (hash {digest}): entries 3-4 missing from the index "
        "(an older copy of the index restored, or its newest entries removed)"
    )
    check = archive.run("log", "--check")
    assert (check.exit_code, check.stdout) == (1, f"BROKEN: {missing}\n")
    out = archive.run("verify")
    assert out.exit_code == 1
    assert out.stdout.splitlines()[:2] == [
        f"FAIL log: {missing}",
        f"FAIL {stored(later)}: stored, but the index has no report for it (its row was removed, or an older index restored)",
    ]


def test_a_swapped_trust_anchor_stops_every_command(archive, reports, tmp_path):
    from evaluator.archive.verification import fingerprint, load_certificates

    report = reports.signed()
    assert archive.run("add", report).exit_code == 0
    real = fingerprint(load_certificates(reports.cert)[0])
    forged = fingerprint(load_certificates(reports.other_cert)[0])
    anchor = archive.root / "anchors" / f"{real}.pem"
    os.chmod(anchor, 0o644)
    anchor.write_bytes(reports.other_cert.read_bytes())
    line = f"sdeval: {anchor}: holds SHA-256 {forged}, but its name and the index record {real}: the trust anchor was replaced; nothing was done\n"
    before = (archive.root / "log.jsonl").read_bytes()
    for command in (
        ["list"],
        ["show", "1"],
        ["verify"],
        ["add", reports.signed(stranger=True)],
        ["log", "--check"],
        ["extract", "1", "-o", tmp_path / "out"],
        ["rejudge"],
        ["withdraw", "1", "--reason", "test"],
        ["init", "--trust", reports.cert],
    ):
        out = archive.run(*command)
        assert (command[0], out.exit_code, out.stderr, out.stdout) == (command[0], 2, line, "")
    assert (archive.root / "log.jsonl").read_bytes() == before
    assert not (tmp_path / "out").exists()


def test_rebuild_restores_a_lost_index_with_the_same_reports(archive, reports, request):
    pg = request.getfixturevalue("pg_server") if archive.db else None
    b, a, r = reports.signed(), reports.signed("offer-a"), reports.signed("requirements")
    assert archive.run("add", b, a, reports.draft(), r).exit_code == 1  # the draft is refused (and logged)
    assert archive.run("withdraw", "2", "--reason", "admitted in error").exit_code == 0
    assert archive.run("verify").exit_code == 0
    listed = archive.run("list", "-f", "json").json()["reports"]

    lose_index(archive, pg)
    where = "index.sqlite: missing" if archive.db is None else "holds no sdeval archive index"
    gone = archive.run("list")
    assert gone.exit_code == 2
    assert where in gone.stderr
    assert gone.stderr.endswith("; run `sdeval archive rebuild` to re-create the index from objects/ and log.jsonl\n")
    again = archive.run("init", "--trust", reports.cert)
    assert again.exit_code == 2 and again.stderr == gone.stderr
    if archive.db is None:
        assert not (archive.root / "index.sqlite").exists()  # no empty index left behind

    out = archive.run("rebuild")
    assert out.exit_code == 0, out.stdout + out.stderr
    assert out.stdout.splitlines() == [
        "rebuilt the index from log.jsonl (7 entries) and objects/: 3 reports recovered, 1 of them withdrawn",
        "  report 1",
        "  report 2",
        "  report 3",
    ]
    assert out.stderr == f"sdeval: log head: entry 8, hash {log_file_head(archive)[1]}\n"
    rebuilt = archive.run("list", "-f", "json").json()["reports"]
    keep = (
        "id",
        "sha256",
        "vendor",
        "offer_id",
        "outcome",
        "requirements_outcome",
        "fingerprint_sha256",
        "catalog",
        "admitted_at",
        "admitted_by",
        "source_name",
        "withdrawn",
    )
    assert [{k: x[k] for k in keep} for x in rebuilt] == [{k: x[k] for k in keep} for x in listed]
    assert [x["last_verification"]["result"] for x in rebuilt] == ["passed"] * 3
    assert archive.run("log", "--check").exit_code == 0
    assert archive.run("verify").exit_code == 0
    # The next admission gets the next number (PostgreSQL's sequence moved past the rebuilt ids).
    added = archive.run("add", reports.signed())
    assert added.exit_code == 0 and " as report 4 " in added.stdout
    refused = archive.run("rebuild")
    assert refused.exit_code == 2
    assert "rebuild re-creates a missing" in refused.stderr


def test_withdraw_marks_a_report_and_keeps_it(archive, reports, tmp_path):
    report = reports.signed("offer-a")
    assert archive.run("add", report, reports.signed()).exit_code == 0
    out = archive.run("withdraw", "1", "--reason", "admitted in error: wrong offer")
    assert out.exit_code == 0, out.stderr
    assert out.stdout == "report 1 withdrawn (log entry 4): admitted in error: wrong offer; it stays stored, listed and verifiable\n"
    listed = archive.run("list", "-f", "json").json()["reports"]
    assert [r["id"] for r in listed] == [1, 2]
    assert listed[0]["withdrawn"]["reason"] == "admitted in error: wrong offer"
    assert listed[0]["withdrawn"]["log_entry"] == 4 and listed[1]["withdrawn"] is None
    table = archive.run("list").stdout.splitlines()
    assert table[1].split()[-3:] == ["passed", "withdrawn", listed[0]["withdrawn"]["time"][:10]]
    assert table[2].split()[-1] == "passed"  # not withdrawn: the status column is empty
    entry = archive.run("log", "-f", "json").json()["entries"][-1]
    assert (entry["action"], entry["detail"]["report_id"], entry["detail"]["reason"]) == ("withdraw", 1, "admitted in error: wrong offer")
    user = __import__("pwd").getpwuid(os.getuid()).pw_name
    assert (
        f"  withdrawn: {listed[0]['withdrawn']['time']} by {user} (log entry 4): admitted in error: wrong offer"
        in archive.run("show", "1").stdout.splitlines()
    )
    assert archive.run("extract", "1", "-o", tmp_path / "out").exit_code == 0
    assert (tmp_path / "out" / report.name).read_bytes() == report.read_bytes()
    verified = archive.run("verify")
    assert verified.exit_code == 0
    assert verified.stdout.splitlines() == [
        f"report 1 ({stored(report)}) (withdrawn {listed[0]['withdrawn']['time'][:10]}: admitted in error: wrong offer): passed",
        "verified 2 reports: 2 passed, 0 failed (1 withdrawn)",
    ]
    twice = archive.run("withdraw", "1", "--reason", "again")
    assert twice.exit_code == 2
    assert twice.stderr.startswith("sdeval: report 1: already withdrawn on ")
    empty = archive.run("withdraw", "2", "--reason", "  ")
    assert (empty.exit_code, empty.stderr) == (2, "sdeval: --reason: say why the report is withdrawn\n")


def test_list_shows_each_reports_last_verification(archive, reports):
    first, second = reports.signed(), reports.signed()
    assert archive.run("add", first, second).exit_code == 0
    # `add` verified each in full: that is each one's last verification, as its log entry says
    admissions = [e for e in archive.run("log", "-f", "json").json()["entries"] if e["action"] == "add"]
    assert [(e["detail"]["report_id"], e["detail"]["verified"]) for e in admissions] == [(1, "passed"), (2, "passed")]
    rows = archive.run("list", "-f", "json").json()["reports"]
    assert [r["last_verification"] for r in rows] == [{"time": e["time"], "result": "passed", "reason": "passed"} for e in admissions]
    assert "never" not in archive.run("list").stdout
    assert archive.run("verify", "1").exit_code == 0
    rows = archive.run("list", "-f", "json").json()["reports"]
    verify_entry = archive.run("log", "-f", "json").json()["entries"][-1]
    assert rows[0]["last_verification"] == {"time": verify_entry["time"], "result": "passed", "reason": "passed"}
    assert rows[1]["last_verification"]["time"] == admissions[1]["time"]
    path = archive.root / stored(second)
    os.chmod(path, 0o644)
    path.write_bytes(b"not the report")
    assert archive.run("verify").exit_code == 1
    rows = archive.run("list", "-f", "json").json()["reports"]
    assert [r["last_verification"]["result"] for r in rows] == ["passed", "failed"]
    assert rows[1]["last_verification"]["reason"].startswith("changed (SHA-256 ")
    table = archive.run("list").stdout.splitlines()
    assert table[0].split()[-3:] == ["last", "verified", "status"]
    when = rows[1]["last_verification"]["time"][:19].replace("T", " ")
    assert table[2].endswith(f"{when} failed")
    assert (
        f"  last verified: {rows[1]['last_verification']['time']}: failed ({rows[1]['last_verification']['reason']})"
        in archive.run("show", "2").stdout
    )
    csv_rows = archive.run("list", "-f", "csv").stdout.splitlines()
    assert csv_rows[0].endswith(",withdrawn_at,withdrawn_reason,last_verified_at,last_verification")
    assert csv_rows[2].endswith(f",,,{rows[1]['last_verification']['time']},failed")


def test_an_archive_made_before_log_jsonl_gets_it_from_its_index_once(archive, reports):
    description = archive.root / "archive.json"
    doc = json.loads(description.read_text())
    del doc["log"]
    os.chmod(description, 0o644)
    description.write_text(json.dumps(doc))
    (archive.root / "log.jsonl").unlink()
    assert archive.run("log", "--check").exit_code == 0  # nothing to compare with yet
    assert archive.run("add", reports.signed()).exit_code == 0
    assert json.loads(description.read_text())["log"] == "log.jsonl"
    assert [json.loads(line)["action"] for line in (archive.root / "log.jsonl").read_text().splitlines()] == ["init", "add"]
    assert archive.run("log", "--check").exit_code == 0
    # From now on the file must be there: its loss is named, and nothing is written without it.
    (archive.root / "log.jsonl").unlink()
    check = archive.run("log", "--check")
    assert (check.exit_code, check.stdout) == (1, f"BROKEN: {archive.root / 'log.jsonl'}: missing (the archive's copy of its log)\n")
    refused = archive.run("withdraw", "1", "--reason", "test")
    assert refused.exit_code == 2
    assert refused.stderr == f"sdeval: {archive.root / 'log.jsonl'}: missing (the archive's copy of its log); nothing was written\n"


def test_an_index_of_schema_1_is_migrated_to_2(archive, reports):
    assert archive.run("add", reports.signed()).exit_code == 0
    tamper(archive, "DROP TABLE withdrawals", "DROP TABLE last_verifications", "UPDATE archive_meta SET value = '1' WHERE key = 'schema_version'")
    out = archive.run("list", "-f", "json")
    assert out.exit_code == 0, out.stderr
    assert [(r["id"], r["withdrawn"], r["last_verification"]) for r in out.json()["reports"]] == [(1, None, None)]
    assert archive.run("withdraw", "1", "--reason", "migrated").exit_code == 0
    assert archive.run("verify").exit_code == 0


def test_init_does_not_start_an_empty_archive_over_stored_reports(archive, reports):
    assert archive.run("add", reports.signed()).exit_code == 0
    os.chmod(archive.root / "archive.json", 0o644)
    (archive.root / "archive.json").unlink()
    out = archive.run("init", "--trust", reports.cert)
    assert out.exit_code == 2
    assert out.stderr == (
        f"sdeval: {archive.root}: holds stored reports (objects/) but no archive.json; restore archive.json "
        "from a backup and run `sdeval archive rebuild`, rather than starting an empty archive over them\n"
    )


def test_rebuild_names_a_lost_report_and_recovers_one_the_log_does_not_name(archive, reports, request):
    pg = request.getfixturevalue("pg_server") if archive.db else None
    kept, lost, unlogged = reports.signed(), reports.signed("offer-a"), reports.signed()
    assert archive.run("add", kept, lost, unlogged).exit_code == 0
    os.chmod(archive.root / stored(lost), 0o644)
    (archive.root / stored(lost)).unlink()
    # The third admission's entry is cut from log.jsonl (as if the log copy were older than the objects).
    lines = (archive.root / "log.jsonl").read_text().splitlines(keepends=True)
    (archive.root / "log.jsonl").write_text("".join(lines[:3]))
    lose_index(archive, pg)
    out = archive.run("rebuild")
    assert out.exit_code == 1
    assert out.stdout.splitlines() == [
        "rebuilt the index from log.jsonl (3 entries) and objects/: 2 reports recovered, 1 with no admission in the log, 1 problem",
        "  report 1",
        "  report 3: stored with no admission in the log; recovered with a new number",
    ]
    assert out.stderr.splitlines()[0] == f"sdeval: report 2 (log entry 3, {lost}): its stored file {stored(lost)} is missing"
    shown = archive.run("show", "3", "-f", "json").json()
    assert (shown["sha256"], shown["log_entry"]) == (sha256(unlogged), 4)
    assert archive.run("log", "-f", "json").json()["entries"][-1]["action"] == "rebuild"


def test_rebuild_leaves_out_a_stored_file_that_is_not_what_its_name_says(archive, reports, request):
    pg = request.getfixturevalue("pg_server") if archive.db else None
    good, other = reports.signed(), reports.signed()
    assert archive.run("add", good).exit_code == 0
    impostor = archive.root / "objects" / "00" / ("0" * 64 + ".pdf")
    impostor.parent.mkdir()
    impostor.write_bytes(other.read_bytes())  # a genuine report, under a name that is not its hash
    lose_index(archive, pg)
    out = archive.run("rebuild")
    assert out.exit_code == 1
    assert out.stdout.splitlines()[0] == "rebuilt the index from log.jsonl (2 entries) and objects/: 1 report recovered, 1 problem"
    assert out.stderr.splitlines()[0] == f"sdeval: objects/00/{'0' * 64}.pdf: left out, its SHA-256 is {sha256(other)}, not the one its name says"
    assert [r["id"] for r in archive.run("list", "-f", "json").json()["reports"]] == [1]


def test_rebuild_refuses_a_swapped_anchor_and_can_run_again_once_it_is_put_back(archive, reports, request):
    from evaluator.archive.verification import fingerprint, load_certificates

    pg = request.getfixturevalue("pg_server") if archive.db else None
    assert archive.run("add", reports.signed()).exit_code == 0
    lose_index(archive, pg)
    real = fingerprint(load_certificates(reports.cert)[0])
    anchor = archive.root / "anchors" / f"{real}.pem"
    genuine = anchor.read_bytes()
    os.chmod(anchor, 0o644)
    anchor.write_bytes(reports.other_cert.read_bytes())
    out = archive.run("rebuild")
    assert out.exit_code == 2
    assert out.stderr == (
        f"sdeval: {anchor}: holds SHA-256 {fingerprint(load_certificates(reports.other_cert)[0])}, but its name "
        f"and log entry 1 record {real}: the trust anchor was replaced; nothing was done\n"
    )
    anchor.write_bytes(genuine)
    again = archive.run("rebuild")
    assert again.exit_code == 0, again.stderr
    assert archive.run("verify").exit_code == 0


def test_a_damaged_line_in_log_jsonl_is_named_and_verify_still_reports(archive, reports):
    assert archive.run("add", reports.signed()).exit_code == 0
    path = archive.root / "log.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + "not json\n")
    out = archive.run("verify")
    assert out.exit_code == 1
    assert out.stdout.splitlines() == [f"FAIL log: {path}: line 2 is not a log entry", "verified 1 report: 1 passed, 0 failed; 1 archive problem"]
    assert out.stderr == f"sdeval: note: this verify was not logged ({path}: line 2 is not a log entry)\n"
