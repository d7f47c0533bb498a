"""The vendor path as the README and docs/vendors.md write it runs on the tool outputs the project
ships (examples/tool-outputs/): each command is taken from the page's code block, word for word."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

SDEVAL = str(Path(sys.executable).with_name("sdeval"))

# What a vendor types over init's <...> fields before importing (the block's first comment says so).
FILLED = {
    "<your company>": "Acme Inference Ltd",
    "<the offer's id>": "ACME-SD-2026-114",
    "<the claim as you word it to the buyer>": "1.9x output throughput at 8 concurrent requests",
    "<org/model>": "meta-llama/Llama-3.3-70B-Instruct",
    "<org/drafter>": "yuhuili/EAGLE3-LLaMA3.3-Instruct-70B",
    "<commit>": "6f6073b423013f6a7d4d9f39144961bfbfbc386b",
    "<version>": "0.11.0",
    "<accelerator>": "NVIDIA H100 SXM5 80GB",
}


def _block(page: str, heading: str) -> list[str]:
    """The command lines of the first ```sh block after `heading` on `page`."""
    text = (ROOT / page).read_text(encoding="utf-8")
    after = text[text.index(heading) :]
    start = after.index("```sh\n") + len("```sh\n")
    return [line for line in after[start : after.index("```", start)].splitlines() if line.strip()]


def _fill(record: Path) -> None:
    comments, _, body = record.read_text(encoding="utf-8").partition("\nrecord_version:")
    for placeholder, value in FILLED.items():
        body = body.replace(placeholder, value)
    assert "<" not in body, body
    record.write_text(comments + "\nrecord_version:" + body, encoding="utf-8")


@pytest.mark.parametrize(("page", "heading"), [("README.md", "## For vendors"), ("docs/vendors.md", "## Starting a record")])
def test_the_documented_vendor_commands_run_on_the_shipped_tool_outputs(tmp_path, page, heading):
    lines = _block(page, heading)
    assert lines[0].startswith("sdeval init --vendor -o offer.yaml")
    assert any("examples/tool-outputs/spec-c8.json" in line for line in lines)
    (tmp_path / "examples").symlink_to(ROOT / "examples")  # the paths as written, from a clone's top folder
    results = []
    for line in lines:
        words = shlex.split(line, comments=True)
        assert words[0] == "sdeval", line
        result = subprocess.run([SDEVAL, *words[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        results.append(result)
        if words[1] == "init":
            _fill(tmp_path / "offer.yaml")
        if line is not lines[-1]:
            assert result.returncode == 0, (line, result.stderr)
    # The last step (validate, assess) names what is still owed, as the page says: exit 1 on two errors.
    final = tmp_path / shlex.split(lines[-1], comments=True)[-1]
    assert results[-1].returncode == 1, results[-1].stderr
    document = json.loads(subprocess.run([SDEVAL, "assess", "--format", "json", str(final)], capture_output=True, text=True).stdout)
    assert {f["code"] for f in document["findings"] if f["severity"] == "error"} == {"quality-missing", "coverage-gap"}
    assert [(c["run"], c["baseline"], c["kind"]) for c in document["files"][0]["claims"]] == [("spec-c8", "base-c8", "speedup")]
