"""Shared helpers for the PDF report tests: poppler runs, tampering, reading attachments."""

from __future__ import annotations

import io
import re
import shutil
import subprocess

import pytest


def poppler(tool: str, *args: str) -> subprocess.CompletedProcess:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} (Debian poppler-utils) is not installed; scripts/setup installs it")
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=60)


def page_texts(path) -> list[str]:
    out = poppler("pdftotext", "-layout", str(path), "-")
    assert out.returncode == 0, out.stderr
    return out.stdout.split("\f")[:-1]


def attachments(data: bytes) -> dict[str, list[bytes]]:
    from pypdf import PdfReader

    return {k: list(v) for k, v in PdfReader(io.BytesIO(data)).attachments.items()}


def signed_ranges(data: bytes) -> tuple[range, range]:
    a, b, c, d = map(int, re.search(rb"/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]", data).groups())
    return range(a, a + b), range(c, c + d)


def cert_fingerprint(cert_path) -> str:
    """SHA-256 of a PEM certificate's DER bytes, as verify prints it (and `openssl x509 -outform DER | sha256sum`)."""
    import hashlib

    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    return hashlib.sha256(x509.load_pem_x509_certificate(cert_path.read_bytes()).public_bytes(Encoding.DER)).hexdigest()


def flip(data: bytes, position: int) -> bytes:
    return data[:position] + bytes([data[position] ^ 0x01]) + data[position + 1 :]


def swap_attachment(data: bytes, name: str, forged: bytes) -> bytes:
    """An incremental update that points the named attachment at other bytes (the signature stays intact)."""
    from pyhanko.pdf_utils import generic
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

    writer = IncrementalPdfFileWriter(io.BytesIO(data))
    names = writer.root["/Names"]["/EmbeddedFiles"]["/Names"]
    for i in range(0, len(names), 2):
        if names[i] == name:
            spec = names[i + 1]
            stream = generic.StreamObject({generic.NameObject("/Type"): generic.NameObject("/EmbeddedFile")}, stream_data=forged)
            ref = writer.add_object(stream)
            spec[generic.NameObject("/EF")] = generic.DictionaryObject({generic.NameObject("/F"): ref, generic.NameObject("/UF"): ref})
            writer.update_container(spec)
            out = io.BytesIO()
            writer.write(out)
            return out.getvalue()
    raise AssertionError(f"no attachment named {name}")


def with_broken_object(pdf: bytes, body: bytes = b"<< /Type /Note /Text [ 1 2 >>") -> bytes:
    """`pdf` with an incremental update that adds one object nothing refers to, whose syntax is
    broken (an array that never closes), listed in a classic cross-reference section."""
    previous = int(re.findall(rb"startxref\s+(\d+)", pdf)[-1])
    number = max(int(x) for x in re.findall(rb"/Size\s+(\d+)", pdf))
    root = re.findall(rb"/Root\s+(\d+\s+\d+\s+R)", pdf)[-1]
    obj = b"\n%d 0 obj\n%s\nendobj\n" % (number, body)
    xref_at = len(pdf) + len(obj)
    tail = b"xref\n%d 1\n%010d 00000 n \ntrailer\n<< /Size %d /Root %s /Prev %d >>\nstartxref\n%d\n%%%%EOF\n" % (
        number,
        len(pdf) + 1,
        number + 1,
        root,
        previous,
        xref_at,
    )
    return pdf + obj + tail


def with_validation_data(data: bytes, *, text_field: bool = False) -> bytes:
    """An incremental update of the kinds a B-LT report adds after its signature (a DSS in the
    catalog), and with `text_field` also a new text field on the first page (a widget in /Annots
    and /AcroForm: kinds sdeval's updates use, a change pyHanko's analysis refuses)."""
    from pyhanko.pdf_utils import generic
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

    name = generic.NameObject
    writer = IncrementalPdfFileWriter(io.BytesIO(data))
    writer.root[name("/DSS")] = writer.add_object(generic.DictionaryObject({name("/Certs"): generic.ArrayObject([])}))
    writer.update_root()
    if text_field:
        page_ref = writer.root["/Pages"]["/Kids"][0]
        page = page_ref.get_object()
        field = writer.add_object(
            generic.DictionaryObject(
                {
                    name("/FT"): name("/Tx"),
                    name("/T"): generic.TextStringObject("verdict"),
                    name("/V"): generic.TextStringObject("ESTABLISHED"),
                    name("/Type"): name("/Annot"),
                    name("/Subtype"): name("/Widget"),
                    name("/Rect"): generic.ArrayObject([generic.NumberObject(x) for x in (72, 700, 400, 740)]),
                    name("/P"): page_ref,
                }
            )
        )
        page[name("/Annots")] = generic.ArrayObject([*(page.get("/Annots") or []), field])
        writer.update_container(page)
        writer.root["/AcroForm"]["/Fields"].append(field)
        writer.update_container(writer.root["/AcroForm"])
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def words_outside(path, *, side_margin_mm: float = 16.0, tolerance_pt: float = 1.0) -> tuple[int, list[str]]:
    """(number of words, the words whose box leaves the page horizontally past the side margins or
    vertically past the page edge), from poppler's word boxes (`pdftotext -bbox-layout`)."""
    import xml.etree.ElementTree as ET

    out = poppler("pdftotext", "-bbox-layout", str(path), "-")
    assert out.returncode == 0, out.stderr
    ns = {"x": "http://www.w3.org/1999/xhtml"}
    margin = side_margin_mm / 25.4 * 72
    count, outside = 0, []
    for number, page in enumerate(ET.fromstring(out.stdout).iter(f"{{{ns['x']}}}page"), start=1):
        width, height = float(page.get("width")), float(page.get("height"))
        for w in page.iter(f"{{{ns['x']}}}word"):
            count += 1
            x0, y0, x1, y1 = (float(w.get(k)) for k in ("xMin", "yMin", "xMax", "yMax"))
            if x0 < margin - tolerance_pt or x1 > width - margin + tolerance_pt or y0 < -tolerance_pt or y1 > height + tolerance_pt:
                outside.append(f"page {number}: {(w.text or '')[:40]!r} at x {x0:.1f}-{x1:.1f}, y {y0:.1f}-{y1:.1f}")
    return count, outside


def stream_span(data: bytes, obj) -> range:
    """Where a stream object's data lies in the file: from the xref offset of the object pypdf
    resolved `obj` from, to its `endstream` (the signed report keeps no object streams)."""
    from pypdf import PdfReader

    ref = obj.indirect_reference
    offset = PdfReader(io.BytesIO(data)).xref[ref.generation][ref.idnum]
    assert data[offset:].startswith(f"{ref.idnum} {ref.generation} obj".encode())
    start = data.index(b"stream", offset) + len(b"stream")
    start += 2 if data[start : start + 2] == b"\r\n" else 1
    return range(start, data.index(b"endstream", start))


def last_span(data: bytes, pattern: bytes) -> range:
    """The bytes of the last match of `pattern`'s first group (the newest revision's copy)."""
    match = list(re.finditer(pattern, data, re.S))[-1]
    return range(match.start(1), match.end(1))


def render_signed(cli, work, identity, record) -> tuple[bytes, object]:
    """`record` rendered and signed by `identity` (key, cert) into work/signed.pdf, as the verify
    modules' fixtures make their report once: (the report's bytes, the certificate that verifies it)."""
    key, cert = identity
    out = cli("render", record, "-o", work / "signed.pdf", "--key", key, "--cert", cert)
    assert out.exit_code == 0, out.stderr
    return (work / "signed.pdf").read_bytes(), cert
