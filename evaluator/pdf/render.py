"""Jinja2 -> HTML -> WeasyPrint PDF/A-3a (tagged), with every input and the assessment attached.

The PDF carries these attachments (AFRelationship /Source or /Data):
- each evidence record, byte for byte as read;
- with --requirements, the buyer's requirements profile, byte for byte as judged;
- assessment.json: exactly what `sdeval assess [--requirements REQ] -f json` prints (the
  assessed result's document), the assessment the pages show;
- sdeval-report.json: the manifest verify starts from (which attachment is which input,
  under what name it was assessed, and when).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from typing import TYPE_CHECKING, Any

from ..resources import data_dir
from .content import Embedded, report_context

if TYPE_CHECKING:
    from ..run import Assessed
    from .writer import PdfWriter

REPORT_FORMAT = "1.0"
MANIFEST_NAME = "sdeval-report.json"
ASSESSMENT_NAME = "assessment.json"
TEMPLATE = "report.html.j2"
RECORD_ROLE = "evidence record"
REQUIREMENTS_ROLE = "requirements profile"
SOURCE_ROLES = (RECORD_ROLE, REQUIREMENTS_ROLE)


def assessed_at() -> dt.datetime:
    """Now, or SOURCE_DATE_EPOCH when set (reproducible builds: byte-identical unsigned PDFs)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isdigit():
        return dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc)
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def attachment_name(path: str, taken: set[str]) -> str:
    """A safe, unique file name inside the PDF for an input given as `path`."""
    base = re.sub(r"[^A-Za-z0-9._-]", "_", os.path.basename(path)).strip("._") or "input"
    if base in (ASSESSMENT_NAME, MANIFEST_NAME):
        base = f"input-{base}"
    name, n = base, 2
    while name in taken:
        stem, dot, ext = base.rpartition(".")
        name = f"{stem}-{n}.{ext}" if dot and stem else f"{base}-{n}"
        n += 1
    taken.add(name)
    return name


def dumps(doc: Any) -> bytes:
    return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def embedded_files(assessed: Assessed, when: dt.datetime) -> list[Embedded]:
    taken: set[str] = set()
    inputs = [Embedded(attachment_name(item.path, taken), RECORD_ROLE, item.path, item.raw) for item in assessed.loaded]
    profile = assessed.profile
    if profile is not None:
        inputs.append(Embedded(attachment_name(profile.path, taken), REQUIREMENTS_ROLE, profile.path, profile.raw))
    assessment = Embedded(ASSESSMENT_NAME, "assessment (JSON)", ASSESSMENT_NAME, dumps(assessed.document()))
    manifest = {
        "report_format": REPORT_FORMAT,
        "assessed_at": when.isoformat(),
        "assessment": {"attachment": ASSESSMENT_NAME, "sha256": assessment.sha256},
        # One entry per input; `role` tells verify which are records and which is the requirements profile.
        "inputs": [{"attachment": e.name, "file": e.source, "role": e.role, "sha256": e.sha256} for e in inputs],
    }
    return [*inputs, assessment, Embedded(MANIFEST_NAME, "report manifest (JSON)", MANIFEST_NAME, dumps(manifest))]


# Break opportunities (U+200B, zero-width space) every BREAK_EVERY characters inside any run of
# more than UNBROKEN_MAX characters without one. WeasyPrint lays out a line from a short slice of
# the text only when that slice holds a break; otherwise it lays out the whole remainder again for
# every line it splits off, so one 100,000-character word took minutes. Hashes (64 hex digits)
# stay whole, and text extraction drops U+200B.
UNBROKEN_MAX = 64
BREAK_EVERY = 16
_UNBROKEN = re.compile(r"[^\s\u200b]{%d,}" % (UNBROKEN_MAX + 1))


def _chunked(match: re.Match) -> str:
    run = match.group(0)
    return "\u200b".join(run[i : i + BREAK_EVERY] for i in range(0, len(run), BREAK_EVERY))


def breakable(value: Any) -> Any:
    """What a template prints: plain strings get break opportunities and, when they could reorder
    the page's text, their own bidi isolate; markup (charts) and numbers pass."""
    if isinstance(value, str) and not hasattr(value, "__html__"):
        from ..safe_text import isolated

        return isolated(_UNBROKEN.sub(_chunked, value))
    return value


def render_html(assessed: Assessed, embedded: list[Embedded], *, when: dt.datetime, signer: str | None) -> str:
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    env = Environment(
        loader=FileSystemLoader(str(data_dir("templates"))),
        autoescape=select_autoescape(["html", "j2"], default_for_string=True, default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=breakable,
    )
    document = json.loads(next(e.data for e in embedded if e.name == ASSESSMENT_NAME))
    context = report_context(assessed, document, embedded, assessed_at=when.strftime("%Y-%m-%d %H:%M:%S UTC"), signer=signer)
    return env.get_template(TEMPLATE).render(**context)


def render_pdf(assessed: Assessed, *, signer: str | None, when: dt.datetime | None = None, writer: PdfWriter | None = None) -> bytes:
    """The unsigned PDF/A-3a bytes, with the inputs, the assessment and the manifest attached;
    written by `writer` (a PdfWriter, which may be another process) or here."""
    from .writer import Attachment, write_pdf

    when = when or assessed_at()
    embedded = embedded_files(assessed, when)
    html = render_html(assessed, embedded, when=when, signer=signer)
    attachments = [
        Attachment(e.name, f"{e.role}: {e.source}", "Source" if e.role in SOURCE_ROLES else "Data", e.data) for e in embedded
    ]
    return (writer.write if writer is not None else write_pdf)(html, attachments, when)
