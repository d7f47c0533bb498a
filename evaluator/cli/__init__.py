"""The command line: `sdeval` (commands), `sdeval archive` (archive), the lazily loaded
sub-app (lazy). Each command parses its options, calls one function of a stage and prints.

`main` is the console entry point. For `sdeval render` it starts the PDF writer (which imports
WeasyPrint, the longest import of any command) before the command line itself is imported, so
that import overlaps everything else render does (evaluator/report/writer.py, start_early)."""

import sys

__all__ = ["app", "main"]


def main() -> None:
    from contextlib import nullcontext

    early = nullcontext()
    if sys.argv[1:2] == ["render"]:  # the writer module (logging, multiprocessing) costs every other command 25 ms
        from ..report.writer import start_early

        early = start_early(sys.argv[1:])
    with early:
        from .commands import main as run

        run()


def __getattr__(name: str):
    if name == "app":
        from .commands import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
