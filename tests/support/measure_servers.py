"""Serving the measure simulator on 127.0.0.1 for tests and the bench: a uvicorn server in a thread,
stopped when the block ends (also on failure)."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time

from evaluator.measure.simulator import Simulator


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(sim: Simulator):
    """Yields the base URL of `sim` served by uvicorn on 127.0.0.1."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(sim.app, host="127.0.0.1", port=port, log_level="error", lifespan="off", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the simulator did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


class KeepAliveDropper:
    """A fault in front of a served simulator: a TCP relay that, on a kept-alive connection, closes
    the connection at random as the next request arrives, without passing it on (what llama.cpp's
    server does at its keep-alive timeout, racing the client's next request). The first request on a
    connection always goes through, so a fresh connection is never dropped. `dropped` counts the
    requests the server never saw; `passed` the ones it did."""

    def __init__(self, upstream: str, probability: float, seed: int = 0) -> None:
        import random

        host, port = upstream.removeprefix("http://").split(":")
        self.upstream = (host, int(port))
        self.probability, self.rng = probability, random.Random(seed)
        self.dropped = self.passed = 0

    async def _connection(self, reader, writer) -> None:
        import asyncio

        up_reader, up_writer = await asyncio.open_connection(*self.upstream)

        async def relay_back() -> None:
            while data := await up_reader.read(65536):
                writer.write(data)
                await writer.drain()
            writer.close()

        back = asyncio.ensure_future(relay_back())
        served = 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0)
                body = await reader.readexactly(length)
                if served and self.rng.random() < self.probability:
                    self.dropped += 1
                    return
                served += 1
                self.passed += 1
                up_writer.write(head + body)
                await up_writer.drain()
        except (OSError, EOFError, ValueError):  # the client closed its end (IncompleteReadError is an EOFError)
            return
        finally:
            back.cancel()
            up_writer.close()
            writer.close()

    @contextlib.contextmanager
    def serving(self):
        """Yields the relay's base URL; it runs its own event loop on a thread, stopped when the block ends."""
        import asyncio

        started = threading.Event()
        holder: dict = {}

        async def main() -> None:
            holder["loop"], holder["stop"] = asyncio.get_running_loop(), asyncio.Event()
            server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
            holder["port"] = server.sockets[0].getsockname()[1]
            started.set()
            async with server:
                await holder["stop"].wait()

        thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
        thread.start()
        if not started.wait(10):
            raise RuntimeError("the keep-alive dropper did not start")
        try:
            yield f"http://127.0.0.1:{holder['port']}"
        finally:
            holder["loop"].call_soon_threadsafe(holder["stop"].set)
            thread.join(timeout=10)


def two_task_prompts(tmp_path, per_task: int = 8):
    """Two tasks a drafter predicts very differently (the simulator's accept_by_text reads the
    marker in the text: EASY, HARD), `per_task` prompts each, as a prompts file in tmp_path."""
    path = tmp_path / "two-tasks.jsonl"
    lines = [
        json.dumps({"id": f"{task}-{n}", "task": task, "prompt": f"{marker} number {n}: go on"})
        for task, marker in (("easy", "EASY"), ("hard", "HARD"))
        for n in range(per_task)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path
