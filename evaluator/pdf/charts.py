"""Vector charts for the report, written as inline SVG.

Hand-written rather than matplotlib: two small chart kinds do not justify a 0.5 s import.
Series are told apart by line style and marker shape, not colour, so a grey printout
reads the same. Every label goes through xml escaping.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from ..context import num

FONT = "DejaVu Sans, sans-serif"
# Line style and marker per series, in order: solid/filled circle, dashed/open square, dotted/diamond.
STYLES = (
    {"dash": "", "marker": "circle", "fill": "#000"},
    {"dash": "6 3", "marker": "square", "fill": "#fff"},
    {"dash": "2 2", "marker": "diamond", "fill": "#888"},
)


@dataclass(frozen=True)
class Series:
    label: str
    points: list[tuple[float, float]]  # (x, y)


def nice_ticks(top: float, count: int = 5) -> list[float]:
    """0 and round steps up to at least `top` (1, 2, 2.5 or 5 times a power of ten)."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    ticks = [0.0]
    while ticks[-1] < top:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def log_ticks(low: float, high: float) -> list[float]:
    """1-2-5 steps per decade from just below `low` to just above `high` (both > 0)."""
    ticks: list[float] = []
    decade = 10.0 ** math.floor(math.log10(low))
    while not ticks or ticks[-1] < high:
        for m in (1, 2, 5):
            value = m * decade
            if value * 5 >= low and (not ticks or ticks[-1] < high):
                ticks.append(value)
        decade *= 10
    while len(ticks) > 2 and ticks[1] <= low:
        ticks.pop(0)
    return ticks


def _text(x: float, y: float, text: str, *, size: float = 9, anchor: str = "middle", extra: str = "") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-family="{FONT}" font-size="{size}" '
        f'text-anchor="{anchor}" fill="#000"{extra}>{escape(text)}</text>'
    )


def _marker(kind: str, x: float, y: float, fill: str) -> str:
    if kind == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{fill}" stroke="#000" stroke-width="1.2"/>'
    if kind == "square":
        return f'<rect x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7" fill="{fill}" stroke="#000" stroke-width="1.2"/>'
    return (
        f'<polygon points="{x:.1f},{y - 4.5:.1f} {x + 4.5:.1f},{y:.1f} {x:.1f},{y + 4.5:.1f} {x - 4.5:.1f},{y:.1f}" '
        f'fill="{fill}" stroke="#000" stroke-width="1.2"/>'
    )


def line_chart(series: list[Series], *, title: str, x_label: str, y_label: str, width: int = 500, height: int = 290) -> str:
    """Log y over a log2 x axis (concurrency 1, 8, 64, 256 spread evenly), one line per series.
    On a log y axis a speedup is the vertical gap, whatever the throughput's size."""
    series = [Series(s.label, [(x, y) for x, y in s.points if x > 0 and y > 0]) for s in series]
    xs = sorted({x for s in series for x, _ in s.points})
    ys = [y for s in series for _, y in s.points]
    if not xs or not ys:
        return ""
    left, right, top, bottom = 62, 14, 30, 62
    plot_w, plot_h = width - left - right, height - top - bottom
    lo, hi = math.log2(xs[0]), math.log2(xs[-1])
    span = hi - lo or 1.0
    ticks = log_ticks(min(ys), max(ys))
    y_lo, y_hi = math.log10(ticks[0]), math.log10(ticks[-1])

    def px(x: float) -> float:
        return left + (plot_w / 2 if hi == lo else (math.log2(x) - lo) / span * plot_w)

    def py(y: float) -> float:
        return top + plot_h - (math.log10(y) - y_lo) / (y_hi - y_lo or 1.0) * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label={quoteattr(title)}>',
        _text(width / 2, 16, title, size=10.5, extra=' font-weight="bold"'),
    ]
    for t in ticks:
        y = py(t)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#ccc" stroke-width="0.6"/>')
        parts.append(_text(left - 5, y + 3, num(t if t % 1 else int(t)), size=8, anchor="end"))
    for x in xs:
        parts.append(f'<line x1="{px(x):.1f}" y1="{top + plot_h}" x2="{px(x):.1f}" y2="{top + plot_h + 4}" stroke="#000"/>')
        parts.append(_text(px(x), top + plot_h + 15, num(int(x) if float(x).is_integer() else x), size=8))
    parts.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#000" stroke-width="0.8"/>')
    parts.append(_text(left + plot_w / 2, height - 30, x_label, size=9))
    parts.append(_text(14, top + plot_h / 2, y_label, size=9, extra=f' transform="rotate(-90 14 {top + plot_h / 2:.1f})"'))
    legend_x = left
    for i, s in enumerate(series):
        style = STYLES[i % len(STYLES)]
        pts = sorted(s.points)
        dash = f' stroke-dasharray="{style["dash"]}"' if style["dash"] else ""
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
        parts.append(f'<polyline points="{path}" fill="none" stroke="#000" stroke-width="1.6"{dash}/>')
        parts += [_marker(style["marker"], px(x), py(y), style["fill"]) for x, y in pts]
        ly = height - 10
        parts.append(f'<line x1="{legend_x}" y1="{ly - 3}" x2="{legend_x + 26}" y2="{ly - 3}" stroke="#000" stroke-width="1.6"{dash}/>')
        parts.append(_marker(style["marker"], legend_x + 13, ly - 3, style["fill"]))
        parts.append(_text(legend_x + 32, ly, s.label, size=8.5, anchor="start"))
        legend_x += 40 + 5.2 * len(s.label)
    parts.append("</svg>")
    return "\n".join(parts)


def bar_chart(counts: list[int], *, title: str, x_label: str, y_label: str, width: int = 250, height: int = 190) -> str:
    """One bar per accepted length j = 0..K, labelled with its share of all steps."""
    if not counts:
        return ""
    left, right, top, bottom = 52, 8, 28, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    ticks = nice_ticks(max(counts), 4)
    y_max = ticks[-1]
    total = sum(counts)
    slot = plot_w / len(counts)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label={quoteattr(title)}>',
        _text(width / 2, 14, title, size=9.5, extra=' font-weight="bold"'),
    ]
    for t in ticks:
        y = top + plot_h - t / y_max * plot_h
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#ccc" stroke-width="0.6"/>')
        parts.append(_text(left - 4, y + 3, num(t if t % 1 else int(t)), size=7.5, anchor="end"))
    for j, c in enumerate(counts):
        h = c / y_max * plot_h
        x = left + j * slot + slot * 0.18
        parts.append(f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{slot * 0.64:.1f}" height="{h:.1f}" fill="#777" stroke="#000" stroke-width="0.8"/>')
        share = f"{100 * c / total:.0f} %" if total else "-"
        parts.append(_text(left + (j + 0.5) * slot, top + plot_h - h - 3, share, size=7.5))
        parts.append(_text(left + (j + 0.5) * slot, top + plot_h + 12, str(j), size=8))
    parts.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#000"/>')
    parts.append(_text(left + plot_w / 2, height - 8, x_label, size=8.5))
    parts.append(_text(12, top + plot_h / 2, y_label, size=8.5, extra=f' transform="rotate(-90 12 {top + plot_h / 2:.1f})"'))
    parts.append("</svg>")
    return "\n".join(parts)
