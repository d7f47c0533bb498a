"""Record 1.3's per-task figures and per-request acceptance, as `assess` prints them (text) under
the accounting: read from the assessed result (FileAssessment.per_task, .request_acceptance)."""

from __future__ import annotations

from .._infra.safe_text import shown
from ..engine.wording import column, num
from ..rules.results import FileAssessment

HEADER = ("run", "task", "requests", "tokens", "decode p50 tok/s", "TTFT p50 ms", "speedup [95 % interval]", "pairs", "A/P")


def _speedup(t) -> str:
    s = t.speedup
    if s is None:
        return "-"
    return (
        f"{num(s.median, 'x')} [{num(s.low)}, {num(s.high)}]" if s.low is not None and s.high is not None else f"{num(s.median, 'x')} (no interval)"
    )


def task_lines(r: FileAssessment) -> list[str]:
    """The per-task table, then each run's histogram of per-request A / P; nothing without them."""
    out: list[str] = []
    tasks = [(run_id, t) for run_id, block in r.per_task.items() for t in block.tasks]
    if tasks:
        decode = column([t.decode_tokens_per_s.p50 if t.decode_tokens_per_s else None for _, t in tasks])
        ttft = column([t.ttft_ms.p50 if t.ttft_ms else None for _, t in tasks])
        rate = column([t.acceptance_rate for _, t in tasks])
        rows = [HEADER] + [
            (
                shown(run_id),
                shown(t.task),
                str(t.requests),
                f"{t.output_tokens:,}",
                decode[k],
                ttft[k],
                _speedup(t),
                str(t.speedup.pairs) if t.speedup else "-",
                rate[k],
            )
            for k, (run_id, t) in enumerate(tasks)
        ]
        widths = [max(len(row[k]) for row in rows) for k in range(len(HEADER))]
        out.append("  per task (speedup: median of the paired per-prompt speedups, distribution-free 95 % interval; decode = 1 / TPOT per request):")
        out += ["    " + "  ".join(c.ljust(w) if k < 2 else c.rjust(w) for k, (c, w) in enumerate(zip(row, widths))).rstrip() for row in rows]
    if r.request_acceptance:
        out.append("  per-request acceptance A / P (requests per tenth, 0-0.1 up to 0.9-1.0; requests that proposed nothing apart):")
        for run_id, a in r.request_acceptance.items():
            without = f", {a.requests_without_proposals} proposed nothing" if a.requests_without_proposals else ""
            out.append(f"    {shown(run_id)}: {' '.join(str(n) for n in a.rate_histogram)}  ({a.requests} requests{without}; {shown(a.source)})")
    return out
