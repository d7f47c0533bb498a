"""vllm-bench: `vllm bench serve --save-result` JSON, or the `--append-result` form (one object a line).

Keys follow vllm/benchmarks/serve.py. The load as configured (`max_concurrency`,
`request_rate`) and the peak actually measured (`max_concurrent_requests`) are kept apart.
The spec_decode_* keys are deltas of the server's counters taken around the run, so they are
server-wide, while total_output_tokens counts the benchmark's own requests: a run with both
is marked population "mixed". spec_decode_acceptance_rate is a percentage; it is kept as a
fraction in `reported`, next to the tool's acceptance length and output throughput.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .common import (
    CLIENT_WALL_CLOCK,
    Imported,
    ImportProblem,
    count,
    drop_none,
    import_entries,
    number,
    percent_to_fraction,
    serving_latency,
    serving_load,
)
from .sglang_bench import SGLANG_KEYS

FORMAT = "vllm-bench"
CORE_KEYS = ("duration", "completed", "total_output_tokens")


def _guess(path: Path) -> str:
    from . import describe_guess

    return describe_guess(path, FORMAT)



def _sent(d: dict) -> int | None:
    prompts = count(d.get("num_prompts"))
    if prompts:
        return prompts
    completed, failed = count(d.get("completed")), count(d.get("failed"))
    return completed + (failed or 0) if completed is not None else None


def run_fields(d: dict, path: Path, entry: str | None) -> tuple[dict[str, Any], bool]:
    where = f"{path}{': ' + entry if entry else ''}"
    sglang = [k for k in SGLANG_KEYS if k in d]
    if sglang:
        raise ImportProblem(
            f"{where}: has {sglang[0]}, which only SGLang's bench_serving writes, so it is not {FORMAT} output; "
            f"it looks like sglang-bench output (try `sdeval import sglang-bench {path.name}`)"
        )
    missing = [k for k in CORE_KEYS if k not in d]
    if missing:
        raise ImportProblem(f"{where}: lacks {', '.join(missing)}, so it is not {FORMAT} output{_guess(path)}")
    completed = count(d.get("completed"))
    multi_turn = d.get("mode") == "multi_turn"
    # Multi-turn mode states its load as conversations in flight (multi_turn_concurrency).
    load, load_note = serving_load(d, _sent(d), "multi_turn_concurrency" if multi_turn else "max_concurrency")
    speculative = "spec_decode_num_drafts" in d or "spec_decode_draft_tokens" in d
    counts: dict[str, Any] = {
        "emitted_tokens": count(d.get("total_output_tokens")),
        "verification_steps": count(d.get("spec_decode_num_drafts")),
        "proposed_drafts": count(d.get("spec_decode_draft_tokens")),
        "accepted_drafts": count(d.get("spec_decode_accepted_tokens")),
        "population": "mixed" if speculative else "benchmark-requests",
    }
    steps = counts["verification_steps"]
    per_pos = d.get("spec_decode_per_position_acceptance_rates")
    if steps and isinstance(per_pos, list):
        counts["accepted_per_position"] = _recover_counts(per_pos, steps)
    fields = {
        "workload": {
            "num_requests": completed,
            "input_tokens_mean": _mean(d.get("total_input_tokens"), completed),
            "output_tokens_mean": _mean(d.get("total_output_tokens"), completed),
        },
        "load": {**load, "measured_peak_concurrency": count(d.get("max_concurrent_requests"))},
        "interval": {**CLIENT_WALL_CLOCK, "duration_s": number(d.get("duration")) or None},
        "counts": counts,
        "latency": {m: serving_latency(d, k) for m, k in (("ttft_ms", "ttft"), ("tpot_ms", "tpot"), ("itl_ms", "itl"), ("e2e_ms", "e2el"))},
        "reported": {
            "acceptance_rate": percent_to_fraction(d.get("spec_decode_acceptance_rate")),
            "mean_acceptance_length": number(d.get("spec_decode_acceptance_length")),
            "output_tokens_per_s": number(d.get("output_throughput")),
        },
    }
    notes = [load_note]
    if multi_turn:
        notes.append(
            f"vllm bench serve multi-turn mode: {d.get('multi_turn_concurrency')} conversation(s) in flight; "
            f"{count(d.get('conversations_completed'))} conversation(s), {completed} requests (turns)."
        )
    if "run_number" in d:
        notes.append(f"From a vllm bench sweep summary: run_number {d['run_number']}.")
    if count(d.get("failed")):
        notes.append(f"{d['failed']} requests failed and are not in the counts.")
    if speculative:
        notes.append("spec_decode_* are server-counter deltas around the run (server-wide); total_output_tokens counts the benchmark's requests.")
    if any(notes):
        fields["notes"] = " ".join(n for n in notes if n)
    return drop_none(fields), speculative


def _mean(total: Any, n: int | None) -> float | None:
    t = number(total)
    return t / n if t is not None and n else None


def _recover_counts(rates: list, steps: int) -> list[int] | None:
    """vLLM reports per_pos[p] / drafts; with drafts known, the count is recovered exactly
    (a double holds the quotient to 1 part in 2**53, far below one step). Anything that does
    not come back to a whole number is left out rather than rounded."""
    out = []
    for r in rates:
        if number(r) is None:
            return None
        value = r * steps
        nearest = round(value)
        if abs(value - nearest) > 1e-6 * max(1, steps):
            return None
        out.append(int(nearest))
    return out


def import_file(path: Path) -> list[Imported]:
    # `vllm bench sweep` writes each combination's summary.json as an array of bench-serve results.
    return import_entries(path, FORMAT, run_fields, arrays="vllm bench sweep summary.json")
