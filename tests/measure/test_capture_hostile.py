"""The capture holds whatever a server sent, and only one run writes it at a time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from evaluator.measure.capture import Capture, MeasureProblem
from evaluator.measure.credentials import REDACTED


def test_a_lone_surrogate_from_a_server_is_written_escaped_and_reads_back(tmp_path):
    capture = Capture(tmp_path / "c")
    capture.open(new=True)
    capture.write({"kind": "request", "text": "a\ud800b", "model": "m\udfff", "fine": "é"})
    capture.close()
    capture.unlock()
    line = capture.log.read_bytes()
    assert b"\\ud800" in line and b"\\udfff" in line
    assert capture.entries() == [{"kind": "request", "text": "a\ud800b", "model": "m\udfff", "fine": "é"}]
    again = Capture(tmp_path / "c")  # --resume writes after it, as the first run did
    again.open(new=False)
    again.write({"kind": "request", "text": "\ud800"})
    again.close()
    again.unlock()
    assert [e["text"] for e in again.entries()] == ["a\ud800b", "\ud800"]


def test_a_key_a_server_echoes_is_scrubbed_from_the_capture_and_its_scrapes(tmp_path):
    capture = Capture(tmp_path / "c", secrets=("sk-live-77aa88bb",))
    capture.open(new=True)
    capture.write({"kind": "request", "detail": "HTTP 401: bad Authorization: Bearer sk-live-77aa88bb"})
    capture.save_scrape("s.prom", b"# echo sk-live-77aa88bb\nx_total 1\n")
    capture.close()
    capture.unlock()
    stored = capture.log.read_text() + (tmp_path / "c" / "s.prom").read_text()
    assert "sk-live-77aa88bb" not in stored
    assert stored.count(REDACTED) == 2


def test_a_second_writer_is_refused_in_one_line_while_the_first_holds_the_capture(tmp_path):
    first = Capture(tmp_path / "c")
    first.open(new=True)
    second = Capture(tmp_path / "c")
    with pytest.raises(MeasureProblem) as caught:
        second.open(new=False)
    assert str(caught.value) == (
        f"{tmp_path / 'c'}: another sdeval measure (process {os.getpid()}) is writing this capture; wait for it to end, then --resume"
    )
    first.close()
    first.unlock()
    second.open(new=False)  # free again
    second.close()
    second.unlock()


SMALL = ["--concurrency", "1", "--repetitions", "2", "--warmup", "0", "--requests", "3", "--max-tokens", "8", "--quiet"]


def test_two_resumes_of_one_capture_at_once_measure_each_window_once(tmp_path, capsys):
    pytest.importorskip("uvicorn")
    from support.measure_servers import serve

    from evaluator.measure.cli import main as measure
    from evaluator.measure.simulator import Simulator

    record = tmp_path / "rec.json"
    with serve(Simulator(step_delay_s=0.03)) as url:
        assert measure(["--arm", f"target-only={url}", *SMALL, "-o", str(record)]) == 0, capsys.readouterr().err
        log = tmp_path / "rec.json.capture" / "capture.jsonl"
        lines = log.read_text().splitlines()
        first_window = min(i for i, line in enumerate(lines) if json.loads(line)["kind"] == "window")
        log.write_text("\n".join(lines[: first_window + 1]) + "\n")  # killed after the first window
        record.unlink()
        # One resume in its own process (about 0.7 s a window), the other started while it measures.
        env = {**os.environ, "PYTHONPATH": os.getcwd()}
        running = subprocess.Popen(
            [sys.executable, "-m", "evaluator", "measure", "--resume", *SMALL, "-o", str(record)], stderr=subprocess.PIPE, text=True, env=env
        )
        try:
            deadline = time.monotonic() + 30
            while len(log.read_text().splitlines()) <= first_window + 1:  # it holds the lock once it writes
                assert time.monotonic() < deadline and running.poll() is None, running.stderr.read() if running.stderr else ""
                time.sleep(0.02)
            capsys.readouterr()
            assert measure(["--resume", *SMALL, "-o", str(record)]) == 2
            err = capsys.readouterr().err
            assert "is writing this capture; wait for it to end, then --resume" in err and err.count("\n") == 1
        finally:
            # (1: the simulator's prefix cache still holds the windows measured before the cut)
            assert running.wait(timeout=60) in (0, 1), running.stderr.read() if running.stderr else ""
    assert record.exists()
    windows = [(e["concurrency"], e["repetition"]) for e in map(json.loads, log.read_text().splitlines()) if e["kind"] == "window"]
    assert sorted(windows) == [(1, 0), (1, 1)]
    requests = [e for e in map(json.loads, log.read_text().splitlines()) if e["kind"] == "request"]
    assert len(requests) == 6
