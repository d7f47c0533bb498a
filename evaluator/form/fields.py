"""From the record's JSON Schema to a tree of form fields the templates render.

Everything a person sees about a field comes from the schema: the label from its key,
the help from its description, choices from its enum, bounds and patterns from its
keywords. What the schema cannot say lives here, in two small tables: which fields
name an id entered elsewhere in the form (rendered as pickers), and the units of
counts whose description has none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..engine.record import RECORD_VERSION

# (object definition, property) -> the list of ids the field picks from.
REFERENCES: dict[tuple[str, str], str] = {
    ("Run", "configuration"): "configurations",
    ("Claim", "run"): "runs",
    ("Claim", "baseline"): "runs",
    ("Claim", "installation_items"): "installation",
}

# Units stated in descriptions as "in seconds", "in milliseconds", "in GB", ...
_UNIT_WORDS = {"seconds": "s", "milliseconds": "ms", "GB": "GB", "tokens/s": "tokens/s", "tokens": "tokens"}
_UNIT_IN_TEXT = re.compile(r"\bin (seconds|milliseconds|GB|tokens/s|tokens)\b")
# Counts whose description names the thing counted without an "in ..." phrase.
_COUNT_UNITS = {
    "verification_steps": "steps",
    "proposed_drafts": "tokens",
    "accepted_drafts": "tokens",
    "bonus_tokens": "tokens",
    "emitted_tokens": "tokens",
    "invalidated_drafts": "tokens",
    "accepted_length_histogram": "steps",
    "accepted_per_position": "steps",
    "num_requests": "requests",
    "requests_with_metrics": "requests",
    "requests_without_metrics": "requests",
    "concurrency": "requests in flight",
    "measured_peak_concurrency": "requests in flight",
    "min_concurrency": "requests in flight",
    "max_concurrency": "requests in flight",
    "request_rate": "requests/s",
    "k": "tokens per step",
    "count": "accelerators",
    "output_tokens_per_s": "tokens/s",
}
_WORDS = {
    "ttft": "TTFT",
    "tpot": "TPOT",
    "itl": "ITL",
    "e2e": "End-to-end",
    "k": "K",
    "n": "n",
    "kv": "KV",
    "p50": "p50",
    "p90": "p90",
    "p95": "p95",
    "p99": "p99",
    "sha256": "SHA-256",
    "gb": "GB",
}
_UNIT_SUFFIXES = ("_ms", "_s", "_gb")
_SYMBOL = re.compile(r"^([A-Z]): ")

LONG_TEXT = 2000  # strings longer than this get a text area


@dataclass
class Node:
    """One field of the form. kind decides the widget:
    object, list (of objects), text, longtext, integer, number, choice, yesno, constant,
    pick (one id), picks (several ids), choices (several enum values), numbers (list of numbers),
    lines (list of strings)."""

    kind: str
    key: str
    label: str
    help: str = ""
    required: bool = False
    unit: str = ""
    options: list[str] = field(default_factory=list)
    ref: str = ""
    attrs: dict[str, Any] = field(default_factory=dict)
    children: list["Node"] = field(default_factory=list)
    item: "Node | None" = None
    item_label: str = ""
    collapsed: bool = False


def build(schema: dict[str, Any]) -> Node:
    """The whole record as one object node."""
    return _object_node(schema, "", "Evidence record", "", schema, "EvidenceRecord", True)


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> tuple[dict[str, Any], str]:
    ref = schema.get("$ref", "")
    if ref.startswith("#/$defs/"):
        name = ref.rsplit("/", 1)[1]
        return root["$defs"][name], name
    return schema, ""


def _non_null(prop: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """Strip pydantic's anyOf [X, null] wrapper; report whether null was allowed."""
    branches = prop.get("anyOf")
    if branches:
        real = [b for b in branches if b.get("type") != "null"]
        if len(real) == 1:
            return real[0], len(real) < len(branches)
    return prop, False


def label_for(key: str, description: str = "") -> str:
    base = key
    for suffix in _UNIT_SUFFIXES:
        if base.endswith(suffix) and len(base) > len(suffix):
            base = base[: -len(suffix)]
    words = [_WORDS.get(w, w) for w in base.split("_")]
    text = " ".join(words)
    text = text[0].upper() + text[1:]
    symbol = _SYMBOL.match(description)
    return f"{text} ({symbol.group(1)})" if symbol else text


def unit_for(key: str, description: str) -> str:
    if key in _COUNT_UNITS:
        return _COUNT_UNITS[key]
    found = _UNIT_IN_TEXT.search(description)
    return _UNIT_WORDS[found.group(1)] if found else ""


def _object_node(schema, key, label, help_text, root, def_name, required) -> Node:
    node = Node("object", key, label, help_text, required)
    required_keys = set(schema.get("required", []))
    for prop_key, prop in schema.get("properties", {}).items():
        node.children.append(_node(prop_key, prop, root, def_name, prop_key in required_keys))
    return node


def _bounds(schema: dict[str, Any]) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    for keyword, attr in (
        ("minimum", "min"),
        ("maximum", "max"),
        ("exclusiveMinimum", "min"),
        ("maxLength", "maxlength"),
        ("minLength", "minlength"),
        ("pattern", "pattern"),
    ):
        if keyword in schema:
            attrs[attr] = schema[keyword]
    return attrs


def _node(key: str, prop: dict[str, Any], root: dict[str, Any], parent: str, required: bool) -> Node:
    description = prop.get("description", "")
    inner, nullable = _non_null(prop)
    inner, def_name = _resolve(inner, root)
    label = label_for(key, description)
    base = {"key": key, "label": label, "help": description, "required": required}
    ref = REFERENCES.get((parent, key), "")
    kind = inner.get("type")
    if def_name or kind == "object":
        node = _object_node(inner, key, label, description, root, def_name, required)
        # Optional blocks that are rarely filled start folded, to keep the page short.
        node.collapsed = nullable and not required
        return node
    if kind == "array":
        item, item_def = _resolve(inner.get("items", {}), root)
        attrs = {"maxItems": inner["maxItems"]} if "maxItems" in inner else {}
        if item_def:
            child = _object_node(item, "", item_def, "", root, item_def, True)
            return Node("list", item=child, item_label=_singular(label), attrs=attrs, **base)
        if ref:
            return Node("picks", ref=ref, attrs={**attrs, **_bounds(item)}, **base)
        if "enum" in item:
            return Node("choices", options=list(item["enum"]), attrs=attrs, **base)
        if item.get("type") in ("integer", "number"):
            return Node(
                "numbers", unit=unit_for(key, description), attrs={**attrs, **_bounds(item), "integer": item.get("type") == "integer"}, **base
            )
        return Node("lines", attrs={**attrs, **_bounds(item)}, **base)
    if ref:
        return Node("pick", ref=ref, attrs=_bounds(inner), **base)
    if "const" in inner:
        return Node("constant", options=[inner["const"]], **base)
    if parent == "EvidenceRecord" and key == "record_version":
        # Set, not asked: a new record is written in this release's version; a loaded one keeps its own.
        return Node("constant", options=[RECORD_VERSION], **base)
    if "enum" in inner:
        return Node("choice", options=list(inner["enum"]), **base)
    if kind == "boolean":
        default = prop.get("default")
        return Node("yesno", attrs={} if default is None else {"default": default}, **base)
    if kind in ("integer", "number"):
        return Node(kind, unit=unit_for(key, description), attrs=_bounds(inner), **base)
    long = inner.get("maxLength", 0) > LONG_TEXT or key in ("flags", "claim_text", "text", "description", "notes")
    return Node("longtext" if long else "text", attrs=_bounds(inner), **base)


def _singular(label: str) -> str:
    irregular = {
        "Claims": "Claim",
        "Runs": "Run",
        "Configurations": "Configuration",
        "Items": "Installation item",
        "Repetitions": "Repetition",
        "Quality": "Quality result",
        "K schedule": "K band",
    }
    return irregular.get(label, label[:-1] if label.endswith("s") else label)
