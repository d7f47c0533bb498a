"""Render the evidence form: one HTML file with everything it needs inside it.

Embedded at generation time: the record's JSON Schema (for the validator and the
field tree), the rule catalog exactly as `sdeval rules --format json` prints it (so
the page's codes, titles and messages are the CLI's own), the words for schema
patterns (schema.PATTERN_WORDS), the vendored Ajv and js-yaml bundles, and the
page's script and style. Figures follow wording.num through its port in form.js.
"""

from __future__ import annotations

import json
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from .._infra.resources import data_dir, schema_path
from ..engine.record import RECORD_VERSION
from ..engine.schema_wording import PATTERN_WORDS
from ..rules import RULE_CATALOG_VERSION, catalog_document
from .fields import build

# Sections of the record, in the order the page shows them (the record's own order).
SECTIONS = ("offer", "configurations", "runs", "claims", "installation_scope")


def _script_json(value: Any) -> str:
    """JSON safe inside <script type="application/json">: it holds no '<', '>' or '&' at all (each
    written as its \\u escape, which JSON.parse reads back), so no '</script' can end the element
    early and no '<!--' can put the tokenizer into the script states where a later '</script>' is
    text: the page's own scripts would then never run."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _inline(text: str) -> str:
    """A script or style body safe to inline in HTML."""
    if "</script" in text.lower() or "</style" in text.lower():
        raise ValueError("an embedded asset contains a closing tag")
    return text


def render_form(served: dict[str, Any] | None = None) -> str:
    """The page; `served` (token, profile name, a record to start from) when `sdeval serve` serves
    it, so the page asks that process for the verdict; None for the offline file."""
    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    templates = data_dir("templates")
    env = Environment(
        loader=FileSystemLoader(str(templates)),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    form_dir = templates / "form"
    root = build(schema)
    sections = {child.key: child for child in root.children}
    return env.get_template("form/page.html.j2").render(
        record_version=RECORD_VERSION,
        catalog_version=RULE_CATALOG_VERSION,
        sections=[sections[key] for key in SECTIONS],
        version_field=sections["record_version"],
        schema_json=_script_json(schema),
        catalog_json=_script_json(catalog_document()),
        style=_inline((form_dir / "form.css").read_text(encoding="utf-8")),
        wording_json=_script_json({"patterns": PATTERN_WORDS}),
        ajv=_inline((form_dir / "vendor" / "ajv2020.min.js").read_text(encoding="utf-8")),
        js_yaml=_inline((form_dir / "vendor" / "js-yaml.min.js").read_text(encoding="utf-8")),
        script=_inline((form_dir / "form.js").read_text(encoding="utf-8")),
        served=served,
        served_json=_script_json(served),
    )
