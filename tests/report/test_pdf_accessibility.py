"""The report as a screen reader and a printer meet it: a tagged PDF/A-3a with its language, a
structure that follows the pages, alternative text for every chart, and marks inside the
printable area, still signed and verified by sdeval, poppler and pyHanko."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import example
from support.pdf_helpers import poppler

pytestmark = pytest.mark.pdf

OFFERS = (example("complete-offer.yaml"), example("quiet-load-offer.yaml"))
PROFILE = example("requirements.yaml")


@pytest.fixture(scope="module")
def signed(work, cli, identity):
    key, cert = identity
    out = cli("render", *OFFERS, "-r", PROFILE, "-o", work / "tagged.pdf", "--key", key, "--cert", cert)
    assert out.exit_code == 1, out.stderr  # no offer meets every requirement
    assert out.stderr.splitlines()[-1] == f"sdeval: exit 1: no offer meets every requirement of {PROFILE}"
    return work / "tagged.pdf"


@pytest.fixture(scope="module")
def draft(work, cli):
    out = cli("render", OFFERS[0], "-o", work / "draft.pdf")
    assert out.exit_code == 0, out.stderr
    return work / "draft.pdf"


def structure(path: Path):
    """(tag, page index) of every structure element in the tree's reading order, and each Figure's /Alt."""
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    pages = {page.indirect_reference.idnum: i for i, page in enumerate(reader.pages)}
    order, alts = [], []

    def walk(node):
        node = node.get_object()
        tag = node.get("/S")
        if tag is not None:
            page = node.get("/Pg")
            order.append((str(tag), pages.get(page.idnum) if page is not None else None))
            if tag == "/Figure":
                alts.append(str(node.get("/Alt") or ""))
        kids = node.get("/K")
        for kid in kids if isinstance(kids, list) else [kids] if kids is not None else []:
            if hasattr(kid, "get_object") and hasattr(kid.get_object(), "get"):
                walk(kid)

    walk(reader.trailer["/Root"]["/StructTreeRoot"])
    return reader, order, alts


def test_pdfinfo_says_tagged(signed):
    info = poppler("pdfinfo", str(signed))
    assert info.returncode == 0
    assert "Tagged:          yes" in info.stdout
    assert "PDF version:     1.7" in info.stdout


def test_pdfa_3a_with_document_language_and_title_shown(signed):
    reader, _, _ = structure(signed)
    root = reader.trailer["/Root"]
    assert root["/Lang"] == "en"
    assert bool(root["/MarkInfo"]["/Marked"])
    assert bool(root["/ViewerPreferences"]["/DisplayDocTitle"])
    raw = root["/Metadata"].get_object().get_data().decode()
    assert 'pdfaid:part="3"' in raw or "<pdfaid:part>3</pdfaid:part>" in raw
    assert 'pdfaid:conformance="A"' in raw or "<pdfaid:conformance>A</pdfaid:conformance>" in raw


def test_every_chart_has_alternative_text_with_its_figures(signed):
    _, _, alts = structure(signed)
    assert len(alts) == 10  # the requirements chart, each offer's frontier and throughput charts, 3 + 2 histograms
    assert all(alts), alts
    everyone = next(a for a in alts if a.startswith("Output throughput by concurrency: every offer and its baseline."))
    assert (
        "Acme Inference Ltd, ACME-SD-2026-114: 84 tokens/s at concurrency 1, 553 tokens/s at concurrency 8, "
        "2,226 tokens/s at concurrency 64, 3,850 tokens/s at concurrency 256." in everyone
    )
    histogram = next(a for a in alts if a.startswith("eagle3-c1: accepted drafts per step."))
    assert histogram == (
        "eagle3-c1: accepted drafts per step. verification steps by drafts accepted in a step (j): "
        "0: 1,162 (14 %); 1: 1,578 (19 %); 2: 1,993 (24 %); 3: 3,570 (43 %)."
    )


def test_the_structure_follows_the_pages(signed):
    _, order, _ = structure(signed)
    tags = [tag for tag, _ in order]
    assert tags[0] == "/Document"
    headings = [(tag, page) for tag, page in order if tag in ("/H1", "/H2", "/H3")]
    pages = [page for _, page in headings]
    assert pages == sorted(pages)  # read in the order printed
    assert headings[0] == ("/H1", 0)
    assert {"/Table", "/TH", "/TD", "/Figure", "/P"} <= set(tags)


def test_pdftotext_reads_the_cover_in_page_order_with_the_buyers_answer_as_headline(signed):
    cover = poppler("pdftotext", "-f", "1", "-l", "1", str(signed), "-").stdout
    lines = [line.strip() for line in cover.splitlines() if line.strip()]
    assert lines[:3] == ["SPECULATIVE-DECODING OFFER ASSESSMENT", "2 offers compared", "Offer"]
    order = [
        lines.index(x)
        for x in (
            "Acme Inference Ltd, ACME-SD-2026-114",
            "Quietline AI GmbH, QL-2026-031",
            "AGAINST THE BUYER'S REQUIREMENTS (NORTHWIND SUPPORT DESK, NW-RFP-2026-07)",
            "NO OFFER MEETS EVERY REQUIREMENT",
            "Embedded files (PDF attachments)",
        )
    ]
    assert order == sorted(order)
    assert "No offer meets every requirement." not in lines  # the headline says it once
    text = " ".join(lines)
    assert "Acme Inference Ltd, ACME-SD-2026-114 and Quietline AI GmbH, QL-2026-031 tie at rank 1: each meets 6 of 9 requirements." in text
    assert "Evidence behind the claims: ESTABLISHED. Every claim below is backed by its evidence record." in text
    assert "examples/" not in cover  # paths typed stay in the manifest


def test_signed_tagged_report_verifies_with_sdeval_poppler_and_pyhanko(signed, identity, cli):
    out = cli("verify", signed, "--trust", identity[1])
    assert out.exit_code == 0, out.stdout
    sig = poppler("pdfsig", str(signed))
    assert "Signature is Valid." in sig.stdout and "Total document signed" in sig.stdout
    cli_path = shutil.which("pyhanko") or str(Path(sys.executable).parent / "pyhanko")
    if not Path(cli_path).exists():
        pytest.skip("pyhanko-cli is not installed (pip install -e '.[test]')")
    checked = subprocess.run(
        [cli_path, "sign", "validate", "--no-revocation-check", "--trust-replace", "--trust", str(identity[1]), "--executive-summary", str(signed)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.strip().endswith(":VALID")


def test_the_draft_mark_sits_inside_the_printable_area(draft):
    """Printers leave about 5 mm unprinted at each edge; the mark's box starts 7 mm down."""
    import xml.etree.ElementTree as ET

    out = poppler("pdftotext", "-bbox-layout", "-f", "1", "-l", "1", str(draft), "-")
    ns = "{http://www.w3.org/1999/xhtml}"
    words = [w for w in ET.fromstring(out.stdout).iter(f"{ns}word") if w.text in ("UNSIGNED", "DRAFT")]
    assert words
    top_mm = min(float(w.get("yMin")) for w in words) / 72 * 25.4
    assert top_mm > 8.0  # text below the 7 mm margin plus the box's border and padding
