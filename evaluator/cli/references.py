"""`sdeval reference ...`: independent published results into a references file.

    sdeval reference import inferencex rows.json -o references.json
    sdeval reference import mlperf-summary summary.csv -o references.json
    sdeval reference import mlperf-endpoints result_summary.json --model ... --accelerator ... -o references.json
    sdeval reference fetch inferencex --model DeepSeek-R1 -o references.json

Exit 0 written; 2 the command could not run (one line naming the file and the place).
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from .commands import Command
from .exits import fail, typer_app

app = typer_app("reference", "Independent published results (InferenceX, MLPerf) to set beside each claim.", add_completion=False)


class ReferenceFormat(str, Enum):
    inferencex = "inferencex"
    mlperf_summary = "mlperf-summary"
    mlperf_endpoints = "mlperf-endpoints"


class Acceptance(str, Enum):
    real = "real"
    pinned = "pinned"


OutputOpt = Annotated[Path, typer.Option("--output", "-o", metavar="FILE", help="The references file to write (JSON).")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Replace the output file if it exists.")]


def _write(output: Path, doc: dict, force: bool) -> None:
    from .._infra.atomic import OutputRefused, write_atomic
    from ..references.document import dumps

    try:
        write_atomic(output, dumps(doc), force=force)
    except OutputRefused as exc:
        raise fail(str(exc)) from None
    typer.echo(f"wrote {output} ({len(doc['rows'])} rows from {len(doc['sources'])} source{'s' * (len(doc['sources']) != 1)})", err=True)


@app.command("import", cls=Command, short_help="Published results (a file) into a references file.")
def import_(
    fmt: Annotated[ReferenceFormat, typer.Argument(metavar="FORMAT", help="inferencex, mlperf-summary or mlperf-endpoints.")],
    files: Annotated[list[Path], typer.Argument(metavar="FILE", help="The published results: API rows, summary.csv/.json, result_summary.json.")],
    output: OutputOpt,
    force: ForceOpt = False,
    model: Annotated[Optional[str], typer.Option("--model", help="mlperf-endpoints: the model the point ran.")] = None,
    accelerator: Annotated[Optional[str], typer.Option("--accelerator", help="mlperf-endpoints: the accelerator (e.g. 'NVIDIA B200').")] = None,
    count: Annotated[Optional[int], typer.Option("--count", min=1, help="mlperf-endpoints: how many accelerators served it.")] = None,
    precision: Annotated[Optional[str], typer.Option("--precision", help="mlperf-endpoints: the weights' number format.")] = None,
    framework: Annotated[Optional[str], typer.Option("--framework", help="mlperf-endpoints: the serving framework.")] = None,
    spec_method: Annotated[Optional[str], typer.Option("--spec-method", help="mlperf-endpoints: the speculative method, or none.")] = None,
    k: Annotated[Optional[int], typer.Option("--k", min=0, help="mlperf-endpoints: the draft length K.")] = None,
    acceptance: Annotated[Optional[Acceptance], typer.Option("--acceptance", help="mlperf-endpoints: real or pinned acceptance.")] = None,
    isl: Annotated[Optional[int], typer.Option("--isl", min=0, help="mlperf-endpoints: input length, tokens.")] = None,
    osl: Annotated[Optional[int], typer.Option("--osl", min=0, help="mlperf-endpoints: output length, tokens.")] = None,
    dataset: Annotated[Optional[str], typer.Option("--dataset", help="mlperf-endpoints: the dataset, when not fixed lengths.")] = None,
) -> None:
    """Read published results into a references file: each row's key normalised, its figures with
    units and definitions, and the SHA-256 and retrieval time of the bytes read."""
    from ..references.formats import PointSettings, ReferenceProblem
    from ..references.importing import import_files

    settings = PointSettings(
        model, accelerator, count, precision, framework, spec_method, k, acceptance.value if acceptance else None, isl, osl, dataset
    )
    given = [name for name, value in vars(settings).items() if value is not None]
    if fmt is not ReferenceFormat.mlperf_endpoints and given:
        raise fail(f"--{given[0].replace('_', '-')}: the point's settings are for mlperf-endpoints; {fmt.value} rows state their own")
    if fmt is ReferenceFormat.mlperf_endpoints and (model is None or accelerator is None):
        raise fail("mlperf-endpoints: give at least --model and --accelerator (result_summary.json names neither)")
    try:
        doc = import_files(fmt.value, files, settings)
    except ReferenceProblem as exc:
        raise fail(str(exc)) from None
    _write(output, doc, force)


@app.command(cls=Command, short_help="InferenceX's published rows for one model into a references file.")
def fetch(
    source: Annotated[ReferenceFormat, typer.Argument(metavar="SOURCE", help="inferencex (the only source published as an API).")],
    model: Annotated[str, typer.Option("--model", help="The model's InferenceX display name (e.g. DeepSeek-R1).")],
    output: OutputOpt,
    force: ForceOpt = False,
    api: Annotated[str, typer.Option("--api", metavar="URL", help="The InferenceX API base.")] = "https://inferencex.semianalysis.com/api/v1",
) -> None:
    """Fetch InferenceX's published rows for one model into a references file (the only command
    that opens a network connection for references; assess never does)."""
    from .._infra.atomic import refuse_output
    from ..references.formats import ReferenceProblem
    from ..references.importing import fetch_inferencex

    if source is not ReferenceFormat.inferencex:
        raise fail(f"{source.value}: published as files, not an API: download it and use `sdeval reference import {source.value} FILE`")
    if (problem := refuse_output(output, force=force)) is not None:
        raise fail(problem)
    try:
        doc = fetch_inferencex(model, base=api)
    except ReferenceProblem as exc:
        raise fail(str(exc)) from None
    _write(output, doc, force)
