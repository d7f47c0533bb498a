"""Which known format a file looks like, from its first bytes, so a file given under the wrong
format is refused with the right name (`describe_guess`), and `sdeval import` can say what a
file is."""

from __future__ import annotations

import re
from pathlib import Path

from .registry import ROWS

_SNIFF_BYTES = 256 * 1024
# (format, patterns that must all occur in the file's first bytes), in the registry's order.
_SIGNATURES: list[tuple[str, tuple[str, ...]]] = [(f.name, patterns) for f in ROWS for patterns in f.signatures]


def sniff(path: Path) -> str | None:
    try:
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    return sniff_text(head)


def sniff_text(head: str) -> str | None:
    """The format of a file whose first bytes are `head`, or None."""
    for fmt, patterns in _SIGNATURES:
        if all(re.search(p, head) for p in patterns):
            return fmt
    return None


# sdeval's own files, told apart from tool output by the version key each must carry.
_RECORD = re.compile(r'"record_version"\s*:|^record_version\s*:', re.M)
_PROFILE = re.compile(r'"requirements_version"\s*:|^requirements_version\s*:', re.M)


def own_kind(path: Path) -> str | None:
    """'record' or 'profile' when the file is one of sdeval's own (its first bytes say so)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    return own_kind_of_text(head)


def own_kind_of_text(head: str) -> str | None:
    if _PROFILE.search(head):
        return "profile"
    if _RECORD.search(head):
        return "record"
    return None


def describe_guess(path: Path, not_this: str) -> str:
    kind = own_kind(path)
    if kind == "record":
        return f"; it is an evidence record (`sdeval assess {path.name}` judges it; `--into {path.name}` adds imported runs to it)"
    if kind == "profile":
        return f"; it is a requirements profile (give it to `sdeval assess` with --requirements {path.name})"
    guess = sniff(path)
    if guess is None or guess == not_this:
        return ""
    if guess in ("vllm-metrics", "llamacpp-metrics"):
        return f"; it looks like a {guess} scrape (try `sdeval import {guess} BEFORE AFTER` with the scrapes taken before and after the run)"
    return f"; it looks like {guess} output (try `sdeval import {guess} {path.name}`)"
