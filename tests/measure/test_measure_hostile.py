"""`sdeval measure` against hostile and broken servers written here (tests/support/hostile_server.py),
one class of issue 36 at a time: each ends in a failed request of a named kind, a finding or one line
and exit 2, never an internal error; the key never leaves its origin or reaches the capture; memory
and time stay bounded (asserted from the child's own resource usage where the issue asks)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("httpx")

from conftest import invoke  # noqa: E402
from support.hostile_measure import FAST, KEY, alternate, arm, run  # noqa: E402
from support.hostile_server import (  # noqa: E402
    Conn,
    Request,
    answer,
    chunk,
    deep,
    dripping,
    event,
    forever,
    gzip_bomb,
    head,
    hostile,
    models,
    stream,
    usage,
    whole,
)

# ------------------------------------------------------------------ a stream that is not OpenAI's


MALFORMED = {
    "null choice": ([chunk(""), {"model": "m", "choices": [None]}], "malformed-event", "choices[0] is null, not an object"),
    "string delta": ([chunk(""), {"model": "m", "choices": [{"delta": "hi"}]}], "malformed-event", 'choices[0].delta is "hi", not an object'),
    "deep event": ([chunk(""), deep(200_000)], "malformed-event", "a stream event nests its JSON deeper than measure reads"),
    "usage above max_tokens": (
        [*answer(3)[:-2], usage(5000), "[DONE]"],
        "usage-above-max-tokens",
        "usage says 5000 output tokens, over the 6 max_tokens asked for",
    ),
    "usage of 10^15": ([*answer(3)[:-2], usage(10**15), "[DONE]"], "usage-above-max-tokens", "usage says 1000000000000000 output tokens"),
    "model changes": (
        [chunk("", model="m"), chunk(" a", model="other"), *answer(2)[1:]],
        "model-changed",
        'chunk 2 names model "other", the stream began as "m"',
    ),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_a_stream_that_is_not_an_openai_answer_is_a_failed_request_of_a_named_kind(tmp_path, case):
    events, outcome, detail = MALFORMED[case]
    with hostile(arm(alternate(stream(events)))) as server:
        result, record, requests = run(tmp_path, server.url)
    assert result.exit_code == 1, result.stderr
    failed = [r for r in requests if r["outcome"] != "completed"]
    assert [r["outcome"] for r in failed] == [outcome, outcome]
    assert all(r["detail"].startswith(detail) for r in failed), failed[0]["detail"]
    assert record["runs"][0]["workload"]["requests_failed"] == 2
    assert f"request 1 {outcome}: {detail}" in result.stderr


def test_an_html_page_that_never_ends_is_a_failed_request_read_only_as_far_as_it_is_shown(tmp_path):
    with hostile(arm(alternate(forever(b"<p>lorem</p>" * 1000)))) as server:
        result, record, requests = run(tmp_path, server.url)
    assert result.exit_code == 1, result.stderr
    assert sorted(r["outcome"] for r in requests) == ["completed", "completed", "not-openai", "not-openai"]
    assert "not-openai: answered text/html, not an event stream" in result.stderr
    # Only its first 64 KiB are read: far from the --timeout of 3 s, and from all of it.
    assert all(r["last_byte"] - r["sent"] < 1.5 for r in requests if r["outcome"] == "not-openai")


def test_a_lone_surrogate_in_content_and_model_is_kept_escaped_and_resume_reads_it(tmp_path):
    events = [chunk("", model="m"), chunk(" a\ud800", model="m"), chunk(" b", "length", model="m"), usage(3), "[DONE]"]
    with hostile(arm(stream(events))) as server:
        result, record, requests = run(tmp_path, server.url)
        assert result.exit_code in (0, 1) and ": request " not in result.stderr, result.stderr
        assert {r["text"] for r in requests} == {" a\ud800 b"}
        (tmp_path / "rec.json").unlink()
        again = invoke("measure", "--resume", *FAST, "-o", tmp_path / "rec.json")
    assert again.exit_code == result.exit_code, again.stderr
    runs = json.loads((tmp_path / "rec.json").read_text())["runs"]
    assert [{**r, "source": None} for r in runs] == [{**r, "source": None} for r in record["runs"]]


# ------------------------------------------------------------------ the key stays at its origin


def test_the_key_goes_to_the_arms_origin_only_and_never_into_the_capture_or_the_terminal(tmp_path):
    def echo(request: Request, conn: Conn) -> None:
        body = f"refused: {request.headers.get('authorization')}".encode()
        conn.send(head(401, "text/plain", Content_Length=str(len(body))) + body)

    def echo_event(request: Request, conn: Conn) -> None:
        stream([chunk(""), {"error": {"message": f"bad key {request.headers.get('authorization')}"}}, "[DONE]"])(request, conn)

    metrics_text = b"# TYPE llamacpp:tokens_predicted_total counter\nllamacpp:tokens_predicted_total 0\n"
    with hostile({"/metrics": whole(metrics_text, content_type="text/plain")}) as elsewhere:
        routes = arm(alternate(echo, alternate(echo_event)))
        with hostile(routes) as server:
            env = {"VENDOR_KEY": KEY}
            result, record, requests = run(tmp_path, server.url, "--api-key-env", "VENDOR_KEY", "--metrics", f"{elsewhere.url}/metrics", env=env)
    assert result.exit_code == 1, result.stderr
    assert {r.headers.get("authorization") for r in server.requests} == {f"Bearer {KEY}"}
    assert {r.headers.get("authorization") for r in elsewhere.requests} == {None}  # another port: another origin
    written = "".join(p.read_text() for p in (tmp_path / "rec.json.capture").iterdir()) + (tmp_path / "rec.json").read_text()
    assert KEY not in written and KEY not in result.stderr + result.stdout
    assert "[API key removed]" in written and "[API key removed]" in result.stderr


def test_a_metrics_origin_gets_its_own_key_only_when_given_one(tmp_path):
    metrics_text = b"# TYPE llamacpp:tokens_predicted_total counter\nllamacpp:tokens_predicted_total 0\n"
    with hostile({"/metrics": whole(metrics_text, content_type="text/plain")}) as elsewhere, hostile(arm(stream(answer(3)))) as server:
        env = {"VENDOR_KEY": KEY, "METRICS_KEY": "mk-other-0011223344"}
        extra = ["--api-key-env", "VENDOR_KEY", "--metrics", f"{elsewhere.url}/metrics", "--metrics-api-key-env", "METRICS_KEY"]
        result, record, requests = run(tmp_path, server.url, *extra, env=env)
    assert result.exit_code in (0, 1), result.stderr
    assert {r.headers.get("authorization") for r in elsewhere.requests} == {"Bearer mk-other-0011223344"}
    assert {r.headers.get("authorization") for r in server.requests} == {f"Bearer {KEY}"}


def test_resume_with_the_key_variable_unset_is_one_line_naming_it(tmp_path):
    with hostile(arm(stream(answer(3)))) as server:
        result, record, requests = run(tmp_path, server.url, "--api-key-env", "VENDOR_KEY", env={"VENDOR_KEY": KEY})
        assert result.exit_code in (0, 1) and record is not None, result.stderr
        (tmp_path / "rec.json").unlink()
        os.environ.pop("VENDOR_KEY", None)
        again = invoke("measure", "--resume", *FAST, "-o", tmp_path / "rec.json")
    assert again.exit_code == 2
    assert again.stderr == "sdeval: --api-key-env VENDOR_KEY: the variable is not set\n"


# ------------------------------------------------------------------ refused at the start, nothing written


START = {
    "models nested 200,000 deep": ({"/v1/models": whole(deep(200_000))}, "did not answer an OpenAI model list"),
    "a model id with an OSC title": ({"/v1/models": models("m\x1b]0;x\x07")}, 'model 1 of the list, "m\\x1b]0;x\\x07", holds the control character'),
    "a model id with a lone surrogate": ({"/v1/models": models("m\ud800")}, "holds the UTF-16 surrogate \\ud800 on its own"),
    "a gzip bomb for a model list": ({"/v1/models": whole(gzip_bomb(256), Content_Encoding="gzip")}, "is over its limit of 4,194,304 bytes"),
    "a model list that never ends": ({"/v1/models": forever(b"[" * 4096, content_type="application/json")}, "is over its limit"),
}


@pytest.mark.parametrize("case", START)
def test_a_server_answer_measure_cannot_use_is_one_line_at_the_start(tmp_path, case):
    routes, message = START[case]
    with hostile({"/v1/chat/completions": stream(answer(3)), **routes}) as server:
        result, record, requests = run(tmp_path, server.url)
    assert result.exit_code == 2
    assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert not (tmp_path / "rec.json").exists() and not (tmp_path / "rec.json.capture").exists()


def test_props_nested_deep_are_passed_over(tmp_path):
    with hostile(arm(stream(answer(3)), **{"/props": whole(deep(200_000))})) as server:
        result, record, requests = run(tmp_path, server.url)
    assert result.exit_code in (0, 1) and ": request " not in result.stderr, result.stderr
    assert [r["outcome"] for r in requests] == ["completed"] * 4


# ------------------------------------------------------------------ bounds, from the child's own usage


def _child(tmp_path: Path, *argv: str) -> tuple[int, str, float, float, int]:
    """`sdeval measure ARGV` in its own process: (exit, stderr, wall s, CPU s, peak RSS in MiB).

    The peak is the child's own VmHWM, read from /proc while it runs: wait4's ru_maxrss would also
    count the pages the child shared with this test process when it was forked (Linux carries the
    old memory's high-water mark over an exec), so a test process grown big by the suite before it
    would seem to be the child's."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "evaluator", "measure", *argv], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env)
    peak_kib, chunks = 0, []
    reader = threading.Thread(target=lambda: chunks.append(proc.stderr.read() if proc.stderr else b""))
    reader.start()
    while True:
        try:
            status_text = Path(f"/proc/{proc.pid}/status").read_text()
        except OSError:
            status_text = ""
        if (hwm := re.search(r"^VmHWM:\s+(\d+) kB", status_text, re.M)) is not None:
            peak_kib = max(peak_kib, int(hwm.group(1)))
        if status_text == "" or re.search(r"^State:\s+Z", status_text, re.M):
            break
        time.sleep(0.01)
    reader.join()
    _, status, usage_ = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, b"".join(chunks).decode(), time.monotonic() - started, usage_.ru_utime + usage_.ru_stime, peak_kib // 1024


def test_a_gzip_bomb_in_an_error_body_and_a_50_mb_event_stay_within_memory_and_time(tmp_path):
    bomb = gzip_bomb(1024)  # 1 GiB inflated
    big = b"data: " + b"x" * (50 * 1024 * 1024) + b"\n\n"

    def huge_event(request: Request, conn: Conn) -> None:
        conn.send(head(200, "text/event-stream") + event(chunk("")) + big)

    chat = alternate(whole(bomb, 500, Content_Encoding="gzip"), alternate(huge_event))
    with hostile(arm(chat)) as server:
        code, err, wall, cpu, rss = _child(tmp_path, "--arm", f"target-only={server.url}", *FAST, "--requests", "6", "-o", str(tmp_path / "r.json"))
    assert code == 1, err
    assert "internal error" not in err
    assert "event-too-large" in err and "http-error: HTTP 500" in err
    assert rss < 400, rss  # inflating the bomb alone would take 1,024 MiB
    assert cpu < 30, cpu  # re-splitting the 50 MB event on every read took 37-62 s


def test_a_model_list_dripped_a_byte_a_second_ends_at_the_stated_deadline(tmp_path):
    with hostile({"/v1/models": dripping(json.dumps({"data": [{"id": "m"}]}).encode(), every_s=0.2)}) as server:
        argv = ["--arm", f"target-only={server.url}", *FAST, "--info-timeout", "1", "-o", str(tmp_path / "r.json")]
        code, err, wall, cpu, rss = _child(tmp_path, *argv)
    assert code == 2
    assert err.endswith("no complete answer within 1 s\n") and err.count("\n") == 1, err
    assert wall < 8  # the interpreter's start, and one second


def test_an_error_body_dripped_is_cut_at_the_requests_deadline(tmp_path):
    with hostile(arm(alternate(dripping(b"x" * 10_000, every_s=0.05, status=500)))) as server:
        started = time.monotonic()
        result, record, requests = run(tmp_path, server.url, timeout="0.5")
        took = time.monotonic() - started
    assert result.exit_code == 1, result.stderr
    assert sorted(r["outcome"] for r in requests) == ["completed", "completed", "timeout", "timeout"]
    assert all(r["detail"] == "no complete answer within 0.5 s" for r in requests if r["outcome"] == "timeout")
    assert took < 5  # the body would take 500 s to drip; each read came in time


# ------------------------------------------------------------------ what the user gives, checked first


@pytest.mark.parametrize(
    ("arm_name", "extra", "message"),
    [
        ("a/b", ["--arrangement", "target-only"], "--arm a/b: an arm's name is 1 to 64 letters, digits, '.', '_' and '-'"),
        ("..", ["--arrangement", "target-only"], "--arm ..: an arm's name is"),
        ("x\x1b[2J", ["--arrangement", "target-only"], "--arm x\\x1b[2J: an arm's name is"),
    ],
)
def test_an_arm_name_that_would_reach_a_file_path_is_refused_before_anything_is_sent(tmp_path, arm_name, extra, message):
    with hostile(arm(stream(answer(3)))) as server:
        result, record, requests = run(tmp_path, server.url, *extra, arm_name=arm_name)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"sdeval: {message}") and result.stderr.count("\n") == 1
    assert server.requests == [] and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("arm_name", "extra", "longest"),
    [
        ("a" * 62, [], "a" * 62 + "-c1"),  # a legal name, but its run at c=1 would be 65 characters
        ("b" * 50, ["--per-task-windows"], "b" * 50 + "-c1-summarisation"),  # the shipped set's longest task label
    ],
)
def test_an_arm_name_whose_run_ids_the_record_cannot_hold_is_refused_before_anything_is_sent(tmp_path, arm_name, extra, longest):
    with hostile(arm(stream(answer(3)))) as server:
        result, record, requests = run(tmp_path, server.url, "--arrangement", "target-only", *extra, arm_name=arm_name)
    assert result.exit_code == 2
    assert result.stderr == (
        f"sdeval: --arm {arm_name}: its runs' ids would be up to {len(longest)} characters ({longest}), past the record's 64; "
        f"give the arm a name of at most {len(arm_name) - (len(longest) - 64)} characters\n"
    )
    assert server.requests == [] and list(tmp_path.iterdir()) == []


def test_an_arm_name_whose_run_ids_just_fit_is_measured(tmp_path):
    with hostile(arm(stream(answer(3)))) as server:
        result, record, requests = run(tmp_path, server.url, "--arrangement", "target-only", arm_name="a" * 61)
    assert result.exit_code == 0, result.stderr
    assert [r["id"] for r in record["runs"]] == ["a" * 61 + "-c1"]


def test_a_prompts_file_measure_cannot_use_is_refused_before_anything_is_sent(tmp_path):
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"prompt": "a\\ud800"}\n')
    with hostile(arm(stream(answer(3)))) as server:
        result, record, requests = run(tmp_path, server.url, "--prompts", prompts)
    assert result.exit_code == 2
    assert (
        result.stderr
        == f'sdeval: {prompts}: line 1: "prompt" holds the UTF-16 surrogate \\ud800 on its own at character 2, which is no character; write the character itself\n'
    )
    assert server.requests == [] and sorted(p.name for p in tmp_path.iterdir()) == ["p.jsonl"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--configuration", "cfg.yaml"], "cfg.yaml: line 1, column 17: the text at /target/model holds the UTF-16 surrogate \\ud800 on its own"),
        (["--vendor", "Acme\x1b]0;t\x07"], '--vendor "Acme\\x1b]0;t\\x07": holds the control character U+001B'),
        (["--offer-id", "o\u202e1"], '--offer-id "o\\u202e1": holds the bidi control U+202E'),
    ],
)
def test_a_configuration_vendor_or_offer_the_record_cannot_hold_is_refused_up_front(tmp_path, extra, message):
    (tmp_path / "cfg.yaml").write_text('target: {model: "m\\ud800"}\n')
    extra = [str(tmp_path / e) if e == "cfg.yaml" else e for e in extra]
    with hostile(arm(stream(answer(3)))) as server:
        result, record, requests = run(tmp_path, server.url, *extra)
    assert result.exit_code == 2
    assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert server.requests == [] and sorted(p.name for p in tmp_path.iterdir()) == ["cfg.yaml"]
