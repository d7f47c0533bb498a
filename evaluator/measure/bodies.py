"""Reading what a server answers, bounded: one overall deadline per request (connecting, the
headers and the whole body, never per read), a byte limit per kind of answer, and a compressed
body inflated with a limit on the inflated size, never more than one piece at a time in memory.

The body is read with httpx's own streaming API (`Response.aiter_raw`, the bytes as sent) and
inflated here with zlib's bounded `decompress(data, max_length)`: httpx's decoders inflate each
network read whole, so 64 kB of a gzip bomb would become some 64 MB before any limit could look.
Only gzip and deflate are asked for (Accept-Encoding); any other encoding is refused.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

from .._infra.safe_text import shown
from ..importers.vllm_metrics import MAX_SCRAPE_BYTES

ACCEPT_ENCODING = "gzip, deflate"
_PIECE = 64 * 1024  # the most one inflating step may produce


@dataclass(frozen=True)
class Kind:
    """One kind of answer: what it is called, and its byte limit (inflated)."""

    name: str
    max_bytes: int


MODELS = Kind("the model list (/v1/models)", 4 * 1024 * 1024)
PROPS = Kind("the server's /props", 4 * 1024 * 1024)
METRICS = Kind("the /metrics scrape", MAX_SCRAPE_BYTES)
# An answer that is already a failure (an HTTP error, an HTML page): only its start is shown.
ERROR_BODY = Kind("an error body", 64 * 1024)
# A whole event stream, and one event of it (a chunk carries a few tokens; a megabyte is far more).
STREAM = Kind("the event stream", 64 * 1024 * 1024)
EVENT = Kind("one stream event", 4 * 1024 * 1024)
INFO_DEADLINE_S = 30.0  # /v1/models, /props and /metrics, each (--info-timeout)


class BodyProblem(Exception):
    """An answer that cannot be read within its bounds; `kind` names the failure."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind  # "too-large", "bad-encoding", "timeout" or "redirect"
        self.detail = detail


class Inflater:
    """Undoes a Content-Encoding (identity, gzip or deflate) piece by piece, never yielding more than
    _PIECE bytes at once, so a caller counting what it keeps stops a bomb at its limit."""

    def __init__(self, content_encoding: str) -> None:
        codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip() and c.strip().lower() != "identity"]
        if len(codings) > 1:
            raise BodyProblem(
                "bad-encoding", f"answered in Content-Encoding {content_encoding!r}: more than one coding, which measure did not ask for"
            )
        self.coding = codings[0] if codings else None
        if self.coding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif self.coding == "deflate":
            self._z = zlib.decompressobj()  # zlib-wrapped, as RFC 9110 says; raw deflate is retried below
        elif self.coding is not None:
            raise BodyProblem("bad-encoding", f"answered in Content-Encoding {self.coding!r}, which measure did not ask for ({ACCEPT_ENCODING})")
        # deflate: what was fed before any output, to read again as raw deflate if the zlib header fails
        self._start: bytes | None = b"" if self.coding == "deflate" else None

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self.coding is None:
            yield data
            return
        pending = data
        while pending:
            if self._z.eof:
                if pending.strip(b"\0\r\n\t "):
                    raise BodyProblem("bad-encoding", f"{self.coding} data goes on after its end")
                return
            try:
                piece = self._z.decompress(pending, _PIECE)
            except zlib.error as exc:
                if self._start is not None:  # some servers send raw deflate, without the zlib header
                    pending, self._start = self._start + pending, None
                    self._z = zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise BodyProblem("bad-encoding", f"the {self.coding} body cannot be inflated ({exc})") from None
            if self._start is not None:
                self._start = None if piece else self._start + pending[: len(pending) - len(self._z.unconsumed_tail)]
            if piece:
                yield piece
            pending = self._z.unconsumed_tail or self._z.unused_data

    def finish(self) -> None:
        if self.coding is not None and not self._z.eof:
            raise BodyProblem("bad-encoding", f"the {self.coding} body ends before its end")


async def pieces(response, kind: Kind, *, keep_going: bool = True) -> AsyncIterator[bytes]:
    """The body of `response` (inflated) in pieces, at most `kind.max_bytes` of it: past the limit,
    BodyProblem("too-large"), or, with keep_going=False, the end (what was read is kept: an error
    body is shown by its start). The bytes sent are bounded too: a compressed stream that inflates
    to nothing cannot run on."""
    inflater = Inflater(response.headers.get("content-encoding", ""))
    sent = kept = 0
    as_sent = inflater.coding is None
    async for raw in response.aiter_raw():
        sent += len(raw)
        for piece in (raw,) if as_sent else inflater.feed(raw):  # (no inflating step per read of a plain stream)
            if kept + len(piece) > kind.max_bytes:
                if not keep_going:
                    yield piece[: kind.max_bytes - kept]
                    return
                raise BodyProblem("too-large", f"{kind.name} is over its limit of {kind.max_bytes:,} bytes")
            kept += len(piece)
            yield piece
        if sent > kind.max_bytes:
            if not keep_going:
                return
            raise BodyProblem("too-large", f"{kind.name} is over its limit of {kind.max_bytes:,} bytes as sent")
    inflater.finish()


async def read_body(response, kind: Kind, *, keep_going: bool = True) -> bytes:
    body = bytearray()
    async for piece in pieces(response, kind, keep_going=keep_going):
        body += piece
    return bytes(body)


async def get(client, url: str, headers: dict[str, str], kind: Kind, deadline_s: float) -> tuple[int, bytes]:
    """GET `url`: (status, body), the body of `kind` within its limit (an error status's body only
    its start), all within `deadline_s`. Raises BodyProblem, or httpx.HTTPError when the server
    cannot be reached. Sent once more on a fresh connection when the server closed a kept-alive one
    as the request went out (llama.cpp drops idle connections after 5 s); a GET changes nothing on
    the server, so sending it again is safe. A second failure is the server's. A redirect is never
    followed (the key would go where the server says): BodyProblem naming where it points."""
    import httpx

    async def once() -> tuple[int, bytes]:
        async with client.stream("GET", url, headers={**headers, "Accept-Encoding": ACCEPT_ENCODING}, timeout=deadline_s) as response:
            location = response.headers.get("location")
            if 300 <= response.status_code < 400 and location is not None:
                raise BodyProblem(
                    "redirect",
                    f'HTTP {response.status_code}: redirects to "{shown(location[:200])}", which measure does not follow (give that URL, if it is the server\'s)',
                )
            if response.status_code != 200:
                return response.status_code, await read_body(response, ERROR_BODY, keep_going=False)
            return response.status_code, await read_body(response, kind)

    try:
        async with asyncio.timeout(deadline_s):
            try:
                return await once()
            except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError):
                return await once()
    except (TimeoutError, httpx.TimeoutException):
        raise BodyProblem("timeout", f"no complete answer within {deadline_s:g} s") from None
