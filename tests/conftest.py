"""Shared helpers: run the real command line in-process, and load the shipped examples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluator.cli import app

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


class Result:
    def __init__(self, exit_code: int, stdout: str, stderr: str):
        self.exit_code, self.stdout, self.stderr = exit_code, stdout, stderr

    def json(self):
        return json.loads(self.stdout)


@pytest.fixture
def sdeval():
    """Invoke `sdeval ARGS...` through the real typer app; returns exit code, stdout, stderr."""
    runner = CliRunner()

    def run(*args: str, input: str | None = None) -> Result:
        out = runner.invoke(app, [str(a) for a in args], input=input, catch_exceptions=False)
        return Result(out.exit_code, out.stdout, out.stderr)

    return run


def example(name: str) -> Path:
    return EXAMPLES / name
