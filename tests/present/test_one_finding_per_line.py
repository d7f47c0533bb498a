"""Through a pipe or into a file, each finding is one line (location, severity, code and message),
as every linter a CI knows prints it, so `grep`, editors and problem matchers read it whole;
folding to a width belongs to a terminal (evaluator/present/width.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonpatch
from conftest import EXAMPLES, ROOT
from support.rule_cases import RULE_CASES
from support.terminal import on_a_terminal

from evaluator.engine.loader import load_file

SDEVAL = str(Path(sys.executable).with_name("sdeval"))


def _piped(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("SDEVAL_TEXT_WIDTH", "COLUMNS")}
    return subprocess.run([SDEVAL, *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)


def _failing_case_files(folder: Path) -> list[str]:
    """Every failing rule case written out as the record a vendor would validate (one JSON line,
    so locations run to column 1,800 and more, as the issue's did)."""
    files = []
    for case in RULE_CASES:
        if not case["expect"]:
            continue
        path = folder / f"{case['rule']}-{case['name']}.json"
        if "raw" in case:
            path.write_text(case["raw"])
        else:
            data = load_file(str(EXAMPLES / case["base"])).data
            path.write_text(json.dumps(jsonpatch.apply_patch(data, case.get("patch", []))))
        files.append(str(path))
    return files


def test_grep_finds_every_findings_whole_line_over_all_failing_rule_cases(tmp_path):
    files = _failing_case_files(tmp_path)
    assert len(files) > 80
    text = _piped("validate", *files).stdout.splitlines()
    findings = json.loads(_piped("validate", "-f", "json", *files).stdout)["findings"]
    assert len(findings) >= len(files)
    for f in findings:
        place = f["file"] + (f":{f['line']}:{f['column']}" if f.get("line") is not None else "")
        # `sdeval validate bad.json | grep CODE`: the line grep finds holds the whole finding.
        hits = [line for line in text if f" {f['severity']} {f['code']}: " in line and line.startswith(f"{place}: {f['path'] or '/'}: ")]
        assert any(f["message"] in line for line in hits), (f, hits)
    assert max(len(line) for line in text) > 100  # nothing was folded to fit a width


def test_a_terminal_still_gets_the_text_folded_to_its_width():
    out = on_a_terminal(80, "validate", "examples/acceptance-only.json")
    assert max(len(line) for line in out.splitlines()) <= 80


def test_on_a_terminal_a_certificates_name_is_never_split():
    from evaluator.present.width import fit

    line = (
        "  timestamp     signature timestamp 2026-12-04T10:00:00Z by O=Bar Test TSA,CN=Bar Test TSA Unit "
        "(SHA-256 " + "ab" * 32 + "); intact, valid, and each authority chains to a trust anchor"
    )
    for width in (60, 80, 100):
        folded = fit(line, width)
        assert any("O=Bar Test TSA,CN=Bar Test TSA Unit" in row for row in folded.split("\n")), folded
        assert folded.split() == line.split()  # every word kept, in order
    assert fit("  signer  CN=Jo Assessor, O=Example\u00a0Org spoke " + "x " * 60, 40).count("\u00a0") == 1
