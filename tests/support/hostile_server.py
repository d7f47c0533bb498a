"""A hostile HTTP server for tests: raw HTTP/1.1 on 127.0.0.1, each path answered by a script that
writes whatever bytes it likes, when it likes (drips, bombs, bodies that never end, echoes of the
headers it was sent). Every reply closes its connection, so a body may simply run until the close.
Stopped when the block ends; a script still writing stops at its next write or pause."""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from .measure_servers import free_port


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: bytes


class Stopped(Exception):
    pass


@dataclass
class Conn:
    sock: socket.socket
    stop: threading.Event

    def send(self, data: bytes) -> None:
        if self.stop.is_set():
            raise Stopped
        try:
            self.sock.sendall(data)
        except OSError:
            raise Stopped from None  # the client went away

    def pause(self, seconds: float) -> None:
        if self.stop.wait(seconds):
            raise Stopped

    def drip(self, data: bytes, every_s: float, size: int = 1) -> None:
        for i in range(0, len(data), size):
            self.send(data[i : i + size])
            self.pause(every_s)


Script = Callable[[Request, Conn], None]


@dataclass
class HostileServer:
    routes: dict[str, Script]
    requests: list[Request] = field(default_factory=list)
    url: str = ""

    def _serve(self, listener: socket.socket, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                sock, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            sock.settimeout(None)
            threading.Thread(target=self._one, args=(sock, stop), daemon=True).start()

    def _one(self, sock: socket.socket, stop: threading.Event) -> None:
        with sock:
            sock.settimeout(10)
            try:
                request = _read_request(sock)
            except (OSError, ValueError):
                return
            if request is None:
                return
            self.requests.append(request)
            script = self.routes.get(request.path.split("?")[0]) or self.routes.get("*") or not_found
            with contextlib.suppress(Stopped):
                script(request, Conn(sock, stop))


def _read_request(sock: socket.socket) -> Request | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return Request(method, path, headers, body)


@contextlib.contextmanager
def hostile(routes: dict[str, Script]) -> Iterator[HostileServer]:
    server = HostileServer(routes)
    port = free_port()
    listener = socket.create_server(("127.0.0.1", port))
    listener.settimeout(0.05)  # to see the stop flag: closing a socket does not wake accept() (set before the thread: a block may end at once)
    stop = threading.Event()
    thread = threading.Thread(target=server._serve, args=(listener, stop), daemon=True)
    thread.start()
    server.url = f"http://127.0.0.1:{port}"
    try:
        yield server
    finally:
        stop.set()
        listener.close()
        thread.join(timeout=5)


# ------------------------------------------------------------------ replies


def head(status: int = 200, content_type: str = "application/json", **headers: str) -> bytes:
    lines = [f"HTTP/1.1 {status} X", f"Content-Type: {content_type}", "Connection: close"]
    lines += [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def whole(body: bytes, status: int = 200, content_type: str = "application/json", **headers: str) -> Script:
    def script(request: Request, conn: Conn) -> None:
        conn.send(head(status, content_type, Content_Length=str(len(body)), **headers) + body)

    return script


def not_found(request: Request, conn: Conn) -> None:
    whole(b"not here", 404, "text/plain")(request, conn)


def models(*ids: object) -> Script:
    return whole(json.dumps({"object": "list", "data": [{"id": i} for i in ids]}).encode())


def chunk(content: str | None = None, finish: str | None = None, model: object = "m", **extra: object) -> dict:
    choice = {"index": 0, "delta": {} if content is None else {"content": content}, "finish_reason": finish}
    return {"object": "chat.completion.chunk", "model": model, "choices": [choice], **extra}


def usage(completion: object, prompt: object = 5, model: object = "m") -> dict:
    return {"object": "chat.completion.chunk", "model": model, "choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion}}


def answer(words: int = 3, model: str = "m") -> list[object]:
    """An honest stream: a role chunk, `words` one-token chunks, the finish, the usage, [DONE]."""
    events: list[object] = [chunk("", model=model)]
    events += [chunk(f" w{i}", model=model) for i in range(words - 1)]
    events += [chunk(f" w{words - 1}", "length", model=model), usage(words, model=model), "[DONE]"]
    return events


def event(value: object) -> bytes:
    data = value.encode() if isinstance(value, str) else value if isinstance(value, bytes) else json.dumps(value).encode()
    return b"data: " + data + b"\n\n"


def stream(events: Iterable[object], gap_s: float = 0.003, **headers: str) -> Script:
    """The events, `gap_s` apart (a stream that arrives in one piece looks like a buffering proxy)."""

    def script(request: Request, conn: Conn) -> None:
        conn.send(head(200, "text/event-stream", **headers))
        for e in events:
            conn.send(event(e))
            conn.pause(gap_s)

    return script


def gzip_bomb(inflated_mib: int, coding: str = "gzip") -> bytes:
    """The start of a gzip member (or a zlib-wrapped deflate stream, coding="deflate") inflating to
    `inflated_mib` MiB of zeros, about 1,000:1, built at once: each MiB is compressed after a full
    flush, so its deflate bytes are the same every time and are repeated. It has no trailer: a
    reader that keeps its limit stops long before the end."""
    z = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16 if coding == "gzip" else zlib.MAX_WBITS)
    block = bytes(1024 * 1024)
    first = z.compress(block) + z.flush(zlib.Z_FULL_FLUSH)
    again = z.compress(block) + z.flush(zlib.Z_FULL_FLUSH)
    return first + again * (inflated_mib - 1)


def gzipped(body: bytes) -> bytes:
    return gzip.compress(body)


def forever(piece: bytes, status: int = 200, content_type: str = "text/html", **headers: str) -> Script:
    """A body that never ends (until the client goes or the server stops)."""

    def script(request: Request, conn: Conn) -> None:
        conn.send(head(status, content_type, **headers))
        while True:
            conn.send(piece)

    return script


def dripping(body: bytes, every_s: float = 0.2, status: int = 200, content_type: str = "application/json") -> Script:
    """Headers at once, then the body one byte at a time: every read succeeds, the whole never comes."""

    def script(request: Request, conn: Conn) -> None:
        conn.send(head(status, content_type, Content_Length=str(len(body))))
        conn.drip(body, every_s)

    return script


def deep(levels: int, inner: str = "1") -> bytes:
    return ("[" * levels + inner + "]" * levels).encode()


def wait_for(condition: Callable[[], bool], seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("not true in time")
        time.sleep(0.01)
