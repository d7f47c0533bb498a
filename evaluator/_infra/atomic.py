"""Writing results: atomically, and never over a file the user has without --force."""

from __future__ import annotations

import errno
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
        return _exists(target)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        return f"{target}: directory {directory} does not exist"
    return None


def write_atomic(path: str | Path, data: bytes, *, force: bool = False, mode: int = 0o644) -> None:
    """Write to a temporary file beside the target, then rename: a crash never leaves half a file.
    Without --force the file appears only if nothing is there at that moment, so of writers racing
    for one name exactly one wins. Every reason it cannot is an OutputRefused naming the file."""
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
        if force:
            os.replace(tmp, target)
        else:
            _claim(tmp, target)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):  # a full disk, a read-only place: one line, like any refusal
            raise OutputRefused(f"{target}: cannot write ({exc.strerror or exc})") from None
        raise


def _claim(tmp: str, target: Path) -> None:
    """Put the finished `tmp` at `target` only if nothing is there: checking first and renaming
    after would let a concurrent writer's file be replaced in between."""
    try:
        os.link(tmp, target)  # create-exclusive and atomic: whole file or none
    except FileExistsError:
        raise OutputRefused(_exists(target)) from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        # No hard links here (FAT, some network shares): claim the name with an exclusive empty
        # file, then rename over our own claim. A crash in between leaves that empty file.
        try:
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            raise OutputRefused(_exists(target)) from None
        os.replace(tmp, target)
    else:
        os.unlink(tmp)


def _exists(target: Path) -> str:
    return f"{target}: already exists; pass --force to replace it"
