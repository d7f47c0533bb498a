"""`render --references`: the section "Independent results for the same key", the references file
attached byte for byte with its SHA-256, and verify reproducing the comparison from it."""

from __future__ import annotations

import hashlib
import json

import pytest
from conftest import EXAMPLES
from support.pdf_helpers import attachments, page_texts, poppler
from support.reference_rows import inferencex_row

CLAIM = EXAMPLES / "public-claims" / "trt-deepseek-r1-250-tps-per-user.yaml"
ROW = inferencex_row(osl=1024, conc=4, metrics={"median_intvty": 120.0, "output_tput_per_gpu": 60.0}, date="2026-05-19")


@pytest.fixture(scope="module")
def report(work, cli, identity):
    rows = work / "rows.json"
    rows.write_text(json.dumps([ROW]))
    refs = work / "refs.json"
    assert cli("reference", "import", "inferencex", rows, "-o", refs).exit_code == 0
    pdf = work / "report.pdf"
    key, cert = identity
    result = cli("render", CLAIM, "--references", refs, "-o", pdf, "--key", key, "--cert", cert)
    assert result.exit_code == 1, result.stderr  # the record's own error findings
    return pdf, refs, cert


def test_the_section_shows_the_row_the_ratio_and_what_differs(report):
    pdf, _, _ = report
    assert any("Independent results for the same key" in page for page in page_texts(pdf))
    flat = " ".join(poppler("pdftotext", str(pdf), "-").stdout.split())  # reading order: each cell's lines together
    assert "over-250-per-user (output-throughput): claimed 250 tokens/s per user" in flat
    assert "no independent result at this key." in flat
    assert "refs.json inferencex/0 Figure 120 tokens/s per user median_intvty (1 / median TPOT) Ratio What differs; source 2.08x" in flat
    assert "load: concurrency 1 in the record, concurrency 4 in the row" in flat


def test_the_references_file_is_attached_and_named_by_the_manifest(report):
    pdf, refs, _ = report
    attached = attachments(pdf.read_bytes())
    assert attached["refs.json"] == [refs.read_bytes()]
    manifest = json.loads(attached["sdeval-report.json"][0])
    (entry,) = [i for i in manifest["inputs"] if i["role"] == "independent results"]
    assert entry == {
        "attachment": "refs.json",
        "file": "refs.json",
        "role": "independent results",
        "sha256": hashlib.sha256(refs.read_bytes()).hexdigest(),
    }
    assessment = json.loads(attached["assessment.json"][0])
    assert assessment["references"]["files"][0]["sha256"] == entry["sha256"]


def test_verify_reproduces_the_comparison(report, cli):
    pdf, _, cert = report
    out = cli("verify", pdf, "--trust", cert)
    assert out.exit_code == 0, out.stdout
    assert "reproduction  PASS: re-assessing 1 input beside independent results refs.json with sdeval" in out.stdout
    assert "attachments   PASS: 4 files" in out.stdout


def test_other_references_bytes_give_another_comparison(report):
    """What verify compares: the embedded references decide the result (another row, another document)."""
    from evaluator.pipeline import reassess

    pdf, refs, _ = report
    attached = attachments(pdf.read_bytes())
    records = [("trt-deepseek-r1-250-tps-per-user.yaml", CLAIM.read_bytes())]
    same = reassess(records, None, [("refs.json", refs.read_bytes())]).document
    assert same["references"] == json.loads(attached["assessment.json"][0])["references"]
    doc = json.loads(refs.read_text())
    doc["rows"][0]["figures"]["tokens_per_s_per_user"]["value"] = 100.0
    other = reassess(records, None, [("refs.json", json.dumps(doc).encode())]).document
    assert other["references"]["claims"][0]["rows"][0]["ratio"] == 2.5 != same["references"]["claims"][0]["rows"][0]["ratio"]
    assert other["references"]["files"][0]["sha256"] != same["references"]["files"][0]["sha256"]
