"""Writing results: atomically, and never over a file the user has without --force."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


class OutputRefused(Exception):
    pass


def write_atomic(path: str | Path, data: bytes, *, force: bool = False, mode: int = 0o644) -> None:
    """Write to a temporary file beside the target, then rename: a crash never leaves half a file."""
    target = Path(path)
    if target.exists() and not force:
        raise OutputRefused(f"{target}: already exists; pass --force to replace it")
    if target.exists() and target.is_dir():
        raise OutputRefused(f"{target}: is a directory")
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise OutputRefused(f"{target}: directory {directory} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
