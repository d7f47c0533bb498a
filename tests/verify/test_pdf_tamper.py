"""Every part of a signed report, changed, fails `sdeval verify`, and the output names the failing
check and why. One byte is flipped inside the part's own bytes, located through the xref (streams)
or the newest revision's dictionary text; attachments are also swapped by an incremental update,
and the file is cut at several places. tests/report/test_pdf_report.py flips bytes at fixed fractions of
the file; this module goes part by part.
"""

from __future__ import annotations

import io

import pytest
from conftest import example
from support.pdf_helpers import cert_fingerprint, flip, last_span, render_signed, signed_ranges, stream_span, swap_attachment

pytestmark = pytest.mark.pdf

OFFER = example("sd201-offer-b.json")  # small: renders fast
NOT_INTACT = "  signature     FAIL: not intact: the signed bytes were changed"
DAMAGED = "  signature     FAIL: cannot be validated: the signature's CMS container is damaged ("
WRONG_VALUE = "  signature     FAIL: the signature value does not match the signer's key"
NOT_ENTIRE = "  signature     FAIL: does not cover the entire file: an incremental update was added after signing that changes the document"


@pytest.fixture(scope="module")
def signed(work, cli, identity):
    """(the signed report's bytes, the certificate that verifies it)"""
    return render_signed(cli, work, identity, OFFER)


CHECKS = ["signer", "signature", "timestamp", "trust", "attachments", "reproduction"]


def assert_every_line_is_there(out, cert_path) -> None:
    """Every check has its line (a check that could not run says why), the signer's fingerprint is
    shown, and a broken signature leaves timestamp and trust not evaluated, never "does not chain"."""
    lines = out.stdout.splitlines()
    named = [line.split()[0] for line in lines[1:-1] if not line.startswith("   ")]  # notes are indented further
    assert named == CHECKS, out.stdout
    assert f"SHA-256 {cert_fingerprint(cert_path)}" in lines[1], out.stdout
    assert "  timestamp     NOT EVALUATED: the signature is broken" in lines, out.stdout
    assert "  trust         NOT EVALUATED: the signature is broken" in lines, out.stdout
    assert "does not chain" not in out.stdout and "pass --trust" not in out.stdout


def _reader(data: bytes):
    from pypdf import PdfReader

    return PdfReader(io.BytesIO(data))


def _attachment_streams(data: bytes) -> dict[str, object]:
    names = _reader(data).trailer["/Root"]["/Names"]["/EmbeddedFiles"]["/Names"]
    return {names[i]: names[i + 1].get_object()["/EF"]["/F"] for i in range(0, len(names), 2)}


def _in_cms(data: bytes, offset: int) -> range:
    """One hex digit (0-9, so the flip keeps it hex) of the CMS signature in /Contents, `offset`
    bytes from its start, or from its end when negative (the RSA value is the CMS's last 384 bytes,
    the signed attributes lie before it; zero padding follows)."""
    first, _ = signed_ranges(data)
    hex_start = first.stop + 1  # after "<"
    hex_end = data.index(b">", hex_start)
    content_end = hex_start + len(data[hex_start:hex_end].rstrip(b"0"))
    position = hex_start + 2 * offset if offset >= 0 else content_end + 2 * offset
    while data[position] not in b"0123456789":
        position += 1
    return range(position, position + 1)


# Each part: how to find its bytes in a signed report, and what verify must say once one is flipped.
PARTS = {
    # The units digit of the seconds: flipping its lowest bit (0<->1 ... 8<->9) always leaves a valid,
    # different time, whatever day the report was signed (a day digit could make 31 November).
    "signature dictionary: /M signing time": (lambda d: last_span(d, rb"/M \(D\\072\d{13}(\d)"), NOT_INTACT),
    "signature dictionary: /Reason": (lambda d: last_span(d, rb"/Reason \((.+?)\)"), NOT_INTACT),
    "signature dictionary: /ByteRange": (lambda d: last_span(d, rb"/ByteRange \[\s*\d+\s+(\d+)"), NOT_INTACT),
    "signature dictionary: /Contents, the signed attributes": (
        lambda d: _in_cms(d, -500),
        DAMAGED + "SignatureValidationError: Signing certificate attribute does not match",
    ),
    "signature dictionary: /Contents, the RSA signature value": (lambda d: _in_cms(d, -100), WRONG_VALUE),
    "signature dictionary: /Contents, the CMS structure": (lambda d: _in_cms(d, 8), DAMAGED),
    "first page's content stream": (lambda d: stream_span(d, _reader(d).pages[0]["/Contents"]), NOT_INTACT),
    "last page's content stream": (lambda d: stream_span(d, _reader(d).pages[-1]["/Contents"]), NOT_INTACT),
    "metadata: XMP stream": (lambda d: stream_span(d, _reader(d).trailer["/Root"]["/Metadata"]), NOT_INTACT),
    "metadata: Info /Title": (lambda d: last_span(d, rb"/Title \((.+?)\)"), NOT_INTACT),
    "metadata: Info /Author": (lambda d: last_span(d, rb"/Author \((.+?)\)"), NOT_INTACT),
    "attachment stream: the evidence record": (lambda d: stream_span(d, _attachment_streams(d)[OFFER.name]), NOT_INTACT),
    "attachment stream: assessment.json": (lambda d: stream_span(d, _attachment_streams(d)["assessment.json"]), NOT_INTACT),
    "attachment stream: sdeval-report.json": (lambda d: stream_span(d, _attachment_streams(d)["sdeval-report.json"]), NOT_INTACT),
}


@pytest.mark.parametrize("part", list(PARTS))
def test_a_flipped_byte_in_each_part_fails_verify_naming_the_reason(signed, work, cli, part):
    data, cert = signed
    locate, reason = PARTS[part]
    span = locate(data)
    assert len(span) > 0
    copy = work / "flipped.pdf"
    copy.write_bytes(flip(data, span.start + len(span) // 2))
    out = cli("verify", copy, "--trust", cert)
    assert out.exit_code == 1, out.stdout
    assert reason in out.stdout, out.stdout
    assert out.stdout.rstrip().splitlines()[-1].startswith("NOT VERIFIED: signature")
    assert_every_line_is_there(out, cert)
    assert out.stderr == ""


@pytest.mark.parametrize("part", [n for n in PARTS if n.startswith("attachment stream")])
def test_a_flipped_attachment_also_fails_the_attachment_check(signed, work, cli, part):
    data, cert = signed
    copy = work / "flipped-attachment.pdf"
    span = PARTS[part][0](data)
    copy.write_bytes(flip(data, span.start + len(span) // 2))
    out = cli("verify", copy, "--trust", cert)
    # A flipped deflate byte either garbles the file's content (its SHA-256 differs) or makes it unreadable.
    assert "  attachments   FAIL: " in out.stdout, out.stdout


@pytest.mark.parametrize("name", [OFFER.name, "assessment.json", "sdeval-report.json"])
def test_each_attachment_swapped_by_an_incremental_update_fails(signed, work, cli, name):
    data, cert = signed
    original = _reader(data).attachments[name][0]
    forged = original.replace(b"1", b"2", 1)
    assert forged != original
    copy = work / "swapped.pdf"
    copy.write_bytes(swap_attachment(data, name, forged))
    assert _reader(copy.read_bytes()).attachments[name] == [forged]  # what a PDF viewer would show
    out = cli("verify", copy, "--trust", cert)
    assert out.exit_code == 1
    assert NOT_ENTIRE in out.stdout, out.stdout
    assert "  attachments   FAIL: " in out.stdout, out.stdout


@pytest.mark.parametrize("where", ["inside the first signed range", "inside the signature value", "before the final %%EOF"])
def test_a_truncated_report_fails(signed, work, cli, where):
    data, cert = signed
    first, _ = signed_ranges(data)
    cut = {
        "inside the first signed range": first.stop // 2,
        "inside the signature value": first.stop + 100,
        "before the final %%EOF": len(data) - 7,
    }[where]
    copy = work / "truncated.pdf"
    copy.write_bytes(data[:cut])
    out = cli("verify", copy, "--trust", cert)
    assert out.exit_code == 1, out.stdout
    assert "  signature     FAIL: " in out.stdout, out.stdout
    assert out.stderr == ""


def test_each_copy_of_the_signer_certificate_in_the_cms_is_covered(signed, work, cli):
    """The CMS certificate set lies outside the signed byte ranges; a changed copy of the signer's
    certificate must still fail (pyHanko alone validates against one copy and says nothing)."""
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    data, cert_path = signed
    cert_der = x509.load_pem_x509_certificate(cert_path.read_bytes()).public_bytes(Encoding.DER)
    first, _ = signed_ranges(data)
    hex_start = first.stop + 1
    cms = bytes.fromhex(data[hex_start : data.index(b">", hex_start)].decode())
    copies = [i for i in range(len(cms)) if cms.startswith(cert_der, i)]
    assert copies, "the signer's certificate is embedded in the CMS"
    for n, at in enumerate(copies):
        # A byte inside the certificate's own signature bits: the DER stays well-formed.
        target = at + len(cert_der) - 20
        forged = bytearray(cms)
        forged[target] ^= 0x01
        hex_forged = forged.hex().encode()
        tampered = data[:hex_start] + hex_forged + data[hex_start + len(hex_forged) :]
        path = work / f"cert-copy-{n}.pdf"
        path.write_bytes(tampered)
        out = cli("verify", path, "--trust", cert_path)
        assert out.exit_code == 1, f"copy {n} of {len(copies)} changed, yet verify passed:\n{out.stdout}"
        assert "  signature     FAIL:" in out.stdout


@pytest.mark.parametrize("signed_at", ["20261130120000", "20270228235959", "20280229000009", "20261231235958"])
def test_the_signing_time_flip_names_the_same_reason_on_any_day(signed, work, cli, signed_at):
    """The /M case must not depend on the day the suite runs: the report is given each of these
    signing times (month ends, a leap day), then the seconds digit is flipped as above."""
    data, cert = signed
    span = last_span(data, rb"/M \(D\\072(\d{14})")
    dated = data[: span.start] + signed_at.encode() + data[span.stop :]
    copy = work / "dated.pdf"
    copy.write_bytes(flip(dated, span.start + 13))
    out = cli("verify", copy, "--trust", cert)
    assert out.exit_code == 1, out.stdout
    assert NOT_INTACT in out.stdout, out.stdout


# ------------------------------------------------------------------------- what follows the signature


def _update(data: bytes, change) -> bytes:
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

    writer = IncrementalPdfFileWriter(io.BytesIO(data))
    change(writer)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _new_cover(writer):
    from pyhanko.pdf_utils import generic

    page = writer.root["/Pages"]["/Kids"][0].get_object()
    page[generic.NameObject("/Contents")] = writer.add_object(generic.StreamObject({}, stream_data=b"BT (ESTABLISHED) Tj ET"))
    writer.update_container(page)


def _new_language(writer):
    from pyhanko.pdf_utils import generic

    writer.root[generic.NameObject("/Lang")] = generic.TextStringObject("de")
    writer.update_root()


@pytest.mark.parametrize(
    "change, named",
    [
        (_new_cover, "(it changes /Contents of page object "),
        (_new_language, "(it changes /Lang of the catalog)"),
        ("attachment", ", neither validation data nor a document timestamp)"),
    ],
)
def test_an_update_after_signing_is_named_without_pyhankos_full_change_analysis(signed, work, cli, monkeypatch, change, named):
    """Issue 22.10: pyHanko's change analysis walks every object (25 times an intact report's
    verify); an update that is neither validation data nor a document timestamp is refused before it."""
    from pyhanko.pdf_utils.reader import HistoricalResolver

    data, cert = signed
    tampered = swap_attachment(data, OFFER.name, b"{}") if change == "attachment" else _update(data, change)
    copy = work / "updated.pdf"
    copy.write_bytes(tampered)

    def walked(self):
        raise AssertionError("the full change analysis ran")

    monkeypatch.setattr(HistoricalResolver, "_load_reverse_xref_cache", walked)
    out = cli("verify", copy, "--trust", cert)
    assert out.exit_code == 1
    line = next(x for x in out.stdout.splitlines() if x.startswith("  signature "))
    assert line.startswith(NOT_ENTIRE + " ("), line
    assert named in line
    assert_every_line_is_there(out, cert)


@pytest.fixture(scope="module")
def broken_inside(work, identity):
    """The report of OFFER rendered as render does, an unused object with broken syntax added, then
    signed: the signature holds over the broken object. (signed bytes, unsigned bytes)"""
    from support.pdf_helpers import with_broken_object

    from evaluator.pipeline import assess_paths
    from evaluator.report.render import render_pdf
    from evaluator.report.signing import load_identity, sign

    key, cert = identity
    signer = load_identity(key=key, cert=cert, pkcs12=None, password_file=None)
    unsigned = with_broken_object(render_pdf(assess_paths([str(OFFER)], for_report=True), signer=signer.name))
    return sign(unsigned, signer), unsigned


@pytest.mark.parametrize("signed_or_not", ["signed", "unsigned"])
def test_a_report_with_a_broken_unused_object_fails_the_attachment_check(broken_inside, signed, work, cli, signed_or_not):
    """The attachment and cover checks read the report with pypdf's strict reader, every object of
    it: a broken object nothing uses fails them, and a signature over it does not make it pass."""
    _, cert = signed
    copy = work / f"broken-{signed_or_not}.pdf"
    copy.write_bytes(broken_inside[0] if signed_or_not == "signed" else broken_inside[1])
    out = cli("verify", copy, "--trust", cert)
    assert out.exit_code == 1, out.stdout
    lines = out.stdout.splitlines()
    signature = next(x for x in lines if x.startswith("  signature "))
    assert signature.startswith(
        "  signature     PASS: intact and valid, covers the entire file" if signed_or_not == "signed" else "  signature     FAIL"
    )
    attachments = " ".join(out.stdout.split("  attachments ")[1].split("  reproduction")[0].split())
    assert attachments.startswith("FAIL: cannot be read (object "), out.stdout
    assert "does not parse (PdfReadError" in attachments, out.stdout
    assert "  reproduction  NOT EVALUATED: the attachments cannot be read" in out.stdout


def test_an_intact_report_reads_every_object(signed):
    """The strict reading reads every object the cross-reference lists, and what it reads is what
    pypdf's own reader gives."""
    from support.pdf_helpers import attachments

    from evaluator.report.container import ReportContents

    data, _cert = signed
    contents = ReportContents.read(data)
    assert contents.attached == attachments(data) and contents.is_report
    listed = {(n, g) for g, numbers in contents._reader.xref.items() for n in numbers} | {(n, 0) for n in contents._reader.xref_objStm}
    assert len(listed) > 500 and set(contents._reader.resolved_objects) >= {(g, n) for n, g in listed}


@pytest.mark.parametrize(("text_field", "passes"), [(False, True), (True, False)])
def test_updates_of_the_kinds_sdeval_adds_get_pyhankos_full_analysis(signed, work, cli, text_field, passes):
    """Validation data added after signing is judged by pyHanko's change analysis and passes; a
    text field added in an update of the same kinds gets the same analysis and fails."""
    from support.pdf_helpers import with_validation_data

    data, cert = signed
    copy = work / f"updated-{text_field}.pdf"
    copy.write_bytes(with_validation_data(data, text_field=text_field))
    out = cli("verify", copy, "--trust", cert)
    line = next(x for x in out.stdout.splitlines() if x.startswith("  signature "))
    if passes:
        assert line.startswith("  signature     PASS: intact and valid, covers its revision"), out.stdout
    else:
        assert out.exit_code == 1
        assert line.startswith(NOT_ENTIRE + " (pyHanko's modification level: "), out.stdout


def test_an_analysis_over_its_budget_fails_as_modified_never_passes(signed, work, cli, monkeypatch):
    """The full analysis runs within a stated budget of processor time; a report that needs more
    fails, naming the budget, even where the analysis would have passed it."""
    from support.pdf_helpers import with_validation_data

    from evaluator.verify import budget

    data, cert = signed
    copy = work / "slow.pdf"
    copy.write_bytes(with_validation_data(data))  # passes with the budget (the test above)
    monkeypatch.setattr(budget, "ANALYSIS_BUDGET_S", 0.01)
    out = cli("verify", copy, "--trust", cert)
    assert out.exit_code == 1
    line = " ".join(out.stdout.split("  signature ")[1].split("  timestamp ")[0].split())
    assert line.startswith(
        "FAIL: does not cover the entire file: an incremental update after signing could not be analysed within 0.01 s: treated as modified"
    ), out.stdout
    assert_every_line_is_there(out, cert)
