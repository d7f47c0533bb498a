"""`sdeval verify` on files made to pass, to crash or to hang it: nothing but a report exactly as it
was signed passes, and every other file gets its checks, each line saying why (exit 1), or one line
on standard error when it is no report at all (exit 2). Never a traceback, never a PASS.

test_pdf_tamper.py flips a byte in each part and swaps attachments; this module appends updates a
viewer would not show (objects nothing refers to, an annotation, a second signature), builds files
whose structure loops or lies (a /Prev loop, a reference to itself, a /Length beyond the file, a
compression bomb) and cuts the file at many places.
"""

from __future__ import annotations

import io
import re
import resource
import zlib

import pytest
from conftest import example
from support.pdf_helpers import render_signed, signed_ranges, swap_attachment
from support.waiting import within

pytestmark = pytest.mark.pdf

OFFER = example("sd201-offer-b.json")
SIGNATURE_LINE = "  signature     "
AN_UPDATE = "  signature     FAIL: does not cover the entire file: an incremental update was added after signing that changes the document ("
NEITHER = ", neither validation data nor a document timestamp)"


@pytest.fixture(scope="module")
def signed(work, cli, identity):
    """(the signed report's bytes, the certificate that verifies it)"""
    return render_signed(cli, work, identity, OFFER)


def verify(cli, work, data: bytes, *trust, name: str = "hostile.pdf"):
    path = work / name
    path.write_bytes(data)
    return cli("verify", path, *[a for t in trust for a in ("--trust", t)])


def line(out, check: str) -> str:
    return next(x for x in out.stdout.splitlines() if x.startswith(f"  {check:<13} "))


def assert_fails_cleanly(out) -> None:
    """Exit 1, every check on its line, the verdict last, nothing on standard error."""
    assert out.exit_code == 1, out.stdout + out.stderr
    assert out.stderr == ""
    assert out.stdout.splitlines()[-1].startswith("NOT VERIFIED: ")
    assert "Traceback" not in out.stdout and "internal error" not in out.stdout


def appended(pdf: bytes, bodies: list[bytes], *, prev: int | None = None) -> bytes:
    """`pdf` with an incremental update (a classic cross-reference section) adding one object per
    body, numbered from the file's /Size on; `prev` overrides the /Prev it points back to."""
    previous = int(re.findall(rb"startxref\s+(\d+)", pdf)[-1]) if prev is None else prev
    first = max(int(x) for x in re.findall(rb"/Size\s+(\d+)", pdf))
    root = re.findall(rb"/Root\s+(\d+\s+\d+\s+R)", pdf)[-1]
    out, offsets = pdf, []
    for i, body in enumerate(bodies):
        offsets.append(len(out) + 1)
        out += b"\n%d 0 obj\n%s\nendobj\n" % (first + i, body)
    xref_at = len(out)
    entries = b"".join(b"%010d 00000 n \n" % at for at in offsets)
    return out + b"xref\n%d %d\n%strailer\n<< /Size %d /Root %s /Prev %d >>\nstartxref\n%d\n%%%%EOF\n" % (
        first,
        len(bodies),
        entries,
        first + len(bodies),
        root,
        previous,
        xref_at,
    )


def first_new_object(pdf: bytes) -> int:
    return max(int(x) for x in re.findall(rb"/Size\s+(\d+)", pdf))


# ---------------------------------------------------------------------------- no report at all


@pytest.mark.parametrize(
    "content, says",
    [
        (b"", "not a PDF (no %PDF- header)"),
        (b"\x00" * 4096, "not a PDF (no %PDF- header)"),
        (b"just text\n", "not a PDF (no %PDF- header)"),
    ],
    ids=["empty", "zeros", "text"],
)
def test_a_file_that_is_no_pdf_is_one_line_and_exit_2(work, cli, identity, content, says):
    out = verify(cli, work, content, identity[1])
    assert (out.exit_code, out.stdout) == (2, "")
    assert out.stderr == f"sdeval: {work / 'hostile.pdf'}: {says}\n"


# ---------------------------------------------------------------------------- cut short


@pytest.mark.parametrize("kept", [9, 0.001, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, -40, -5, -1])
def test_a_report_cut_anywhere_never_verifies(signed, work, cli, kept):
    data, cert = signed
    cut = data[:kept] if isinstance(kept, int) else data[: int(len(data) * kept)]
    out = verify(cli, work, cut, cert)
    assert_fails_cleanly(out)
    if kept == -1:  # only the last line end is gone: the file is whole, its end unclean
        assert line(out, "signature").startswith(SIGNATURE_LINE + "FAIL: ")
    else:
        assert line(out, "signature").startswith(SIGNATURE_LINE + "FAIL: cannot be validated: the file structure is damaged (")
    assert line(out, "trust") == "  trust         NOT EVALUATED: the signature is broken"


# ---------------------------------------------------------------------------- updates after signing


@pytest.mark.parametrize(
    "body, described",
    [
        (b"[ (NOT ESTABLISHED) 1 2 ]", "an array that nothing in the document refers to"),
        (b"(ESTABLISHED)", "a string that nothing in the document refers to"),
        (b"42", "a number that nothing in the document refers to"),
        (b"<< /Type /Sig /Contents <00> >>", "a dictionary of type /Sig that nothing in the document refers to"),
        (b"<< /Type /Note /Text (hello) >>", "a dictionary of type /Note"),
        (b"<< /Length 3 >>\nstream\nabc\nendstream", "a stream"),
    ],
    ids=["array", "string", "number", "signature-dictionary", "dictionary", "stream"],
)
def test_an_update_adding_an_object_nothing_uses_fails_the_signature(signed, work, cli, body, described):
    """Before: pyHanko's change analysis follows the document from its catalog, never met an
    orphan array, string, number or /Sig dictionary, and verify passed the changed file."""
    data, cert = signed
    out = verify(cli, work, appended(data, [body]), cert)
    assert_fails_cleanly(out)
    assert line(out, "signature").startswith(AN_UPDATE + f"object {first_new_object(data)} is {described}{NEITHER}")
    assert line(out, "attachments").startswith("  attachments   PASS: ")  # the document itself is unchanged


@pytest.mark.parametrize(
    "bodies, named",
    [
        ([b"<< /Length 99999999999 >>\nstream\nabc\nendstream"], "object {n} cannot be read (PdfStreamError)"),
        ([b"{m} 0 R", b"{n} 0 R"], "object {n} is a reference to another object that nothing in the document refers to"),
    ],
    ids=["length-beyond-the-file", "references-in-a-circle"],
)
def test_an_update_with_an_object_that_cannot_be_read_fails_the_signature(signed, work, cli, bodies, named):
    """Before: an unreadable object in a later revision was left to pyHanko's analysis, which does
    not read it either: the signature line said "every later revision only adds validation data"."""
    data, cert = signed
    n = first_new_object(data)
    out = verify(cli, work, appended(data, [b.replace(b"{m}", b"%d" % (n + 1)).replace(b"{n}", b"%d" % n) for b in bodies]), cert)
    assert_fails_cleanly(out)
    assert line(out, "signature").startswith(AN_UPDATE + named.format(n=n) + NEITHER)
    assert line(out, "attachments").startswith("  attachments   FAIL: cannot be read (object ")


def test_a_cross_reference_chain_that_loops_fails_without_hanging(signed, work, cli):
    data, cert = signed
    once = appended(data, [b"<< /Type /Note >>"])
    looped = appended(once, [])
    xref_at = int(re.findall(rb"startxref\s+(\d+)", looped)[-1])
    looped = looped[:xref_at] + looped[xref_at:].replace(b"/Prev %d" % int(re.findall(rb"startxref\s+(\d+)", once)[-1]), b"/Prev %d" % xref_at)
    out = verify(cli, work, looped, cert)
    assert_fails_cleanly(out)
    assert line(out, "signature").startswith(SIGNATURE_LINE + "FAIL: ")
    assert line(out, "attachments").startswith("  attachments   FAIL: cannot be read (")


def _with_annotation(data: bytes) -> bytes:
    from pyhanko.pdf_utils import generic
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

    name = generic.NameObject
    writer = IncrementalPdfFileWriter(io.BytesIO(data))
    page = writer.root["/Pages"]["/Kids"][0].get_object()
    note = writer.add_object(
        generic.DictionaryObject(
            {
                name("/Type"): name("/Annot"),
                name("/Subtype"): name("/FreeText"),
                name("/Rect"): generic.ArrayObject([generic.NumberObject(x) for x in (72, 700, 400, 740)]),
                name("/Contents"): generic.TextStringObject("ESTABLISHED"),
                name("/DA"): generic.TextStringObject("/Helv 12 Tf 0 g"),
            }
        )
    )
    page[name("/Annots")] = generic.ArrayObject([*(page.get("/Annots") or []), note])
    writer.update_container(page)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_an_annotation_added_after_signing_fails(signed, work, cli):
    data, cert = signed
    out = verify(cli, work, _with_annotation(data), cert)
    assert_fails_cleanly(out)
    assert re.fullmatch(
        re.escape(AN_UPDATE) + r"object \d+ is a dictionary of type /Annot" + re.escape(NEITHER) + r" \(the signer claims .*\)",
        line(out, "signature"),
    )


def test_a_second_signature_by_another_key_fails_whoever_is_trusted(signed, work, cli, tmp_path_factory):
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import signers
    from pyhanko.sign.fields import SigFieldSpec

    data, cert = signed
    other = tmp_path_factory.mktemp("other")
    assert cli("keygen", other, "--name", "Someone Else", "--force").exit_code == 0
    signer = signers.SimpleSigner.load(str(other / "key.pem"), str(other / "cert.pem"))
    out = io.BytesIO()
    signers.sign_pdf(
        IncrementalPdfFileWriter(io.BytesIO(data)),
        signers.PdfSignatureMetadata(field_name="Second"),
        signer=signer,
        output=out,
        new_field_spec=SigFieldSpec("Second"),
    )
    for anchor in (cert, other / "cert.pem"):
        result = verify(cli, work, out.getvalue(), anchor)
        assert_fails_cleanly(result)
        assert line(result, "signature") == SIGNATURE_LINE + "FAIL: 2 signatures; a report carries exactly one"
        assert line(result, "trust") == "  trust         NOT EVALUATED: the report carries more than one signature"


def test_an_attachment_swapped_for_another_record_of_the_same_name_fails(signed, work, cli):
    """The forged record is a real, valid record (offer A under offer B's name), not noise."""
    data, cert = signed
    out = verify(cli, work, swap_attachment(data, OFFER.name, example("sd201-offer-a.json").read_bytes()), cert)
    assert_fails_cleanly(out)
    assert line(out, "signature").startswith(AN_UPDATE + "object ")
    assert line(out, "attachments").startswith(f"  attachments   FAIL: {OFFER.name}: SHA-256 ")
    assert line(out, "reproduction").startswith("  reproduction  FAIL: ")


def test_a_compression_bomb_attachment_is_refused_within_bounded_memory(signed, work, cli):
    """1 GiB of zeros in 1 MB of Flate: pypdf's limit stops the inflation; memory stays far below it."""
    from pyhanko.pdf_utils import generic
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

    data, cert = signed
    squeeze = zlib.compressobj(9)
    zeros = b"\0" * (1 << 20)
    bomb = b"".join(squeeze.compress(zeros) for _ in range(1024)) + squeeze.flush()
    writer = IncrementalPdfFileWriter(io.BytesIO(data))
    names = writer.root["/Names"]["/EmbeddedFiles"]["/Names"]
    spec = names[names.index(OFFER.name) + 1]
    name = generic.NameObject
    stream = generic.StreamObject({name("/Type"): name("/EmbeddedFile"), name("/Filter"): name("/FlateDecode")}, encoded_data=bomb)
    ref = writer.add_object(stream)
    spec[name("/EF")] = generic.DictionaryObject({name("/F"): ref, name("/UF"): ref})
    writer.update_container(spec)
    forged = io.BytesIO()
    writer.write(forged)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = verify(cli, work, forged.getvalue(), cert)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert_fails_cleanly(out)
    assert line(out, "signature").startswith(AN_UPDATE)
    assert line(out, "attachments").startswith("  attachments   FAIL: cannot be read (LimitReachedError: ")
    assert grown_mb < 400, f"verify grew by {grown_mb:.0f} MB"


def test_a_folder_names_a_fifo_and_a_link_to_nothing_among_its_reports(signed, work, cli):
    """Before: both were passed over in silence, and the folder "verified" with one report fewer."""
    import os

    data, cert = signed
    folder = work / "folder"
    folder.mkdir()
    (folder / "b-report.pdf").write_bytes(data)
    os.mkfifo(folder / "c-waiting.pdf")
    (folder / "a-gone.pdf").symlink_to(work / "nowhere.pdf")
    with within(60):
        out = cli("verify", folder, "--trust", cert)
    assert out.exit_code == 2
    rows = [row.split("\t") for row in out.stdout.splitlines()[1:-1]]
    assert [(row[0], row[-1]) for row in rows] == [
        (f"{folder}/a-gone.pdf", f"NOT A REPORT: {folder}/a-gone.pdf: no such file"),
        (f"{folder}/b-report.pdf", "verified"),
        (f"{folder}/c-waiting.pdf", f"NOT A REPORT: {folder}/c-waiting.pdf: is not a regular file"),
    ]
    assert out.stdout.splitlines()[-1] == "3 reports: 1 verified, 0 not verified, 2 not a report"


def _with_timestamp_of(report: bytes, other: bytes) -> bytes:
    """`report` with its signature's unsigned attributes (where the RFC 3161 token lives, outside
    what the signature covers) replaced by `other`'s: a genuine token, over another signature."""
    from asn1crypto import cms

    def signed_data(data: bytes):
        first, _ = signed_ranges(data)
        start = first.stop + 1  # after "<"
        end = data.index(b">", start)
        return start, end, cms.ContentInfo.load(bytes.fromhex(data[start:end].decode()))

    start, end, mine = signed_data(report)
    theirs = signed_data(other)[2]
    mine["content"]["signer_infos"][0]["unsigned_attrs"] = theirs["content"]["signer_infos"][0]["unsigned_attrs"].copy()
    encoded = mine.dump(force=True).hex().encode()
    assert len(encoded) <= end - start
    return report[:start] + encoded.ljust(end - start, b"0") + report[end:]


def test_a_timestamp_token_over_another_signature_fails_whichever_authority_is_trusted(reports, work, cli):
    """A real token from a real authority, lifted from another report: it dates other bytes."""
    (donor, _, donor_authority), (report, _, own_authority) = reports.timestamped(), reports.timestamped()
    forged = _with_timestamp_of(report.read_bytes(), donor.read_bytes())
    for authorities in ([donor_authority], [own_authority], [donor_authority, own_authority]):
        out = verify(cli, work, forged, reports.cert, *authorities)
        assert_fails_cleanly(out)
        assert line(out, "signature").startswith("  signature     PASS: intact and valid, covers the entire file; the signer claims ")
        assert line(out, "timestamp") == "  timestamp     FAIL: the signature timestamp is not intact: the bytes it covers were changed"
        assert out.stdout.splitlines()[-1] == "NOT VERIFIED: timestamp failed"


def test_a_fifo_given_as_a_trust_anchor_is_one_line_not_a_wait(signed, work, cli):
    import os

    data, _ = signed
    fifo = work / "anchor.pem"
    os.mkfifo(fifo)
    (work / "report.pdf").write_bytes(data)
    with within(60):
        out = cli("verify", work / "report.pdf", "--trust", fifo)
    assert (out.exit_code, out.stdout) == (2, "")
    assert out.stderr == f"sdeval: {fifo}: not a regular file; not a certificate file (--trust)\n"
