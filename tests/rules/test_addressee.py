"""Requests addressed by who made the record (offer.source, record 1.3): a vendor's record asks the
vendor; a record the buyer types (`sdeval init`) says "fill in"; a record the buyer measured
(`sdeval measure`) says "measure again"; the terminal and the PDF say the same (rules/addressee.py)."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from conftest import example
from support.pdf_helpers import poppler


def _measured(tmp_path, source: str | None):
    """complete-offer.yaml with one failed request behind claim speedup-c8, made by `source`."""
    record = yaml.safe_load(example("complete-offer.yaml").read_text())
    if source is not None:
        record["offer"]["source"] = source
    next(r for r in record["runs"] if r["id"] == "eagle3-c8")["workload"]["requests_failed"] = 1
    path = tmp_path / f"{source}.json"
    path.write_text(json.dumps(record))
    return path


def _asks_block(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"  What to .*:$", line))
    return [line for line in lines[start:] if line.strip()][:2]


def test_a_blank_init_record_says_fill_in_not_ask_the_vendor(sdeval, tmp_path):
    blank = tmp_path / "offer.yaml"
    assert sdeval("init", "-o", blank).exit_code == 0
    assert "\n  source: buyer-transcribed\n" in blank.read_text()
    out = sdeval("assess", blank).stdout
    assert "What to ask the vendor" not in out and "Please correct" not in out
    assert "  What to fill in, or ask the vendor:\n    1. Fill in /offer/vendor: must be text (got null). (schema)\n" in out


@pytest.mark.parametrize(
    "source, heading, first",
    [
        (None, "What to ask the vendor", "Please measure run eagle3-c8 again"),
        ("vendor", "What to ask the vendor", "Please measure run eagle3-c8 again"),
        ("buyer-measured", "What to measure again", "Measure run eagle3-c8 again"),
        ("buyer-transcribed", "What to fill in, or ask the vendor", "Ask the vendor: Please measure run eagle3-c8 again"),
        ("tool", "What to fill in, or ask the vendor", "Ask the vendor: Please measure run eagle3-c8 again"),
    ],
)
def test_the_terminal_addresses_whoever_made_the_record(sdeval, tmp_path, source, heading, first):
    heading_line, ask = _asks_block(sdeval("assess", _measured(tmp_path, source)).stdout)
    assert heading_line == f"  {heading}:"
    assert ask.startswith(f"    1. {first} until every request completes"), ask


def test_vendor_skeleton_is_the_vendors_record(sdeval, tmp_path):
    path = tmp_path / "vendor.yaml"
    assert sdeval("init", "--vendor", "-o", path).exit_code == 0
    assert yaml.safe_load(path.read_text())["offer"]["source"] == "vendor"


@pytest.mark.pdf
def test_the_pdf_cover_and_asks_page_say_what_the_terminal_says(sdeval, tmp_path):
    pdf = tmp_path / "measured.pdf"
    assert sdeval("render", _measured(tmp_path, "buyer-measured"), "-o", pdf).exit_code == 1
    out = poppler("pdftotext", "-raw", str(pdf), "-")
    text = " ".join(out.stdout.split())
    assert "1 request for the next measurement: see What to measure again, below." in text
    assert "What to measure again Each error finding below, as a request for the next measurement" in text
    assert "Measure run eagle3-c8 again until every request completes" in text
    assert "What to ask the vendor" not in text and "Please measure" not in text
