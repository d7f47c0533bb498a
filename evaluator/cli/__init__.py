"""The command line: `sdeval` (commands), `sdeval archive` (archive), the lazily loaded
sub-app (lazy). Each command parses its options, calls one function of a stage and prints.

`main` is the console entry point; it only imports the command line and runs it. Start-up stays
short by ordinary means: each command imports what it needs inside its own function."""

__all__ = ["app", "main"]


def main() -> None:
    from .commands import main as run

    run()


def __getattr__(name: str):
    if name == "app":
        from .commands import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
