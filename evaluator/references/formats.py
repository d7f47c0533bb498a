"""Independent published results read into reference rows, one reader per format.

- `inferencex`: the rows of InferenceX's published results API (`GET /api/v1/benchmarks?model=...`,
  a JSON array; each row flat with a `metrics` object, times in seconds, throughputs in tokens/s).
  `tput_per_gpu` is taken as published, never recomputed from its split: in a disaggregated row
  `output_tput_per_gpu` is per decode accelerator (SemiAnalysisAI/InferenceX
  docs/results-and-ingestion.md; checked on the InferenceX-app fixture). `intvty` is 1 / `tpot`.
  `spec_method` is the only speculative field: no draft length, no acceptance.
- `mlperf-summary`: MLCommons' results table (`summary.csv`, or the same rows as `summary.json`), one
  row per submitter, system, model and scenario. `Result` is the system's figure in `Units`
  (Tokens/s for LLMs, not per accelerator). Speculative decoding is disclosed only in `notes`: a
  row whose notes do not name it leaves the method unstated, never "none".
- `mlperf-endpoints`: one `result_summary.json` of MLCommons' endpoints client (read by the
  importer evaluator/importers/mlperf_endpoints.py), one load point; the file names no model or
  hardware, so the point's settings are given with it (`PointSettings`).

Each reader returns plain row dicts (schemas/references.schema.json, `rows`); ReferenceProblem
names the file and the place for anything it cannot read.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import tables

FORMATS = ("inferencex", "mlperf-summary", "mlperf-endpoints")

PER_USER = "tokens/s per user"
DEFINITIONS = {
    "output_tokens_per_s": "output tokens per second of the whole deployment",
    "output_tokens_per_s_per_accelerator": "output tokens per second per accelerator of the deployment",
    "tokens_per_s_per_user": "tokens per second each user receives (1 / median time per output token)",
}


class ReferenceProblem(Exception):
    """A references input cannot be read (one line: `FILE: where: what`)."""


@dataclass(frozen=True)
class PointSettings:
    """What a `result_summary.json` does not say about its point: the key it was measured at."""

    model: str | None = None
    accelerator: str | None = None
    accelerators: int | None = None
    precision: str | None = None
    framework: str | None = None
    spec_method: str | None = None
    k: int | None = None
    acceptance: str | None = None
    isl: int | None = None
    osl: int | None = None
    dataset: str | None = None


def _figure(value: Any, unit: str, definition: str) -> dict[str, Any] | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value or value < 0:
        return None
    return {"value": float(value), "unit": unit, "definition": definition}


def _figures(**named: tuple[Any, str, str]) -> dict[str, Any]:
    return {name: f for name, (value, unit, definition) in named.items() if (f := _figure(value, unit, definition)) is not None}


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _key(**fields: Any) -> dict[str, Any]:
    return {name: value for name, value in fields.items() if value is not None}


# ---------------------------------------------------------------------------- InferenceX


def inferencex_rows(data: Any, name: str) -> list[dict[str, Any]]:
    """The API's array of rows (or {"data": [...]} / {"benchmarks": [...]} around it)."""
    if isinstance(data, dict):
        data = data.get("data", data.get("benchmarks"))
    if not isinstance(data, list):
        raise ReferenceProblem(f"{name}: /: not an InferenceX results array (a JSON array of rows)")
    rows = []
    for n, row in enumerate(data):
        if not isinstance(row, dict) or not isinstance(row.get("metrics"), dict):
            raise ReferenceProblem(f"{name}: /{n}: not an InferenceX row (an object with `metrics`)")
        for field in ("model", "hardware", "framework", "precision"):
            if not isinstance(row.get(field), str):
                raise ReferenceProblem(f"{name}: /{n}/{field}: missing or not a string")
        rows.append(_inferencex_row(row, n))
    return rows


def _inferencex_row(row: dict[str, Any], n: int) -> dict[str, Any]:
    m = row["metrics"]
    disagg = bool(row.get("disagg"))
    prefill, decode = _int(row.get("num_prefill_gpu")), _int(row.get("num_decode_gpu"))
    gpus = (prefill + decode if prefill and decode else None) if disagg else decode
    out = m.get("output_tput_per_gpu")
    per_acc = total = None
    if isinstance(out, int | float) and gpus and decode:
        # Disaggregated: per decode accelerator as published; spread over the whole deployment here.
        total = out * decode
        per_acc = total / gpus
    tpot = m.get("median_tpot")
    spec = row.get("spec_method") if isinstance(row.get("spec_method"), str) else row.get("spec_decoding")
    isl, osl = _int(row.get("isl")), _int(row.get("osl"))
    return {
        "id": f"inferencex/{n}",
        "key": _key(
            model=tables.model_id(row["model"]),
            accelerator=tables.accelerator_sku(row["hardware"]),
            accelerators=gpus,
            precision=tables.precision(row["precision"]),
            framework=tables.framework(row["framework"]),
            spec_method=tables.spec_method(spec) if isinstance(spec, str) else None,
            isl=isl,
            osl=osl,
            dataset=None if isl is not None else "agentic traces" if row.get("benchmark_type") == "agentic_traces" else None,
            concurrency=_int(row.get("conc")),
        ),
        "published": {
            k: row.get(k) for k in ("model", "hardware", "framework", "precision", "spec_method", "disagg", "image") if row.get(k) is not None
        },
        "figures": _figures(
            output_tokens_per_s=(total, "tokens/s", "output_tput_per_gpu x decode accelerators"),
            output_tokens_per_s_per_accelerator=(
                per_acc,
                "tokens/s",
                "output_tput_per_gpu x decode accelerators / all accelerators" if disagg else "output_tput_per_gpu",
            ),
            tokens_per_s_per_user=(
                m.get("median_intvty", 1 / tpot if isinstance(tpot, int | float) and tpot > 0 else None),
                PER_USER,
                "median_intvty (1 / median TPOT)",
            ),
        ),
        "date": row.get("date") if isinstance(row.get("date"), str) else None,
        "url": row.get("run_url") if isinstance(row.get("run_url"), str) else None,
    }


# ---------------------------------------------------------------------------- MLPerf summary

_SPEC_WORDS = (("mtp", "mtp"), ("nextn", "mtp"), ("eagle-3", "eagle-3"), ("eagle3", "eagle-3"), ("eagle", "eagle"), ("medusa", "medusa"))
_K = re.compile(r"\bK\s*=\s*(\d+)|num_nextn_predict_layers\s*=\s*(\d+)")


def _mlperf_spec(notes: str) -> tuple[str | None, int | None]:
    """The method and K the notes disclose; (None, None) when they say nothing (not disclosed, not none)."""
    low = notes.lower()
    if "speculative" not in low and not any(re.search(rf"\b{w}\b", low) for w, _ in _SPEC_WORDS):
        return None, None
    method = next((m for w, m in _SPEC_WORDS if re.search(rf"\b{w}\b", low)), "other")
    k = _K.search(notes)
    return method, (int(k.group(1) or k.group(2)) if k else None)


def mlperf_framework(cell: str) -> str | None:
    """The serving framework of a software stack cell: TensorRT-LLM before the libraries around it."""
    low = cell.lower()
    for word, name in (("tensorrt-llm", "trt"), ("trtllm", "trt"), ("sglang", "sglang"), ("vllm", "vllm")):
        if word in low:
            return name
    return tables.framework(cell)


MLPERF_COLUMNS = ("Organization", "SystemName", "Model", "Scenario", "Result", "Units", "accelerator_model_name", "total_accelerators")


def mlperf_summary_rows(raw: bytes, name: str) -> list[dict[str, Any]]:
    text = raw.decode("utf-8-sig", errors="strict")
    if text.lstrip()[:1] in ("[", "{"):
        data = json.loads(text)
        listed = data if isinstance(data, list) else data.get("results") if isinstance(data, dict) else None
        if not isinstance(listed, list) or not all(isinstance(r, dict) for r in listed):
            raise ReferenceProblem(f"{name}: /: not an MLPerf summary (an array of result rows)")
        records = [{k: "" if v is None else str(v) for k, v in r.items()} for r in listed]
        first_line = 0
    else:
        reader = csv.DictReader(io.StringIO(text))
        records, first_line = list(reader), 2
    rows = []
    for n, r in enumerate(records):
        where = f"line {n + first_line}" if first_line else f"/{n}"
        missing = [c for c in MLPERF_COLUMNS if not (r.get(c) or "").strip()]
        if missing:
            raise ReferenceProblem(f"{name}: {where}: no {missing[0]} (an MLPerf summary row has {', '.join(MLPERF_COLUMNS)})")
        rows.append(_mlperf_row(r, n, where, name))
    return rows


def _mlperf_row(r: dict[str, str], n: int, where: str, name: str) -> dict[str, Any]:
    try:
        result = float(r["Result"])
    except ValueError:
        raise ReferenceProblem(f"{name}: {where}: Result {r['Result']!r} is not a number") from None
    count = _int(r["total_accelerators"])
    method, k = _mlperf_spec(r.get("notes") or "")
    tokens = r["Units"].strip().lower() == "tokens/s"
    precision = (r.get("weight_data_types") or "").split(" ")[0] or None
    return {
        "id": f"mlperf-summary/{n}",
        "key": _key(
            model=tables.model_id(r["Model"]),
            accelerator=tables.accelerator_sku(r["accelerator_model_name"]),
            accelerators=count,
            precision=tables.precision(precision),
            framework=mlperf_framework(r.get("framework") or ""),
            spec_method=method,
            k=k,
            dataset=f"MLPerf {r.get('MlperfModel') or r['Model']}",
            scenario=r["Scenario"].strip().lower(),
        ),
        "published": {
            k: r[k] for k in ("Organization", "SystemName", "Platform", "Division", "Availability", "framework", "notes", "version") if r.get(k)
        },
        "figures": _figures(
            output_tokens_per_s=(result if tokens else None, "tokens/s", "Result (system tokens/s in the scenario)"),
            output_tokens_per_s_per_accelerator=(
                result / count if tokens and count else None,
                "tokens/s",
                "Result / total_accelerators",
            ),
        ),
        "date": None,
        "url": None,
        "place": r.get("Location") or None,
    }


# ---------------------------------------------------------------------------- MLPerf Endpoints


def mlperf_endpoints_rows(path: Path, settings: PointSettings) -> list[dict[str, Any]]:
    """The one load point of a result_summary.json, at the key its settings state."""
    from ..importers.common import ImportProblem
    from ..importers.mlperf_endpoints import import_file

    try:
        (imported,) = import_file(path)
    except ImportProblem as exc:
        raise ReferenceProblem(str(exc)) from None
    fields = imported.fields
    emitted = (fields.get("counts") or {}).get("emitted_tokens")
    duration = (fields.get("interval") or {}).get("duration_s")
    tpot = ((fields.get("latency") or {}).get("tpot_ms") or {}).get("p50")
    tps = emitted / duration if emitted is not None and duration else None
    load = fields.get("load") or {}
    return [
        {
            "id": "mlperf-endpoints/0",
            "key": _key(
                model=tables.model_id(settings.model),
                accelerator=tables.accelerator_sku(settings.accelerator),
                accelerators=settings.accelerators,
                precision=tables.precision(settings.precision),
                framework=tables.framework(settings.framework),
                spec_method=tables.spec_method(settings.spec_method),
                k=settings.k,
                acceptance=settings.acceptance,
                isl=settings.isl,
                osl=settings.osl,
                dataset=settings.dataset,
                concurrency=load.get("concurrency"),
            ),
            "published": {"file": path.name},
            "figures": _figures(
                output_tokens_per_s=(tps, "tokens/s", "output_sequence_lengths.total / duration_ns (E / T)"),
                output_tokens_per_s_per_accelerator=(
                    tps / settings.accelerators if tps is not None and settings.accelerators else None,
                    "tokens/s",
                    "E / T / accelerators",
                ),
                tokens_per_s_per_user=(1000 / tpot if tpot else None, PER_USER, "1000 / median TPOT ms"),
            ),
            "date": None,
            "url": None,
        }
    ]
