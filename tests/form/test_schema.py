"""The committed JSON Schema is what the models generate, and every example obeys it."""

from __future__ import annotations

import json

import jsonschema
import pytest
from conftest import EXAMPLES, ROOT
from pydantic import ValidationError

from evaluator.engine.loader import load_file
from evaluator.engine.record import RECORD_VERSION, EvidenceRecord
from evaluator.form.schemas import record_schema, schema_text

COMMITTED = ROOT / "schemas" / "evidence-record.schema.json"


def test_committed_schema_matches_the_models():
    assert COMMITTED.read_text() == schema_text(record_schema()), (
        "schemas/evidence-record.schema.json is stale: regenerate it with `sdeval schema --generate > schemas/evidence-record.schema.json`"
    )


def test_schema_is_2020_12_with_id_and_version():
    schema = json.loads(COMMITTED.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith("evidence-record.schema.json")
    assert schema["record_version"] == RECORD_VERSION


def _all_properties(node):
    if isinstance(node, dict):
        for name, prop in node.get("properties", {}).items():
            yield name, prop
        for value in node.values():
            yield from _all_properties(value)
    elif isinstance(node, list):
        for value in node:
            yield from _all_properties(value)


def test_every_field_has_a_description():
    missing = [name for name, prop in _all_properties(record_schema()) if not prop.get("description")]
    assert missing == []


# Evidence records only; the requirements profiles beside them have their own schema test.
RECORDS = [p for p in sorted(EXAMPLES.glob("*.json")) + sorted(EXAMPLES.glob("*.yaml")) if "record_version" in load_file(str(p)).data]


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_examples_are_valid_under_the_published_schema_and_the_models(path):
    data = load_file(str(path)).data
    jsonschema.Draft202012Validator(json.loads(COMMITTED.read_text())).validate(data)
    EvidenceRecord.model_validate(data)


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["runs"][0]["counts"].update(accepted_drafts=-1),
        lambda d: d["runs"][0]["counts"].update(emitted_tokens="15"),
        lambda d: d["runs"][0]["counts"].update(emitted_tokens=True),
        lambda d: d["runs"][0]["counts"].update(emitted_tokens=10**16),
        lambda d: d["offer"].update(date="20 Oct 2026"),
        lambda d: d["claims"][0].update(kind="fast"),
        lambda d: d.update(extra_section={}),
    ],
)
def test_models_and_published_schema_reject_the_same_records(change):
    data = load_file(str(EXAMPLES / "sd201-offer-b.json")).data
    change(data)
    validator = jsonschema.Draft202012Validator(json.loads(COMMITTED.read_text()))
    assert list(validator.iter_errors(data)), "the published schema accepted it"
    with pytest.raises(ValidationError):
        EvidenceRecord.model_validate(data)
