"""The brief's worked cases, computed from counts exactly."""

from __future__ import annotations

from conftest import example

from evaluator.engine.loader import load_file
from evaluator.engine.metrics import agrees_at_stated_precision, within_relative
from evaluator.rules.assess import assess


def metrics_of(name):
    return assess(load_file(str(example(name)))).metrics


def test_sd201_offer_a_counts_and_rates():
    m = metrics_of("sd201-offer-a.json")["offer-a"]
    assert (m.verification_steps, m.proposed_drafts, m.accepted_drafts, m.bonus_tokens, m.emitted_tokens) == (5, 20, 10, 5, 15)
    assert m.acceptance_rate == 0.5
    assert m.mean_acceptance_length == 3.0
    assert m.proposed_tokens_per_s == 200.0
    assert m.accepted_tokens_per_s == 100.0
    assert m.emitted_tokens_per_s == 150.0


def test_sd201_offer_b_emits_200_tokens_per_second_exactly():
    m = metrics_of("sd201-offer-b.json")["offer-b"]
    assert m.emitted_tokens_per_s == 200.0  # 15 / 0.075, not 199.99999999999997


def test_vllm_documentation_ngram_example_exactly():
    m = metrics_of("vllm-docs-ngram.json")["docs-example"]
    assert m.acceptance_rate == 0.07751937984496124
    assert m.mean_acceptance_length == 1.2325581395348837
    assert m.emitted_tokens_per_s is None  # no duration in the documentation: no throughput invented


def test_speedup_falls_as_concurrency_rises_in_the_complete_offer(sdeval):
    doc = sdeval("assess", "--format", "json", example("complete-offer.yaml")).json()
    speedups = {c["id"]: c["computed"]["value"] for c in doc["files"][0]["claims"] if c["kind"] == "speedup"}
    ordered = [speedups[f"speedup-c{c}"] for c in (1, 8, 64, 256)]
    assert ordered == sorted(ordered, reverse=True)
    assert ordered[0] > 2 and ordered[-1] < 1


def test_spread_across_repetitions():
    m = metrics_of("complete-offer.yaml")["eagle3-c1"]
    assert m.spread.repetitions == 3
    assert m.spread.minimum <= m.spread.median <= m.spread.maximum
    assert m.spread.stdev is not None and m.spread.relative_range > 0


def test_stated_precision_and_relative_tolerance():
    assert agrees_at_stated_precision(0.78, 0.7752)
    assert agrees_at_stated_precision(0.8, 0.7752)
    assert not agrees_at_stated_precision(0.77, 0.7752)
    assert agrees_at_stated_precision(0.07751937984496124, 10 / 129)
    assert within_relative(198, 200, 0.02)
    assert not within_relative(195, 200, 0.02)
