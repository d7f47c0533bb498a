"""Record 1.3 (issue 35): a new version, additive. A 1.3 record loads and is judged as the same record
at 1.2; every 1.0, 1.1 and 1.2 record loads and is judged as before; a version this tool does not
read is a schema finding naming the versions it does."""

from __future__ import annotations

import json
import typing

import jsonschema
import pytest
from conftest import EXAMPLES, ROOT, invoke

from evaluator.engine.loader import load_bytes, load_file
from evaluator.engine.record import READ_VERSIONS, EvidenceRecord
from evaluator.rules.assess import assess

SCHEMA = json.loads((ROOT / "schemas" / "evidence-record.schema.json").read_text())


def at_version(name: str, version: str) -> bytes:
    data = load_file(str(EXAMPLES / name)).data
    return json.dumps({**data, "record_version": version}).encode()


def judged(result) -> tuple:
    return (
        [(c.id, c.verdict) for c in result.claims],
        [(f.code, f.severity, f.pointer, f.message) for f in result.findings],
    )


def test_the_model_the_schema_and_read_versions_name_the_same_versions():
    field = EvidenceRecord.model_fields["record_version"].annotation
    assert typing.get_args(field) == READ_VERSIONS == ("1.0", "1.1", "1.2", "1.3")
    assert SCHEMA["properties"]["record_version"]["enum"] == list(READ_VERSIONS)


@pytest.mark.parametrize("name", ["sd201-offer-b.json", "complete-offer.yaml", "acceptance-only.json"])
def test_a_1_3_record_is_judged_as_the_same_record_at_1_2(name):
    v13 = at_version(name, "1.3")
    jsonschema.Draft202012Validator(SCHEMA).validate(json.loads(v13))
    assert judged(assess(load_bytes("offer.json", v13))) == judged(assess(load_bytes("offer.json", at_version(name, "1.2"))))


@pytest.mark.parametrize("version", ["1.0", "1.1", "1.2"])
def test_older_versions_still_load_and_judge_unchanged(version):
    # sd201-offer-b is established at every version; the examples' snapshots pin the rest.
    result = assess(load_bytes("offer.json", at_version("sd201-offer-b.json", version)))
    assert [(c.id, c.verdict) for c in result.claims] == [("b-200", "established")]
    assert [f for f in result.findings if f.severity == "error"] == []


def test_validate_accepts_1_3_and_refuses_a_version_it_does_not_read(tmp_path):
    good = tmp_path / "v13.json"
    good.write_bytes(at_version("sd201-offer-b.json", "1.3"))
    assert invoke("validate", good).exit_code == 0
    bad = tmp_path / "v14.json"
    bad.write_bytes(at_version("sd201-offer-b.json", "1.4"))
    out = invoke("validate", bad)
    assert out.exit_code == 1
    assert '/record_version: error schema: must be "1.0", "1.1", "1.2" or "1.3" (got "1.4")' in out.stdout
