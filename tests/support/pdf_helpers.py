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
