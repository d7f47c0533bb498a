"""What someone with write access may put where the archive keeps a report: a symbolic link (to an
identical copy outside, or as the object's folder), a FIFO, a hard link, an index row naming a path
outside objects/, a report to add that is a FIFO or named with control characters. Each is named,
never followed, never waited on; no report passes that is not the file `add` stored."""

from __future__ import annotations

import os
import shutil
import sqlite3

import pytest
from support.archive_state import lose_index, sha256
from support.waiting import within

from evaluator import RULE_CATALOG_VERSION

# The stored files are the same on either index: SQLite only (the row edits are SQL on its file).
pytestmark = [pytest.mark.archive, pytest.mark.parametrize("db", ["sqlite"], indirect=True)]


def stored(path) -> str:
    return f"objects/{sha256(path)[:2]}/{sha256(path)}.pdf"


@pytest.fixture
def admitted(archive, reports):
    """An archive holding one report; (archive, the report, its stored file, its path relative to the archive)."""
    report = reports.signed()
    assert archive.run("add", report).exit_code == 0
    relative = stored(report)
    path = archive.root / relative
    os.chmod(path.parent, 0o755)
    return archive, report, path, relative


def _fails_everywhere(archive, relative: str, reason: str, tmp_path) -> None:
    """verify, extract and rejudge each name the stored file and why, and use none of it."""
    with within(60):
        out = archive.run("verify")
        extracted = archive.run("extract", "1", "-o", tmp_path / "out")
        rejudged = archive.run("rejudge")
    assert out.exit_code == 1
    assert out.stdout.splitlines()[0] == f"FAIL report 1 ({relative}): {reason}"
    assert out.stdout.splitlines()[-1].startswith("verified 1 report: 0 passed, 1 failed")
    assert (extracted.exit_code, extracted.stderr) == (2, f"sdeval: report 1: {relative}: {reason}\n")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    assert rejudged.exit_code == 1
    assert rejudged.stdout.splitlines()[0].endswith(f"catalog {RULE_CATALOG_VERSION} -> {RULE_CATALOG_VERSION}): {relative}: {reason}")


def test_a_stored_file_replaced_by_a_link_to_an_identical_copy_fails(admitted, tmp_path):
    archive, report, path, relative = admitted
    outside = tmp_path / "elsewhere.pdf"
    shutil.copyfile(report, outside)  # the same bytes: only where they are kept differs
    path.unlink()
    path.symlink_to(outside)
    _fails_everywhere(archive, relative, f"unreadable (a symbolic link to {str(outside)!r}, not a file the archive stored)", tmp_path)


def test_a_stored_files_folder_replaced_by_a_link_fails(admitted, tmp_path):
    archive, report, path, relative = admitted
    elsewhere = tmp_path / "folder"
    shutil.copytree(path.parent, elsewhere)
    shutil.rmtree(path.parent)
    path.parent.symlink_to(elsewhere)
    folder = relative.rsplit("/", 1)[0]
    reason = f"unreadable (its folder {folder} is a symbolic link to {str(elsewhere)!r}, not a file the archive stored)"
    _fails_everywhere(archive, relative, reason, tmp_path)


def test_a_stored_file_replaced_by_a_fifo_is_named_not_waited_on(admitted, tmp_path):
    archive, _, path, relative = admitted
    path.unlink()
    os.mkfifo(path)
    _fails_everywhere(archive, relative, "unreadable (a FIFO, not a file the archive stored)", tmp_path)


def test_rebuild_names_a_stored_file_replaced_by_a_fifo_or_a_link_and_recovers_neither(archive, reports, tmp_path):
    fifo_report, linked_report = reports.signed(), reports.signed()
    assert archive.run("add", fifo_report, linked_report).exit_code == 0
    for path in (archive.root / stored(fifo_report), archive.root / stored(linked_report)):
        os.chmod(path.parent, 0o755)
        path.unlink()
    os.mkfifo(archive.root / stored(fifo_report))
    shutil.copyfile(linked_report, tmp_path / "copy.pdf")
    (archive.root / stored(linked_report)).symlink_to(tmp_path / "copy.pdf")
    lose_index(archive, None)
    with within(60):
        out = archive.run("rebuild")
    assert out.exit_code == 1
    assert out.stdout.splitlines()[0] == "rebuilt the index from log.jsonl (3 entries) and objects/: 0 reports recovered, 2 problems"
    assert out.stderr.splitlines()[:2] == [
        f"sdeval: report 1 (log entry 2, {fifo_report}): its stored file {stored(fifo_report)} is unreadable (a FIFO, not a file the archive stored)",
        f"sdeval: report 2 (log entry 3, {linked_report}): its stored file {stored(linked_report)} is unreadable"
        f" (a symbolic link to {str(tmp_path / 'copy.pdf')!r}, not a file the archive stored)",
    ]


def test_a_report_added_through_a_link_is_stored_as_a_file_of_its_own(archive, reports, tmp_path):
    """The report to add may be reached through a symbolic link (to anywhere): the archive keeps a
    copy, never the link, so the file outside can change or go without touching it."""
    report = reports.signed()
    link = tmp_path / "via-link.pdf"
    link.symlink_to(report)
    out = archive.run("add", link)
    assert out.exit_code == 0 and out.stdout.startswith(f"admitted {link} as report 1 (")
    kept = archive.root / stored(report)
    assert not kept.is_symlink() and kept.stat().st_ino != report.stat().st_ino
    report.unlink()
    assert archive.run("verify").stdout.splitlines() == ["verified 1 report: 1 passed, 0 failed"]


def test_a_hard_link_elsewhere_changes_nothing_until_the_bytes_change(admitted, tmp_path):
    """A backup made with hard links (rsnapshot, `cp -al`) shares the stored file's inode: the
    report still verifies; a change made through the other name is the stored file changed."""
    archive, report, path, relative = admitted
    other = tmp_path / "backup.pdf"
    os.link(path, other)
    assert archive.run("verify").stdout.splitlines() == ["verified 1 report: 1 passed, 0 failed"]
    os.chmod(other, 0o644)
    data = bytearray(other.read_bytes())
    data[2000] ^= 1
    other.write_bytes(bytes(data))
    out = archive.run("verify")
    assert out.exit_code == 1
    assert out.stdout.splitlines()[0] == f"FAIL report 1 ({relative}): changed (SHA-256 {sha256(other)}, the index says {sha256(report)})"


@pytest.mark.parametrize("elsewhere", ["../outside.pdf", "/outside.pdf", "objects/00/../../outside.pdf"])
def test_an_index_row_naming_a_file_outside_objects_is_not_read(admitted, tmp_path, elsewhere):
    """An edited row that points at an identical copy outside the archive (the stored file then
    removed) must not pass: a report is read only from its content address."""
    archive, report, path, relative = admitted
    target = os.path.normpath(archive.root / elsewhere) if not elsewhere.startswith("/") else str(tmp_path / "outside.pdf")
    named = elsewhere if not elsewhere.startswith("/") else target
    shutil.copyfile(report, target)
    path.unlink()
    with sqlite3.connect(archive.root / "index.sqlite") as conn:
        conn.execute("UPDATE reports SET stored_as = ?", (named,))
    conn.close()
    reason = f"the index names it at {named!r}, not at its content address {relative}"
    with within(60):
        out = archive.run("verify")
        extracted = archive.run("extract", "1", "-o", tmp_path / "out")
        rejudged = archive.run("rejudge")
    assert out.exit_code == 1
    assert out.stdout.splitlines() == [f"FAIL report 1 ({named}): {reason}", "verified 1 report: 0 passed, 1 failed"]
    assert (extracted.exit_code, extracted.stderr) == (2, f"sdeval: report 1: {named}: {reason}\n")
    assert rejudged.exit_code == 1 and rejudged.stdout.splitlines()[0].endswith(f"): {named}: {reason}")


def test_adding_a_fifo_refuses_it_without_waiting(archive, tmp_path):
    fifo = tmp_path / "report.pdf"
    os.mkfifo(fifo)
    with within(60):
        out = archive.run("add", fifo)
    assert out.exit_code == 1
    assert out.stdout.splitlines() == [f"refused {fifo}: {fifo}: not a regular file", "0 admitted, 0 already archived, 1 refused"]


def test_a_report_named_with_control_characters_is_shown_escaped_everywhere(archive, reports, tmp_path):
    odd = tmp_path / "a\nb\x1b[2J\u202ec.pdf"
    shutil.copyfile(reports.signed(), odd)
    escaped = str(tmp_path) + "/a\\x0ab\\x1b[2J\\u202ec.pdf"
    out = archive.run("add", odd)
    assert out.exit_code == 0
    assert out.stdout.splitlines()[0].startswith(f"admitted {escaped} as report 1 (")
    for command in (["log"], ["show", "1"], ["list", "--format", "csv"], ["list"]):
        text = archive.run(*command).stdout
        assert "\x1b" not in text and "\u202e" not in text, command
    assert "a\\x0ab\\x1b[2J\\u202ec.pdf" in archive.run("show", "1").stdout
    # extract writes the report under its base name, and says so escaped.
    written = archive.run("extract", "1", "-o", tmp_path / "out")
    assert written.exit_code == 0
    assert written.stdout.splitlines()[0] == f"wrote {tmp_path}/out/a\\x0ab\\x1b[2J\\u202ec.pdf"
    assert (tmp_path / "out" / odd.name).read_bytes() == odd.read_bytes()


@pytest.mark.parametrize(("source_name", "written"), [("../../escape.pdf", "escape.pdf"), ("..", "report-1.pdf"), (".profile", "report-1.pdf")])
def test_extract_writes_only_into_the_folder_given_whatever_name_the_index_holds(admitted, tmp_path, source_name, written):
    """The name extract writes the report under comes from the index (the name it was added by):
    an edited one never leads outside the folder, nor to a hidden file."""
    archive, report, _, _ = admitted
    with sqlite3.connect(archive.root / "index.sqlite") as conn:
        conn.execute("UPDATE reports SET source_name = ?", (source_name,))
    conn.close()
    out_dir = tmp_path / "deep" / "out"
    result = archive.run("extract", "1", "-o", out_dir)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == f"wrote {out_dir / written}"
    outside_archive = [p for p in tmp_path.rglob("*") if p.is_file() and archive.root not in p.parents]
    assert sorted(str(p.relative_to(out_dir)) for p in outside_archive) == sorted(
        [written, "sd201-offer-b.json", "assessment.json", "sdeval-report.json"]
    )
    assert (out_dir / written).read_bytes() == report.read_bytes()


def test_a_trust_anchor_replaced_by_a_fifo_stops_every_command_without_waiting(archive, reports):
    anchor = next((archive.root / "anchors").glob("*.pem"))
    os.chmod(anchor.parent, 0o755)
    anchor.unlink()
    os.mkfifo(anchor)
    for command in ("list", "verify"):
        with within(60):
            out = archive.run(command)
        assert (out.exit_code, out.stdout) == (2, "")
        assert out.stderr == (
            f"sdeval: {anchor}: holds SHA-256 no certificate, but its name and the index record {anchor.stem}: "
            "the trust anchor was replaced; nothing was done\n"
        )


@pytest.mark.parametrize("kept", ["log.jsonl", "archive.json"])
def test_the_archives_own_files_replaced_by_a_fifo_are_named_not_waited_on(archive, reports, kept):
    """Before: every command hung on archive.json, and `log --check`, `verify` and `add` on log.jsonl."""
    path = archive.root / kept
    path.unlink()
    os.mkfifo(path)
    with within(60):
        check, verified, added = archive.run("log", "--check"), archive.run("verify"), archive.run("add", reports.signed())
    if kept == "archive.json":
        for out in (check, verified, added):
            assert (out.exit_code, out.stdout, out.stderr) == (2, "", f"sdeval: {path}: cannot be read (not a regular file)\n")
        return
    assert (check.exit_code, check.stdout) == (1, f"BROKEN: {path}: cannot read (not a regular file)\n")
    assert verified.exit_code == 1 and verified.stdout.splitlines() == [
        f"FAIL log: {path}: cannot read (not a regular file)",
        "verified 0 reports: 0 passed, 0 failed; 1 archive problem",
    ]
    assert (added.exit_code, added.stderr) == (2, f"sdeval: {path}: cannot read (not a regular file); nothing was written\n")
