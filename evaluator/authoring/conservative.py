"""`sdeval claim --conservative`: the claimed figure is the end of the run's measured 95 % interval that
is worse for the vendor (record 1.3, runs[].uncertainty): "at least" the lower end for a speedup or an
output throughput, "at most" the upper end for a TTFT or TPOT percentile. The interval is computed
again from the repetitions' values, as speedup-interval judges them: a speedup's by the method its
record states (the geometric mean and the Student-t interval of the logs, whose lower end is above 0),
an output throughput's as the mean and its Student-t interval; the figure is rounded towards the safe
side, so it never claims more than the interval's end."""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from ..engine.record import Run
from ..engine.statistics import MeanInterval, mean_interval
from ..engine.wording import num
from ..importers.common import ImportProblem
from ..rules.spread import measured_speedup

MEASURE = "record 1.3 runs[].uncertainty, which sdeval measure writes"


@dataclass(frozen=True)
class Conservative:
    value: float
    bound: str  # at-least or at-most
    said: str  # what the figure is, for the claim's text


def _rounded(value: float, kind: str, rounding: str) -> float:
    """As claims.as_written rounds (whole tokens/s from 100 up, else 3 significant figures), but
    towards the safe side."""
    places = 0 if kind == "output-throughput" and value >= 100 else 3 - 1 - math.floor(math.log10(abs(value)))
    return float(Decimal(repr(value)).quantize(Decimal(1).scaleb(-places), rounding=rounding))


def conservative(run: Run, kind: str, baseline_id: str | None, latency_metric: str | None, percentile: str | None) -> Conservative:
    u = run.uncertainty
    if u is None:
        raise ImportProblem(f"run {run.id} has no measured interval ({MEASURE}); --conservative needs one")
    if kind == "latency":
        return _latency(run, latency_metric, percentile)
    if kind == "speedup" and latency_metric is None and percentile is None:
        paired = u.speedup
        if paired is None:
            raise ImportProblem(f"run {run.id} has no paired speedup interval ({MEASURE}); --conservative needs one")
        if paired.baseline_run != baseline_id:
            raise ImportProblem(
                f"run {run.id}'s speedup interval is over {paired.baseline_run}, not {baseline_id}; give --baseline {paired.baseline_run}"
            )
        measured = measured_speedup(paired)
        if measured.interval is None:
            raise ImportProblem(f"run {run.id}'s speedup over {baseline_id}: {measured.note}")
        m, what, unit, average = measured.interval, f"paired repetitions against {baseline_id}", "x", measured.average
    elif kind == "output-throughput":
        if u.output_throughput is None:
            raise ImportProblem(f"run {run.id} has no output-throughput interval ({MEASURE}); --conservative needs one")
        m, what, unit, average = mean_interval(u.output_throughput.values), "repetitions", " tokens/s", "mean"
    else:
        raise ImportProblem("--conservative takes --kind speedup (of output throughput), output-throughput or latency (ttft or tpot)")
    return _lower_end(run, kind, m, what, unit, average)


def _lower_end(run: Run, kind: str, m: MeanInterval, what: str, unit: str, average: str) -> Conservative:
    if m.low is None or m.high is None:
        raise ImportProblem(f"run {run.id}: {m.n} {what}, too few repetitions for an interval (measure 3 or more: --repetitions 3)")
    if m.low <= 0:  # only an arithmetic interval, as a record written before the log scale states it
        raise ImportProblem(f"run {run.id}: the interval's lower end is {num(m.low)}{unit}, no figure to claim at least")
    said = f"the lower end of the 95 % interval over {m.n} {what} ({average} {num(m.mean)}{unit}, interval {num(m.low)} to {num(m.high)}{unit})"
    return Conservative(_rounded(m.low, kind, ROUND_FLOOR), "at-least", said)


def _latency(run: Run, metric: str | None, percentile: str | None) -> Conservative:
    assert run.uncertainty is not None  # conservative() checked
    block = getattr(run.uncertainty, f"{metric}_ms", None) if metric in ("ttft", "tpot") else None
    if block is None:
        raise ImportProblem(f"run {run.id} has no interval for {metric} ({MEASURE} gives TTFT and TPOT percentiles); --conservative needs one")
    entry = getattr(block, percentile or "", None) if percentile in ("p50", "p90", "p95", "p99") else None
    if entry is None or entry.high is None or entry.low is None:
        why = entry.note if entry is not None and entry.note else "none recorded"
        raise ImportProblem(f"run {run.id}: no interval for {percentile} {metric} ({why})")
    said = f"the upper end of the 95 % bootstrap interval over the run's requests ({num(entry.value)} ms measured, interval {num(entry.low)} to {num(entry.high)} ms)"
    return Conservative(_rounded(entry.high, "latency", ROUND_CEILING), "at-most", said)
