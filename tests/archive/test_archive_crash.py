"""Nothing lost: an `archive add` killed at each step, two adds at once, a read-only archive.

The kill tests run `sdeval archive add` as its own process with SDEVAL_ARCHIVE_TEST_PAUSE_AT=STEP
(evaluator/archive/faults.py), which stops it at that step until the test SIGKILLs it.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT
from support.archive_fixtures import archive_args, sdeval_process
from support.archive_state import assert_consistent, rows, sha256

from evaluator.archive.faults import PAUSE_ENV

pytestmark = pytest.mark.archive


def wait_for_line(proc: subprocess.Popen, wanted: str, timeout: float = 120) -> None:
    deadline, seen = time.monotonic() + timeout, []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], 1)
        if ready:
            line = proc.stderr.readline()
            if not line:
                break
            seen.append(line)
            if line.strip() == wanted:
                return
    proc.kill()
    raise AssertionError(f"never printed {wanted!r}; stderr: {''.join(seen)}{proc.stderr.read()}")


@pytest.mark.parametrize("step", ["staged", "verified", "stored", "indexed"])
def test_an_add_killed_at_each_step_leaves_the_archive_consistent(step, archive, reports):
    killed, later = reports.signed(), reports.signed()
    proc = sdeval_process(*archive_args("add", archive.root, archive.db, killed), env={PAUSE_ENV: step})
    wait_for_line(proc, f"paused at {step}")
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    leftovers = sorted(p.suffix for p in (archive.root / "tmp").iterdir())
    stored = list((archive.root / "objects").rglob("*.pdf"))
    if step in ("staged", "verified"):
        assert (leftovers, stored, rows(archive)) == ([".part"], [], {})  # a private copy, nothing stored
    elif step == "stored":
        assert leftovers == [".lock"] and [p.stem for p in stored] == [sha256(killed)] and rows(archive) == {}
    else:
        assert leftovers == [".lock"] and list(rows(archive)) == [sha256(killed)]
        assert_consistent(archive)  # the row and its file landed together

    # The next add clears what the killed one left, then works; the archive holds together.
    out = archive.run("add", later)
    assert out.exit_code == 0, out.stdout + out.stderr
    if step == "stored":
        relative = f"objects/{sha256(killed)[:2]}/{sha256(killed)}.pdf"
        assert out.stderr.splitlines()[0] == f"sdeval: removed {relative}: stored by an add that was interrupted before indexing it"
    assert list((archive.root / "tmp").iterdir()) == []
    assert_consistent(archive)
    again = archive.run("add", killed)
    assert again.exit_code == 0
    assert ("already archived as report" in again.stdout) == (step == "indexed")
    assert_consistent(archive)
    verified = archive.run("verify")
    assert verified.exit_code == 0 and verified.stdout == "verified 2 reports: 2 passed, 0 failed\n"


def test_two_adds_at_once_both_land(archive, reports):
    first = [reports.signed() for _ in range(3)]
    second = [reports.signed("offer-a") for _ in range(3)]
    shared = reports.signed()
    procs = [sdeval_process(*archive_args("add", archive.root, archive.db, *paths, shared)) for paths in (first, second)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert set(rows(archive)) == {sha256(p) for p in [*first, *second, shared]}
    # The report both gave was admitted by one and found already archived by the other.
    stdout = outs[0][0] + outs[1][0]
    assert stdout.count(f"admitted {shared} as report") == 1
    assert stdout.count(f"{shared}: already archived as report") == 1
    assert_consistent(archive)
    entries = archive.run("log", "-f", "json").json()["entries"]
    assert [e["seq"] for e in entries] == list(range(1, 10))  # init + 8 adds, no gap, no fork in the chain


def test_twenty_adds_at_once_all_land(archive, reports):
    # Each add recovers what dead adds left before staging its own copy: none may take another's.
    paths = [reports.signed() for _ in range(20)]
    procs = [sdeval_process(*archive_args("add", archive.root, archive.db, path)) for path in paths]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0] * 20, outs
    assert set(rows(archive)) == {sha256(p) for p in paths}
    # Each says only the log head it left: twenty different entries, one per add, all in log.jsonl.
    heads = [re.fullmatch(r"sdeval: log head: entry (\d+), hash ([0-9a-f]{64})\n", err) for _, err in outs]
    assert all(heads), outs
    assert sorted(int(h[1]) for h in heads) == list(range(2, 22))
    assert_consistent(archive)
    entries = archive.run("log", "-f", "json").json()["entries"]
    assert [e["action"] for e in entries] == ["init"] + ["add"] * 20
    assert {(int(h[1]), h[2]) for h in heads} == {(e["seq"], e["hash"]) for e in entries[1:]}


def _as_reader(args: list[str]) -> subprocess.CompletedProcess:
    """`sdeval ARGS` by a user who may not write the (read-only) archive. As root, that is root
    without the capabilities that override file modes (util-linux's setpriv), since root writes anything."""
    prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"] if os.geteuid() == 0 else []
    return subprocess.run(
        prefix + [sys.executable, "-m", "evaluator", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=300,
    )


@pytest.fixture
def read_only(archive, request):
    """The archive, made read-only (every write bit off) once the test has filled it."""
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: cannot act as a user who may not write")
    if archive.db is not None and os.geteuid() == 0:
        # the throwaway server's socket folder, reachable without overriding its mode (its data folder stays 0700)
        os.chmod(request.getfixturevalue("pg_server").folder, 0o755)
    paths = [archive.root, *archive.root.rglob("*")]
    modes = {p: p.stat().st_mode for p in paths}

    def freeze():
        for p in paths:
            p.chmod(modes[p] & ~0o222)

    archive.freeze = freeze
    yield archive
    for p in paths:
        p.chmod(modes[p])


def test_a_read_only_archive_can_still_be_listed_and_verified(read_only, reports):
    archive = read_only
    paths = [reports.signed(), reports.signed("offer-a")]
    assert archive.run("add", *paths).exit_code == 0
    archive.freeze()

    listed = _as_reader(archive_args("list", archive.root, archive.db, "--outcome", "not-established"))
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[-1] == "1 report"
    verified = _as_reader(archive_args("verify", archive.root, archive.db))
    assert verified.returncode == 0, verified.stderr
    assert verified.stdout == "verified 2 reports: 2 passed, 0 failed\n"
    if archive.db is None:
        assert verified.stderr == "sdeval: note: the archive's index is read-only here, so this verify was not logged\n"
    else:  # the database is writable, but log.jsonl in the read-only folder is not: the two copies stay in step
        assert verified.stderr == "sdeval: note: the archive folder is read-only here, so this verify was not logged\n"
    refused = _as_reader(archive_args("add", archive.root, archive.db, paths[0]))
    assert refused.returncode == 2
    assert refused.stderr == f"sdeval: {archive.root}: the archive is read-only here; nothing can be added\n"


def _holding_flock(path: Path) -> subprocess.Popen:
    """Another process holding the file's flock (as a verification worker a killed add forked holds
    the staged copy it inherited), until it is killed."""
    code = "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(600)"
    holder = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_copy_whose_add_is_gone_is_cleared_though_its_worker_still_holds_it(archive, reports):
    """SIGKILL ends an add, not the verification worker it forked, which holds the staged copy's
    flock until it has finished: the next command clears the copy all the same, since the add named
    in its name is gone; a copy whose add still runs is kept."""
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    tmp = archive.root / "tmp"
    orphaned = tmp / f"{'a' * 64}.{gone.stdout.strip()}.0badcafe.part"
    running = tmp / f"{'b' * 64}.{os.getppid()}.0badcafe.part"  # pytest's parent: alive for the whole test
    holders = []
    try:
        for path in (orphaned, running):
            path.write_bytes(b"%PDF-1.7 a staged copy")
            holders.append(_holding_flock(path))
        assert archive.run("log", "--check").exit_code == 0  # opening the archive clears what killed adds left
        assert sorted(p.name for p in tmp.iterdir()) == [running.name]
    finally:
        for holder in holders:
            holder.kill()
            holder.wait()
