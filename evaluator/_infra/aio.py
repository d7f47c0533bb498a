"""Run pyHanko's coroutines whether or not the caller already has an event loop.

pyHanko's synchronous sign/validate call asyncio.run(), which fails inside a running loop
(a web server, a notebook, or Playwright's sync API in the same thread). Use the async API,
and when a loop is already running, give the coroutine a fresh loop on a worker thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(make: Callable[[], Coroutine[Any, Any, T]]) -> T:  # asyncio.run takes a coroutine, not any awaitable
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(make())).result()
