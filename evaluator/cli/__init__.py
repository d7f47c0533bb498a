"""The command line: `sdeval` (commands), `sdeval archive` (archive), the lazily loaded
sub-app (lazy). Each command parses its options, calls one function of a stage and prints.

`main` is the console entry point. For `sdeval render` it starts the PDF writer (which imports
WeasyPrint, the longest import of any command) before the command line itself is imported, so
that import overlaps everything else render does (evaluator/report/writer.py, start_early)."""

import sys

__all__ = ["app", "main"]


def _without_pydantic_plugins() -> None:
    """The command line runs no pydantic plugins unless PYDANTIC_DISABLE_PLUGINS says otherwise (set
    it to an empty string to run them). pydantic's plugin loader imports importlib.metadata even when
    plugins are off (about 10 ms, 5 % of `sdeval validate`): with them off, a stand-in for the loader,
    answering as pydantic's own does then, is found in its place. A pydantic without that module
    never imports the stand-in (tests/cli/test_pydantic_plugins.py watches the loader's shape)."""
    import os

    if os.environ.get("PYDANTIC_DISABLE_PLUGINS", "__all__") not in ("__all__", "1", "true") or "pydantic.plugin._loader" in sys.modules:
        return
    import types

    def get_plugins(*args, **kwargs) -> tuple:
        return ()

    stand_in = types.ModuleType("pydantic.plugin._loader", "sdeval's stand-in: no pydantic plugins (see evaluator/cli/__init__.py)")
    stand_in.get_plugins = get_plugins  # type: ignore[attr-defined]
    sys.modules["pydantic.plugin._loader"] = stand_in


def main() -> None:
    from contextlib import nullcontext

    _without_pydantic_plugins()

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
