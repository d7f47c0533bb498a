"""--format markdown: the verdicts as GitHub-flavoured Markdown, for a CI job's summary page
(`sdeval validate offer.json --format markdown >> "$GITHUB_STEP_SUMMARY"`) or a pull-request
comment: per file a heading with its outcome, a table of its claims (assess), and the report
itself, as the text format words it, in a fenced block.

Markdown is rendered by the reader's forge, so a vendor's string must stay text there: no link,
image, @mention, heading, table cell or HTML of its own. Every string from an input is therefore
shown only inside code, where Markdown interprets nothing: a code span in a heading or a table
cell (its fence longer than any run of backticks in it, and `|` escaped, which a table reads even
inside a span), and a fenced block for the report, whose fence is longer than any run of backticks
in it, so no line of the report can close it. Strings reach both as the terminal shows them
(safe_text.shown: no control, bidi or invisible character, no line break)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .._infra.safe_text import shown
from ..engine.wording import VERDICT_HEADING
from .text import asks_block, file_report, finding_line

if TYPE_CHECKING:
    from ..buyer.results import Comparison
    from ..rules.results import ClaimResult, FileAssessment

_BACKTICKS = re.compile(r"`+")


def code(text: str, *, cell: bool = False) -> str:
    """`text` as an inline code span that nothing in it can end or escape; in a table `cell`, its
    `|` escaped too (a table splits cells on it even inside a span, and drops the backslash)."""
    text = shown(text)
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    span = f"{fence}{pad}{text}{pad}{fence}"
    return span.replace("|", "\\|") if cell else span


def block(lines: list[str]) -> list[str]:
    """Lines as a fenced code block that none of them can close."""
    longest = max((len(m) for line in lines for m in _BACKTICKS.findall(line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + "text", *lines, fence]


def _claim_row(c: ClaimResult) -> str:
    errors = [f.code for f in c.findings if f.severity == "error"]
    why = "" if not errors else errors[0] + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else "")
    figure = c.as_stated() or ""
    mark = "✓" if c.verdict == "established" else "✗"
    return f"| {code(c.id, cell=True)} | {c.kind} | {code(figure, cell=True) if figure else ''} | {mark} {VERDICT_HEADING[c.verdict]} | {why} |"


def _file(r: FileAssessment, full: bool) -> list[str]:
    e, w, i = r.count("error"), r.count("warning"), r.count("info")
    counts = f"{e} error{'s' * (e != 1)}" + (
        "" if r.kind in ("requirements-profile", "configuration") else f", {w} warning{'s' * (w != 1)}, {i} info"
    )
    out = [f"### {code(r.file)}: {VERDICT_HEADING[r.outcome]}", "", counts, ""]
    if full and r.claims:
        out += ["| claim | kind | claimed | verdict | first error |", "|---|---|---|---|---|", *map(_claim_row, r.claims), ""]
    if full and r.asks:
        out += [
            f"**{r.asks_heading}** ({len(r.asks)} request{'s' * (len(r.asks) != 1)}):",
            "",
            *block([a.strip() for a in asks_block(r)[1:] if a.strip()]),
            "",
        ]
    report = [line.rstrip() for line in (file_report(r) if full else [finding_line(r, f) for f in r.findings])]
    if report:
        out += [
            "<details><summary>The whole report</summary>" if full else "<details><summary>Findings</summary>",
            "",
            *block(report),
            "",
            "</details>",
            "",
        ]
    return out


def render(results: list[FileAssessment], full: bool, comparison: Comparison | None = None) -> str:
    out = ["## sdeval assessment" if full else "## sdeval validate", ""]
    for r in results:
        out += _file(r, full)
    if comparison is not None:
        from .buyer_text import render as requirements_text

        out += ["### Your requirements", "", *block(requirements_text(comparison).rstrip("\n").split("\n")), ""]
    return "\n".join(out).rstrip("\n") + "\n"
