"""An arm's configuration: what no endpoint can tell (hardware, numerics, proposer, revisions), from
its --configuration file, merged with what measure knows (the endpoint's model, the sampling it
sends), and checked against the record's configuration schema before anything is sent: a slip in
the file must not cost a whole measurement."""

from __future__ import annotations

from pathlib import Path

from ..engine.configuration_file import configuration, file_problems
from .capture import MeasureProblem

__all__ = ["configuration", "file_problems", "load"]


def load(path: Path, name: str, arrangement: str, settings: dict) -> dict:
    """The file's fields, once the configuration they make is valid; else every problem, one line
    each naming the file, the place and the field (MeasureProblem, exit 2)."""
    from ..engine.loader import UnreadableFile, load_file

    try:
        loaded = load_file(str(path))
    except UnreadableFile as exc:
        raise MeasureProblem(f"--configuration {exc}") from None
    if loaded.problem is not None:
        raise MeasureProblem(f"{path}: {loaded.problem.where()}{loaded.problem.message}")
    if not isinstance(loaded.data, dict):
        raise MeasureProblem(f"{path}: not a mapping of configuration fields (target, proposer, numerics, runtime, hardware, parallelism)")
    lines = []
    for p in file_problems(loaded, name, arrangement, settings):
        where = f"line {p.line}, column {p.column}: " if p.line is not None else ""
        field = ".".join(str(step) for step in p.path) or "the file"
        lines.append(f"{path}: {where}{field}: {p.message}")
    if lines:
        raise MeasureProblem("\n".join(lines))
    return loaded.data
