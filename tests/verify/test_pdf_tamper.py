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
from support.pdf_helpers import cert_fingerprint, flip, last_span, signed_ranges, stream_span, swap_attachment

pytestmark = pytest.mark.pdf

OFFER = example("sd201-offer-b.json")  # small: renders fast
NOT_INTACT = "  signature     FAIL: not intact: the signed bytes were changed"
DAMAGED = "  signature     FAIL: cannot be validated: the signature's CMS container is damaged ("
WRONG_VALUE = "  signature     FAIL: the signature value does not match the signer's key"
NOT_ENTIRE = "  signature     FAIL: does not cover the entire file: an incremental update was added after signing that changes the document"


@pytest.fixture(scope="module")
def signed(work, cli, identity):
    key, cert = identity
    out = cli("render", OFFER, "-o", work / "signed.pdf", "--key", key, "--cert", cert)
    assert out.exit_code == 0, out.stderr
    return (work / "signed.pdf").read_bytes(), cert


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


def test_objects_read_through_the_stream_cache_are_pyhankos_own(signed):
    """evaluator/verify/object_streams.py reads each object stream once: every object a tagged report
    keeps in its object streams comes out exactly as pyHanko's own reading gives it."""
    from pyhanko.pdf_utils.reader import PdfFileReader

    from evaluator.verify import object_streams

    object_streams.install()
    reader = PdfFileReader(io.BytesIO(signed[0]), strict=False)
    compared = 0
    for ref in sorted(reader.xrefs.explicit_refs_in_revision(0), key=lambda r: r.idnum):
        location = reader.xrefs.get_historical_ref(ref, 0)
        if isinstance(location, int) or location is None:
            continue
        ours = reader._get_object_from_stream(ref.idnum, location.obj_stream_id, location.ix_in_stream)
        theirs = object_streams.pyhanko_get_object_from_stream(reader, ref.idnum, location.obj_stream_id, location.ix_in_stream)
        assert ours == theirs, ref
        compared += 1
    assert compared > 100


def test_an_intact_report_is_read_for_its_attachments_and_cover_as_pypdf_reads_it(signed):
    """verify reads a report whose signature holds with a pypdf reader that parses only the objects
    the attachments and the cover use (evaluator/report/container.py); what it reads is pypdf's."""
    from evaluator.report.container import ReportContents

    data, _cert = signed
    whole, used = ReportContents.read(data), ReportContents.read(data, only_what_is_used=True)
    assert used.attached == whole.attached and used.is_report
    assert used.cover_text() == whole.cover_text()
    parsed, every = len(used._reader.resolved_objects), len(whole._reader.resolved_objects)
    assert parsed < every / 10, (parsed, every)
