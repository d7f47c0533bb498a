"""Reading the Markdown pages (README.md, docs/*.md) as a reader's browser does: their headings,
the anchors GitHub gives them, and their links, leaving code blocks and code spans aside."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")
_CODE_SPAN = re.compile(r"`[^`\n]*`")


def prose_lines(text: str) -> list[str]:
    """The page's lines outside fenced code blocks (a `# comment` in a shell block is no heading)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def headings(text: str) -> list[str]:
    return [m.group(2) for line in prose_lines(text) if (m := _HEADING.match(line))]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: the text as shown (links by their text, code without its
    backticks), lowercase, punctuation dropped, each space a hyphen."""
    text = _LINK.sub(r"\1", heading).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading's anchor; a repeated one gets -1, -2, ... as on GitHub."""
    seen: dict[str, int] = {}
    out = set()
    for heading in headings(text):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(text: str) -> list[str]:
    """Every link target in the prose (code spans removed first, so `[--ltv]` in a command is none)."""
    return [m.group(2) for line in prose_lines(text) for m in _LINK.finditer(_CODE_SPAN.sub("", line))]


def page(path: Path) -> str:
    return path.read_text(encoding="utf-8")
