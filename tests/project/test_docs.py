"""The reference pages under docs/ are what scripts/generate_docs.py writes from the rule catalog
and the published schemas: a rule or field changed without regenerating them fails here."""

from __future__ import annotations

import runpy

import pytest
from conftest import ROOT
from support.markdown_pages import PAGES, anchors, headings, links, page

GENERATOR = runpy.run_path(str(ROOT / "scripts" / "generate_docs.py"))


@pytest.mark.parametrize("name", sorted(GENERATOR["pages"]()))
def test_the_committed_reference_page_is_the_generated_one(name):
    committed = (ROOT / "docs" / name).read_text(encoding="utf-8")
    assert committed == GENERATOR["pages"]()[name], f"docs/{name} is stale: run .venv/bin/python scripts/generate_docs.py"


def test_the_rule_reference_has_every_rule_with_its_anchor():
    from evaluator.rules import REGISTRY

    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for code, rule in REGISTRY.items():
        assert f"\n## {code}\n" in page and f"(#{code})" in page
        assert rule.rationale in page


def test_the_field_reference_names_every_field_of_the_schema():
    import json

    schema = json.loads((ROOT / "schemas" / "evidence-record.schema.json").read_text())
    page = (ROOT / "docs" / "record-fields.md").read_text(encoding="utf-8")
    for definition in schema["$defs"].values():
        for name, node in definition.get("properties", {}).items():
            assert f"{name}` |" in page, name
            if "description" in node:
                assert node["description"].replace("|", "\\|") in page, name


# ------------------------------------------------------------------ the hand-written pages


def test_the_readme_is_short_and_has_a_path_for_each_user():
    readme = page(ROOT / "README.md")
    assert len(readme.splitlines()) <= 300
    assert {"Quick start", "For buyers", "For vendors", "For auditors", "Documentation"} <= set(headings(readme))
    # The Quick start is what CI runs (.ci/run): the two commands, as they have always been.
    assert "scripts/demo    # sets up .venv" in readme and "scripts/test    # sets up .venv" in readme


def test_every_docs_page_is_linked_from_the_readme():
    linked = {target.partition("#")[0] for target in links(page(ROOT / "README.md"))}
    assert {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")} <= linked


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(path):
    for target in links(page(path)):
        if target.startswith(("https://", "http://", "mailto:")):
            continue
        file, _, anchor = target.partition("#")
        destination = (path.parent / file).resolve() if file else path
        assert destination.is_relative_to(ROOT) and destination.exists(), (target, "no such file")
        if anchor:
            assert destination.suffix == ".md", (target, "an anchor into a file that is not a page")
            assert anchor in anchors(page(destination)), (target, "no such heading")
