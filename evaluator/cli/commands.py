"""The `sdeval` command line: thin wiring over the pipeline (pipeline.py) -> reporters and the PDF.

Exit codes: 0 no error finding; 1 at least one error finding (parse and schema
included); 2 the command could not run (missing or unreadable file, bad usage,
internal error). Heavy modules (WeasyPrint, pyHanko) are imported only inside the
commands that render or sign, so `validate` starts fast.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from typer.core import TyperCommand

from .. import __version__
from .._infra.safe_text import json_shown, shown
from ..engine.loader import DEFAULT_MAX_BYTES
from ..importers.registry import formats_help
from ..present import FORMATS as REPORT_FORMATS
from .choices import Format
from .exits import EXIT_CANNOT_RUN, EXIT_INTERRUPTED, EXIT_OK, fail, fail_each, typer_app
from .lazy import lazy_typer


class Command(TyperCommand):
    """Typer's command with help written for people: `FILE...` in the usage line, no Python
    types beside arguments, a plain word (PATH, TEXT, [a|b]) beside each option, and a bad
    choice answered as "'xml' is not one of: text, json" rather than in a validator's words."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if param.param_type_name == "option" and param.metavar is None and not getattr(param, "is_flag", False):
                param.metavar = _plain_type(param)

    def collect_usage_pieces(self, ctx) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = _argument_name(param)
                pieces.append(name if param.required else f"[{name}]")
        return pieces

    def format_options(self, ctx, formatter) -> None:
        arguments = [(_argument_name(p), getattr(p, "help", None) or "") for p in self.get_params(ctx) if p.param_type_name == "argument"]
        options = [r for p in self.get_params(ctx) if p.param_type_name == "option" and (r := p.get_help_record(ctx))]
        if arguments:
            with formatter.section("Arguments"):
                formatter.write_dl(arguments)
        if options:
            with formatter.section("Options"):
                formatter.write_dl(options)

    def parse_args(self, ctx, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except typer.BadParameter as exc:
            exc.message = _plain_error(exc.message)
            raise


def _argument_name(param) -> str:
    name = param.metavar or param.name.upper()
    return name + ("..." if param.nargs != 1 and not name.endswith("...") else "")


def _plain_type(param) -> str:
    shown = param.display_type(None).strip("<>") if param.type_descriptor.is_choice else ""
    if shown:
        return f"[{shown}]"
    if param.type_descriptor.is_path:
        return "PATH"
    return {"int": "INTEGER", "float": "NUMBER"}.get(param.bare_type(), "TEXT")


def _plain_error(message: str) -> str:
    message = message.removeprefix("Value error, ")
    if " is not one of " in message:
        given, choices = message.rstrip(".").split(" is not one of ", 1)
        return f"{given} is not one of: {choices.replace(chr(39), '')}."
    return message


app = typer_app(
    "sdeval",
    "Decide whether a speculative-decoding offer's claims are backed by evidence.",
    add_completion=True,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)


def _command(name: str | None = None, *, short: str):
    """Register a command with a short summary for `sdeval --help` that is never cut off."""
    return app.command(name, cls=Command, short_help=short)


# validate and assess offer every reporter's format (one row in present.FORMATS each).
# (Built from the registry, so mypy cannot list its members; FindingsFormat("text") names one by value.)
FindingsFormat = Enum("FindingsFormat", {name: name for name in REPORT_FORMATS}, type=str)  # type: ignore[misc]
_TEXT = FindingsFormat("text")  # the default


_fail = fail_each


def _out(text: str) -> None:
    """Standard output of a text format: reporters escape each input string in its place, and
    this keeps any they missed from reaching the terminal raw (JSON, CSV and YAML pass as data)."""
    from ..present.width import fit, output_width

    sys.stdout.write(fit(shown(text, lines=True), output_width()))


def _finish(assessed) -> typer.Exit:
    """The command's exit status; a non-zero one is explained on standard error in one line."""
    reason = assessed.exit_reason()
    if reason is not None:
        typer.echo(f"sdeval: {shown(reason)}", err=True)
    return typer.Exit(assessed.exit_code)


def _version(value: bool) -> None:
    if value:
        from .. import MEASURED_RECORD_VERSION, READ_RECORD_VERSIONS, RECORD_VERSION, RULE_CATALOG_VERSION

        reads = f"{READ_RECORD_VERSIONS[0]}-{READ_RECORD_VERSIONS[-1]}"
        typer.echo(
            f"sdeval {__version__} (reads records {reads}, writes {RECORD_VERSION}; "
            f"measure writes {MEASURED_RECORD_VERSION}; rule catalog {RULE_CATALOG_VERSION})"
        )
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")] = False,
) -> None:
    pass


FilesArg = Annotated[list[str], typer.Argument(help="Evidence records (JSON or YAML); '-' reads standard input.", metavar="FILE")]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
FindingsFormatOpt = Annotated[
    FindingsFormat,
    typer.Option("--format", "-f", help="Output format; " + ", ".join(n for n in REPORT_FORMATS if n not in ("text", "json")) + " are for CI."),
]
MaxSizeOpt = Annotated[int, typer.Option("--max-size", help="Largest input file accepted, in bytes.", metavar="BYTES")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Replace the output file if it exists.")]
ReferencesOpt = Annotated[
    Optional[list[Path]],
    typer.Option(
        "--references",
        metavar="FILE",
        help="Set each claim beside the independent results at its key in this references file (`sdeval reference import`); repeatable. Never fetched.",
    ),
]
TrustOpt = Annotated[
    Optional[list[Path]],
    typer.Option(
        "--trust",
        metavar="CERT",
        help="Trust anchor: a file of one or more PEM certificates, or a folder of them; repeatable. Default: the paths in SDEVAL_TRUST.",
    ),
]


def _assessed(
    files: list[str],
    max_size: int,
    requirements: Path | None = None,
    *,
    profiles_allowed: bool = False,
    for_report: bool = False,
    references: list[Path] | None = None,
):
    """The pipeline (evaluator/pipeline.py) over the command line's files, or exit 2 in one line."""
    from ..pipeline import CannotRun, assess_paths

    if max_size < 1:
        raise _fail(f"--max-size {max_size}: give a number of bytes of at least 1")
    try:
        return assess_paths(
            files,
            profile=None if requirements is None else str(requirements),
            max_size=max_size,
            profiles_allowed=profiles_allowed,
            for_report=for_report,
            references=[str(r) for r in references or []],
        )
    except CannotRun as exc:
        raise _fail(str(exc)) from None


def _write(output: Path, data: bytes, force: bool) -> None:
    """An output file, written atomically; refused (exit 2) over a directory or, without --force, a file."""
    from .._infra.atomic import OutputRefused, write_atomic

    try:
        write_atomic(output, data, force=force)
    except OutputRefused as exc:
        raise _fail(str(exc)) from None


@_command(short="Check records or a requirements profile: schema and every rule.")
def validate(files: FilesArg, fmt: FindingsFormatOpt = _TEXT, max_size: MaxSizeOpt = DEFAULT_MAX_BYTES) -> None:
    """Check evidence records against the schema and every rule; exit 1 if any error finding.
    A requirements profile given here is recognised by its content and checked as a profile."""
    from ..present import REPORTER_BY_NAME

    assessed = _assessed(files, max_size, profiles_allowed=True)
    text = REPORTER_BY_NAME[fmt.value](assessed.results, False, None)
    if fmt.value == "text":
        _out(text)
    else:
        sys.stdout.write(text)
    raise typer.Exit(assessed.exit_code)


@_command(short="Each claim's verdict and why; with -r, judge a buyer's profile.")
def assess(
    files: FilesArg,
    fmt: FindingsFormatOpt = _TEXT,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Also write the assessment JSON to this file.", metavar="FILE")] = None,
    force: ForceOpt = False,
    max_size: MaxSizeOpt = DEFAULT_MAX_BYTES,
    requirements: Annotated[
        Optional[Path],
        typer.Option(
            "--requirements",
            "-r",
            metavar="PROFILE",
            help="Judge every offer against this buyer requirements profile; exit 0 only if some offer meets every requirement.",
        ),
    ] = None,
    references: ReferencesOpt = None,
) -> None:
    """Give each claim's verdict, the findings behind it, and the derived figures. Exit 1 if any
    error finding (with --requirements: if no offer meets every requirement), saying why."""
    from .._infra.atomic import refuse_output
    from ..present import REPORTER_BY_NAME

    if output is not None and (problem := refuse_output(output, force=force)):
        raise _fail(problem)
    assessed = _assessed(files, max_size, requirements, references=references)
    text = REPORTER_BY_NAME[fmt.value](assessed.results, True, assessed.comparison)
    if assessed.reference_comparison is not None:
        text = _with_references(fmt.value, text, assessed)
    if output is not None:
        json_text = (
            text if fmt.value == "json" else _with_references("json", REPORTER_BY_NAME["json"](assessed.results, True, assessed.comparison), assessed)
        )
        _write(output, json_text.encode(), force)
    if fmt.value == "text":
        _out(text)
    else:
        sys.stdout.write(text)
    raise _finish(assessed)


def _with_references(fmt: str, text: str, assessed) -> str:
    """The JSON document gains `references` (as a report embeds it); the text the sources compared."""
    if assessed.reference_comparison is None:
        return text
    if fmt == "json":
        return json_shown(json.dumps(assessed.document, indent=2, ensure_ascii=False)) + "\n"
    if fmt == "text":
        from ..present.references_text import sources_block

        return text + "\n" + sources_block(assessed.reference_comparison)
    return text


@_command(short="List the rule catalog, or explain one rule.")
def rules(
    code: Annotated[Optional[str], typer.Argument(help="Explain one rule.")] = None,
    fmt: FormatOpt = Format.text,
) -> None:
    """List the rule catalog, or explain one rule."""
    from ..rules import REGISTRY, RULE_CATALOG_VERSION, catalog_document, lookup

    if code is not None:
        found = lookup(code)
        if found is None:
            from difflib import get_close_matches

            close = get_close_matches(code, list(REGISTRY), n=1, cutoff=0.7)
            meant = f"; did you mean {close[0]!r}?" if close else ""
            raise _fail(f"no rule named {code!r}{meant} (`sdeval rules` lists them)")
        selected = [found]
    else:
        selected = list(REGISTRY.values())
    doc = catalog_document(selected)
    if fmt is Format.json:
        typer.echo(json.dumps(doc, indent=2, ensure_ascii=False))
        return
    if code is None:
        width = max(len(r.code) for r in selected)
        lines = [f"sdeval rule catalog {RULE_CATALOG_VERSION} ({len(selected)} rules)"]
        lines += [f"{r.code.ljust(width)}  {r.severity:<7}  {r.title}" for r in selected]
        _out("\n".join(lines) + "\n\n`sdeval rules CODE` explains one.\n")
        return
    from ..rules.snippets import passing_snippet

    r = selected[0]
    text = (
        f"{r.code} ({r.severity})\n{r.title}\n\nWhy it matters:\n  {r.rationale}\n\nFails:\n  {r.failing_example}\nPasses:\n  {r.passing_example}\n"
    )
    if (snippet := passing_snippet(r.code)) is not None:
        where, fields = snippet
        text += f"\nThe fields it reads, in a record it passes ({where}):\n" + "".join(f"    {line}\n" for line in fields.splitlines())
    text += f"\nReference:\n  {r.reference}\n" + (f"\nWhat to ask the vendor:\n  {r.ask}\n" if r.ask else "")
    if r.code in ("claim-mismatch", "claim-basis-undefined", "counts-missing"):
        text += "\nHow each claim kind is recomputed, by what it counts:\n"
        text += "".join(f"  {f['kind']:<18} {f['counted'] or 'not stated':<18} {f['formula']}\n" for f in doc["claim_formulas"])
        text += "\nHow the form a claim is written in changes it (record 1.2):\n"
        text += "".join(f"  {f['form']:<44} {f['formula']}\n" for f in doc["claim_forms"])
    _out(text)


@_command(short="Print the JSON Schema of records (or requirements profiles).")
def schema(
    output: Annotated[
        Optional[Path], typer.Option("--output", "-o", help="Write the schema here instead of standard output.", metavar="FILE")
    ] = None,
    force: ForceOpt = False,
    requirements: Annotated[bool, typer.Option("--requirements", help="The requirements profile's schema instead.")] = False,
    generate: Annotated[bool, typer.Option("--generate", help="Print the schema generated from this version's models (for maintainers).")] = False,
) -> None:
    """Print the evidence-record JSON Schema (with --requirements, the requirements profile's)."""
    from .._infra.resources import schema_path

    name = "requirements.schema.json" if requirements else "evidence-record.schema.json"
    if generate:
        from ..form.schemas import SCHEMAS, schema_text

        text = schema_text(SCHEMAS[name]())
    else:
        try:
            text = schema_path(name).read_text(encoding="utf-8")
        except OSError as exc:
            raise _fail(str(exc)) from None
    if output is None:
        sys.stdout.write(text)
        return
    _write(output, text.encode("utf-8"), force)
    typer.echo(f"wrote {output}", err=True)


@_command(short="Write a blank record or requirements profile in YAML.")
def init(
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the form here instead of standard output.", metavar="FILE")] = None,
    force: ForceOpt = False,
    requirements: Annotated[bool, typer.Option("--requirements", help="Write a blank buyer requirements profile instead.")] = False,
    vendor: Annotated[
        bool, typer.Option("--vendor", help="Write a vendor's starting record instead: two configurations that import --into and claim take.")
    ] = False,
) -> None:
    """Write a blank evidence form (or requirements profile) in YAML, every field explained."""
    from ..form.blank import blank_form, blank_requirements, vendor_skeleton

    if requirements and vendor:
        raise _fail("give --requirements or --vendor, not both")
    text = blank_requirements() if requirements else vendor_skeleton() if vendor else blank_form()
    if output is None:
        sys.stdout.write(text)
        return
    _write(output, text.encode(), force)
    typer.echo(f"wrote {output}", err=True)


@_command(short="Write the evidence form: one HTML page that works offline.")
def form(
    output: Annotated[Path, typer.Option("--output", "-o", help="Where to write the page.", metavar="FILE")] = Path("evidence-form.html"),
    force: ForceOpt = False,
) -> None:
    """Write the evidence form: one HTML file to fill a record in a browser, offline."""
    from ..form.page import render_form

    _write(output, render_form().encode("utf-8"), force)
    typer.echo(f"wrote {output}", err=True)


@_command(short="Serve the form on 127.0.0.1, assessed live by sdeval's own rules.")
def serve(
    record: Annotated[
        Optional[Path], typer.Argument(metavar="[RECORD]", help="A record to start from (JSON or YAML); it is read, never written.")
    ] = None,
    requirements: Annotated[
        Optional[Path],
        typer.Option(
            "--requirements", "-r", metavar="PROFILE", help="Also judge the record against this buyer requirements profile, read once at start."
        ),
    ] = None,
    port: Annotated[int, typer.Option("--port", help="The port on 127.0.0.1; 0 takes a free one.", metavar="N")] = 0,
    references: ReferencesOpt = None,
) -> None:
    """Serve the evidence form on 127.0.0.1 and assess what is typed with the same pipeline as
    `sdeval assess` (and the profile, with -r): findings, verdicts and asks, live. Only the browser
    given the printed address (with its random token) can use it; Ctrl-C stops it."""
    import socket

    from ..pipeline import CannotRun, assess_paths, check_profile, read_profile, read_references

    if not 0 <= port <= 65535:
        raise _fail(f"--port {port}: give a port from 1 to 65535, or 0 for a free one")
    try:
        # The same checks as `assess`: another kind of file, or a profile that cannot be used, is refused now.
        profile = None if requirements is None else read_profile(str(requirements))
        if profile is not None:
            check_profile(profile)
        independent = tuple((os.path.basename(r.path), r.raw) for r in read_references([str(r) for r in references or []]))
        initial = None
        if record is not None:
            assessed = assess_paths([str(record)])
            loaded = assessed.loaded[0]
            if loaded.problem is not None:
                raise CannotRun(f"{record}: {loaded.problem.where()}{loaded.problem.message}")
            initial = (str(record), loaded.raw.decode("utf-8"))
    except CannotRun as exc:
        raise _fail(str(exc)) from None
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise _fail(f"--port {port}: cannot listen on 127.0.0.1 ({exc.strerror}); give another, or 0 for a free one") from None
    sock.listen(16)
    from ..serve.app import Served, new_token, run

    # Messages name the file given (offer.yaml as the form holds it: offer.form.json), not a generic form.json.
    named = {} if initial is None else {"record_name": f"{Path(initial[0]).stem}.form.json"}
    served = Served(token=new_token(), port=sock.getsockname()[1], profile=profile, initial=initial, references=independent, **named)
    url = f"http://127.0.0.1:{served.port}/?token={served.token}"

    def announce() -> None:
        typer.echo(url)
        typer.echo("sdeval serve: open the address above in your browser; Ctrl-C stops the server", err=True)

    try:
        run(served, sock, announce)
    finally:
        # uvicorn stops on Ctrl-C and raises it again: the exit is then 130, as for every command.
        sock.close()
        typer.echo("sdeval serve: stopped", err=True)


class Arrangement(str, Enum):
    speculative = "speculative"
    target_only = "target-only"


@_command("import", short="Import runs from vLLM, guidellm, AIPerf, SGLang, trtllm-bench.")
def import_(
    fmt: Annotated[str, typer.Argument(metavar="FORMAT", help=formats_help())],
    files: Annotated[list[str], typer.Argument(metavar="FILE", help="The tool's output file(s).")],
    run_id: Annotated[
        Optional[str], typer.Option("--run-id", help="Id of the imported run (several runs get -1, -2, ...). Default: the file name.")
    ] = None,
    configuration: Annotated[
        Optional[str],
        typer.Option("--configuration", help="Id of the configuration the run used. Default: the record's only one with --into, else 'imported'."),
    ] = None,
    arrangement: Annotated[
        Optional[Arrangement],
        typer.Option("--arrangement", help="speculative or target-only; needed when the file carries no speculative-decoding counts."),
    ] = None,
    into: Annotated[
        Optional[str],
        typer.Option("--into", metavar="RECORD", help="Add the runs to this evidence record (written to -o, or in place with --in-place)."),
    ] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write here instead of standard output.", metavar="FILE")] = None,
    force: ForceOpt = False,
    in_place: Annotated[bool, typer.Option("--in-place", help="With --into: replace RECORD itself, atomically.")] = False,
    skip_bad_lines: Annotated[bool, typer.Option("--skip-bad-lines", help="vllm-responses: skip malformed lines and say how many.")] = False,
    engine: Annotated[
        Optional[ImportEngine],
        typer.Option(
            "--engine",
            help="vllm-responses: what sums the lines: python (sdeval's own reader), duckdb (needs sdeval[duckdb]; "
            "slower where measured, see docs/speed.md) or auto (python today); the record is the same. Default: $SDEVAL_IMPORT_ENGINE, else auto.",
            show_default=False,
        ),
    ] = None,
    metrics: Annotated[
        Optional[tuple[str, str]],
        typer.Option(
            "--metrics",
            metavar="BEFORE AFTER",
            help="vllm-bench: the server's /metrics scraped just before and just after the benchmark, to settle whose requests its counters cover.",
        ),
    ] = None,
    goodput: Annotated[
        Optional[str],
        typer.Option(
            "--goodput",
            metavar="LIMITS",
            help="vllm-bench: the limits given to vllm bench serve --goodput (ttft:MS,tpot:MS,e2el:MS), so its request_goodput is kept with them.",
        ),
    ] = None,
    server_metrics: Annotated[
        Optional[str],
        typer.Option(
            "--server-metrics",
            metavar="FILE",
            help="aiperf: the run's server_metrics_export.json, so S, P, A come from the server's counters over the profiling phase and E is checked against them.",
        ),
    ] = None,
    allow_model_mismatch: Annotated[
        bool,
        typer.Option(
            "--allow-model-mismatch",
            help="With --into: import a run whose tool names another model than the configuration's target (assess then reports model-mismatch).",
        ),
    ] = False,
) -> None:
    """Import runs from vLLM, vllm bench, guidellm, AIPerf, SGLang, llama.cpp, trtllm-bench, TensorRT-LLM or OpenAI-compatible responses, LLMPerf, GenAI-Perf or MLPerf Endpoints output into the record's format."""
    from .._infra import progress
    from .._infra.working import working_on
    from ..importers import ImportProblem
    from ..importers.command import execute

    try:
        with working_on(", ".join(files)), progress.allowed(), _import_engine(engine):
            text, messages = execute(
                fmt,
                files,
                run_id=run_id,
                configuration=configuration,
                arrangement=arrangement.value if arrangement else None,
                into=into,
                output=output,
                force=force,
                in_place=in_place,
                skip_bad_lines=skip_bad_lines,
                metrics=list(metrics) if metrics else None,
                goodput=goodput,
                server_metrics=server_metrics,
                allow_model_mismatch=allow_model_mismatch,
            )
    except ImportProblem as exc:
        raise fail(str(exc)) from None  # one line, whatever a parser's message held (a newline, say)
    for message in messages:
        typer.echo(f"sdeval: {shown(message)}", err=True)
    sys.stdout.write(text)


class ImportEngine(str, Enum):
    auto = "auto"
    python = "python"
    duckdb = "duckdb"


@contextmanager
def _import_engine(engine: ImportEngine | None) -> Iterator[None]:
    """--engine as the importers read it (SDEVAL_IMPORT_ENGINE), for this command only."""
    if engine is None:
        yield
        return
    from ..importers.responses_duckdb import ENGINE_ENV

    before = os.environ.get(ENGINE_ENV)
    os.environ[ENGINE_ENV] = engine.value
    try:
        yield
    finally:
        if before is None:
            del os.environ[ENGINE_ENV]
        else:
            os.environ[ENGINE_ENV] = before


class ClaimKind(str, Enum):
    output_throughput = "output-throughput"
    speedup = "speedup"
    latency = "latency"
    acceptance_rate = "acceptance-rate"
    acceptance_length = "acceptance-length"


@_command(short="Add a claim computed from the runs' counts.")
def claim(
    record: Annotated[str, typer.Argument(metavar="RECORD", help="The evidence record (JSON or YAML) holding the runs.")],
    run: Annotated[str, typer.Option("--run", metavar="RUN", help="Id of the run the claim rests on.")],
    kind: Annotated[
        Optional[ClaimKind],
        typer.Option("--kind", metavar="KIND", help="What is claimed: output-throughput, speedup, latency, acceptance-rate or acceptance-length."),
    ] = None,
    baseline: Annotated[
        Optional[str], typer.Option("--baseline", metavar="RUN", help="Id of the run it is compared with (needed for a speedup).")
    ] = None,
    latency_metric: Annotated[
        Optional[str],
        typer.Option("--latency-metric", metavar="METRIC", help="For --kind latency, or a speedup of response time: ttft, tpot, itl or e2e."),
    ] = None,
    percentile: Annotated[
        Optional[str],
        typer.Option("--percentile", metavar="STATISTIC", help="For --kind latency, or a speedup of response time: mean, p50, p90, p95 or p99."),
    ] = None,
    task: Annotated[Optional[str], typer.Option("--task", metavar="TASK", help="The task the claim is stated for; must be the run's.")] = None,
    claim_id: Annotated[Optional[str], typer.Option("--id", metavar="ID", help="Id of the new claim. Default: KIND-RUN.")] = None,
    text: Annotated[Optional[str], typer.Option("--text", metavar="TEXT", help="The claim's wording, instead of the generated one.")] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", metavar="OUT", help="Write the record with the claim added here.")] = None,
    in_place: Annotated[bool, typer.Option("--in-place", help="Add the claim to RECORD itself, atomically.")] = False,
    force: ForceOpt = False,
    conservative: Annotated[
        bool,
        typer.Option(
            "--conservative",
            help="Claim the safe end of the run's measured 95 % interval (record 1.3, from sdeval measure): at least its lower end for a speedup or throughput, at most its upper end for a TTFT or TPOT percentile.",
        ),
    ] = False,
    total_tokens: Annotated[
        bool, typer.Option("--total-tokens", help="Count prompt and output tokens, (I + E) / T (record 1.3; the runs need counts.input_tokens).")
    ] = False,
    per_accelerator: Annotated[
        bool, typer.Option("--per-accelerator", help="A throughput per accelerator: divided by the configuration's hardware.count.")
    ] = False,
    at_accelerator_throughput: Annotated[
        Optional[float],
        typer.Option(
            "--at-accelerator-throughput",
            metavar="X",
            help="Tokens/s per user at matched throughput (record 1.3): each side's fastest run per user among those at X output tokens/s per accelerator or more.",
        ),
    ] = None,
    sweep: Annotated[
        Optional[list[str]],
        typer.Option("--sweep", metavar="RUN", help="With --at-accelerator-throughput: a run of the claim's side to choose from (repeat)."),
    ] = None,
    baseline_sweep: Annotated[
        Optional[list[str]],
        typer.Option(
            "--baseline-sweep", metavar="RUN", help="With --at-accelerator-throughput: a run of the baseline's side to choose from (repeat)."
        ),
    ] = None,
) -> None:
    """Add a claim whose value is computed from the runs' counts, with load, scope and task taken from the run.
    Refuses, writing nothing, a baseline not on equal terms or a run that lacks the counts; then says whether the claim is established and, if not, what stands in its way."""
    from .._infra.working import working_on
    from ..authoring.claims import ClaimForm, execute
    from ..importers import ImportProblem

    if kind is None:  # one line, not click's list of choices on nine tab-indented lines
        raise _fail(f"--kind is missing: say what is claimed, one of {', '.join(k.value for k in ClaimKind)}")
    try:
        with working_on(record):
            text_out, messages = execute(
                record,
                run_id=run,
                baseline_id=baseline,
                kind=kind.value,
                latency_metric=latency_metric,
                percentile=percentile,
                task=task,
                claim_id=claim_id,
                text=text,
                output=output,
                in_place=in_place,
                force=force,
                conservative=conservative,
                form=ClaimForm(total_tokens, per_accelerator, at_accelerator_throughput, tuple(sweep or ()), tuple(baseline_sweep or ())),
            )
    except ImportProblem as exc:
        raise _fail(str(exc)) from None
    for message in messages:
        typer.echo(f"sdeval: {shown(message)}", err=True)
    sys.stdout.write(text_out)


@_command(short="Write the PDF/A report, inputs attached, signed with a key.")
def render(
    files: FilesArg,
    output: Annotated[Path, typer.Option("--output", "-o", help="The PDF to write.", metavar="FILE")],
    force: ForceOpt = False,
    key: Annotated[Optional[Path], typer.Option("--key", help="Signing key (PEM, RSA).")] = None,
    cert: Annotated[Optional[Path], typer.Option("--cert", help="Certificate for --key (PEM).")] = None,
    pkcs12: Annotated[Optional[Path], typer.Option("--pkcs12", help="Signing key and certificate in one PKCS#12 file.")] = None,
    password_file: Annotated[
        Optional[Path], typer.Option("--password-file", help="File holding the key's password (or set SDEVAL_SIGNING_PASSWORD).")
    ] = None,
    max_size: MaxSizeOpt = DEFAULT_MAX_BYTES,
    requirements: Annotated[
        Optional[Path],
        typer.Option(
            "--requirements",
            "-r",
            metavar="PROFILE",
            help="Add the buyer requirements x offers table and chart, and attach this profile; exit 0 only if some offer meets every requirement.",
        ),
    ] = None,
    references: ReferencesOpt = None,
    tsa: Annotated[
        Optional[str], typer.Option("--tsa", metavar="URL", help="Add an RFC 3161 signature timestamp from this time-stamping authority (PAdES B-T).")
    ] = None,
    ltv: Annotated[
        bool,
        typer.Option(
            "--ltv", help="With --tsa: embed the validation data (certificate chains, revocation data) and add a document timestamp (PAdES B-LTA)."
        ),
    ] = False,
    trust: Annotated[
        Optional[list[Path]],
        typer.Option(
            "--trust",
            metavar="CERT",
            help="With --ltv: root certificates the signer's and the authority's chains end at (PEM file or folder; repeatable; default SDEVAL_TRUST).",
        ),
    ] = None,
) -> None:
    """Write the assessment as a PDF/A-3a report with the inputs attached; signed with --key/--cert or --pkcs12,
    otherwise marked UNSIGNED DRAFT. Exit 1 if any error finding (with --requirements: if no offer meets every requirement)."""
    from ..report.write import ReportProblem, Writing

    if trust and not ltv:
        raise _fail("--trust on render names the roots for --ltv; it does nothing without --ltv")
    # --ltv collects the chains up to these roots (and any self-signed certificate it is given).
    anchors = _trust_anchors(trust) if tsa is not None and ltv else None
    inputs = files + ([str(requirements)] if requirements is not None else []) + [str(r) for r in references or []]
    try:
        with Writing(
            output,
            inputs,
            force=force,
            key=key,
            cert=cert,
            pkcs12=pkcs12,
            password_file=password_file,
            tsa=tsa,
            ltv=ltv,
            roots=tuple(a.der for a in anchors.anchors) if anchors else (),
        ) as report:
            assessed = _assessed(files, max_size, requirements, for_report=True, references=references)
            written = report.write(assessed)
    except ReportProblem as exc:
        raise _fail(str(exc)) from None
    for warning in written.warnings:
        typer.echo(f"sdeval: {shown(warning)}", err=True)
    state = f"signed by {written.signer}" if written.signer else "UNSIGNED DRAFT"
    if written.signer and tsa:
        state += ", timestamped, with long-term validation data" if ltv else ", timestamped"
    typer.echo(f"wrote {output} ({written.size:,} bytes, {state})", err=True)
    raise _finish(assessed)


@_command(short="Create a self-signed RSA identity for trial signing.")
def keygen(
    directory: Annotated[Path, typer.Argument(help="Directory for key.pem (mode 0600) and cert.pem.", metavar="DIR")],
    name: Annotated[str, typer.Option("--name", help="Common name in the certificate.")] = "sdeval trial assessor",
    force: Annotated[bool, typer.Option("--force", help="Replace an existing key.pem / cert.pem.")] = False,
) -> None:
    """Create a self-signed RSA assessor identity for trials (not for production signing)."""
    from .._infra.atomic import OutputRefused
    from ..report.signing import SigningProblem
    from ..report.signing import keygen as make_identity

    try:
        key_path, cert_path = make_identity(directory, common_name=name, force=force)
    except (SigningProblem, OutputRefused) as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:
        raise _fail(f"{directory}: cannot write ({exc.strerror or exc})") from None
    typer.echo(f"wrote {key_path} (private, mode 0600) and {cert_path}", err=True)


@_command(short="Check a signed report: signature, attachments, reproduction.")
def verify(
    reports: Annotated[
        list[Path], typer.Argument(help="Reports written by `sdeval render`, or folders searched for *.pdf.", metavar="REPORT_OR_FOLDER...")
    ],
    trust: TrustOpt = None,
    strict: Annotated[bool, typer.Option("--strict", help="Fail when a newer rule catalog assesses the inputs differently.")] = False,
    fmt: FormatOpt = Format.text,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", metavar="N", help="Processes for many reports (default: one per core).")] = None,
) -> None:
    """Check signed reports: the signature over the whole file, any trusted timestamp, that the signer chains to
    a trust anchor, the attachment hashes, and that re-assessing the embedded inputs reproduces the embedded
    assessment. One report: every check; several or a folder: one line each and a total.
    Exit 0 every report verifies (trust included), 1 a check fails or the signer is not established, 2 cannot run
    (unreadable trust anchors, a file that is not a report)."""
    from ..verify import many

    if jobs is not None and jobs < 1:
        raise _fail(f"--jobs {jobs}: give at least 1 process")
    anchors = _trust_anchors(trust)
    try:
        paths = many.report_paths(reports)
    except many.NoReports as exc:
        raise _fail(str(exc)) from None
    single = len(reports) == 1 and not reports[0].is_dir()
    if single:
        from .._infra.working import working_on

        with working_on(paths[0]):
            outcomes = [many.verify_one(paths[0], trust=anchors, strict=strict)]
        if outcomes[0].problem and fmt is Format.text:
            raise _fail(outcomes[0].problem)
    else:
        from .._infra import progress

        with progress.allowed(fmt is not Format.json):
            outcomes = many.verify_many(paths, trust=anchors, strict=strict, workers=jobs)
    if fmt is Format.json:
        typer.echo(json_shown(json.dumps(many.as_json(outcomes), indent=2, ensure_ascii=False)))
    else:
        _out(outcomes[0].text() if single else many.summary_text(outcomes))
    raise typer.Exit(many.exit_code(outcomes))


def _trust_anchors(paths: list[Path] | None):
    """--trust, else SDEVAL_TRUST, else None; unreadable anchors stop the command (exit 2)."""
    from ..report.trust import TrustAnchors, TrustProblem

    try:
        anchors = TrustAnchors.from_options(paths)
    except TrustProblem as exc:
        raise _fail(str(exc)) from None
    for note in anchors.notes() if anchors else []:
        typer.echo(f"sdeval: note: {shown(note)}", err=True)
    return anchors


@app.command(
    "measure",
    short_help="Measure an endpoint's two arms and write the evidence record.",
    add_help_option=False,
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
def measure(ctx: typer.Context) -> None:
    """Measure the speculative and target-only arms of an offer (`sdeval measure --help`)."""
    # Per-arm flags follow their --arm, which typer cannot say: evaluator.measure parses its own
    # arguments, and imports httpx only here.
    from ..measure.cli import main as measure_main

    raise typer.Exit(measure_main(list(ctx.args)))


# `sdeval reference ...` (evaluator/cli/references.py), imported only when one of its commands runs.
app.add_typer(
    lazy_typer(
        "evaluator.cli.references:app",
        help="Independent published results (InferenceX, MLPerf, MLPerf Endpoints) to set beside each claim: import, fetch.",
        short="Independent results to set beside each claim.",
    ),
    name="reference",
)


# `sdeval archive ...` (evaluator/cli/archive.py), imported only when an archive command runs.
app.add_typer(
    lazy_typer(
        "evaluator.cli.archive:app",
        help="The auditor's archive of signed reports: init, add, list, show, extract, verify, rejudge, log.",
        short="The auditor's archive of signed reports.",
    ),
    name="archive",
)


_interrupted = False


def _note_interrupt(signum, frame) -> None:
    """Python's own Ctrl-C handler, remembering that it ran: a library may turn the
    KeyboardInterrupt into an exception of its own (pydantic-core reports one raised while it
    builds a schema as a SchemaError), and that is the interrupt, not a bug in sdeval."""
    global _interrupted
    _interrupted = True
    signal.default_int_handler(signum, frame)


def main() -> None:
    """Console entry point: no input may produce a traceback, and Ctrl-C stops quietly (exit 130)."""
    global _interrupted
    _interrupted = False
    previous = signal.getsignal(signal.SIGINT)
    if previous is signal.default_int_handler:  # not where SIGINT is ignored
        signal.signal(signal.SIGINT, _note_interrupt)
    try:
        app()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
    except Exception as exc:  # a bug in sdeval, reported in one line, never a traceback
        if _interrupted:
            sys.exit(EXIT_INTERRUPTED)
        from .._infra.working import worked_on

        where = worked_on(exc)
        about = f" while working on {shown(where)}" if where else ""
        typer.echo(f"sdeval: internal error{about}: {shown(type(exc).__name__)}: {shown(exc)}", err=True)
        sys.exit(EXIT_CANNOT_RUN)
    finally:
        if previous is signal.default_int_handler:
            signal.signal(signal.SIGINT, previous)
