"""Importers: evidence-record runs from the output of the tools vendors already run. Each format
is one module here and one row in registry.py.

`import_runs(FORMAT, files, ...)` reads the files with the format's importer, names each run,
and validates it against the record's `Run` model. `sniff(path)` says which known format a
file looks like, so a file given under the wrong format is refused with the right name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .common import ImportProblem, figures_of
from .registry import FORMATS
from .sniff import describe_guess, sniff

__all__ = ["FORMATS", "ImportProblem", "ImportResult", "describe_guess", "import_runs", "sniff"]


# Key order of a run in the record, so imported runs read like hand-written ones.
RUN_KEY_ORDER = (
    "id",
    "arrangement",
    "configuration",
    "workload",
    "load",
    "interval",
    "counts",
    "latency",
    "goodput",
    "reported",
    "simulated_acceptance",
    "source",
    "notes",
    "request_latencies",
)


# ------------------------------------------------------------------------------ naming


def _ident(text: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", text).lstrip("-._")[:64].rstrip("-._")
    return cleaned or "imported"


@dataclass
class ImportResult:
    runs: list[dict[str, Any]]  # each valid against the record's Run model, in record key order
    warnings: list[str]


def import_runs(
    fmt: str,
    files: list[str],
    *,
    configuration: str,
    run_id: str | None = None,
    arrangement: str | None = None,
    skip_bad_lines: bool = False,
    metrics: list[str] | None = None,
    goodput: str | None = None,
    server_metrics: str | None = None,
) -> ImportResult:
    from pydantic import ValidationError

    from ..engine.record import Run

    if fmt not in FORMATS:
        raise ImportProblem(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    if metrics is not None and fmt != "vllm-bench":
        raise ImportProblem(
            f"--metrics BEFORE AFTER applies to vllm-bench only (the scrapes settle whose requests its server counters cover), not to {fmt}"
        )
    if goodput is not None and fmt != "vllm-bench":
        raise ImportProblem(f"--goodput applies to vllm-bench only (the limits vllm bench serve counted request_goodput at), not to {fmt}")
    if server_metrics is not None and fmt != "aiperf":
        raise ImportProblem(f"--server-metrics applies to aiperf only (AIPerf's server_metrics_export.json beside its summary), not to {fmt}")
    paths = [Path(f) for f in files]
    scrapes = [Path(f) for f in metrics] if metrics is not None else []
    scrapes += [Path(server_metrics)] if server_metrics is not None else []
    for p in paths + scrapes:
        if not p.is_file():
            raise ImportProblem(f"{p}: no such file" if not p.exists() else f"{p}: is not a regular file")
    if metrics is not None or goodput is not None:
        from . import vllm_bench

        if metrics is not None and len(paths) != 1:
            raise ImportProblem(f"--metrics BEFORE AFTER bracket one benchmark run; got {len(paths)} result files")
        pair = (scrapes[0], scrapes[1]) if metrics is not None else None
        with figures_of(paths[0]):
            imported = [item for p in paths for item in vllm_bench.import_file(p, metrics=pair, goodput=goodput)]
    elif server_metrics is not None:
        from . import aiperf

        if len(paths) != 1:
            raise ImportProblem(f"--server-metrics FILE goes with one AIPerf run's summary; got {len(paths)} files")
        with figures_of(paths[0]):
            imported = aiperf.import_with_server_metrics(paths[0], Path(server_metrics))
    else:
        imported = FORMATS[fmt].read(paths, skip_bad_lines)
    if run_id is not None and _ident(run_id) != run_id:
        raise ImportProblem(f"--run-id {run_id!r}: an id starts with a letter or digit and holds only letters, digits, '.', '_' and '-' (at most 64)")
    base = run_id
    runs, warnings = [], []
    given = {p.name: p for p in reversed(paths)}  # a run's file as the user gave it, for messages
    for n, item in enumerate(imported, 1):
        shown_as = given.get(item.source["file"], item.source["file"])
        name = base or _ident(Path(item.source["file"]).stem)  # a file name may hold anything
        if len(imported) > 1:
            name = f"{name[:60]}-{n}"
        if arrangement is None and not item.speculative:
            raise ImportProblem(
                f"{shown_as}: carries no speculative-decoding counts, so it does not say whether the run "
                "speculated; pass --arrangement speculative or --arrangement target-only"
            )
        run = {"id": name, "arrangement": arrangement or "speculative", "configuration": configuration, **item.fields, "source": item.source}
        try:
            model = Run.model_validate(run)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = "/".join(str(x) for x in first["loc"])
            raise ImportProblem(f"{shown_as}: the imported run does not fit the record at {where}: {first['msg']}") from None
        data = model.model_dump(mode="json", exclude_defaults=True)
        runs.append({k: data[k] for k in RUN_KEY_ORDER if k in data} | data)
        warnings.extend(item.warnings)
    return ImportResult(runs, warnings)
