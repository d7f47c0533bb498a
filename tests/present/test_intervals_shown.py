"""A claim's measured interval (record 1.3, issue 35 item 4) where the buyer reads the verdict: `assess`
text and JSON, and the PDF's cover and claim pages, each naming the method (a speedup's geometric mean
and the Student-t interval of its logs; a block written before the log scale read as its arithmetic
mean, as given); a claim whose run states none shows nothing new."""

from __future__ import annotations

import json
import re

import jsonpatch
import pytest
from conftest import EXAMPLES
from support.pdf_helpers import page_texts

from evaluator.engine.loader import load_file
from evaluator.engine.statistics import GEOMETRIC, ratio_interval, t_quantile

SPEEDUP = {"baseline_run": "target-only-c8", "method": GEOMETRIC, "paired_repetitions": [0, 1, 2], "values": [1.88, 1.95, 2.02], "mean": 1.949}
TPOT = {"p99": {"value": 37.6, "low": 35.1, "high": 40.2}}
# As a build before the log scale wrote it: no method in the block, the arithmetic mean, its words.
EARLIER = {k: v for k, v in SPEEDUP.items() if k != "method"} | {"mean": 1.95}
EARLIER_METHOD = (
    "95 % intervals. Speedup and E / T: mean of the per-repetition values +- t(0.975, n - 1) x s / sqrt(n) (Student t over the repetitions)"
)


def offer_with(tmp_path, speedup: dict, method: str = "Student t"):
    patch = [
        {"op": "replace", "path": "/record_version", "value": "1.3"},
        {"op": "add", "path": "/runs/3/uncertainty", "value": {"confidence": 0.95, "method": method, "speedup": speedup}},
        {
            "op": "add",
            "path": "/runs/5/uncertainty",
            "value": {"confidence": 0.95, "method": "bootstrap", "tpot_ms": TPOT, "bootstrap_resamples": 2000},
        },
    ]
    path = tmp_path / "offer.json"
    path.write_text(json.dumps(jsonpatch.apply_patch(load_file(str(EXAMPLES / "complete-offer.yaml")).data, patch)))
    return path


@pytest.fixture
def offer(tmp_path):
    return offer_with(tmp_path, SPEEDUP)


def test_assess_text_says_the_interval_beside_the_computed_figure(offer, sdeval):
    lines = sdeval("assess", offer).stdout.splitlines()
    at = lines.index("    computed: output-throughput speedup against the baseline = 1.90x")
    assert lines[at + 1] == (
        "    measured: paired per-repetition speedup over target-only-c8: 1.95x over 3 repetitions, "
        "95 % interval 1.78 to 2.13x (geometric mean; Student t over the logs of the paired ratios)"
    )
    assert (
        "    measured: p99 time per output token over the run's requests: 37.6 ms, 95 % interval 35.1 to 40.2 ms "
        "(percentile bootstrap, 2000 resamples)"
    ) in lines
    assert sum(line.startswith("    measured: ") for line in lines) == 2


def test_assess_json_gives_the_interval_only_to_claims_that_have_one(offer, sdeval):
    claims = {c["id"]: c for c in sdeval("assess", offer, "--format", "json").json()["files"][0]["claims"]}
    interval = claims["speedup-c8"]["interval"]
    assert {k: v for k, v in interval.items() if k not in ("low", "high", "value")} == {
        "figure": "paired per-repetition speedup over target-only-c8",
        "unit": "x",
        "repetitions": 3,
        "confidence": 0.95,
        "method": GEOMETRIC,
        "note": None,
    }
    computed = ratio_interval([1.88, 1.95, 2.02])
    assert (interval["value"], interval["low"], interval["high"]) == (computed.mean, computed.low, computed.high)
    assert claims["tpot-c64"]["interval"]["high"] == 40.2
    assert [i for i, c in claims.items() if "interval" in c] == ["speedup-c8", "tpot-c64"]


@pytest.mark.pdf
def test_the_pdf_shows_it_on_the_cover_and_under_the_claim(offer, tmp_path, sdeval):
    out = sdeval("render", offer, "-o", tmp_path / "offer.pdf")
    assert out.exit_code == 0, out.stderr
    pages = [re.sub(r"\s+", " ", page) for page in page_texts(tmp_path / "offer.pdf")]
    assert "95 % interval 1.78 to 2.13x (3 repetitions)" in pages[0]
    claims = next(p for p in pages if "Claims and the findings behind each verdict" in p)
    assert (
        "Measured: paired per-repetition speedup over target-only-c8: 1.95x over 3 repetitions, 95 % interval 1.78 to 2.13x "
        "(geometric mean; Student t over the logs of the paired ratios)."
    ) in claims


def test_a_block_written_before_the_log_scale_is_read_as_its_arithmetic_mean(tmp_path, sdeval):
    offer = offer_with(tmp_path, EARLIER, EARLIER_METHOD)
    assert sdeval("validate", offer).exit_code == 0
    lines = sdeval("assess", offer).stdout.splitlines()
    assert (
        "    measured: paired per-repetition speedup over target-only-c8: 1.95x over 3 repetitions, 95 % interval 1.78 to 2.12x "
        "(arithmetic mean; Student t over the paired ratios, as the record states)"
    ) in lines
    interval = next(c for c in sdeval("assess", offer, "--format", "json").json()["files"][0]["claims"] if c["id"] == "speedup-c8")["interval"]
    assert interval["value"] == pytest.approx(1.95) and interval["low"] == pytest.approx(1.95 - t_quantile(0.975, 2) * 0.07 / 3**0.5)
