"""Record 1.3's fields for how late-2026 claims are made: each loads in a record (and against the
published schema), and a wrong value of each is a schema finding at its own place."""

from __future__ import annotations

import json

import jsonschema
import pytest
from conftest import EXAMPLES, ROOT

from evaluator.engine.loader import load_bytes, load_file
from evaluator.rules.assess import assess

SCHEMA = json.loads((ROOT / "schemas" / "evidence-record.schema.json").read_text())

# (JSON Pointer, a value that loads, a value that is a schema error)
FIELDS = [
    (
        "/configurations/0/deployment",
        {
            "pools": [
                {"role": "prefill", "workers": 4, "parallelism": {"data": 2}},
                {"role": "decode", "workers": 4, "parallelism": {"data": 16, "expert": 16}},
            ],
            "arms_concurrent": True,
        },
        {"pools": [{"role": "mixed", "workers": 4}]},
    ),
    ("/configurations/0/sampling/reasoning_effort", "high", 3),
    ("/configurations/0/sampling/thinking", True, "yes"),
    ("/configurations/0/proposer/residency", "not-loaded", "unloaded"),
    ("/configurations/0/proposer/adaptation", {"state": "adapting", "requests_seen": 1000}, {"state": "warm"}),
    ("/configurations/0/proposer/method", "dspark", "eagle-4"),
    ("/configurations/0/proposer/method", "dflash", "DFlash"),
    ("/configurations/0/proposer/method", "atlas", "Atlas"),
    ("/configurations/0/proposer/k_schedule_kind", "adaptive", "dynamic"),
    ("/configurations/0/proposer/k_by_length", [{"min_tokens": 0, "max_tokens": 4096, "k": 4}], [{"min_tokens": 0, "max_tokens": 4096, "k": 65}]),
    ("/runs/0/counts/input_tokens", 1180, -1),
    ("/runs/0/counts/scheduled_steps_by_k", [0, 0, 0, 0, 5], [-1]),
    ("/runs/0/load/loop", "batch-synchronous", "batch"),
    ("/runs/0/load/rounds", 3, 0),
    ("/runs/0/workload/prefix_cache", {"enabled": True, "hit_rate": 0.3, "state": "warm"}, {"hit_rate": 1.5}),
    ("/runs/0/validity", {"verdict": "valid", "tool": "MLPerf LoadGen", "text": "Result is : VALID"}, {"verdict": "VALID"}),
    ("/runs/0/quality/0/source_run", "offer-b", "an accuracy run"),
    ("/claims/0/counted", "total-tokens", "total"),
    ("/claims/0/at_accelerator_throughput", 400, 0),
    (
        "/claims/0/validity_gates",
        {"latency_limits": [{"metric": "ttft", "percentile": "p99", "limit_ms": 2000}], "tool_verdict": True},
        {"latency_limits": [{"metric": "ttft", "percentile": "p98", "limit_ms": 2000}]},
    ),
]


def with_value(pointer: str, value) -> bytes:
    data = load_file(str(EXAMPLES / "sd201-offer-b.json")).data
    data["record_version"] = "1.3"
    *parents, last = pointer.strip("/").split("/")
    node = data
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
    node[last] = value
    return json.dumps(data).encode()


def schema_pointers(text: bytes) -> list[str]:
    return [f.pointer for f in assess(load_bytes("offer.json", text)).findings if f.code == "schema"]


@pytest.mark.parametrize(("pointer", "good", "bad"), FIELDS, ids=[f"{p}={g}" if not isinstance(g, dict | list) else p for p, g, _ in FIELDS])
def test_each_1_3_field_loads_and_a_wrong_value_is_a_schema_finding_at_it(pointer, good, bad):
    text = with_value(pointer, good)
    jsonschema.Draft202012Validator(SCHEMA).validate(json.loads(text))
    assert schema_pointers(text) == []
    found = schema_pointers(with_value(pointer, bad))
    assert found and all(p.startswith(pointer) for p in found), found
