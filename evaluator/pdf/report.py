"""`sdeval render`: the assessed result (evaluator/run.py) rendered, signed if an identity is
given, and written atomically. Nothing here assesses or judges."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..output import OutputRefused, refuse_output as output_problem
from ..output import write_atomic
from .signing import SigningProblem, Timestamping

if TYPE_CHECKING:
    from ..run import Assessed
    from .signing import Signing
    from .writer import PdfWriter


class ReportProblem(Exception):
    """The report cannot be written (exit 2); the message names the file."""


@dataclass
class Written:
    signer: str | None
    size: int
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


def refuse_output(output: Path, inputs: list[str], *, force: bool) -> None:
    """Before any work: never replace a file without --force, and never write over an input."""
    if (problem := output_problem(output, force=force)) is not None:
        raise ReportProblem(problem)
    named = [path for path in inputs if path not in ("-", "<stdin>")]
    if any(output.resolve() == Path(path).resolve() for path in named):
        raise ReportProblem(f"{output}: is one of the input files")


def start_signing(
    *, key: Path | None, cert: Path | None, pkcs12: Path | None, password_file: Path | None,
    timestamping: Timestamping | None = None,
) -> AbstractContextManager[Signing | None]:
    """The signer (reading the key and importing pyHanko in another process meanwhile, where
    forking is safe), or nothing for an unsigned draft."""
    from .signing import Signing

    if key is None and pkcs12 is None:
        return nullcontext()
    try:
        return Signing(key=key, cert=cert, pkcs12=pkcs12, password_file=password_file, timestamping=timestamping)
    except SigningProblem as exc:
        raise ReportProblem(str(exc)) from None


def write_report(assessed: Assessed, output: Path, *, force: bool, signing: Signing | None, writer: PdfWriter | None = None) -> Written:
    """Render (with `writer`, which may already be importing WeasyPrint in another process),
    sign when `signing` is given, and write the PDF atomically."""
    from ..forking import ProcessEnded
    from .render import render_pdf

    signer, warnings = None, []
    try:
        if signing is not None:
            signer, warnings = signing.identity()
        pdf = render_pdf(assessed, signer=signer, writer=writer)
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
    return Written(signer, len(pdf), warnings)
