"""How a command fails (one escaped line, exit 2), and the one Typer setup both command lines
share. The exit codes themselves are defined once, in evaluator/_infra/exit_codes.py."""

from __future__ import annotations

from typing import Any

import typer

from .._infra.exit_codes import EXIT_CANNOT_RUN, EXIT_FINDINGS, EXIT_INTERRUPTED, EXIT_OK
from .._infra.safe_text import shown

__all__ = ["EXIT_CANNOT_RUN", "EXIT_FINDINGS", "EXIT_INTERRUPTED", "EXIT_OK", "fail", "fail_each", "typer_app"]


def fail(message: str) -> typer.Exit:
    """Exit 2 with one line `sdeval: MESSAGE`, its input strings escaped (a newline in it too)."""
    typer.echo(f"sdeval: {shown(message)}", err=True)
    return typer.Exit(EXIT_CANNOT_RUN)


def fail_each(message: str) -> typer.Exit:
    """Exit 2; each line of `message` (one per problem the command found) its own `sdeval: ` line."""
    for line in message.splitlines() or [""]:
        typer.echo(f"sdeval: {shown(line)}", err=True)
    return typer.Exit(EXIT_CANNOT_RUN)


def typer_app(name: str, help: str, **settings: Any) -> typer.Typer:
    """A command line as sdeval's are: no pretty tracebacks, no rich markup, help without arguments."""
    return typer.Typer(name=name, help=help, no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None, **settings)
