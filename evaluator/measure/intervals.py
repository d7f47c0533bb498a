"""The record 1.3 `uncertainty` block of each measured run, from the windows' figures
(uncertainty.py computes; this shapes what it computes as the record states it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine.statistics import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    CONFIDENCE,
    GEOMETRIC,
    MeanInterval,
    bootstrap_percentiles,
    failed_pairing_note,
)
from .uncertainty import METHOD, WindowFigures, speedup_interval, throughput_interval


def _mean_block(m: MeanInterval, digits: int) -> dict[str, Any]:
    block: dict[str, Any] = {"values": [round(v, digits) for v in m.values], "mean": round(m.mean, digits)}
    if m.low is not None and m.high is not None:
        block.update(low=round(m.low, digits), high=round(m.high, digits))
    else:
        block["note"] = m.note
    return block


def _speedup_block(own: Sequence[WindowFigures], baseline: Sequence[WindowFigures], baseline_run: str) -> dict[str, Any] | None:
    """The paired speedup as the record states it: its method, the pairings whose ratio has a log
    with their geometric mean and interval, and every failed pairing named (then no interval)."""
    if (paired := speedup_interval(own, baseline)) is None:
        return None
    pairs, ratios = paired
    block: dict[str, Any] = {"baseline_run": baseline_run, "method": GEOMETRIC, "paired_repetitions": [r for r, _ in pairs.ratios]}
    block.update(_mean_block(ratios, 6) if ratios is not None else {"values": []})
    if pairs.failed:  # the values that have a log keep their mean, but there is no interval
        for end in ("low", "high"):
            block.pop(end, None)
        block["note"] = failed_pairing_note([f"repetition {r}: {why}" for r, why in pairs.failed])
        block["failed_pairings"] = [{"repetition": r, "reason": why} for r, why in pairs.failed]
    return block


def _percentile_block(values: Sequence[float]) -> dict[str, Any] | None:
    if not values:
        return None
    out = {}
    for name, p in bootstrap_percentiles(values).items():
        entry: dict[str, Any] = {"value": round(p.value, 3)}
        if p.low is not None and p.high is not None:
            entry.update(low=round(p.low, 3), high=round(p.high, 3))
        else:
            entry["note"] = p.note
        out[name] = entry
    return out


def run_uncertainty(own: Sequence[WindowFigures], baseline: Sequence[WindowFigures] | None, baseline_run: str | None) -> dict[str, Any] | None:
    """The block for one run (one arm at one load): its windows, and for a speculative run the baseline
    arm's windows at the same load. None when no window finished."""
    throughput = throughput_interval(own)
    if throughput is None:
        return None
    block: dict[str, Any] = {"confidence": CONFIDENCE, "method": METHOD, "output_throughput": _mean_block(throughput, 4)}
    if baseline and baseline_run is not None and (speedup := _speedup_block(own, baseline, baseline_run)) is not None:
        block["speedup"] = speedup
    for key, values in (("ttft_ms", [t for w in own for t in w.ttft_ms]), ("tpot_ms", [t for w in own for t in w.tpot_ms])):
        if (percentiles := _percentile_block(values)) is not None:
            block[key] = percentiles
    block.update(bootstrap_resamples=BOOTSTRAP_RESAMPLES, bootstrap_seed=BOOTSTRAP_SEED)
    return block


def attach_uncertainty(runs: list[dict[str, Any]], arms: list[dict], windows: Sequence[WindowFigures]) -> None:
    """Give each run its block; a speculative run's speedup is over the first target-only arm, as the
    output-equality check pairs them."""
    baseline = next((a["name"] for a in arms if a["arrangement"] == "target-only"), None)
    for run in runs:
        arm, c = run["configuration"], run["load"]["concurrency"]
        own = [w for w in windows if w.arm == arm and w.concurrency == c]
        theirs = [w for w in windows if w.arm == baseline and w.concurrency == c] if run["arrangement"] == "speculative" else None
        block = run_uncertainty(own, theirs, f"{baseline}-c{c}" if baseline else None)
        if block is not None:
            run["uncertainty"] = block
