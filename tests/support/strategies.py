"""Hypothesis strategies: records valid under the published schema, and mutations of the examples.

hypothesis-jsonschema would be the library for the first, but its current release fails with
current Hypothesis ("'many' object has no attribute 'more'"), so this walks the subset of
JSON Schema our generated schema uses: $ref, anyOf, enum/const, object with properties and
required, arrays, strings with pattern or length, bounded numbers.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from pathlib import Path

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schemas" / "evidence-record.schema.json").read_text())
EXAMPLES = ROOT / "examples"

# Keep generated records small enough to check hundreds per second.
MAX_ITEMS = 3
# Text that has broken other tools: markup, RTL, bidi controls, combining marks, NUL, tabs, very long words.
NASTY_STRINGS = (
    '<img src="file:///etc/passwd">',
    "url(file:///etc/passwd)",
    "\u202eright-to-left\u202c",
    "e\u0301\u0301\u0301",
    "\x00nul",
    "A" * 1500,
    "{{ 7*7 }}",
    "tab\tinside",
    "\u05d4\u05e6\u05e2\u05ea \u0639\u0631\u0636",
)
NASTY_TEXT = st.sampled_from(NASTY_STRINGS)


def _resolve(node: dict) -> dict:
    while "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].split("/")[-1]]
    return node


_BUILT: dict[int, st.SearchStrategy] = {}


def from_schema(node: dict = SCHEMA) -> st.SearchStrategy:
    """The strategy for a schema node, built once per node: records are drawn field by field,
    and building (and validating) a strategy per draw made generation minutes long."""
    if id(node) not in _BUILT:
        _BUILT[id(node)] = _from_schema(node)
    return _BUILT[id(node)]


def _from_schema(node: dict) -> st.SearchStrategy:
    node = _resolve(node)
    if "const" in node:
        return st.just(node["const"])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    if "anyOf" in node:
        return st.one_of([from_schema(option) for option in node["anyOf"]])
    kind = node.get("type")
    if kind == "object":
        return _object(node)
    if kind == "array":
        low = node.get("minItems", 0)
        high = min(node.get("maxItems", MAX_ITEMS), max(low, MAX_ITEMS))
        return st.lists(from_schema(node["items"]), min_size=low, max_size=high)
    if kind == "string":
        if "pattern" in node:
            regex = re.compile(node["pattern"])
            pattern = (
                _text_field(node["pattern"], node.get("maxLength", 40))
                if node["pattern"].startswith("^[^")
                else (st.from_regex(node["pattern"], fullmatch=True))
            )
            # Text fields have patterns too (no control characters): the nasty texts they allow still come up.
            fits = lambda s: node.get("minLength", 0) <= len(s) <= node.get("maxLength", 10**9)  # noqa: E731
            nasty = [t for t in NASTY_STRINGS if regex.fullmatch(t) and fits(t)]
            return st.one_of(pattern.filter(fits), st.sampled_from(nasty)) if nasty else pattern.filter(fits)
        text = st.text(min_size=node.get("minLength", 0), max_size=min(node.get("maxLength", 40), 40))
        return st.one_of(text, NASTY_TEXT.filter(lambda s: len(s) <= node.get("maxLength", 10**9)))
    if kind == "integer":
        low = node.get("minimum", -(10**6))
        return st.integers(min_value=low, max_value=node.get("maximum", low + 10**6))
    if kind == "number":
        low = node.get("minimum", node.get("exclusiveMinimum", -(10**6)))
        high = node.get("maximum", 10**6)
        return st.floats(
            min_value=low,
            max_value=high,
            allow_nan=False,
            allow_infinity=False,
            exclude_min="exclusiveMinimum" in node,
        ) | st.integers(min_value=int(low) + 1, max_value=int(min(high, 10**6)))
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    raise NotImplementedError(f"schema keyword set not covered: {sorted(node)}")


@functools.lru_cache(maxsize=None)
def _text_field(pattern: str, max_length: int) -> st.SearchStrategy:
    """A text field (no control characters; a name also no invisible ones): text of printable
    characters, tabs and newlines that the pattern takes. Built once per pattern: an alphabet
    that excludes categories is costly to build, and records are drawn field by field."""
    regex = re.compile(pattern)
    refused = ("Cc", "Cs") if regex.fullmatch("\u200b") else ("Cc", "Cs", "Cf")
    alphabet = st.characters(blacklist_categories=refused) | st.sampled_from([c for c in "\t\n" if regex.fullmatch(c)])
    return st.text(alphabet, max_size=min(max_length, 40)).filter(regex.fullmatch)


def _object(node: dict) -> st.SearchStrategy:
    props = node.get("properties", {})
    required = set(node.get("required", []))

    @st.composite
    def build(draw):
        out = {}
        for name, sub in props.items():
            if name in required or draw(st.booleans()):
                out[name] = draw(from_schema(sub))
        return out

    return build()


def example_records() -> list[dict]:
    from evaluator.engine.loader import load_file

    return [
        load_file(str(p)).data
        for p in sorted(EXAMPLES.glob("*"))
        if p.suffix in (".json", ".yaml") and "record_version" in (load_file(str(p)).data or {})
    ]


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*prefix, i))


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | NASTY_TEXT,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
)


@st.composite
def mutated_records(draw):
    """An example with one field removed, or one value replaced by another JSON value."""
    record = copy.deepcopy(draw(st.sampled_from(example_records())))
    paths = [p for p in _paths(record) if p]
    path = draw(st.sampled_from(paths))
    parent = record
    for step in path[:-1]:
        parent = parent[step]
    if draw(st.booleans()):
        del parent[path[-1]]
        return record, ("removed", path)
    parent[path[-1]] = draw(JSON_VALUES)
    return record, ("replaced", path)
