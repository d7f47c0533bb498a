"""The reference pages under docs/ are what scripts/generate_docs.py writes from the rule catalog
and the published schemas: a rule or field changed without regenerating them fails here."""

from __future__ import annotations

import runpy

import pytest
from conftest import ROOT

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
