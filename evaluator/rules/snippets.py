"""A rule's passing case as the YAML a vendor writes: the fields the rule reads, with their values
in a record the rule passes.

The cases (cases.yaml beside this module, which tests/rules/test_rules.py runs) say which fields each
rule reads: the pointers its failing cases are flagged at. The snippet is those fields, taken from
the rule's first passing case (a shipped example changed by a JSON Patch), with each list item's
id kept so the reader knows which run or claim a field belongs to.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml

CASES = Path(__file__).with_name("cases.yaml")


@functools.cache
def _cases() -> list[dict[str, Any]]:
    return yaml.safe_load(CASES.read_text(encoding="utf-8"))


def passing_snippet(code: str) -> tuple[str, str] | None:
    """(where it comes from, the YAML) for a record rule with a passing case on a shipped example;
    None where the rule has none (parse and buyer-profile rules) or its fields are not in it."""
    cases = [c for c in _cases() if c["rule"] == code and "base" in c]
    passing = next((c for c in cases if not c["expect"]), None)
    if passing is None:
        return None
    pointers = list(dict.fromkeys(p for c in cases for p in c["expect"]))
    record = _patched(passing)
    picked: dict[str, Any] = {}
    for pointer in pointers:
        _pick(record, _steps(pointer), picked)
    if not picked:
        return None
    text = yaml.safe_dump(_without_marks(picked), sort_keys=False, allow_unicode=True, default_flow_style=None, width=88)
    return f"examples/{passing['base']}" + (" (changed)" if passing.get("patch") else ""), text


def _patched(case: dict[str, Any]) -> Any:
    import jsonpatch

    from .._infra.resources import data_dir
    from ..engine.loader import load_file

    data = load_file(str(data_dir("examples") / case["base"])).data
    return jsonpatch.apply_patch(data, case.get("patch", []))


def _steps(pointer: str) -> list[str]:
    return [s.replace("~1", "/").replace("~0", "~") for s in pointer.split("/")[1:]]


def _pick(source: Any, steps: list[str], into: dict | list) -> None:
    """Copy the value at `steps` from `source` into `into`, keeping the path (and items' ids) to it."""
    if not steps:
        return
    step, rest = steps[0], steps[1:]
    if isinstance(source, dict):
        assert isinstance(into, dict)  # into mirrors source's shape: each branch is made like the value
        if step not in source:
            return
        value = source[step]
        if not rest or not isinstance(value, dict | list):
            into[step] = value
            return
        fresh = step not in into
        branch = into.setdefault(step, [] if isinstance(value, list) else {})
        _pick(value, rest, branch)
        if fresh and not branch:  # the rest of the path is not in the passing record
            del into[step]
    elif isinstance(source, list) and step.isdigit() and int(step) < len(source):
        assert isinstance(into, list)  # into mirrors source's shape
        index, value = int(step), source[int(step)]
        # The list in the snippet holds only the items picked, each with its id.
        mine = next((item for item in into if isinstance(item, dict) and item.get("\0index") == index), None)
        if mine is None:
            if not isinstance(value, dict):
                into.append(value)
                return
            mine = {"\0index": index, **({"id": value["id"]} if "id" in value else {})}
            into.append(mine)
        if not rest:
            mine.update(value)
            return
        _pick(value, rest, mine)


def _without_marks(value: Any) -> Any:
    """The picked tree without the items' index marks."""
    if isinstance(value, dict):
        return {k: _without_marks(v) for k, v in value.items() if k != "\0index"}
    if isinstance(value, list):
        return [_without_marks(v) for v in value]
    return value
