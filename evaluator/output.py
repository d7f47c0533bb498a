"""Writing results: atomically, and never over a file the user has without --force."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


class OutputRefused(Exception):
    pass


def refuse_output(path: str | Path, *, force: bool) -> str | None:
    """Why `path` cannot be written, checked before any work (every command refuses alike): a
    directory is never an output file, --force or not, and a file is replaced only with --force."""
    target = Path(path)
    if target.is_dir():
        return f"{target}: is a directory; give the output a file name"
    if target.exists() and not force:
        return f"{target}: already exists; pass --force to replace it"
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        return f"{target}: directory {directory} does not exist"
    return None


def write_atomic(path: str | Path, data: bytes, *, force: bool = False, mode: int = 0o644) -> None:
    """Write to a temporary file beside the target, then rename: a crash never leaves half a file.
    Every reason it cannot is an OutputRefused naming the file."""
    target = Path(path)
    if (problem := refuse_output(target, force=force)) is not None:
        raise OutputRefused(problem)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise OutputRefused(f"{target}: cannot write ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):  # a full disk, a read-only place: one line, like any refusal
            raise OutputRefused(f"{target}: cannot write ({exc.strerror or exc})") from None
        raise
