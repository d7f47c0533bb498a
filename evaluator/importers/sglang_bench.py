"""sglang-bench: `python -m sglang.bench_serving --output-file`, one JSON object a line.

Keys follow sgl-project/sglang python/sglang/bench_serving.py (read at commit 0033168f and in
the files of ../shared/real-outputs/sglang-bench, December 2024 to December 2025). Every
version writes `backend`, `dataset_name`, `random_input_len`, `duration`, `completed`,
`total_input_tokens`, `total_output_tokens`, `total_output_tokens_retokenized` and
`*_e2e_latency_ms`; `accept_length` and `concurrency` came in 2025, `server_info` (the server's
/get_server_info, with its `version`; under `prefill` and `decode` behind a PD router) later.
December 2024 files have only the median TTFT and ITL.

SGLang's bench output carries no speculative-decoding counts: its `accept_length` is the
server's cumulative average since start (read from /get_server_info after the run), not this
run's, so it is kept in the notes as a diagnostic and never turned into counts or a reported
figure. `concurrency` is the average achieved concurrency (sum of latencies / duration), not a
peak, so it goes to the notes as well. `request_rate` Infinity with `max_concurrency` null sent
every request at once. `total_output_tokens` counts what the server reported as completion
tokens, reasoning included.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .common import CLIENT_WALL_CLOCK, Imported, ImportProblem, core, drop_none, import_entries, number, serving_latency, serving_load

FORMAT = "sglang-bench"
CORE_KEYS = ("duration", "completed", "total_output_tokens")
# Keys only SGLang's bench_serving writes (vLLM's spells end-to-end latency e2el), any version.
DATASET_SETTINGS = ("random_input_len", "random_output_len", "random_range_ratio", "sharegpt_output_len")
SGLANG_KEYS = ("accept_length", "total_output_tokens_retokenized", "mean_e2e_latency_ms", "median_e2e_latency_ms", "server_info")


def is_sglang_result(d: dict) -> bool:
    return any(k in d for k in SGLANG_KEYS)


def _server_versions(info: Any) -> tuple[str | None, str | None]:
    """(the server's SGLang version, a note naming each server's version behind a PD router)."""
    if not isinstance(info, dict):
        return None, None
    if isinstance(info.get("version"), str) and info["version"]:
        return info["version"], None
    parts = []
    for role in ("prefill", "decode"):
        servers = info.get(role)
        if isinstance(servers, list):
            versions = sorted({s["version"] for s in servers if isinstance(s, dict) and isinstance(s.get("version"), str)})
            if versions:
                parts.append(f"{role} {', '.join(versions)}")
    if not parts:
        return None, None
    return None, f"SGLang server versions behind the router: {'; '.join(parts)}."


def run_fields(d: dict, path: Path, entry: str | None) -> tuple[dict[str, Any], bool, str | None]:
    where = f"{path}{': ' + entry if entry else ''}"
    missing = [k for k in CORE_KEYS if k not in d]
    if missing or not is_sglang_result(d):
        from .sniff import describe_guess

        lacks = ", ".join(missing) if missing else "every key only SGLang's bench_serving writes (" + ", ".join(SGLANG_KEYS) + ")"
        raise ImportProblem(f"{where}: lacks {lacks}, so it is not {FORMAT} output{describe_guess(path, FORMAT)}")
    completed = core(d, "completed", where)
    # bench_serving records completed requests only, not how many it sent.
    load, load_note = serving_load(d, completed, sent_is=" (the completed ones; the file does not record failures)")
    version, version_note = _server_versions(d.get("server_info"))
    notes = [version_note, load_note]
    accept_length = number(d.get("accept_length"))
    if accept_length is not None:
        notes.append(
            f"SGLang reported accept_length {accept_length:g}: the server's cumulative average since it started, not this run's; a diagnostic only."
        )
    if number(d.get("concurrency")) is not None:
        notes.append(f"Average achieved concurrency (sum of request latencies / duration): {d['concurrency']:g}.")
    fields = {
        "workload": {
            "dataset": _dataset(d),
            "num_requests": completed,
            "input_tokens_mean": _mean(d.get("total_input_tokens"), completed),
            "output_tokens_mean": _mean(d.get("total_output_tokens"), completed),
        },
        "load": load,
        "interval": {**CLIENT_WALL_CLOCK, "duration_s": core(d, "duration", where, number) or None},
        "counts": {"emitted_tokens": core(d, "total_output_tokens", where), "population": "benchmark-requests"},
        "latency": {m: serving_latency(d, k) for m, k in (("ttft_ms", "ttft"), ("tpot_ms", "tpot"), ("itl_ms", "itl"), ("e2e_ms", "e2e_latency"))},
        "reported": {"output_tokens_per_s": number(d.get("output_throughput"))},
        "notes": " ".join(n for n in notes if n) or None,
    }
    return drop_none(fields), accept_length is not None, version


def _dataset(d: dict) -> str | None:
    """ "random (random_input_len 1024, random_output_len 1024, random_range_ratio 0.0)": the
    generator's settings belong to the workload a baseline must share."""
    name = d.get("dataset_name")
    if not isinstance(name, str) or not name:
        return None
    family = name.split("-")[0]
    settings = [
        f"{k} {d[k]}"
        for k in DATASET_SETTINGS
        if k.startswith(family + "_") and isinstance(d.get(k), (int, float)) and not isinstance(d.get(k), bool)
    ]
    return f"{name} ({', '.join(settings)})" if settings else name


def _mean(total: Any, n: int | None) -> float | None:
    t = number(total)
    return t / n if t is not None and n else None


def import_file(path: Path) -> list[Imported]:
    return import_entries(path, FORMAT, run_fields)
