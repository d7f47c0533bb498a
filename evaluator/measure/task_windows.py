"""`sdeval measure --per-task-windows`: each task label of the prompt set measured in its own windows.

In the default, mixed mode a window sends the prompt set round-robin over its tasks, so a task has
per-request figures only (per_task.py). With --per-task-windows every (load, repetition) has one
window per task and arm, holding only that task's prompts; the arms stay interleaved within each
task's turn. The record then has one run per (arm, load, task): its own E / T over its own steady
intervals, counts, intervals and paired speedup, with `workload.task` naming the task, so a claim
for one task is judged on that task's figures alone.

The capture marks such a window's lines with `window_task` (window-start, request, scrape, window):
a window is then known by (arm, concurrency, repetition, task), and the task is None in a mixed
capture. The session's settings say `per_task_windows: true`, so --resume and --append continue
in the same mode or refuse in one line (the settings differ).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from .capture import MeasureProblem
from .prompts import Prompt

UNLABELLED = "unlabelled"  # the label of a prompt without "task", here and in the per-task figures (per_task.py)
WindowKey = tuple[str, int, int, str | None]  # (arm, concurrency, repetition, task or None)

SALT_NOTE = "; with --per-task-windows, ' task K' before the closing bracket, K the 0-based place of the window's task in the sorted task labels"


def label(prompt: Prompt) -> str:
    return prompt.task or UNLABELLED


def task_prompts(prompts: list[Prompt], where: str) -> dict[str, list[Prompt]]:
    """Each task label's prompts in the order measure sends them, sorted by label; one line when
    the set holds a single task (each window is that task's already: measure it without the option)."""
    by_task: dict[str, list[Prompt]] = {}
    for p in prompts:
        by_task.setdefault(label(p), []).append(p)
    if len(by_task) < 2:
        (only,) = by_task
        raise MeasureProblem(
            f"{where}: --per-task-windows: every prompt is of one task ({only}), so every window is that task's already; measure without it"
        )
    return dict(sorted(by_task.items()))


def window_key(entry: dict) -> WindowKey:
    """The window a capture line belongs to; its task is None in a mixed capture."""
    return (entry.get("arm"), entry.get("concurrency"), entry.get("repetition"), entry.get("window_task"))  # type: ignore[return-value]


def where(arm: str, concurrency: int, repetition: int, task: str | None) -> dict:
    """The fields that place a capture line in its window."""
    return {"arm": arm, "concurrency": concurrency, "repetition": repetition, **({"window_task": task} if task is not None else {})}


def slug(task: str) -> str:
    """A task label as a run id may hold it (letters, digits, '.', '_', '-')."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", task).strip("-._")[:24] or "task"


def file_tag(task: str) -> str:
    """A task label in a file name: its slug and a digest, so two labels with one slug never share a file."""
    return f"{slug(task)}-{hashlib.blake2b(task.encode(), digest_size=4).hexdigest()}"


RUN_ID_LIMIT = 64  # the record's run id, at most (engine/record.py)


def run_id(arm: str, concurrency: int, task_suffix: str = "") -> str:
    """The id of an arm's run at one load: the arm, the load and, with --per-task-windows, the task."""
    return f"{arm}-c{concurrency}{task_suffix}"


def check_run_ids(arms: Iterable[str], concurrencies: Iterable[int], tasks: Iterable[str] | None) -> None:
    """Refuse, before anything is sent, names whose runs' ids the record could not hold: found only
    when the record is written, they would cost the whole measurement."""
    suffixes = run_ids(tasks or ()).values()
    loads = list(concurrencies)
    for arm in arms:
        longest = max((run_id(arm, c, s) for c in loads for s in suffixes), key=len)
        if len(longest) > RUN_ID_LIMIT:
            raise MeasureProblem(
                f"--arm {arm}: its runs' ids would be up to {len(longest)} characters ({longest}), past the record's "
                f"{RUN_ID_LIMIT}; give the arm a name of at most {len(arm) - (len(longest) - RUN_ID_LIMIT)} characters"
            )


def run_ids(tasks: Iterable[str | None]) -> dict[str | None, str]:
    """The suffix each task gives its runs' ids ('' in a mixed capture), distinct for distinct labels."""
    suffixes: dict[str | None, str] = {}
    for n, task in enumerate(sorted(t for t in set(tasks) if t is not None)):
        suffix = slug(task)
        suffixes[task] = f"-{suffix}" if f"-{suffix}" not in suffixes.values() else f"-{suffix}-{n}"
    return {None: "", **suffixes}
