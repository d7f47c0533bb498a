"""A progress bar per measured point (on a terminal), and the one-screen summary at the end."""

from __future__ import annotations

from .._infra import progress
from .._infra.safe_text import shown


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


def _interval(block: dict | None, digits: int) -> str:
    """'52.1 to 60.3' for a block with an interval, 'n=2' (repetitions) for one without."""
    if not block:
        return "-"
    if block.get("low") is None:
        return f"n={len(block['values'])}"
    return f"{block['low']:.{digits}f} to {block['high']:.{digits}f}"


def _speedup_line(r: dict) -> str | None:
    s = (r.get("uncertainty") or {}).get("speedup")
    if not s:
        return None
    n = len(s["values"])
    mean = "-" if s.get("mean") is None else f"{s['mean']:.3f}x"
    where = f"speedup {r['arm']} over {s['baseline_run']} at c={r['concurrency']}: {mean} (geometric mean of {n} paired repetitions)"
    if s.get("low") is None:
        return f"{where}, {s['note']}"
    return f"{where}, 95 % interval {s['low']:.3f} to {s['high']:.3f}x"


def _task_lines(r: dict) -> list[str]:
    """One line per task label under the run's line: its requests, decode speed and TTFT medians, and
    for a speculative run the paired per-prompt speedup (median and interval) and A / P."""
    lines = []
    for t in (r.get("per_task") or {}).get("tasks", []):
        decode, ttft = t.get("decode_tokens_per_s"), t.get("ttft_ms")
        line = (
            f"  task {shown(t['task'])[:24]:<24} done {t['requests']:>4}  tokens {t['output_tokens']:>6}  "
            f"decode p50 {'-' if decode is None else format(decode['p50'], '.1f'):>7} tok/s  TTFT p50 {_ms(ttft and ttft['p50']):>7}"
        )
        if (s := t.get("speedup")) is not None:
            interval = s["note"] if s.get("low") is None else f"[{s['low']:.2f}, {s['high']:.2f}]"
            line += f"  speedup {s['median']:.2f}x {interval} ({s['pairs']} pairs)"
        if t.get("acceptance_rate") is not None:
            line += f"  accept {t['acceptance_rate']:.3f}"
        lines.append(line)
    return lines


def summary(rows: list[dict]) -> str:
    """The table per arm and load, then each load's speedup with its interval; plain text, every
    field a number or an id measure chose."""
    head = (
        f"{'arm':<16} {'conc':>5} {'done':>5} {'fail':>5} {'E/T tok/s':>10} {'E/T 95% CI':>15} {'TTFT p50':>9} {'TTFT p99':>9} "
        f"{'TPOT p50':>9} {'accept':>7}  population"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        accept = "-" if r["acceptance"] is None else f"{r['acceptance']:.3f}"
        ci = _interval((r.get("uncertainty") or {}).get("output_throughput"), 1)
        lines.append(
            f"{r['arm'][:16]:<16} {r['concurrency']:>5} {r['completed']:>5} {r['failed']:>5} {r['tokens_per_s']:>10.1f} {ci:>15} "
            f"{_ms(r['ttft_p50']):>9} {_ms(r['ttft_p99']):>9} {_ms(r['tpot_p50']):>9} {accept:>7}  {r['population']}"
        )
        lines += _task_lines(r)
    lines.append(
        "(latencies in ms; E/T = output tokens per second of the measured interval; E/T 95% CI = Student t over the "
        "repetitions, n=N where fewer than 3; accept = A / P; under each load, per task: decode = 1 / TPOT per request, "
        "speedup = median of the paired per-prompt speedups with its distribution-free 95 % interval; each load's speedup "
        "below: geometric mean; Student t over the logs of the paired ratios)"
    )
    lines += [line for r in rows if (line := _speedup_line(r)) is not None]
    return "\n".join(lines) + "\n"
