"""The `sdeval` command line: thin wiring over loader -> assessment -> reporters.

Exit codes: 0 no error finding; 1 at least one error finding (parse and schema
included); 2 the command could not run (missing or unreadable file, bad usage,
internal error). Heavy modules (WeasyPrint, pyHanko) are imported only inside the
commands that render or sign, so `validate` starts fast.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from . import __version__
from .lazy_commands import lazy_typer
from .loader import DEFAULT_MAX_BYTES

EXIT_OK, EXIT_FINDINGS, EXIT_CANNOT_RUN = 0, 1, 2

app = typer.Typer(
    name="sdeval",
    help="Decide whether a speculative-decoding offer's claims are backed by evidence.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class Format(str, Enum):
    text = "text"
    json = "json"


class CannotRun(Exception):
    """Stops the command with exit 2 and a one-line message naming the file."""


def _fail(message: str) -> typer.Exit:
    typer.echo(f"sdeval: {message}", err=True)
    return typer.Exit(EXIT_CANNOT_RUN)


def _version(value: bool) -> None:
    if value:
        from .rules import RULE_CATALOG_VERSION

        typer.echo(f"sdeval {__version__} (record format 1.0, rule catalog {RULE_CATALOG_VERSION})")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    pass


FilesArg = Annotated[list[str], typer.Argument(help="Evidence records (JSON or YAML); '-' reads standard input.", metavar="FILE...")]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
MaxSizeOpt = Annotated[int, typer.Option("--max-size", help="Largest input file accepted, in bytes.", min=1)]


def _load_all(files: list[str], max_size: int):
    from .loader import UnreadableFile, load_file

    loaded = []
    for path in files:
        try:
            loaded.append(load_file(path, max_size))
        except UnreadableFile as exc:
            raise _fail(str(exc)) from None
    return loaded


def _run(files: list[str], fmt: Format, full: bool, max_size: int):
    from .assessment import assess, exit_code
    from .reporters import REPORTER_BY_NAME

    results = [assess(item) for item in _load_all(files, max_size)]
    text = REPORTER_BY_NAME[fmt.value](results, full)
    return results, text, exit_code(results)


@app.command()
def validate(files: FilesArg, fmt: FormatOpt = Format.text, max_size: MaxSizeOpt = DEFAULT_MAX_BYTES) -> None:
    """Check records against the schema and every rule; exit 1 if any error finding."""
    _, text, code = _run(files, fmt, full=False, max_size=max_size)
    sys.stdout.write(text)
    raise typer.Exit(code)


@app.command()
def assess(
    files: FilesArg,
    fmt: FormatOpt = Format.text,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Also write the assessment JSON to this file.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace the --output file if it exists.")] = False,
    max_size: MaxSizeOpt = DEFAULT_MAX_BYTES,
    requirements: Annotated[
        Optional[Path],
        typer.Option("--requirements", "-r", help="Judge every offer against this buyer requirements profile; exit 0 only if some offer meets every requirement."),
    ] = None,
) -> None:
    """Give each claim's verdict, the findings behind it, and the derived figures."""
    from .output import OutputRefused, write_atomic
    from .reporters import REPORTER_BY_NAME

    results, text, code = _run(files, fmt, full=True, max_size=max_size)
    json_text = None
    if requirements is not None:
        from . import fit_report

        try:
            comparison = fit_report.judge(results, str(requirements))
        except fit_report.FitCannotRun as exc:
            raise _fail(str(exc)) from None
        text = fit_report.render(results, comparison, fmt.value, text)
        json_text, code = fit_report.render(results, comparison, "json", ""), fit_report.exit_code(comparison)
    if output is not None:
        try:
            write_atomic(output, (json_text or REPORTER_BY_NAME["json"](results, True)).encode(), force=force)
        except (OutputRefused, OSError) as exc:
            raise _fail(str(exc)) from None
    sys.stdout.write(text)
    raise typer.Exit(code)


@app.command()
def rules(
    code: Annotated[Optional[str], typer.Argument(help="Explain one rule.")] = None,
    fmt: FormatOpt = Format.text,
) -> None:
    """List the rule catalog, or explain one rule."""
    from .rules import REGISTRY, RULE_CATALOG_VERSION, lookup

    if code is not None:
        found = lookup(code)
        if found is None:
            raise _fail(f"no rule named {code!r}; `sdeval rules` lists them")
        selected = [found]
    else:
        selected = list(REGISTRY.values())
    if fmt is Format.json:
        doc = {"rule_catalog_version": RULE_CATALOG_VERSION, "rules": [r.as_dict() for r in selected]}
        typer.echo(json.dumps(doc, indent=2, ensure_ascii=False))
        return
    if code is None:
        width = max(len(r.code) for r in selected)
        typer.echo(f"sdeval rule catalog {RULE_CATALOG_VERSION} ({len(selected)} rules)")
        for r in selected:
            typer.echo(f"{r.code.ljust(width)}  {r.severity:<7}  {r.title}")
        typer.echo("\n`sdeval rules CODE` explains one.")
        return
    r = selected[0]
    typer.echo(
        f"{r.code} ({r.severity})\n{r.title}\n\nWhy it matters:\n  {r.rationale}\n\n"
        f"Fails:\n  {r.failing_example}\nPasses:\n  {r.passing_example}\n\nReference:\n  {r.reference}"
    )


@app.command()
def schema(
    generate: Annotated[
        bool, typer.Option("--generate", help="Print the schema generated from this version's models (for maintainers).")
    ] = False,
) -> None:
    """Print the evidence-record JSON Schema."""
    from .resources import schema_path

    if generate:
        from .schema import record_schema, schema_text

        sys.stdout.write(schema_text(record_schema()))
        return
    try:
        sys.stdout.write(schema_path().read_text(encoding="utf-8"))
    except OSError as exc:
        raise _fail(str(exc)) from None


@app.command()
def init(
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the form here instead of standard output.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace the output file if it exists.")] = False,
    requirements: Annotated[bool, typer.Option("--requirements", help="Write a blank buyer requirements profile instead.")] = False,
) -> None:
    """Write a blank evidence form (or requirements profile) in YAML, every field explained."""
    from .blank_form import blank_form, blank_requirements
    from .output import OutputRefused, write_atomic

    text = blank_requirements() if requirements else blank_form()
    if output is None:
        sys.stdout.write(text)
        return
    try:
        write_atomic(output, text.encode(), force=force)
    except (OutputRefused, OSError) as exc:
        raise _fail(str(exc)) from None
    typer.echo(f"wrote {output}", err=True)


@app.command()
def form(
    output: Annotated[Path, typer.Option("--output", "-o", help="Where to write the page.")] = Path("evidence-form.html"),
    force: Annotated[bool, typer.Option("--force", help="Replace the output file if it exists.")] = False,
) -> None:
    """Write the evidence form: one HTML file to fill a record in a browser, offline."""
    from .form.page import render_form
    from .output import OutputRefused, write_atomic

    try:
        write_atomic(output, render_form().encode("utf-8"), force=force)
    except (OutputRefused, OSError) as exc:
        raise _fail(str(exc)) from None
    typer.echo(f"wrote {output}", err=True)


class Arrangement(str, Enum):
    speculative = "speculative"
    target_only = "target-only"


@app.command("import")
def import_(
    fmt: Annotated[str, typer.Argument(metavar="FORMAT", help="vllm-responses, vllm-metrics (BEFORE AFTER), vllm-bench, guidellm, aiperf, sglang-bench or trtllm-bench.")],
    files: Annotated[list[str], typer.Argument(metavar="FILE...", help="The tool's output file(s).")],
    run_id: Annotated[Optional[str], typer.Option("--run-id", help="Id of the imported run (several runs get -1, -2, ...). Default: the file name.")] = None,
    configuration: Annotated[Optional[str], typer.Option("--configuration", help="Id of the configuration the run used. Default: the record's only one with --into, else 'imported'.")] = None,
    arrangement: Annotated[Optional[Arrangement], typer.Option("--arrangement", help="speculative or target-only; needed when the file carries no speculative-decoding counts.")] = None,
    into: Annotated[Optional[str], typer.Option("--into", metavar="RECORD", help="Add the runs to this evidence record (written to -o, or in place with --in-place).")] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write here instead of standard output.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace the -o file if it exists.")] = False,
    in_place: Annotated[bool, typer.Option("--in-place", help="With --into: replace RECORD itself, atomically.")] = False,
    skip_bad_lines: Annotated[bool, typer.Option("--skip-bad-lines", help="vllm-responses: skip malformed lines and say how many.")] = False,
) -> None:
    """Import runs from vLLM, vllm bench, guidellm, AIPerf, SGLang bench or trtllm-bench output into the record's format."""
    from .importers import ImportProblem
    from .importers.command import execute

    try:
        text, messages = execute(
            fmt, files, run_id=run_id, configuration=configuration, arrangement=arrangement.value if arrangement else None,
            into=into, output=output, force=force, in_place=in_place, skip_bad_lines=skip_bad_lines,
        )
    except ImportProblem as exc:
        raise _fail(str(exc)) from None
    for message in messages:
        typer.echo(f"sdeval: {message}", err=True)
    sys.stdout.write(text)


@app.command()
def render(
    files: FilesArg,
    output: Annotated[Path, typer.Option("--output", "-o", help="The PDF to write.")],
    force: Annotated[bool, typer.Option("--force", help="Replace the output file if it exists.")] = False,
    key: Annotated[Optional[Path], typer.Option("--key", help="Signing key (PEM, RSA).")] = None,
    cert: Annotated[Optional[Path], typer.Option("--cert", help="Certificate for --key (PEM).")] = None,
    pkcs12: Annotated[Optional[Path], typer.Option("--pkcs12", help="Signing key and certificate in one PKCS#12 file.")] = None,
    password_file: Annotated[Optional[Path], typer.Option("--password-file", help="File holding the key's password (or set SDEVAL_SIGNING_PASSWORD).")] = None,
    max_size: MaxSizeOpt = DEFAULT_MAX_BYTES,
    requirements: Annotated[
        Optional[Path],
        typer.Option("--requirements", "-r", help="Add the buyer requirements x offers table and chart, and attach this profile; exit 0 only if some offer meets every requirement."),
    ] = None,
) -> None:
    """Write the assessment as a PDF/A-3b report with the inputs attached; signed with --key/--cert or --pkcs12,
    otherwise marked UNSIGNED DRAFT. Exit 1 if any error finding (with --requirements: if no offer meets every requirement)."""
    from .pdf.writer import PdfWriter

    # Started first: where it can, the writer imports WeasyPrint in its own process meanwhile.
    with PdfWriter() as writer:
        from .pdf.report import ReportProblem, signing_options, write_report

        if (problem := signing_options(key, cert, pkcs12)) is not None:
            raise _fail(problem)
        try:
            written = write_report(
                _load_all(files, max_size), output, force=force, key=key, cert=cert, pkcs12=pkcs12,
                password_file=password_file, requirements=requirements, max_size=max_size, writer=writer,
            )
        except ReportProblem as exc:
            raise _fail(str(exc)) from None
    for warning in written.warnings:
        typer.echo(f"sdeval: {warning}", err=True)
    state = f"signed by {written.signer}" if written.signer else "UNSIGNED DRAFT"
    typer.echo(f"wrote {output} ({written.size:,} bytes, {state})", err=True)
    raise typer.Exit(written.exit_code)


@app.command()
def keygen(
    directory: Annotated[Path, typer.Argument(help="Directory for key.pem (mode 0600) and cert.pem.", metavar="DIR")],
    name: Annotated[str, typer.Option("--name", help="Common name in the certificate.")] = "sdeval trial assessor",
    force: Annotated[bool, typer.Option("--force", help="Replace an existing key.pem / cert.pem.")] = False,
) -> None:
    """Create a self-signed RSA assessor identity for trials (not for production signing)."""
    from .output import OutputRefused
    from .pdf.signing import SigningProblem, keygen as make_identity

    try:
        key_path, cert_path = make_identity(directory, common_name=name, force=force)
    except (SigningProblem, OutputRefused) as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:
        raise _fail(f"{directory}: cannot write ({exc.strerror or exc})") from None
    typer.echo(f"wrote {key_path} (private, mode 0600) and {cert_path}", err=True)


@app.command()
def verify(
    report: Annotated[Path, typer.Argument(help="A PDF written by `sdeval render`.", metavar="REPORT.pdf")],
    trust: Annotated[Optional[Path], typer.Option("--trust", help="Certificate (PEM) the signer must chain to.")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Fail when a newer rule catalog assesses the inputs differently.")] = False,
) -> None:
    """Check a signed report: signature over the whole file, attachment hashes, and that re-assessing
    the embedded inputs reproduces the embedded assessment. Exit 0 all pass, 1 a check fails, 2 not a report."""
    from .pdf.verify import NotAReport, verify_report

    try:
        outcome = verify_report(report, trust=trust, strict=strict)
    except NotAReport as exc:
        raise _fail(str(exc)) from None
    sys.stdout.write(outcome.text())
    raise typer.Exit(EXIT_OK if outcome.passed else EXIT_FINDINGS)


# `sdeval archive ...` (evaluator/archive/cli.py), imported only when an archive command runs.
app.add_typer(lazy_typer("evaluator.archive.cli:app", help="The auditor's archive of signed reports: init, add, list, show, extract, verify, rejudge, log."), name="archive")


def main() -> None:
    """Console entry point: no input may produce a traceback."""
    try:
        app()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        typer.echo("sdeval: interrupted", err=True)
        sys.exit(EXIT_CANNOT_RUN)
    except Exception as exc:  # a bug in sdeval, reported in one line, never a traceback
        typer.echo(f"sdeval: internal error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(EXIT_CANNOT_RUN)
