"""profile_export_aiperf_sweep.json: one run per point of an AIPerf sweep run once per point."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .aiperf_blocks import ALIASES, BLOCK_KEYS, FORMAT, TOP_LEVEL, as_dict
from .aiperf_run import summary_run
from .common import Imported, ImportProblem, count, number, source

# Read from ai-dynamo/aiperf: the exporter (src/aiperf/exporters/aggregate/aggregate_sweep_json_exporter.py
# at c1cfd86b) writes {"aggregation_type": "sweep", "num_profile_runs", "num_successful_runs",
# "failed_runs", "metadata": {"sweep_parameters": [{"name", "values"}], "num_combinations", ...},
# "per_combination_metrics": [{"parameters": {...}, "metrics": {...}}], "best_configurations",
# "pareto_optimal"}. A point run once (src/aiperf/cli_runner/_sweep_aggregate.py at 68e913b9,
# _json_metric_to_stats) keeps that run's blocks under their metric tags, as {"mean" (= avg),
# "avg", "std": 0, "min", "max", "cv": 0, "ci_low", "ci_high", "unit", p1..p99, "count", "sum"}
# (earlier versions without the percentiles, count and sum); a point run several times holds
# ConfidenceAggregation statistics across its trials under flattened keys ("request_throughput_avg":
# {"mean", "std", ...}), means of the trials' figures, not one run's counts.
PARAMETER_LOAD = {"concurrency": "concurrency", "request_rate": "request_rate", "rate": "request_rate"}
_FLATTENED = re.compile(r"_(avg|p\d+|min|max|std|count|sum)$")


def _sweep_trials(data: dict) -> int | None:
    meta = as_dict(data.get("metadata"))
    trials = count(meta.get("num_trials_per_value"))
    if trials:
        return trials
    runs, combinations = count(data.get("num_profile_runs") or meta.get("num_profile_runs")), count(meta.get("num_combinations"))
    if runs and combinations and runs % combinations == 0:
        return runs // combinations
    return None


def import_sweep(path: Path, data: dict, sha: str) -> list[Imported]:
    combos = data["per_combination_metrics"]
    if not combos:
        raise ImportProblem(f"{path}: an AIPerf sweep aggregate with no points (per_combination_metrics is empty)")
    trials = _sweep_trials(data)
    flattened = any(
        isinstance(c, dict)
        and isinstance(c.get("metrics"), dict)
        and any(_FLATTENED.search(k) for k in c["metrics"])
        and "request_count" not in c["metrics"]
        for c in combos
    )
    if (trials or 1) > 1 or (trials is None and flattened):
        over = f"{trials} trials" if trials else "several trials"
        raise ImportProblem(
            f"{path}: an AIPerf sweep aggregate whose points are means over {over} (AIPerf's confidence aggregation), "
            "not one run's counts; import each trial's own profile_export_aiperf.json instead, one run each"
        )
    failed = data.get("failed_runs") if isinstance(data.get("failed_runs"), list) else []
    out = []
    for i, combo in enumerate(combos):
        where = f"per_combination_metrics[{i}]"
        if not isinstance(combo, dict) or not isinstance(combo.get("metrics"), dict) or not isinstance(combo.get("parameters"), dict):
            raise ImportProblem(f'{path}: {where} is not a point ({{"parameters": ..., "metrics": ...}})')
        blocks = {}
        for tag, stats in combo["metrics"].items():
            if isinstance(stats, dict) and "unit" in stats and ("avg" in stats or "mean" in stats):
                blocks[ALIASES.get(tag, tag)] = {**{k: v for k, v in stats.items() if k in BLOCK_KEYS}, "avg": stats.get("avg", stats.get("mean"))}
        if not blocks:
            raise ImportProblem(f"{path}: {where}.metrics holds no metric with a unit and a value")
        load: dict[str, Any] = {}
        other: list[str] = []
        for name, value in combo["parameters"].items():
            leaf = str(name).rsplit(".", 1)[-1]
            if leaf in PARAMETER_LOAD and (number(value) is not None):
                load[PARAMETER_LOAD[leaf]] = (count(value) or None) if PARAMETER_LOAD[leaf] == "concurrency" else number(value)
            else:
                other.append(f"{name}={value!r}")
        if "request_rate" in load:
            load["loop"] = "open"
        elif load.get("concurrency"):
            load["loop"] = "closed"
        label = ", ".join(f"{k}={v!r}" for k, v in combo["parameters"].items())
        notes = [
            f"Point {i} of an AIPerf sweep aggregate ({label}), run once; the sweep file records no input_config, so the model, "
            "tokenizer, SLOs and command line are in each point's own profile_export_aiperf.json."
        ]
        if other:
            notes.append(f"Swept parameters other than the load: {', '.join(other)}.")
        if failed and i == 0:
            notes.append(f"The sweep lists {len(failed)} failed run(s), whose points are absent.")
        fields, speculative = summary_run(path, {}, blocks, TOP_LEVEL, load, notes, where=f"{where}: ")
        out.append(Imported(fields=fields, source=source(FORMAT, path, sha, entry=where), speculative=speculative))
    return out
