"""The command line: `sdeval` (commands), `sdeval archive` (archive), the lazily loaded
sub-app (lazy). Each command parses its options, calls one function of a stage and prints."""

from .commands import app, main

__all__ = ["app", "main"]
