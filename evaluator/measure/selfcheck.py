"""The client checks itself through each window: the event loop's lag (a timer's actual wake-up
minus its scheduled one) and the CPU the loop's own thread used. A client whose loop runs late
stamps every chunk late (TTFT, TPOT and the window's end all grow), and one that keeps a core busy
is what limits the measurement rather than the server; build.py turns either into a finding. Lag
while the client's own thread was mostly idle is the machine's (other processes), recorded only."""

from __future__ import annotations

import asyncio
import time

PERIOD_S = 0.01  # one timer every 10 ms: enough samples per window, no measurable cost
LAG_BOUND_MS = 50.0  # p99 lag above this, with the loop's thread busy: the client ran late of its own doing
CPU_BOUND = 0.9  # the loop's thread busy 90 % of the window: one core saturated by the client
BUSY_WITH_LAG = 0.5  # lag counts against the client only where its own thread was this busy (else the machine was)


class ClientCheck:
    """`async with ClientCheck() as check:` around a window; then `check.figures()`."""

    def __init__(self) -> None:
        self.lags_ms: list[float] = []
        self._task: asyncio.Task | None = None

    async def _sample(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            scheduled = loop.time() + PERIOD_S
            await asyncio.sleep(PERIOD_S)
            self.lags_ms.append(max(0.0, (loop.time() - scheduled) * 1000))

    async def __aenter__(self) -> ClientCheck:
        # thread_time: the event loop's own thread only (a server a test runs in-process is not the client)
        self._cpu, self._wall = time.thread_time(), time.monotonic()
        self._task = asyncio.ensure_future(self._sample())
        return self

    async def __aexit__(self, *exc) -> None:
        self.cpu_s, self.wall_s = time.thread_time() - self._cpu, time.monotonic() - self._wall
        assert self._task is not None
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass

    def figures(self) -> dict[str, float]:
        lags = sorted(self.lags_ms) or [0.0]
        return {
            "loop_lag_ms_max": round(lags[-1], 3),
            "loop_lag_ms_p99": round(lags[min(len(lags) - 1, int(0.99 * len(lags)))], 3),
            "client_cpu_fraction": round(self.cpu_s / self.wall_s, 4) if self.wall_s > 0 else 0.0,
        }


def bottleneck(figures: dict) -> str | None:
    """Why the client, not the server, limited this window; None when it did not."""
    if figures.get("client_cpu_fraction", 0) >= CPU_BOUND:
        return f"its event loop kept a core {figures['client_cpu_fraction']:.0%} busy"
    if figures.get("loop_lag_ms_p99", 0) > LAG_BOUND_MS and figures.get("client_cpu_fraction", 0) >= BUSY_WITH_LAG:
        return (
            f"its event loop ran {figures['loop_lag_ms_p99']:.0f} ms late (p99; bound {LAG_BOUND_MS:.0f} ms) "
            f"while keeping a core {figures['client_cpu_fraction']:.0%} busy"
        )
    return None
