"""Record 1.3's per-task figures and per-request acceptance for the served form (`sdeval serve`):
the PDF's table rows (task_pages) and its histograms' labels (charts.bar_labels), grouped by run.

The page computes none of it: each row's cells are the strings the PDF prints; each histogram is
the record's bins with the axis and bar labels the PDF writes, which the page only places. Kept
small (no SVG text): the page asks again on every change, and a record may hold thousands of runs.
Strings from the record (run ids, task labels, sources) are sent as they are: the page sets them
as text.
"""

from __future__ import annotations

from typing import Any

from ..engine.record import RequestAcceptance
from ..rules.results import FileAssessment
from .charts import bar_labels
from .task_pages import RATE_AXIS, histogram_title, task_rows

_COLUMNS = ("task", "requests", "tokens", "decode", "ttft", "speedup", "pairs", "rate")


def _histogram(run_id: str, task: str | None, a: RequestAcceptance) -> dict[str, Any]:
    bins = list(a.rate_histogram)
    axis, shares = bar_labels(bins)
    without = f"; {a.requests_without_proposals} proposed nothing" if a.requests_without_proposals else ""
    named = run_id if task is None else f"{run_id}, {task}"
    return {
        "task": task,
        "title": histogram_title(run_id, task),
        "x_label": RATE_AXIS,
        "y_label": "requests",
        "bins": bins,
        "axis": axis,
        "shares": shares,
        "alt": f"{named}: requests by A / P, per tenth from 0-0.1 to 0.9-1.0: {', '.join(str(n) for n in bins)}",
        # The source once, under the run's own histogram; a task's counts come from the same.
        "caption": f"{a.requests} requests{without}" + ("" if task else f"; counts from {a.source}"),
    }


def task_view(r: FileAssessment) -> dict[str, dict[str, Any]]:
    """Run id -> what the form shows under that run: the per-task method in the record's words,
    the per-task rows, and the histograms of per-request A / P (the run's, then each task's that
    has one). Runs with neither block are left out."""
    view: dict[str, dict[str, Any]] = {}

    def entry(run_id: str) -> dict[str, Any]:
        return view.setdefault(run_id, {"method": None, "rows": [], "histograms": []})

    for row in task_rows(r):
        entry(row["run"])["rows"].append({k: row[k] for k in _COLUMNS})
    for run_id, block in r.per_task.items():
        entry(run_id)["method"] = block.method
    for run_id, a in r.request_acceptance.items():
        entry(run_id)["histograms"].append(_histogram(run_id, None, a))
    for run_id, block in r.per_task.items():
        for t in block.tasks:
            if t.request_acceptance is not None:
                entry(run_id)["histograms"].append(_histogram(run_id, t.task, t.request_acceptance))
    return view
