"""genai-perf: NVIDIA GenAI-Perf's profile_export_genai_perf.json, one run per file.

Read from triton-inference-server/perf_analyzer at 263c5f6e (2025-12-15, GenAI-Perf 0.0.16dev):
`genai-perf/genai_perf/export_data/json_exporter.py` (the file is the statistics dict, then
`telemetry_stats`, `input_config` and `sessions`), `metrics/statistics.py` and `metrics/llm_metrics.py`
(the blocks and their units), `profile_data_parser/llm_profile_data_parser.py` (what each figure
counts) and `config/input/*.py` (`input_config`); the 2024 shapes from the same history:

- Each metric is a top-level block {"unit", "avg", "p1" ... "p99", "min", "max", "std"} (aggregate
  metrics carry `unit` and `avg` only), AIPerf's shape. Times are in the block's `unit`: "ms" since
  699bdd51 (June 2024), "ns" in the first exports (c18c493e, May 2024).
- `request_count` (since perf_analyzer#231, bf54dfb5, December 2024): the requests that got a
  response; `output_sequence_length` (`num_output_token` in 2024): their output tokens, as GenAI-Perf
  re-tokenises the response text with its own tokenizer (`tokenizer.name`, by default the model's).
  The file has no token total: E is avg output sequence length x request_count, taken only when
  that product is a whole number, said so in the run's notes.
- GenAI-Perf computes a benchmark duration (first request sent to last response received) for
  `request_throughput` and `output_token_throughput` but writes none: like an AIPerf file without
  `benchmark_duration`, the run has no interval, and the throughput is kept in `reported`.
  `request_throughput` counts every request in the profile export, those without a response too;
  the file records no failed-request count.
- `inter_token_latency` is, per request, (request latency - TTFT) / (output tokens - 1) (since
  10ae3a4d, June 2024): the record's TPOT. In files with times in "ns" (May and June 2024) it may
  still be the gap between streamed chunks, so it is kept as ITL there.
- The per-user throughput, its mean over requests: `output_token_throughput_per_user` (since
  perf_analyzer#347, bae673ee, April 2025) is per request 1 / inter_token_latency; before it,
  `output_token_throughput_per_request` was per request output tokens / request latency.
- `input_config`, since perf_analyzer#308 (9fd79801, March 2025): `model_names`,
  `tokenizer.name`, `endpoint.{service_kind,type,streaming}`, `perf_analyzer.stimulus`
  ({"concurrency": N}, {"request_rate": R}, or session_concurrency, session_request_rate,
  fixed_schedule), `perf_analyzer.warmup_request_count`, `subcommand`. Before it, the CLI's
  arguments flat: `model` (a list), `tokenizer`, `service_kind`, `endpoint_type`, `streaming`,
  `concurrency`, `request_rate`, `session_concurrency`, `warmup_request_count`, `subcommand`.
- GenAI-Perf writes no version of itself and no command line. No speculative-decoding fields.

Not tested on a published file: the export pasted in triton-inference-server/perf_analyzer issue
298 could not be found in the stored issue threads; the tests build the shapes the source above
writes, and the top-level key list of a real export given in ai-dynamo/aiperf issue 340.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Any

from .common import Imported, ImportProblem, count, drop_none, number, read_json_document, source

FORMAT = "genai-perf"
TO_MS = {"ms": Fraction(1), "ns": Fraction(1, 10**6), "us": Fraction(1, 10**3), "s": Fraction(1000), "sec": Fraction(1000)}
RETOKENISED = (
    "GenAI-Perf counts output tokens by re-tokenising each response's text with its tokenizer{name}, "
    "not from the server's usage, so E can differ from the server's count."
)
PER_USER = {
    "output_token_throughput_per_user": "GenAI-Perf output_token_throughput_per_user: per request 1 / inter_token_latency, "
    "with inter_token_latency = (request latency - TTFT) / (output tokens - 1); the mean over requests",
    "output_token_throughput_per_request": "GenAI-Perf output_token_throughput_per_request: per request output tokens / request latency; "
    "the mean over requests",
}
# 2024 names of today's metrics.
ALIASES = {
    "output_sequence_length": ("output_sequence_length", "num_output_token"),
    "input_sequence_length": ("input_sequence_length", "num_input_token"),
}


def _block(data: dict, tag: str) -> dict:
    for key in ALIASES.get(tag, (tag,)):
        value = data.get(key)
        if isinstance(value, dict) and "unit" in value:
            return value
    return {}


def _latency(block: dict) -> dict | None:
    scale = TO_MS.get(str(block.get("unit", "")).lower())
    if not block or scale is None:
        return None
    out = {}
    for ours, theirs in (("mean", "avg"), ("p50", "p50"), ("p90", "p90"), ("p95", "p95"), ("p99", "p99")):
        v = number(block.get(theirs))
        if v is not None:
            out[ours] = v if scale == 1 else float(Fraction(repr(v)) * scale)
    return out or None


def _text(value: Any) -> str | None:
    if isinstance(value, list):
        names = [str(v) for v in value if isinstance(v, (str, int, float)) and str(v)]
        return ", ".join(names) or None
    return str(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value) else None


def _config(cfg: dict) -> dict[str, Any]:
    """What the run's input_config says, from either layout: models, tokenizer, endpoint, stimulus."""
    if isinstance(cfg.get("perf_analyzer"), dict) or "model_names" in cfg:  # since perf_analyzer#308
        endpoint = got if isinstance(got := cfg.get("endpoint"), dict) else {}
        pa = got if isinstance(got := cfg.get("perf_analyzer"), dict) else {}
        tokenizer = got if isinstance(got := cfg.get("tokenizer"), dict) else {}
        stimulus = got if isinstance(got := pa.get("stimulus"), dict) else {}
        return {
            "layout": "sectioned",
            "models": _text(cfg.get("model_names")),
            "tokenizer": _text(tokenizer.get("name")),
            "service_kind": _text(endpoint.get("service_kind")),
            "endpoint": _text(endpoint.get("type")),
            "streaming": endpoint.get("streaming"),
            "stimulus": stimulus,
            "warmup": count(pa.get("warmup_request_count")),
            "subcommand": _text(cfg.get("subcommand")),
        }
    stimulus = {k: cfg[k] for k in ("concurrency", "request_rate", "session_concurrency") if cfg.get(k) not in (None, "")}
    return {
        "layout": "flat",
        "models": _text(cfg.get("model")),
        "tokenizer": _text(cfg.get("tokenizer")),
        "service_kind": _text(cfg.get("service_kind")),
        "endpoint": _text(cfg.get("endpoint_type")),
        "streaming": cfg.get("streaming"),
        "stimulus": stimulus,
        "warmup": count(cfg.get("warmup_request_count")),
        "subcommand": _text(cfg.get("subcommand")),
    }


def _load(stimulus: dict) -> tuple[dict, str | None]:
    concurrency = count(stimulus.get("concurrency")) or None
    rate = number(stimulus.get("request_rate"))
    if concurrency is not None:
        return {"concurrency": concurrency, "loop": "closed"}, None
    if rate is not None:
        return {"request_rate": rate, "loop": "open"}, None
    other = {k: v for k, v in stimulus.items() if k not in ("concurrency", "request_rate")}
    if other:
        shown = ", ".join(f"{k} {v}" if v is not None else k for k, v in other.items())
        return {}, f"GenAI-Perf's stimulus was {shown}: sessions or a schedule, not a request concurrency or rate, so the load is left unstated."
    return {}, None


def _described(c: dict) -> str | None:
    parts = []
    if c["models"]:
        parts.append(f"model {c['models']}")
    if c["tokenizer"]:
        parts.append(f"tokenizer {c['tokenizer']}")
    if c["service_kind"]:
        parts.append(f"service kind {c['service_kind']}" + (f", endpoint {c['endpoint']}" if c["endpoint"] else ""))
    if isinstance(c["streaming"], bool):
        parts.append("streaming" if c["streaming"] else "not streaming")
    if c["subcommand"]:
        parts.append(f"subcommand {c['subcommand']}")
    return f"GenAI-Perf input_config: {'; '.join(parts)}." if parts else None


def import_file(path: Path) -> list[Imported]:
    data, sha = read_json_document(path, FORMAT)
    blocks = {k: v for k, v in data.items() if isinstance(v, dict) and "unit" in v and "avg" in v} if isinstance(data, dict) else {}
    if not blocks:
        from .sniff import describe_guess

        raise ImportProblem(
            f'{path}: holds no GenAI-Perf metric blocks ({{"unit", "avg", ...}} at the top level), '
            f"so it is not {FORMAT} output{describe_guess(path, FORMAT)}"
        )
    cfg_raw = data.get("input_config")
    if cfg_raw is not None and not isinstance(cfg_raw, dict):
        raise ImportProblem(f"{path}: input_config: not an object")
    c = _config(cfg_raw or {})
    notes = [RETOKENISED.format(name=f" ({c['tokenizer']})" if c["tokenizer"] else "")]
    described = _described(c)
    if described:
        notes.append(described)

    requests_block = _block(data, "request_count")
    requests = count(requests_block.get("avg"))
    if requests_block and requests is None:
        raise ImportProblem(f"{path}: request_count.avg: not a whole number of requests")
    osl = _block(data, "output_sequence_length")
    mean_out = number(osl.get("avg"))
    emitted = None
    if requests is None:
        notes.append("The file has no request_count (GenAI-Perf writes it since December 2024), so E cannot be counted.")
    elif mean_out is not None:
        product = Fraction(repr(mean_out)) * requests
        nearest = round(product)
        if math.isclose(float(product), nearest, rel_tol=1e-9, abs_tol=1e-6):
            emitted = int(nearest)
            notes.append(f"E is output_sequence_length.avg x request_count.avg = {mean_out!r} x {requests}.")
        else:
            notes.append(
                f"output_sequence_length.avg x request_count.avg = {mean_out!r} x {requests} is not a whole number of tokens, so E is left unstated."
            )
    notes.append(
        "GenAI-Perf writes no benchmark duration (it computes one for its throughputs and keeps it), so the run has no interval; "
        "its output_token_throughput is kept as reported."
    )
    notes.append("request_count and the latencies cover the requests that got a response; the file records no failed-request count.")

    itl = _block(data, "inter_token_latency")
    itl_as_tpot = str(itl.get("unit", "")).lower() != "ns"
    if itl and not itl_as_tpot:
        notes.append(
            "Times are in ns (a GenAI-Perf export of May or June 2024), whose inter_token_latency may be the gap between "
            "streamed chunks: it is kept as ITL, not TPOT."
        )
    load, load_note = _load(c["stimulus"])
    if load_note:
        notes.append(load_note)
    if c["warmup"]:
        notes.append(f"{c['warmup']} warm-up requests (warmup_request_count) were sent before the measurement.")
    goodput = number(_block(data, "request_goodput").get("avg"))
    if goodput is not None:
        notes.append(f"GenAI-Perf request_goodput {goodput!r} requests/s (at the limits in input_config's goodput) is kept as a note only.")
    sessions = data.get("sessions")
    if isinstance(sessions, dict) and sessions:
        notes.append(f"The file also holds per-session statistics for {len(sessions)} sessions, not imported.")

    per_user = next(
        (
            {"tokens_per_s": number(_block(data, key).get("avg")), "statistic": "mean", "definition": text}
            for key, text in PER_USER.items()
            if number(_block(data, key).get("avg")) is not None
        ),
        None,
    )
    fields = {
        "workload": {
            "num_requests": requests,
            "input_tokens_mean": number(_block(data, "input_sequence_length").get("avg")),
            "output_tokens_mean": mean_out,
        },
        "load": load,
        "counts": {"emitted_tokens": emitted, "population": "benchmark-requests"},
        "latency": {
            "ttft_ms": _latency(_block(data, "time_to_first_token")),
            "tpot_ms": _latency(itl) if itl_as_tpot else None,
            "itl_ms": None if itl_as_tpot else _latency(itl),
            "e2e_ms": _latency(_block(data, "request_latency")),
        },
        "per_user_throughput": per_user,
        "reported": {"output_tokens_per_s": number(_block(data, "output_token_throughput").get("avg"))},
        "notes": " ".join(notes),
    }
    return [Imported(fields=drop_none(fields), source=source(FORMAT, path, sha), speculative=False)]
