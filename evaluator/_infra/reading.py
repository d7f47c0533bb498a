"""Reading an input file whole, within a size limit, refusing directories, devices and oversized
files before reading a byte: one clear line (UnreadableFile) for every way it can fail."""

from __future__ import annotations

import os
import stat

DEFAULT_MAX_BYTES = 20 * 1024 * 1024


class UnreadableFile(Exception):
    """The file could not be opened at all (exit 2): missing, a directory, unreadable, too large."""


def read_bytes(path: str, max_bytes: int = DEFAULT_MAX_BYTES, *, what: str = "record file") -> bytes:
    """Read a regular file, refusing directories, devices and oversized files up front."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UnreadableFile(f"{path}: no such file") from None
    except OSError as exc:
        raise UnreadableFile(f"{path}: cannot read ({exc.strerror})") from None
    if stat.S_ISDIR(st.st_mode):
        raise UnreadableFile(f"{path}: is a directory, not a {what}")
    if not stat.S_ISREG(st.st_mode):
        raise UnreadableFile(f"{path}: is not a regular file")
    if st.st_size > max_bytes:
        raise UnreadableFile(f"{path}: {st.st_size} bytes is over the {max_bytes}-byte limit")
    try:
        with open(path, "rb") as fh:
            return fh.read(max_bytes + 1)
    except OSError as exc:
        raise UnreadableFile(f"{path}: cannot read ({exc.strerror})") from None


def read_stdin(max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    import sys

    data = sys.stdin.buffer.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise UnreadableFile(f"<stdin>: more than the {max_bytes}-byte limit")
    return data
