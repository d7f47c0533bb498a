"""A non-editable install, run from another directory, finds its schemas and templates."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

import pytest
from conftest import ROOT

pytestmark = pytest.mark.slow  # builds a wheel with pip (about 20 s)


def test_wheel_ships_schemas_and_templates_and_works_from_elsewhere(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)], check=True, capture_output=True)
    (wheel,) = wheels.glob("sdeval-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "evaluator/_data/schemas/evidence-record.schema.json" in names
    # The licence travels with the wheel, and its metadata names it (PEP 639).
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    assert "License-Expression: Apache-2.0" in zipfile.ZipFile(wheel).read(metadata).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)], check=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(os.environ, PYTHONPATH=str(target))
    # -I would drop PYTHONPATH; -P keeps the current directory off sys.path instead.
    result = subprocess.run(
        [
            sys.executable,
            "-P",
            "-c",
            "import evaluator, sys; print(evaluator.__file__); sys.argv=['sdeval','schema']; from evaluator.cli import main; main()",
        ],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    first, _, rest = result.stdout.partition("\n")
    assert first.startswith(str(target)), "the installed copy, not the repository, was imported"
    assert rest == (ROOT / "schemas" / "evidence-record.schema.json").read_text()
