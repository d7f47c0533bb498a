"""The published JSON Schemas (2020-12), generated from the pydantic models.

schemas/evidence-record.schema.json and schemas/requirements.schema.json are these
functions' output, committed; a test fails when they differ, so the schemas and the
models cannot drift. Regenerate with `python -m evaluator.form.schemas`.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from ..engine.record import RECORD_VERSION, SCHEMA_ID, EvidenceRecord


def record_schema() -> dict[str, Any]:
    return _schema(EvidenceRecord, SCHEMA_ID, {"record_version": RECORD_VERSION})


def requirements_schema() -> dict[str, Any]:
    from ..buyer.profile import REQUIREMENTS_SCHEMA_ID, REQUIREMENTS_VERSION, RequirementsProfile

    return _schema(RequirementsProfile, REQUIREMENTS_SCHEMA_ID, {"requirements_version": REQUIREMENTS_VERSION})


# Committed file name -> generator.
SCHEMAS = {
    "evidence-record.schema.json": record_schema,
    "requirements.schema.json": requirements_schema,
}


def _schema(model: type[BaseModel], schema_id: str, version: dict[str, str]) -> dict[str, Any]:
    schema: dict[str, Any] = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": schema_id, **version}
    schema.update(model.model_json_schema(mode="validation"))
    return schema


def schema_text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    from .._infra.resources import data_dir

    for name, make in SCHEMAS.items():
        (data_dir("schemas") / name).write_text(schema_text(make()), encoding="utf-8")
