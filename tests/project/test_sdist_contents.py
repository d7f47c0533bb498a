"""The source distribution carries every file of the repository that its own tests read (issue 29:
tests/test_docs.py runs scripts/generate_docs.py, which the sdist used to leave out)."""

from __future__ import annotations

import re
import tomllib

from conftest import ROOT

# Hatch puts pyproject.toml into every sdist; .venv is the checkout's own environment, which tests may look for.
ALWAYS = {"pyproject.toml", ".venv"}


def test_every_top_level_path_the_tests_read_is_in_the_sdist():
    include = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["sdist"]["include"])
    read = set()
    for module in (ROOT / "tests").rglob("*.py"):
        read |= set(re.findall(r'ROOT / "([\w.-]+)"', module.read_text()))
    assert "scripts" in read, "the scan no longer sees tests/test_docs.py's use of scripts/"
    assert read - ALWAYS <= include, f"the sdist leaves out {sorted(read - ALWAYS - include)}"
