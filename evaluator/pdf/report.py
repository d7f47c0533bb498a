"""`sdeval render`: assess, render, sign if an identity is given, write atomically."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..assessment import FileAssessment, assess
from ..loader import LoadedFile
from ..output import OutputRefused, write_atomic
from .signing import SigningProblem


class ReportProblem(Exception):
    """The report cannot be written (exit 2); the message names the file."""


@dataclass
class Written:
    results: list[FileAssessment]
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


def write_report(
    loaded: list[LoadedFile],
    output: Path,
    *,
    force: bool,
    key: Path | None = None,
    cert: Path | None = None,
    pkcs12: Path | None = None,
    password_file: Path | None = None,
) -> Written:
    from .render import render_pdf
    from .signing import load_identity, sign

    if output.exists() and not force:
        raise ReportProblem(f"{output}: already exists; pass --force to replace it")
    if any(output.resolve() == Path(item.path).resolve() for item in loaded if item.path != "<stdin>"):
        raise ReportProblem(f"{output}: is one of the input files")
    try:
        identity = None
        if key is not None or pkcs12 is not None:
            identity = load_identity(key=key, cert=cert, pkcs12=pkcs12, password_file=password_file)
        results = [assess(item) for item in loaded]
        pdf = render_pdf(loaded, results, signer=identity.name if identity else None)
        if identity is not None:
            pdf = sign(pdf, identity)
    except SigningProblem as exc:
        raise ReportProblem(str(exc)) from None
    try:
        write_atomic(output, pdf, force=force)
    except OutputRefused as exc:
        raise ReportProblem(str(exc)) from None
    except OSError as exc:
        raise ReportProblem(f"{output}: cannot write ({exc.strerror or exc})") from None
    return Written(results, identity.name if identity else None, len(pdf), identity.warnings if identity else [])
