"""`sdeval measure` as an instrument: every call misses the prefix cache (a nonce in the salt) and
says so (cache hits summed, a finding beyond the salt); arms interleaved so drift lands on both;
the record's `measurement` block (record 1.3) keeps the order, the salt and what the server cached."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from support.measure_servers import serve  # noqa: E402

from evaluator.measure.cli import main as measure  # noqa: E402
from evaluator.measure.simulator import Simulator  # noqa: E402

SMALL = ["--concurrency", "1,2", "--repetitions", "2", "--warmup", "1", "--requests", "4", "--max-tokens", "12", "--quiet"]


def _call(tmp_path, capsys, arms: list[tuple[str, str]], *extra: str, name: str = "rec.json"):
    argv = [a for arm, url in arms for a in ("--arm", f"{arm}={url}", "--metrics", f"{url}/metrics")]
    code = measure([*argv, *SMALL, *extra, "-o", str(tmp_path / name)])
    err = capsys.readouterr().err
    path = tmp_path / name
    return code, (json.loads(path.read_text()) if path.exists() else None), err


@pytest.fixture
def two_arms():
    with serve(Simulator(speculative=True)) as spec, serve(Simulator()) as base:
        yield [("speculative", spec), ("target-only", base)]


def test_a_second_call_against_the_same_servers_misses_their_prefix_cache(tmp_path, capsys, two_arms):
    code, first, err = _call(tmp_path, capsys, two_arms, name="first.json")
    assert code == 0, err
    code, second, err = _call(tmp_path, capsys, two_arms, name="second.json")
    assert code == 0, err
    nonces = {json.dumps(r["measurement"]["salt"]) for r in first["runs"]}, {json.dumps(r["measurement"]["salt"]) for r in second["runs"]}
    assert len(nonces[0]) == len(nonces[1]) == 1 and nonces[0] != nonces[1]  # one nonce per call, the same in both arms
    for run in second["runs"]:
        m = run["measurement"]
        assert m["requests_reporting_cache"] == run["workload"]["num_requests"] == 8
        # the simulator's tokens are bytes: what a request shares with an earlier one is the salt's
        # fixed part, never the prompt's text
        assert 0 < m["cached_prompt_tokens"] <= m["cache_allowance_tokens"]
        assert sum(w["cached_prompt_tokens"] for w in m["windows"]) == m["cached_prompt_tokens"]
        assert run["workload"]["salted"] is True
    requests = [json.loads(line) for line in (tmp_path / "second.json.capture" / "capture.jsonl").read_text().splitlines()]
    salts = [r["salt"] for r in requests if r["kind"] == "request" and not r["warmup"]]
    nonce = second["runs"][0]["measurement"]["salt"]["nonce"]
    assert all(s.startswith(f"[{nonce} request ") for s in salts) and len(set(salts)) == len(salts) // 2  # each salt once per arm


def test_a_server_answering_from_a_warm_cache_is_a_finding(tmp_path, capsys):
    with serve(Simulator(fault="warm-cache")) as url:
        code, record, err = _call(tmp_path, capsys, [("target-only", url)], "--concurrency", "1", "--repetitions", "1")
    assert code == 1
    m = record["runs"][0]["measurement"]
    assert m["cached_prompt_tokens"] > m["cache_allowance_tokens"]
    assert (
        f"sdeval: finding: target-only c=1: the server served {m['cached_prompt_tokens']} prompt tokens of the measured requests from its "
        f"prefix cache, more than the {m['cache_allowance_tokens']} their salts explain" in err
    )


def test_arms_are_interleaved_alternating_per_repetition(tmp_path, capsys, two_arms):
    code, record, err = _call(tmp_path, capsys, two_arms)
    assert code == 0, err
    windows = [json.loads(line) for line in (tmp_path / "rec.json.capture" / "capture.jsonl").read_text().splitlines()]
    order = [(w["arm"][0], w["concurrency"], w["repetition"]) for w in windows if w["kind"] == "window"]
    assert order == [("s", 1, 0), ("t", 1, 0), ("t", 1, 1), ("s", 1, 1), ("s", 2, 0), ("t", 2, 0), ("t", 2, 1), ("s", 2, 1)]
    sequence = {run["id"]: [w["sequence"] for w in run["measurement"]["windows"]] for run in record["runs"]}
    assert sequence == {"speculative-c1": [0, 3], "target-only-c1": [1, 2], "speculative-c2": [4, 7], "target-only-c2": [5, 6]}
    assert {run["measurement"]["order"] for run in record["runs"]} == {"interleaved"}


def test_append_keeps_arm_by_arm_order_and_the_first_calls_salts(tmp_path, capsys, two_arms):
    code, record, err = _call(tmp_path, capsys, two_arms[:1])
    assert code == 0, err
    code, record, err = _call(tmp_path, capsys, two_arms[1:], "--append")
    assert code == 0, err
    runs = {run["id"]: run["measurement"] for run in record["runs"]}
    assert {m["order"] for m in runs.values()} == {"arm-by-arm"}
    assert runs["target-only-c1"]["salt"] == runs["speculative-c1"]["salt"]  # the same prompts in both arms
    assert [w["sequence"] for w in runs["speculative-c1"]["windows"] + runs["speculative-c2"]["windows"]] == [0, 1, 2, 3]
    assert record["runs"][0]["quality"][0]["equality_total"] == 8


def _span(sent: float, end: float, slot: int | None = None, resent_from: float | None = None) -> dict:
    earlier = [{"sent": resent_from}] if resent_from is not None else []
    return {"sent": sent, "last_byte": end, "finished": end, "outcome": "completed", "slot": slot, "earlier_attempts": earlier}


def test_achieved_concurrency_is_time_weighted_over_the_steady_part_and_a_shortfall_is_a_finding():
    from evaluator.measure.measurement import achieved_concurrency, measurement

    # c = 2, slots unknown: steady from the second send (0) to the first end after the last send (6):
    # 10 + 4 + 4 busy of 10; the steady part is the whole window
    spans = [_span(0, 10), _span(0, 4), _span(6, 10)]
    assert achieved_concurrency(spans, 2) == (1.8, 1.0)
    # the same with slots: slot 1 was held through the client's turnaround from 4 to 6
    assert achieved_concurrency([_span(0, 10, 0), _span(0, 4, 1), _span(6, 10, 1)], 2) == (2.0, 1.0)
    # fill and drain outside the steady part: sends at 0 and 2 (c = 2 from 2), last send at 2, first end after it 8, last byte 12
    assert achieved_concurrency([_span(0, 8, 0), _span(2, 12, 1)], 2) == (2.0, 0.5)
    # the first slot to finish its last request ends the steady part, even before the last send
    assert achieved_concurrency([_span(0.5, 7, 0, resent_from=0), _span(0, 4, 1), _span(7.2, 8, 1)], 2) == (2.0, 0.875)
    # a resent request held its slot from its first attempt
    assert achieved_concurrency([_span(0, 5, 0), _span(5.5, 10, 0, resent_from=5)], 1) == (1.0, 1.0)
    assert achieved_concurrency([_span(0, 5)], 2) is None  # never two in flight
    findings: list[str] = []
    session = {"settings": {"endpoint": "chat"}}
    block = measurement(
        "speculative", 2, [(0, {"loop_lag_ms_max": 3.0, "loop_lag_ms_p99": 1.0, "client_cpu_fraction": 0.2})],
        {("speculative", 2, 0): spans}, session, {("speculative", 2, 0): 0}, "interleaved", findings,
    )  # fmt: skip
    window = block["windows"][0]
    assert (window["achieved_concurrency"], window["steady_share"], window["client_cpu_fraction"]) == (1.8, 1.0, 0.2)
    assert findings == [
        "speculative c=2 repetition 1 of 1: 1.80 requests in flight on average over the window's steady part, below 95 % of 2: the load was not the one stated"
    ]


def test_a_client_that_saturates_its_core_is_a_finding_naming_workers_and_a_busy_machine_is_not():
    from evaluator.measure.selfcheck import bottleneck

    assert bottleneck({"client_cpu_fraction": 0.95, "loop_lag_ms_p99": 2.0}) == "its event loop kept a core 95% busy"
    assert bottleneck({"client_cpu_fraction": 0.6, "loop_lag_ms_p99": 80.0}) == (
        "its event loop ran 80 ms late (p99; bound 50 ms) while keeping a core 60% busy"
    )
    assert bottleneck({"client_cpu_fraction": 0.1, "loop_lag_ms_p99": 80.0}) is None  # late, but other processes held the core
    assert bottleneck({"client_cpu_fraction": 0.3, "loop_lag_ms_p99": 5.0}) is None


def test_each_window_records_the_clients_own_lag_and_cpu(tmp_path, capsys, two_arms):
    code, record, err = _call(tmp_path, capsys, two_arms[:1], "--concurrency", "1", "--repetitions", "1")
    assert code == 0, err
    (window,) = record["runs"][0]["measurement"]["windows"]
    assert window["loop_lag_ms_max"] >= window["loop_lag_ms_p99"] >= 0
    assert 0 < window["client_cpu_fraction"] < 0.9
    assert window["achieved_concurrency"] == 1.0 and 0 < window["steady_share"] <= 1


def test_metrics_repeated_per_arm_are_summed_over_the_engines_each_scrape_kept(tmp_path, capsys):
    sim, idle = Simulator(speculative=True), Simulator(speculative=True)  # the second engine serves nothing here
    with serve(sim) as url, serve(idle) as other:
        argv = ["--arm", f"speculative={url}", "--metrics", f"{url}/metrics", "--metrics", f"{other}/metrics"]
        code = measure([*argv, *SMALL, "--concurrency", "1", "-o", str(tmp_path / "rec.json")])
    assert code == 0, capsys.readouterr().err
    record = json.loads((tmp_path / "rec.json").read_text())
    entries = [json.loads(line) for line in (tmp_path / "rec.json.capture" / "capture.jsonl").read_text().splitlines()]
    scrapes = [e for e in entries if e["kind"] == "scrape"]
    assert {e["url"] for e in scrapes} == {f"{url}/metrics", f"{other}/metrics"} and len(scrapes) == 8  # 2 windows x 2 engines x before/after
    assert all((tmp_path / "rec.json.capture" / e["file"]).is_file() for e in scrapes)
    run = record["runs"][0]
    assert run["counts"]["population"] == "benchmark-requests"
    assert run["measurement"]["whole_span"]["verification_steps"] > 0  # S has no per-request count: the scrapes' whole span
    measured = [e for e in entries if e["kind"] == "request" and not e["warmup"]]
    assert run["counts"]["emitted_tokens"] == sum(r["completion_tokens"] for r in measured)
    assert "preempted_requests" not in run["measurement"]  # llama.cpp's counters have no preemptions


def test_the_same_metrics_url_twice_is_refused(tmp_path, capsys):
    url = "http://127.0.0.1:9"
    code = measure(
        ["--arm", f"speculative={url}", "--metrics", f"{url}/metrics", "--metrics", f"{url}/metrics", *SMALL, "-o", str(tmp_path / "r.json")]
    )
    assert (code, capsys.readouterr().err) == (2, "sdeval: --arm speculative: the same --metrics URL given twice would count its engine twice\n")


def test_preemptions_during_a_run_are_recorded_and_a_finding(tmp_path, capsys):
    with serve(Simulator(fault="preempting")) as url:
        code, record, err = _call(tmp_path, capsys, [("target-only", url)], "--concurrency", "1", "--repetitions", "1")
    assert code == 1
    # one per request the window's scrapes span: its warm-up (not drained) and its 4 measured requests
    assert record["runs"][0]["measurement"]["preempted_requests"] == 5
    assert "sdeval: finding: target-only c=1: the server preempted 5 requests during the windows" in err


def test_windows_by_duration_send_until_the_time_has_passed_then_finish(tmp_path, capsys, two_arms):
    argv = [a for arm, url in two_arms for a in ("--arm", f"{arm}={url}", "--metrics", f"{url}/metrics")]
    settings = ["--concurrency", "2", "--repetitions", "1", "--warmup", "0", "--max-tokens", "12", "--quiet", "--duration", "0.4"]
    assert measure([*argv, *settings, "-o", str(tmp_path / "rec.json")]) == 0, capsys.readouterr().err
    entries = [json.loads(line) for line in (tmp_path / "rec.json.capture" / "capture.jsonl").read_text().splitlines()]
    record = json.loads((tmp_path / "rec.json").read_text())
    for arm in ("speculative", "target-only"):
        sent = sorted(r["sent"] for r in entries if r["kind"] == "request" and r["arm"] == arm)
        assert len(sent) > 4  # more than a window by count would have sent at this pace
        assert sent[-1] - sent[0] < 0.4  # nothing sent once the duration had passed...
        (window,) = [w for w in entries if w["kind"] == "window" and w["arm"] == arm]
        assert window["duration_us"] >= 400_000  # ...and the requests in flight then finished
        run = next(r for r in record["runs"] if r["configuration"] == arm)
        assert run["workload"]["num_requests"] == len(sent) and run["counts"]["population"] == "benchmark-requests"
    assert record["runs"][0]["quality"][0]["equality_total"] >= 4  # prompts paired by index where both arms sent them


def test_duration_and_requests_together_are_refused(tmp_path, capsys):
    code = measure(["--arm", "speculative=http://127.0.0.1:9", "--duration", "5", "--requests", "4", "-o", str(tmp_path / "r.json")])
    assert (code, capsys.readouterr().err) == (2, "sdeval: give --requests N (windows by count) or --duration S (windows by time), not both\n")
