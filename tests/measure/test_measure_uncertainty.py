"""A measured record says how sure it is (issue 35, item 4): each run's E / T per repetition and the
speculative run's speedup paired with the baseline's repetitions, each with a 95 % Student-t interval,
TTFT and TPOT percentiles with bootstrap intervals; the end-of-run table shows them; `claim
--conservative` claims the interval's lower end and `assess` shows the interval."""

from __future__ import annotations

import json

import jsonschema
import pytest
from conftest import ROOT

pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from support.measure_servers import serve  # noqa: E402

from evaluator.engine.statistics import mean_interval  # noqa: E402
from evaluator.measure.cli import main as measure  # noqa: E402
from evaluator.measure.simulator import Simulator  # noqa: E402

SCHEMA = json.loads((ROOT / "schemas" / "evidence-record.schema.json").read_text())


def measured(tmp_path, capsys, repetitions: int):
    spec, base = Simulator(speculative=True, k=4, step_delay_s=0.002), Simulator(step_delay_s=0.002)
    out = tmp_path / "rec.json"
    with serve(spec) as spec_url, serve(base) as base_url:
        code = measure(
            ["--arm", f"speculative={spec_url}", "--arm", f"target-only={base_url}", "--concurrency", "1", "--repetitions", str(repetitions)]
            + ["--warmup", "1", "--requests", "6", "--max-tokens", "24", "--quiet", "-o", str(out)]
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
    assert s["low"] < s["mean"] < s["high"]
    assert "speedup" not in base["uncertainty"]
    # The end-of-run table: E / T's interval per arm, and the speedup's.
    assert "E/T 95% CI" in out
    assert (
        f"speedup speculative over target-only-c1 at c=1: {s['mean']:.3f}x (mean of 3 paired repetitions), 95 % interval {s['low']:.3f}-{s['high']:.3f}x"
        in out
    )


def test_below_three_repetitions_the_record_and_the_table_say_there_is_no_interval(tmp_path, capsys):
    path, record, out = measured(tmp_path, capsys, 2)
    s = run(record, "speculative-c1")["uncertainty"]["speedup"]
    assert s["note"] == "too few repetitions for an interval" and "low" not in s and len(s["values"]) == 2
    assert "(mean of 2 paired repetitions), too few repetitions for an interval" in out
    assert " n=2 " in out
