"""Goodput: requests per second served within every one of the buyer's per-request latency limits,
counted from each request's latencies (vllm bench serve --save-detailed), or at least a tool's own
goodput where the tool held requests to limits below the buyer's; never anything else."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import ROOT, example, invoke
from support.tool_outputs import bench_result

from evaluator.buyer.goodput import goodput, request_limits
from evaluator.buyer.profile import RequirementsProfile
from evaluator.engine.loader import load_file
from evaluator.engine.record import Run

COMPLETE, COST = str(example("complete-offer.yaml")), str(example("requirements-cost.yaml"))
REAL = ROOT.parent / "shared" / "real-outputs" / "vllm-bench" / "er0080-bench-serve-v0.25.1.json"


def run_with(**fields) -> Run:
    base = {"id": "r", "arrangement": "speculative", "configuration": "c", "interval": {"duration_s": 10.0}}
    return Run.model_validate(base | fields)


def profile(*limits: tuple[str, str, float]) -> RequirementsProfile:
    return RequirementsProfile.model_validate(
        {
            "requirements_version": "1.1",
            "buyer": {"name": "B"},
            "loads": {"concurrency": [64]},
            "tasks": ["chat"],
            "latency_limits": [{"metric": m, "percentile": p, "limit_ms": v} for m, p, v in limits],
        }
    )


LATENCIES = {"ttft_ms": [100, 400, 499.9, 500, 900], "tpot_ms": [20, 30, 39, 10, 10], "e2e_ms": [1000, 2000, 3000, 4000, 5000]}


# ------------------------------------------------------------------ counted at the buyer's limits


def test_counted_from_each_requests_latencies_strictly_below_every_limit():
    limits, itl = request_limits(profile(("ttft", "p99", 500), ("tpot", "p90", 40)))
    g = goodput(run_with(request_latencies=LATENCIES), limits, itl)
    # Requests 1-3 are within both; request 4 sits exactly at the TTFT limit (not below it); 5 is over.
    assert (g.requests_per_s, g.basis) == (Fraction(3, 10), "counted")
    assert g.text == "3 of 5 requests within TTFT < 500 ms and TPOT < 40 ms over 10 s"


def test_a_metric_limited_at_several_percentiles_holds_each_request_to_the_highest_ones_limit():
    limits, _ = request_limits(profile(("ttft", "p50", 200), ("ttft", "p99", 950), ("ttft", "mean", 100)))
    assert limits == {"ttft": Fraction(950)}
    assert goodput(run_with(request_latencies=LATENCIES), limits, False).requests_per_s == Fraction(5, 10)


@pytest.mark.parametrize(
    "fields, limits, why",
    [
        ({}, (("ttft", "p99", 500),), "not measured: the run keeps no per-request latencies"),
        (
            {"request_latencies": {"ttft_ms": [1.0]}},
            (("ttft", "p99", 500), ("e2e", "p99", 9000)),
            "not counted: the run keeps no per-request end-to-end",
        ),
        (
            {"request_latencies": {"ttft_ms": [1.0], "e2e_ms": [1.0, 2.0]}},
            (("ttft", "p99", 500), ("e2e", "p99", 9000)),
            "not counted: the run's per-request lists differ in length",
        ),
        ({"request_latencies": LATENCIES, "interval": {}}, (("ttft", "p99", 500),), "not counted: the run states no measured interval to divide by"),
        (
            {"request_latencies": LATENCIES},
            (("ttft", "p99", 500), ("itl", "p99", 50)),
            "not counted: an inter-token latency limit has no single value per request",
        ),
        ({"request_latencies": LATENCIES}, (), "not counted: you state no per-request latency limit"),
    ],
)
def test_no_goodput_and_why(fields, limits, why):
    g = goodput(run_with(**fields), *request_limits(profile(*limits)))
    assert (g.requests_per_s, g.basis, g.text) == (None, "none", why)


# ------------------------------------------------------------------ the tool's own goodput


def tool(**limits) -> dict:
    return {"goodput": {"requests_per_s": 1.5, **{k.replace("_ms", "_limit_ms"): v for k, v in limits.items()}}}


def test_a_tools_goodput_at_limits_below_the_buyers_is_a_floor():
    limits, itl = request_limits(profile(("ttft", "p99", 500), ("e2e", "p99", 3000)))
    g = goodput(run_with(**tool(ttft_ms=400, e2e_ms=2500, tpot_ms=30)), limits, itl)
    assert (g.requests_per_s, g.basis) == (Fraction(3, 2), "at-least")
    assert g.text == "at least the tool's goodput, counted at TTFT < 400 ms, TPOT < 30 ms and end-to-end < 2,500 ms, each below yours"


@pytest.mark.parametrize(
    "limits_ms",
    [
        {"ttft_ms": 500, "e2e_ms": 2500},  # the same TTFT limit: the tool counts a request at exactly 500 ms, the buyer does not
        {"ttft_ms": 600, "e2e_ms": 2500},  # looser
        {"ttft_ms": 400},  # the buyer's end-to-end limit not applied at all
    ],
)
def test_a_tools_goodput_at_other_limits_is_not_the_buyers(limits_ms):
    limits, itl = request_limits(profile(("ttft", "p99", 500), ("e2e", "p99", 3000)))
    g = goodput(run_with(**tool(**limits_ms)), limits, itl)
    assert (g.requests_per_s, g.basis) == (None, "none")
    assert g.text.startswith("not measured: the run keeps no per-request latencies; the tool's goodput 1.5 requests/s was counted at ")
    assert g.text.endswith(", not within yours")


def test_per_request_latencies_come_before_the_tools_figure():
    limits, itl = request_limits(profile(("ttft", "p99", 500)))
    g = goodput(run_with(request_latencies=LATENCIES, **tool(ttft_ms=100)), limits, itl)
    assert (g.requests_per_s, g.basis) == (Fraction(3, 10), "counted")


# ------------------------------------------------------------------ through the command line


def offer_with_latencies(tmp_path: Path) -> tuple[str, list[float], list[float]]:
    """complete-offer.yaml with per-request TTFT and TPOT for run eagle3-c64 (384 requests)."""
    data = json.loads(json.dumps(load_file(COMPLETE).data))
    run = next(r for r in data["runs"] if r["id"] == "eagle3-c64")
    ttft = [200.0 + 3 * i for i in range(384)]  # 200 ... 1349 ms: TTFT < 1,000 for i < 267
    tpot = [30.0 + (i % 20) for i in range(384)]  # 30 ... 49 ms: TPOT < 40 for i % 20 < 10
    run["request_latencies"] = {"ttft_ms": ttft, "tpot_ms": tpot}
    path = tmp_path / "offer.json"
    path.write_text(json.dumps(data))
    return str(path), ttft, tpot


def test_assess_counts_goodput_at_the_buyers_limits_in_json_and_text(sdeval, tmp_path):
    offer, ttft, tpot = offer_with_latencies(tmp_path)
    good = sum(1 for a, b in zip(ttft, tpot) if a < 1000 and b < 40)
    doc = sdeval("assess", offer, "-r", COST, "-f", "json").json()["requirements"]["economics"]
    points = next(c for c in doc["offers"][0]["configurations"] if c["configuration"] == "eagle3-dynamic-k")["points"]
    c64 = next(p for p in points if p["load"] == 64)
    assert c64["goodput_requests_per_s"] == float(Fraction(good) / Fraction("88.324")) == good / 88.324
    assert (c64["goodput_basis"], c64["goodput_text"]) == ("counted", f"{good} of 384 requests within TTFT < 1,000 ms and TPOT < 40 ms over 88.3 s")
    others = [p for p in points if p["load"] != 64]
    assert {p["goodput_basis"] for p in others} == {"none"} and {p["goodput_requests_per_s"] for p in others} == {None}
    assert doc["goodput"].startswith("requests/s served within TTFT < 1,000 ms and TPOT < 40 ms (each request held to the limit")

    text = sdeval("assess", offer, "-r", COST).stdout
    assert "goodput req/s" in text
    assert f"    goodput, eagle3-dynamic-k at 64: {good} of 384 requests within TTFT < 1,000 ms and TPOT < 40 ms over 88.3 s\n" in text
    # The points without a goodput share one line, their reason said once.
    assert (
        "    goodput, eagle3-dynamic-k at 1, eagle3-dynamic-k at 8, eagle3-dynamic-k at 256, target-only at 1, target-only at 8, "
        "target-only at 64 and target-only at 256: not measured: the run keeps no per-request latencies\n"
    ) in text
    row = next(line.split() for line in text.splitlines() if line.split()[:4] == ["64", "eagle3-dynamic-k", "offered", "eagle3-c64"])
    assert row[4:8] == ["556", "34.8", f"{good / 88.324:.2f}", "1.20"]  # per accelerator, per user, goodput req/s, cost


@pytest.mark.pdf
def test_the_report_shows_goodput_in_the_cost_table_and_says_how_it_was_counted(cli, tmp_path):
    from support.pdf_helpers import page_texts

    offer, ttft, tpot = offer_with_latencies(tmp_path)
    out = cli("render", offer, "-r", COST, "-o", tmp_path / "r.pdf")
    assert out.exit_code == 0, out.stderr
    layout = "\n".join(page_texts(tmp_path / "r.pdf"))
    assert "goodput" in layout and "req/s" in layout
    row = next(line.split() for line in layout.splitlines() if "eagle3-c64" in line and "556" in line)
    assert row[row.index("556") : row.index("556") + 4] == ["556", "34.8", "1.55", "1.20"]  # goodput 137 / 88.324 s, then the cost
    flat = " ".join(layout.split())
    assert "Goodput: eagle3-dynamic-k at 64: 137 of 384 requests within TTFT < 1,000 ms and TPOT < 40 ms over 88.3 s;" in flat


def test_no_goodput_column_where_no_point_has_one(sdeval):
    text = sdeval("assess", COMPLETE, "-r", COST).stdout
    assert "goodput req/s" not in text and "    goodput at " not in text


# ------------------------------------------------------------------ vllm bench serve


def detailed_result(tmp_path: Path, **extra) -> Path:
    """A vllm bench serve result (8 requests completed, 1 failed) with its --save-detailed lists."""
    n = 8
    d = bench_result(n, 88, 1.544, 1, None) | {"failed": 1}
    d |= {
        "ttfts": [0.1 * (i + 1) for i in range(n)] + [0.0],
        "latencies": [1.0 + 0.2 * i for i in range(n)] + [0.0],
        "output_lens": [11] * (n - 1) + [1, 0],
        "errors": [""] * n + ["timeout"],
    } | extra
    path = tmp_path / "result.json"
    path.write_text(json.dumps(d))
    return path


def imported(result, *options) -> tuple[dict, str]:

    out = invoke("import", "vllm-bench", str(result), "--arrangement", "target-only", *options)
    assert out.exit_code == 0, out.stderr
    return json.loads(out.stdout)["runs"][0], out.stderr


def test_vllm_bench_save_detailed_lists_become_each_completed_requests_latencies(tmp_path):
    run, _ = imported(detailed_result(tmp_path))
    lat = run["request_latencies"]
    assert lat["ttft_ms"] == [100.0, 200.0, 300.0, 400.0, 500.0, 600.0, 700.0, 800.0]  # the failed request left out
    assert lat["e2e_ms"] == [1000.0, 1200.0, 1400.0, 1600.0, 1800.0, 2000.0, 2200.0, 2400.0]
    # vLLM's TPOT: (latency - TTFT) / (output tokens - 1); 0 for a one-token output.
    assert lat["tpot_ms"] == [90.0, 100.0, 110.0, 120.0, 130.0, 140.0, 150.0, 0.0]
    assert "goodput" not in run


def test_request_goodput_is_kept_only_with_the_limits_it_was_counted_at(tmp_path):
    result = detailed_result(tmp_path, request_goodput=0.5)
    run, stderr = imported(result)
    assert "goodput" not in run
    assert stderr == (
        "sdeval: result.json: request_goodput 0.5 was not kept: the result does not record the limits it was "
        "counted at; pass the ones given to vllm bench serve, as --goodput ttft:MS,tpot:MS,e2el:MS\n"
    )
    run, stderr = imported(result, "--goodput", "ttft:500,e2el:2000")
    assert run["goodput"] == {
        "requests_per_s": 0.5,
        "ttft_limit_ms": 500.0,
        "e2e_limit_ms": 2000.0,
        "definition": "vllm bench serve --goodput: a request is good when each given metric is at or below its limit; request_goodput = good requests / duration",
    }
    assert stderr == ""


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["vllm-bench", "{result}", "--goodput", "ttft=500"],
            "sdeval: --goodput 'ttft=500': write the limits as vllm bench serve takes them, for example ttft:500,tpot:50,e2el:2000 (milliseconds; ttft, tpot and e2el, each once)\n",
        ),
        (
            ["vllm-bench", "{result}", "--goodput", "ttft:500,ttft:400"],
            "sdeval: --goodput 'ttft:500,ttft:400': write the limits as vllm bench serve takes them, for example ttft:500,tpot:50,e2el:2000 (milliseconds; ttft, tpot and e2el, each once)\n",
        ),
        (
            ["vllm-bench", "{result}", "--goodput", "ttft:500"],
            "sdeval: result.json: has no request_goodput (vllm bench serve was run without --goodput), so --goodput states limits for nothing\n",
        ),
        (
            ["guidellm", "{result}", "--goodput", "ttft:500"],
            "sdeval: --goodput applies to vllm-bench only (the limits vllm bench serve counted request_goodput at), not to guidellm\n",
        ),
    ],
)
def test_goodput_option_errors(sdeval, tmp_path, args, message):
    result = detailed_result(tmp_path)
    out = sdeval("import", *[a.format(result=result) for a in args], "--arrangement", "target-only")
    assert (out.exit_code, out.stderr) == (2, message)


@pytest.mark.skipif(not REAL.is_file(), reason=f"{REAL} is absent (public tool outputs kept outside the repository)")
def test_a_real_result_without_detailed_lists_keeps_no_request_latencies(tmp_path):
    run, _ = imported(REAL)
    assert "request_latencies" not in run and "goodput" not in run
