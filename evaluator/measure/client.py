"""One streamed completion (chat, or text on /v1/completions), timed as bytes arrive, and what it proves.

Peers' tools get these wrong, so each is decided here once:
- TTFT is taken at the first chunk with non-empty content or reasoning content, never at the empty,
  role-only first chunk;
- end-to-end latency ends at the chunk that finishes the answer (finish_reason), not at a trailing
  usage-only chunk; the window still runs to the response's last byte;
- output tokens come from the server's final usage only; stream chunks are counted beside them
  (under speculation one chunk carries several tokens), and a missing usage, or a usage below the
  number of non-empty chunks, is a failure of the request, never a fallback;
- an error event inside a 200 stream, a stream that ends without finishing, an HTTP error (a
  redirect too: it is never followed, so no request and no key goes to another URL), a timeout and
  an answer that is not an OpenAI stream are failures, never completions;
- more chunks carrying text than max_tokens allows can never complete (each carries a token or
  more): the request fails at that chunk, so a flood of tiny events costs no more than max_tokens;
- a request that failed before any response byte on a reused (kept-alive) connection never reached
  the server (it closed the idle connection as the request went out: llama.cpp does after its
  keep-alive timeout): it is sent once more on a fresh connection and both attempts are kept.
  Anything after a response byte stays a failure, an answer httpx cannot parse too (its bytes
  came, so the server had the request);
- one deadline (--timeout) covers the whole request: connecting, the headers and every byte of the
  body, an error body too; every body has a byte limit and a compressed one is inflated within it
  (bodies.py); events are split in one pass and any JSON they hold is read without an exception
  (sse.py): what is not an OpenAI chunk, a chunk naming another model, a usage above max_tokens are
  failures of their own kinds.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from .bodies import ACCEPT_ENCODING, ERROR_BODY, EVENT, STREAM, BodyProblem, pieces, read_body
from .sse import EventReader, take_event

# Outcome of a request: "completed" or the failure it counts under.
FAILURES = (
    "http-error",
    "stream-error",
    "truncated",
    "timeout",
    "not-openai",
    "no-usage",
    "usage-disagrees",
    "usage-above-max-tokens",
    "connection-error",
    "malformed-event",
    "model-changed",
    "event-too-large",
    "too-large",
    "bad-encoding",
    "too-many-chunks",
)


@dataclass
class Result:
    outcome: str = "completed"
    detail: str = ""
    sent: float = 0.0  # monotonic clock, when the request was handed to the connection
    first_token: float | None = None
    finished: float | None = None  # the chunk carrying finish_reason
    last_byte: float | None = None
    chunks: int = 0  # every data event
    content_chunks: int = 0  # events carrying non-empty content or reasoning content
    completion_tokens: int | None = None
    prompt_tokens: int | None = None
    model: str | None = None
    finish_reason: str | None = None
    # The answer's text as it came, joined once (text): adding to one string copies all of it
    # on every chunk, 72 s of CPU for a 64 MB answer in 16 kB chunks.
    pieces: list[str] = field(default_factory=list, repr=False)
    status: int | None = None
    server_timings: dict[str, Any] = field(default_factory=dict)  # llama.cpp's per-response timings, kept as sent
    cached_tokens: int | None = None  # usage.prompt_tokens_details.cached_tokens, where the server reports it
    reused_connection: bool | None = None  # went out on a kept-alive connection (None: not known)
    earlier_attempts: list[dict[str, Any]] = field(default_factory=list)  # a stale-connection attempt before this one

    @property
    def text(self) -> str:
        return "".join(self.pieces)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["text"] = "".join(out.pop("pieces"))
        return out


def settle(result: Result, max_tokens: int | None = None) -> Result:
    """After the stream: a completion needs a finish, an end of stream and the server's usage, no
    more output tokens than max_tokens allowed, and no fewer than the chunks that carried text."""
    if result.outcome != "completed":
        return result
    if result.finish_reason is None:
        result.outcome, result.detail = "truncated", f"the stream ended after {result.chunks} chunks without finish_reason"
    elif result.completion_tokens is None:
        result.outcome, result.detail = "no-usage", "the stream carried no usage (stream_options.include_usage was asked for)"
    elif max_tokens is not None and result.completion_tokens > max_tokens:
        result.outcome = "usage-above-max-tokens"
        result.detail = f"usage says {result.completion_tokens} output tokens, over the {max_tokens} max_tokens asked for"
    elif result.completion_tokens < result.content_chunks:
        result.outcome = "usage-disagrees"
        result.detail = f"usage says {result.completion_tokens} output tokens, but {result.content_chunks} chunks carried text"
    return result


# Raised when the connection is lost before a response byte: on a reused connection, the server
# never saw the request. httpcore says "Server disconnected without sending a response" only when
# the connection closed before any response; its other RemoteProtocolErrors (an illegal status
# line, a broken header) mean an answer came.
_STALE = ("RemoteProtocolError: Server disconnected without sending a response", "ReadError", "WriteError")


async def stream_chat(client, url: str, body: dict, headers: dict[str, str], timeout_s: float) -> Result:
    """POST one streamed completion; never raises for anything the server or network does. A
    request lost to a stale kept-alive connection is sent once more on a fresh one (module note)."""
    result = await _attempt(client, url, body, headers, timeout_s)
    if not _lost_to_stale_connection(result):
        return result
    import httpx

    # A client of its own with no pool: the resend cannot land on another stale connection.
    async with httpx.AsyncClient(trust_env=False, limits=httpx.Limits(max_keepalive_connections=0)) as fresh:
        again = await _attempt(fresh, url, body, headers, timeout_s)
    first = {"sent": result.sent, "failed": result.last_byte, "outcome": result.outcome, "detail": result.detail, "reused_connection": True}
    again.earlier_attempts = [first]
    return again


def _http_error(response, raw: bytes) -> str:
    """An HTTP error in a line: a redirect by where it points (never followed), else the body's start."""
    location = response.headers.get("location")
    if 300 <= response.status_code < 400 and location is not None:
        return f"HTTP {response.status_code}: redirects to {location[:200]}, which measure does not follow (give that URL to --arm, if it is the server's)"
    return f"HTTP {response.status_code}: {raw[:200].decode('utf-8', 'replace')}"


def _late(result: Result, done: bool, timeout_s: float) -> str:
    """Why a request ran out of time: an answer that finished but whose stream never ended is said so."""
    if done:
        return f"the stream sent [DONE] but went on past the {timeout_s:g} s deadline without ending"
    if result.finish_reason is not None and result.completion_tokens is not None:
        return f"the answer finished, but the stream neither sent [DONE] nor ended within {timeout_s:g} s"
    return f"no complete answer within {timeout_s:g} s"


def _reason(exc: BaseException) -> str:
    """An httpx error in words: a reset connection's is empty ("ReadError: "), its cause is not."""
    said = exc
    for _ in range(4):  # httpx's error, httpcore's, the OSError under them
        if str(said) or (said.__cause__ or said.__context__) is None:
            break
        said = said.__cause__ or said.__context__  # type: ignore[assignment]
    return f"{type(exc).__name__}: {said}" if str(said) else f"{type(exc).__name__} (no reason given)"


def _lost_to_stale_connection(result: Result) -> bool:
    return result.outcome == "connection-error" and result.status is None and result.reused_connection is True and result.detail.startswith(_STALE)


async def _attempt(client, url: str, body: dict, headers: dict[str, str], timeout_s: float) -> Result:
    import httpx

    result = Result()
    connected = []

    async def trace(event: str, info: dict) -> None:  # httpcore's request trace: a new TCP connection
        if event == "connection.connect_tcp.started":
            connected.append(event)

    result.sent = time.monotonic()
    headers = {**headers, "Accept-Encoding": ACCEPT_ENCODING}
    done = False
    most = body.get("max_tokens") or STREAM.max_bytes  # chunks that may carry text (one token or more each)
    try:
        async with asyncio.timeout(timeout_s):  # the whole request, never one read at a time
            async with client.stream(
                "POST", url, json=body, headers=headers, timeout=httpx.Timeout(timeout_s), extensions={"trace": trace}
            ) as response:
                result.reused_connection = not connected
                result.status = response.status_code
                if response.status_code != 200:
                    raw = await read_body(response, ERROR_BODY, keep_going=False)
                    result.last_byte = time.monotonic()
                    result.outcome, result.detail = "http-error", _http_error(response, raw)
                    return result
                kind = response.headers.get("content-type", "")
                if kind.partition(";")[0].strip().lower() != "text/event-stream":  # a media type is case-insensitive
                    await read_body(response, ERROR_BODY, keep_going=False)
                    result.last_byte = time.monotonic()
                    result.outcome, result.detail = "not-openai", f"answered {kind or 'no content type'}, not an event stream"
                    return result
                reader = EventReader(EVENT.max_bytes)
                # read here, one async layer over httpx's (this loop runs for every chunk of every answer)
                async for piece in pieces(response, STREAM):
                    arrived = time.monotonic()  # when the bytes came, before any parsing
                    for data in reader.feed(piece):
                        result.last_byte = arrived
                        if not done:
                            done = take_event(result, data, arrived)
                    if result.outcome != "completed" or result.content_chunks > most:
                        break  # a failure already: the rest of the stream (maybe endless) is not read
                if result.outcome == "completed" and result.content_chunks > most:
                    result.outcome = "too-many-chunks"
                    result.detail = f"more than {most} chunks carried text, past the {most} max_tokens asked for (each chunk is a token or more)"
    except (TimeoutError, httpx.TimeoutException):
        result.last_byte = time.monotonic()
        result.outcome, result.detail = "timeout", _late(result, done, timeout_s)
        return result
    except BodyProblem as exc:
        result.last_byte = time.monotonic()
        result.outcome, result.detail = exc.kind, exc.detail
        return result
    except httpx.HTTPError as exc:
        result.last_byte = time.monotonic()
        result.reused_connection = not connected
        result.outcome, result.detail = "connection-error", _reason(exc)[:200]
        return result
    return settle(result, body.get("max_tokens"))
