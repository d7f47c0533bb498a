"""Jinja2 -> HTML -> WeasyPrint PDF/A-3a (tagged), with every input and the assessment attached
as container.py defines them (the records, the profile, assessment.json and the manifest)."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from typing import TYPE_CHECKING, Any

from .._infra.resources import data_dir
from ..present.report_pages import Embedded, report_context
from .container import ASSESSMENT_NAME, MANIFEST_NAME, RECORD_ROLE, REFERENCES_ROLE, REQUIREMENTS_ROLE, SOURCE_ROLES, attachment_name, manifest

if TYPE_CHECKING:
    from ..pipeline import Assessed
    from .writer import PdfWriter

TEMPLATE = "report.html.j2"


def assessed_at() -> dt.datetime:
    """Now, or SOURCE_DATE_EPOCH when set (reproducible builds: byte-identical unsigned PDFs)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isdigit():
        return dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc)
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def dumps(doc: Any) -> bytes:
    return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def embedded_files(assessed: Assessed, when: dt.datetime) -> list[Embedded]:
    taken: set[str] = set()
    inputs = [Embedded(attachment_name(item.path, taken), RECORD_ROLE, item.path, item.raw) for item in assessed.loaded]
    profile = assessed.profile
    if profile is not None:
        inputs.append(Embedded(attachment_name(profile.path, taken), REQUIREMENTS_ROLE, profile.path, profile.raw))
    inputs += [Embedded(attachment_name(r.path, taken), REFERENCES_ROLE, r.path, r.raw) for r in assessed.references]
    assessment = Embedded(ASSESSMENT_NAME, "assessment (JSON)", ASSESSMENT_NAME, dumps(assessed.document))
    listed = manifest(inputs, assessment.sha256, when.isoformat())
    return [*inputs, assessment, Embedded(MANIFEST_NAME, "report manifest (JSON)", MANIFEST_NAME, dumps(listed))]


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
        from .._infra.safe_text import isolated

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
    attachments = [Attachment(e.name, f"{e.role}: {e.source}", "Source" if e.role in SOURCE_ROLES else "Data", e.data) for e in embedded]
    return (writer.write if writer is not None else write_pdf)(html, attachments, when)
