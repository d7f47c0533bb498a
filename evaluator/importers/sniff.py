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
    for fmt, patterns in _SIGNATURES:
        if all(re.search(p, head) for p in patterns):
            return fmt
    return None


def describe_guess(path: Path, not_this: str) -> str:
    guess = sniff(path)
    if guess is None or guess == not_this:
        return ""
    if guess in ("vllm-metrics", "llamacpp-metrics"):
        return f"; it looks like a {guess} scrape (try `sdeval import {guess} BEFORE AFTER` with the scrapes taken before and after the run)"
    return f"; it looks like {guess} output (try `sdeval import {guess} {path.name}`)"
