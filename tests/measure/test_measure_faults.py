"""`sdeval measure` against the simulator's hostile and broken faults (issue 36): what a server
sends is escaped where it is shown, and counters that break mid-run cost that run's server counts,
never the record."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from support.measure_servers import serve  # noqa: E402

from evaluator.measure.cli import main as measure  # noqa: E402
from evaluator.measure.simulator import FAULTS, Simulator  # noqa: E402

ONE = ["--concurrency", "1", "--repetitions", "2", "--warmup", "0", "--requests", "4", "--max-tokens", "12", "--quiet"]


def _run_measure(tmp_path, capsys, sim: Simulator, arm: str = "speculative", metrics: bool = False, *extra: str):
    with serve(sim) as url:
        argv = ["--arm", f"{arm}={url}"] + (["--metrics", f"{url}/metrics"] if metrics else [])
        code = measure([*argv, *ONE, *extra, "-o", str(tmp_path / "rec.json")])
    captured = capsys.readouterr()
    record = json.loads((tmp_path / "rec.json").read_text()) if (tmp_path / "rec.json").exists() else None
    return code, record, captured.err


@pytest.mark.parametrize("fault", ["counter-reset", "counter-nan", "counter-inf", "metrics-500"])
def test_counters_that_break_in_a_window_cost_the_runs_server_counts_not_the_record(tmp_path, capsys, fault):
    # Breaks in the first window's after-scrape; the warm-up request makes the counters non-zero before it.
    argv = [*ONE, "--warmup", "1", "-o", str(tmp_path / "rec.json")]
    with serve(Simulator(speculative=True, fault=fault)) as url:
        code = measure(["--arm", f"speculative={url}", "--metrics", f"{url}/metrics", *argv])
        err = capsys.readouterr().err
        assert code == 1, err
        record = json.loads((tmp_path / "rec.json").read_text())
        if fault == "counter-reset":  # (a server still NaN or infinite is refused by --resume's start check)
            # --resume builds the same record again, instead of failing the same way.
            (tmp_path / "rec.json").unlink()
            assert measure(["--resume", *argv]) == 1
            again = json.loads((tmp_path / "rec.json").read_text())["runs"]
            assert [{**r, "source": None} for r in again] == [{**r, "source": None} for r in record["runs"]]
    (run,) = record["runs"]
    counts = run["counts"]
    assert "verification_steps" not in counts and "population_check" not in counts
    assert counts["emitted_tokens"] == sum(r["emitted_tokens"] for r in run["repetitions"]) > 0
    assert "could not be differenced over repetition 1" in run["notes"]
    (finding,) = [line for line in err.splitlines() if line.startswith("sdeval: finding:")]
    assert finding.startswith("sdeval: finding: speculative c=1: the server's counters cannot be differenced over repetition 1 (")
    assert finding.endswith("; the run's server counts are left out (its output tokens are the responses' usage)")


@pytest.mark.parametrize(("fault", "value"), [("counter-nan", "nan"), ("counter-inf", "inf")])
def test_a_counter_that_is_not_finite_at_the_start_is_refused_before_anything_is_written(tmp_path, capsys, fault, value):
    sim = Simulator(speculative=True, fault=fault, counter_fault_from=1)
    code, record, err = _run_measure(tmp_path, capsys, sim, "speculative", True)
    assert code == 2
    assert err.endswith(
        f"/metrics: line 4: llamacpp:tokens_predicted_total is {value}, where a server's counter or gauge is a finite number, never negative\n"
    )
    assert err.count("\n") == 1
    assert not (tmp_path / "rec.json").exists() and not (tmp_path / "rec.json.capture").exists()


# Every fault the simulator has, through `sdeval measure` as a user runs it: exit 0, 1 (a record with
# findings) or 2 (one line, nothing written), and never an internal error. The expected line names
# the fault's class.
SWEEP = {
    "none": (0, None),
    "no-role-chunk": (0, None),
    "slow-usage": (0, None),
    "no-usage": (1, "no-usage: the stream carried no usage"),
    "wrong-usage": (1, "the server's counters do not match the measured requests"),  # (several tokens a chunk: usage stays above them)
    "error-event": (1, "stream-error: error event inside the 200 stream"),
    "truncated": (1, "truncated: the stream ended after"),
    "stall": (1, "timeout: no complete answer within 1 s"),
    "http-500": (1, "http-error: HTTP 500"),
    "not-openai": (2, "did not answer an OpenAI model list"),
    "metrics-without-spec": (2, "has no spec-decode or generated-token counters"),
    "sglang-gauges": (2, "SGLang's /metrics has only acceptance gauges"),
    "buffered": (1, "arrived in one piece"),
    "warm-cache": (1, "from its prefix cache"),
    "escape-error": (1, "\\x1b]0;pwned\\x07"),
    "escape-http": (1, "http-error: HTTP 500: overloaded \\x1b[31mred"),
    "echo-key": (1, "http-error: HTTP 401: refused: Authorization: None"),
    "counter-reset": (1, "the server's counters cannot be differenced over repetition 1"),
    "counter-nan": (1, "the server's counters cannot be differenced over repetition 1"),
    "counter-inf": (1, "the server's counters cannot be differenced over repetition 1"),
    "null-choice": (1, "malformed-event: choices[0] is null, not an object"),
    "string-delta": (1, 'malformed-event: choices[0].delta is "hi", not an object'),
    "deep-event": (1, "malformed-event: a stream event nests its JSON deeper than measure reads"),
    "model-switch": (1, 'names model "another-model", the stream began as "sim-target"'),
    "surrogate-content": (0, None),
    "usage-above-max": (1, "usage-above-max-tokens: usage says 1000000000000000 output tokens, over the 12 max_tokens asked for"),
    "deep-models": (2, "did not answer an OpenAI model list"),
    "preempting": (1, "the server preempted"),
    "metrics-500": (1, "the server's counters cannot be differenced over repetition 1 (--metrics http://127.0.0.1:"),
    "control-model": (2, 'model 1 of the list, "sim-target\\x1b]0;pwned\\x07", holds the control character U+001B'),
}


def test_the_sweep_names_every_fault():
    assert set(SWEEP) == set(FAULTS)


@pytest.mark.parametrize("fault", sorted(SWEEP))
def test_no_fault_ends_in_an_internal_error(tmp_path, fault, sdeval):
    code, line = SWEEP[fault]
    sim = Simulator(speculative=True, fault=fault, fault_every=2, stall_s=3, step_delay_s=0.002)
    with serve(sim) as url:
        argv = ["--arm", f"speculative={url}", "--metrics", f"{url}/metrics", *ONE, "--repetitions", "1", "--warmup", "1", "--timeout", "1"]
        result = sdeval("measure", *argv, "-o", tmp_path / "rec.json")
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    assert not {"\x1b", "\x07", "\r"} & set(result.stderr)
    if code == 0:  # (a busy machine may add the client's own findings: no request may fail)
        assert result.exit_code in (0, 1) and ": request " not in result.stderr, result.stderr
    else:
        assert result.exit_code == code, result.stderr
    if line is not None:
        assert line in result.stderr, result.stderr
    if code == 2:
        assert result.stderr.count("\n") == 1 and not (tmp_path / "rec.json.capture").exists()
    else:
        assert json.loads((tmp_path / "rec.json").read_text())["runs"]
