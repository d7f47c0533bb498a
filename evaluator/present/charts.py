"""Vector charts for the report, written as inline SVG.

Hand-written rather than matplotlib: two small chart kinds do not justify a 0.5 s import.
Series are told apart by line style and marker shape, not colour, so a grey printout
reads the same. Every label goes through xml escaping.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from ..engine.wording import column, num

FONT = "DejaVu Sans, sans-serif"
# Line style and marker per series, in order: solid/filled circle, dashed/open square, dotted/diamond.
STYLES: tuple[dict[str, Any], ...] = (
    {"dash": "", "marker": "circle", "fill": "#000"},
    {"dash": "6 3", "marker": "square", "fill": "#fff"},
    {"dash": "2 2", "marker": "diamond", "fill": "#888"},
)
# For many offers on one plot: one marker shape per offer (growing, so where two offers measured
# the same figure the smaller marker, drawn last, stays visible on the larger), filled for the
# offer and open for its baseline; offer lines solid-ish, baseline lines dashed, each its own pattern.
OFFER_MARKERS = ("circle", "square", "diamond", "triangle")
OFFER_SIZES = (3.5, 4.6, 5.8, 6.6)
OFFER_FILLS = ("#000", "#777", "#000", "#777")
OFFER_DASHES = ("", "10 2 2 2", "14 3", "4 1.5")
BASELINE_DASHES = ("6 3", "2 2", "6 2 1 2 1 2", "1 3")


@dataclass(frozen=True)
class Series:
    label: str
    points: list[tuple[float, float]]  # (x, y)
    style: dict | None = None  # dash, marker, fill (and optional size, stroke); default: STYLES in turn
    point_labels: list[str] | None = None  # text beside each point, in the order of points (frontier_chart)


def offer_style(index: int, *, baseline: bool, established: bool = True) -> dict:
    """The style of offer `index`'s line (or of its baseline's) in a many-offer chart."""
    k = index % len(OFFER_MARKERS)
    return {
        "dash": BASELINE_DASHES[k] if baseline else OFFER_DASHES[k],
        "marker": OFFER_MARKERS[k],
        "size": OFFER_SIZES[k],
        "fill": "#fff" if baseline else (OFFER_FILLS[k] if established else "#bbb"),
        # Evidence that is not established is drawn in grey, and says so in its label.
        "stroke": "#000" if established else "#888",
    }


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


def log_ticks(low: float, high: float, steps: tuple[float, ...] = (1, 2, 5)) -> list[float]:
    """1-2-5 steps per decade from just below `low` to just above `high` (both > 0); finer steps
    when that gives fewer than four ticks, so a narrow range still has values to read against."""
    ticks: list[float] = []
    decade = 10.0 ** math.floor(math.log10(low))
    while not ticks or ticks[-1] < high:
        for m in steps:
            value = m * decade
            if value * 5 >= low and (not ticks or ticks[-1] < high):
                ticks.append(value)
        decade *= 10
    while len(ticks) > 2 and ticks[1] <= low:
        ticks.pop(0)
    if len(ticks) < 4 and len(steps) == 3:
        return log_ticks(low / 1.15, high * 1.15, (1, 1.5, 2, 3, 5, 7))  # keep the points off the frame
    return ticks


def _text(x: float, y: float, text: str, *, size: float = 9, anchor: str = "middle", extra: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" font-family="{FONT}" font-size="{size}" text-anchor="{anchor}" fill="#000"{extra}>{escape(text)}</text>'


def _marker(kind: str, x: float, y: float, fill: str, size: float | None = None, stroke: str = "#000") -> str:
    edge = f'fill="{fill}" stroke="{stroke}" stroke-width="1.2"'
    if kind == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{size or 3.5:.1f}" {edge}/>'
    if kind == "square":
        h = size or 3.5
        return f'<rect x="{x - h:.1f}" y="{y - h:.1f}" width="{2 * h:.1f}" height="{2 * h:.1f}" {edge}/>'
    h = size or 4.5
    if kind == "triangle":
        return f'<polygon points="{x:.1f},{y - h:.1f} {x + h:.1f},{y + 0.8 * h:.1f} {x - h:.1f},{y + 0.8 * h:.1f}" {edge}/>'
    return f'<polygon points="{x:.1f},{y - h:.1f} {x + h:.1f},{y:.1f} {x:.1f},{y + h:.1f} {x - h:.1f},{y:.1f}" {edge}/>'


def _legend_rows(labels: list[str], width: float, left: float) -> list[list[tuple[int, float]]]:
    """(series index, x) per legend entry, wrapped into rows that fit the chart's width."""
    rows: list[list[tuple[int, float]]] = [[]]
    x = left
    for i, label in enumerate(labels):
        entry = 40 + 5.2 * len(label)
        if rows[-1] and x + entry > width - 4:
            rows.append([])
            x = left
        rows[-1].append((i, x))
        x += entry
    return rows


@dataclass(frozen=True)
class _Axis:
    ticks: list[float]  # values with a label, lowest first
    fraction: Callable[[float], float]  # value -> 0..1 along the axis
    grid: bool  # a light grid line at every tick (else a short tick mark)


def _log2_axis(xs: list[float]) -> _Axis:
    """Concurrency 1, 8, 64, 256 spread evenly, labelled where measured."""
    lo, hi = math.log2(xs[0]), math.log2(xs[-1])
    span = hi - lo or 1.0
    return _Axis(xs, lambda x: 0.5 if hi == lo else (math.log2(x) - lo) / span, grid=False)


def _log10_axis(values: list[float]) -> _Axis:
    ticks = log_ticks(min(values), max(values))
    lo, hi = math.log10(ticks[0]), math.log10(ticks[-1])
    return _Axis(ticks, lambda v: (math.log10(v) - lo) / (hi - lo or 1.0), grid=True)


def _linear_axis(values: list[float]) -> _Axis:
    """From 0, so a length on the chart is proportional to the figure; some room above the highest
    value for the labels beside the points."""
    ticks = nice_ticks(max(values) * 1.08)
    return _Axis(ticks, lambda v: v / ticks[-1], grid=True)


def _alternative(title: str, text: str) -> str:
    """The chart's alternative text, as the SVG <title> a tagged PDF gives its Figure (/Alt)."""
    return f"<title>{escape(title + '. ' + text)}</title>"


def line_text(series: list[Series], x_name: str, y_unit: str) -> str:
    """What a line chart shows, in words a screen reader can read: every series' measured points."""
    parts = []
    for s in series:
        ys = column([y for _, y in sorted(s.points)])
        points = ", ".join(f"{y} {y_unit} at {x_name} {num(x)}" for (x, _), y in zip(sorted(s.points), ys))
        parts.append(f"{s.label}: {points or 'no measured point'}.")
    return " ".join(parts)


def line_chart(
    series: list[Series],
    *,
    title: str,
    x_label: str,
    y_label: str,
    width: int = 500,
    height: int = 290,
    x_name: str = "concurrency",
    y_unit: str = "tokens/s",
) -> str:
    """Log y over a log2 x axis (concurrency 1, 8, 64, 256 spread evenly), one line per series.
    On a log y axis a speedup is the vertical gap, whatever the throughput's size."""
    series = [Series(s.label, [(x, y) for x, y in s.points if x > 0 and y > 0], s.style) for s in series]
    xs = sorted({x for s in series for x, _ in s.points})
    ys = [y for s in series for _, y in s.points]
    if not xs or not ys:
        return ""
    return _chart(
        series,
        _log2_axis(xs),
        _log10_axis(ys),
        title=title,
        x_label=x_label,
        y_label=y_label,
        width=width,
        height=height,
        x_name=x_name,
        y_unit=y_unit,
    )


def frontier_chart(
    series: list[Series],
    *,
    title: str,
    x_label: str,
    y_label: str,
    x_marks: Sequence[tuple[float, str]] = (),
    width: int = 660,
    height: int = 320,
    x_name: str = "tokens/s per user",
    y_unit: str = "tokens/s per accelerator",
) -> str:
    """Linear axes from 0, one line per series joined in order of x, each point labelled with its
    series' `point_labels` (concurrency), and a dashed vertical line at each of `x_marks` (a limit)."""
    series = [s for s in series if s.points]
    xs = [x for s in series for x, _ in s.points] + [x for x, _ in x_marks]
    ys = [y for s in series for _, y in s.points]
    if not ys:
        return ""
    return _chart(
        series,
        _linear_axis(xs),
        _linear_axis(ys),
        title=title,
        x_label=x_label,
        y_label=y_label,
        width=width,
        height=height,
        x_marks=x_marks,
        x_name=x_name,
        y_unit=y_unit,
    )


def _chart(
    series: list[Series],
    x_axis: _Axis,
    y_axis: _Axis,
    *,
    title: str,
    x_label: str,
    y_label: str,
    width: int,
    height: int,
    x_name: str,
    y_unit: str,
    x_marks: Sequence[tuple[float, str]] = (),
) -> str:
    left, right, top, bottom = 62, 14, 30, 62
    legend = _legend_rows([s.label for s in series], width, left)
    height += 13 * (len(legend) - 1)  # the plot keeps its size; extra legend rows go below it
    plot_w, plot_h = width - left - right, height - top - bottom - 13 * (len(legend) - 1)

    def px(x: float) -> float:
        return left + x_axis.fraction(x) * plot_w

    def py(y: float) -> float:
        return top + plot_h - y_axis.fraction(y) * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label={quoteattr(title)}>',
        _alternative(title, f"Measured points, {x_label} against {y_label}. " + line_text(series, x_name, y_unit)),
        _text(width / 2, 16, title, size=10.5, extra=' font-weight="bold"'),
    ]
    for t in y_axis.ticks:
        y = py(t)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#ccc" stroke-width="0.6"/>')
        parts.append(_text(left - 5, y + 3, num(t if t % 1 else int(t)), size=8, anchor="end"))
    for x in x_axis.ticks:
        if x_axis.grid:
            parts.append(f'<line x1="{px(x):.1f}" y1="{top}" x2="{px(x):.1f}" y2="{top + plot_h}" stroke="#ccc" stroke-width="0.6"/>')
        parts.append(f'<line x1="{px(x):.1f}" y1="{top + plot_h}" x2="{px(x):.1f}" y2="{top + plot_h + 4}" stroke="#000"/>')
        parts.append(_text(px(x), top + plot_h + 15, num(int(x) if float(x).is_integer() else x), size=8))
    parts.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#000" stroke-width="0.8"/>')
    parts.append(_text(left + plot_w / 2, top + plot_h + 32, x_label, size=9))
    parts.append(_text(14, top + plot_h / 2, y_label, size=9, extra=f' transform="rotate(-90 14 {top + plot_h / 2:.1f})"'))
    for i, (x, label) in enumerate(x_marks):
        # A limit: a heavy dash-dot line, unlike any series' pattern, labelled inside the plot's top edge.
        parts.append(
            f'<line x1="{px(x):.1f}" y1="{top}" x2="{px(x):.1f}" y2="{top + plot_h}" stroke="#000" stroke-width="1.2" stroke-dasharray="8 2 1 2"/>'
        )
        # Right of the line, or left of it where the label would run past the plot's right edge.
        fits = px(x) + 4 + 4.7 * len(label) <= left + plot_w
        parts.append(_text(px(x) + (4 if fits else -4), top + 11 + 11 * i, label, size=8, anchor="start" if fits else "end"))
    styles = [s.style or STYLES[i % len(STYLES)] for i, s in enumerate(series)]

    def dash(style: dict) -> str:
        return f' stroke-dasharray="{style["dash"]}"' if style["dash"] else ""

    # Every line first, then the markers, largest first: a smaller marker stays visible on a larger one.
    for s, style in zip(series, styles):
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in sorted(s.points))
        parts.append(f'<polyline points="{path}" fill="none" stroke="{style.get("stroke", "#000")}" stroke-width="1.6"{dash(style)}/>')
    for s, style in sorted(zip(series, styles), key=lambda pair: -(pair[1].get("size") or 3.5)):
        parts += [_marker(style["marker"], px(x), py(y), style["fill"], style.get("size"), style.get("stroke", "#000")) for x, y in sorted(s.points)]
    parts += _point_labels(series, px, py, (left, top, left + plot_w, top + plot_h))
    for row, entries in enumerate(legend):
        ly = top + plot_h + 52 + 13 * row
        for i, legend_x in entries:
            style = styles[i]
            stroke = style.get("stroke", "#000")
            parts.append(
                f'<line x1="{legend_x}" y1="{ly - 3}" x2="{legend_x + 26}" y2="{ly - 3}" stroke="{stroke}" stroke-width="1.6"{dash(style)}/>'
            )
            parts.append(_marker(style["marker"], legend_x + 13, ly - 3, style["fill"], style.get("size"), stroke))
            parts.append(_text(legend_x + 32, ly, series[i].label, size=8.5, anchor="start"))
    parts.append("</svg>")
    return "\n".join(parts)


# Where a point's label may go, in order of preference: (dx, baseline dy, anchor). The first series
# prefers above its points, the next below, so two lines measured close together keep apart.
_LABEL_SPOTS = ((6, -6, "start"), (8, 3, "start"), (6, 13, "start"), (-6, -6, "end"), (-6, 13, "end"), (-8, 3, "end"))
_LABEL_SPOTS_BELOW = ((6, 13, "start"), (8, 3, "start"), (6, -6, "start"), (-6, 13, "end"), (-6, -6, "end"), (-8, 3, "end"))


def _point_labels(
    series: list[Series], px: Callable[[float], float], py: Callable[[float], float], frame: tuple[float, float, float, float]
) -> list[str]:
    """Each point's label beside it, at the first spot that covers no marker, no label placed
    before it and stays inside the plot (text width estimated at 4.4 px a character at 7.5 pt)."""
    taken = [(px(x) - 5, py(y) - 5, px(x) + 5, py(y) + 5) for s in series for x, y in s.points]
    # The lines too: a label on a line is crossed out by it (small boxes along each segment).
    for s in series:
        ordered = sorted(s.points)
        for (x1, y1), (x2, y2) in zip(ordered, ordered[1:]):
            steps = max(1, int(math.hypot(px(x2) - px(x1), py(y2) - py(y1)) / 4))
            for n in range(1, steps):
                lx, ly = px(x1) + (px(x2) - px(x1)) * n / steps, py(y1) + (py(y2) - py(y1)) * n / steps
                taken.append((lx - 1, ly - 1, lx + 1, ly + 1))
    parts = []
    placed: list[tuple[float, float, str]] = []
    for i, s in enumerate(series):
        for (x, y), label in zip(s.points, s.point_labels or ()):
            cx, cy, w = px(x), py(y), 4.4 * len(label)
            if any(text == label and math.hypot(cx - ox, cy - oy) < 12 for ox, oy, text in placed):
                continue  # two series measured at one spot: one label serves both markers, never two stacked
            placed.append((cx, cy, label))
            spots = []
            for dx, dy, anchor in _LABEL_SPOTS if i % 2 == 0 else _LABEL_SPOTS_BELOW:
                x0 = cx + dx if anchor == "start" else cx + dx - w
                spots.append(((x0, cy + dy - 8, x0 + w, cy + dy), cx + dx, cy + dy, anchor))

            def free(box: tuple[float, float, float, float]) -> bool:
                inside = frame[0] <= box[0] and box[2] <= frame[2] and frame[1] <= box[1] and box[3] <= frame[3]
                return inside and not any(box[0] < t[2] and t[0] < box[2] and box[1] < t[3] and t[1] < box[3] for t in taken)

            box, tx, ty, anchor = next((spot for spot in spots if free(spot[0])), spots[0])
            taken.append(box)
            parts.append(_text(tx, ty, label, size=7.5, anchor=anchor))
    return parts


def bar_labels(counts: list[int]) -> tuple[list[tuple[float, str]], list[str]]:
    """A bar chart's value axis (each tick with its label, 0 up to the top) and each bar's label,
    its share of the total: what bar_chart writes, for the served form to draw the same chart."""
    total = sum(counts)
    axis = [(t, num(t if t % 1 else int(t))) for t in nice_ticks(max(counts), 4)]
    return axis, [f"{100 * c / total:.0f} %" if total else "-" for c in counts]


def bar_chart(counts: list[int], *, title: str, x_label: str, y_label: str, width: int = 250, height: int = 190) -> str:
    """One bar per accepted length j = 0..K, labelled with its share of all steps."""
    if not counts:
        return ""
    left, right, top, bottom = 52, 8, 28, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    axis, shares = bar_labels(counts)
    y_max = axis[-1][0]
    total = sum(counts)
    slot = plot_w / len(counts)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label={quoteattr(title)}>',
        _alternative(
            title,
            f"{y_label} by {x_label}: "
            + "; ".join(f"{j}: {num(c)} ({100 * c / total:.0f} %)" if total else f"{j}: {num(c)}" for j, c in enumerate(counts))
            + ".",
        ),
        _text(width / 2, 14, title, size=9.5, extra=' font-weight="bold"'),
    ]
    for t, label in axis:
        y = top + plot_h - t / y_max * plot_h
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#ccc" stroke-width="0.6"/>')
        parts.append(_text(left - 4, y + 3, label, size=7.5, anchor="end"))
    for j, c in enumerate(counts):
        h = c / y_max * plot_h
        x = left + j * slot + slot * 0.18
        parts.append(
            f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{slot * 0.64:.1f}" height="{h:.1f}" fill="#777" stroke="#000" stroke-width="0.8"/>'
        )
        parts.append(_text(left + (j + 0.5) * slot, top + plot_h - h - 3, shares[j], size=7.5))
        parts.append(_text(left + (j + 0.5) * slot, top + plot_h + 12, str(j), size=8))
    parts.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#000"/>')
    parts.append(_text(left + plot_w / 2, height - 8, x_label, size=8.5))
    parts.append(_text(12, top + plot_h / 2, y_label, size=8.5, extra=f' transform="rotate(-90 12 {top + plot_h / 2:.1f})"'))
    parts.append("</svg>")
    return "\n".join(parts)
