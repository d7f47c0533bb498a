"""What every sdeval command exits with, and the one Typer setup both command lines share.

0   no error finding (with --requirements: some offer meets every requirement)
1   at least one error finding (or no offer meets every requirement; a failed verification)
2   the command could not run: bad input, a usage problem, an internal error (one line, naming the file)
130 stopped by Ctrl-C (128 + SIGINT, what a shell reports)
"""

from __future__ import annotations

from typing import Any

import typer

from .._infra.safe_text import shown

EXIT_OK, EXIT_FINDINGS, EXIT_CANNOT_RUN = 0, 1, 2
EXIT_INTERRUPTED = 130


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
