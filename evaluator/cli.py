"""The `sdeval` command line: thin wiring over the pipeline (run.py) -> reporters and the PDF.

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
from .archive.lazy import lazy_typer
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
        from .record import RECORD_VERSION
        from .rules import RULE_CATALOG_VERSION

        typer.echo(f"sdeval {__version__} (record format {RECORD_VERSION}, rule catalog {RULE_CATALOG_VERSION})")
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
TrustOpt = Annotated[
    Optional[list[Path]],
    typer.Option("--trust", metavar="CERT", help="Trust anchor: a file of one or more PEM certificates, or a folder of them; repeatable. Default: the paths in SDEVAL_TRUST."),
]


def _assessed(files: list[str], max_size: int, requirements: Path | None = None):
    """The pipeline (evaluator/run.py) over the command line's files, or exit 2 in one line."""
    from .run import CannotRun, assess_paths

    try:
        return assess_paths(files, profile=None if requirements is None else str(requirements), max_size=max_size)
    except CannotRun as exc:
        raise _fail(str(exc)) from None


@app.command()
def validate(files: FilesArg, fmt: FormatOpt = Format.text, max_size: MaxSizeOpt = DEFAULT_MAX_BYTES) -> None:
    """Check records against the schema and every rule; exit 1 if any error finding."""
    from .reporters import REPORTER_BY_NAME

    assessed = _assessed(files, max_size)
    sys.stdout.write(REPORTER_BY_NAME[fmt.value](assessed.results, False, None))
    raise typer.Exit(assessed.exit_code)


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

    assessed = _assessed(files, max_size, requirements)
    text = REPORTER_BY_NAME[fmt.value](assessed.results, True, assessed.comparison)
    if output is not None:
        json_text = text if fmt is Format.json else REPORTER_BY_NAME["json"](assessed.results, True, assessed.comparison)
        try:
            write_atomic(output, json_text.encode(), force=force)
        except (OutputRefused, OSError) as exc:
            raise _fail(str(exc)) from None
    sys.stdout.write(text)
    raise typer.Exit(assessed.exit_code)


@app.command()
def rules(
    code: Annotated[Optional[str], typer.Argument(help="Explain one rule.")] = None,
    fmt: FormatOpt = Format.text,
) -> None:
    """List the rule catalog, or explain one rule."""
    from .rules import REGISTRY, RULE_CATALOG_VERSION, catalog_document, lookup

    if code is not None:
        found = lookup(code)
        if found is None:
            raise _fail(f"no rule named {code!r}; `sdeval rules` lists them")
        selected = [found]
    else:
        selected = list(REGISTRY.values())
    doc = catalog_document(selected)
    if fmt is Format.json:
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
        + (f"\n\nWhat to ask the vendor:\n  {r.ask}" if r.ask else "")
    )
    if r.code in ("claim-mismatch", "claim-basis-undefined", "counts-missing"):
        typer.echo("\nHow each claim kind is recomputed, by what it counts:")
        for f in doc["claim_formulas"]:
            typer.echo(f"  {f['kind']:<18} {f['counted'] or 'not stated':<18} {f['formula']}")


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
    from .form.blank import blank_form, blank_requirements
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
    fmt: Annotated[str, typer.Argument(metavar="FORMAT", help="vllm-responses, vllm-metrics or llamacpp-metrics (BEFORE AFTER), vllm-bench, guidellm, aiperf, sglang-bench, sglang-responses or trtllm-bench.")],
    files: Annotated[list[str], typer.Argument(metavar="FILE...", help="The tool's output file(s).")],
    run_id: Annotated[Optional[str], typer.Option("--run-id", help="Id of the imported run (several runs get -1, -2, ...). Default: the file name.")] = None,
    configuration: Annotated[Optional[str], typer.Option("--configuration", help="Id of the configuration the run used. Default: the record's only one with --into, else 'imported'.")] = None,
    arrangement: Annotated[Optional[Arrangement], typer.Option("--arrangement", help="speculative or target-only; needed when the file carries no speculative-decoding counts.")] = None,
    into: Annotated[Optional[str], typer.Option("--into", metavar="RECORD", help="Add the runs to this evidence record (written to -o, or in place with --in-place).")] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write here instead of standard output.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace the -o file if it exists.")] = False,
    in_place: Annotated[bool, typer.Option("--in-place", help="With --into: replace RECORD itself, atomically.")] = False,
    skip_bad_lines: Annotated[bool, typer.Option("--skip-bad-lines", help="vllm-responses: skip malformed lines and say how many.")] = False,
    metrics: Annotated[
        Optional[tuple[str, str]],
        typer.Option("--metrics", metavar="BEFORE AFTER", help="vllm-bench: the server's /metrics scraped just before and just after the benchmark, to settle whose requests its counters cover."),
    ] = None,
) -> None:
    """Import runs from vLLM, vllm bench, guidellm, AIPerf, SGLang, llama.cpp or trtllm-bench output into the record's format."""
    from .importers import ImportProblem
    from .importers.command import execute

    try:
        text, messages = execute(
            fmt, files, run_id=run_id, configuration=configuration, arrangement=arrangement.value if arrangement else None,
            into=into, output=output, force=force, in_place=in_place, skip_bad_lines=skip_bad_lines,
            metrics=list(metrics) if metrics else None,
        )
    except ImportProblem as exc:
        raise _fail(str(exc)) from None
    for message in messages:
        typer.echo(f"sdeval: {message}", err=True)
    sys.stdout.write(text)


class ClaimKind(str, Enum):
    output_throughput = "output-throughput"
    speedup = "speedup"
    latency = "latency"
    acceptance_rate = "acceptance-rate"
    acceptance_length = "acceptance-length"


@app.command()
def claim(
    record: Annotated[str, typer.Argument(metavar="RECORD", help="The evidence record (JSON or YAML) holding the runs.")],
    run: Annotated[str, typer.Option("--run", help="Id of the run the claim rests on.")],
    kind: Annotated[ClaimKind, typer.Option("--kind", help="What is claimed.")],
    baseline: Annotated[Optional[str], typer.Option("--baseline", help="Id of the run it is compared with (needed for a speedup).")] = None,
    latency_metric: Annotated[Optional[str], typer.Option("--latency-metric", help="For --kind latency: ttft, tpot, itl or e2e.")] = None,
    percentile: Annotated[Optional[str], typer.Option("--percentile", help="For --kind latency: mean, p50, p90, p95 or p99.")] = None,
    task: Annotated[Optional[str], typer.Option("--task", help="The task the claim is stated for; must be the run's.")] = None,
    claim_id: Annotated[Optional[str], typer.Option("--id", help="Id of the new claim. Default: KIND-RUN.")] = None,
    text: Annotated[Optional[str], typer.Option("--text", help="The claim's wording, instead of the generated one.")] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the record with the claim added here.")] = None,
    in_place: Annotated[bool, typer.Option("--in-place", help="Add the claim to RECORD itself, atomically.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace the -o file if it exists.")] = False,
) -> None:
    """Add a claim whose value is computed from the runs' counts, with load, scope and task taken from the run.
    Refuses, writing nothing, a baseline not on equal terms or a run that lacks the counts."""
    from .importers import ImportProblem
    from .importers.claims import execute

    try:
        text_out, messages = execute(
            record, run_id=run, baseline_id=baseline, kind=kind.value, latency_metric=latency_metric,
            percentile=percentile, task=task, claim_id=claim_id, text=text, output=output, in_place=in_place, force=force,
        )
    except ImportProblem as exc:
        raise _fail(str(exc)) from None
    for message in messages:
        typer.echo(f"sdeval: {message}", err=True)
    sys.stdout.write(text_out)


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
    tsa: Annotated[Optional[str], typer.Option("--tsa", metavar="URL", help="Add an RFC 3161 signature timestamp from this time-stamping authority (PAdES B-T).")] = None,
    ltv: Annotated[bool, typer.Option("--ltv", help="With --tsa: embed the validation data (certificate chains, revocation data) and add a document timestamp (PAdES B-LTA).")] = False,
    trust: Annotated[
        Optional[list[Path]],
        typer.Option("--trust", metavar="CERT", help="With --ltv: root certificates the signer's and the authority's chains end at (PEM file or folder; repeatable; default SDEVAL_TRUST)."),
    ] = None,
) -> None:
    """Write the assessment as a PDF/A-3b report with the inputs attached; signed with --key/--cert or --pkcs12,
    otherwise marked UNSIGNED DRAFT. Exit 1 if any error finding (with --requirements: if no offer meets every requirement)."""
    from .pdf.writer import PdfWriter

    # Started first: where it can, the writer imports WeasyPrint in its own process meanwhile.
    with PdfWriter() as writer:
        from .pdf.report import ReportProblem, refuse_output, signing_options, start_signing, timestamping_options, write_report

        problem = signing_options(key, cert, pkcs12) or timestamping_options(tsa, ltv, key is not None or pkcs12 is not None)
        if problem is None and trust and not ltv:
            problem = "--trust on render names the roots for --ltv; it does nothing without --ltv"
        if problem is not None:
            raise _fail(problem)
        timestamping = None
        if tsa is not None:
            from .pdf.signing import Timestamping

            # --ltv collects the chains up to these roots (and any self-signed certificate it is given).
            anchors = _trust_anchors(trust) if ltv else None
            timestamping = Timestamping(tsa, ltv=ltv, roots=tuple(a.der for a in anchors.anchors) if anchors else ())
        try:
            refuse_output(output, files + ([str(requirements)] if requirements is not None else []), force=force)
            with start_signing(key=key, cert=cert, pkcs12=pkcs12, password_file=password_file, timestamping=timestamping) as signing:
                assessed = _assessed(files, max_size, requirements)
                written = write_report(assessed, output, force=force, signing=signing, writer=writer)
        except ReportProblem as exc:
            raise _fail(str(exc)) from None
    for warning in written.warnings:
        typer.echo(f"sdeval: {warning}", err=True)
    state = f"signed by {written.signer}" if written.signer else "UNSIGNED DRAFT"
    if written.signer and tsa:
        state += ", timestamped, with long-term validation data" if ltv else ", timestamped"
    typer.echo(f"wrote {output} ({written.size:,} bytes, {state})", err=True)
    raise typer.Exit(assessed.exit_code)


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
    reports: Annotated[list[Path], typer.Argument(help="Reports written by `sdeval render`, or folders searched for *.pdf.", metavar="REPORT_OR_FOLDER...")],
    trust: TrustOpt = None,
    strict: Annotated[bool, typer.Option("--strict", help="Fail when a newer rule catalog assesses the inputs differently.")] = False,
    fmt: FormatOpt = Format.text,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1, help="Processes for many reports (default: one per core).")] = None,
) -> None:
    """Check signed reports: the signature over the whole file, any trusted timestamp, that the signer chains to
    a trust anchor, the attachment hashes, and that re-assessing the embedded inputs reproduces the embedded
    assessment. One report: every check; several or a folder: one line each and a total.
    Exit 0 every report verifies (trust included), 1 a check fails or the signer is not established, 2 cannot run
    (unreadable trust anchors, a file that is not a report)."""
    from .pdf import verify_many as many

    anchors = _trust_anchors(trust)
    try:
        paths = many.report_paths(reports)
    except many.NoReports as exc:
        raise _fail(str(exc)) from None
    single = len(reports) == 1 and not reports[0].is_dir()
    if single:
        outcomes = [many.verify_one(paths[0], trust=anchors, strict=strict)]
        if outcomes[0].problem and fmt is Format.text:
            raise _fail(outcomes[0].problem)
    else:
        outcomes = many.verify_many(paths, trust=anchors, strict=strict, workers=jobs)
    if fmt is Format.json:
        typer.echo(json.dumps(many.as_json(outcomes), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(outcomes[0].text() if single else many.summary_text(outcomes))
    raise typer.Exit(many.exit_code(outcomes))


def _trust_anchors(paths: list[Path] | None):
    """--trust, else SDEVAL_TRUST, else None; unreadable anchors stop the command (exit 2)."""
    from .pdf.trust import TrustAnchors, TrustProblem

    try:
        return TrustAnchors.from_options(paths)
    except TrustProblem as exc:
        raise _fail(str(exc)) from None


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
