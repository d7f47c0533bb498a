"""A progress bar per measured point (on a terminal), and the one-screen summary at the end."""

from __future__ import annotations

import sys


class _Bar:
    def __init__(self, progress, task) -> None:
        self.progress, self.task = progress, task

    def advance(self) -> None:
        if self.progress is not None:
            self.progress.advance(self.task)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


class Progress:
    def __init__(self, quiet: bool) -> None:
        self.live = not quiet and sys.stderr.isatty()

    def start(self, label: str, total: int) -> _Bar:
        if not self.live:
            return _Bar(None, None)
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichProgress

        progress = RichProgress(
            TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=Console(stderr=True)
        )
        task = progress.add_task(label, total=total)
        progress.start()
        return _Bar(progress, task)


def _ms(value) -> str:
    return "-" if value is None else f"{value:.1f}"


def summary(rows: list[dict]) -> str:
    """The table per arm and load; plain text, every field a number or an id measure chose."""
    head = (
        f"{'arm':<16} {'conc':>5} {'done':>5} {'fail':>5} {'E/T tok/s':>10} {'TTFT p50':>9} {'TTFT p99':>9} {'TPOT p50':>9} {'accept':>7}  population"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        accept = "-" if r["acceptance"] is None else f"{r['acceptance']:.3f}"
        lines.append(
            f"{r['arm'][:16]:<16} {r['concurrency']:>5} {r['completed']:>5} {r['failed']:>5} {r['tokens_per_s']:>10.1f} "
            f"{_ms(r['ttft_p50']):>9} {_ms(r['ttft_p99']):>9} {_ms(r['tpot_p50']):>9} {accept:>7}  {r['population']}"
        )
    lines.append("(latencies in ms; E/T = output tokens per second of the measured interval; accept = A / P)")
    return "\n".join(lines) + "\n"
