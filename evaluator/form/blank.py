"""`sdeval init`: a blank evidence form in YAML, every field explained by a comment.

Generated from the record models, so the form always matches the schema: the
comments are the same field descriptions the JSON Schema and the browser form show.
`sdeval init --requirements` writes the buyer's requirements profile the same way.
Optional sections that need data to be valid (a relaxed-acceptance block, a latency
table, a repetition) are written commented out, so a half-filled form stays readable.
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from ..buyer.profile import REQUIREMENTS_VERSION, RequirementsProfile
from ..engine.record import RECORD_VERSION, EvidenceRecord

HEADER = f"""\
# sdeval evidence record {RECORD_VERSION}: blank form
#
# Fill this in from what the vendor sent you (slides, benchmark tables, emails).
# Copy numbers exactly as stated; leave a field empty when the material does not say.
# An empty field is not a zero: the rules will name what is missing.
# Lines starting with '#-' are optional sections: remove the '#-' to use one.
#
# Check it with:  sdeval validate THIS_FILE      Judge it with:  sdeval assess THIS_FILE
"""


REQUIREMENTS_HEADER = f"""\
# sdeval requirements profile {REQUIREMENTS_VERSION}: blank form
#
# State what an offer must do for you: the loads you will run, your response-time limits,
# throughput and quality thresholds, your sampling policy and the interval you care about.
# Leave a section empty when it does not matter to you; only what you state is judged.
# Lines starting with '#-' are optional entries: remove the '#-' to use one.
#
# Judge offers with:  sdeval assess OFFER... --requirements THIS_FILE
"""


def blank_form() -> str:
    # The buyer types this record from the vendor's material: its requests say "fill in" (offer.source).
    form = model_form(EvidenceRecord, HEADER, "record_version", RECORD_VERSION)
    return form.replace("\n  source:\n", "\n  source: buyer-transcribed\n", 1)


def vendor_skeleton(today: str | None = None) -> str:
    """A vendor's starting record (templates/vendor-skeleton.yaml) dated today: one speculative and one
    target-only configuration, no runs and no claims yet, for `import --into` and `claim` to fill."""
    import datetime as dt

    from .._infra.resources import data_dir

    text = (data_dir("templates") / "vendor-skeleton.yaml").read_text(encoding="utf-8")
    # The version every command but `measure` writes (it carries no 1.2-only field such as D), as `sdeval init` does.
    return text.replace("<YYYY-MM-DD>", today or dt.date.today().isoformat()).replace("<RECORD_VERSION>", RECORD_VERSION)


def blank_requirements() -> str:
    return model_form(RequirementsProfile, REQUIREMENTS_HEADER, "requirements_version", REQUIREMENTS_VERSION)


def model_form(model: type[BaseModel], header: str, version_field: str, version: str) -> str:
    """A commented YAML form for any of our top-level models, its version field filled in."""
    lines = [header.rstrip("\n")]
    for name, info in model.model_fields.items():
        if name == version_field:
            lines += _comment(info, 0)
            lines.append(f'{version_field}: "{version}"')
            continue
        lines.append("")
        lines += _field(name, info, 0, commented=False)
    return "\n".join(lines) + "\n"


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """Strip Optional and Annotated; report whether None was allowed."""
    optional = False
    while True:
        origin = get_origin(annotation)
        if origin is typing.Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            args = [a for a in get_args(annotation) if a is not type(None)]
            optional = optional or len(args) < len(get_args(annotation))
            annotation = args[0] if len(args) == 1 else annotation
            if len(args) != 1:
                return annotation, optional
        else:
            return annotation, optional


def _is_model(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, BaseModel)


def _needs_data(model: type[BaseModel]) -> bool:
    return any(f.is_required() for f in model.model_fields.values())


def _comment(info: FieldInfo, indent: int, prefix: str = "#") -> list[str]:
    pad = " " * indent
    out = []
    text = info.description or ""
    annotation, _ = _unwrap(info.annotation)
    if get_origin(annotation) is Literal and len(get_args(annotation)) > 1:
        text += " One of: " + ", ".join(str(a) for a in get_args(annotation)) + "."
    elif get_origin(annotation) in (list, dict):
        item, _ = _unwrap(get_args(annotation)[0])
        if get_origin(item) is Literal:
            what = "Each one of" if get_origin(annotation) is list else "Keys"
            text += f" {what}: " + ", ".join(str(a) for a in get_args(item)) + "."
    # Wrap at about 100 columns so the form reads well in any editor.
    words, line = text.split(), ""
    for word in words:
        if len(line) + len(word) + 1 > 96 - indent:
            out.append(f"{pad}{prefix} {line}")
            line = word
        else:
            line = f"{line} {word}".strip()
    if line:
        out.append(f"{pad}{prefix} {line}")
    return out


def _field(name: str, info: FieldInfo, indent: int, commented: bool) -> list[str]:
    pad = " " * indent
    mark = "#- " if commented else ""
    annotation, optional = _unwrap(info.annotation)
    origin = get_origin(annotation)
    lines = _comment(info, indent)
    if _is_model(annotation):
        hide = commented or (optional and _needs_data(annotation))
        lines.append(f"{pad}{'#- ' if hide else ''}{name}:")
        lines += _model_body(annotation, indent + 2, hide)
        return lines
    if origin is list:
        item, _ = _unwrap(get_args(annotation)[0])
        if _is_model(item):
            required = info.is_required() or (info.metadata and any(getattr(m, "min_length", 0) for m in info.metadata))
            hide = commented or not required
            lines.append(f"{pad}{'#- ' if hide else ''}{name}:")
            lines.append(f"{pad}  {'#- ' if hide else ''}-")
            return lines + _model_body(item, indent + 4, hide)
        lines.append(f"{pad}{mark}{name}: []")
        return lines
    default = None if info.is_required() else info.get_default(call_default_factory=True)
    value = "" if default is None else " " + json.dumps(default)
    lines.append(f"{pad}{mark}{name}:{value}")
    return lines


def _model_body(model: type[BaseModel], indent: int, commented: bool) -> list[str]:
    lines: list[str] = []
    for name, info in model.model_fields.items():
        lines += _field(name, info, indent, commented)
    return lines
