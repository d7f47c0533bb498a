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
