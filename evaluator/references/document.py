"""The references file: reference rows with their normalised key, their figures (value, unit,
definition) and their provenance (the source URL or file name, when it was retrieved, the SHA-256
of the bytes read). Its shape is schemas/references.schema.json; `sdeval reference import` and
`fetch` write it, `assess --references` and `render --references` read it (and a report embeds its
bytes, so verify reads the same file again).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from .formats import ReferenceProblem
from .tables import TABLES_VERSION

REFERENCES_VERSION = "1.0"
SCHEMA_NAME = "references.schema.json"


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def provenance(fmt: str, source: str, raw: bytes, retrieved_at: str) -> dict[str, Any]:
    return {"format": fmt, "source": source, "retrieved_at": retrieved_at, "sha256": hashlib.sha256(raw).hexdigest(), "bytes": len(raw)}


def build(sources: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> dict[str, Any]:
    """One references document from (provenance, rows) pairs; each row names its source by index."""
    rows = []
    for index, (_, found) in enumerate(sources):
        rows += [{**row, "source": index} for row in found]
    return {"references_version": REFERENCES_VERSION, "tables_version": TABLES_VERSION, "sources": [p for p, _ in sources], "rows": rows}


def dumps(doc: dict[str, Any]) -> bytes:
    return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


@dataclass(frozen=True)
class ReferencesInput:
    """A references file as given: the name, the exact bytes (a report embeds them) and their document."""

    path: str
    raw: bytes
    sha256: str
    doc: dict[str, Any]

    @property
    def rows(self) -> list[dict[str, Any]]:
        return self.doc["rows"]

    def source_of(self, row: dict[str, Any]) -> dict[str, Any]:
        return self.doc["sources"][row["source"]]


def _validator():
    from jsonschema import Draft202012Validator

    from .._infra.resources import schema_path

    return Draft202012Validator(json.loads(schema_path(SCHEMA_NAME).read_text(encoding="utf-8")))


def read_references(path: str, raw: bytes) -> ReferencesInput:
    """A references file checked against its schema; ReferenceProblem names the file and the place."""
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ReferenceProblem(f"{path}: not a references file (JSON from `sdeval reference import`): {exc}") from None
    errors = sorted(_validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/" + "/".join(str(p) for p in first.absolute_path)
        raise ReferenceProblem(f"{path}: {where}: {first.message}")
    for n, row in enumerate(doc["rows"]):
        if row["source"] >= len(doc["sources"]):
            raise ReferenceProblem(f"{path}: /rows/{n}/source: names source {row['source']}, the file lists {len(doc['sources'])}")
    return ReferencesInput(path, raw, hashlib.sha256(raw).hexdigest(), doc)
