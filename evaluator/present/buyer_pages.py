"""The report's "Buyer requirements" section, gathered from the judged Comparison.

Every status, code, statement and break-even comes from fit.judge.compare (the same object
`sdeval assess --requirements` prints); this module only arranges it for the template and
draws the one chart with every offer and each baseline.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from ..engine.wording import REQUIREMENT_STATUS as STATUS_WORDS
from ..engine.wording import column, loads_text, money, num
from .charts import Series, frontier_chart, line_chart, offer_style

# The rule catalog entry behind a code (rules.lookup), by which the PDF explains findings.
RuleOf = Callable[[str], Any]

if TYPE_CHECKING:
    from ..buyer.costs import Economics, OfferCosts
    from ..buyer.results import Comparison, Standing

# Told apart in grey print by a mark and the words, not by colour.
STATUS_MARKS = {"met": "\u2713", "not-met": "\u2717", "not-established": "?"}
# A load against the buyer's per-user limits, in the cost table and beside the frontier chart's points.
LIMIT_MARKS = {"met": "\u2713", "none-stated": "\u2713", "not-met": "\u2717", "undecided": "?", "unknown": "?"}
LIMIT_WORDS = {"met": "within", "none-stated": "no limits", "not-met": "NOT within", "undecided": "undecided", "unknown": "figure missing"}
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
        "costs": _costs(c.economics, c.name) if c.economics is not None else None,
    }


def _costs(e: Economics, name: Callable[[str], str]) -> dict[str, Any]:
    """The cost section: the price, what "within your limits" means, and per offer the cost table,
    the cheapest point against the baseline's, and the frontier chart with its sentence."""
    return {
        "price": e.price_text,
        "priced": e.price is not None,
        "currency": e.price.currency if e.price else None,
        "limits": list(e.limits),
        "interactivity": [x.text for x in e.interactivity_limits],
        "goodput": e.goodput,
        "findings": [f.as_dict() for f in e.findings],
        "offers": [_offer_costs(e, o, name) for o in e.offers],
    }


def _offer_costs(e: Economics, o: OfferCosts, name: Callable[[str], str]) -> dict[str, Any]:
    rows = []
    points = [p for config in o.configurations for p in config.points]
    # One number of decimals per column (wording.column); costs in cents (wording.money).
    per_accelerator = iter(column([None if p.per_accelerator is None else float(p.per_accelerator) for p in points]))
    per_user = iter(column([None if p.per_user is None else float(p.per_user) for p in points]))
    good = iter(column([None if p.goodput.requests_per_s is None else float(p.goodput.requests_per_s) for p in points]))
    for config in o.configurations:
        for p in config.points:
            good_figure = next(good)
            est = p.estimate
            rows.append(
                {
                    "configuration": config.configuration,
                    "role": config.role,
                    "load": p.label,
                    # Not measured: the figures are the bracket's worse measured ones ("at least", "at most"),
                    # each with the interpolated estimate beside it, labelled.
                    "bracket": " and ".join(num(b.load) for b in p.bracket) if p.bound else None,
                    "bound": p.bound,
                    "outside_loads": p.outside_loads,
                    "runs": " \u2013 ".join(p.runs),
                    "per_accelerator": next(per_accelerator),
                    "per_user": next(per_user),
                    "estimate_per_accelerator": num(float(est.per_accelerator)) if est and est.per_accelerator is not None else None,
                    "estimate_per_user": num(float(est.per_user)) if est and est.per_user is not None else None,
                    "estimate_cost": money(float(est.cost)) if est and est.cost is not None else None,
                    "per_user_basis": p.per_user_basis if p.per_user_basis and p.per_user_basis != "E / T / concurrency" else None,
                    "goodput": good_figure if p.goodput.basis != "none" else "-",
                    "goodput_basis": {"at-least": "at least", "counted": "counted"}.get(p.goodput.basis),
                    "cost": money(float(p.cost)) if p.cost is not None else None,
                    "cost_note": p.cost_note,
                    "cheapest": p.cheapest,
                    "limits": p.limits,
                    "mark": LIMIT_MARKS[p.limits],
                    "words": LIMIT_WORDS[p.limits],
                    "notes": list(p.limit_notes),
                    "codes": list(p.codes),
                }
            )
    return {
        "file": name(o.offer),
        "rows": rows,
        "bracketed": any(r["bound"] for r in rows),
        "goodput": o.goodput_lines(),  # a goodput column only where some point has one
        "hourly": [f"{c.configuration}: {c.hourly_text}" for c in o.configurations],
        "cheapest": o.cheapest.text,
        "baseline_cheapest": o.baseline_cheapest.text if o.baseline_cheapest else None,
        "ratio": o.ratio_text,
        "frontiers": [f.text for f in o.frontiers],
        "chart": _frontier_chart(e, o, name),
    }


def _frontier_chart(e: Economics, o: OfferCosts, name: Callable[[str], str]) -> Markup | None:
    """Tokens/s per accelerator against tokens/s per user, one line per configuration (offered solid
    and filled, baseline dashed and open), every measured point labelled with its concurrency and
    marked when it is outside the buyer's limits, and the buyer's interactivity limits drawn in."""
    series = []
    for i, config in enumerate(o.configurations):
        points = [p for p in config.points if p.basis == "measured" and p.per_user is not None and p.per_accelerator is not None]
        if not points:
            continue
        established = all(p.established for p in points)
        label = f"{config.configuration} ({'offered' if config.role == 'offered' else 'baseline'})"
        if config.offer != o.offer:
            label += f", {name(config.offer)}"
        series.append(
            Series(
                label + ("" if established else " (not established)"),
                [(float(p.per_user), float(p.per_accelerator)) for p in points],  # type: ignore[arg-type]  # points with both, filtered above
                offer_style(i, baseline=config.role == "baseline", established=established),
                [p.label + ("" if p.within_limits else f" {LIMIT_MARKS[p.limits]}") + (" cheapest" if p.cheapest else "") for p in points],
            )
        )
    svg = frontier_chart(
        series,
        title="Throughput per accelerator against tokens/s per user",
        x_label="output tokens/s per user (interactivity)",
        y_label="output tokens/s per accelerator",
        x_marks=[(float(x.tokens_per_s_per_user), x.text) for x in e.interactivity_limits],
    )
    return Markup(svg) if svg else None


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
            lines.append(
                {
                    "offer": file,
                    "configuration": s.configuration,
                    "role": "offer",
                    "points": [(p.concurrency, p.tokens_per_s) for p in s.points if p.tokens_per_s is not None],
                    "established": all(p.established for p in s.points),
                    "break_even": s.break_even.as_dict(),
                }
            )
            base = [(p.concurrency, p.baseline_tokens_per_s) for p in s.points if p.baseline_tokens_per_s is not None]
            if base:
                lines.append(
                    {
                        "offer": file,
                        "configuration": s.configuration,
                        "role": "baseline",
                        "points": base,
                        "established": lines[-1]["established"],
                        "break_even": None,
                    }
                )
    return {"x": "concurrency", "y": "output tokens/s (E / T)", "lines": lines}
