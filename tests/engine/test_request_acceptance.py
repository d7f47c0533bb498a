"""The per-request acceptance distribution: one builder, exact bins, totals that add up."""

from __future__ import annotations

import pytest

from evaluator.engine.request_acceptance import RequestCounts, distribution


def test_bimodal_requests_land_in_the_end_bins_and_sum_to_the_totals() -> None:
    # vLLM's own per-request example, [39, 1, 0, 3] accepted: two requests accept almost all,
    # two almost nothing; the mean hides that, the histogram does not.
    reqs = [RequestCounts(40, 39, 13), RequestCounts(40, 1, 14), RequestCounts(40, 0, 14), RequestCounts(40, 3, 14)]
    d = distribution(reqs, "test")
    assert d is not None
    assert d.rate_histogram == [3, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    assert (d.requests, d.proposed_drafts, d.accepted_drafts, d.verification_steps) == (4, 160, 43, 55)
    # 1 + A / S = 4.0 for the first request: bin 6, [4.0, 4.5); the others lie in [1.0, 1.5)
    assert d.length_histogram == [3, 0, 0, 0, 0, 0, 1]
    assert sum(d.rate_histogram) + d.requests_without_proposals == d.requests


def test_exact_edges_and_requests_without_proposals() -> None:
    d = distribution([RequestCounts(10, 10), RequestCounts(10, 5), RequestCounts(0, 0), RequestCounts(3, 0)], "t")
    assert d is not None
    assert d.rate_histogram[9] == 1 and d.rate_histogram[5] == 1 and d.rate_histogram[0] == 1
    assert d.requests_without_proposals == 1
    # steps unknown for some request: no step total, no length histogram
    assert d.verification_steps is None and d.length_histogram is None


def test_no_counts_no_distribution_and_impossible_counts_refused() -> None:
    assert distribution([], "t") is None
    with pytest.raises(ValueError, match="A = 5 and P = 4"):
        distribution([RequestCounts(4, 5)], "t")


def test_a_tally_of_equal_requests_counts_as_that_many_requests() -> None:
    # An importer tallies a large file by distinct (P, A, S); three equal requests as one entry
    # with requests=3 give exactly the distribution of the three listed one by one.
    one_by_one = distribution([RequestCounts(12, 9, 4)] * 3 + [RequestCounts(0, 0, 2)], "t")
    tallied = distribution([RequestCounts(12, 9, 4, requests=3), RequestCounts(0, 0, 2)], "t")
    assert tallied == one_by_one
    assert tallied is not None and (tallied.requests, tallied.proposed_drafts, tallied.verification_steps) == (4, 36, 14)
    with pytest.raises(ValueError, match="0 requests"):
        distribution([RequestCounts(1, 1, 1, requests=0)], "t")
