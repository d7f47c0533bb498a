"""HTML to PDF/A-3a bytes with WeasyPrint, the inputs attached.

PDF/A-3a rather than PDF/UA-1: level A of PDF/A-3 is a tagged PDF (structure tree, reading order,
/Lang from <html lang>, /Alt for each figure from its SVG <title>, Unicode text), so a screen reader
can read the report, and PDF/A-3 is the part that allows the embedded files an auditor verifies.
WeasyPrint's pdf/ua-1 variant would drop the PDF/A identification and its sRGB output intent. The
pyHanko signature is an incremental update over these bytes and is unaffected by the tagging.

`PdfWriter` does it in a forked process when forking is safe (elsewhere in this process). The
render command starts it first thing (report/write.py: Writing), once its arguments are parsed, so
WeasyPrint's import (about 0.5 s) overlaps the assessment and the signer's set-up. This module
imports nothing of sdeval's record or rules, so the forked writer never pays for them.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from dataclasses import dataclass

from .._infra import forking

PDF_VARIANT = "pdf/a-3a"
# A zero adjustment between two glyph strings of a TJ array, as WeasyPrint writes `[<0036>0<0033>] TJ`
# (a glyph's width rounded to whole thousandths differs from Pango's by less than one, printed as 0).
_ZERO_ADJUSTMENT = re.compile(rb"(?<=[0-9a-f])>0<(?=[0-9a-f])")


@dataclass(frozen=True)
class Attachment:
    """A file to attach, as plain values (it crosses to the writing process)."""

    name: str
    description: str
    relationship: str  # "Source" for the inputs, "Data" for what sdeval derived from them
    data: bytes


def write_pdf(html: str, attachments: list[Attachment], when: dt.datetime, *, joined_glyph_runs: bool = True) -> bytes:
    """`joined_glyph_runs`: each run of glyphs shown as one string (join_glyph_runs); False writes
    them as WeasyPrint does, one string per glyph, as reports made before it were (tests keep such
    reports verifying)."""
    from weasyprint import HTML
    from weasyprint import Attachment as WeasyAttachment

    from .._infra.resources import data_dir
    from .fetcher import AllowListFetcher

    templates = data_dir("templates")
    files = [
        WeasyAttachment(string=a.data, name=a.name, description=a.description, relationship=a.relationship, created=when, modified=when)
        for a in attachments
    ]
    # WeasyPrint logs refused URLs and font fallbacks at WARNING; keep them off the user's terminal.
    logger = logging.getLogger("weasyprint")
    previous = logger.level
    logger.setLevel(logging.ERROR)
    try:
        return HTML(string=html, base_url=f"{templates}/", url_fetcher=AllowListFetcher(templates)).write_pdf(
            pdf_variant=PDF_VARIANT, attachments=files, finisher=join_glyph_runs if joined_glyph_runs else None
        )
    finally:
        logger.setLevel(previous)


def join_glyph_runs(document, pdf) -> None:
    """WeasyPrint's finisher: drop the zero adjustments between glyph strings in every TJ array, so
    `[<0036>0<0033>-23<0024>] TJ` becomes `[<00360033>-23<0024>] TJ`. What is drawn, where, and the
    text a reader extracts stay the same (an adjustment of 0 moves nothing), but a page holds about
    half as many tokens, and `sdeval verify` reads the cover's text (every hash it prints) about
    twice as fast. Real adjustments (kerning, letter spacing) are kept."""
    for obj in pdf.objects:
        # `pdf` is WeasyPrint's pydyf document: a stream object keeps its content as a list of
        # operator lines (bytes) until it is written, right after this finisher returns.
        if isinstance(getattr(obj, "stream", None), list):
            obj.stream = [
                _ZERO_ADJUSTMENT.sub(b"", item) if isinstance(item, bytes) and item.startswith(b"[") and item.endswith(b"] TJ") else item
                for item in obj.stream
            ]


class PdfWriter(forking.ForkedOrHere):
    """`write_pdf` in a forked process that imports WeasyPrint as soon as it starts (in this
    process where forking is unsafe). Use as a context manager; the process never outlives it."""

    def __init__(self) -> None:
        self._forked = forking.Forked(_write_in_child, role="PDF writing") if forking.fork_is_safe() else None

    def write(self, html: str, attachments: list[Attachment], when: dt.datetime) -> bytes:
        if self._forked is None:
            return write_pdf(html, attachments, when)
        self._forked.send((html, attachments, when))
        return self._forked.receive()


def _write_in_child(connection) -> bytes:
    import weasyprint  # noqa: F401  (the import this process exists to get out of the way early)

    from .fetcher import AllowListFetcher  # noqa: F401

    html, attachments, when = connection.recv()
    return write_pdf(html, attachments, when)
