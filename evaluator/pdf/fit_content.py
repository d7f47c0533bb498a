"""The report's "Buyer requirements" section, gathered from the judged Comparison.

Every status, code, statement and break-even comes from fit.judge.compare (the same object
`sdeval assess --requirements` prints); this module only arranges it for the template and
draws the one chart with every offer and each baseline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from ..wording import REQUIREMENT_STATUS as STATUS_WORDS
from ..wording import loads_text
from .charts import Series, line_chart, offer_style
from .content import RuleOf

if TYPE_CHECKING:
    from ..fit.results import Comparison, Standing
# Told apart in grey print by a mark and the words, not by colour.
STATUS_MARKS = {"met": "\u2713", "not-met": "\u2717", "not-established": "?"}
TABLE_MM = 178  # A4 less the page margins; the requirement column keeps at least 50 mm


def headline(c: Comparison) -> tuple[str, str]:
    """The cover's headline with a profile, and its tone: the buyer's question answered (the
    evidence outcome comes second, since it is only part of that answer)."""
    meeting, total = len(c.meets_all), len(c.standings)
    if meeting == 0:
        return ("NO OFFER MEETS EVERY REQUIREMENT" if total > 1 else "DOES NOT MEET EVERY REQUIREMENT"), "not-met"
    if total == 1:
        return "MEETS EVERY REQUIREMENT", "met"
    return f"{meeting} OF {total} OFFERS MEET EVERY REQUIREMENT", "met"


def fit_context(c: Comparison, rule_of: RuleOf, attachment_of: dict[str, str] | None = None) -> dict[str, Any]:
    """`attachment_of`: the path a file was given as -> its name inside the PDF (the pages name
    the attached profile, not the path typed)."""
    p = c.profile
    offers = c.offer_files
    standing = {s.file: s for s in c.standings}
    words, tone = headline(c)
    offer_mm = min(45.0, (TABLE_MM - 50) / max(len(offers), 1))
    rows = []
    for req in c.requirements:
        cells = []
        for file in offers:
            cell = c.cell(req.id, file)
            cells.append({"status": cell.status, "mark": STATUS_MARKS[cell.status], "words": STATUS_WORDS[cell.status], "codes": list(cell.codes)})
        rows.append({"id": req.id, "text": req.text, "source": req.source, "cells": cells})
    codes = sorted({code for cell in c.cells for code in cell.codes})
    return {
        "headline": words,
        "tone": tone,
        "profile": {
            "file": (attachment_of or {}).get(c.profile_file, c.profile_file),
            "buyer": p.buyer.name,
            "profile_id": p.buyer.profile_id,
            "date": p.buyer.date,
            "source": p.source,
            "loads": loads_text(p.loads),
            "baseline": c.baseline,
        },
        "offers": [standing[f].as_dict() for f in offers],
        "offer_mm": round(offer_mm, 1),
        "rows": rows,
        "total": len(c.requirements),
        "standings": [s.as_dict() for s in c.standings],
        "statements": list(c.statements),
        # Under the headline, the statements it does not already say.
        "cover_statements": [line for line in c.statements if line != "No offer meets every requirement."],
        "codes": [{"code": code, "title": rule.title if (rule := rule_of(code)) else code} for code in codes],
        "reasons": [_reasons(c, s) for s in c.standings],
        "break_even": [
            {"offer": c.name(file), "configuration": s.configuration, "status": s.break_even.status, "text": s.break_even.text}
            for file, series in c.series.items()
            for s in series
        ],
        "chart": _chart(c),
    }


def _reasons(c: Comparison, s: Standing) -> dict[str, Any]:
    """What each cell rests on, as the text report gives it."""
    items = []
    for req in c.requirements:
        cell = c.cell(req.id, s.file)
        lines = [p.message for p in cell.points] or [cell.detail or cell.message]
        items.append({"id": req.id, "status": cell.status, "words": STATUS_WORDS[cell.status], "codes": list(cell.codes), "lines": lines})
    return {"name": s.name, "established": s.evidence == "established", "entries": items}


def _chart(c: Comparison) -> Markup | None:
    data = chart_data(c)
    offer_index = {file: i for i, file in enumerate(c.offer_files)}
    several = {file: len(series) > 1 for file, series in c.series.items()}
    baseline_offer = c.profile.baseline.offer_id if c.profile.baseline.kind == "offer" else None
    series = []
    for line in data["lines"]:
        if not line["points"]:
            continue
        name = c.name(line["offer"]) + (f" {line['configuration']}" if several.get(line["offer"]) else "")
        if line["role"] == "baseline":
            label = f"{name}: baseline" + (f" (offer {baseline_offer})" if baseline_offer else " (target-only)")
        else:
            label = name + ("" if line["established"] else " (not established)")
        style = offer_style(offer_index.get(line["offer"], 0), baseline=line["role"] == "baseline", established=line["established"])
        series.append(Series(label, [(float(x), float(y)) for x, y in line["points"]], style))
    svg = line_chart(
        series,
        title="Output throughput by concurrency: every offer and its baseline",
        x_label="concurrent requests (closed loop, log scale)",
        y_label="output tokens/s (E / T, log scale)",
        width=660,
        height=320,
    )
    return Markup(svg) if svg else None


def chart_data(c: Comparison) -> dict[str, Any]:
    """For a throughput-vs-concurrency chart: one line per offered configuration and one per
    baseline, each a list of (concurrency, tokens/s) measured points, plus each break-even."""
    lines = []
    for file, series_list in c.series.items():
        for s in series_list:
            lines.append({
                "offer": file,
                "configuration": s.configuration,
                "role": "offer",
                "points": [(p.concurrency, p.tokens_per_s) for p in s.points if p.tokens_per_s is not None],
                "established": all(p.established for p in s.points),
                "break_even": s.break_even.as_dict(),
            })
            base = [(p.concurrency, p.baseline_tokens_per_s) for p in s.points if p.baseline_tokens_per_s is not None]
            if base:
                lines.append({"offer": file, "configuration": s.configuration, "role": "baseline", "points": base,
                              "established": lines[-1]["established"], "break_even": None})
    return {"x": "concurrency", "y": "output tokens/s (E / T)", "lines": lines}
