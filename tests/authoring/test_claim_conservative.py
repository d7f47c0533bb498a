"""`sdeval claim --conservative` (issue 35, item 4): the safe end of the run's measured interval as the
claimed figure, said in the claim; refused in one line where there is no interval to take it from."""

from __future__ import annotations

import json
import math

import jsonpatch
import pytest
from conftest import EXAMPLES

from evaluator.engine.loader import load_file
from evaluator.engine.statistics import GEOMETRIC, t_quantile

SPEEDUP = {"baseline_run": "target-only-c8", "method": GEOMETRIC, "paired_repetitions": [0, 1, 2], "values": [1.88, 1.95, 2.02], "mean": 1.949}
TPOT = {
    "p99": {"value": 37.6, "low": 35.123, "high": 40.0123},
    "p50": {"value": 20.0, "note": "too few requests beyond this percentile for an interval"},
}


def record(tmp_path, block: dict | None) -> str:
    patch = [{"op": "replace", "path": "/record_version", "value": "1.3"}]
    if block is not None:
        patch.append({"op": "add", "path": "/runs/3/uncertainty", "value": {"confidence": 0.95, "method": "Student t", **block}})
    path = tmp_path / "offer.json"
    path.write_text(json.dumps(jsonpatch.apply_patch(load_file(str(EXAMPLES / "complete-offer.yaml")).data, patch)))
    return str(path)


def added(out) -> dict:
    assert out.exit_code == 0, out.stderr
    return out.json()["claims"][0]


def test_a_speedup_claims_at_least_the_lower_end_of_the_geometric_interval_rounded_down(tmp_path, sdeval):
    path = record(tmp_path, {"speedup": SPEEDUP})
    claim = added(sdeval("claim", path, "--run", "eagle3-c8", "--baseline", "target-only-c8", "--kind", "speedup", "--conservative"))
    logs = [math.log(v) for v in SPEEDUP["values"]]
    centre = sum(logs) / 3
    low = math.exp(centre - t_quantile(0.975, 2) * math.sqrt(sum((x - centre) ** 2 for x in logs) / 2) / math.sqrt(3))
    assert math.floor(low * 100) / 100 == 1.78  # 1.7828, written 1.78 (never 1.79)
    assert (claim["value"], claim["bound"]) == (1.78, "at-least")
    assert claim["text"] == (
        "at least 1.78x output throughput against target-only-c8 at 8 concurrent requests (customer-support chat): the lower end "
        "of the 95 % interval over 3 paired repetitions against target-only-c8 (geometric mean 1.95x, interval 1.78 to 2.13x)"
    )


def test_widely_spread_speedups_still_give_a_lower_end_above_0(tmp_path, sdeval):
    path = record(tmp_path, {"speedup": {**SPEEDUP, "values": [0.3, 1.0, 3.5], "mean": 1.02}})
    claim = added(sdeval("claim", path, "--run", "eagle3-c8", "--baseline", "target-only-c8", "--kind", "speedup", "--conservative"))
    assert (claim["value"], claim["bound"]) == (0.048, "at-least")  # exp of the logs' lower end 0.04806, 3 significant figures down


def test_a_speedup_block_written_before_the_log_scale_is_read_as_its_arithmetic_mean(tmp_path, sdeval):
    earlier = {k: v for k, v in SPEEDUP.items() if k != "method"} | {"mean": 1.95}
    claim = added(
        sdeval(
            "claim",
            record(tmp_path, {"speedup": earlier}),
            "--run",
            "eagle3-c8",
            "--baseline",
            "target-only-c8",
            "--kind",
            "speedup",
            "--conservative",
        )
    )
    # mean 1.95, s = 0.07, t(0.975, 2) = 4.3027: lower end 1.95 - 0.1739 = 1.7761, written 1.77 (never 1.78)
    assert (claim["value"], claim["bound"]) == (1.77, "at-least")
    assert claim["text"].endswith("(arithmetic mean 1.95x, interval 1.78 to 2.12x)")
    # As that build wrote widely spread ratios, its interval below 0: the record loads, and there is nothing to claim.
    spread = {**earlier, "values": [0.3, 1.0, 3.5], "mean": 1.6, "low": -2.579, "high": 5.779}
    out = sdeval(
        "claim", record(tmp_path, {"speedup": spread}), "--run", "eagle3-c8", "--baseline", "target-only-c8", "--kind", "speedup", "--conservative"
    )
    assert (out.exit_code, out.stderr) == (2, "sdeval: run eagle3-c8: the interval's lower end is -2.58x, no figure to claim at least\n")


def test_an_output_throughput_claims_at_least_the_lower_end(tmp_path, sdeval):
    path = record(tmp_path, {"output_throughput": {"values": [540.0, 552.0, 558.0], "mean": 550.0}})
    claim = added(sdeval("claim", path, "--run", "eagle3-c8", "--kind", "output-throughput", "--conservative"))
    # mean 550, s = 9.165, half = 4.3027 x 9.165 / sqrt(3) = 22.77: lower end 527.2, whole tokens/s rounded down
    assert (claim["value"], claim["bound"]) == (527, "at-least")
    assert claim["text"].startswith("at least 527 output tokens/s at 8 concurrent requests")


def test_a_latency_percentile_claims_at_most_the_upper_end_rounded_up(tmp_path, sdeval):
    path = record(tmp_path, {"tpot_ms": TPOT})
    claim = added(
        sdeval("claim", path, "--run", "eagle3-c8", "--kind", "latency", "--latency-metric", "tpot", "--percentile", "p99", "--conservative")
    )
    assert (claim["value"], claim["bound"]) == (40.1, "at-most")
    assert claim["text"].startswith("p99 time per output token at most 40.1 ms at 8 concurrent requests")
    assert claim["text"].endswith("the upper end of the 95 % bootstrap interval over the run's requests (37.6 ms measured, interval 35.1 to 40.0 ms)")


@pytest.mark.parametrize(
    ("block", "args", "message"),
    [
        (
            None,
            ["--baseline", "target-only-c8", "--kind", "speedup"],
            "run eagle3-c8 has no measured interval (record 1.3 runs[].uncertainty, which sdeval measure writes); --conservative needs one",
        ),
        (
            {"speedup": {**SPEEDUP, "baseline_run": "target-only-c64"}},
            ["--baseline", "target-only-c8", "--kind", "speedup"],
            "run eagle3-c8's speedup interval is over target-only-c64, not target-only-c8; give --baseline target-only-c64",
        ),
        (
            {"speedup": {**SPEEDUP, "paired_repetitions": [0, 1], "values": [1.9, 2.0]}},
            ["--baseline", "target-only-c8", "--kind", "speedup"],
            "run eagle3-c8: 2 paired repetitions against target-only-c8, too few repetitions for an interval (measure 3 or more: --repetitions 3)",
        ),
        (
            {"speedup": {**SPEEDUP, "failed_pairings": [{"repetition": 3, "reason": "the baseline's window emitted no tokens"}]}},
            ["--baseline", "target-only-c8", "--kind", "speedup"],
            "run eagle3-c8's speedup over target-only-c8: no interval: 1 failed pairing (a ratio of 0 or with no finite value has no log): "
            "repetition 3: the baseline's window emitted no tokens",
        ),
        (
            {"tpot_ms": TPOT},
            ["--kind", "latency", "--latency-metric", "tpot", "--percentile", "p50"],
            "run eagle3-c8: no interval for p50 tpot (too few requests beyond this percentile for an interval)",
        ),
        (
            {"speedup": SPEEDUP},
            ["--kind", "acceptance-rate"],
            "--conservative takes --kind speedup (of output throughput), output-throughput or latency (ttft or tpot)",
        ),
    ],
)
def test_refused_in_one_line_where_there_is_no_interval(tmp_path, sdeval, block, args, message):
    path = record(tmp_path, block)
    out = sdeval("claim", path, "--run", "eagle3-c8", *args, "--conservative")
    assert (out.exit_code, out.stdout, out.stderr) == (2, "", f"sdeval: {message}\n")
