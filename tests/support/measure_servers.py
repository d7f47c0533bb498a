"""Serving the measure simulator on 127.0.0.1 for tests and the bench: a uvicorn server in a thread,
stopped when the block ends (also on failure)."""

from __future__ import annotations

import contextlib
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
