"""Text for `sdeval assess OFFER... --requirements PROFILE`: the requirements x offers table,
the reason behind every cell, the ranking in plain sentences, and the figures across loads."""

from __future__ import annotations

from ..wording import REQUIREMENT_STATUS as _STATUS
from ..wording import column, loads_text, num
from .results import Comparison


def _table(rows: list[tuple[str, ...]], indent: str = "  ") -> list[str]:
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
        out.append(
            f"  {s.rank}. {s.name}: meets {s.met} of {total}, not met {s.not_met}, not established {s.not_established} ({evidence})"
        )
    out += [f"  {line}" for line in c.statements]
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
            rows.append((
                str(p.concurrency),
                p.run,
                tps[k],
                p.baseline_run or "-",
                base[k],
                speedups[k] + ("x" if p.speedup is not None else ""),
                "" if p.established else "not established",
            ))
        out += _table(rows, "    ")
        out.append(f"    {series.break_even.text}")
    return out
