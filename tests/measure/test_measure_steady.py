"""A steady window (record 1.3): warm-up slots handed straight to measured requests (drain: false),
no start burst, E / T over each window's steady interval with whole requests counted by their
finish, P and A of that interval from the server's per-request counts, and the server's scraped
counters kept for the whole span as the population check."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from support.measure_servers import serve  # noqa: E402

from evaluator.engine.metrics import exact  # noqa: E402
from evaluator.measure.cli import main as measure  # noqa: E402
from evaluator.measure.measurement import counted_in, counting_interval, steady_interval  # noqa: E402
from evaluator.measure.simulator import Simulator  # noqa: E402


def _request(slot: int, sent: float, finished: float, outcome: str = "completed") -> dict:
    return {"slot": slot, "sent": sent, "finished": finished, "last_byte": finished + 0.01, "outcome": outcome, "earlier_attempts": []}


def test_the_steady_interval_starts_when_every_slot_has_left_its_warm_up_and_ends_at_the_first_idle_slot():
    # c = 2. Slot 1 sends its first measured request at 0 and again at 3, slot 0 is busy with its
    # warm-up until 2: the window is steady from 2 (not from the second measured send at... 3's
    # predecessor) to the first slot's last byte (slot 0, 6.01).
    measured = [_request(1, 0, 2.9), _request(1, 3, 7), _request(0, 2, 6)]
    assert steady_interval(measured, 2) == (2, 6.01)
    # the straddle rule: whole requests whose finishing chunk came inside (start, end]
    start_end = steady_interval(measured, 2)
    assert start_end is not None
    assert [counted_in(r, start_end) for r in measured] == [True, False, True]
    assert not counted_in(_request(0, 2, 5, outcome="truncated"), start_end)  # a failure never counts
    assert steady_interval(measured[:1], 2) is None  # never two in flight
    # a window with fewer than 3 requests on a slot is counted whole: no request need lie inside
    assert counting_interval(measured, 2) is None
    longer = [*measured, _request(1, 7.1, 9), _request(0, 6.1, 8), _request(0, 8.1, 10)]
    assert counting_interval(longer, 2) == steady_interval(longer, 2) == (2, 9.01)


SMALL = ["--concurrency", "3", "--repetitions", "2", "--warmup", "3", "--requests", "15", "--max-tokens", "16", "--quiet"]


def _measure(tmp_path, capsys, arms, *extra):
    argv = [a for arm, url in arms for a in ("--arm", f"{arm}={url}", "--metrics", f"{url}/metrics")]
    code = measure([*argv, *SMALL, *extra, "-o", str(tmp_path / "rec.json")])
    err = capsys.readouterr().err
    entries = [json.loads(line) for line in (tmp_path / "rec.json.capture" / "capture.jsonl").read_text().splitlines()]
    return code, json.loads((tmp_path / "rec.json").read_text()), entries, err


def test_warm_up_slots_hand_over_without_draining_and_the_run_counts_its_steady_intervals(tmp_path, capsys):
    sim = Simulator(speculative=True, step_delay_s=0.003)
    with serve(sim) as url:
        code, record, entries, err = _measure(tmp_path, capsys, [("speculative", url)])
    assert code == 0, err
    run = record["runs"][0]
    assert run["measurement"]["drain"] is False and "start burst" not in run["notes"]  # a warm-up of c: every slot handed over busy
    rep = 0
    window = [e for e in entries if e.get("repetition") == rep and e["kind"] in ("request", "scrape", "window")]
    assert window[0]["kind"] == "scrape" and window[0]["when"] == "before"  # before the warm-up: its span holds it
    requests = [e for e in window if e["kind"] == "request"]
    warm = [r for r in requests if r["warmup"]]
    measured = [r for r in requests if not r["warmup"]]
    # No drain: each slot's first measured request went out as that slot's warm-up ended, while
    # the other slots' warm-ups were still running (a drain would have waited for the last one).
    for slot in range(3):
        warm_end = next(r["last_byte"] for r in warm if r["slot"] == slot)
        first = min(r["sent"] for r in measured if r["slot"] == slot)
        assert 0 <= first - warm_end < 0.05
    assert min(r["sent"] for r in measured) < max(r["last_byte"] for r in warm)
    # E and T of the repetition: the requests counted by their finish over the steady interval
    start, end = steady_interval(measured, 3)
    counted = [r for r in measured if start < r["finished"] <= end]
    assert 0 < len(counted) < len(measured)
    assert run["repetitions"][rep] == {"emitted_tokens": sum(r["completion_tokens"] for r in counted), "duration_s": round((end - start) * 1e6) / 1e6}
    assert run["measurement"]["windows"][rep]["steady_requests"] == len(counted)
    # N / T divides like by like: the requests counted in the steady intervals, over those intervals
    from evaluator.engine.claim_figures import request_rate
    from evaluator.engine.record import Run

    rate = request_rate(Run.model_validate(run))
    n = sum(w["steady_requests"] for w in run["measurement"]["windows"])
    assert n < run["workload"]["num_requests"]
    assert rate.value == pytest.approx(n / run["interval"]["duration_s"])
    assert exact(run["interval"]["duration_s"]) == sum(exact(r["duration_s"]) for r in run["repetitions"])
    assert run["counts"]["emitted_tokens"] == sum(r["emitted_tokens"] for r in run["repetitions"])
    assert run["interval"]["start_event"].startswith("c measured requests are first in flight")
    # P and A of the steady interval: the same requests' own timings
    every = [r for r in entries if r["kind"] == "request" and not r["warmup"]]
    steady = []
    for k in range(2):
        mine = [r for r in every if r["repetition"] == k]
        interval = steady_interval(mine, 3)
        steady += [r for r in mine if counted_in(r, interval)]
    assert run["counts"]["proposed_drafts"] == sum(r["server_timings"].get("draft_n", 0) for r in steady)
    assert run["counts"]["accepted_drafts"] == sum(r["server_timings"].get("draft_n_accepted", 0) for r in steady)
    assert run["counts"]["requests_with_metrics"] == len(steady)
    # the whole span: the server's counters equal the client's warm-up and measured requests
    span = run["measurement"]["whole_span"]
    assert span["emitted_tokens"] == sim.counters.predicted and span["requests"] == 2 * (3 + 15) == sim.finished
    assert span["verification_steps"] == sim.counters.drafts and span["proposed_drafts"] == sim.counters.draft_tokens
    assert span["emitted_tokens"] == span["accepted_drafts"] + span["bonus_tokens"] + span["outside_step_tokens"]
    assert {p["count"] for p in run["counts"]["population_check"]} >= {"output-tokens", "requests-in-flight", "proposed-drafts", "accepted-drafts"}
    assert all(p["benchmark"] == p["server"] for p in run["counts"]["population_check"])


def test_without_per_request_counts_the_speculative_counts_stay_whole_span_and_the_notes_say_so(tmp_path, capsys):
    with serve(Simulator(speculative=True, step_delay_s=0.003, timings=False)) as url:
        code, record, entries, err = _measure(tmp_path, capsys, [("speculative", url)])
    assert code == 0, err
    run = record["runs"][0]
    assert not {"proposed_drafts", "accepted_drafts", "verification_steps"} & set(run["counts"])
    assert run["measurement"]["whole_span"]["proposed_drafts"] > 0
    assert "The server gave no per-request draft counts (llama.cpp timings.draft_n): S, P and A are given for the whole span only" in run["notes"]


def test_a_warm_up_shorter_than_the_load_is_named_as_a_start_burst(tmp_path, capsys):
    with serve(Simulator(step_delay_s=0.002)) as url:
        code, record, entries, err = _measure(tmp_path, capsys, [("target-only", url)], "--warmup", "1")
    assert code == 0, err
    assert (
        "A warm-up of 1 requests for 3 slots: 2 measured requests per window started together with it (a start burst; " in record["runs"][0]["notes"]
    )
