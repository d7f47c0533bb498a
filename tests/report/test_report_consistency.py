"""The report never contradicts itself, nor the terminal: no "not stated" for what a method does not
have, one word for an info finding, one precision per column (issue 42)."""

from __future__ import annotations

import re

import pytest
from conftest import example
from support.pdf_helpers import poppler


def _text(pdf) -> str:
    out = poppler("pdftotext", "-raw", str(pdf), "-")
    assert out.returncode == 0, out.stderr
    return " ".join(out.stdout.split())


@pytest.mark.pdf
def test_an_ngram_proposer_has_no_drafter_model_to_be_not_stated(sdeval, tmp_path):
    pdf = tmp_path / "ngram.pdf"
    sdeval("render", example("vllm-docs-ngram.json"), "-o", pdf)
    text = _text(pdf)
    assert re.search(r"proposer ngram\b", text), text[:2000]
    assert "ngram: not stated" not in text


@pytest.mark.pdf
def test_the_cover_counts_info_findings_in_the_terminals_word(sdeval, tmp_path):
    pdf = tmp_path / "complete.pdf"
    terminal = sdeval("assess", example("complete-offer.yaml")).stdout.splitlines()[0]
    counts = re.search(r"\((\d+ errors?, \d+ warnings?, \d+ info)\)", terminal).group(1)
    sdeval("render", example("complete-offer.yaml"), "-o", pdf)
    text = _text(pdf)
    assert counts in text
    assert not re.search(r"\d+ notes?\.", text)


def test_the_accounting_tables_interval_column_has_one_precision(sdeval):
    out = sdeval("assess", example("complete-offer.yaml")).stdout.splitlines()
    header = next(i for i, line in enumerate(out) if line.strip().startswith("run ") and "T (s)" in line)
    rows = [line for line in out[header + 1 :] if line.startswith("    ") and line.strip()]
    at = out[header].index("T (s)") + len("T (s)")
    cells = [row[:at].split()[-1] for row in rows]
    assert len(cells) == 8 and cells[0] == "640", cells
    assert len({len(c.partition(".")[2]) for c in cells}) == 1, cells  # 640, 292, 169, ... not 640, 291.888, 27.2517
