"""An arm's configuration: what no endpoint can tell (hardware, numerics, proposer, revisions), from
its --configuration file, merged with what measure knows (the endpoint's model, the sampling it
sends), and checked against the record's configuration schema before anything is sent: a slip in
the file must not cost a whole measurement."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from .capture import MeasureProblem

NOT_STATED = "not stated to sdeval measure (give --configuration)"
ENDPOINT_MODEL = "the endpoint's model"  # stands in for /v1/models' answer while checking a file before anything is sent


def _merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def configuration(name: str, arrangement: str, model: str, stated: dict | None, settings: dict) -> dict[str, Any]:
    """The record's configuration for an arm. A field the file gives replaces measure's default
    whole (a stated proposer carries no "not stated" name); target is completed by the endpoint's
    model; sampling is always what measure sent, whatever the file says."""
    sent = {"temperature": settings["temperature"], "top_p": settings["top_p"], "seed": settings["seed"], "n": 1}
    cfg: dict[str, Any] = {
        "id": name,
        "target": {"model": model},
        "proposer": {"method": "other", "method_name": NOT_STATED} if arrangement == "speculative" else {"method": "none"},
    }
    for key, value in (stated or {}).items():
        if key == "id":
            continue
        cfg[key] = _merge(cfg[key], value) if key == "target" and isinstance(value, dict) else copy.deepcopy(value)
    cfg["sampling"] = _merge(cfg["sampling"], sent) if isinstance(cfg.get("sampling"), dict) else sent
    if settings["temperature"] == 0:
        cfg["sampling"]["mode"] = "greedy"
    return cfg


def load(path: Path, name: str, arrangement: str, settings: dict) -> dict:
    """The file's fields, once the configuration they make is valid; else every problem, one line
    each naming the file, the place and the field (MeasureProblem, exit 2)."""
    from pydantic import ValidationError

    from ..engine.loader import LoadedFile, UnreadableFile, load_file, pointer
    from ..engine.record import Configuration
    from ..engine.schema_wording import schema_problems

    try:
        loaded = load_file(str(path))
    except UnreadableFile as exc:
        raise MeasureProblem(f"--configuration {exc}") from None
    if loaded.problem is not None:
        raise MeasureProblem(f"{path}: {loaded.problem.where()}{loaded.problem.message}")
    if not isinstance(loaded.data, dict):
        raise MeasureProblem(f"{path}: not a mapping of configuration fields (target, proposer, numerics, runtime, hardware, parallelism)")
    try:
        Configuration.model_validate(configuration(name, arrangement, ENDPOINT_MODEL, loaded.data, settings))
    except ValidationError as exc:
        # Worded as for a record's configurations[0], so a misspelt field is matched against the
        # schema's fields there ("did you mean"); the file's own positions and fields are said.
        at = ("configurations", 0)
        errors = [{**e, "loc": at + tuple(e["loc"])} for e in exc.errors(include_url=False)]
        prefix = pointer(at)
        as_record = LoadedFile(
            loaded.path, loaded.raw, loaded.sha256, {"configurations": [loaded.data]}, _positions={prefix + k: v for k, v in loaded.positions.items()}
        )
        lines = []
        for p in schema_problems(errors, as_record, "evidence-record.schema.json"):  # type: ignore[arg-type]
            where = f"line {p.line}, column {p.column}: " if p.line is not None else ""
            field = ".".join(str(step) for step in p.path[len(at) :]) or "the file"
            lines.append(f"{path}: {where}{field}: {p.message}")
        raise MeasureProblem("\n".join(lines)) from None
    return loaded.data
