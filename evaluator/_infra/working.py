"""What a command was working on when something unforeseen went wrong, so that even an internal
error names the file or the archive (cli.main prints it, in one line)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

ATTRIBUTE = "sdeval_working_on"


@contextmanager
def working_on(what: object) -> Iterator[None]:
    """Tag any exception raised inside with `what`; the innermost tag (the most precise) wins."""
    try:
        yield
    except Exception as exc:
        if getattr(exc, ATTRIBUTE, None) is None:
            try:
                setattr(exc, ATTRIBUTE, str(what))
            except AttributeError:  # an exception type without a __dict__: reported untagged
                pass
        raise


def worked_on(exc: BaseException) -> str | None:
    return getattr(exc, ATTRIBUTE, None)
