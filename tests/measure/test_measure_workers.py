"""`sdeval measure` past one process (issue 38): worker captures merged into one record
(`sdeval measure merge`), and `--workers N` against the simulator."""

from __future__ import annotations

import json
import shutil

import pytest

pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from support.measure_servers import serve  # noqa: E402
from support.merged_records import claim_verdicts, without_order

from evaluator.measure.cli import main as measure  # noqa: E402
from evaluator.measure.merge import clock  # noqa: E402
from evaluator.measure.simulator import Simulator  # noqa: E402
from evaluator.measure.workers import split  # noqa: E402

SMALL = ["--concurrency", "1,3", "--repetitions", "3", "--requests", "6", "--max-tokens", "24", "--quiet"]


@pytest.fixture
def two_arms():
    spec, base = Simulator(speculative=True, k=4, step_delay_s=0.002), Simulator(step_delay_s=0.002)
    with serve(spec) as spec_url, serve(base) as base_url:
        yield spec, spec_url, base, base_url


def _argv(spec_url: str, base_url: str) -> list[str]:
    return [
        "--arm",
        f"speculative={spec_url}",
        "--metrics",
        f"{spec_url}/metrics",
        "--arm",
        f"target-only={base_url}",
        "--metrics",
        f"{base_url}/metrics",
    ]


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path, entries: list[dict]) -> None:
    path.mkdir(parents=True)
    (path / "capture.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))


def _split_capture(capture, parts, workers: int = 2) -> list:
    """A one-process capture cut into what a driver and `workers` worker processes would have
    written: the driver the scrapes and windows, each worker the requests of its slots."""
    entries = _lines(capture / "capture.jsonl")
    head = [e for e in entries if e["kind"] in ("session", "arm", "call")]
    driver = [head[0], {"kind": "part", "role": "driver", "workers": workers, "clock": clock()}, *head[1:]]
    mine: list[list[dict]] = [
        [head[0], {"kind": "part", "role": "worker", "index": k, "workers": workers, "clock": clock()}, *head[1:]] for k in range(workers)
    ]
    for e in entries:
        if e["kind"] in ("window-start", "scrape"):
            driver.append(e)
            if e["kind"] == "window-start":
                for lines in mine:
                    lines.append(e)
        elif e["kind"] == "request":
            owner = next(k for k, r in enumerate(split(e["concurrency"], workers)) if e["slot"] in r)
            mine[owner].append(e)
        elif e["kind"] == "window":
            driver.append({k: v for k, v in e.items() if k != "duration_us"})
            for k, lines in enumerate(mine):
                slots = split(e["concurrency"], workers)[k]
                lines.append({**e, "scrapes": {}, "slots": [slots.start, slots.stop]})
    dirs = [parts / "driver", *(parts / f"worker-{k}" for k in range(workers))]
    for directory, lines in zip(dirs, [driver, *mine]):
        _write(directory, lines)
    for scrape in capture.glob("*.prom"):
        shutil.copy(scrape, parts / "driver" / scrape.name)
    return dirs


def _without_clock(run: dict) -> dict:
    """A run without its windows' clock bounds (only a merge of workers on other clocks has them)."""
    m = run.get("measurement") or {}
    windows = [{k: v for k, v in w.items() if k != "clock_uncertainty_us"} for w in m.get("windows", [])]
    return {**run, "measurement": {**m, "windows": windows}} if m else run


def test_a_record_merged_from_two_workers_captures_is_the_one_process_record(tmp_path, capsys, two_arms, sdeval):
    spec, spec_url, base, base_url = two_arms
    one = tmp_path / "one.json"
    assert measure([*_argv(spec_url, base_url), *SMALL, "-o", str(one)]) in (0, 1)
    parts = _split_capture(tmp_path / "one.json.capture", tmp_path / "parts")
    merged = tmp_path / "merged.json"
    capsys.readouterr()
    code = measure(["merge", *map(str, parts), "-o", str(merged)])
    err = capsys.readouterr().err
    assert code in (0, 1), err
    a, b = json.loads(one.read_text()), json.loads(merged.read_text())
    assert [r["id"] for r in a["runs"]] == [r["id"] for r in b["runs"]]
    for x, y in zip(a["runs"], b["runs"]):
        # the same counts, interval (the union of the workers' windows is the one window), latencies and uncertainty
        assert without_order(x) == without_order(y)
        assert sorted(x["request_latencies"]["ttft_ms"]) == sorted(y["request_latencies"]["ttft_ms"])
    assert a["claims"] == b["claims"]
    three_notes = next(r["notes"] for r in b["runs"] if r["id"] == "speculative-c3")
    assert "Sent by 2 worker processes started on one instant of this machine's monotonic clock, the concurrency split 2 + 1 slots" in three_notes
    assert claim_verdicts(sdeval, one, tmp_path, "one") == claim_verdicts(sdeval, merged, tmp_path, "merged")
    # every request kept with the worker that sent it, and each window says how its load was split
    lines = _lines(tmp_path / "merged.json.capture" / "capture.jsonl")
    for r in (e for e in lines if e["kind"] == "request"):
        assert r["slot"] in split(r["concurrency"], 2)[r["worker"]]
    three = next(e for e in lines if e["kind"] == "window" and e["concurrency"] == 3)
    assert [(w["worker"], w["slots"]) for w in three["workers"]] == [(0, [0, 2]), (1, [2, 3])]
    assert sum(w["requests"] for w in three["workers"]) == 6


def test_merge_refuses_parts_that_are_not_one_measurement(tmp_path, capsys, two_arms):
    spec, spec_url, base, base_url = two_arms
    for name in ("a.json", "b.json"):
        assert measure([*_argv(spec_url, base_url), *SMALL, "--concurrency", "2", "--repetitions", "1", "-o", str(tmp_path / name)]) in (0, 1)
    a = _split_capture(tmp_path / "a.json.capture", tmp_path / "a")
    b = _split_capture(tmp_path / "b.json.capture", tmp_path / "b")
    capsys.readouterr()
    cases = [
        ([a[0], a[1], b[2]], f"sdeval: {b[2] / 'capture.jsonl'}: session: its salt differ"),  # another measurement's worker
        ([a[0], a[1]], "need every worker's capture once"),  # worker 1 missing
        ([tmp_path / "a.json.capture", a[1]], f"sdeval: {tmp_path / 'a.json.capture' / 'capture.jsonl'}: is not one worker's or driver's capture"),
        ([a[0], a[1], a[2], a[1]], "need every worker's capture once"),
    ]
    for dirs, said in cases:
        out = tmp_path / "never.json"
        assert measure(["merge", *map(str, dirs), "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, err
        assert not out.exists() and not (tmp_path / "never.json.capture").exists()
    # a window scraped by two parts would count its engine twice
    worker = _lines(a[1] / "capture.jsonl")
    scrape = next(e for e in _lines(a[0] / "capture.jsonl") if e["kind"] == "scrape")
    at = next(i for i, e in enumerate(worker) if e["kind"] == "window-start")
    (a[1] / "capture.jsonl").write_text("".join(json.dumps(e) + "\n" for e in [*worker[: at + 1], scrape, *worker[at + 1 :]]))
    shutil.copy(a[0] / scrape["file"], a[1] / scrape["file"])
    assert measure(["merge", *map(str, a), "-o", str(tmp_path / "twice.json")]) == 2
    assert "scraped by more than one part; its counters would be counted twice" in capsys.readouterr().err


def test_a_window_one_worker_did_not_finish_is_named_and_left_out(tmp_path, capsys, two_arms):
    spec, spec_url, base, base_url = two_arms
    assert measure([*_argv(spec_url, base_url), *SMALL, "--concurrency", "2", "-o", str(tmp_path / "a.json")]) in (0, 1)
    parts = _split_capture(tmp_path / "a.json.capture", tmp_path / "parts")
    # worker 1 stopped before its last window ended: that window's line never written
    lines = _lines(parts[2] / "capture.jsonl")
    last = max(i for i, e in enumerate(lines) if e["kind"] == "window")
    cut = lines[last]
    (parts[2] / "capture.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines[:last]))
    capsys.readouterr()
    code = measure(["merge", *map(str, parts), "-o", str(tmp_path / "merged.json")])
    err = capsys.readouterr().err
    assert code == 1, err
    said = f"sdeval: finding: window {cut['arm']} c=2 repetition {cut['repetition'] + 1}: not finished in {parts[2]}; left out"
    assert said in err.splitlines()
    record = json.loads((tmp_path / "merged.json").read_text())
    run = next(r for r in record["runs"] if r["configuration"] == cut["arm"])
    assert len(run["repetitions"]) == 2  # the other two repetitions kept


def test_merge_without_a_directory_is_a_usage_error(capsys):
    assert measure(["merge", "-o", "x.json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Usage: sdeval measure merge [OPTIONS] DIR...") and "Error: " in err


def test_two_worker_processes_count_what_the_servers_counted(tmp_path, capsys, two_arms):
    spec, spec_url, base, base_url = two_arms
    out = tmp_path / "rec.json"
    # no warm-ups: every request the servers served is a measured one, so the counts equal their totals
    code = measure([*_argv(spec_url, base_url), *SMALL, "--warmup", "0", "--workers", "2", "-o", str(out)])
    err = capsys.readouterr().err
    assert code in (0, 1), err
    record = json.loads(out.read_text())
    speculative = [r for r in record["runs"] if r["arrangement"] == "speculative"]
    c = spec.counters
    # the scrapes' whole span (the runs' own counts cover the steady intervals)
    spans = [r["measurement"]["whole_span"] for r in speculative]
    assert sum(w["verification_steps"] for w in spans) == c.drafts
    assert sum(w["proposed_drafts"] for w in spans) == c.draft_tokens
    assert sum(w["accepted_drafts"] for w in spans) == c.accepted
    assert sum(w["emitted_tokens"] for w in spans) == c.predicted
    assert (
        sum(r["measurement"]["whole_span"]["emitted_tokens"] for r in record["runs"] if r["arrangement"] == "target-only") == base.counters.predicted
    )
    assert all(r["counts"]["population"] == "benchmark-requests" for r in record["runs"])
    lines = _lines(tmp_path / "rec.json.capture" / "capture.jsonl")
    requests = [e for e in lines if e["kind"] == "request"]
    windows = [e for e in lines if e["kind"] == "window"]
    # requests equal the sum over workers; both workers sent some, as processes of their own
    assert sum(r["workload"]["requests_sent"] for r in record["runs"]) == len(requests) == sum(w["requests"] for e in windows for w in e["workers"])
    assert {r["worker"] for r in requests} == {0, 1}
    pids = {p["pid"] for p in _lines(tmp_path / "rec.json.capture" / "capture.jsonl")[0]["parts"] if p["role"] == "worker"}
    assert len(pids) == 2 and __import__("os").getpid() not in pids
    # the arms stay interleaved, and the union window holds every worker's requests
    assert [(e["arm"], e["repetition"]) for e in windows if e["concurrency"] == 3] == [
        ("speculative", 0),
        ("target-only", 0),
        ("target-only", 1),
        ("speculative", 1),
        ("speculative", 2),
        ("target-only", 2),
    ]
    for w in windows:
        mine = [r for r in requests if (r["arm"], r["concurrency"], r["repetition"]) == (w["arm"], w["concurrency"], w["repetition"])]
        assert w["duration_us"] == max(1, round((max(r["last_byte"] for r in mine) - min(r["sent"] for r in mine)) * 1e6))
    assert {tuple(w["slots"]) for e in windows if e["concurrency"] == 1 for w in e["workers"]} == {(0, 1), (1, 1)}
    assert all(r["measurement"]["order"] == "interleaved" for r in record["runs"])


def test_workers_is_a_number_or_auto(tmp_path, capsys):
    assert measure(["--arm", "speculative=http://127.0.0.1:9", "--workers", "two", "-o", str(tmp_path / "r.json")]) == 2
    assert "sdeval: --workers 'two': give a whole number of processes, or auto" in capsys.readouterr().err
    assert not (tmp_path / "r.json.parts").exists()


def test_two_worker_processes_measure_windows_by_time(tmp_path, capsys, two_arms):
    spec, spec_url, base, base_url = two_arms
    out = tmp_path / "rec.json"
    # 1 s windows: a worker process a busy machine schedules late still sends its slots' requests inside one
    argv = [*_argv(spec_url, base_url), "--concurrency", "3", "--repetitions", "2", "--duration", "1.0", "--warmup", "0", "--max-tokens", "16"]
    code = measure([*argv, "--quiet", "--workers", "2", "-o", str(out)])
    assert code in (0, 1), capsys.readouterr().err
    record = json.loads(out.read_text())
    lines = _lines(tmp_path / "rec.json.capture" / "capture.jsonl")
    requests = [e for e in lines if e["kind"] == "request"]
    # every request the servers served is counted, both workers sent, and none was sent after the window's time
    # (over each window's whole span: a window by time has no steady interval to cut it to)
    spanned = [r["measurement"].get("whole_span", r["counts"]) for r in record["runs"]]
    assert sum(s["emitted_tokens"] for s, r in zip(spanned, record["runs"]) if r["arrangement"] == "speculative") == spec.counters.predicted
    assert sum(s["emitted_tokens"] for s, r in zip(spanned, record["runs"]) if r["arrangement"] == "target-only") == base.counters.predicted
    assert sum(r["workload"]["requests_sent"] for r in record["runs"]) == len(requests)
    assert {r["worker"] for r in requests} == {0, 1}
    starts = {
        (e["arm"], e["repetition"]): e["start_at"]
        for e in _lines(tmp_path / "rec.json.parts" / "driver" / "capture.jsonl")
        if e["kind"] == "window" and "start_at" in e
    }
    for r in requests:
        assert starts[(r["arm"], r["repetition"])] <= r["sent"] < starts[(r["arm"], r["repetition"])] + 1.0
    # distinct requests: a shared counter gave each index once per window
    for key in starts:
        indices = [r["index"] for r in requests if (r["arm"], r["repetition"]) == key]
        assert sorted(indices) == list(range(len(indices))) and len(indices) >= 3


def test_a_worker_killed_mid_window_stops_the_run_in_one_line_and_its_finished_windows_merge(tmp_path, capsys):
    import os
    import signal
    import threading
    import time

    sim = Simulator(step_delay_s=0.02)  # 24 tokens: about half a second a request
    out = tmp_path / "rec.json"
    parts = tmp_path / "rec.json.parts"
    with serve(sim) as url:
        argv = ["--arm", f"target-only={url}", "--concurrency", "2", "--repetitions", "3", "--requests", "4", "--warmup", "0"]
        result: list[int] = []
        run = threading.Thread(target=lambda: result.append(measure([*argv, "--max-tokens", "24", "--quiet", "--workers", "2", "-o", str(out)])))
        run.start()
        deadline = time.monotonic() + 120
        # wait until the second window is under way in worker 1, then kill that worker
        while time.monotonic() < deadline:
            log = parts / "worker-1" / "capture.jsonl"
            lines = _lines(log) if log.is_file() else []
            if sum(e["kind"] == "window" for e in lines) == 1 and any(e["kind"] == "request" and e["repetition"] == 1 for e in lines):
                break
            time.sleep(0.02)
        pid = next(e["pid"] for e in lines if e["kind"] == "part")
        os.kill(pid, signal.SIGKILL)  # the worker process this test's measure started
        run.join(timeout=120)
    assert result == [2]
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (
        f"sdeval: {parts}: worker 1 stopped (exit code -9) in the middle of a window; the windows every process finished "
        f"can be made a record with: sdeval measure merge {parts}/* -o RECORD"
    )
    assert not out.exists()
    code = measure(["merge", *map(str, sorted(parts.iterdir())), "-o", str(tmp_path / "merged.json")])
    assert code == 1
    merged = json.loads((tmp_path / "merged.json").read_text())
    assert len(merged["runs"][0]["repetitions"]) == 1  # the one window every process finished
    assert "target-only c=2 repetition 2: not finished in" in capsys.readouterr().err
    # the same command with --resume measures the cut window again (a new attempt: new salts) and the rest
    with serve(sim) as url:
        argv[1] = f"target-only={url}"
        code = measure([*argv, "--max-tokens", "24", "--quiet", "--workers", "2", "--resume", "-o", str(out)])
    assert code in (0, 1), capsys.readouterr().err
    record = json.loads(out.read_text())
    assert len(record["runs"][0]["repetitions"]) == 3
    lines = _lines(tmp_path / "rec.json.capture" / "capture.jsonl")
    again = [e for e in lines if e["kind"] == "request" and e["repetition"] == 1]
    assert len(again) == 4 and all(e["salt"].endswith("-1]") for e in again)  # attempt 1
    assert record["runs"][0]["workload"]["requests_sent"] == 12


def _on_another_clock(worker, offset_s: float, uncertainty_s: float, measured: bool = True) -> None:
    """A worker's part as if it ran on another machine whose monotonic clock is offset_s ahead."""
    moved = []
    for e in _lines(worker / "capture.jsonl"):
        if e["kind"] == "part":
            e = {**e, "clock": {**e["clock"], "boot_id": "another-machine"}, "placement": "ray"}
            moved.append(e)
            if measured:
                moved.append({"kind": "clock", "when": "start", "offset_s": offset_s, "uncertainty_s": uncertainty_s})
            continue
        if e["kind"] == "request":
            e = {**e, **{k: e[k] + offset_s for k in ("sent", "first_token", "finished", "last_byte") if e.get(k) is not None}}
        moved.append(e)
    if measured:
        moved.append({"kind": "clock", "when": "end", "offset_s": offset_s, "uncertainty_s": uncertainty_s})
    (worker / "capture.jsonl").write_text("".join(json.dumps(e) + "\n" for e in moved))


def test_a_worker_on_another_clock_is_merged_on_the_drivers_by_its_measured_offset(tmp_path, capsys, two_arms):
    spec, spec_url, base, base_url = two_arms
    one = tmp_path / "one.json"
    assert measure([*_argv(spec_url, base_url), *SMALL, "-o", str(one)]) in (0, 1)
    parts = _split_capture(tmp_path / "one.json.capture", tmp_path / "parts")
    _on_another_clock(parts[2], offset_s=5000.0, uncertainty_s=0.00001)  # 10 us: well inside 1% of any window
    capsys.readouterr()
    assert measure(["merge", *map(str, parts), "-o", str(tmp_path / "merged.json")]) in (0, 1)
    assert "uncertain" not in capsys.readouterr().err
    a, b = json.loads(one.read_text()), json.loads((tmp_path / "merged.json").read_text())
    # the offset undone: the same windows, counts and latencies as the one process measured
    # the record keeps each merged window's clock bound, which one process has none of
    assert {w["clock_uncertainty_us"] for r in b["runs"] for w in r["measurement"]["windows"]} == {20.0}
    assert [without_order(r) for r in a["runs"]] == [without_order(_without_clock(r)) for r in b["runs"]]
    windows = [e for e in _lines(tmp_path / "merged.json.capture" / "capture.jsonl") if e["kind"] == "window"]
    assert {w["clock_uncertainty_us"] for w in windows} == {20.0}
    # a clock known only to 5 ms: each window's edges are a finding
    parts = _split_capture(tmp_path / "one.json.capture", tmp_path / "parts-b")
    _on_another_clock(parts[2], offset_s=5000.0, uncertainty_s=0.005)
    assert measure(["merge", *map(str, parts), "-o", str(tmp_path / "uncertain.json")]) == 1
    said = [line for line in capsys.readouterr().err.splitlines() if "its edges are uncertain by 10.000 ms over the workers' clocks" in line]
    assert len(said) == sum(10_000 > 0.01 * w["duration_us"] for w in windows) > 0 and said[0].startswith("sdeval: finding: window ")
    # without a measured offset, another machine's clock is refused
    parts = _split_capture(tmp_path / "one.json.capture", tmp_path / "parts-c")
    _on_another_clock(parts[2], offset_s=5000.0, uncertainty_s=0.0, measured=False)
    assert measure(["merge", *map(str, parts), "-o", str(tmp_path / "never.json")]) == 2
    assert "its clock is not" in capsys.readouterr().err
