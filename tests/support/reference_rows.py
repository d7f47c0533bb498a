"""InferenceX API rows built for the reference tests, and a references file made of them."""

from __future__ import annotations

import json


def inferencex_row(**changes) -> dict:
    """A row at the key of examples/public-claims/trt-deepseek-r1-250-tps-per-user.yaml's claim once its
    lengths are stated (DeepSeek-R1 fp4, 8 B200, trt, MTP, 1024/2048 tokens, concurrency 1)."""
    row = {
        "model": "dsr1",
        "hardware": "b200",
        "framework": "trt",
        "precision": "fp4",
        "spec_method": "mtp",
        "disagg": False,
        "num_prefill_gpu": 8,
        "num_decode_gpu": 8,
        "isl": 1024,
        "osl": 2048,
        "conc": 1,
        "metrics": {"median_intvty": 200.0, "output_tput_per_gpu": 25.0},
    }
    row.update(changes)
    return row


def references_file(rows: list[dict], name: str = "rows.json") -> bytes:
    """The references file `sdeval reference import inferencex` writes for these rows."""
    from evaluator.references.document import build, dumps, provenance
    from evaluator.references.formats import inferencex_rows

    raw = json.dumps(rows).encode()
    return dumps(build([(provenance("inferencex", name, raw, "2026-12-04T00:00:00Z"), inferencex_rows(rows, name))]))
