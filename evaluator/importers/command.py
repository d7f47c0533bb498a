"""`sdeval import`: read a tool's output, then print the runs, write them, or merge them into a record."""

from __future__ import annotations

import json
from pathlib import Path

from .._infra.atomic import OutputRefused, write_atomic
from .._infra.safe_text import json_shown
from . import ImportProblem, import_runs

# Without --into a run still needs a configuration id; this one says where it came from.
STANDALONE_CONFIGURATION = "imported"


def _model_check(record, configuration: str | None, runs: list[dict], allowed: bool) -> list[str]:
    """A run whose tool names another model than the configuration's target is refused (the
    figures would describe the wrong model), or with --allow-model-mismatch kept and said."""
    from ..rules.identity import same_model

    configs = {c.get("id"): c for c in record.data.get("configurations") or [] if isinstance(c, dict)}
    target = ((configs.get(configuration) or {}).get("target") or {}).get("model")
    out = []
    for run in runs:
        named = run.get("source", {}).get("model")
        if not (named and isinstance(target, str) and target) or same_model(named, target):
            continue
        problem = f"{run['source']['file']}: names the model {named}, but configuration {configuration} declares the target {target}"
        if not allowed:
            raise ImportProblem(f"{problem} (give --allow-model-mismatch to import it anyway; assess then reports model-mismatch)")
        out.append(f"warning: {problem}; imported with --allow-model-mismatch, and assess will report model-mismatch")
    return out


def _refuse_overwriting_an_input(output: Path, inputs: list[str]) -> None:
    """-o naming a file being imported would replace the tool's output (the evidence the runs'
    sha256 names) with the runs read from it: refused, --force or not."""
    if not output.exists():
        return
    for given in inputs:
        try:
            same = output.samefile(given)
        except OSError:
            continue
        if same:
            raise ImportProblem(f"{output}: is the file being imported ({given}); write the runs to another file")


def execute(
    fmt: str,
    files: list[str],
    *,
    run_id: str | None,
    configuration: str | None,
    arrangement: str | None,
    into: str | None,
    output: Path | None,
    force: bool,
    in_place: bool,
    skip_bad_lines: bool,
    metrics: list[str] | None = None,
    goodput: str | None = None,
    server_metrics: str | None = None,
    allow_model_mismatch: bool = False,
) -> tuple[str, list[str]]:
    """Returns (what to print on standard output, messages for standard error)."""
    record = None
    if into is not None:
        from .merge import read_record

        record = read_record(into)
        configuration = record.resolve_configuration(configuration)
    elif in_place:
        raise ImportProblem("--in-place only applies with --into RECORD")
    result = import_runs(
        fmt,
        files,
        configuration=configuration or STANDALONE_CONFIGURATION,
        run_id=run_id,
        arrangement=arrangement,
        skip_bad_lines=skip_bad_lines,
        metrics=metrics,
        goodput=goodput,
        server_metrics=server_metrics,
    )
    messages = list(result.warnings)
    ids = ", ".join(r["id"] for r in result.runs)
    if record is not None:
        messages += _model_check(record, configuration, result.runs, allow_model_mismatch)
        from .merge import write_merged

        target, warnings = write_merged(record, result.runs, output, in_place=in_place, force=force)
        return "", [*messages, *warnings, f"added run(s) {ids} to {target}"]
    # A string from the file (a dataset path, a note) may hold a bidi override or a C1 control: written
    # as JSON escapes, so printing the runs never hands the terminal a raw one.
    text = json_shown(json.dumps({"runs": result.runs}, indent=2, ensure_ascii=False)) + "\n"
    if output is None:
        return text, messages
    _refuse_overwriting_an_input(output, [*files, *(metrics or []), *([server_metrics] if server_metrics else [])])
    try:
        write_atomic(output, text.encode("utf-8"), force=force)
    except (OutputRefused, OSError) as exc:
        raise ImportProblem(str(exc)) from None
    return "", [*messages, f"wrote run(s) {ids} to {output}"]
