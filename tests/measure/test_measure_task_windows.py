"""`sdeval measure --per-task-windows` against the simulator: each task of the prompt set in its own
windows, one run per (arm, load, task) with its own E / T, counts and paired speedup, and a claim for
one task judged on that task's figures."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from support.measure_servers import serve, two_task_prompts  # noqa: E402

from evaluator.measure.cli import main as measure  # noqa: E402
from evaluator.measure.simulator import Simulator  # noqa: E402

LOAD = ["--concurrency", "2", "--repetitions", "3", "--warmup", "2", "--requests", "8", "--max-tokens", "24", "--quiet"]
TASKS = ("easy", "hard")


def _entries(record_path) -> list[dict]:
    return [json.loads(line) for line in (record_path.parent / f"{record_path.name}.capture" / "capture.jsonl").read_text().splitlines()]


COUNTERS = {
    "emitted_tokens": "llamacpp:tokens_predicted_total",
    "verification_steps": "llamacpp:spec_decode_num_drafts_total",
    "proposed_drafts": "llamacpp:spec_decode_num_draft_tokens_total",
    "accepted_drafts": "llamacpp:spec_decode_num_accepted_tokens_total",
}


def _counter(record_path, name: str, counter: str) -> int:
    """A counter's value in one of the capture's scrapes, read with a plain pattern (not the parser it checks)."""
    text = (record_path.parent / f"{record_path.name}.capture" / name).read_text()
    return int(float(re.search(rf"^{re.escape(counter)} (\S+)$", text, re.M).group(1)))


def _arms(*arms: tuple[str, str]) -> list[str]:
    return [a for arm, url in arms for a in ("--arm", f"{arm}={url}", "--metrics", f"{url}/metrics")]


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """One measurement of two tasks a drafter predicts very differently, in per-task windows; the
    simulators' counters afterwards."""
    tmp = tmp_path_factory.mktemp("taskwin")
    spec = Simulator(speculative=True, k=4, step_delay_s=0.01, accept_by_text=(("EASY", 0.95), ("HARD", 0.05)))
    base = Simulator(step_delay_s=0.01)
    with serve(spec) as spec_url, serve(base) as base_url:
        argv = _arms(("speculative", spec_url), ("target-only", base_url))
        code = measure([*argv, "--prompts", str(two_task_prompts(tmp)), *LOAD, "--per-task-windows", "-o", str(tmp / "rec.json")])
    assert code == 0
    return tmp / "rec.json", spec, base


def test_each_task_is_its_own_run_with_its_own_figures(measured):
    path, spec, base = measured
    record = json.loads(path.read_text())
    runs = {r["id"]: r for r in record["runs"]}
    assert list(runs) == ["speculative-c2-easy", "speculative-c2-hard", "target-only-c2-easy", "target-only-c2-hard"]
    for task in TASKS:
        mine, theirs = runs[f"speculative-c2-{task}"], runs[f"target-only-c2-{task}"]
        for run in (mine, theirs):
            assert run["workload"]["task"] == task and [t["task"] for t in run["per_task"]["tasks"]] == [task]
            assert len(run["repetitions"]) == 3 and run["workload"]["num_requests"] == 24
        # the speedups pair the same task's runs only
        assert mine["uncertainty"]["speedup"]["baseline_run"] == f"target-only-c2-{task}"
        per_prompt = mine["per_task"]["tasks"][0]["speedup"]
        assert per_prompt["baseline_run"] == f"target-only-c2-{task}" and per_prompt["pairs"] == 24
        assert mine["quality"][0]["task"] == task and mine["quality"][0]["equality_matched"] == mine["quality"][0]["equality_total"] == 24
    easy, hard = runs["speculative-c2-easy"], runs["speculative-c2-hard"]
    # the drafter's hit rate is the task's own E / T and paired speedup (about 4x against 1x here; short
    # windows on a busy machine make the intervals wide, so the means are compared with room)
    assert (
        easy["counts"]["accepted_drafts"] / easy["counts"]["proposed_drafts"]
        > 0.8
        > 0.2
        > hard["counts"]["accepted_drafts"] / hard["counts"]["proposed_drafts"]
    )
    assert easy["uncertainty"]["speedup"]["mean"] > 1.5 * hard["uncertainty"]["speedup"]["mean"]
    assert easy["uncertainty"]["output_throughput"]["mean"] > 1.5 * hard["uncertainty"]["output_throughput"]["mean"]
    assert len(easy["uncertainty"]["speedup"]["values"]) == len(hard["uncertainty"]["speedup"]["values"]) == 3
    # the baseline's speed does not depend on the task's text
    assert runs["target-only-c2-easy"]["uncertainty"]["output_throughput"]["mean"] == pytest.approx(
        runs["target-only-c2-hard"]["uncertainty"]["output_throughput"]["mean"], rel=0.25
    )


def test_windows_hold_one_task_each_arms_interleaved_salts_never_shared(measured, tmp_path):
    path, _, _ = measured
    entries = _entries(path)
    session = entries[0]
    assert session["settings"]["per_task_windows"] is True and "with --per-task-windows" in session["salt"]["scheme"]
    windows = [(e["concurrency"], e["repetition"], e["window_task"], e["arm"]) for e in entries if e["kind"] == "window"]
    s, t = "speculative", "target-only"
    # at each repetition every task's turn, the arms' order reversed on every other turn
    assert windows == [
        (2, 0, "easy", s), (2, 0, "easy", t), (2, 0, "hard", t), (2, 0, "hard", s),
        (2, 1, "easy", s), (2, 1, "easy", t), (2, 1, "hard", t), (2, 1, "hard", s),
        (2, 2, "easy", s), (2, 2, "easy", t), (2, 2, "hard", t), (2, 2, "hard", s),
    ]  # fmt: skip
    requests = [e for e in entries if e["kind"] == "request"]
    assert len(requests) == 12 * (8 + 2)
    assert all(e["prompt"].startswith(e["window_task"]) for e in requests)  # warm-ups too: only the window's task
    for arm in (s, t):
        salts = [e["salt"] for e in requests if e["arm"] == arm]
        assert len(set(salts)) == len(salts)  # the two tasks' windows at one repetition send different salts
    # the same salted prompts in both arms
    assert sorted((e["prompt"], e["salt"]) for e in requests if e["arm"] == s) == sorted((e["prompt"], e["salt"]) for e in requests if e["arm"] == t)
    scrapes = [e["file"] for e in entries if e["kind"] == "scrape"]
    assert len(scrapes) == len(set(scrapes)) == 24
    # `measure workload` writes every measured request once: each task window's salts are its own
    out = tmp_path / "workload.jsonl"
    assert measure(["workload", str(path), "--prompts", str(path.parent / "two-tasks.jsonl"), "-o", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 6 * 8


def test_each_runs_counts_are_the_servers_counter_deltas_over_its_tasks_windows(measured):
    path, spec, base = measured
    record = json.loads(path.read_text())
    entries = _entries(path)
    for sim, arm in ((spec, "speculative"), (base, "target-only")):
        runs = [r for r in record["runs"] if r["configuration"] == arm]
        spans = [r["measurement"]["whole_span"] for r in runs]
        # nothing counted twice or lost: the runs' spans add up to everything the server did
        assert sum(w["emitted_tokens"] for w in spans) == sim.counters.predicted and sum(w["requests"] for w in spans) == 12 * 10 // 2
        for run in runs:
            task = run["workload"]["task"]
            sent = [e for e in entries if e["kind"] == "request" and e["arm"] == arm and e["window_task"] == task]
            span = run["measurement"]["whole_span"]
            assert span["requests"] == len(sent) == 30 and span["emitted_tokens"] == sum(e["completion_tokens"] for e in sent)
            checks = {p["count"]: (p["benchmark"], p["server"]) for p in run["counts"]["population_check"]}
            assert all(ours == theirs for ours, theirs in checks.values()) and run["counts"]["population"] == "benchmark-requests"
            # the simulator's own counters, read from the scrapes around this task's windows only
            scrapes = {
                (e["repetition"], e["when"]): e["file"] for e in entries if e["kind"] == "scrape" and e["arm"] == arm and e["window_task"] == task
            }
            for field, counter in COUNTERS.items():
                if field in span:
                    deltas = [
                        _counter(path, scrapes[(rep, "after")], counter) - _counter(path, scrapes[(rep, "before")], counter) for rep in range(3)
                    ]
                    assert span[field] == sum(deltas) > 0, field
            if arm == "speculative":  # the server's drafts over this task's windows are this task's requests' own
                drafted = sum(e["server_timings"].get("draft_n", 0) for e in sent)
                assert span["proposed_drafts"] == checks["proposed-drafts"][1] == drafted
                steady = sum(w["steady_requests"] for w in run["measurement"]["windows"])
                assert run["counts"]["requests_with_metrics"] == steady == run["request_acceptance"]["requests"]
    assert (
        sum(r["measurement"]["whole_span"]["verification_steps"] for r in record["runs"] if r["configuration"] == "speculative")
        == spec.counters.drafts
    )


def test_assess_reads_it_and_a_one_task_claim_is_judged_on_its_task(measured, sdeval, tmp_path):
    path, _, _ = measured
    assessed = sdeval("assess", path, "--format", "json")
    assert assessed.exit_code in (0, 1), assessed.stderr
    rules = {f["code"] for f in assessed.json()["findings"]}
    assert "task-speedup-spread" not in rules  # no run mixes tasks
    # a pair never crosses tasks: another task's run is no baseline on equal terms
    crossed = sdeval(
        "claim", path, "--run", "speculative-c2-hard", "--baseline", "target-only-c2-easy", "--kind", "speedup", "-o", tmp_path / "x.json"
    )
    assert crossed.exit_code == 2 and "workload.task" in crossed.stderr and not (tmp_path / "x.json").exists()
    wrong = sdeval("claim", path, "--run", "speculative-c2-easy", "--baseline", "target-only-c2-easy", "--kind", "speedup", "--task", "hard")
    assert wrong.exit_code == 2 and 'measured "easy", not "hard"' in wrong.stderr
    claimed = tmp_path / "claimed.json"
    for task, out in (("hard", ["-o", claimed]), ("easy", ["--in-place"])):
        run, base = (f"{arm}-c2-{task}" for arm in ("speculative", "target-only"))
        added = sdeval("claim", path if task == "hard" else claimed, "--run", run, "--baseline", base, "--kind", "speedup", "--task", task, *out)
        assert added.exit_code in (0, 1), added.stderr
    record = json.loads(claimed.read_text())
    runs = {r["id"]: r for r in record["runs"]}
    claims = {c["task"]: c for c in record["claims"] if c["kind"] == "speedup"}
    rate = {k: r["counts"]["emitted_tokens"] / r["interval"]["duration_s"] for k, r in runs.items()}
    assert sorted(claims) == ["easy", "hard"]
    for task, claim in claims.items():  # each claim's value is its own task's runs' E / T ratio, as written (2 decimals)
        assert claim["value"] == pytest.approx(rate[f"speculative-c2-{task}"] / rate[f"target-only-c2-{task}"], abs=0.0051)
    # both claims state easy's per-prompt median: true of easy, outside hard's own interval
    easy = runs["speculative-c2-easy"]["per_task"]["tasks"][0]["speedup"]
    for claim in claims.values():
        claim["value"] = easy["median"]
    claimed.write_text(json.dumps(record))
    assessed = sdeval("assess", claimed, "--format", "json").json()["findings"]
    # Each run measured its task alone: a claim on it is judged on the run's own E / T ratio and its
    # interval over repetitions (speedup-interval), the estimator the claim states, never on the
    # per-prompt median (another estimator, which a run's own claim can fall just outside of).
    assert [f for f in assessed if f["code"] == "task-speedup-interval"] == []
    outside = [f for f in assessed if f["code"] == "speedup-interval" and f.get("claim") == "speedup-speculative-c2-hard"]
    assert outside and "outside" in outside[0]["message"], assessed


def test_one_task_prompts_workers_and_ray_are_refused_in_one_line(tmp_path, capsys):
    one = tmp_path / "one.jsonl"
    one.write_text("".join(json.dumps({"task": "code", "prompt": f"def f{n}():"}) + "\n" for n in range(4)))
    out = tmp_path / "rec.json"
    with serve(Simulator()) as url:
        assert measure(["--arm", f"target-only={url}", "--prompts", str(one), *LOAD, "--per-task-windows", "-o", str(out)]) == 2
        assert capsys.readouterr().err == (
            f"sdeval: {one}: --per-task-windows: every prompt is of one task (code), so every window is that task's already; measure without it\n"
        )
        for extra in (["--workers", "2"], ["--ray", "auto"]):
            prompts = two_task_prompts(tmp_path)
            assert measure(["--arm", f"target-only={url}", "--prompts", str(prompts), *LOAD, "--per-task-windows", *extra, "-o", str(out)]) == 2
            assert capsys.readouterr().err == "sdeval: --per-task-windows does not work with --workers or --ray yet\n"
    assert not out.exists() and not (tmp_path / "rec.json.capture").exists()


def test_resume_after_a_kill_goes_on_in_per_task_windows_and_refuses_the_other_mode(tmp_path, capsys):
    prompts = two_task_prompts(tmp_path)
    out = tmp_path / "rec.json"
    argv = ["--prompts", str(prompts), *LOAD, "--repetitions", "2", "-o", str(out)]
    with serve(Simulator(step_delay_s=0.001)) as url:
        assert measure(["--arm", f"target-only={url}", *argv, "--per-task-windows"]) == 0
        capsys.readouterr()
        log = tmp_path / "rec.json.capture" / "capture.jsonl"
        lines = log.read_text().splitlines()
        windows = [i for i, line in enumerate(lines) if json.loads(line)["kind"] == "window"]
        # killed during the third window (repetition 2's easy): its window line never written, its last line cut short
        log.write_text("\n".join(lines[: windows[2] - 2]) + "\n" + lines[windows[2] - 2][:10])
        out.unlink()
        assert measure(["--resume", *argv]) == 2  # the other mode: one line, nothing written
        assert capsys.readouterr().err == f"sdeval: {log}: was measured with other settings (per_task_windows); give the same ones\n"
        assert not out.exists()
        assert measure(["--resume", *argv, "--per-task-windows"]) == 0, capsys.readouterr().err
    record = json.loads(out.read_text())
    assert [(r["id"], r["workload"]["num_requests"], len(r["repetitions"])) for r in record["runs"]] == [
        ("target-only-c2-easy", 16, 2),
        ("target-only-c2-hard", 16, 2),
    ]
    entries = _entries(out)
    starts = [(e["repetition"], e["window_task"]) for e in entries if e["kind"] == "window-start"]
    assert starts == [(0, "easy"), (0, "hard"), (1, "easy"), (1, "easy"), (1, "hard")]  # only the cut window measured again
    again = [e["salt"] for e in entries if e["kind"] == "request" and e["repetition"] == 1 and e["window_task"] == "easy" and not e["warmup"]]
    assert all(salt.endswith("-1 task 0]") for salt in again[-8:])  # its second attempt: salts the cut one never sent


def test_append_goes_on_in_the_mode_the_capture_was_measured_in(tmp_path, capsys):
    prompts = two_task_prompts(tmp_path)
    argv = ["--prompts", str(prompts), *LOAD, "--repetitions", "1"]
    with serve(Simulator(step_delay_s=0.001)) as url, serve(Simulator(speculative=True, step_delay_s=0.001)) as spec_url:
        for name, mode in (("tasks.json", ["--per-task-windows"]), ("mixed.json", [])):
            assert measure(["--arm", f"target-only={url}", *argv, *mode, "-o", str(tmp_path / name)]) == 0
        capsys.readouterr()
        # a capture in per-task windows takes another arm in per-task windows, arm by arm
        assert measure(["--arm", f"speculative={spec_url}", *argv, "--per-task-windows", "--append", "-o", str(tmp_path / "tasks.json")]) == 0
        record = json.loads((tmp_path / "tasks.json").read_text())
        assert [r["id"] for r in record["runs"]] == ["target-only-c2-easy", "target-only-c2-hard", "speculative-c2-easy", "speculative-c2-hard"]
        for task in TASKS:
            run = next(r for r in record["runs"] if r["id"] == f"speculative-c2-{task}")
            assert run["uncertainty"]["speedup"]["baseline_run"] == f"target-only-c2-{task}" and run["measurement"]["order"] == "arm-by-arm"
            assert run["quality"][0]["equality_total"] == 8
        capsys.readouterr()
        # a mixed capture is not continued in per-task windows: one line, nothing measured
        mixed = tmp_path / "mixed.json"
        before = mixed.read_bytes()
        assert measure(["--arm", f"speculative={spec_url}", *argv, "--per-task-windows", "--append", "-o", str(mixed)]) == 2
    log = tmp_path / "mixed.json.capture" / "capture.jsonl"
    assert capsys.readouterr().err == f"sdeval: {log}: was measured with other settings (per_task_windows); give the same ones\n"
    assert mixed.read_bytes() == before


def test_a_buyers_task_mix_is_weighted_over_the_one_task_runs_of_a_load(measured, sdeval, tmp_path):
    path, _, _ = measured
    record = json.loads(path.read_text())
    medians = {r["workload"]["task"]: r["per_task"]["tasks"][0]["speedup"]["median"] for r in record["runs"] if r["arrangement"] == "speculative"}
    profile = tmp_path / "profile.json"
    profile.write_text(
        json.dumps({"requirements_version": "1.1", "buyer": {"name": "Mix"}, "loads": {"concurrency": [2]}, "task_mix": {"easy": 1, "hard": 3}})
    )
    doc = sdeval("assess", path, "--requirements", profile, "--format", "json").json()["requirements"]
    cell = next(c for c in doc["results"] if c["requirement"] == "task-mix")
    # each task's figures from its own run: one speedup over the mix, as a mixed run's per_task block gives it
    # (the simulator's configurations are not pinned, so identity-incomplete gates the status; the figures stand in the message)
    assert "no per-task speedup" not in cell["message"] and "run speculative-c2-easy + speculative-c2-hard: " in cell["message"], cell
    shown = float(cell["message"].split("run speculative-c2-easy + speculative-c2-hard: ")[1].split("x")[0])
    assert shown == pytest.approx(4 / (1 / medians["easy"] + 3 / medians["hard"]), rel=0.01)
