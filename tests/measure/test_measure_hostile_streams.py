"""`sdeval measure` against servers that break HTTP or the event stream in ways the first hostile
set (test_measure_hostile.py) does not: redirects, informational answers, broken framing, error
events in the SSE and llama.cpp forms, a BOM, more choices than asked for, floods of tiny events,
streams that never end. Each ends in a completed request where the answer was whole, or a failed
one of a named kind with a one-line reason; never an internal error, never past --timeout."""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("httpx")

from support.hostile_measure import KEY, alternate, arm, run  # noqa: E402
from support.hostile_server import Conn, Request, answer, chunk, event, head, hostile, stream, usage  # noqa: E402

ANSWER = b"".join(event(e) for e in answer(3))
SSE_HEAD = head(200, "text/event-stream")


def raw(data: bytes):
    """Sends `data` as it is (status line and headers included), then closes."""

    def script(request: Request, conn: Conn) -> None:
        conn.send(data)

    return script


def sse(body: bytes):
    return raw(SSE_HEAD + body)


def _close_delimited(status_line: bytes, content_type: bytes = b"text/event-stream") -> bytes:
    return status_line + b"\r\nContent-Type: " + content_type + b"\r\nConnection: close\r\n\r\n"


# ------------------------------------------------------------------ answers that are whole


WHOLE = {
    "100 Continue before the answer": raw(b"HTTP/1.1 100 Continue\r\n\r\n" + _close_delimited(b"HTTP/1.1 200 OK") + ANSWER),
    "103 Early Hints before the answer": raw(b"HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n" + _close_delimited(b"HTTP/1.1 200 OK") + ANSWER),
    "an HTTP/1.0 body ended by the close": raw(b"HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + ANSWER),
    "a media type in capitals, with a charset": raw(_close_delimited(b"HTTP/1.1 200 OK", b"Text/Event-Stream; charset=UTF-8") + ANSWER),
    "a BOM before the first event": sse(b"\xef\xbb\xbf" + b"".join(event(e) for e in answer(3)[1:])),  # no role chunk: the BOM'd event has text
    "[DONE] twice, then more events": stream([*answer(3), "[DONE]", chunk(" late"), usage(6)]),
    "a running usage in every chunk": stream([chunk("", usage={"completion_tokens": 0}), *answer(3)[1:-2], usage(2), usage(3), "[DONE]"]),
    "comments, id and retry fields between events": sse(b": hi\nid: 1\nretry: 10\n\n" + ANSWER.replace(b"\n\n", b"\nid: 2\n\n: ping\n\n")),
}


@pytest.mark.parametrize("case", WHOLE)
def test_an_answer_that_is_whole_however_it_is_framed_is_completed(tmp_path, case):
    with hostile(arm(WHOLE[case])) as server:
        result, record, requests = run(tmp_path, server.url)
    assert [r["outcome"] for r in requests] == ["completed"] * 4, requests[0]["detail"]
    assert {(r["text"], r["completion_tokens"]) for r in requests} == {(" w0 w1 w2", 3)}
    assert record["runs"][0]["workload"]["requests_failed"] == 0


def test_invalid_utf8_in_an_event_is_read_as_the_sse_format_says_replaced_not_refused(tmp_path):
    body = event(chunk("")) + b'data: {"model": "m", "choices": [{"delta": {"content": "a\xff"}, "finish_reason": "length"}]}\n\n'
    with hostile(arm(sse(body + event(usage(1)) + event("[DONE]")))) as server:
        result, record, requests = run(tmp_path, server.url)
    assert {(r["outcome"], r["text"]) for r in requests} == {("completed", "a\ufffd")}


# ------------------------------------------------------------------ answers that fail, by kind


def _error_event(request: Request, conn: Conn) -> None:
    conn.send(SSE_HEAD + event(chunk("")) + b'event: error\ndata: {"message": "overloaded", "code": 503}\n\n')


def _llama_error(request: Request, conn: Conn) -> None:  # llama.cpp's server_sent_event(sink, "error", ...)
    conn.send(SSE_HEAD + event(chunk(" a")) + b'error: {"code":400,"message":"the request exceeds the available context size","type":"x"}\n\n')


def _tiny_flood(request: Request, conn: Conn) -> None:
    conn.send(SSE_HEAD + event(chunk("")))
    piece = event({"choices": [{"delta": {"content": "x"}}]}) * 2000
    while True:  # 100,000s of events a second, for ever
        conn.send(piece)


TWO_CHOICES = {"model": "m", "choices": [{"index": 0, "delta": {"content": " a"}}, {"index": 1, "delta": {"content": " b"}}]}
CHUNKED = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"

FAILING = {
    "an `event: error` event": (_error_event, "stream-error", "error event inside the 200 stream: overloaded"),
    "llama.cpp's `error:` line": (_llama_error, "stream-error", "error event inside the 200 stream: the request exceeds the available context size"),
    "two choices, though n=1": (
        stream([chunk(""), TWO_CHOICES, *answer(2)[1:]]),
        "malformed-event",
        "chunk 2 carries 2 choices; measure asked for one (n=1)",
    ),
    "a choice of index 1": (
        stream([chunk(""), {"model": "m", "choices": [{"index": 1, "delta": {"content": " a"}}]}, *answer(2)[1:]]),
        "malformed-event",
        "choices[0] has index 1; measure asked for one choice (n=1), index 0",
    ),
    "a flood of tiny events": (_tiny_flood, "too-many-chunks", "more than 6 chunks carried text, past the 6 max_tokens asked for"),
    "a Content-Length past the body": (
        raw(SSE_HEAD.replace(b"\r\n\r\n", f"\r\nContent-Length: {len(ANSWER) + 100}\r\n\r\n".encode()) + ANSWER),
        "connection-error",
        "RemoteProtocolError: peer closed connection without sending complete message body",
    ),
    "a Content-Length short of the body": (
        raw(SSE_HEAD.replace(b"\r\n\r\n", f"\r\nContent-Length: {len(ANSWER) - 40}\r\n\r\n".encode()) + ANSWER),
        "no-usage",
        "the stream carried no usage",
    ),
    "chunked encoding broken mid-stream": (
        raw(CHUNKED + b"64\r\n" + ANSWER[:100] + b"\r\nzz\r\n"),
        "connection-error",
        "RemoteProtocolError: illegal chunk header",
    ),
    "a status line that is not HTTP": (raw(b"\x1b]0;pwned\x07 hello\r\n\r\n"), "connection-error", "RemoteProtocolError: illegal status line"),
    "a 101 no one asked for": (
        raw(b"HTTP/1.1 101 Switching\r\nUpgrade: x\r\nConnection: upgrade\r\n\r\n" + ANSWER),
        "connection-error",
        "RemoteProtocolError",
    ),
    "a 204 with a body": (raw(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n" + ANSWER), "http-error", "HTTP 204: "),
}


@pytest.mark.parametrize("case", FAILING)
def test_an_answer_that_breaks_http_or_the_stream_is_a_failed_request_of_a_named_kind(tmp_path, case):
    bad, outcome, detail = FAILING[case]
    started = time.monotonic()
    with hostile(arm(alternate(bad))) as server:
        result, record, requests = run(tmp_path, server.url)
    assert result.exit_code == 1, result.stderr
    assert [r["outcome"] for r in requests] == ["completed", outcome, "completed", outcome]
    assert all(r["detail"].startswith(detail) for r in requests[1::2]), requests[1]["detail"]
    assert record["runs"][0]["workload"]["requests_failed"] == 2
    assert not {"\x1b", "\x07"} & set(result.stderr)
    assert time.monotonic() - started < 3  # each failure is found at once, never at the --timeout of 3 s


# ------------------------------------------------------------------ streams that never end


def _then_forever(body: bytes, every: bytes, gap_s: float):
    def script(request: Request, conn: Conn) -> None:
        conn.send(SSE_HEAD + body)
        while True:
            conn.send(every)
            conn.pause(gap_s)

    return script


NEVER_ENDING = {
    "keep-alive comments for ever": (_then_forever(event(chunk("")), b": ping\n\n", 0.05), "no complete answer within 0.6 s"),
    "the first byte at once, then nothing": (_then_forever(b": x\n", b"", 60), "no complete answer within 0.6 s"),
    "a whole answer, then neither [DONE] nor an end": (
        _then_forever(b"".join(event(e) for e in answer(3)[:-1]), b"", 60),
        "the answer finished, but the stream neither sent [DONE] nor ended within 0.6 s",
    ),
    "events after [DONE], for ever": (
        _then_forever(ANSWER, event(chunk(" more")), 0.01),
        "the stream sent [DONE] but went on past the 0.6 s deadline",
    ),
}


@pytest.mark.parametrize("case", NEVER_ENDING)
def test_a_stream_that_never_ends_is_a_timeout_at_the_deadline_that_says_what_came(tmp_path, case):
    bad, detail = NEVER_ENDING[case]
    started = time.monotonic()
    with hostile(arm(alternate(bad))) as server:
        result, record, requests = run(tmp_path, server.url, timeout="0.6")
    took = time.monotonic() - started
    assert result.exit_code == 1, result.stderr
    assert [r["outcome"] for r in requests] == ["completed", "timeout", "completed", "timeout"]
    assert all(r["detail"].startswith(detail) for r in requests[1::2]), requests[1]["detail"]
    assert all(0.6 <= r["last_byte"] - r["sent"] < 1.0 for r in requests[1::2])
    assert took < 3


# ------------------------------------------------------------------ redirects, and the key


def test_a_redirect_to_another_origin_is_never_followed_and_the_key_never_goes_there(tmp_path):
    with hostile({"*": stream(answer(3))}) as elsewhere:
        location = f"{elsewhere.url}/v1/chat/completions"

        def redirect(request: Request, conn: Conn) -> None:
            conn.send(b"HTTP/1.1 307 Temporary Redirect\r\nLocation: " + location.encode() + b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

        with hostile(arm(alternate(redirect))) as server:
            result, record, requests = run(tmp_path, server.url, "--api-key-env", "VENDOR_KEY", env={"VENDOR_KEY": KEY})
    assert result.exit_code == 1, result.stderr
    assert elsewhere.requests == []
    assert [r["outcome"] for r in requests] == ["completed", "http-error", "completed", "http-error"]
    assert requests[1]["detail"] == (
        f"HTTP 307: redirects to {location}, which measure does not follow (give that URL to --arm, if it is the server's)"
    )


@pytest.mark.parametrize("status", [301, 302, 308])
def test_a_redirect_loop_is_one_failed_request_each(tmp_path, status):
    def loop(request: Request, conn: Conn) -> None:
        conn.send(f"HTTP/1.1 {status} X\r\nLocation: /v1/chat/completions\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())

    with hostile(arm(alternate(loop))) as server:
        result, record, requests = run(tmp_path, server.url)
    assert [r["outcome"] for r in requests] == ["completed", "http-error"] * 2
    assert len([r for r in server.requests if r.path == "/v1/chat/completions"]) == 4  # each sent once


# ------------------------------------------------------------------ nothing completed


def test_when_no_request_completes_the_one_line_says_why(tmp_path):
    events = [chunk(""), {"error": {"message": "overloaded \x1b[2J"}}, "[DONE]"]
    with hostile(arm(stream(events))) as server:
        result, record, requests = run(tmp_path, server.url)
    assert result.exit_code == 2 and record is None
    capture = tmp_path / "rec.json.capture"
    assert result.stderr == (
        "sdeval: no request completed (4 of 4 failed: 4 stream-error; the first: stream-error: "
        "error event inside the 200 stream: overloaded \\x1b[2J), so there is nothing to write a record about; "
        f"every attempt is in {capture}\n"
    )
    assert len(requests) == 4 and json.loads((capture / "capture.jsonl").read_text().splitlines()[0])["kind"] == "session"


@pytest.mark.parametrize("path", ["/v1/models", "/metrics"])
def test_a_redirect_of_the_model_list_or_the_scrape_is_one_line_naming_where_it_points(tmp_path, path):
    def redirect(request: Request, conn: Conn) -> None:
        conn.send(
            b"HTTP/1.1 301 Moved\r\nLocation: https://elsewhere.example" + path.encode() + b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )

    with hostile({**arm(stream(answer(3))), path: redirect}) as server:
        result, record, requests = run(tmp_path, server.url, "--metrics", f"{server.url}/metrics")
    where = f"{server.url}/v1/models" if path == "/v1/models" else f"--metrics {server.url}/metrics"
    assert result.exit_code == 2
    assert result.stderr == (
        f'sdeval: {where}: HTTP 301: redirects to "https://elsewhere.example{path}", which measure does not follow '
        "(give that URL, if it is the server's)\n"
    )
