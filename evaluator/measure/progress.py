"""A progress bar per measured point (on a terminal), and the one-screen summary at the end."""

from __future__ import annotations

from .._infra import progress


class Progress:
    """One bar per measured point, left on the screen; none with --quiet (or where bars are not
    wanted: evaluator/_infra/progress.py). Redrawn on its own thread, so the elapsed time runs
    while a point's requests stream: measuring forks nothing."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet

    def start(self, label: str, total: int) -> progress.Bar:
        with progress.allowed(not self.quiet):
            return progress.Bar(label, total, least=1, transient=False, keep_time=True)


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
