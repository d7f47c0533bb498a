"""A measured record says how sure it is (issue 35, item 4): each run's E / T per repetition with a 95 %
Student-t interval and the speculative run's speedup paired with the baseline's repetitions, its
geometric mean with the Student-t interval of the logs,
TTFT and TPOT percentiles with bootstrap intervals; the end-of-run table shows them; `claim
--conservative` claims the interval's lower end and `assess` shows the interval."""

from __future__ import annotations

import json
import math

import jsonschema
import pytest
from conftest import ROOT

pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from support.measure_servers import serve  # noqa: E402

from evaluator.engine.statistics import GEOMETRIC, mean_interval, ratio_interval  # noqa: E402
from evaluator.measure.cli import main as measure  # noqa: E402
from evaluator.measure.simulator import Simulator  # noqa: E402

SCHEMA = json.loads((ROOT / "schemas" / "evidence-record.schema.json").read_text())


# What no endpoint tells (identity-incomplete asks for it otherwise), for each arm.
CONFIGURATION = """
target: {{model: simulator, revision: sim-1, tokenizer: simulator words, tokenizer_revision: sim-1}}
proposer: {proposer}
numerics: {{weights: f32, activations: f32, kv_cache: f32}}
runtime: {{name: evaluator.measure.simulator, version: "1"}}
hardware: {{accelerator: none (CPU), count: 0}}
"""


def measured(tmp_path, capsys, repetitions: int, requests: int = 6):
    # Steps of 10 ms: long enough that a busy 2-core machine's noise stays well below the speedup.
    spec, base = Simulator(speculative=True, k=4, step_delay_s=0.01), Simulator(step_delay_s=0.01)
    out = tmp_path / "rec.json"
    (tmp_path / "spec.yaml").write_text(CONFIGURATION.format(proposer="{method: draft-model, model: toy drafter, revision: sim-1, k: 4}"))
    (tmp_path / "base.yaml").write_text(CONFIGURATION.format(proposer="{method: none}"))
    with serve(spec) as spec_url, serve(base) as base_url:
        code = measure(
            ["--arm", f"speculative={spec_url}", "--configuration", str(tmp_path / "spec.yaml")]
            + ["--arm", f"target-only={base_url}", "--configuration", str(tmp_path / "base.yaml")]
            + ["--concurrency", "1", "--repetitions", str(repetitions), "--warmup", "1", "--requests", str(requests)]
            + ["--max-tokens", "24", "--quiet", "-o", str(out)]
        )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return out, json.loads(out.read_text()), captured.out


def run(record, run_id):
    return next(r for r in record["runs"] if r["id"] == run_id)


def test_a_measured_record_carries_each_runs_intervals(tmp_path, capsys):
    path, record, out = measured(tmp_path, capsys, 3)
    assert record["record_version"] == "1.3"
    jsonschema.Draft202012Validator(SCHEMA).validate(record)
    spec, base = run(record, "speculative-c1"), run(record, "target-only-c1")
    for r in (spec, base):
        u = r["uncertainty"]
        rates = [rep["emitted_tokens"] / rep["duration_s"] for rep in r["repetitions"]]
        assert u["output_throughput"]["values"] == [round(v, 4) for v in rates]
        m = mean_interval(rates)
        assert (u["output_throughput"]["low"], u["output_throughput"]["high"]) == (round(m.low, 4), round(m.high, 4))
        # The bootstrap's point is the run's own percentile; its interval brackets it.
        for key in ("ttft_ms", "tpot_ms"):
            p50 = u[key]["p50"]
            assert p50["value"] == r["latency"][key]["p50"]
            assert p50["low"] <= p50["value"] <= p50["high"]
            assert u[key]["p99"]["note"] == "too few requests beyond this percentile for an interval"  # 18 requests
        assert u["bootstrap_resamples"] == 2000 and u["bootstrap_seed"] == 0 and "Student t" in u["method"]
    s = spec["uncertainty"]["speedup"]
    assert s["baseline_run"] == "target-only-c1" and s["paired_repetitions"] == [0, 1, 2]
    ours = [rep["emitted_tokens"] / rep["duration_s"] for rep in spec["repetitions"]]
    theirs = [rep["emitted_tokens"] / rep["duration_s"] for rep in base["repetitions"]]
    assert s["values"] == pytest.approx([a / b for a, b in zip(ours, theirs)], rel=1e-5)
    assert s["method"] == GEOMETRIC and GEOMETRIC in spec["uncertainty"]["method"]
    m = ratio_interval(s["values"])
    assert (s["mean"], s["low"], s["high"]) == pytest.approx((m.mean, m.low, m.high), rel=1e-5)
    assert 0 < s["low"] < s["mean"] < s["high"]
    assert "speedup" not in base["uncertainty"]
    # The end-of-run table: E / T's interval per arm, and the speedup's.
    assert "E/T 95% CI" in out
    assert (
        f"speedup speculative over target-only-c1 at c=1: {s['mean']:.3f}x (geometric mean of 3 paired repetitions), 95 % interval {s['low']:.3f} to {s['high']:.3f}x"
        in out
    )


def test_below_three_repetitions_the_record_and_the_table_say_there_is_no_interval(tmp_path, capsys):
    path, record, out = measured(tmp_path, capsys, 2)
    s = run(record, "speculative-c1")["uncertainty"]["speedup"]
    assert s["note"] == "too few repetitions for an interval" and "low" not in s and len(s["values"]) == 2
    assert "(geometric mean of 2 paired repetitions), too few repetitions for an interval" in out
    assert " n=2 " in out


def test_claim_conservative_claims_the_lower_end_and_assess_shows_the_interval(tmp_path, capsys, sdeval):
    from decimal import ROUND_FLOOR, Decimal

    path, record, _ = measured(tmp_path, capsys, 3, requests=12)
    s = run(record, "speculative-c1")["uncertainty"]["speedup"]
    m = ratio_interval(s["values"])
    claimed = tmp_path / "claimed.json"
    added = sdeval("claim", path, "--run", "speculative-c1", "--baseline", "target-only-c1", "--kind", "speedup", "--conservative", "-o", claimed)
    assert added.exit_code == 0, added.stderr
    [claim] = [c for c in json.loads(claimed.read_text())["claims"] if c["kind"] == "speedup"]
    places = 2 - math.floor(math.log10(m.low))  # 3 significant figures, rounded down
    floor = float(Decimal(repr(m.low)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_FLOOR))
    assert claim["value"] == floor <= m.low and claim["bound"] == "at-least"
    assert claim["text"].startswith(f"at least {floor:.{places}f}x output throughput against target-only-c1 at 1 concurrent request")
    assert ": the lower end of the 95 % interval over 3 paired repetitions against target-only-c1 (geometric mean " in claim["text"]
    assert f"claim {claim['id']}: established" in added.stderr
    doc = sdeval("assess", claimed, "--format", "json").json()
    judged = next(c for c in doc["files"][0]["claims"] if c["id"] == claim["id"])
    assert judged["verdict"] == "established"
    assert judged["interval"]["figure"] == "paired per-repetition speedup over target-only-c1"
    assert (judged["interval"]["value"], judged["interval"]["low"], judged["interval"]["high"], judged["interval"]["repetitions"]) == (
        m.mean,
        m.low,
        m.high,
        3,
    )
    assert "speedup-interval" not in {f["code"] for f in doc["findings"]}
    text = sdeval("assess", claimed).stdout
    assert "    measured: paired per-repetition speedup over target-only-c1: " in text
    assert " over 3 repetitions, 95 % interval " in text and "(geometric mean; Student t over the logs of the paired ratios)" in text


def test_claim_conservative_refuses_where_there_is_no_interval(tmp_path, capsys, sdeval):
    path, record, _ = measured(tmp_path, capsys, 2)
    out = sdeval("claim", path, "--run", "speculative-c1", "--baseline", "target-only-c1", "--kind", "speedup", "--conservative")
    assert out.exit_code == 2 and out.stdout == ""
    assert out.stderr == (
        "sdeval: run speculative-c1: 2 paired repetitions against target-only-c1, too few repetitions for an interval "
        "(measure 3 or more: --repetitions 3)\n"
    )
