"""Properties over generated and mutated records: nothing crashes, and we read records
exactly as the published schema does."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.strategies import SCHEMA, example_records, from_schema, mutated_records

from evaluator.engine.loader import load_bytes
from evaluator.present import REPORTER_BY_NAME
from evaluator.present.json_document import document as as_document
from evaluator.rules.assess import assess

pytestmark = pytest.mark.property

VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
PROPERTY_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assess_data(data) -> object:
    result = assess(load_bytes("generated.json", json.dumps(data).encode()))
    # Every reporter must cope with whatever the rules produced.
    for render in REPORTER_BY_NAME.values():
        render([result], True)
        render([result], False)
    json.dumps(as_document([result], full=True))
    return result


@PROPERTY_SETTINGS
@given(from_schema())
def test_schema_valid_records_never_crash_and_pass_the_schema_stage(record):
    VALIDATOR.validate(record)  # the strategy is right
    result = assess_data(record)
    assert [f for f in result.findings if f.code in ("parse", "schema")] == []
    assert result.outcome in ("established", "not-established")


@PROPERTY_SETTINGS
@given(mutated_records())
def test_mutated_records_never_crash_and_schema_verdict_agrees_with_jsonschema(mutation):
    record, _what = mutation
    result = assess_data(record)
    published_schema_says_invalid = any(True for _ in VALIDATOR.iter_errors(record))
    we_say_invalid = any(f.code == "schema" for f in result.findings)
    assert published_schema_says_invalid == we_say_invalid


SD201_B = next(r for r in example_records() if r["offer"]["offer_id"] == "SD-201-B")


@settings(max_examples=60, deadline=None)
@given(
    field=st.sampled_from(["emitted_tokens", "accepted_drafts", "bonus_tokens", "verification_steps"]),
    delta=st.integers(min_value=-4, max_value=50).filter(lambda d: d != 0),
)
def test_a_perturbed_count_fires_counts_inconsistent_at_that_count_or_its_identity(field, delta):
    record = copy.deepcopy(SD201_B)
    counts = record["runs"][0]["counts"]
    counts[field] = max(0, counts[field] + delta)
    if counts[field] == SD201_B["runs"][0]["counts"][field]:
        return
    result = assess_data(record)
    paths = {f.pointer for f in result.findings if f.code == "counts-inconsistent"}
    # Which identity notices depends on the count: E = A + B names E, A <= P names A,
    # B <= S names B, the histogram names itself.
    expected = {
        "emitted_tokens": "/runs/0/counts/emitted_tokens",
        "accepted_drafts": "/runs/0/counts/emitted_tokens",
        "bonus_tokens": "/runs/0/counts/emitted_tokens",
        "verification_steps": "/runs/0/counts/accepted_length_histogram",
    }[field]
    assert expected in paths


@settings(max_examples=40, deadline=None)
@given(bucket=st.integers(min_value=0, max_value=4), delta=st.integers(min_value=1, max_value=9))
def test_a_perturbed_histogram_bucket_fires_at_the_histogram(bucket, delta):
    record = copy.deepcopy(SD201_B)
    record["runs"][0]["counts"]["accepted_length_histogram"][bucket] += delta
    paths = [f.pointer for f in assess_data(record).findings if f.code == "counts-inconsistent"]
    assert "/runs/0/counts/accepted_length_histogram" in paths


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=400), st.sampled_from(["x.json", "x.yaml", "-"]))
def test_arbitrary_bytes_are_a_finding_never_an_exception(raw, name):
    result = assess(load_bytes(name, raw))
    assert result.findings or result.record is not None


# A render takes about a second: a few examples each, enough to reach the renderer's branches
# (no claims, no speculative run, missing counts, nasty text) without slowing the suite.
RENDER_SETTINGS = settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))


@RENDER_SETTINGS
@given(st.one_of(from_schema(), mutated_records().map(lambda m: m[0])))
def test_generated_and_mutated_records_always_render_a_pdf(record):
    from evaluator.pipeline import reassess
    from evaluator.report.render import render_pdf

    pdf = render_pdf(reassess([("generated.json", json.dumps(record).encode())]), signer=None)
    assert pdf.startswith(b"%PDF-1.7") and pdf.rstrip().endswith(b"%%EOF")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.one_of(from_schema(), mutated_records().map(lambda m: m[0])))
def test_the_command_line_over_generated_records_exits_0_or_1_with_a_json_report(sdeval, tmp_path, record):
    path = tmp_path / "generated.json"
    path.write_text(json.dumps(record))
    out = sdeval("validate", "--format", "json", path)
    assert out.exit_code in (0, 1), out.stderr
    assert out.stderr == ""
    document = out.json()
    has_error = any(f["severity"] == "error" for f in document["findings"])
    assert out.exit_code == (1 if has_error else 0)
