"""`sdeval claim` writes record 1.3's claim forms: total tokens ((I + E) / T, per accelerator) and a
per-user comparison at matched throughput per accelerator over each side's sweep; each written claim
is established by the record it is added to, and a form its kind cannot take is refused in one line."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import example

SWEEP = ["--sweep", "eagle3-c1", "--sweep", "eagle3-c256", "--baseline-sweep", "target-only-c1", "--baseline-sweep", "target-only-c256"]


@pytest.fixture
def bare(tmp_path):
    """complete-offer.yaml without its claims, with the prompt tokens of the c64 runs counted."""
    data = yaml.safe_load(example("complete-offer.yaml").read_text())
    data["claims"], data["record_version"] = [], "1.3"
    for r in data["runs"]:
        if r["id"] in ("eagle3-c64", "target-only-c64"):
            r["counts"]["input_tokens"] = 384 * 1180
    path = tmp_path / "offer.json"
    path.write_text(json.dumps(data, indent=2))
    return path


def test_a_total_token_throughput_per_gpu_is_written_and_established(sdeval, bare, tmp_path):
    out = tmp_path / "with-claim.json"
    result = sdeval("claim", bare, "--run", "eagle3-c64", "--kind", "output-throughput", "--total-tokens", "--per-accelerator", "-o", out)
    assert result.exit_code == 0, result.stderr
    claim = json.loads(out.read_text())["claims"][0]
    # (453,120 + 196,609) / 88.324 s / 4 accelerators = 1,839.0 tokens/s per accelerator.
    assert (claim["value"], claim["counted"], claim["throughput_per"], claim["text"]) == (
        1839.0,
        "total-tokens",
        "accelerator",
        "1,839 total (prompt and output) tokens/s per accelerator at 64 concurrent requests",
    )
    assert result.stderr.endswith(f"claim {claim['id']}: established\n")


def test_a_total_token_speedup_is_written_against_its_baseline(sdeval, bare):
    result = sdeval("claim", bare, "--run", "eagle3-c64", "--baseline", "target-only-c64", "--kind", "speedup", "--total-tokens")
    (claim,) = result.json()["claims"]
    # ((453,120 + 196,609) / 88.324) / ((453,120 + 196,608) / 115.516) = 1.3079
    assert (claim["value"], claim["counted"], claim["text"]) == (
        1.31,
        "total-tokens",
        "1.31x total-token throughput against target-only-c64 at 64 concurrent requests",
    )


def test_a_total_token_claim_without_prompt_tokens_is_refused(sdeval, bare):
    result = sdeval("claim", bare, "--run", "eagle3-c8", "--kind", "output-throughput", "--total-tokens")
    assert result.exit_code == 2
    assert "input_tokens missing (run eagle3-c8)" in result.stderr


def test_a_per_user_speedup_at_matched_gpu_throughput_is_written_with_its_sweeps(sdeval, bare, tmp_path):
    out = tmp_path / "with-claim.json"
    args = ("--run", "eagle3-c64", "--baseline", "target-only-c64", "--kind", "speedup", "--at-accelerator-throughput", "400", *SWEEP)
    result = sdeval("claim", bare, *args, "-o", out)
    assert result.exit_code == 0, result.stderr
    claim = json.loads(out.read_text())["claims"][0]
    # At 400 tokens/s per GPU or more both sides' fastest per user are their c64 runs: 34.78 / 26.59.
    assert (claim["value"], claim["counted"], claim["at_accelerator_throughput"], claim["sweep"], "concurrency" in claim) == (
        1.31,
        "per-user-output",
        400.0,
        ["eagle3-c1", "eagle3-c256"],
        False,
    )
    assert claim["text"] == "1.31x tokens/s per user against target-only-c64 at 400 output tokens/s per accelerator or more"
    assert result.stderr.endswith(f"claim {claim['id']}: established\n")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--kind", "latency", "--latency-metric", "tpot", "--percentile", "p50", "--total-tokens"), "apply to an output-throughput or a speedup"),
        (("--kind", "speedup", "--baseline", "target-only-c64", "--at-accelerator-throughput", "400", "--per-accelerator"), "takes neither"),
        (("--kind", "output-throughput", "--sweep", "eagle3-c1"), "give --at-accelerator-throughput"),
        (("--kind", "output-throughput", "--at-accelerator-throughput", "0"), "a throughput above 0 tokens/s per accelerator"),
    ],
)
def test_a_form_the_kind_cannot_take_is_refused_in_one_line(sdeval, bare, args, said):
    before = bare.read_text()
    result = sdeval("claim", bare, "--run", "eagle3-c64", *args, "--in-place")
    assert result.exit_code == 2
    assert said in result.stderr and result.stderr.count("\n") == 1
    assert bare.read_text() == before
