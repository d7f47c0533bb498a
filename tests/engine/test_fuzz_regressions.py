"""Inputs that once crashed sdeval (found by the property tests and the fuzzer), kept as regressions.

Each goes through the fuzz target's own path: load -> assess -> every reporter.
"""

from __future__ import annotations

import json

import pytest

from evaluator.engine.loader import load_bytes
from evaluator.present import REPORTER_BY_NAME
from evaluator.present.json_document import document as as_document
from evaluator.rules.assess import assess

MINIMAL = {
    "record_version": "1.0",
    "offer": {"vendor": "", "offer_id": "", "date": "0000-00-00", "claim_text": ""},
    "configurations": [{"id": "0", "target": {}, "proposer": {"method": "draft-model"}}],
    "runs": [{"id": "0", "arrangement": "speculative", "configuration": "0", "workload": {}, "counts": {}}],
    "claims": [{"id": "0", "text": "", "kind": "output-throughput", "run": "0"}],
}


def _with(path: list, value) -> bytes:
    record = json.loads(json.dumps(MINIMAL))
    node = record
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return json.dumps(record).encode()


def _speedup_over_a_run_with_an_unknown_configuration() -> bytes:
    record = json.loads(json.dumps(MINIMAL))
    record["runs"].append({"id": "1", "arrangement": "target-only", "configuration": "gone", "workload": {}, "counts": {}})
    record["claims"][0].update(kind="speedup", baseline="1")
    return json.dumps(record).encode()


REGRESSIONS = [
    # E / T overflowed a float: a 5e-324 s repetition (hypothesis). Now a schema finding.
    ("tiny-duration.json", _with(["runs", 0, "repetitions"], [{"emitted_tokens": 1, "duration_s": 5e-324}]), "schema"),
    # PyYAML's reader raised on a control character before parsing began (hypothesis).
    ("nul.yaml", b"\x00", "parse"),
    # baseline-mismatch compared configuration fields the baseline, its configuration removed, lacked:
    # KeyError (hypothesis, a mutation removing configurations[1]). Now the dangling reference is a finding.
    ("unknown-configuration.json", _speedup_over_a_run_with_an_unknown_configuration(), "reference-broken"),
]


@pytest.mark.parametrize("name,raw,code", REGRESSIONS, ids=[r[0] for r in REGRESSIONS])
def test_former_crash_is_now_a_finding(name, raw, code):
    result = assess(load_bytes(name, raw))
    json.dumps(as_document([result], full=True))
    for render in REPORTER_BY_NAME.values():
        render([result], True)
    assert code in {f.code for f in result.findings}


@pytest.mark.parametrize(
    ("value", "schema_error"),
    [([0.0], False), ([2.0, 1.0], False), ([0.5], True), (["1"], True)],
)
def test_a_count_written_as_a_whole_float_is_read_as_the_published_schema_reads_it(value, schema_error):
    """JSON Schema 2020-12 counts 0.0 as an integer; the models said schema error while
    check-jsonschema passed the record (hypothesis, a mutation of accepted_per_position)."""
    import jsonschema

    from evaluator._infra.resources import schema_path

    raw = _with(["runs", 0, "counts", "accepted_per_position"], value)
    published = jsonschema.Draft202012Validator(json.loads(schema_path().read_text()))
    assert any(True for _ in published.iter_errors(json.loads(raw))) == schema_error
    assert any(f.code == "schema" for f in assess(load_bytes("whole.json", raw)).findings) == schema_error
