"""--format text: what a buyer reads in a terminal.

validate prints one line per finding, grep-friendly:
    FILE[:LINE:COL]: POINTER: SEVERITY CODE: MESSAGE
assess adds each claim's verdict, the figures behind it and the per-run accounting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..assessment import FileAssessment, Finding
from ..rules import REGISTRY
from ..wording import VERDICT_TEXT, num

if TYPE_CHECKING:
    from ..fit.results import Comparison


def _where(r: FileAssessment, f: Finding) -> str:
    place = r.file
    if f.line is not None:
        place += f":{f.line}:{f.column}"
    return f"{place}: {f.pointer or '/'}"


def finding_line(r: FileAssessment, f: Finding) -> str:
    claim = f" [claim {f.claim}]" if f.claim else ""
    return f"{_where(r, f)}: {f.severity} {f.code}: {f.message}{claim}"


def _summary(r: FileAssessment) -> str:
    verdict = VERDICT_TEXT[r.outcome]
    e, w, i = r.count("error"), r.count("warning"), r.count("info")
    return f"{r.file}: {verdict} ({e} error{'s' * (e != 1)}, {w} warning{'s' * (w != 1)}, {i} info)"


def render(results: list[FileAssessment], full: bool, comparison: Comparison | None = None) -> str:
    out: list[str] = []
    for r in results:
        if full:
            out += _assessment(r)
        else:
            out += [finding_line(r, f) for f in r.findings]
            out.append(_summary(r))
    text = "\n".join(out) + "\n"
    if comparison is not None:
        from ..fit.text import render as requirements_text

        text += "\n" + requirements_text(comparison)
    return text


def _figure(d: dict | None) -> str:
    """Computed figures at full precision (the buyer can check them by hand), with the unit."""
    if d is None or d["value"] is None:
        return ""
    value = d["value"]
    shown = repr(value) if value != int(value) else str(int(value))
    unit = {"x": "x", "fraction": ""}.get(d["unit"], f" {d['unit']}")
    return f"{d['figure']} = {shown}{unit}"


def _assessment(r: FileAssessment) -> list[str]:
    out = [_summary(r)]
    if r.record is None:
        out += ["  " + finding_line(r, f) for f in r.findings]
        out.append("")
        out += asks_block(r)
        return out
    offer = r.record.offer
    out.append(f"  offer: {offer.vendor}, {offer.offer_id}, {offer.date or 'date not stated'}")
    out.append(f"  vendor's claim: {offer.claim_text}")
    for c in r.claims:
        out.append("")
        verdict = VERDICT_TEXT[c.verdict]
        out.append(f"  claim {c.id} ({c.kind}): \"{c.text}\": {verdict}")
        figures = [x for x in (_figure(c.computed), _figure(c.output)) if x]
        if figures:
            out.append("    computed: " + "; ".join(dict.fromkeys(figures)))
        for f in c.findings:
            if f.severity == "info" and f.claim != c.id:
                continue  # shared notes are listed once, below
            out.append(f"    {f.severity} {f.code} at {f.pointer or '/'}: {f.message}")
            if f.severity == "error":
                out.append(f"      why it matters: {REGISTRY[f.code].title}.")
    shown = {id(f) for c in r.claims for f in c.findings if f.severity != "info" or f.claim == c.id}
    unclaimed = [f for f in r.findings if id(f) not in shown]
    if unclaimed:
        out.append("")
        out.append("  other findings:")
        out += [f"    {f.severity} {f.code} at {f.pointer or '/'}: {f.message}" for f in unclaimed]
    out.append("")
    out += _accounting(r)
    out.append("")
    out += asks_block(r)
    return out


def asks_block(r: FileAssessment) -> list[str]:
    """What to ask the vendor: each request once, with the claims it concerns."""
    if not r.asks:
        return []
    out = ["  What to ask the vendor:"]
    for n, a in enumerate(r.asks, 1):
        about = f" (claim{'s' * (len(a.claims) != 1)} {', '.join(a.claims)}; {a.code})" if a.claims else f" ({a.code})"
        out.append(f"    {n}. {a.text}{about}")
    out.append("")
    return out


def _accounting(r: FileAssessment) -> list[str]:
    header = ("run", "S", "P", "A", "B", "E", "T (s)", "A/P", "1+A/S", "E/T tok/s", "A/T", "P/T", "spread")
    rows = [header]
    for m in r.metrics.values():
        spread = ""
        if m.spread is not None:
            spread = f"{m.spread.repetitions} reps, {num(m.spread.minimum)}-{num(m.spread.maximum)}"
        rows.append(
            (
                m.run,
                *(num(x) if x is not None else "-" for x in (m.verification_steps, m.proposed_drafts, m.accepted_drafts, m.bonus_tokens, m.emitted_tokens)),
                "-" if m.duration_s is None else f"{m.duration_s:g}",
                *(num(x) if x is not None else "-" for x in (m.acceptance_rate, m.mean_acceptance_length, m.emitted_tokens_per_s, m.accepted_tokens_per_s, m.proposed_tokens_per_s)),
                spread or "-",
            )
        )
    widths = [max(len(row[k]) for row in rows) for k in range(len(header))]
    lines = ["  accounting per run (E/T is the output throughput; A/P and 1+A/S are diagnostics):"]
    for row in rows:
        lines.append("    " + "  ".join(cell.ljust(w) if k == 0 else cell.rjust(w) for k, (cell, w) in enumerate(zip(row, widths))).rstrip())
    return lines
