"""Twenty writers at once, again and again: a file "never replaced without --force" is written by
exactly one of them, and an archive add's staged copy is never taken by another add's recovery."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys

import pytest
from conftest import ROOT

WRITERS = 20


def _write_once(target: str, barrier, results) -> None:
    from evaluator._infra.atomic import OutputRefused, write_atomic

    barrier.wait()
    try:
        write_atomic(target, f"writer {os.getpid()}\n".encode(), force=False)
        results.put(("wrote", os.getpid()))
    except OutputRefused as exc:
        results.put(("refused", str(exc)))


def _run_at_once(worker, *args) -> list:
    """WRITERS forked processes that start `worker(*args, barrier, results)` together; what each put."""
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(WRITERS), context.Queue()
    procs = [context.Process(target=worker, args=(*args, barrier, results)) for _ in range(WRITERS)]
    for proc in procs:
        proc.start()
    got = [results.get(timeout=60) for _ in procs]
    for proc in procs:
        proc.join(timeout=60)
        assert proc.exitcode == 0
    return got


@pytest.mark.parametrize("round_", range(10))
def test_of_twenty_writers_without_force_exactly_one_writes_the_file(tmp_path, round_):
    target = tmp_path / "out.yaml"
    got = _run_at_once(_write_once, str(target))
    wrote = [pid for kind, pid in got if kind == "wrote"]
    assert len(wrote) == 1, got
    assert target.read_text() == f"writer {wrote[0]}\n"  # the winner's bytes, whole
    refusals = {message for kind, message in got if kind == "refused"}
    assert refusals == {f"{target}: already exists; pass --force to replace it"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.yaml"]  # no temporary file left


@pytest.mark.slow
def test_twenty_sdeval_init_at_once_write_the_file_once(tmp_path):
    target = tmp_path / "out.yaml"
    for _ in range(2):
        target.unlink(missing_ok=True)
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "evaluator", "init", "-o", str(target)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            for _ in range(WRITERS)
        ]
        outs = [(p.communicate(timeout=300)[1], p.returncode) for p in procs]
        assert sorted(code for _, code in outs) == [0] + [2] * (WRITERS - 1), outs
        assert sorted({err for err, code in outs if code == 2}) == [f"sdeval: {target}: already exists; pass --force to replace it\n"]
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out.yaml"]


def _stage_and_recover(root: str, source: str, barrier, results) -> None:
    """What each of twenty `archive add`s does to tmp/: recover what dead adds left, stage a copy."""
    from pathlib import Path

    from evaluator.archive.store import Store

    store = Store(Path(root))
    barrier.wait()
    lost = 0
    for _ in range(40):
        store.recover(lambda sha: False)
        staged = store.stage(Path(source), 1 << 20)
        try:
            mine = os.fstat(staged.fd)
            there = os.stat(staged.part)
            lost += (there.st_dev, there.st_ino) != (mine.st_dev, mine.st_ino)
        except FileNotFoundError:
            lost += 1
        staged.drop()
    results.put(lost)


@pytest.mark.parametrize("round_", range(3))
def test_no_add_recovers_away_another_adds_staged_copy(tmp_path, round_):
    from evaluator.archive.store import Store

    Store(tmp_path / "archive").create()
    source = tmp_path / "report.pdf"
    source.write_bytes(os.urandom(4096))
    lost = _run_at_once(_stage_and_recover, str(tmp_path / "archive"), str(source))
    assert sum(lost) == 0
    assert list((tmp_path / "archive" / "tmp").iterdir()) == []


def test_without_hard_links_the_name_is_still_claimed_exclusively(tmp_path, monkeypatch):
    import errno

    from evaluator._infra.atomic import OutputRefused, write_atomic

    def no_links(src, dst, **kwargs):  # as on FAT or some network shares
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    target = tmp_path / "out.yaml"
    write_atomic(target, b"first\n")
    with pytest.raises(OutputRefused, match="already exists; pass --force"):
        write_atomic(target, b"second\n")
    assert target.read_text() == "first\n"
    assert oct(target.stat().st_mode & 0o777) == oct(0o644)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.yaml"]
