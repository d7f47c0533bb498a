"""What an AIPerf summary says about its run besides the metrics: the load (from its loadgen, its
phases or a sweep's variation values), the goodput SLOs, and what ran (models, tokenizer, command)."""

from __future__ import annotations

from pathlib import Path

from . import provenance
from .aiperf_blocks import Metrics, as_dict
from .common import ImportProblem, count, number

# Phase types of AIPerf's config v2 (src/aiperf/config/phases.py, ai-dynamo/aiperf at aa0efdfd):
# `concurrency` is a closed loop at `concurrency`; `poisson`, `gamma` and `constant` send at `rate`
# requests/s (or follow a `rate_series`), with `concurrency` as a cap; `user_centric` shares `rate`
# among `users`; `fixed_schedule` replays a trace's timestamps.
RATE_PHASES = ("poisson", "gamma", "constant", "user_centric")


def _counted_phases(phases: list) -> list[dict]:
    """The phases AIPerf counts in its results: not excluded, not of kind (or name) warmup."""
    out = []
    for phase in phases:
        if not isinstance(phase, dict) or phase.get("exclude_from_results") is True:
            continue
        if (phase.get("kind") or phase.get("name")) == "warmup":
            continue
        out.append(phase)
    return out


def _phase_load(phase: dict) -> tuple[dict, list[str]]:
    kind, name = phase.get("type"), phase.get("name", "?")
    notes = []
    if phase.get("concurrency_ramp") or phase.get("rate_ramp") or phase.get("prefill_ramp"):
        notes.append(f"Phase {name} ramped its load up (concurrency_ramp, rate_ramp or prefill_ramp), so part of it ran below the stated load.")
    if kind == "concurrency":
        concurrency = count(phase.get("concurrency")) or None
        return {"concurrency": concurrency, "loop": "closed" if concurrency else None}, notes
    if kind in RATE_PHASES:
        rate = number(phase.get("rate"))
        if rate is None:
            notes.append(f"Phase {name} ({kind}) followed a rate_series, not one rate: the load is left unstated.")
            return {}, notes
        if kind == "user_centric":
            notes.append(f"Phase {name} shared {rate!r} requests/s among {phase.get('users')} users (user_centric).")
        return {"request_rate": rate, "concurrency": count(phase.get("concurrency")) or None, "loop": "open"}, notes
    if kind == "fixed_schedule":
        notes.append(f"Phase {name} replayed a trace's timestamps (fixed_schedule): the load is the trace's, left unstated.")
        return {}, notes
    notes.append(f"Phase {name} is of type {kind!r}, which sdeval does not read: the load is left unstated.")
    return {}, notes


def load_of(data: dict) -> tuple[dict, list[str]]:
    """The load, from the 2025 `input_config.loadgen`, the 0.11 `input_config.phases`, or a sweep's variation values."""
    cfg = as_dict(data.get("input_config"))
    loadgen = as_dict(cfg.get("loadgen"))
    if loadgen:
        concurrency, rate = count(loadgen.get("concurrency")) or None, number(loadgen.get("request_rate"))
        return {"concurrency": concurrency, "request_rate": rate, "loop": "open" if rate is not None else ("closed" if concurrency else None)}, []
    phases = cfg.get("phases")
    if isinstance(phases, list) and phases:
        counted = _counted_phases(phases)
        skipped = [p.get("name", "?") for p in phases if isinstance(p, dict) and p not in counted]
        notes = (
            [f"AIPerf leaves its warm-up phase{'s' if len(skipped) > 1 else ''} ({', '.join(map(str, skipped))}) out of its results."]
            if skipped
            else []
        )
        if len(counted) == 1:
            load, more = _phase_load(counted[0])
            return load, notes + more
        if counted:
            loads = [_phase_load(p)[0] for p in counted]
            if all(load == loads[0] for load in loads):
                return loads[0], notes + [f"AIPerf counted {len(counted)} phases, all at the same load."]
            return {}, notes + [
                f"AIPerf counted {len(counted)} phases at different loads ({', '.join(str(p.get('name')) for p in counted)}): the load is left unstated."
            ]
    variations = as_dict(as_dict(data.get("run_info")).get("variation_values"))
    concurrency = count(variations.get("phases.profiling.concurrency")) or None
    return {"concurrency": concurrency, "loop": "closed" if concurrency else None}, []


# AIPerf's --goodput SLOs, each a metric tag and a limit in the metric's display unit (ms here:
# set_slos in src/aiperf/metrics/types/good_request_count_metric.py, ai-dynamo/aiperf at cf79369e,
# converts display to base units). A request is good when every one holds (<= for smaller-is-better
# metrics) and it has a value for each: a one-token response has no inter_token_latency, so it is not
# good under an ITL limit. AIPerf's per-request inter_token_latency is (request latency - TTFT) /
# (output tokens - first chunk's tokens) (inter_token_latency_metric.py at d2d69500): the time per
# output token after the first, the record's TPOT.
SLO_LIMITS = {"time_to_first_token": "ttft_limit_ms", "inter_token_latency": "tpot_limit_ms", "request_latency": "e2e_limit_ms"}


def _slos(data: dict) -> dict | None:
    """The SLOs goodput was counted at: `input_config.slos` (0.11 on) or `input_config.input.goodput`
    (2025's UserConfig, aiperf/common/config/input_config.py at db4f6397: "VALUE is a number in the
    metric's display unit")."""
    cfg = as_dict(data.get("input_config"))
    for slos in (cfg.get("slos"), as_dict(cfg.get("input")).get("goodput")):
        if isinstance(slos, dict) and slos:
            return slos
    return None


def goodput_of(path: Path, data: dict, m: Metrics) -> tuple[dict | None, list[str]]:
    rate = number(m.block("goodput").get("avg"))
    good = count(m.block("good_request_count").get("avg"))
    if rate is None:
        return None, []
    slos = _slos(data)
    requests = count(m.block("request_count").get("avg"))
    counted = (
        f"{good}{f' of {requests}' if requests is not None else ''} requests good (good_request_count)" if good is not None else "its good requests"
    )
    if slos is None:
        return None, [f"AIPerf's goodput {rate!r} requests/s is not kept: the file does not record the SLOs it was counted at."]
    limits, stated = {}, []
    for tag, value in slos.items():
        v = number(value)
        if v is None:
            raise ImportProblem(f"{path}: input_config.slos.{tag} is {value!r}, not a limit")
        stated.append(f"{tag} <= {int(v) if v.is_integer() else v!r}")
        if tag in SLO_LIMITS:
            limits[SLO_LIMITS[tag]] = v
    definition = (
        f"AIPerf --goodput: a request is good when it meets every SLO ({', '.join(stated)}; time limits in ms) "
        "and has a value for each metric; goodput = good_request_count / the run's interval"
    )
    others = [tag for tag in slos if tag not in SLO_LIMITS]
    notes = [f"Goodput: AIPerf counted {counted} at its SLOs."]
    if others:
        notes.append(
            f"Its SLOs on {', '.join(others)} have no field of their own; they are in goodput.definition, and only make its good requests fewer."
        )
    return {"requests_per_s": rate, **limits, "definition": definition[:2000], "good_requests": good}, notes


def named(data: dict) -> tuple[list[str], str | None, str | None]:
    """The model(s), the tokenizer's name and the tokenizer with its revision, as input_config names them."""
    cfg = as_dict(data.get("input_config"))
    models = (
        [item.get("name") for item in as_dict(cfg.get("models")).get("items", []) if isinstance(item, dict)]
        if isinstance(as_dict(cfg.get("models")).get("items"), list)
        else []
    )
    if not models and isinstance(as_dict(cfg.get("endpoint")).get("model_names"), list):
        models = as_dict(cfg.get("endpoint"))["model_names"]
    tokenizer = as_dict(cfg.get("tokenizer"))
    name = tokenizer.get("name") if isinstance(tokenizer.get("name"), str) else None
    tok = f"{name} (revision {tokenizer['revision']})" if name and isinstance(tokenizer.get("revision"), str) else name
    return [m for m in models if isinstance(m, str)], name, tok


def identity_note(data: dict) -> str | None:
    """Item 4: the model(s), tokenizer and command line the file names."""
    cfg = as_dict(data.get("input_config"))
    models, _, tok = named(data)
    command = as_dict(data.get("run_info")).get("cli_command") or cfg.get("cli_command")
    return provenance.note("AIPerf", data.get("aiperf_version"), models, tok, command)


def variation_note(data: dict) -> str | None:
    """A point of an AIPerf sweep (`run_info`, 0.11 on): which one."""
    info = as_dict(data.get("run_info"))
    label, index = info.get("variation_label"), count(info.get("variation_index"))
    if not isinstance(label, str):
        return None
    trial = count(info.get("trial"))
    sweep = f"AIPerf sweep {info['sweep_id']}" if isinstance(info.get("sweep_id"), str) else "an AIPerf sweep"
    return f"One point of {sweep}: {label} (variation {index}{f', trial {trial}' if trial is not None else ''})."
