"""How sure a measurement is, per load: the paired per-repetition speedup and each arm's E / T with a
95 % Student-t interval over the repetitions, and bootstrap intervals over requests for TTFT and TPOT
percentiles (the arithmetic is evaluator/engine/statistics.py's). Pure statistics over WindowFigures,
one per measured window; no I/O.

The paired speedup: repetition r of the speculative arm over repetition r of the baseline arm at the
same load, (E / T) / (E_b / T_b), for each repetition both arms finished; its interval is over those
ratios. METHOD is how the record states all of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..engine.statistics import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    MIN_BEYOND,
    MeanInterval,
    mean_interval,
)

METHOD = (
    "95 % intervals. Speedup and E / T: mean of the per-repetition values +- t(0.975, n - 1) x s / sqrt(n) "
    "(Student t over the repetitions; the speedup paired repetition by repetition at the same load); below 3 "
    "repetitions, none. TTFT and TPOT percentiles: percentile bootstrap over the run's completed requests, "
    f"{BOOTSTRAP_RESAMPLES} resamples (random.Random seed {BOOTSTRAP_SEED}); none where fewer than {MIN_BEYOND} "
    "requests lie beyond the percentile."
)


@dataclass(frozen=True)
class WindowFigures:
    """One measured window (an arm at a load, one repetition): what its figures are computed from."""

    arm: str
    concurrency: int
    repetition: int  # 0-based, as the capture numbers it
    emitted_tokens: int
    seconds: float
    ttft_ms: tuple[float, ...]
    tpot_ms: tuple[float, ...]
    prompt_ids: tuple[str, ...]

    @property
    def tokens_per_s(self) -> float:
        return self.emitted_tokens / self.seconds


# ------------------------------------------------------------------ per load


def paired_speedups(speculative: Sequence[WindowFigures], baseline: Sequence[WindowFigures]) -> list[tuple[int, float]]:
    """(repetition, speedup) for each repetition both arms measured, in repetition order."""
    theirs = {w.repetition: w for w in baseline if w.seconds > 0 and w.emitted_tokens > 0}
    return [
        (w.repetition, w.tokens_per_s / theirs[w.repetition].tokens_per_s)
        for w in sorted(speculative, key=lambda w: w.repetition)
        if w.repetition in theirs and w.seconds > 0
    ]


def throughput_interval(windows: Sequence[WindowFigures]) -> MeanInterval | None:
    """E / T of each repetition of one arm at one load, with its interval."""
    rates = [w.tokens_per_s for w in sorted(windows, key=lambda w: w.repetition) if w.seconds > 0]
    return mean_interval(rates) if rates else None


def speedup_interval(speculative: Sequence[WindowFigures], baseline: Sequence[WindowFigures]) -> tuple[tuple[int, ...], MeanInterval] | None:
    """The paired repetitions and the interval of their speedups; None when none pair up."""
    pairs = paired_speedups(speculative, baseline)
    if not pairs:
        return None
    return tuple(r for r, _ in pairs), mean_interval([s for _, s in pairs])
