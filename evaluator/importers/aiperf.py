"""aiperf: profile_export_aiperf.json in every layout AIPerf has written it, its sweep aggregate
(profile_export_aiperf_sweep.json, one run per point) and its per-request records (profile_export.jsonl).

Read from ai-dynamo/aiperf's history (`exporters/json_exporter.py`, `common/models/export_models.py`
and `metrics/types/*.py`, mirror at db4f6397, 2025-10-10), its `docs/reference/json-export-schema.md`
(commit 1554b478) and the files kept in ../shared/real-outputs/aiperf:

- June 2025 pre-release (JsonExporter added in ai-dynamo/aiperf#49, cfa53de2): one record per
  metric keyed by its display name ("Time to First Token", with `name`), under `records` in
  ajcasagrande/aiperf's artifacts (4e8e0e30). Only latency distributions: TTFT, TTST, ITL and
  "Time to Last Token" (request start to last response, i.e. the request latency); no request
  count, token count or benchmark duration.
- July to 10 October 2025 (eb497af9 .. 43b78902): `records` keyed by metric tag, each block
  with `tag` and `header`; time to first and second token tagged `ttft` and `ttst`. Values are
  in the block's `unit` (nanoseconds before ai-dynamo/aiperf#203, display units after).
- Since ai-dynamo/aiperf#343 (GenAI-Perf's layout): each metric tag is a top-level block
  {"unit", "avg", "p50", ..., "count", "sum"}; later files add `aiperf_version`,
  `schema_version` and the speculative-decoding metrics.

Emitted tokens are every generated token: AIPerf's output sequence length is output plus
reasoning tokens (`OutputSequenceLengthMetric`), and its `output_token_throughput` is their
total over the benchmark duration, while `total_output_tokens` leaves reasoning tokens out. So
E is `total_osl` (since ai-dynamo/aiperf#319), or `benchmark_token_count` (its name in August
2025), or `total_output_tokens` plus `total_reasoning_tokens`; the reasoning share is kept.
The benchmark duration runs from the first request sent to the last response received.
Speculative counts come from the run totals (or the per-request metric's `sum`), the histogram
from pooled_spec_decode_acceptance_histogram (string keys). AIPerf's acceptance rates are
percentages; the token-weighted one is kept, as a fraction, in `reported`. AIPerf 0.13 takes them
from the server's per-request records (vLLM's metrics.speculative_decoding and others), so the
requests counted in spec_decode_steps are those covered, the rest counted as not covered.

The load: `input_config.loadgen` (2025), or the phases AIPerf counts in its results of 0.11's
`input_config.phases` (below), or a sweep point's `run_info.variation_values`. Goodput
(`goodput`, `good_request_count`) is kept with the SLOs it was counted at, `input_config.slos`
(0.11 on) or `input_config.input.goodput` (2025), and only with them. What ran (issue 28.4): the
models of `input_config.models.items` (or `endpoint.model_names`), the tokenizer and its revision,
and the command line of `run_info.cli_command` (or `input_config.cli_command`) go to the notes.

The reading is split by concern: aiperf_blocks (units, tags, layouts), aiperf_config (load, goodput,
identity), aiperf_run (one run's fields), aiperf_sweep, aiperf_records; this module picks the reader.
"""

from __future__ import annotations

from pathlib import Path

from .aiperf_blocks import FORMAT, TESTED, as_dict, metric_blocks
from .aiperf_config import load_of, named
from .aiperf_records import import_records, is_records_file
from .aiperf_run import summary_run
from .aiperf_sweep import import_sweep
from .common import Imported, ImportProblem, count, read_json_document, source

__all__ = ["FORMAT", "TESTED", "import_file", "import_with_server_metrics"]


def import_with_server_metrics(path: Path, server_metrics: Path) -> list[Imported]:
    """`sdeval import aiperf SUMMARY --server-metrics FILE`: one profiling run and its server's counters."""
    if is_records_file(path):
        raise ImportProblem(f"{path}: --server-metrics goes with AIPerf's summary (profile_export_aiperf.json), not its per-request records")
    data, _ = read_json_document(path, FORMAT)
    if not isinstance(data, dict) or isinstance(data.get("per_combination_metrics"), list):
        raise ImportProblem(f"{path}: --server-metrics goes with one run's profile_export_aiperf.json, not a sweep aggregate")
    from .aiperf_server_metrics import beside_summary

    return [beside_summary(item, data, server_metrics) for item in import_file(path)]


def import_file(path: Path) -> list[Imported]:
    if is_records_file(path):
        return [import_records(path)]
    data, sha = read_json_document(path, FORMAT)
    if isinstance(data, dict) and isinstance(data.get("per_combination_metrics"), list):
        return import_sweep(path, data, sha)
    if isinstance(data, dict) and as_dict(data.get("metadata")).get("aggregation_type") == "confidence":
        runs = count(data["metadata"].get("num_profile_runs"))
        raise ImportProblem(
            f"{path}: an AIPerf confidence aggregate (metadata.aggregation_type 'confidence', over {runs if runs is not None else 'several'} "
            "profile run(s)): statistics across runs, not one run's counts; import each run's own profile_export_aiperf.json"
        )
    found = metric_blocks(data)
    if found is None:
        from .sniff import describe_guess

        raise ImportProblem(
            f'{path}: holds no AIPerf metric blocks ({{"unit", "avg", ...}} at the top level or under records), '
            f"so it is not {FORMAT} output{describe_guess(path, FORMAT)}"
        )
    blocks, layout = found
    load, load_notes = load_of(data)
    fields, speculative = summary_run(path, data, blocks, layout, load, load_notes)
    models, tokenizer, _ = named(data)
    origin = source(FORMAT, path, sha, data.get("aiperf_version"), model=models, tokenizer=tokenizer)
    return [Imported(fields=fields, source=origin, speculative=speculative)]
