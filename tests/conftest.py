"""Shared helpers: run the real command line in-process (`invoke`, the one way tests run it, also
as the `sdeval` and `cli` fixtures), and load the shipped examples.

The tests mirror the package: tests/engine/ for evaluator/engine/, tests/rules/ for evaluator/rules/
and so on, with tests/project/ for what belongs to the repository as a whole (docs, changelog,
packaging, layout) and tests/support/ for the helpers several folders share."""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluator.cli.commands import app

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
TESTS = ROOT / "tests"

# The archive's fixtures (a PostgreSQL server, signed reports) are used by several folders.
pytest_plugins = ["support.archive_fixtures"]


class Result:
    def __init__(self, exit_code: int, stdout: str, stderr: str):
        self.exit_code, self.stdout, self.stderr = exit_code, stdout, stderr

    def json(self):
        return json.loads(self.stdout)


@pytest.fixture(autouse=True, scope="session")
def _whole_lines():
    """Text output unfolded, so tests can match a line whole; the fitting to a width (a
    terminal's, or SDEVAL_TEXT_WIDTH's) is tested in test_text_width.py and shown in the snapshots. Session scope: fixtures
    of module scope run commands before any function-scoped one."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SDEVAL_TEXT_WIDTH", "0")
        yield


# The one way tests run the command line in this process (every test goes through `invoke`).
RUNNER = CliRunner()


def invoke(*args, input: str | bytes | None = None, env: dict[str, str] | None = None) -> Result:
    """`sdeval ARGS...` through the real typer app, in this process: exit code, stdout, stderr.
    Tests that need the installed console script as its own process run .venv/bin/sdeval."""
    out = RUNNER.invoke(app, [str(a) for a in args], input=input, env=env, catch_exceptions=False)
    return Result(out.exit_code, out.stdout, out.stderr)


@pytest.fixture
def sdeval():
    """`invoke`, as a fixture."""
    return invoke


def example(name: str) -> Path:
    return EXAMPLES / name


def changed_profile(tmp_path: Path, base: str | Path, **changes) -> str:
    """A shipped requirements profile with some top-level sections replaced (None removes one),
    written as JSON into tmp_path; returns its path."""
    import yaml

    data = yaml.safe_load(Path(base).read_text())
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(data))
    return str(path)


# ------------------------------------------------------------------ PDF report modules
# A render takes about a second, so the PDF test modules make each report once per module
# and share these.


@pytest.fixture(scope="module")
def work(request, tmp_path_factory):
    """A folder for the module's reports and identities."""
    return tmp_path_factory.mktemp(request.module.__name__.removeprefix("test_"))


@pytest.fixture(scope="module")
def cli():
    """`invoke`, for fixtures of module scope (the PDF modules make each report once)."""
    return invoke


@pytest.fixture(scope="module")
def identity(work, cli):
    """A trial signing identity made by `sdeval keygen`: (key.pem, cert.pem)."""
    out = cli("keygen", work / "id")
    assert out.exit_code == 0, out.stderr
    return work / "id" / "key.pem", work / "id" / "cert.pem"


@pytest.fixture(scope="module")
def server():
    """A loopback HTTP server that records every request it gets (the trap for any fetch)."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            seen.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "text/css")
            self.end_headers()
            self.wfile.write(b"body { color: red }")

        def log_message(self, *args):
            pass

    httpd = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}", seen
    httpd.shutdown()


# Debian's Chromium, driven by Playwright (never a downloaded browser): the form and `sdeval serve`.
CHROMIUM = os.environ.get("SDEVAL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# Module scope: Playwright's sync API keeps an event loop in this thread while it lives.
@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/setup test installs Debian's chromium as root)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()
