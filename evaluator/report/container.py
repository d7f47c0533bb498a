"""The signed report as a container: which files it attaches, under which names and roles, the
manifest that lists them, and reading them back. `render` writes it; `verify` and the archive
read it through this module only, so both apply the same checks to what a report holds.

A report attaches (AFRelationship /Source or /Data):
- each evidence record, byte for byte as read, and with --requirements the buyer's profile;
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
SOURCE_ROLES = (RECORD_ROLE, REQUIREMENTS_ROLE)


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
    def read(cls, data: bytes) -> ReportContents:
        """ContainerProblem when pypdf's strict reader cannot read the file: its attachments, or any
        object its cross-reference lists (a report sdeval wrote holds no object that does not parse,
        used or not, and a signature over such an object does not make it sound)."""
        from pypdf import PdfReader

        try:
            reader = PdfReader(io.BytesIO(data), strict=True)
            attached = {name: list(contents) for name, contents in reader.attachments.items()}
        except Exception as exc:  # a damaged file: say what pypdf could not read, never crash
            raise ContainerProblem(f"{type(exc).__name__}: {exc}") from None
        _read_every_object(reader)
        return cls(attached, reader)

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


def _read_every_object(reader) -> None:
    """Each object the file's cross-reference lists, read as pypdf's strict reader reads it
    (objects in object streams included); ContainerProblem naming the first that cannot be."""
    from pypdf.generic import IndirectObject

    listed = sorted(
        {(number, generation) for generation, numbers in reader.xref.items() for number in numbers} | {(n, 0) for n in reader.xref_objStm}
    )
    for number, generation in listed:
        try:
            reader.get_object(IndirectObject(number, generation, reader))
        except Exception as exc:
            raise ContainerProblem(f"object {number} {generation} does not parse ({type(exc).__name__}: {exc})") from None


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
    if len(records) + len(profiles) != len(listed) or len(profiles) > 1:
        raise ContainerProblem("the manifest lists inputs of unknown roles, or more than one requirements profile")

    def content(item: dict[str, Any]) -> tuple[str, bytes]:
        name = item.get("attachment")
        if name not in files:
            raise ContainerProblem(f"{name} is listed in the manifest but not attached once")
        return str(item.get("file")), files[name]

    return [content(i) for i in records], (content(profiles[0]) if profiles else None)
