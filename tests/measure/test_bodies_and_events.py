"""Reading a hostile server's answers: one deadline per request, a byte limit per kind, compressed
bodies inflated within that limit, an event stream split in one pass, and any JSON an event holds
turned into a completion or a failure of a named kind, never an exception."""

from __future__ import annotations

import asyncio
import gzip
import json
import resource
import time
import tracemalloc
import zlib

import pytest

httpx = pytest.importorskip("httpx")

from support.hostile_server import deep, dripping, forever, gzip_bomb, hostile, whole  # noqa: E402

from evaluator.measure import bodies  # noqa: E402
from evaluator.measure.bodies import MODELS, BodyProblem, Kind  # noqa: E402
from evaluator.measure.client import Result  # noqa: E402
from evaluator.measure.sse import EventReader, take_event  # noqa: E402


def _get(url: str, kind: Kind = MODELS, deadline_s: float = 5.0) -> tuple[int, bytes]:
    async def go():
        async with httpx.AsyncClient(trust_env=False) as client:
            return await bodies.get(client, url, {}, kind, deadline_s)

    return asyncio.run(go())


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_a_compression_bomb_is_stopped_at_the_limit_with_memory_to_match(coding):
    bomb = gzip_bomb(1024, coding)  # 1 GiB inflated, about 1 MB sent
    with hostile({"/v1/models": whole(bomb, Content_Encoding=coding)}) as server:
        tracemalloc.start()
        try:
            with pytest.raises(BodyProblem) as caught:
                _get(f"{server.url}/v1/models")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert caught.value.kind == "too-large"
    assert str(caught.value) == f"the model list (/v1/models) is over its limit of {MODELS.max_bytes:,} bytes"
    assert peak < 3 * MODELS.max_bytes  # the limit, the bytes read and one inflated piece; never the bomb


def test_a_body_dripped_a_byte_at_a_time_ends_at_the_one_deadline():
    with hostile({"/metrics": dripping(b'{"data": []}' * 100, every_s=0.05)}) as server:
        started = time.monotonic()
        with pytest.raises(BodyProblem) as caught:
            _get(f"{server.url}/metrics", deadline_s=0.6)
    assert caught.value.kind == "timeout" and str(caught.value) == "no complete answer within 0.6 s"
    assert time.monotonic() - started < 2  # every single read came in time: only an overall deadline stops it


def test_a_body_that_never_ends_is_stopped_at_the_limit():
    with hostile({"/v1/models": forever(b"<p>" * 10_000)}) as server:
        with pytest.raises(BodyProblem) as caught:
            _get(f"{server.url}/v1/models")
    assert caught.value.kind == "too-large"


def test_an_error_body_is_read_only_as_far_as_it_is_shown():
    with hostile({"/metrics": forever(b"x" * 1000, status=503)}) as server:
        status, body = _get(f"{server.url}/metrics")
    assert status == 503 and body == b"x" * bodies.ERROR_BODY.max_bytes


@pytest.mark.parametrize(
    ("encoding", "encode"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda b: zlib.compress(b)[2:-4]),  # raw deflate, as some servers send it
        ("identity", lambda b: b),
    ],
)
def test_compressed_bodies_are_read_whole(encoding, encode):
    body = json.dumps({"data": [{"id": f"m{i}"} for i in range(5000)]}).encode()
    with hostile({"/v1/models": whole(encode(body), Content_Encoding=encoding)}) as server:
        assert _get(f"{server.url}/v1/models") == (200, body)


@pytest.mark.parametrize(
    ("encoding", "body", "message"),
    [
        ("br", b"\x0b\x02\x80{}\x03", "answered in Content-Encoding 'br', which measure did not ask for (gzip, deflate)"),
        ("gzip", b"not gzip at all", "the gzip body cannot be inflated (Error -3 while decompressing data: incorrect header check)"),
        ("gzip", gzip.compress(b"{}", mtime=0)[:-6], "the gzip body ends before its end"),
        ("gzip", gzip.compress(b"{}", mtime=0) + b"more", "gzip data goes on after its end"),
    ],
)
def test_an_encoding_not_asked_for_or_broken_is_a_named_problem(encoding, body, message):
    with hostile({"/v1/models": whole(body, Content_Encoding=encoding)}) as server:
        with pytest.raises(BodyProblem) as caught:
            _get(f"{server.url}/v1/models")
    assert caught.value.kind == "bad-encoding" and str(caught.value) == message


# ------------------------------------------------------------------ the event stream


def _split(reader: EventReader, data: bytes, size: int) -> list[bytes]:
    return [e for i in range(0, len(data), size) for e in reader.feed(data[i : i + size])]


def test_events_end_at_lf_crlf_or_cr_wherever_the_reads_split_them():
    text = b': comment\r\ndata: {"a": 1}\r\n\r\nevent: x\rdata:two\rdata: lines\r\rdata: [DONE]\n\n'
    for size in range(1, len(text) + 1):
        assert _split(EventReader(), text, size) == [b'{"a": 1}', b"two\nlines", b"[DONE]"], size


def test_a_50_mb_event_is_read_in_one_pass():
    payload = b"data: " + b"x" * (50 * 1024 * 1024) + b"\n\n"
    reader = EventReader(max_event_bytes=64 * 1024 * 1024)
    before = resource.getrusage(resource.RUSAGE_THREAD)
    (got,) = _split(reader, payload, 65536)
    after = resource.getrusage(resource.RUSAGE_THREAD)
    assert len(got) == 50 * 1024 * 1024
    # Re-splitting the whole buffer on every 64 kB read (the old reader) took 37-62 s here.
    assert (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime) < 10


def test_an_event_over_its_limit_is_a_named_failure_before_it_is_all_read():
    reader = EventReader(max_event_bytes=1000)
    reader.feed(b"data: " + b"x" * 900)
    with pytest.raises(BodyProblem) as caught:
        reader.feed(b"x" * 200)
    assert caught.value.kind == "event-too-large"


def _taken(*events: object) -> Result:
    result = Result()
    for e in events:
        data = e if isinstance(e, bytes) else json.dumps(e).encode()
        if take_event(result, data, 1.0):
            break
    return result


@pytest.mark.parametrize(
    ("events", "outcome", "detail"),
    [
        ([{"choices": [None]}], "malformed-event", "choices[0] is null, not an object"),
        ([{"choices": [{"delta": "hi"}]}], "malformed-event", 'choices[0].delta is "hi", not an object'),
        ([{"choices": {"0": {}}}], "malformed-event", "choices is an object, not an array"),
        ([{"choices": [{"delta": {"content": 5}}]}], "malformed-event", "choices[0].delta.content is 5, not text"),
        ([{"choices": [{"delta": {}, "finish_reason": ["stop"]}]}], "malformed-event", "choices[0].finish_reason is an array, not text"),
        ([{"usage": {"completion_tokens": "7"}}], "malformed-event", 'usage.completion_tokens is "7", not a whole number'),
        ([{"usage": {"completion_tokens": True}}], "malformed-event", "usage.completion_tokens is true, not a whole number"),
        ([{"usage": {"completion_tokens": -1}}], "malformed-event", "usage.completion_tokens is -1, not a whole number"),
        ([{"usage": []}], "malformed-event", "usage is an array, not an object"),
        ([{"model": {"id": "m"}}], "malformed-event", "the chunk's model is an object, not text"),
        ([[1, 2]], "malformed-event", "a stream event is an array, not a JSON object"),
        ([deep(200_000)], "malformed-event", "a stream event nests its JSON deeper than measure reads"),
        ([b'{"choices": [' + b"1" * 5000 + b"]}"], "malformed-event", 'a stream event is not JSON: \'{"choices": [1111111'),
        ([{"model": "a", "choices": []}, {"model": "b", "choices": []}], "model-changed", 'chunk 2 names model "b", the stream began as "a"'),
        ([{"error": {"message": deep(100_000).decode()}}], "stream-error", "error event inside the 200 stream: [[["),
        ([{"error": [{"x": 1}]}], "stream-error", "error event inside the 200 stream: an array"),
    ],
)
def test_what_is_not_an_openai_chunk_is_a_failure_of_a_named_kind(events, outcome, detail):
    result = _taken(*events)
    assert result.outcome == outcome
    assert result.detail.startswith(detail), result.detail


def test_a_chunk_with_an_empty_model_names_no_model():
    result = _taken({"model": "", "choices": []}, {"model": "gpt", "choices": [{"delta": {"content": "a"}, "finish_reason": "stop"}]})
    assert result.outcome == "completed" and result.model == "gpt"


def test_any_string_and_any_depth_elsewhere_are_taken_as_sent():
    result = _taken(
        {"model": "m\ud800", "choices": [{"delta": {"content": "a\ud800\x1b[2J"}}], "timings": {"n": 1, "deep": json.loads(deep(500))}},
        {"model": "m\ud800", "choices": [{"delta": {}, "finish_reason": "length"}], "usage": {"completion_tokens": 10**15, "prompt_tokens": 3}},
    )
    assert result.outcome == "completed"
    assert result.text == "a\ud800\x1b[2J" and result.model == "m\ud800"
    assert result.server_timings == {"n": 1}  # kept only as flat numbers and texts
    assert result.completion_tokens == 10**15  # a whole number; settle() compares it with max_tokens


def test_events_of_lf_only_reads_are_those_the_sse_format_says_wherever_the_reads_split_them():
    # Reads holding no CR take the reader's split-at-LF path: the same events as line by line.
    text = b': keep-alive\ndata: {"a": 1}\n\nid: 7\nevent: x\ndata:two\ndata:  lines\n\ndata\n\nretry: 5\n\ndata: [DONE]\n\n'
    for size in range(1, len(text) + 1):
        assert _split(EventReader(), text, size) == [b'{"a": 1}', b"two\n lines", b"", b"[DONE]"], size


def test_a_data_line_over_the_limit_in_one_read_is_a_named_failure():
    with pytest.raises(BodyProblem) as caught:
        EventReader(max_event_bytes=1000).feed(b"data: " + b"x" * 2000 + b"\n\n")
    assert caught.value.kind == "event-too-large"


def test_reasoning_alone_or_beside_content_is_text_of_the_chunk():
    result = _taken(
        {"choices": [{"delta": {"role": "assistant", "content": ""}}]},
        {"choices": [{"delta": {"reasoning_content": "think"}}]},
        {"choices": [{"delta": {"reasoning": " more"}}]},
        {"choices": [{"delta": {"content": " a", "reasoning_content": "b", "reasoning": "c"}, "finish_reason": "stop"}]},
    )
    assert result.outcome == "completed"
    assert (result.text, result.content_chunks, result.chunks) == ("think more abc", 3, 4)


@pytest.mark.parametrize("key", ["reasoning_content", "reasoning"])
def test_reasoning_that_is_not_text_is_a_malformed_chunk(key):
    result = _taken({"choices": [{"delta": {key: ["x"]}}]})
    assert (result.outcome, result.detail) == ("malformed-event", f"choices[0].delta.{key} is an array, not text")


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (b' {"choices": []} ', {"choices": []}),  # whitespace around the value, as json.loads allows
        (b'{"choices": []}\r\n\t', {"choices": []}),
        (b'{"model": "a", "model": "b"}', {"model": "b"}),  # a repeated key: the last, as json.loads reads it
        (b'{"timings": {"x": NaN}}', None),  # NaN is read (json.loads does); flat_scalars keeps numbers
    ],
)
def test_an_event_is_read_as_json_loads_reads_it(data, value):
    from evaluator.measure.sse import parse

    got = parse(data)
    if value is None:
        assert got["timings"]["x"] != got["timings"]["x"]  # NaN
    else:
        assert got == value


@pytest.mark.parametrize("data", [b'{"a": 1} x', b'{"a": 1}{"b": 2}', b"\xef\xbb\xbf{}", b"", b"{'a': 1}"])
def test_what_json_loads_refuses_is_not_json(data):
    from evaluator.measure.sse import Malformed, parse

    with pytest.raises(Malformed, match="is not JSON"):
        parse(data)


def test_the_limit_counts_each_event_alone_when_one_read_ends_one_and_starts_the_next():
    reader = EventReader(max_event_bytes=1000)
    assert reader.feed(b"data: " + b"x" * 900 + b"\n\ndata: " + b"y" * 500) == [b"x" * 900]
    assert reader.feed(b"y" * 400 + b"\n\n") == [b"y" * 900]


@pytest.mark.parametrize("start", [b"", b"\xef\xbb\xbf"])
def test_a_bom_at_the_start_of_the_stream_is_dropped_wherever_the_reads_split_it(start):
    text = start + b'data: {"a": 1}\n\ndata: \xef\xbb\xbf2\n\n'  # (a BOM later is data)
    for size in range(1, len(text) + 1):
        assert _split(EventReader(), text, size) == [b'{"a": 1}', b"\xef\xbb\xbf2"], size


def test_error_events_in_the_sse_and_llama_cpp_forms_become_error_data_other_types_stay_data():
    text = (
        b'event: error\ndata: {"message": "overloaded"}\n\n'
        b'error: {"code": 400, "message": "too long"}\n\n'
        b"event:error\ndata: plain words\n\n"
        b'event: error\ndata: {"error": {"message": "inner"}}\n\n'
        b'event: ping\ndata: {"a": 1}\n\n'
        b'data: {"b": 2}\n\n'
    )
    for size in (1, 7, len(text)):
        got = [json.loads(e) for e in _split(EventReader(), text, size)]
        assert got == [
            {"error": {"message": "overloaded"}},
            {"error": {"message": "too long"}},
            {"error": {"message": "plain words"}},
            {"error": {"message": "inner"}},
            {"a": 1},
            {"b": 2},
        ], size
    result = _taken(*_split(EventReader(), b"error: not json \x1b[2J\n\n", 4))
    assert (result.outcome, result.detail) == ("stream-error", "error event inside the 200 stream: not json \x1b[2J")


def test_an_answer_of_many_large_chunks_costs_its_size_not_its_size_times_its_chunks():
    piece = json.dumps({"choices": [{"delta": {"content": "x" * 16384}}]}).encode()
    result = Result()
    before = time.process_time()
    for _ in range(2048):  # 32 MB of text in 16 kB chunks
        take_event(result, piece, 1.0)
    text = result.to_json()["text"]
    took = time.process_time() - before
    assert len(text) == 2048 * 16384 and result.content_chunks == 2048
    assert took < 5, took  # adding each chunk to one string copied it all every time: 18 s here
