"""A `sdeval measure --configuration` file: the record configuration it makes for an arm (merged
with what measure knows: the endpoint's model, the sampling it sends), and its problems against
the record's configuration schema, each at its place in the file. Here, below the pipeline, so
that `sdeval validate` checks such a file as measure does before sending anything."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

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


def file_problems(loaded, name: str, arrangement: str, settings: dict) -> list:
    """Each problem of a loaded --configuration file (engine.loader.LoadedFile, parsed), as the
    schema words it (engine.schema_wording.SchemaProblem) with its path inside the file; [] for
    a file whose configuration is valid."""
    from pydantic import ValidationError

    from .loader import LoadedFile, pointer
    from .record import Configuration
    from .schema_wording import schema_problems

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
        problems = schema_problems(errors, as_record, "evidence-record.schema.json")  # type: ignore[arg-type]
        return [dataclasses.replace(p, path=tuple(p.path[len(at) :])) for p in problems]
    return []
