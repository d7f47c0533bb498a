"""`sdeval measure workload RECORD -o FILE`: the workload a measurement sent, as AIPerf's single_turn
JSONL, for a vendor's AIPerf run on equal terms (tests/importers/test_tools_agree_live.py sends it
with AIPerf itself). Against the simulator: two arms, two loads, a prompts file of the user's."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from support.measure_servers import serve  # noqa: E402

from evaluator.measure.cli import main as measure  # noqa: E402
from evaluator.measure.simulator import Simulator  # noqa: E402

PROMPTS = [
    {"id": "a", "task": "prose", "prompt": "Once upon a time"},
    {"id": "b", "task": "code", "prompt": "def add(x, y):"},
    {"id": "c", "task": "prose", "prompt": "The river ran"},
]


@pytest.fixture
def measured(tmp_path, capsys):
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text("".join(json.dumps(p) + "\n" for p in PROMPTS))
    record = tmp_path / "rec.json"
    with serve(Simulator(speculative=True, k=4, step_delay_s=0.0)) as spec, serve(Simulator(step_delay_s=0.0)) as base:
        code = measure(
            [
                *("--arm", f"speculative={spec}", "--arm", f"target-only={base}"),
                *("--endpoint", "completions", "--prompts", str(prompts), "--concurrency", "1,2", "--repetitions", "2"),
                *("--warmup", "1", "--requests", "3", "--max-tokens", "12", "--temperature", "0", "--seed", "5", "--quiet", "-o", str(record)),
            ]
        )
    assert code in (0, 1), capsys.readouterr().err
    capsys.readouterr()
    return record, prompts


def _sent(record) -> list[dict]:
    capture = record.with_name(record.name + ".capture") / "capture.jsonl"
    return [e for e in map(json.loads, capture.read_text().splitlines()) if e["kind"] == "request" and not e["warmup"]]


def test_each_measured_request_once_in_order_behind_a_fresh_salt_with_measures_settings(measured, tmp_path, capsys):
    record, prompts = measured
    out = tmp_path / "aiperf.jsonl"
    assert measure(["workload", str(record), "--prompts", str(prompts), "-o", str(out)]) == 0
    assert capsys.readouterr().err == f"sdeval: wrote 12 requests to {out}\n"
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    sent = [e for e in _sent(record) if e["arm"] == "speculative"]
    order = sorted(sent, key=lambda e: (e["concurrency"], e["repetition"], e["index"]))
    texts = {p["id"]: p["prompt"] for p in PROMPTS}
    nonce = order[0]["salt"][1:9]
    fresh = lines[0]["text"][1:9]
    assert re.fullmatch(r"[0-9a-f]{8}", fresh) and fresh != nonce
    # the same texts behind the same salts but for the nonce: the same token counts, none of it cached
    assert [line["text"] for line in lines] == [f"{e['salt'].replace(nonce, fresh)} {texts[e['prompt']]}" for e in order]
    assert all(line["output_length"] == 12 and line["extra"] == {"temperature": 0.0, "top_p": 1.0, "seed": 5, "n": 1} for line in lines)
    # one load only
    one = tmp_path / "c2.jsonl"
    assert measure(["workload", str(record), "--prompts", str(prompts), "--concurrency", "2", "-o", str(one)]) == 0
    assert [json.loads(line)["text"][10:] for line in one.read_text().splitlines()] == [
        f"{e['salt'][10:]} {texts[e['prompt']]}" for e in order if e["concurrency"] == 2
    ]


def test_refused_in_one_line_without_the_measured_prompts_file_or_over_an_existing_output(measured, tmp_path, capsys):
    record, prompts = measured
    out = tmp_path / "aiperf.jsonl"
    assert measure(["workload", str(record), "-o", str(out)]) == 2
    assert capsys.readouterr().err == f"sdeval: {record}: measured with the prompts file prompts.jsonl; give it with --prompts\n"
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps(PROMPTS[0]) + "\n")
    assert measure(["workload", str(record), "--prompts", str(other), "-o", str(out)]) == 2
    assert re.fullmatch(rf"sdeval: {re.escape(str(other))}: sha256 [0-9a-f]{{12}} is not the prompts file {re.escape(str(record))} measured \(prompts.jsonl, sha256 [0-9a-f]{{12}}\)\n", capsys.readouterr().err)  # fmt: skip
    assert not out.exists()
    out.write_text("mine")
    assert measure(["workload", str(record), "--prompts", str(prompts), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"sdeval: {out}: ") and len(err.splitlines()) == 1 and out.read_text() == "mine"
    assert measure(["workload", str(tmp_path / "none.json"), "-o", str(tmp_path / "x.jsonl")]) == 2
    assert "no capture beside it" in capsys.readouterr().err
    assert measure(["workload", str(record), "--prompts", str(prompts), "--concurrency", "7", "-o", str(tmp_path / "y.jsonl")]) == 2
    assert capsys.readouterr().err == f"sdeval: {record}: no measured request at concurrency 7\n"


def test_a_capture_of_another_shape_is_one_line(measured, tmp_path, capsys):
    record, prompts = measured
    log = record.with_name(record.name + ".capture") / "capture.jsonl"
    kept = [json.loads(line) for line in log.read_text().splitlines()]
    for e in kept:
        e.pop("salt", None)  # a capture whose requests carry no salt
    log.write_text("".join(json.dumps(e) + "\n" for e in kept))
    assert measure(["workload", str(record), "--prompts", str(prompts), "-o", str(tmp_path / "z.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"sdeval: {log.parent}: not a capture this sdeval measure reads") and len(err.splitlines()) == 1
