"""`sdeval form` without a browser: the page is one self-contained file, built from the
schema, with the rule catalog the CLI prints embedded in it."""

from __future__ import annotations

import json
import re

import pytest

from evaluator._infra.resources import schema_path
from evaluator.form.fields import build


def _embedded(html: str, element_id: str):
    found = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', html, re.S)
    assert found, element_id
    return json.loads(found.group(1))


@pytest.fixture
def page_html(sdeval, tmp_path):
    out = tmp_path / "evidence-form.html"
    result = sdeval("form", "-o", out)
    assert result.exit_code == 0, result.stderr
    assert f"wrote {out}" in result.stderr
    return out.read_text(encoding="utf-8")


def test_the_pages_catalog_is_exactly_what_sdeval_rules_prints(sdeval, page_html):
    printed = sdeval("rules", "--format", "json")
    assert printed.exit_code == 0
    assert _embedded(page_html, "sdeval-catalog") == printed.json()


def test_the_page_embeds_the_published_schema(page_html):
    assert _embedded(page_html, "sdeval-schema") == json.loads(schema_path().read_text(encoding="utf-8"))


def test_the_page_needs_nothing_from_the_network(page_html):
    # No external script, style, image or font: every asset is inline.
    assert not re.search(r"<(script|img|iframe)[^>]*\ssrc=", page_html)
    assert not re.search(r"<link[^>]*\shref=", page_html)
    assert "url(http" not in page_html and "@import" not in page_html
    assert "sourceMappingURL" not in page_html


def test_the_ajv_license_ships_beside_the_vendored_bundle():
    from evaluator._infra.resources import data_dir

    vendor = data_dir("templates") / "form" / "vendor"
    assert "ajv 8.17.1" in (vendor / "ajv2020.min.js").read_text(encoding="utf-8")[:200]
    assert "MIT License" in (vendor / "LICENSE-ajv.txt").read_text(encoding="utf-8")


def test_every_schema_field_is_a_field_of_the_form_with_its_description_as_help(page_html):
    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    tree = build(schema)
    seen = []

    def walk(node):
        if node.kind == "object":
            for child in node.children:
                walk(child)
        elif node.kind == "list":
            walk(node.item)
        seen.append(node)

    walk(tree)
    for definition in schema["$defs"].values():
        for key, prop in definition["properties"].items():
            matches = [n for n in seen if n.key == key and n.help == prop.get("description", "")]
            assert matches, f"{key} is not in the form"
    # Help text appears on the page as written (HTML-escaped).
    assert "S: target-model passes that verified a proposal." in page_html


def test_widgets_follow_the_schema():
    tree = build(json.loads(schema_path().read_text(encoding="utf-8")))

    def find(*keys):
        node = tree
        for key in keys:
            node = next(c for c in (node.children if node.kind == "object" else node.item.children) if c.key == key)
        return node

    counts = find("runs", "counts", "accepted_drafts")
    assert (counts.kind, counts.unit, counts.label, counts.attrs["min"]) == ("integer", "tokens", "Accepted drafts (A)", 0)
    assert find("runs", "interval", "duration_s").unit == "s"
    assert find("runs", "interval", "duration_s").label == "Duration"
    assert find("runs", "latency", "ttft_ms", "p99").unit == "ms"
    assert find("claims", "kind").options[:2] == ["output-throughput", "speedup"]
    assert find("claims", "baseline").kind == "pick" and find("claims", "baseline").ref == "runs"
    assert find("runs", "configuration").ref == "configurations"
    assert find("claims", "installation_items").kind == "picks"
    assert find("runs", "interval", "stages_included").kind == "choices"
    assert find("runs", "counts", "accepted_length_histogram").kind == "numbers"
    assert find("configurations", "proposer", "adaptive_verification").kind == "yesno"
    assert find("runs").kind == "list" and find("runs").item_label == "Run"


def test_form_refuses_to_overwrite_without_force(sdeval, tmp_path):
    out = tmp_path / "evidence-form.html"
    out.write_text("mine")
    refused = sdeval("form", "-o", out)
    assert refused.exit_code == 2
    assert refused.stderr.strip() == f"sdeval: {out}: already exists; pass --force to replace it"
    assert out.read_text() == "mine"
    assert sdeval("form", "-o", out, "--force").exit_code == 0
    assert out.read_text().startswith("<!DOCTYPE html>")


def test_the_record_version_is_set_not_asked():
    from evaluator.engine.record import RECORD_VERSION
    from evaluator.form.page import render_form

    page = render_form()
    field = re.search(r'<(input|select)[^>]*data-key="record_version"[^>]*>', page).group(0)
    assert field.startswith("<input") and " readonly " in field and f'value="{RECORD_VERSION}"' in field
