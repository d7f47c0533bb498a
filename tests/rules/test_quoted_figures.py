"""Messages quote a claim as written and show a disputed figure to the digits that make the gap
visible (issue 40 item 3): a finding that re-rounds "2.091x" to "2.09x", or says "282 disagrees
with 281" for 281.69 against 281.07, reads as if the vendor had rounded, not erred."""

from __future__ import annotations

import json

import yaml
from conftest import ROOT, example

from evaluator.pipeline import reassess


def _assessed(data: dict):
    return reassess([("offer.json", json.dumps(data).encode())]).results[0]


def _speedup_claim(value: float, text: str) -> dict:
    data = yaml.safe_load(example("complete-offer.yaml").read_text())
    claim = next(c for c in data["claims"] if c["id"] == "speedup-c8")
    claim["value"], claim["text"] = value, text
    return data


def _mismatch(data: dict) -> tuple[list[str], list[str]]:
    result = _assessed(data)
    claim = next(c for c in result.claims if c.id == "speedup-c8")
    messages = [f.message for f in claim.findings if f.code == "claim-mismatch"]
    return messages, [a.text for a in result.asks if a.code == "claim-mismatch"]


def test_a_claim_is_quoted_with_every_digit_it_was_written_with():
    messages, asks = _mismatch(_speedup_claim(2.091, "2.091x output throughput at 8 concurrent requests"))
    assert messages == ["the claimed 2.091x does not match the evidence: output-throughput speedup against the baseline is 1.90x"]
    assert asks == [
        "Please show how the claimed 2.091x follows from run eagle3-c8, whose counts give output-throughput "
        "speedup against the baseline = 1.90x, or correct the claim."
    ]
    # Words that do not hold the number: the value with its own digits, never rounded to 2.09x.
    messages, _ = _mismatch(_speedup_claim(2.091, "about twice the output throughput at 8 concurrent requests"))
    assert messages == ["the claimed 2.091x does not match the evidence: output-throughput speedup against the baseline is 1.90x"]


def test_a_claim_that_matches_is_not_disputed():
    messages, asks = _mismatch(_speedup_claim(1.9, "1.90x output throughput at 8 concurrent requests"))
    assert messages == [] and asks == []


def _reported(reported: float) -> dict:
    data = yaml.safe_load(example("sd201-offer-b.json").read_text())
    run = data["runs"][0]
    run["counts"] = {"emitted_tokens": 28104, "population": "benchmark-requests"}
    run["interval"]["duration_s"] = 99.99  # E / T = 281.068, 281.054 to 281.082 over the duration's rounding
    run["reported"] = {"output_tokens_per_s": reported}
    return data


def test_a_reported_figure_is_shown_as_stated_against_the_recomputed_one_to_its_digits():
    result = _assessed(_reported(281.69))
    assert [f.message for f in result.findings if f.code == "counts-inconsistent"] == [
        "run offer-b: the reported output tokens per s 281.69 disagrees with E / T = 281.07"
    ]


def test_a_reported_figure_that_agrees_is_not_flagged():
    result = _assessed(_reported(281.07))
    assert "counts-inconsistent" not in {f.code for f in result.findings}


MATCHED = ROOT / "examples" / "public-claims" / "inferencex-glm51-b200-fp4-62pct-more-per-gpu-at-57.yaml"


def _missing(data: dict) -> list[str]:
    return [f.message for f in _assessed(data).findings if f.code == "counts-missing"]


def test_a_run_stating_per_user_throughput_is_told_what_it_lacks_not_that_it_lacks_per_user_speed():
    data = yaml.safe_load(MATCHED.read_text())
    messages = _missing(data)
    assert messages and not any("lacks per-user speed" in m for m in messages)
    assert (
        "run mtp-57 lacks load.concurrency or latency.tpot_ms p50 or mean for its tokens/s per user "
        "(its stated per_user_throughput is its tool's own definition, not matched on), emitted_tokens, duration_s, hardware.count"
    ) in "\n".join(messages)


def test_an_open_loop_run_is_asked_for_its_tpot_and_a_run_with_tpot_for_nothing_about_per_user_speed():
    data = yaml.safe_load(MATCHED.read_text())
    for run in data["runs"]:
        run["load"] = {"loop": "open"}
    assert "run mtp-57 lacks latency.tpot_ms p50 or mean for its tokens/s per user" in "\n".join(_missing(data))
    for run in data["runs"]:
        run["latency"] = {"tpot_ms": {"p50": 17.0}}
    assert not any("for its tokens/s per user" in m for m in _missing(data))
