"""`sdeval render`: the assessed result (evaluator/pipeline.py) rendered, signed if an identity is
given, and written atomically. Nothing here assesses or judges.

    with Writing(output, inputs, force=..., key=..., ...) as report:   # options, output, signer
        assessed = pipeline.assess_paths(...)
        written = report.write(assessed)

`Writing` refuses bad options and an output it must not replace before any work, and starts the
PDF writer (importing WeasyPrint) and the signer (reading the key, importing pyHanko) in other
processes while the caller assesses."""

from __future__ import annotations

from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .._infra.atomic import OutputRefused, write_atomic
from .._infra.atomic import refuse_output as output_problem
from .signing import SigningProblem, Timestamping

if TYPE_CHECKING:
    from ..pipeline import Assessed
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
    *,
    key: Path | None,
    cert: Path | None,
    pkcs12: Path | None,
    password_file: Path | None,
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
    from .._infra.forking import ProcessEnded
    from .render import render_pdf

    signer = None
    warnings: list[str] = []
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


class Writing:
    """One `sdeval render`: everything but the assessment, in the order that wastes no work."""

    def __init__(
        self,
        output: Path,
        inputs: list[str],
        *,
        force: bool,
        key: Path | None = None,
        cert: Path | None = None,
        pkcs12: Path | None = None,
        password_file: Path | None = None,
        tsa: str | None = None,
        ltv: bool = False,
        roots: tuple[bytes, ...] = (),
    ) -> None:
        self.output, self.inputs, self.force = output, inputs, force
        self._identity = dict(key=key, cert=cert, pkcs12=pkcs12, password_file=password_file)
        self._tsa, self._ltv, self._roots = tsa, ltv, roots
        self._stack = ExitStack()
        self._writer: PdfWriter | None = None
        self._signing: Signing | None = None

    def __enter__(self) -> Writing:
        from .writer import PdfWriter

        key, cert, pkcs12 = self._identity["key"], self._identity["cert"], self._identity["pkcs12"]
        with ExitStack() as stack:
            # Started first: where it can, the writer imports WeasyPrint in its own process meanwhile.
            self._writer = stack.enter_context(PdfWriter())
            problem = signing_options(key, cert, pkcs12) or timestamping_options(self._tsa, self._ltv, key is not None or pkcs12 is not None)
            if problem is not None:
                raise ReportProblem(problem)
            timestamping = Timestamping(self._tsa, ltv=self._ltv, roots=self._roots) if self._tsa is not None else None
            refuse_output(self.output, self.inputs, force=self.force)
            self._signing = stack.enter_context(start_signing(**self._identity, timestamping=timestamping))
            self._stack = stack.pop_all()
        return self

    def write(self, assessed: Assessed) -> Written:
        from .._infra.working import working_on

        with working_on(self.output):
            return write_report(assessed, self.output, force=self.force, signing=self._signing, writer=self._writer)

    def __exit__(self, *exc_info) -> None:
        self._stack.__exit__(*exc_info)
