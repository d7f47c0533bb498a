"""Real-shaped records transcribed from published pages (tests/data/published/, each citing its
source): tool summaries that print a rounded duration beside tokens/s computed from the
unrounded one, and response-time speedup claims. Only the codes the case is about are pinned."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.pipeline import assess_paths

PUBLISHED = Path(__file__).parents[1] / "data" / "published"


def codes(name: str) -> dict[str, list[str]]:
    result = assess_paths([str(PUBLISHED / name)]).results[0]
    assert result.record is not None, [f.message for f in result.findings]
    out: dict[str, list[str]] = {}
    for f in result.findings:
        out.setdefault(f.code, []).append(f.pointer)
    return out


@pytest.mark.parametrize("name", ["round-vllm-pr36029.yaml", "round-sglang-pr13376.yaml"])
def test_a_printed_rate_from_the_unrounded_duration_is_consistent_and_its_claim_matches(name):
    found = codes(name)
    # 952460 / 374.83 s = 2541.0453 tokens/s against 2541.04 printed; 512000 / 83.27 s = 6148.67
    # against 6148.70: each within what the printed duration allows (compared exactly, both fired).
    assert "counts-inconsistent" not in found
    assert "claim-mismatch" not in found


def test_llamacpp_latency_speedup_is_recomputed_from_the_mean_latencies():
    found = codes("llamacpp-speedbench-coding.yaml")
    # 11.976 s / 7.471 s = 1.603x: the published 1.60x matches, a 2x reading does not.
    assert found["claim-mismatch"] == ["/claims/1/value"]
    assert "counts-missing" not in found and "claim-basis-undefined" not in found


def test_a_tpot_ratio_whose_statistic_is_not_stated_is_not_established():
    found = codes("vllm-issue20780-tpot.yaml")
    assert found["counts-missing"] == ["/claims/0/percentile"]
    # A selected best-of-sweep figure that names its configuration is not refused for that.
    assert "figure-provenance" not in found
