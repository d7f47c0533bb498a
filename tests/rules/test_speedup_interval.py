"""speedup-interval (issue 35, item 4): a speedup claim set against the 95 % interval of its run's paired
per-repetition speedups (record 1.3), as the buyer reads it: the message, the ask, and the claim forms.
The interval is the geometric mean's, on the log scale (what sdeval measure writes); a block written
before the log scale (no method) is read as its arithmetic mean, as given; a failed pairing judges nothing."""

from __future__ import annotations

import json

import jsonpatch
from conftest import EXAMPLES

from evaluator.engine.loader import load_bytes, load_file
from evaluator.engine.statistics import GEOMETRIC
from evaluator.rules.assess import assess

METHOD = "(geometric mean; Student t over the logs of the paired ratios)"


def assessed(values: list[float], *claim_patch: dict, method: str | None = GEOMETRIC, **more):
    block = {
        "confidence": 0.95,
        "method": "Student t",
        "speedup": {
            "baseline_run": "target-only-c8",
            "paired_repetitions": list(range(len(values))),
            "values": values,
            "mean": sum(values) / len(values),
            **({"method": method} if method is not None else {}),
            **more,
        },
    }
    patch = [{"op": "replace", "path": "/record_version", "value": "1.3"}, {"op": "add", "path": "/runs/3/uncertainty", "value": block}, *claim_patch]
    data = jsonpatch.apply_patch(load_file(str(EXAMPLES / "complete-offer.yaml")).data, patch)
    return assess(load_bytes("offer.json", json.dumps(data).encode()))


def found(result):
    return [(f.severity, f.pointer, f.message) for f in result.findings if f.code == "speedup-interval"]


def test_a_claim_above_the_interval_names_it_and_the_claim_stays_established():
    result = assessed([1.70, 1.75, 1.72])
    assert found(result) == [
        (
            "warning",
            "/claims/1/value",
            "claim speedup-c8's 1.90x lies outside the 95 % interval: run eagle3-c8's speedup over target-only-c8 "
            f"is 1.72x, 95 % interval 1.66 to 1.79x over 3 paired repetitions {METHOD}",
        )
    ]
    assert next(c for c in result.claims if c.id == "speedup-c8").verdict == "established"  # a warning decides nothing


def test_faster_inside_the_noise():
    assert found(assessed([0.9, 1.9, 2.9])) == [
        (
            "warning",
            "/claims/1/value",
            "claim speedup-c8's 1.90x says faster, but the interval reaches 1.0 (faster is inside the noise): run eagle3-c8's "
            f"speedup over target-only-c8 is 1.71x, 95 % interval 0.391 to 7.43x over 3 paired repetitions {METHOD}",
        )
    ]


def test_widely_spread_speedups_keep_an_interval_above_0():
    [(_, _, message)] = found(assessed([0.3, 1.0, 3.5]))
    assert message.endswith(f"is 1.02x, 95 % interval 0.0481 to 21.5x over 3 paired repetitions {METHOD}")


def test_a_block_written_before_the_log_scale_is_read_as_given():
    # No method: the arithmetic mean that build wrote, and its interval, which could reach below 0.
    assert found(assessed([0.9, 1.9, 2.9], method=None)) == [
        (
            "warning",
            "/claims/1/value",
            "claim speedup-c8's 1.90x says faster, but the interval reaches 1.0 (faster is inside the noise): run eagle3-c8's "
            "speedup over target-only-c8 is 1.90x, 95 % interval -0.584 to 4.38x over 3 paired repetitions "
            "(arithmetic mean; Student t over the paired ratios, as the record states)",
        )
    ]
    assert found(assessed([0.9, 1.9, 2.9], method="arithmetic mean; Student t over the paired ratios")) == found(
        assessed([0.9, 1.9, 2.9], method=None)
    )


def test_a_failed_pairing_leaves_no_interval_to_judge_by():
    failed = {"failed_pairings": [{"repetition": 3, "reason": "the speculative window emitted no tokens"}]}
    assert found(assessed([1.70, 1.75, 1.72], **failed)) == []
    # A ratio of 0 under the geometric method (a record edited by hand) has no log either.
    assert found(assessed([1.70, 0.0, 1.72, 1.71])) == []
    assert found(assessed([1.70, 0.0, 1.72, 1.71], method=None)) != []  # the arithmetic mean takes it, as that build did


def test_both_at_once():
    [(_, _, message)] = found(assessed([0.95, 1.0, 1.05]))
    assert "lies outside the 95 % interval and says faster, but the interval reaches 1.0 (faster is inside the noise):" in message


def test_a_claim_written_as_a_change_is_judged_as_the_speedup_it_amounts_to():
    as_change = [
        {"op": "replace", "path": "/claims/1/kind", "value": "output-throughput"},
        {"op": "replace", "path": "/claims/1/value", "value": 90},
        {"op": "replace", "path": "/claims/1/unit", "value": "%"},
        {"op": "add", "path": "/claims/1/relative", "value": "higher"},
        {"op": "add", "path": "/claims/1/baseline", "value": "target-only-c8"},
    ]
    assert found(assessed([1.88, 1.90, 1.92], *as_change)) == []  # 90 % higher is 1.90x
    assert [p for _, p, _ in found(assessed([1.70, 1.75, 1.72], *as_change))] == ["/claims/1/value"]


def test_a_printed_value_covers_what_rounds_to_it():
    printed = [{"op": "replace", "path": "/claims/1/value", "value": 1.8}, {"op": "add", "path": "/claims/1/printed_decimals", "value": 1}]
    assert found(assessed([1.76, 1.77, 1.78], *printed)) == []  # 1.8 printed covers 1.75-1.85
    assert [p for _, p, _ in found(assessed([1.60, 1.62, 1.64], *printed))] == ["/claims/1/value"]


def test_a_speedup_over_another_baseline_is_not_judged_by_this_interval():
    assert found(assessed([1.70, 1.75, 1.72], {"op": "replace", "path": "/claims/1/baseline", "value": "target-only-c1"})) == []
