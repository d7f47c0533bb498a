"""--into (and `sdeval claim`): add runs or claims to an existing record and change nothing else in it.

The record is read as plain data (the same loader `validate` uses), the new items are appended
to its `runs` (or `claims`) list, and the result is written atomically to -o, or over the record
itself only with an explicit --in-place. An id already in the record is refused, never
replaced, and so is a configuration the record does not have.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._infra.atomic import OutputRefused, write_atomic
from ..engine.loader import UnreadableFile, load_file
from .common import ImportProblem


@dataclass
class TargetRecord:
    path: Path
    data: dict[str, Any]
    yaml: bool
    has_comments: bool

    def configuration_ids(self) -> list[str]:
        configs = self.data.get("configurations")
        return [c["id"] for c in configs if isinstance(c, dict) and isinstance(c.get("id"), str)] if isinstance(configs, list) else []

    def resolve_configuration(self, wanted: str | None) -> str:
        known = self.configuration_ids()
        if wanted is not None:
            if wanted not in known:
                raise ImportProblem(f"{self.path}: has no configuration {wanted!r} (it has: {', '.join(known) or 'none'})")
            return wanted
        if len(known) == 1:
            return known[0]
        raise ImportProblem(f"{self.path}: has {len(known)} configurations ({', '.join(known) or 'none'}); name the run's with --configuration")


def read_record(path: str) -> TargetRecord:
    try:
        loaded = load_file(path)
    except UnreadableFile as exc:
        raise ImportProblem(str(exc)) from None
    if loaded.problem is not None:
        raise ImportProblem(f"{path}: {loaded.problem.where()}{loaded.problem.message}")
    runs = loaded.data.get("runs", [])
    if not isinstance(runs, list):
        raise ImportProblem(f"{path}: runs is not a list, so runs cannot be added to it")
    text = loaded.raw.decode("utf-8")
    is_yaml = Path(path).suffix.lower() in (".yaml", ".yml") or not text.lstrip().startswith("{")
    return TargetRecord(Path(path), loaded.data, is_yaml, is_yaml and re.search(r"(?m)^\s*#", text) is not None)


# What is added under which key, and the option that names a new item's id.
_ID_OPTION = {"runs": "--run-id", "claims": "--id"}


def merged_text(record: TargetRecord, items: list[dict[str, Any]], as_yaml: bool, key: str = "runs") -> str:
    existing = {r.get("id") for r in record.data.get(key, []) if isinstance(r, dict)}
    for item in items:
        if item["id"] in existing:
            raise ImportProblem(f"{record.path}: already has a {key[:-1]} {item['id']!r}; choose another with {_ID_OPTION[key]}")
    data = dict(record.data)
    data[key] = [*(record.data.get(key) or []), *items]
    if as_yaml:
        import yaml

        return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_merged(
    record: TargetRecord, items: list[dict[str, Any]], output: Path | None, *, in_place: bool, force: bool, key: str = "runs"
) -> tuple[Path, list[str]]:
    if output is None and not in_place:
        raise ImportProblem(f"--into {record.path} needs -o OUT for the merged record, or --in-place to update {record.path} itself")
    if output is not None and in_place:
        raise ImportProblem("give either -o OUT or --in-place, not both")
    target = record.path if in_place else output
    assert target is not None
    if not in_place and target.exists() and target.resolve() == record.path.resolve():
        raise ImportProblem(f"{target}: is the record itself; pass --in-place to update it")
    suffix = target.suffix.lower()
    as_yaml = suffix in (".yaml", ".yml") if suffix in (".json", ".yaml", ".yml") else record.yaml
    if in_place and record.has_comments:
        raise ImportProblem(f"{record.path}: rewriting it would drop its YAML comments; write the merged record with -o OUT instead")
    warnings = []
    if record.has_comments:
        warnings.append(f"{record.path}: its YAML comments are not carried into {target}")
    text = merged_text(record, items, as_yaml, key)
    try:
        write_atomic(target, text.encode("utf-8"), force=force or in_place)
    except (OutputRefused, OSError) as exc:
        raise ImportProblem(str(exc)) from None
    return target, warnings
