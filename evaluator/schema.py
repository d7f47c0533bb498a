"""The published JSON Schemas (2020-12), generated from the pydantic models, and what a
schema error says to the person who wrote the file.

schemas/evidence-record.schema.json and schemas/requirements.schema.json are these
functions' output, committed; a test fails when they differ, so the schemas and the
models cannot drift. Regenerate with `python -m evaluator.schema`.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from .record import RECORD_VERSION, SCHEMA_ID, EvidenceRecord


def record_schema() -> dict[str, Any]:
    return _schema(EvidenceRecord, SCHEMA_ID, {"record_version": RECORD_VERSION})


def requirements_schema() -> dict[str, Any]:
    from .fit.profile import REQUIREMENTS_SCHEMA_ID, REQUIREMENTS_VERSION, RequirementsProfile

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


# ------------------------------------------------------------------ validation errors


def data_path(data: Any, loc: tuple) -> tuple[str | int, ...]:
    """Pydantic's loc without its internal type tags: only steps that exist in the data,
    plus a final missing key."""
    path: list[str | int] = []
    node = data
    for step in loc:
        if isinstance(node, dict) and isinstance(step, str):
            path.append(step)
            if step not in node:
                break
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            path.append(step)
            node = node[step]
        # otherwise a pydantic tag such as 'function-after[...]' or a union branch name: skip it
    return tuple(path)


def schema_message(error: dict, document: str = "the evidence record") -> str:
    """One pydantic error in the words of the file's author."""
    kind = error["type"]
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return f"is not a field of {document} (misspelt, or in the wrong place)"
    shown = json.dumps(error.get("input"), default=str)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    msg = error["msg"]
    return f"{msg[0].lower()}{msg[1:]} (got {shown})"


if __name__ == "__main__":
    from .resources import data_dir

    for name, make in SCHEMAS.items():
        (data_dir("schemas") / name).write_text(schema_text(make()), encoding="utf-8")
