"""Approved outputs: the text and JSON of `assess` and the page text of the PDF report for the
shipped examples, kept under tests/snapshots/ and compared byte for byte (as ruff's renderer
snapshots are). An unintended change of any output shows here as a diff; an intended one is
approved by running

    SDEVAL_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/present/test_snapshots.py

and committing the rewritten files with the change that made them."""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess

import pytest
from conftest import EXAMPLES, ROOT

SNAPSHOTS = ROOT / "tests" / "snapshots"
UPDATE = os.environ.get("SDEVAL_UPDATE_SNAPSHOTS") == "1"

RECORDS = sorted(
    p.relative_to(ROOT).as_posix()
    for p in [*EXAMPLES.glob("*.json"), *EXAMPLES.glob("*.yaml"), *(EXAMPLES / "public-claims").glob("*.*")]
    if not p.name.startswith("requirements") and p.suffix in (".json", ".yaml")
)
# The buyer's side as docs/buyers.md shows it: offers judged against a requirements profile.
REQUIREMENTS = {
    "sd201": ["examples/sd201-offer-a.json", "examples/sd201-offer-b.json", "--requirements", "examples/requirements-sd201.yaml"],
    "two-offers": ["examples/complete-offer.yaml", "examples/quiet-load-offer.yaml", "--requirements", "examples/requirements.yaml"],
    "cost": ["examples/complete-offer.yaml", "examples/quiet-load-offer.yaml", "--requirements", "examples/requirements-cost.yaml"],
}
# A render's own time is the one thing on the pages that changes from run to run, and with it
# the SHA-256 of the manifest that records it.
RENDER_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC")
MANIFEST_HASH = re.compile(r"(report manifest \(JSON\) +)[0-9a-f]{64}")


def approve(name: str, actual: str) -> None:
    path = SNAPSHOTS / name
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"no approved snapshot {path.name}; run with SDEVAL_UPDATE_SNAPSHOTS=1 to write it")
        path.write_text(actual, encoding="utf-8")
        return
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), f"approved/{name}", f"actual/{name}"))
        pytest.fail(f"{name} changed (approve with SDEVAL_UPDATE_SNAPSHOTS=1 if intended):\n{diff}")


def snapshot_name(path: str) -> str:
    return path.removeprefix("examples/").replace("/", "--")


@pytest.fixture(autouse=True)
def _from_the_repository(monkeypatch):
    # Outputs name files as they were given; relative paths keep the snapshots machine-independent.
    monkeypatch.chdir(ROOT)
    # As a 100-column terminal shows it (a pipe or a file gets every line whole).
    monkeypatch.setenv("SDEVAL_TEXT_WIDTH", "100")


@pytest.mark.parametrize("record", RECORDS)
def test_assess_text_and_json_are_the_approved_ones(sdeval, record):
    text = sdeval("assess", record)
    document = sdeval("assess", record, "--format", "json")
    assert text.exit_code in (0, 1) and document.exit_code == text.exit_code, text.stderr
    approve(f"{snapshot_name(record)}.assess.txt", text.stdout + f"--- stderr (exit {text.exit_code})\n" + text.stderr)
    approve(f"{snapshot_name(record)}.assess.json", document.stdout)


def test_the_rule_catalog_lists_as_approved(sdeval):
    """The catalog's order is its modules' registration order; listings, SARIF's rule table and the
    form all show it."""
    approve("rules.txt", sdeval("rules").stdout)
    approve("rules.json", sdeval("rules", "--format", "json").stdout)


def test_sarif_of_a_shipped_example_is_the_approved_one(sdeval):
    out = sdeval("assess", "examples/sd201-offer-a.json", "--format", "sarif")
    approve("sd201-offer-a.json.assess.sarif", out.stdout)


@pytest.mark.parametrize("case", sorted(REQUIREMENTS))
def test_assess_requirements_text_and_json_are_the_approved_ones(sdeval, case):
    text = sdeval("assess", *REQUIREMENTS[case])
    document = sdeval("assess", *REQUIREMENTS[case], "--format", "json")
    assert text.exit_code in (0, 1), text.stderr
    approve(f"requirements-{case}.assess.txt", text.stdout + f"--- stderr (exit {text.exit_code})\n" + text.stderr)
    approve(f"requirements-{case}.assess.json", document.stdout)


PDF_CASES = {
    "sd201-offer-a": ["examples/sd201-offer-a.json"],
    "complete-offer": ["examples/complete-offer.yaml"],
    "requirements-two-offers": REQUIREMENTS["two-offers"],
}


@pytest.mark.pdf
@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler's pdftotext is not installed")
@pytest.mark.parametrize("case", sorted(PDF_CASES))
def test_the_unsigned_report_pages_read_as_approved(sdeval, tmp_path, case):
    pdf = tmp_path / f"{case}.pdf"
    out = sdeval("render", *PDF_CASES[case], "-o", pdf)
    assert out.exit_code in (0, 1) and pdf.exists(), out.stderr
    pages = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages = "\n".join(line.rstrip() for line in pages.splitlines()) + "\n"
    pages = MANIFEST_HASH.sub(r"\1<manifest sha-256>", RENDER_TIME.sub("<render time>", pages))
    approve(f"{case}.pdf.txt", pages)
