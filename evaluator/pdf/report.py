"""`sdeval render`: assess, render, sign if an identity is given, write atomically."""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..assessment import FileAssessment, assess, exit_code
from ..fit_report import exit_code as fit_exit_code
from ..loader import DEFAULT_MAX_BYTES, LoadedFile
from ..output import OutputRefused, write_atomic
from .signing import SigningProblem, Timestamping

if TYPE_CHECKING:
    from .render import RequirementsInput
    from .writer import PdfWriter


class ReportProblem(Exception):
    """The report cannot be written (exit 2); the message names the file."""


@dataclass
class Written:
    results: list[FileAssessment]
    signer: str | None
    size: int
    exit_code: int  # as `sdeval assess` gives it: error findings, or with --requirements whether an offer meets all
    warnings: list[str]


def signing_options(key: Path | None, cert: Path | None, pkcs12: Path | None) -> str | None:
    """A usage problem with the signing options, or None."""
    if pkcs12 is not None and (key is not None or cert is not None):
        return "give either --key and --cert, or --pkcs12, not both"
    if (key is None) != (cert is None):
        return "--key and --cert go together"
    return None


def timestamping_options(tsa: str | None, ltv: bool, signing: bool) -> str | None:
    """A usage problem with --tsa / --ltv, or None."""
    if ltv and tsa is None:
        return "--ltv needs --tsa URL (the document timestamp comes from that authority)"
    if tsa is not None and not signing:
        return "--tsa needs a signing identity (--key and --cert, or --pkcs12)"
    if tsa is not None and not tsa.lower().startswith(("http://", "https://")):
        return f"--tsa {tsa}: not an http:// or https:// URL"
    return None


def write_report(
    loaded: list[LoadedFile],
    output: Path,
    *,
    force: bool,
    key: Path | None = None,
    cert: Path | None = None,
    pkcs12: Path | None = None,
    password_file: Path | None = None,
    requirements: Path | None = None,
    max_size: int = DEFAULT_MAX_BYTES,
    writer: PdfWriter | None = None,
    timestamping: Timestamping | None = None,
) -> Written:
    """Assess, render (with `writer`, which may already be importing WeasyPrint in another
    process), sign when an identity is given (reading the key and importing pyHanko in another
    process meanwhile, where forking is safe), and write the PDF atomically."""
    from ..forking import ProcessEnded
    from .render import render_pdf
    from .signing import Signing

    if output.exists() and not force:
        raise ReportProblem(f"{output}: already exists; pass --force to replace it")
    inputs = [item.path for item in loaded] + ([str(requirements)] if requirements else [])
    inputs = [path for path in inputs if path not in ("-", "<stdin>")]
    if any(output.resolve() == Path(path).resolve() for path in inputs):
        raise ReportProblem(f"{output}: is one of the input files")
    signer, warnings = None, []
    try:
        with Signing(key=key, cert=cert, pkcs12=pkcs12, password_file=password_file, timestamping=timestamping) if key is not None or pkcs12 is not None else nullcontext() as signing:
            results = [assess(item) for item in loaded]
            profile = None if requirements is None else _judged(results, str(requirements), max_size)
            if signing is not None:
                signer, warnings = signing.identity()
            pdf = render_pdf(loaded, results, signer=signer, requirements=profile, writer=writer)
            if signing is not None:
                pdf = signing.sign(pdf)
    except SigningProblem as exc:
        raise ReportProblem(str(exc)) from None
    except ProcessEnded as exc:
        raise ReportProblem(f"{output}: not written: {exc}") from None
    try:
        write_atomic(output, pdf, force=force)
    except OutputRefused as exc:
        raise ReportProblem(str(exc)) from None
    except OSError as exc:
        raise ReportProblem(f"{output}: cannot write ({exc.strerror or exc})") from None
    if profile is not None:
        code = fit_exit_code(profile.comparison)
    else:
        code = exit_code(results)
    return Written(results, signer, len(pdf), code, warnings)


def _judged(results: list[FileAssessment], path: str, max_size: int) -> RequirementsInput:
    """Read the profile once, so the bytes judged are the bytes embedded; `-` is standard input."""
    from ..fit_report import FitCannotRun, judge
    from ..loader import UnreadableFile, read_bytes, read_stdin
    from .render import RequirementsInput

    try:
        if path == "-":
            path, raw = "<stdin>", read_stdin(max_size)
        else:
            raw = read_bytes(path, max_size)
        return RequirementsInput(path, raw, judge(results, path, raw))
    except (UnreadableFile, FitCannotRun) as exc:
        raise ReportProblem(str(exc)) from None
