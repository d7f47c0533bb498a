"""--format text: what a buyer reads in a terminal.

validate prints one line per finding, grep-friendly:
    FILE[:LINE:COL]: POINTER: SEVERITY CODE: MESSAGE
assess adds each claim's verdict, the figures behind it and the per-run accounting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._infra.safe_text import shown
from ..engine.wording import VERDICT_TEXT, column, interval_text, num
from ..rules import REGISTRY
from ..rules.results import FileAssessment, Finding
from .run_columns import FIELDS, run_columns
from .task_table import task_lines

if TYPE_CHECKING:
    from ..buyer.results import Comparison


def _where(r: FileAssessment, f: Finding) -> str:
    place = shown(r.file)
    if f.line is not None:
        place += f":{f.line}:{f.column}"
    return f"{place}: {shown(f.pointer or '/')}"


def finding_line(r: FileAssessment, f: Finding) -> str:
    claim = f" [claim {shown(f.claim)}]" if f.claim else ""
    return f"{_where(r, f)}: {f.severity} {f.code}: {shown(f.message)}{claim}"


def summary_line(r: FileAssessment) -> str:
    verdict = VERDICT_TEXT[r.outcome]
    e, w, i = r.count("error"), r.count("warning"), r.count("info")
    if r.kind in ("requirements-profile", "configuration"):
        return f"{shown(r.file)}: {verdict} ({e} error{'s' * (e != 1)})"
    return f"{shown(r.file)}: {verdict} ({e} error{'s' * (e != 1)}, {w} warning{'s' * (w != 1)}, {i} info)"


def render(results: list[FileAssessment], full: bool, comparison: Comparison | None = None) -> str:
    out: list[str] = []
    for r in results:
        if full:
            out += file_report(r)
        else:
            out += [finding_line(r, f) for f in r.findings]
            out.append(summary_line(r))
    text = "\n".join(out) + "\n"
    if comparison is not None:
        from .buyer_text import render as requirements_text

        text += "\n" + requirements_text(comparison)
    return text


def _figure(d: dict | None) -> str:
    """A computed figure as wording.num shows it (`-f json` keeps the exact value)."""
    if d is None or d["value"] is None:
        return ""
    written = f" ({d['as_written']})" if d.get("as_written") else ""  # a claim written as a change: '40 % lower'
    return f"{d['figure']} = {num(d['value'], '' if d['unit'] == 'fraction' else d['unit'])}{written}"


def _why(f: Finding, explained: set[str]) -> str:
    """The rule's rationale the first time its code appears in a file's report, then a pointer back."""
    rule = REGISTRY.get(f.code)
    if rule is None:
        return ""
    if f.code in explained:
        return f"as above ({rule.title.rstrip('.')})"
    explained.add(f.code)
    return rule.rationale


def file_report(r: FileAssessment) -> list[str]:
    """One file's whole report, as `assess` prints it (the markdown format quotes it too)."""
    out = [summary_line(r)]
    if r.record is None:
        out += ["  " + finding_line(r, f) for f in r.findings]
        out.append("")
        out += asks_block(r)
        return out
    offer = r.record.offer
    out.append(f"  offer: {shown(offer.vendor)}, {shown(offer.offer_id)}, {offer.date or 'date not stated'}")
    out.append(f"  vendor's claim: {shown(offer.claim_text)}")  # one line: a newline in it could fake one of ours
    explained: set[str] = set()
    for c in r.claims:
        out.append("")
        verdict = VERDICT_TEXT[c.verdict]
        out.append(f'  claim {c.id} ({c.kind}): "{shown(c.text)}": {verdict}')
        if c.unfavourable:
            out.append(f"    NOTE: {c.unfavourable}")
        figures = [x for x in (_figure(c.computed), _figure(c.output)) if x]
        if figures:
            out.append("    computed: " + "; ".join(dict.fromkeys(figures)))
        if c.interval is not None:
            out.append("    measured: " + interval_text(c.interval))
        for f in c.findings:
            if f.severity == "info" and f.claim != c.id:
                continue  # shared notes are listed once, below
            out.append(f"    {f.severity} {f.code} at {_at(f)}: {shown(f.message)}")
            if f.severity == "error" and (why := _why(f, explained)):
                out.append(f"      why it matters: {why}")  # folded to the width with every line (present/width.py)
        if c.independent is not None:
            from .references_text import claim_lines

            out += claim_lines(c.independent)
    listed = {id(f) for c in r.claims for f in c.findings if f.severity != "info" or f.claim == c.id}
    unclaimed = [f for f in r.findings if id(f) not in listed]
    if unclaimed:
        out.append("")
        out.append("  other findings:")
        out += [f"    {f.severity} {f.code} at {_at(f)}: {shown(f.message)}" for f in unclaimed]
    out.append("")
    if accounting := _accounting(r):
        out += [*accounting, ""]
    if per_task := task_lines(r):
        out += [*per_task, ""]
    out += asks_block(r)
    return out


def asks_block(r: FileAssessment) -> list[str]:
    """What to ask the vendor: each request once, with the claims it concerns."""
    if not r.asks:
        return []
    out = [f"  {r.asks_heading}:"]  # whom they address: who made the record (offer.source)
    for n, a in enumerate(r.asks, 1):
        about = f" (claim{'s' * (len(a.claims) != 1)} {', '.join(a.claims)}; {a.code})" if a.claims else f" ({a.code})"
        out.append(f"    {n}. {shown(a.text)}{about}")
    out.append("")
    return out


def _at(f: Finding) -> str:
    return shown(f.pointer or "/") + (f" (line {f.line})" if f.line is not None else "")


def _accounting(r: FileAssessment) -> list[str]:
    header = ("run", "S", "P", "A", "B", "E", "T (s)", "A/P", "1+A/S", "E/T tok/s", "A/T", "P/T", "spread")
    metrics = list(r.metrics.values())
    if not metrics:  # claims sent with no runs (evidence-missing says so)
        return []
    # One precision per column, every row with the same decimals (run_columns, as the PDF).
    cells = run_columns(metrics)
    rows: list[tuple[str, ...]] = [header]
    for k, m in enumerate(metrics):
        spread = "-"
        if m.spread is not None:
            low, high = column([m.spread.minimum, m.spread.maximum])
            spread = f"{m.spread.repetitions} reps, {low}-{high}"
        rows.append((shown(m.run), *(cells[k][name] for name in FIELDS), spread))
    widths = [max(len(row[k]) for row in rows) for k in range(len(header))]
    lines = ["  accounting per run (E/T is the output throughput; A/P and 1+A/S are diagnostics):"]
    for row in rows:
        lines.append("    " + "  ".join(cell.ljust(w) if k == 0 else cell.rjust(w) for k, (cell, w) in enumerate(zip(row, widths))).rstrip())
    return lines
