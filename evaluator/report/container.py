"""The signed report as a container: which files it attaches, under which names and roles, the
manifest that lists them, and reading them back. `render` writes it; `verify` and the archive
read it through this module only, so both apply the same checks to what a report holds.

A report attaches (AFRelationship /Source or /Data):
- each evidence record, byte for byte as read, with --requirements the buyer's profile, and with
  --references each references file (the independent results each claim is set beside);
- assessment.json: exactly what `sdeval assess [--requirements REQ] -f json` prints;
- sdeval-report.json, the manifest: which attachment is which input (`attachment`), the name it
  was assessed under (`file`), its `role` and SHA-256, the assessment's SHA-256, and when.
"""

from __future__ import annotations

import io
import json
import os
import re
from dataclasses import dataclass
from typing import Any

REPORT_FORMAT = "1.0"
MANIFEST_NAME = "sdeval-report.json"
ASSESSMENT_NAME = "assessment.json"
RECORD_ROLE = "evidence record"
REQUIREMENTS_ROLE = "requirements profile"
REFERENCES_ROLE = "independent results"
SOURCE_ROLES = (RECORD_ROLE, REQUIREMENTS_ROLE, REFERENCES_ROLE)


class ContainerProblem(ValueError):
    """What a report holds cannot be read back as sdeval wrote it (one clause, no file name)."""


# ---------------------------------------------------------------------------- writing


def attachment_name(path: str, taken: set[str]) -> str:
    """A safe, unique file name inside the PDF for an input given as `path`."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", os.path.basename(path)).strip("._") or "input"
    if base in (ASSESSMENT_NAME, MANIFEST_NAME):
        base = f"input-{base}"
    name, n = base, 2
    while name in taken:
        stem, dot, ext = base.rpartition(".")
        name = f"{stem}-{n}.{ext}" if dot and stem else f"{base}-{n}"
        n += 1
    taken.add(name)
    return name


def manifest(inputs: list, assessment_sha256: str, assessed_at: str) -> dict[str, Any]:
    """The manifest of a report attaching `inputs` (content.Embedded: name, role, source, sha256)."""
    return {
        "report_format": REPORT_FORMAT,
        "assessed_at": assessed_at,
        "assessment": {"attachment": ASSESSMENT_NAME, "sha256": assessment_sha256},
        # One entry per input; `role` tells verify which are records and which is the requirements profile.
        "inputs": [{"attachment": e.name, "file": e.source, "role": e.role, "sha256": e.sha256} for e in inputs],
    }


def role(item: dict[str, Any]) -> str:
    # Manifests written before requirements profiles could be attached give every input this role.
    return item.get("role", RECORD_ROLE)


# ---------------------------------------------------------------------------- reading


@dataclass
class ReportContents:
    """A report's attachments (each name with every copy attached under it) and its first page's
    text, from one reading of the file."""

    attached: dict[str, list[bytes]]
    _reader: Any = None

    @classmethod
    def read(cls, data: bytes, *, only_what_is_used: bool = False) -> ReportContents:
        """ContainerProblem when pypdf cannot read the attachments (a damaged file).
        `only_what_is_used`: parse only the objects the attachments and the cover use (see
        _reader_class), for a file whose signature was found intact."""
        from pypdf import PdfReader

        try:
            reader = (_reader_class() if only_what_is_used else PdfReader)(io.BytesIO(data), strict=False)
            return cls({name: list(contents) for name, contents in reader.attachments.items()}, reader)
        except Exception as exc:  # a damaged file: say what pypdf could not read, never crash
            raise ContainerProblem(f"{type(exc).__name__}: {exc}") from None

    @property
    def is_report(self) -> bool:
        return MANIFEST_NAME in self.attached and ASSESSMENT_NAME in self.attached

    def files(self) -> dict[str, bytes]:
        """Each file attached exactly once (a name attached twice is left out: verify fails such a report)."""
        return {name: contents[0] for name, contents in self.attached.items() if len(contents) == 1}

    def single(self, name: str) -> bytes:
        contents = self.attached[name]
        if len(contents) != 1:
            raise ContainerProblem(f"{name} is attached {len(contents)} times")
        return contents[0]

    def manifest(self) -> dict[str, Any]:
        return read_manifest(self.single(MANIFEST_NAME))

    def assessment(self) -> dict[str, Any]:
        try:
            doc = json.loads(self.single(ASSESSMENT_NAME))
        except ValueError as exc:
            raise ContainerProblem(f"{ASSESSMENT_NAME} is not JSON ({exc})") from None
        if not isinstance(doc, dict):
            raise ContainerProblem(f"{ASSESSMENT_NAME} is not an sdeval assessment")
        return doc

    def cover_text(self) -> str:
        try:
            return self._reader.pages[0].extract_text() or ""
        except Exception:
            return ""


_READER_CLASS = None
_OBJECT_STREAM_HEADER = re.compile(rb"[0-9 \r\n]*")


def _reader_class():
    """pypdf's PdfReader, reading from an object stream only the objects asked for.

    pypdf (7.x) parses every object of an object stream the first time it is asked for one of them.
    A tagged report keeps some 1,600 objects (the structure tree) in one stream, and the attachments
    and the cover need a few dozen: that parse was 40 to 60 % of verifying one report. This reader
    takes each object from the stream's offset table when asked, with pypdf's own object parser and
    cache, and hands anything unusual in the stream's header (what pypdf would warn about, skip or
    refuse) to pypdf's own method.

    An object nothing asks for is never parsed, so one that cannot be parsed goes unnoticed here
    where pypdf's whole-stream reading fails the attachments. verify uses this reader only on a
    file whose signature holds (the bytes its signer wrote; sdeval writes no such object) and reads
    any other file with pypdf's own reader, so a damaged report is reported as before."""
    global _READER_CLASS
    if _READER_CLASS is not None:
        return _READER_CLASS
    from pypdf import PdfReader
    from pypdf._utils import read_non_whitespace
    from pypdf.errors import PdfStreamError
    from pypdf.generic import IndirectObject, NullObject, NumberObject, read_object

    class Reader(PdfReader):
        def _object_stream_table(self, stmnum: int):
            """(decoded data, /First, {object number: offset of its first entry}) of a well-formed
            object stream, else None (pypdf's own method then reads it, and says what is wrong)."""
            tables = self.__dict__.setdefault("_sdeval_object_streams", {})
            if stmnum in tables:
                return tables[stmnum]
            tables[stmnum] = None
            try:
                stream: Any = IndirectObject(stmnum, 0, self).get_object()  # anything, in a damaged file: the except below
                count, first = stream["/N"], stream["/First"]
                if stream["/Type"] != "/ObjStm" or not isinstance(count, NumberObject) or not isinstance(first, NumberObject):
                    return None
                data = stream.get_data()
                count, first = int(count), int(first)
                if not (0 <= first <= len(data) and 0 <= count <= len(data) // 3):
                    return None
                header = data[:first]
                numbers = header.split() if _OBJECT_STREAM_HEADER.fullmatch(header) else []
                if len(numbers) < 2 * count:
                    return None
                offsets: dict[int, int] = {}
                last = -1
                for i in range(count):
                    number, offset = int(numbers[2 * i]), int(numbers[2 * i + 1])
                    if offset <= last or first + offset > len(data):
                        return None
                    offsets.setdefault(number, offset)  # pypdf, too, keeps the first of a number
                    last = offset
            except Exception:
                return None
            tables[stmnum] = (data, first, offsets)
            return tables[stmnum]

        def _get_object_from_stream(self, indirect_reference):
            idnum = indirect_reference.idnum
            pending = self._object_stream_resolution_stack
            if self.strict or idnum in pending:
                return super()._get_object_from_stream(indirect_reference)
            pending.append(idnum)
            try:
                table = self._object_stream_table(self.xref_objStm[idnum][0])
                if table is None or idnum not in table[2]:
                    found = None
                else:
                    data, first, offsets = table
                    stream = io.BytesIO(data)
                    stream.seek(first + offsets[idnum])
                    read_non_whitespace(stream)  # as pypdf: the offset may point at white space
                    stream.seek(-1, 1)
                    try:
                        found = read_object(stream, self)
                    except PdfStreamError:
                        found = NullObject()  # what pypdf makes of an object it cannot parse there
                    self.cache_indirect_object(0, idnum, found)
            finally:
                pending.pop()
            return super()._get_object_from_stream(indirect_reference) if found is None else found

    _READER_CLASS = Reader
    return Reader


def read_manifest(raw: bytes) -> dict[str, Any]:
    try:
        doc = json.loads(raw)
    except ValueError as exc:
        raise ContainerProblem(f"{MANIFEST_NAME} is not JSON ({exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("inputs"), list):
        raise ContainerProblem(f"{MANIFEST_NAME} is not an sdeval report manifest")
    for item in doc["inputs"]:
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("attachment", "file", "sha256")):
            raise ContainerProblem(f"{MANIFEST_NAME} lists an input without its attachment, file and sha256")
    return doc


def inputs(manifest_doc: dict[str, Any], files: dict[str, bytes]) -> tuple[list[tuple[str, bytes]], tuple[str, bytes] | None]:
    """The records (name, bytes) and the requirements profile (or None) to assess again, each under
    the name it was assessed by. ContainerProblem for inputs of unknown roles, more than one
    profile, or an input whose attachment is missing or attached more than once."""
    listed = manifest_doc.get("inputs") if isinstance(manifest_doc, dict) else None
    if not isinstance(listed, list):
        raise ContainerProblem(f"{MANIFEST_NAME} is not an sdeval report manifest")
    records = [i for i in listed if isinstance(i, dict) and role(i) == RECORD_ROLE]
    profiles = [i for i in listed if isinstance(i, dict) and role(i) == REQUIREMENTS_ROLE]
    references = [i for i in listed if isinstance(i, dict) and role(i) == REFERENCES_ROLE]
    if len(records) + len(profiles) + len(references) != len(listed) or len(profiles) > 1:
        raise ContainerProblem("the manifest lists inputs of unknown roles, or more than one requirements profile")

    def content(item: dict[str, Any]) -> tuple[str, bytes]:
        name = item.get("attachment")
        if name not in files:
            raise ContainerProblem(f"{name} is listed in the manifest but not attached once")
        return str(item.get("file")), files[name]

    return [content(i) for i in records], (content(profiles[0]) if profiles else None)


def reference_inputs(manifest_doc: dict[str, Any], files: dict[str, bytes]) -> list[tuple[str, bytes]]:
    """The references files (name, bytes) a report attaches (`render --references`), each under the
    name it was compared by; ContainerProblem for one listed but not attached once."""
    listed = manifest_doc.get("inputs") if isinstance(manifest_doc, dict) else None
    out = []
    for item in listed if isinstance(listed, list) else []:
        if isinstance(item, dict) and role(item) == REFERENCES_ROLE:
            name = item.get("attachment")
            if name not in files:
                raise ContainerProblem(f"{name} is listed in the manifest but not attached once")
            out.append((str(item.get("file")), files[name]))
    return out
