"""Progress bars on long work (issue 29.5): drawn on standard error when it is a terminal, by the
real `sdeval` process; never when standard error is piped (the output is then what it always was)
and never beside JSON output."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, example

from evaluator._infra import progress

SDEVAL = str(Path(sys.executable).parent / "sdeval")
BAR = "\u2501"  # the bar's line, as rich draws it


def on_a_terminal(*cmd, timeout: float = 120) -> tuple[int, bytes, str]:
    """The command with standard error on a pseudo-terminal (standard output piped): its exit code,
    its standard output, and what the terminal received."""
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen([str(c) for c in cmd], cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    seen = b""
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the process closed its end
                    break
                if not chunk:
                    break
                seen += chunk
            elif process.poll() is not None:
                break
        out = process.stdout.read()
        process.wait(timeout)
    finally:
        os.close(master)
    return process.returncode, out, seen.decode("utf-8", "replace")


def piped(*cmd) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], cwd=ROOT, capture_output=True)


def test_no_bar_unless_the_command_line_allows_one():
    """A program calling sdeval's functions gets no bar, whatever its standard error is."""
    assert progress.Bar("x", 10).shown is False
    with progress.allowed():
        assert progress.Bar("x", 10).shown is sys.stderr.isatty()
        assert progress.Bar("x", 1).shown is False  # one item is no batch
    with progress.allowed(False):
        assert progress.Bar("x", 10).shown is False


@pytest.fixture(scope="module")
def reports(work, cli, identity):
    key, cert = identity
    folder = work / "reports"
    folder.mkdir()
    for name in ("sd201-offer-b.json", "sd201-offer-a.json", "vllm-docs-ngram.json"):
        out = cli("render", example(name), "-o", folder / name.replace(".json", ".pdf"), "--key", key, "--cert", cert)
        assert out.exit_code in (0, 1), out.stderr
    return folder, cert


@pytest.mark.pdf
def test_verify_of_several_reports_draws_a_bar_on_a_terminal_only(reports):
    folder, cert = reports
    code, out, terminal = on_a_terminal(SDEVAL, "verify", folder, "--trust", cert)
    assert code == 0
    assert "verifying" in terminal and BAR in terminal and "/3" in terminal, terminal[-500:]
    plain = piped(SDEVAL, "verify", folder, "--trust", cert)
    assert (plain.returncode, plain.stdout, plain.stderr) == (0, out, b"")
    # JSON output: no bar even on a terminal.
    code, out, terminal = on_a_terminal(SDEVAL, "verify", folder, "--trust", cert, "--format", "json")
    assert code == 0 and json.loads(out)["summary"]["verified"] == 3
    assert terminal == ""


@pytest.mark.pdf
@pytest.mark.archive
def test_archive_add_verify_and_rejudge_draw_bars_on_a_terminal_only(reports, work):
    folder, cert = reports
    root = work / "archive"
    assert piped(SDEVAL, "archive", "init", "--archive", root, "--trust", cert).returncode == 0
    pdfs = sorted(folder.glob("*.pdf"))
    code, out, terminal = on_a_terminal(SDEVAL, "archive", "add", "--archive", root, *pdfs)
    assert code == 0, out
    assert "verifying" in terminal and BAR in terminal, terminal[-500:]
    for command, label in (("verify", "verifying"), ("rejudge", "re-judging")):
        code, out, terminal = on_a_terminal(SDEVAL, "archive", command, "--archive", root)
        assert label in terminal and BAR in terminal, (command, terminal[-500:])
        plain = piped(SDEVAL, "archive", command, "--archive", root)
        assert plain.stdout == out, command
        assert plain.stderr.decode().startswith("sdeval: log head: ") and BAR not in plain.stderr.decode(), command
        code, out, terminal = on_a_terminal(SDEVAL, "archive", command, "--archive", root, "--format", "json")
        assert terminal.startswith("sdeval: log head: ") and BAR not in terminal and label not in terminal, command
        assert "summary" in json.loads(out), command


# The import's bar waits PROGRESS_AFTER_S (2 s) before it is drawn; this runs the real command
# line with no wait, so that a small file shows it.
IMPORT_WITHOUT_WAITING = """
import sys
from evaluator.importers import responses_reader
responses_reader.PROGRESS_AFTER_S = 0
sys.argv = ["sdeval", "import", "vllm-responses", sys.argv[1]]
from evaluator.cli import main
main()
"""


def test_a_long_import_draws_a_bar_on_a_terminal_only(tmp_path):
    line = (ROOT / "tests" / "data" / "importers" / "vllm-responses-mixed.jsonl").read_bytes().splitlines()[0] + b"\n"
    path = tmp_path / "r.jsonl"
    path.write_bytes(line * 5000)
    code, out, terminal = on_a_terminal(sys.executable, "-c", IMPORT_WITHOUT_WAITING, path)
    assert code == 0
    assert "importing r.jsonl" in terminal and BAR in terminal, terminal[-500:]
    plain = piped(sys.executable, "-c", IMPORT_WITHOUT_WAITING, path)
    assert (plain.returncode, plain.stdout, plain.stderr) == (0, out, b"")
    # As the command is run (a bar after 2 s): a file this small shows none.
    code, out, terminal = on_a_terminal(SDEVAL, "import", "vllm-responses", path)
    assert code == 0 and terminal == ""


def test_the_duckdb_engine_draws_the_import_bar_too(tmp_path):
    """--engine duckdb: the thread that hashes and checks the lines beside DuckDB's query feeds the bar."""
    pytest.importorskip("duckdb")
    line = (ROOT / "tests" / "data" / "importers" / "vllm-responses-mixed.jsonl").read_bytes().splitlines()[0] + b"\n"
    path = tmp_path / "r.jsonl"
    path.write_bytes(line * 5000)
    script = IMPORT_WITHOUT_WAITING.replace('"vllm-responses", sys.argv[1]]', '"vllm-responses", "--engine", "duckdb", sys.argv[1]]')
    code, out, terminal = on_a_terminal(sys.executable, "-c", script, path)
    assert code == 0
    assert "importing r.jsonl" in terminal and BAR in terminal, terminal[-500:]
    plain = piped(sys.executable, "-c", script, path)
    assert (plain.returncode, plain.stdout, plain.stderr) == (0, out, b"")
    assert out == piped(SDEVAL, "import", "vllm-responses", "--engine", "python", path).stdout


def test_measure_draws_a_bar_per_point_on_a_terminal_only(tmp_path):
    pytest.importorskip("uvicorn")
    from support.measure_servers import serve

    from evaluator.measure.simulator import Simulator

    with serve(Simulator(step_delay_s=0.001)) as url:
        args = ["--arm", f"target-only={url}", "--concurrency", "2", "--repetitions", "1", "--warmup", "0", "--requests", "4", "--max-tokens", "8"]
        code, out, terminal = on_a_terminal(SDEVAL, "measure", *args, "-o", tmp_path / "a.json")
        assert code == 0, terminal[-500:]
        assert "target-only c=2 repetition 1 of 1" in terminal and BAR in terminal, terminal[-500:]
        plain = piped(SDEVAL, "measure", *args, "-o", tmp_path / "b.json")
        assert plain.returncode == 0
        assert BAR not in plain.stderr.decode() and "repetition 1 of 1" not in plain.stderr.decode()
        quiet = on_a_terminal(SDEVAL, "measure", *args, "--quiet", "-o", tmp_path / "c.json")[2]
        assert BAR not in quiet


def test_the_bar_needs_rich_only_when_drawn():
    """rich is imported when a bar is drawn, not by the commands that draw none."""
    code = "import sys; from evaluator._infra import progress\nwith progress.allowed():\n    progress.Bar('x', 5).advance()\nprint('rich' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.strip() == "False"  # standard error is a pipe here
