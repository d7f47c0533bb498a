"""Each run of glyphs is one string in the report's text operators (writer.join_glyph_runs): the
pages draw and read exactly as WeasyPrint's one-string-per-glyph output does, a verifier parses
half as many tokens, and reports written the earlier way still verify."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from conftest import example
from support.pdf_helpers import poppler

from evaluator.pipeline import assess_paths
from evaluator.report import render
from evaluator.report.signing import load_identity, sign
from evaluator.report.writer import Attachment, write_pdf

pytestmark = pytest.mark.pdf

OFFER = example("complete-offer.yaml")
WHEN = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.timezone.utc)
# A zero adjustment between two glyph strings inside a TJ array: `<0036>0<0033>`
ZERO_BETWEEN_GLYPHS = re.compile(rb"[0-9a-f]>0<[0-9a-f]")


@pytest.fixture(scope="module")
def both(work):
    """The same report written both ways: (joined, one string per glyph as before), unsigned."""
    assessed = assess_paths([str(OFFER)], for_report=True)
    embedded = render.embedded_files(assessed, WHEN)
    html = render.render_html(assessed, embedded, when=WHEN, signer="sdeval trial assessor")
    files = [Attachment(e.name, f"{e.role}: {e.source}", "Source" if e.role in render.SOURCE_ROLES else "Data", e.data) for e in embedded]
    joined, earlier = write_pdf(html, files, WHEN), write_pdf(html, files, WHEN, joined_glyph_runs=False)
    (work / "joined.pdf").write_bytes(joined)
    (work / "earlier.pdf").write_bytes(earlier)
    return work / "joined.pdf", work / "earlier.pdf"


def text_operators(path) -> list[bytes]:
    """Every TJ array of every page's content, in order."""
    from pypdf import PdfReader

    arrays = []
    for page in PdfReader(str(path)).pages:
        arrays += re.findall(rb"\[[^\]]*\] TJ", page.get_contents().get_data())
    return arrays


def test_a_report_shows_each_run_of_glyphs_as_one_string(both):
    joined, earlier = both
    assert any(ZERO_BETWEEN_GLYPHS.search(a) for a in text_operators(earlier))  # what WeasyPrint writes
    arrays = text_operators(joined)
    assert arrays and not any(ZERO_BETWEEN_GLYPHS.search(a) for a in arrays)
    assert any(re.search(rb"<(?:[0-9a-f]{4}){8,}>", a) for a in arrays)  # runs of glyphs in one string
    strings = [len(re.findall(rb"<[0-9a-f]*>", b"".join(text_operators(path)))) for path in both]
    assert strings[0] < strings[1] / 4  # glyph strings the verifier parses


def test_joined_runs_read_and_draw_exactly_as_before(both):
    from pypdf import PdfReader

    joined, earlier = both
    texts = [[p.extract_text() for p in PdfReader(str(path)).pages] for path in (joined, earlier)]
    assert texts[0] == texts[1] and len(texts[0]) >= 2
    for path in (joined, earlier):
        drawn = poppler("pdftoppm", "-r", "60", "-gray", str(path), str(path.with_suffix("")))
        assert drawn.returncode == 0, drawn.stderr
    pages = sorted(joined.parent.glob(f"{joined.stem}-*.pgm"))
    assert len(pages) == len(texts[0])
    for page in pages:  # every page, pixel for pixel
        assert page.read_bytes() == page.with_name(page.name.replace(joined.stem, earlier.stem)).read_bytes(), page.name


def test_a_report_written_the_earlier_way_still_verifies(both, work, cli, identity):
    key, cert = identity
    _, earlier = both
    signed = sign(earlier.read_bytes(), load_identity(key=key, cert=cert, pkcs12=None, password_file=None))
    (work / "earlier-signed.pdf").write_bytes(signed)
    out = cli("verify", work / "earlier-signed.pdf", "--trust", cert)
    assert out.exit_code == 0, out.stdout + out.stderr
    assert out.stdout.splitlines()[-1] == "verified: every check passed"
