"""--format sarif: SARIF 2.1.0 (OASIS), the format code-scanning services take (GitHub's
`upload-sarif`, GitLab, Azure DevOps). One run, the whole rule catalog as the driver's rules (so
each result's ruleIndex is stable), one result per finding with the file, line, column and JSON
Pointer, and each input file as an artifact with its SHA-256."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from .. import __version__
from .._infra.safe_text import json_shown
from ..rules import REGISTRY, RULE_CATALOG_VERSION
from .ci_common import findings, fingerprint, help_text, help_uri, message, rule_of

if TYPE_CHECKING:
    from ..buyer.results import Comparison
    from ..rules.results import FileAssessment

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _uri(file: str) -> str:
    # A relative URI reference as SARIF wants it: forward slashes, everything else percent-encoded.
    return quote(file.replace("\\", "/"), safe="/")


def _rule(rule) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": rule.code,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.rationale},
        "help": {"text": help_text(rule)},
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {"tags": ["speculative-decoding", "evidence"]},
    }
    if uri := help_uri(rule):
        entry["helpUri"] = uri
    return entry


def render(results: list[FileAssessment], full: bool, comparison: Comparison | None = None) -> str:
    rules = list(REGISTRY.values())
    index = {r.code: i for i, r in enumerate(rules)}
    out = []
    for r, f in findings(results):
        rule = rule_of(f.code)
        location: dict[str, Any] = {"artifactLocation": {"uri": _uri(r.file)}}
        if f.line is not None:
            location["region"] = {"startLine": f.line, **({"startColumn": f.column} if f.column else {})}
        result: dict[str, Any] = {
            "ruleId": f.code,
            "level": LEVEL[f.severity],
            "message": {"text": message(f)},
            "locations": [{"physicalLocation": location, "logicalLocations": [{"fullyQualifiedName": f.pointer or "/"}]}],
            "partialFingerprints": {"sdevalFinding/v1": fingerprint(r, f)},
        }
        if rule is not None:
            result["ruleId"] = rule.code
            result["ruleIndex"] = index[rule.code]
        properties = {k: v for k, v in (("claim", f.claim), ("run", f.run), ("ask", f.ask)) if v}
        if properties:
            result["properties"] = properties
        out.append(result)
    run = {
        "tool": {
            "driver": {
                "name": "sdeval",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [_rule(r) for r in rules],
                "properties": {"ruleCatalogVersion": RULE_CATALOG_VERSION},
            }
        },
        "artifacts": [{"location": {"uri": _uri(r.file)}, "hashes": {"sha-256": r.sha256}} for r in results if r.sha256],
        "results": out,
        "columnKind": "unicodeCodePoints",
    }
    return json_shown(json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False)) + "\n"
