"""The published JSON Schema (2020-12), generated from the pydantic models.

schemas/evidence-record.schema.json is this function's output, committed; a test
fails when the two differ, so the schema and the models cannot drift.
"""

from __future__ import annotations

import json
from typing import Any

from .record import RECORD_VERSION, SCHEMA_ID, EvidenceRecord


def record_schema() -> dict[str, Any]:
    body = EvidenceRecord.model_json_schema(mode="validation")
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "record_version": RECORD_VERSION,
    }
    schema.update(body)
    return schema


def schema_text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
