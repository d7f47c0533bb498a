"""A server that drops a kept-alive connection just as a GET goes out on it (llama.cpp's HTTP
server closes idle connections after 5 s) must not end a measurement: the GET is sent again on a
fresh connection, once. CI lost a real-engine run to this race."""

import asyncio

import httpx
import pytest

from evaluator.measure.capture import MeasureProblem
from evaluator.measure.scrape import fetch

BODY = b"llamacpp:tokens_predicted_total 5\n"


async def _server(drops: int):
    """Answers GETs; the first `drops` connections are closed as soon as a request arrives on them."""
    seen = {"connections": 0}

    async def handle(reader, writer):
        seen["connections"] += 1
        await reader.readuntil(b"\r\n\r\n")
        if seen["connections"] <= drops:
            writer.close()
            return
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(BODY), BODY))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, seen


async def _fetch(drops: int):
    server, seen = await _server(drops)
    port = server.sockets[0].getsockname()[1]
    try:
        async with httpx.AsyncClient(trust_env=False) as client:
            return await fetch(client, f"http://127.0.0.1:{port}/metrics", {}), seen["connections"]
    finally:
        server.close()
        await server.wait_closed()


def test_a_dropped_connection_is_retried_once_on_a_fresh_one():
    body, connections = asyncio.run(_fetch(drops=1))
    assert (body, connections) == (BODY, 2)


def test_a_server_that_drops_twice_is_unreachable_in_one_line():
    with pytest.raises(MeasureProblem, match=r"^--metrics http://127\.0\.0\.1:\d+/metrics: unreachable \(RemoteProtocolError: Server disconnected"):
        asyncio.run(_fetch(drops=2))
