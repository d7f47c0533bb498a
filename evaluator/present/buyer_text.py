"""Text for `sdeval assess OFFER... --requirements PROFILE`: the requirements x offers table,
the reason behind every cell, the ranking in plain sentences, and the figures across loads."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ..buyer.costs import PER_REQUEST
from ..buyer.results import Comparison
from ..engine.wording import REQUIREMENT_STATUS as _STATUS
from ..engine.wording import column, loads_text, money, num


def _table(rows: Sequence[tuple[str, ...]], indent: str = "  ") -> list[str]:
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    return [indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]


def render(c: Comparison) -> str:
    p = c.profile
    out = [f"requirements: {c.profile_file} ({p.buyer.name}{', ' + p.buyer.profile_id if p.buyer.profile_id else ''})"]
    if p.source:
        out.append(f"  source: {p.source}")
    out.append(f"  loads: {loads_text(c.profile.loads)}; baseline: {c.baseline}")
    out.append("")
    offers = c.offer_files
    rows = [("requirement", *(c.name(f) for f in offers))]
    for req in c.requirements:
        rows.append((req.id, *(_STATUS[c.cell(req.id, f).status] for f in offers)))
    out += _table(rows)
    out.append("")
    out.append("ranking (only established evidence meets a requirement):")
    total = len(c.requirements)
    for s in c.standings:
        evidence = "evidence established" if s.evidence == "established" else f"evidence {s.evidence.replace('-', ' ').upper()}"
        out.append(f"  {s.rank}. {s.name}: meets {s.met} of {total}, not met {s.not_met}, not established {s.not_established} ({evidence})")
    out += [f"  {line}" for line in c.statements]
    out += _cost_summary(c)
    for s in c.standings:
        out.append("")
        out.append(f"{s.name} ({s.file}):")
        for req in c.requirements:
            cell = c.cell(req.id, s.file)
            codes = f" [{', '.join(cell.codes)}]" if cell.codes else ""
            out.append(f"  {req.id} ({req.text}): {_STATUS[cell.status]}{codes}")
            if s.evidence != "established":
                out.append("    the offer's evidence is not established, so it meets nothing; the evidence says:")
            if cell.points:
                out += [f"    {p.message}" for p in cell.points]
            else:
                out.append(f"    {cell.detail or cell.message}")
        out += _figures(c, s.file)
        out += _costs(c, s.file)
    return "\n".join(out) + "\n"


def _figures(c: Comparison, file: str) -> list[str]:
    out = []
    for series in c.series.get(file, []):
        out.append(f"  across loads, configuration {series.configuration} (baseline: {c.baseline}):")
        rows = [("concurrency", "run", "E/T tok/s", "baseline run", "baseline tok/s", "speedup", "")]
        points = series.points
        # Each figure column with one number of decimals (wording.column).
        tps, base, speedups = (column([getattr(p, k) for p in points]) for k in ("tokens_per_s", "baseline_tokens_per_s", "speedup"))
        for k, p in enumerate(points):
            rows.append(
                (
                    str(p.concurrency),
                    p.run,
                    tps[k],
                    p.baseline_run or p.refused or "-",
                    base[k],
                    speedups[k] + ("x" if p.speedup is not None else ""),
                    "" if p.established else "not established",
                )
            )
        out += _table(rows, "    ")
        out.append(f"    {series.break_even.text}")
    return out


LIMIT_WORDS = {"met": "met", "not-met": "NOT MET", "undecided": "undecided", "unknown": "figure missing", "none-stated": "no limits stated"}


def _cost_summary(c: Comparison) -> list[str]:
    e = c.economics
    if e is None:
        return []
    out = ["", "cost per million output tokens (the whole hour of the hardware charged to the output tokens emitted in it):"]
    out.append(f"  price: {e.price_text}")
    out.append(
        f"  within your limits: {'; '.join(e.limits) if e.limits else 'no latency or per-request throughput limits stated, so every load counts'}"
    )
    out.append(f"  tokens/s per user: {PER_REQUEST} for a closed-loop run, otherwise 1000 / TPOT (where a cell says so)")
    out.append(f"  goodput: {e.goodput}")
    out += [f"  {f.code}: {f.message}" for f in e.findings]
    for o in e.offers if e.price is not None else ():
        line = f"  {c.name(o.offer)}: cheapest within your limits {o.cheapest.text}"
        if o.baseline_cheapest is not None:
            line += f"; baseline {o.baseline_cheapest.text}; {o.ratio_text}"
        out.append(line)
    return out


def _costs(c: Comparison, file: str) -> list[str]:
    e = c.economics
    o = e.offer(file) if e is not None else None
    if e is None or o is None or not o.configurations:
        return []
    currency = e.price.currency if e.price else ""
    out = ["  cost and interactivity:" if e.price else "  throughput per accelerator and per user (no price, so no cost):"]
    priced = e.price is not None
    points = [p for config in o.configurations for p in config.points]
    counted = any(p.goodput.basis != "none" for p in points)  # the column only where some point has one
    rows = [
        (
            "load",
            "configuration",
            "role",
            "runs",
            "tok/s per accelerator",
            "tok/s per user",
            *(["goodput req/s"] if counted else []),
            *([f"{currency} per million tokens"] if priced else []),
            "within your limits",
        )
    ]
    good = iter(column([None if p.goodput.requests_per_s is None else float(p.goodput.requests_per_s) for p in points]))
    # One number of decimals per column (wording.column); costs in cents (wording.money).
    per_accelerator = iter(column([None if p.per_accelerator is None else float(p.per_accelerator) for p in points]))
    per_user = iter(column([None if p.per_user is None else float(p.per_user) for p in points]))
    for config in o.configurations:
        for p in config.points:
            accelerator, user = next(per_accelerator), next(per_user)
            cost = money(float(p.cost)) + (" (cheapest)" if p.cheapest else "") if p.cost is not None else f"- ({p.cost_note})"
            if p.bound:
                # Not measured: the bracket's worse measured figures, with the interpolation beside them, labelled.
                est = p.estimate
                accelerator = _bounded(">=", accelerator, None if est is None else est.per_accelerator)
                user = _bounded(">=", user, None if est is None else est.per_user)
                if p.cost is not None:
                    cost = _bounded("<=", money(float(p.cost)), None, None if est is None else est.cost) + (" (cheapest)" if p.cheapest else "")
            user += "" if p.per_user is None or p.per_user_basis == PER_REQUEST else f" ({p.per_user_basis})"
            limits = LIMIT_WORDS[p.limits] + (f" ({'; '.join(p.limit_notes)})" if p.limit_notes else "")
            if p.codes:
                limits += f" [{', '.join(p.codes)}]"
            rows.append(
                (
                    p.label
                    + (f" (not measured: between {' and '.join(num(b.load) for b in p.bracket)})" if p.bound else "")
                    + (" (outside your loads)" if p.outside_loads else ""),
                    config.configuration + ("" if config.offer == file else f" ({c.name(config.offer)})"),
                    config.role,
                    " - ".join(p.runs),
                    accelerator,
                    user,
                    *([_goodput_cell(next(good), p)] if counted else []),
                    *([cost] if priced else []),
                    limits,
                )
            )
    out += _table(rows, "    ")
    if any(p.bound for p in points):
        out.append(
            "    a load not measured is judged on the measured loads around it: >= and <= give the worse of their two measured"
            " figures; an estimate is interpolated linearly between them and decides nothing"
        )
    if e.price is not None:
        out += [f"    {config.configuration}: {config.hourly_text}" for config in o.configurations]
        out.append(f"    cheapest within your limits: {o.cheapest.text}")
        if o.baseline_cheapest is not None:
            out.append(f"    baseline's cheapest within your limits: {o.baseline_cheapest.text}")
            out.append(f"    {o.ratio_text}")
    out += [f"    frontier: {f.text}" for f in o.frontiers]
    out += [f"    goodput, {line}" for line in o.goodput_lines()]
    return out


def _bounded(sign: str, figure: str, estimate: Fraction | None, estimate_cost: Fraction | None = None) -> str:
    """A bracketed load's figure: the bound from measured points, and the interpolated estimate labelled."""
    if estimate_cost is not None:
        return f"{sign} {figure} (estimate {money(float(estimate_cost))})"
    return f"{sign} {figure}" + (f" (estimate {num(float(estimate))})" if estimate is not None else "")


def _goodput_cell(figure: str, p) -> str:
    if p.goodput.basis == "at-least":
        return f">= {figure}"
    return figure if p.goodput.basis == "counted" else "-"
