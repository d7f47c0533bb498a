"""The PDF's per-task section (record 1.3): each run's per-task table, a chart of the speculative
runs' per-task speedups with their intervals, and each run's histogram of per-request A / P; read
from the assessed result (FileAssessment.per_task, .request_acceptance)."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup, escape

from .._infra.safe_text import isolated
from ..engine.record import RequestAcceptance
from ..engine.wording import column, num
from ..rules.results import FileAssessment
from .charts import bar_chart, nice_ticks


def _interval_chart(run_id: str, tasks: list) -> str:
    """One row per task: its interval as a line, its median as a dot, 1.0 (no speedup) dashed."""
    rows = [t for t in tasks if t.speedup is not None]
    if not rows:
        return ""
    left, right, top, row_h = 90, 12, 26, 20
    width, height = 330, top + row_h * len(rows) + 30
    top_value = nice_ticks(max(max(t.speedup.high or t.speedup.median for t in rows), 1.0), 4)[-1]

    def x(v: float) -> float:
        return left + v / top_value * (width - left - right)

    title = f"{run_id}: paired per-prompt speedup by task"
    described = "; ".join(
        f"{t.task} {num(t.speedup.median, 'x')}"
        + (f" [{num(t.speedup.low)}, {num(t.speedup.high)}]" if t.speedup.low is not None else " (no interval)")
        for t in rows
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">',
        f"<title>{escape(title)}: {escape(described)}</title>",
        f'<text x="{width / 2}" y="14" font-size="9.5" text-anchor="middle" font-weight="bold">{escape(title)}</text>',
        f'<line x1="{x(1.0):.1f}" y1="{top - 4}" x2="{x(1.0):.1f}" y2="{top + row_h * len(rows)}" stroke="#000" stroke-dasharray="3 2" stroke-width="0.8"/>',
    ]
    for i, t in enumerate(rows):
        y = top + row_h * i + row_h / 2
        s = t.speedup
        parts.append(f'<text x="{left - 6}" y="{y + 3:.1f}" font-size="8.5" text-anchor="end">{escape(isolated(t.task[:18]))}</text>')
        if s.low is not None and s.high is not None:
            parts.append(f'<line x1="{x(s.low):.1f}" y1="{y:.1f}" x2="{x(s.high):.1f}" y2="{y:.1f}" stroke="#000" stroke-width="2"/>')
        parts.append(f'<circle cx="{x(s.median):.1f}" cy="{y:.1f}" r="3.2" fill="#fff" stroke="#000" stroke-width="1.2"/>')
    axis_y = top + row_h * len(rows) + 4
    parts.append(f'<line x1="{left}" y1="{axis_y}" x2="{width - right}" y2="{axis_y}" stroke="#000"/>')
    for tick in nice_ticks(top_value, 4):
        parts.append(f'<text x="{x(tick):.1f}" y="{axis_y + 11}" font-size="7.5" text-anchor="middle">{num(tick, "x")}</text>')
    parts.append("</svg>")
    return "".join(parts)


def task_rows(r: FileAssessment) -> list[dict[str, str]]:
    """The per-task table's rows, one per (run, task), figures as the PDF prints them (one precision
    per column across the runs); the task label as the record has it, for each output to make safe."""
    tasks = [(run_id, t) for run_id, block in r.per_task.items() for t in block.tasks]
    decode = column([t.decode_tokens_per_s.p50 if t.decode_tokens_per_s else None for _, t in tasks])
    ttft = column([t.ttft_ms.p50 if t.ttft_ms else None for _, t in tasks])
    rate = column([t.acceptance_rate for _, t in tasks])
    rows = []
    for k, (run_id, t) in enumerate(tasks):
        s = t.speedup
        speedup = (
            "-"
            if s is None
            else num(s.median, "x") + (f" [{num(s.low)}, {num(s.high)}]" if s.low is not None and s.high is not None else " (no interval)")
        )
        rows.append(
            {
                "run": run_id,
                "task": t.task,
                "requests": num(t.requests),
                "tokens": num(t.output_tokens),
                "decode": decode[k],
                "ttft": ttft[k],
                "speedup": speedup,
                "pairs": num(s.pairs) if s else "-",
                "rate": rate[k],
            }
        )
    return rows


# The histogram of per-request A / P: its bins' axis, as the PDF and the served form label it.
RATE_AXIS = "A / P in tenths (0: 0-0.1 ... 9: 0.9-1.0)"


# A task label in a chart's title is cut (the interval chart cuts it too); the alternative text and
# the table give it whole.
_TITLE_TASK = 24


def histogram_title(run_id: str, task: str | None) -> str:
    """A histogram's title: the run's, or (cut to _TITLE_TASK characters) the task's in it."""
    shown = run_id if task is None else (task if len(task) <= _TITLE_TASK else task[: _TITLE_TASK - 1] + "\u2026")
    return f"{shown}: requests by A / P"


def acceptance_chart(title: str, a: RequestAcceptance) -> str:
    """A histogram of per-request A / P (a run's, or one task's in it) as an SVG."""
    return bar_chart(list(a.rate_histogram), title=title, x_label=RATE_AXIS, y_label="requests", width=250, height=170)


def task_section(r: FileAssessment) -> dict[str, Any] | None:
    """The section's rows, charts and histograms; None when the record has neither block."""
    if not r.per_task and not r.request_acceptance:
        return None
    rows = [{**row, "task": isolated(row["task"])} for row in task_rows(r)]
    charts = [Markup(svg) for run_id, block in r.per_task.items() if (svg := _interval_chart(run_id, block.tasks))]
    histograms = []
    # Each run's histogram, then each of its tasks' (issue 44: read the histogram per task, not the mean).
    for run_id in dict.fromkeys([*r.request_acceptance, *r.per_task]):
        shown: list[tuple[str | None, RequestAcceptance | None]] = [(None, r.request_acceptance.get(run_id))]
        block = r.per_task.get(run_id)
        shown += [(t.task, t.request_acceptance) for t in (block.tasks if block else [])]
        for task, a in shown:
            if a is None:
                continue
            chart = acceptance_chart(isolated(histogram_title(run_id, task)), a)
            histograms.append({"run": run_id, "task": task, "chart": Markup(chart), "without": a.requests_without_proposals})
    return {"rows": rows, "charts": charts, "histograms": histograms}
