"""Each shipped example, through the command line, with its exact expected codes and exit status."""

from __future__ import annotations

import pytest
from conftest import example

EXPECTED = {
    "sd201-offer-a.json": (1, {("throughput-basis", "/claims/0/counted")}),
    "sd201-offer-b.json": (0, set()),
    "acceptance-only.json": (1, {("acceptance-only", "/claims/0/counted")}),
    "unstated-load.json": (
        1,
        {("load-unstated", "/claims/0/concurrency"), ("load-unstated", "/runs/0/load"), ("load-unstated", "/runs/1/load")},
    ),
    "vllm-docs-ngram.json": (0, {("acceptance-bimodal", "/runs/0/counts/accepted_length_histogram")}),
    "complete-offer.yaml": (0, {("k-band-unmeasured", "/configurations/0/proposer/k_schedule/1")}),
    "quiet-load-offer.yaml": (0, set()),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_gives_exactly_its_expected_findings(sdeval, name):
    exit_code, expected = EXPECTED[name]
    result = sdeval("validate", "--format", "json", example(name))
    assert result.exit_code == exit_code, result.stdout
    assert {(f["code"], f["path"]) for f in result.json()["findings"]} == expected
