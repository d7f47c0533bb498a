"""A typer sub-app whose commands are imported only when one of them runs (or help lists them).

`sdeval archive ...` needs SQLAlchemy and the archive package; `sdeval validate` must import
neither. Typer wants a sub-app object when the main app is defined, so this stands in for it:
its group's command table loads the real app ("module:attribute") on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperGroup

if TYPE_CHECKING:
    # Typer's own copy of click: typer may vendor it (typer._click), so click itself need not be installed.
    Command = Any


class _Commands(MutableMapping):
    def __init__(self, target: str) -> None:
        self._target = target
        self._loaded: dict[str, Command] | None = None

    def _table(self) -> dict[str, Command]:
        if self._loaded is None:
            module, _, attribute = self._target.partition(":")
            real = getattr(importlib.import_module(module), attribute)
            self._loaded = dict(typer.main.get_group(real).commands)
        return self._loaded

    def __getitem__(self, name: str) -> Command:
        return self._table()[name]

    def __setitem__(self, name: str, command: Command) -> None:
        self._table()[name] = command

    def __delitem__(self, name: str) -> None:
        del self._table()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


def lazy_typer(target: str, *, help: str, short: str) -> typer.Typer:  # noqa: A002 (typer's own name)
    """A stand-in sub-app for the typer app at `target` ("package.module:app")."""

    class LazyGroup(TyperGroup):
        def __init__(self, **attrs) -> None:
            super().__init__(**attrs)
            self.commands = _Commands(target)

    return typer.Typer(cls=LazyGroup, help=help, short_help=short, no_args_is_help=True, add_completion=False, rich_markup_mode=None)
