"""What a schema error says to the person who wrote the file: pydantic's errors placed at their
line and column, in plain words, a misspelt field named with the one it resembles. (The
published schemas themselves are generated in form/schemas.py.)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._infra.safe_text import CONTROL_PATTERN, CONTROL_PATTERN_LINES, IDENTITY_PATTERN, control_problem, identity_problem

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

    from .loader import LoadedFile


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


# What a pattern in the schema means, in the words of the field's description.
PATTERN_WORDS = {
    r"^\d{4}-\d{2}-\d{2}$": "must be a date written YYYY-MM-DD",
    r"^[A-Za-z0-9][A-Za-z0-9._-]*$": "must be an id: letters, digits, '.', '_' and '-', starting with a letter or digit",
    r"^[0-9a-f]{64}$": "must be a SHA-256: 64 digits 0-9 and a-f",
    CONTROL_PATTERN: "must hold no control character (tab is allowed)",
    CONTROL_PATTERN_LINES: "must hold no control character (tab and newline are allowed)",
    IDENTITY_PATTERN: "must hold no control character, bidi control or invisible character: a name must look like what it is",
}
TYPE_WORDS = {
    "string_type": "text",
    "int_type": "a whole number",
    "float_type": "a number",
    "bool_type": "true or false",
    "list_type": "a list",
    "model_type": "a group of fields",
    "dict_type": "a group of fields",
}
BOUND_WORDS = {
    "greater_than_equal": ("ge", "at least"),
    "less_than_equal": ("le", "at most"),
    "greater_than": ("gt", "more than"),
    "less_than": ("lt", "less than"),
}


def schema_message(error: ErrorDetails) -> str:
    """One pydantic error in the words of the file's author (the place is said apart, once)."""
    from .wording import num

    kind, ctx = error["type"], error.get("ctx") or {}
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return f"unknown field {json.dumps(str(error['loc'][-1]))} (misspelt, or in the wrong place)"
    if kind == "value_error":
        return str(ctx.get("error", error["msg"].removeprefix("Value error, ")))
    pattern = ctx.get("pattern")
    if kind == "string_pattern_mismatch" and pattern == IDENTITY_PATTERN and (problem := identity_problem(str(error.get("input")))):
        return problem
    if kind == "string_pattern_mismatch" and pattern in (CONTROL_PATTERN, CONTROL_PATTERN_LINES, IDENTITY_PATTERN):
        # Say which character and where: the field's text may be 20,000 characters long.
        said = control_problem(str(error.get("input")), lines=ctx["pattern"] == CONTROL_PATTERN_LINES) or "holds a control character"
    elif kind == "string_pattern_mismatch":
        said = PATTERN_WORDS.get(ctx.get("pattern", ""), "does not have the form this field needs")
    elif kind in TYPE_WORDS:
        said = f"must be {TYPE_WORDS[kind]}"
        written = _with_unit(error.get("input")) if kind in ("float_type", "float_parsing") and error["loc"][-1] in ("value", "value_high") else None
        if written is not None:
            number, unit = written
            return f"{said} (got {_shown(error.get('input'))}; write the number, {number}, and the unit apart: unit: {json.dumps(unit)})"
    elif kind in BOUND_WORDS:
        key, words = BOUND_WORDS[kind]
        said = f"must be {words} {num(ctx[key])}"
    elif kind == "literal_error":
        said = "must be " + ctx.get("expected", "").replace("'", '"')
        if (meant := _meant(error.get("input"), re.findall(r"'([^']*)'", ctx.get("expected", "")))) is not None:
            return f"{said} (got {_shown(error.get('input'))}; did you mean {json.dumps(meant)}?)"
    elif kind == "string_too_long":
        said = f"is longer than the {num(ctx['max_length'])} characters allowed"
    elif kind == "too_long":
        said = f"has more than the {num(ctx['max_length'])} entries allowed"
    elif kind == "too_short":
        said = f"needs at least {num(ctx['min_length'])} entr{'y' if ctx['min_length'] == 1 else 'ies'}"
    else:
        msg = error["msg"]
        said = f"{msg[0].lower()}{msg[1:]}"
    return f"{said} (got {_shown(error.get('input'))})"


def _meant(value: Any, allowed: list[str]) -> str | None:
    """The allowed value a misspelt one was meant to be: the same letters in another case or with
    other separators, or the one close match (difflib)."""
    if not isinstance(value, str) or not allowed:
        return None
    plain = re.sub(r"[\s_-]+", "", value.lower())
    for option in allowed:
        if re.sub(r"[\s_-]+", "", option.lower()) == plain:
            return option
    from difflib import get_close_matches

    close = get_close_matches(value.lower(), allowed, n=2, cutoff=0.75)
    return close[0] if len(close) == 1 else None


def _with_unit(value: Any) -> tuple[str, str] | None:
    """("2.19", "x") for a claimed value written with its unit ("2.19x", "200 tokens/s")."""
    if not isinstance(value, str):
        return None
    m = re.fullmatch(r"\s*([-+]?\d+(?:\.\d+)?)\s*([A-Za-z%/][\w/ %.-]*?)\s*", value)
    return (m.group(1), m.group(2)) if m else None


def _shown(value: Any) -> str:
    shown = json.dumps(value, default=str, ensure_ascii=False)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _node(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """A subschema with its $ref followed and pydantic's `X or null` reduced to X."""
    for _ in range(16):
        if "$ref" in schema:
            schema = root.get("$defs", {}).get(schema["$ref"].rsplit("/", 1)[-1], {})
        elif "anyOf" in schema:
            real = [b for b in schema["anyOf"] if b.get("type") != "null"]
            schema = real[0] if real else {}
        else:
            break
    return schema


def fields_at(schema: dict[str, Any], path: tuple[str | int, ...]) -> list[str]:
    """The field names the schema allows in the object at `path` (for "did you mean")."""
    node = _node(schema, schema)
    for step in path:
        node = _node(node.get("items", {}) if isinstance(step, int) else node.get("properties", {}).get(step, {}), schema)
    names = list(node.get("properties", {}))
    return names or list(_node(node.get("propertyNames", {}), schema).get("enum", []))


@dataclass(frozen=True)
class SchemaProblem:
    """One schema error as a person reads it: where (path, line, column) and what."""

    path: tuple[str | int, ...]
    message: str
    line: int | None
    column: int | None


def schema_problems(errors: list[ErrorDetails], loaded: LoadedFile, schema_file: str) -> list[SchemaProblem]:
    """Pydantic's errors for a loaded file, in file order, each once and in plain words. A
    misspelt field names the field it resembles, and absorbs the "missing" error it causes."""
    from difflib import get_close_matches

    from .loader import pointer

    placed = [(data_path(loaded.data, e["loc"]), e) for e in errors]
    missing = {path for path, e in placed if e["type"] == "missing"}
    schema: dict[str, Any] | None = None
    absorbed: set[tuple] = set()
    out = []
    for path, error in placed:
        message = schema_message(error)
        if error["type"] == "extra_forbidden" and path and isinstance(path[-1], str):
            if schema is None:
                from .._infra.resources import schema_path

                schema = json.loads(schema_path(schema_file).read_text(encoding="utf-8"))
            parent = path[:-1]
            present = _object_at(loaded.data, parent)
            allowed = [f for f in fields_at(schema, parent) if f not in present]
            match = get_close_matches(path[-1], allowed, n=1, cutoff=0.7) or get_close_matches(path[-1].lower(), allowed, n=1, cutoff=0.7)
            if match:
                meant = parent + (match[0],)
                message = f"unknown field {json.dumps(path[-1])}: did you mean {json.dumps(match[0])}?"
                if meant in missing:
                    message += f" ({match[0]} is required, and missing)"
                    absorbed.add(meant)
        line, column = loaded.position(pointer(path))
        out.append(SchemaProblem(path, message, line, column))
    kept = [p for p in out if not (p.path in absorbed and p.message == "required field is missing")]
    unique = list(dict.fromkeys(kept))
    return sorted(unique, key=lambda p: (p.line is None, p.line or 0, p.column or 0, pointer(p.path)))


def _object_at(data: Any, path: tuple) -> dict:
    for step in path:
        try:
            data = data[step]
        except (KeyError, IndexError, TypeError):
            return {}
    return data if isinstance(data, dict) else {}
