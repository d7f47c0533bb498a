"""The command line: `sdeval` (commands), `sdeval archive` (archive), the lazily loaded
sub-app (lazy). Each command parses its options, calls one function of a stage and prints.

`main` is the console entry point. For `sdeval render` it starts the PDF writer (which imports
WeasyPrint, the longest import of any command) before the command line itself is imported, so
that import overlaps everything else render does (evaluator/report/writer.py, start_early)."""

import sys

__all__ = ["app", "main"]


def _without_pydantic_plugins() -> None:
    """The command line runs no pydantic plugins unless PYDANTIC_DISABLE_PLUGINS says otherwise (set
    it to an empty string to run them). pydantic's plugin loader imports importlib.metadata and scans
    every installed package's entry points even when plugins are off (18 ms, 8 % of `sdeval validate`):
    with them off, importing it gives a stand-in that answers as pydantic's own does then. A pydantic
    without that module never asks for it (tests/cli/test_pydantic_plugins.py watches the loader's shape)."""
    import os

    if os.environ.get("PYDANTIC_DISABLE_PLUGINS", "__all__") in ("__all__", "1", "true") and "pydantic.plugin._loader" not in sys.modules:
        sys.meta_path.insert(0, _NoPydanticPlugins())


class _NoPydanticPlugins:
    """An import finder for pydantic.plugin._loader alone (nothing is loaded until pydantic asks)."""

    NAME = "pydantic.plugin._loader"

    def find_spec(self, name, path=None, target=None):
        if name != self.NAME:
            return None
        from importlib.machinery import ModuleSpec

        # A loader by its two methods, as the import system takes it (importlib.abc costs 17 ms to import).
        return ModuleSpec(name, self)  # type: ignore[arg-type]

    def create_module(self, spec):
        return None  # the default module

    def exec_module(self, module) -> None:
        module.__doc__ = "sdeval's stand-in for pydantic's plugin loader: no plugins (evaluator/cli/__init__.py)"
        module.get_plugins = _no_plugins


def _no_plugins(*args, **kwargs) -> tuple:
    return ()


def main() -> None:
    from contextlib import AbstractContextManager, nullcontext

    _without_pydantic_plugins()

    early: AbstractContextManager = nullcontext()
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
