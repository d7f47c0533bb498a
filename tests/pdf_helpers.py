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
