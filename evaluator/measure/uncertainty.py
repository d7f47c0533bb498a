"""How sure a measurement is, per load: the paired per-repetition speedup (its geometric mean and a 95 %
interval on the log scale), each arm's E / T with a 95 % Student-t interval over the repetitions, and
bootstrap intervals over requests for TTFT and TPOT percentiles (the arithmetic is
evaluator/engine/statistics.py's). Pure statistics over WindowFigures, one per measured window; no I/O.

The paired speedup: repetition r of the speculative arm over repetition r of the baseline arm at the
same load, (E / T) / (E_b / T_b), for each repetition both arms finished; its interval is over the logs
of those ratios. A repetition whose ratio has no log (a window with no output) is a failed pairing,
named, and leaves the speedup without an interval. METHOD is how the record states all of it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..engine.statistics import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    MIN_BEYOND,
    MeanInterval,
    loggable,
    mean_interval,
    ratio_interval,
)

METHOD = (
    "95 % intervals. Speedup: geometric mean; Student t over the logs of the paired ratios: "
    "exp(mean(log r) +- t(0.975, n - 1) x s_log / sqrt(n)), r each repetition's speedup paired repetition by "
    "repetition at the same load, s_log the sample standard deviation of the logs; a ratio of 0 or with no finite "
    "value is a failed pairing, named, and leaves no interval. E / T: mean of the per-repetition values +- "
    "t(0.975, n - 1) x s / sqrt(n) (Student t over the repetitions). Below 3 repetitions, none. TTFT and TPOT "
    f"percentiles: percentile bootstrap over the run's completed requests, {BOOTSTRAP_RESAMPLES} resamples "
    f"(random.Random seed {BOOTSTRAP_SEED}); none where fewer than {MIN_BEYOND} requests lie beyond the percentile."
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
        return self.emitted_tokens / self.seconds if self.seconds > 0 else math.nan


@dataclass(frozen=True)
class PairedSpeedups:
    """Each repetition both arms measured: the loggable ratios in repetition order, and the failed
    pairings (repetition, why) whose ratio is 0 or not finite."""

    ratios: tuple[tuple[int, float], ...]
    failed: tuple[tuple[int, str], ...]


# ------------------------------------------------------------------ per load


def _why_unloggable(ours: WindowFigures, theirs: WindowFigures) -> str:
    for who, w in (("the speculative", ours), ("the baseline's", theirs)):
        if w.seconds <= 0:
            return f"{who} window has no measured time"
        if w.emitted_tokens <= 0:
            return f"{who} window emitted no tokens"
    return "the ratio has no finite value"


def paired_speedups(speculative: Sequence[WindowFigures], baseline: Sequence[WindowFigures]) -> PairedSpeedups:
    """The ratio of each repetition both arms measured, in repetition order, or why it has no log."""
    theirs = {w.repetition: w for w in baseline}
    ratios, failed = [], []
    for w in sorted(speculative, key=lambda w: w.repetition):
        if (b := theirs.get(w.repetition)) is None:
            continue  # not measured by both: not a pairing at all (paired_repetitions says which were)
        ratio = w.tokens_per_s / b.tokens_per_s if b.tokens_per_s > 0 else math.nan
        if loggable(ratio):
            ratios.append((w.repetition, ratio))
        else:
            failed.append((w.repetition, _why_unloggable(w, b)))
    return PairedSpeedups(tuple(ratios), tuple(failed))


def throughput_interval(windows: Sequence[WindowFigures]) -> MeanInterval | None:
    """E / T of each repetition of one arm at one load, with its interval."""
    rates = [w.tokens_per_s for w in sorted(windows, key=lambda w: w.repetition) if w.seconds > 0]
    return mean_interval(rates) if rates else None


def speedup_interval(speculative: Sequence[WindowFigures], baseline: Sequence[WindowFigures]) -> tuple[PairedSpeedups, MeanInterval | None] | None:
    """The pairings, and the geometric mean and interval of their ratios (None when none could be
    logged); None when no repetition pairs up."""
    pairs = paired_speedups(speculative, baseline)
    if not pairs.ratios and not pairs.failed:
        return None
    return pairs, ratio_interval([s for _, s in pairs.ratios]) if pairs.ratios else None
