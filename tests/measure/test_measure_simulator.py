"""`sdeval measure` against the project's simulator: the record it writes, and every fault peers'
tools mishandle, each with the finding or error the harness must give (none silently)."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from support.measure_servers import serve, two_task_prompts  # noqa: E402
from support.pdf_helpers import page_texts  # noqa: E402

from evaluator.engine.metrics import exact  # noqa: E402
from evaluator.measure.cli import main as measure  # noqa: E402
from evaluator.measure.simulator import Simulator  # noqa: E402

SMALL = ["--concurrency", "1,3", "--repetitions", "2", "--warmup", "1", "--requests", "6", "--max-tokens", "24", "--quiet"]


def _measure(tmp_path, capsys, arms: list[tuple[str, str, bool]], *extra: str, name: str = "rec.json"):
    argv = []
    for arm, url, metrics in arms:
        argv += ["--arm", f"{arm}={url}"] + (["--metrics", f"{url}/metrics"] if metrics else [])
    out = tmp_path / name
    code = measure([*argv, *SMALL, *extra, "-o", str(out)])
    captured = capsys.readouterr()
    record = json.loads(out.read_text()) if out.exists() and code != 2 else None
    return code, record, captured.out, captured.err


def _requests(tmp_path, name: str = "rec.json") -> list[dict]:
    lines = (tmp_path / f"{name}.capture" / "capture.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["kind"] == "request" and not e["warmup"]]


def _run(record, run_id):
    return next(r for r in record["runs"] if r["id"] == run_id)


@pytest.fixture
def two_arms():
    spec, base = Simulator(speculative=True, k=4, step_delay_s=0.002), Simulator(step_delay_s=0.002)
    with serve(spec) as spec_url, serve(base) as base_url:
        yield spec, spec_url, base, base_url


def test_both_arms_give_a_record_whose_counts_are_the_servers_and_that_assess_reads(tmp_path, capsys, two_arms, sdeval):
    spec, spec_url, base, base_url = two_arms
    code, record, out, err = _measure(tmp_path, capsys, [("speculative", spec_url, True), ("target-only", base_url, True)])
    assert code == 0, err
    assert record["record_version"] == "1.3"
    assert [r["id"] for r in record["runs"]] == ["speculative-c1", "speculative-c3", "target-only-c1", "target-only-c3"]
    c = spec.counters
    runs = [_run(record, "speculative-c1"), _run(record, "speculative-c3")]
    # No drain (record 1.3): each window's scrapes span its warm-up and its measured requests, so the
    # whole-span counts are the server's totals; the run's own counts cover the steady intervals.
    captured = list(map(json.loads, (tmp_path / "rec.json.capture" / "capture.jsonl").read_text().splitlines()))
    warm = [e for e in captured if e["kind"] == "request" and e["warmup"] and e["arm"] == "speculative"]
    assert len(warm) == 4
    spans = [run["measurement"]["whole_span"] for run in runs]
    assert sum(w["emitted_tokens"] for w in spans) == c.predicted
    assert sum(w["verification_steps"] for w in spans) == c.drafts and sum(w["proposed_drafts"] for w in spans) == c.draft_tokens
    assert sum(w["requests"] for w in spans) == 4 + 2 * 2 * 6
    for run in runs:
        k, span = run["counts"], run["measurement"]["whole_span"]
        assert run["measurement"]["drain"] is False
        assert k["population"] == "benchmark-requests"
        assert span["emitted_tokens"] == span["accepted_drafts"] + span["bonus_tokens"] + span["outside_step_tokens"]
        assert span["bonus_tokens"] == span["verification_steps"]
        assert span["outside_step_tokens"] >= span["requests"]  # every first token comes from the prompt pass
        checks = {p["count"]: (p["benchmark"], p["server"]) for p in k["population_check"]}
        assert checks["proposed-drafts"] == (span["proposed_drafts"],) * 2 and checks["accepted-drafts"] == (span["accepted_drafts"],) * 2
        # The steady interval's counts: whole requests by their finish, E from usage and P, A from
        # each request's own timings, over the same requests; S has no per-request count.
        c_ = run["load"]["concurrency"]
        measured = [e for e in captured if e["kind"] == "request" and not e["warmup"] and e["arm"] == "speculative" and e["concurrency"] == c_]
        assert "verification_steps" not in k and "bonus_tokens" not in k
        if c_ == 1:  # one slot: its steady interval is the window, every request counted
            assert [w["steady_requests"] for w in run["measurement"]["windows"]] == [6, 6]
        else:  # 2 requests per slot: too few for a steady interval, the windows are counted whole
            assert "too short for a steady interval" in run["notes"] and run["interval"]["start_event"].startswith("the first measured")
        assert k["emitted_tokens"] == sum(r["completion_tokens"] for r in measured) and k["requests_with_metrics"] == 12
        # Several tokens per chunk under speculation: E is the usage, not the chunk count.
        assert sum(r["repetitions"][0]["emitted_tokens"] for r in [run]) > 0
        # microsecond resolution: the repetitions add up exactly, as counts-inconsistent checks them
        assert exact(run["interval"]["duration_s"]) == sum(exact(r["duration_s"]) for r in run["repetitions"])
        assert run["quality"][0]["equality_check"] == "greedy-equality"
        assert run["quality"][0]["equality_matched"] == run["quality"][0]["equality_total"] == run["workload"]["num_requests"]
    chunks = sum(r["content_chunks"] for r in _requests(tmp_path) if r["arm"] == "speculative")
    assert chunks < sum(r["counts"]["emitted_tokens"] for r in runs)
    # Target-only: the same prompts (same salts), so the same input length for `sdeval claim`.
    assert _run(record, "target-only-c1")["workload"]["input_tokens_mean"] == _run(record, "speculative-c1")["workload"]["input_tokens_mean"]
    assert "speculative" in out and "target-only" in out and "E/T" in out
    path = tmp_path / "rec.json"
    added = sdeval("claim", path, "--run", "speculative-c3", "--baseline", "target-only-c3", "--kind", "speedup", "-o", tmp_path / "claimed.json")
    assert added.exit_code == 0, added.stderr
    assessed = sdeval("assess", tmp_path / "claimed.json", "--format", "json")
    rules = {f["code"] for f in assessed.json()["findings"]}
    # Only what an endpoint cannot tell is asked for: no count, interval, quality or baseline rule fires.
    assert rules == {"identity-incomplete"}, rules
    # The buyer measured it (offer.source): its requests are the buyer's to act on, never the vendor's.
    assert record["offer"]["source"] == "buyer-measured"
    assert all(not a["text"].startswith(("Please", "Ask the vendor")) for a in assessed.json()["files"][0]["asks"])


def test_role_only_first_chunk_is_not_the_first_token(tmp_path, capsys):
    sim = Simulator(prefill_s=0.08)  # the role chunk at once, the first text after the prompt pass
    with serve(sim) as url:
        code, record, out, err = _measure(tmp_path, capsys, [("target-only", url, False)], "--concurrency", "1", "--repetitions", "1")
    assert code == 0, err
    ttft = _run(record, "target-only-c1")["request_latencies"]["ttft_ms"]
    assert min(ttft) >= 80


def test_trailing_usage_chunk_does_not_stretch_end_to_end_latency(tmp_path, capsys):
    sim = Simulator(fault="slow-usage", step_delay_s=0.0)  # usage arrives 0.3 s after the answer finished (the answer itself at once)
    with serve(sim) as url:
        code, record, out, err = _measure(tmp_path, capsys, [("target-only", url, False)], "--concurrency", "1", "--repetitions", "1")
    assert code == 0, err
    run = _run(record, "target-only-c1")
    assert max(run["request_latencies"]["e2e_ms"]) < 250
    # ...but the window runs to the last byte, usage chunk included.
    assert run["interval"]["duration_s"] >= 6 * 0.3


@pytest.mark.parametrize(
    ("fault", "outcome"),
    [
        ("no-usage", "no-usage"),
        ("error-event", "stream-error"),
        ("truncated", "truncated"),
        ("http-500", "http-error"),
        ("wrong-usage", "usage-disagrees"),
    ],
)
def test_a_failed_request_is_counted_as_failed_never_as_completed(tmp_path, capsys, fault, outcome):
    sim = Simulator(fault=fault, fault_every=3)  # target-only: one token per chunk, so wrong usage shows per request
    with serve(sim) as url:
        code, record, out, err = _measure(tmp_path, capsys, [("target-only", url, True)], "--concurrency", "1", "--repetitions", "1")
    assert code == 1
    failed = [r for r in _requests(tmp_path) if r["outcome"] != "completed"]
    assert {r["outcome"] for r in failed} == {outcome} and len(failed) == 2
    run = _run(record, "target-only-c1")
    assert run["workload"]["num_requests"] == 4
    assert run["counts"]["emitted_tokens"] == sum(r["completion_tokens"] for r in _requests(tmp_path) if r["outcome"] == "completed")
    assert f"Failed requests, never counted as completed: 2 {outcome}." in run["notes"]
    # the server's 3rd and 6th requests: measured requests 1 and 4, after the warm-up
    assert f"request 1 {outcome}" in err and f"request 4 {outcome}" in err


def test_wrong_usage_under_speculation_is_caught_by_the_servers_counters(tmp_path, capsys):
    # Several tokens per chunk hide a usage one short per request; the server's counter does not.
    sim = Simulator(speculative=True, fault="wrong-usage")
    with serve(sim) as url:
        code, record, out, err = _measure(tmp_path, capsys, [("speculative", url, True)], "--concurrency", "1", "--repetitions", "1")
    assert code == 1
    counts = _run(record, "speculative-c1")["counts"]
    assert counts["population"] == "mixed"
    check = {c["count"]: c for c in counts["population_check"]}["output-tokens"]
    assert check["server"] - check["benchmark"] == 7  # 6 measured requests and the warm-up, which the scrapes span (no drain)
    assert "outside_step_tokens" not in _run(record, "speculative-c1")["measurement"]["whole_span"]  # D only where settled
    assert "do not match the measured requests" in err


def test_a_stalled_stream_times_out(tmp_path, capsys):
    sim = Simulator(fault="stall", fault_every=4, stall_s=5)
    with serve(sim) as url:
        code, record, out, err = _measure(
            tmp_path, capsys, [("target-only", url, False)], "--concurrency", "1", "--repetitions", "1", "--timeout", "0.5", "--warmup", "0"
        )
    assert code == 1
    assert [r["outcome"] for r in _requests(tmp_path)].count("timeout") == 1
    assert "timeout" in err


def test_a_buffering_gateway_is_named(tmp_path, capsys):
    sim = Simulator(fault="buffered", step_delay_s=0.002)
    with serve(sim) as url:
        code, record, out, err = _measure(tmp_path, capsys, [("target-only", url, False)], "--concurrency", "1", "--repetitions", "1")
    assert code == 1
    assert "arrived in one piece (a buffering gateway or proxy?)" in err


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        ("not-openai", "did not answer an OpenAI model list"),
        ("metrics-without-spec", "has no spec-decode or generated-token counters"),
        ("sglang-gauges", "SGLang's /metrics has only acceptance gauges, no spec-decode counters"),
    ],
)
def test_a_wrong_endpoint_is_one_line_exit_2_and_nothing_written(tmp_path, capsys, fault, words):
    sim = Simulator(speculative=True, fault=fault)
    with serve(sim) as url:
        code, record, out, err = _measure(tmp_path, capsys, [("speculative", url, True)])
    assert code == 2
    assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_unreachable_endpoint_and_bad_prompts_are_one_line_exit_2(tmp_path, capsys):
    from support.measure_servers import free_port

    code, record, out, err = _measure(tmp_path, capsys, [("speculative", f"http://127.0.0.1:{free_port()}", False)])
    assert code == 2 and "unreachable" in err and len(err.strip().splitlines()) == 1
    bad = tmp_path / "prompts.jsonl"
    bad.write_text('{"prompt": "fine"}\n{"prompt": \n')
    with serve(Simulator()) as url:
        code, record, out, err = _measure(tmp_path, capsys, [("target-only", url, False)], "--prompts", str(bad))
    assert code == 2 and err.strip() == f"sdeval: {bad}: line 2: not JSON (Expecting value)"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prompts.jsonl"]


def test_an_existing_record_is_never_overwritten(tmp_path, capsys):
    (tmp_path / "rec.json").write_text("mine")
    with serve(Simulator()) as url:
        code, record, out, err = _measure(tmp_path, capsys, [("target-only", url, False)])
    assert code == 2 and "already exists" in err
    assert (tmp_path / "rec.json").read_text() == "mine"


def test_resume_measures_only_the_unfinished_windows(tmp_path, capsys):
    with serve(Simulator()) as url:
        code, first, out, err = _measure(tmp_path, capsys, [("target-only", url, False)])
        assert code == 0, err
        log = tmp_path / "rec.json.capture" / "capture.jsonl"
        lines = log.read_text().splitlines()
        last_window = max(i for i, line in enumerate(lines) if json.loads(line)["kind"] == "window")
        # A crash during the last window: its window line never written, its last line cut short.
        log.write_text("\n".join(lines[: last_window - 2]) + "\n" + lines[last_window - 2][:10])
        (tmp_path / "rec.json").unlink()
        code = measure(["--resume", *SMALL, "-o", str(tmp_path / "rec.json")])
        err = capsys.readouterr().err
    assert code == 0, err
    again = json.loads((tmp_path / "rec.json").read_text())
    assert [r["workload"]["num_requests"] for r in again["runs"]] == [12, 12]
    assert [len(r["repetitions"]) for r in again["runs"]] == [2, 2]


def test_append_adds_an_arm_measured_after_a_restart(tmp_path, capsys):
    with serve(Simulator(speculative=True)) as url:
        code, record, out, err = _measure(tmp_path, capsys, [("speculative", url, True)])
        assert code == 0, err
    with serve(Simulator()) as url:  # "the same server, restarted without speculation"
        code, record, out, err = _measure(tmp_path, capsys, [("target-only", url, True)], "--append")
    assert code == 0, err
    assert [r["id"] for r in record["runs"]] == ["speculative-c1", "speculative-c3", "target-only-c1", "target-only-c3"]
    assert record["runs"][0]["quality"][0]["equality_total"] == 12


def test_an_api_key_comes_from_the_named_variable_and_is_written_nowhere(tmp_path, capsys, monkeypatch):
    key = "sk-test-9f8e7d6c5b4a"
    spec, base = Simulator(speculative=True, api_key=key), Simulator(api_key=key)
    with serve(spec) as spec_url, serve(base) as base_url:
        arms = ["--arm", f"speculative={spec_url}", "--api-key-env", "VENDOR_KEY", "--arm", f"target-only={base_url}", "--api-key-env", "VENDOR_KEY"]
        monkeypatch.delenv("VENDOR_KEY", raising=False)
        assert measure([*arms, *SMALL, "-o", str(tmp_path / "unset.json")]) == 2
        assert capsys.readouterr().err == "sdeval: --api-key-env VENDOR_KEY: the variable is not set\n"
        assert not (tmp_path / "unset.json").exists()
        monkeypatch.setenv("VENDOR_KEY", key)
        assert measure([*arms, *SMALL, "-o", str(tmp_path / "rec.json")]) == 0, capsys.readouterr().err
    assert set(spec.authorizations) == set(base.authorizations) == {f"Bearer {key}"}
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written and not [p for p in written if key.encode() in p.read_bytes()]
    record = json.loads((tmp_path / "rec.json").read_text())
    assert "VENDOR_KEY" in json.dumps(record)  # the variable's name is evidence of how it was run; its value is not


def test_random_prompts_are_opt_in_said_so_and_named_in_the_record(tmp_path, capsys, two_arms):
    spec, spec_url, base, base_url = two_arms
    code, record, out, err = _measure(tmp_path, capsys, [("speculative", spec_url, True), ("target-only", base_url, True)], "--random-prompts", "5")
    assert code == 0, err
    assert "sdeval: warning: random-token prompts overstate speculative gains (SPEED-Bench); the record names them" in err
    datasets = {r["workload"]["dataset"] for r in record["runs"]}
    assert len(datasets) == 1 and datasets.pop().startswith("random tokens (5 prompts of 64 words, --random-prompts) (sha256 ")
    code, _, _, err = _measure(
        tmp_path,
        capsys,
        [("speculative", spec_url, True), ("target-only", base_url, True)],
        "--random-prompts",
        "5",
        "--prompts",
        str(tmp_path / "p.jsonl"),
        name="both.json",
    )
    assert (code, err) == (2, "sdeval: give --prompts FILE or --random-prompts N, not both\n")


def test_two_tasks_of_different_acceptance_give_per_task_figures_and_the_spread_finding(tmp_path, capsys, sdeval):
    spec = Simulator(speculative=True, k=4, step_delay_s=0.01, accept_by_text=(("EASY", 0.95), ("HARD", 0.05)))
    base = Simulator(step_delay_s=0.01)
    prompts = two_task_prompts(tmp_path)  # measured twice over, 16 pairs per task give an interval on its median speedup
    with serve(spec) as spec_url, serve(base) as base_url:
        argv = [
            a for arm, url in (("speculative", spec_url), ("target-only", base_url)) for a in ("--arm", f"{arm}={url}", "--metrics", f"{url}/metrics")
        ]
        code = measure(
            [
                *argv,
                "--prompts",
                str(prompts),
                "--concurrency",
                "2",
                "--repetitions",
                "4",
                "--warmup",
                "0",
                "--requests",
                "8",
                "--max-tokens",
                "24",
                "-o",
                str(tmp_path / "rec.json"),
            ]
        )
    out = capsys.readouterr()
    assert code == 0, out.err
    record = json.loads((tmp_path / "rec.json").read_text())
    run = _run(record, "speculative-c2")
    requests = [r for r in _requests(tmp_path) if r["arm"] == "speculative"]
    # the run's per-request distribution sums to its A and P: the requests its steady intervals
    # counted (record 1.3 steady_requests), as its counts do
    acceptance = run["request_acceptance"]
    assert (acceptance["proposed_drafts"], acceptance["accepted_drafts"]) == (run["counts"]["proposed_drafts"], run["counts"]["accepted_drafts"])
    counted = sum(w["steady_requests"] for w in run["measurement"]["windows"])
    assert len(requests) == 32 and acceptance["requests"] == counted == sum(acceptance["rate_histogram"]) and 0 < counted <= 32
    tasks = {t["task"]: t for t in run["per_task"]["tasks"]}
    assert sorted(tasks) == ["easy", "hard"]
    for name, t in tasks.items():
        mine = [r for r in requests if r["task"] == name]
        assert t["requests"] == len(mine) == 16 and t["output_tokens"] == sum(r["completion_tokens"] for r in mine)
        assert t["request_acceptance"]["proposed_drafts"] == sum(r["server_timings"].get("draft_n", 0) for r in mine)
        assert t["speedup"]["pairs"] == 16 and t["speedup"]["baseline_run"] == "target-only-c2"
        assert t["speedup"]["low"] <= t["speedup"]["median"] <= t["speedup"]["high"]
    # the tasks cover every completed request, as their latencies do
    assert sum(t["request_acceptance"]["accepted_drafts"] for t in tasks.values()) == sum(r["server_timings"]["draft_n_accepted"] for r in requests)
    assert tasks["easy"]["acceptance_rate"] > 0.8 > 0.2 > tasks["hard"]["acceptance_rate"]
    assert tasks["hard"]["speedup"]["high"] < tasks["easy"]["speedup"]["low"]  # the drafter's hit rate is the speedup
    # the run's requests split into two modes of A / P: acceptance-bimodal reads the per-request histogram
    expected = [0] * 10
    for r in requests:
        expected[min(9, 10 * r["server_timings"]["draft_n_accepted"] // r["server_timings"]["draft_n"])] += 1
    assert [sum(h) for h in zip(*(t["request_acceptance"]["rate_histogram"] for t in tasks.values()))] == expected
    assert expected[0] == 16 and sum(expected[5:]) == 16
    base_run = _run(record, "target-only-c2")
    assert "request_acceptance" not in base_run and "speedup" not in base_run["per_task"]["tasks"][0]
    # the end-of-run table: one line per task under the load
    assert "easy" in out.out and "hard" in out.out
    assessed = sdeval("assess", tmp_path / "rec.json")
    assert "task-speedup-spread" in assessed.stdout and "acceptance-bimodal" in assessed.stdout, assessed.stdout
    assert "slowest: hard" in assessed.stdout
    # the per-task table and the per-request histogram, in the text and the JSON
    hard = tasks["hard"]["speedup"]
    row = re.search(r"^    speculative-c2 +hard +16 +[0-9,]+ +[0-9.]+ +[0-9.]+ +(\S+) \[(\S+), (\S+)\] +16 +[0-9.]+$", assessed.stdout, re.M)
    assert row, assessed.stdout
    assert [float(x.rstrip("x")) for x in row.groups()] == pytest.approx([hard["median"], hard["low"], hard["high"]], rel=0.01)
    assert f"    speculative-c2: {' '.join(map(str, acceptance['rate_histogram']))}  ({counted} requests; llama.cpp" in assessed.stdout
    document = sdeval("assess", tmp_path / "rec.json", "--format", "json").json()
    runs = {r["run"]: r for r in document["files"][0]["runs"]}
    assert runs["speculative-c2"]["per_task"] == run["per_task"] and runs["speculative-c2"]["request_acceptance"] == acceptance
    assert "request_acceptance" not in runs["target-only-c2"]
    # the PDF: the per-task table, the speedup chart and the per-request histogram
    assert sdeval("keygen", tmp_path / "id").exit_code == 0
    pdf = tmp_path / "rec.pdf"
    rendered = sdeval("render", tmp_path / "rec.json", "-o", pdf, "--key", tmp_path / "id" / "key.pem", "--cert", tmp_path / "id" / "cert.pem")
    assert rendered.exit_code == 1, rendered.stderr  # the simulator's configurations are not pinned (identity-incomplete)
    text = " ".join(" ".join(page_texts(pdf)).split())
    assert "Per task" in text and "speculative-c2: paired per-prompt speedup by task" in text and "speculative-c2: requests by A / P" in text
    # each task's own histogram beside the run's (the mean of the two modes hides them; each task shows one)
    assert "easy: requests by A / P" in text and "hard: requests by A / P" in text
    assert re.search(r"hard 16 [0-9,]+ [0-9.]+ [0-9.]+ " + re.escape(f"{row.group(1)} [{row.group(2)}, {row.group(3)}] 16"), text), text
