"""`sdeval measure --ray ADDRESS|auto`: the workers of `--workers` placed as Ray actors, one per
share of each window, spread over the cluster's nodes (the `ray` package: `sdeval[distributed]`,
imported only here and only when --ray is given).

The driver (the `measure` process) keeps what it keeps with worker processes: the order of the
windows, the scrapes around each whole window, its own capture (RECORD.parts/driver). What differs:
- each actor's capture lines stream back to the driver as they happen (a Ray streaming generator,
  a batch every STREAM_EVERY_S) and are written on the driver's disk (RECORD.parts/worker-K): a node
  that dies loses at most its last batch, its finished windows are kept, and the window it was in is
  marked incomplete (`window-incomplete`) and measured again on `--resume`;
- an actor has no shared counter with the others (they may be on other machines): each sends the
  requests of its own slots (request i goes to the worker holding slot i mod c);
- an actor's monotonic clock is its machine's: the driver measures its offset and uncertainty
  NTP-style over Ray round trips at the actor's start and end (`clock` lines, merge.py joins the
  windows on the driver's clock with them) and tells it the agreed start on its own clock.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from pathlib import Path
from typing import Any

from .capture import Capture, MeasureProblem
from .loop import Arm, Settings
from .merge import PART, clock
from .prompts import Prompt
from .workers import client_limits, measure_share, part_head, split

STREAM_EVERY_S = 0.25  # how often an actor sends its new capture lines: a dead node loses at most this much
STARTUP_S = 120  # how long a worker may take to be placed and started
CLOCK_EXCHANGES = 9  # round trips per clock reading; the shortest bounds the offset best


class WorkerLost(MeasureProblem):
    """A Ray worker (its process or its node) died during a window: the finished windows stand."""


class ShareActor:
    """One worker's shares of the windows, in a Ray actor (async: its event loop runs the closed loop
    while Ray answers the driver's clock readings)."""

    def __init__(self, index: int, workers: int, arms: list[Arm], s: Settings, prompts: list[Prompt]) -> None:
        self.index, self.workers, self.s, self.prompts = index, workers, s, prompts
        self.arms = {a.name: a for a in arms}
        self.client: Any = None

    async def about(self) -> dict:
        import ray

        return {"clock": clock(), "pid": os.getpid(), "node": ray.get_runtime_context().get_node_id()}

    async def now(self) -> float:
        return time.monotonic()

    async def run(self, message: dict):
        """Streams {"lines": [...]} batches as the share goes, then {"answer": ...}."""
        import httpx

        if self.client is None:
            most = max(len(split(c, self.workers)[self.index]) for c in self.s.concurrencies) or 1
            self.client = httpx.AsyncClient(limits=client_limits(most), trust_env=False)
        lines: list[dict] = []
        c, slots = message["where"]["concurrency"], message["slots"]
        mine = (i for i in itertools.count() if i % c in slots)  # request i goes to slot i mod c's worker
        share = asyncio.ensure_future(measure_share(self.client, message, self.arms[message["arm"]], self.s, self.prompts, lines.append, mine))
        while True:
            finished, _ = await asyncio.wait({share}, timeout=STREAM_EVERY_S)
            if lines:
                batch, lines[:] = list(lines), []
                yield {"lines": batch}
            if finished:
                break
        yield {"answer": share.result()}

    async def close(self) -> None:
        if self.client is not None:
            await self.client.aclose()


def offset(actor: Any) -> dict:
    """The actor's monotonic clock minus the driver's, NTP-style: over the exchange with the shortest
    round trip, the actor read its clock somewhere between the driver's send and receipt, so the
    offset is within half that round trip of the midpoint's."""
    import ray

    best: tuple[float, float] | None = None
    for _ in range(CLOCK_EXCHANGES):
        sent = time.monotonic()
        theirs = ray.get(actor.now.remote())
        back = time.monotonic()
        if best is None or back - sent < best[1] * 2:
            best = (theirs - (sent + back) / 2, (back - sent) / 2)
    assert best is not None
    return {"offset_s": best[0], "uncertainty_s": best[1], "exchanges": CLOCK_EXCHANGES}


def connect(address: str) -> None:
    """Joins the cluster at ADDRESS (host:port of its GCS), or the one `ray start` left on this
    machine (auto). An address nothing answers on is refused at once: ray.init would retry for minutes."""
    import socket

    import ray

    if address != "auto":
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise MeasureProblem(f"--ray {address}: give the cluster's HOST:PORT (its GCS, as `ray start --head` printed it), or auto")
        try:
            socket.create_connection((host.strip("[]"), int(port)), timeout=10).close()
        except OSError as exc:
            raise MeasureProblem(
                f"--ray {address}: nothing answers there ({exc.strerror or type(exc).__name__}); is its head node started?"
            ) from None
    try:
        ray.init(address=address, log_to_driver=False, configure_logging=False)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise MeasureProblem(
            f"--ray {address}: cannot join the Ray cluster ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"[:300]
        ) from None


def cluster_cpus() -> int:
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))


class RayPool:
    """N ShareActors spread over the cluster, each with its part capture on the driver's disk."""

    def __init__(
        self,
        workers: int,
        parts: Path,
        session: dict,
        arm_lines: list[dict],
        call: dict,
        arms: list[Arm],
        s: Settings,
        prompts: list[Prompt],
        resume: bool,
    ) -> None:
        import ray

        self.parts = parts
        remote: Any = ray.remote(ShareActor).options(num_cpus=1, scheduling_strategy="SPREAD", max_restarts=0)
        self.actors: list[Any] = [remote.remote(k, workers, arms, s, prompts) for k in range(workers)]
        secrets = tuple(secret for arm in arms for secret in arm.keys.secrets)
        self.captures = [Capture(parts / f"worker-{k}", secrets=secrets) for k in range(workers)]
        self.clocks: list[dict] = []
        self.about: list[dict] = []
        self.open: set[int] = set()
        for k, (actor, capture) in enumerate(zip(self.actors, self.captures)):
            try:
                about: dict = ray.get(actor.about.remote(), timeout=STARTUP_S)
            except Exception as exc:  # no CPU free for it, or its node went away: the actors made so far ended
                cpus = cluster_cpus()
                for made in self.actors:
                    ray.kill(made)
                ray.shutdown()
                raise MeasureProblem(
                    f"--ray: worker {k} did not start on the cluster within {STARTUP_S} s ({type(exc).__name__}); "
                    f"each worker needs one free CPU, the cluster has {cpus}"
                ) from None
            self.about.append(about)
            self.clocks.append(self._reading(k, actor))
            capture.open(new=not resume)
            self.open.add(k)
            part = {"kind": PART, "role": "worker", "index": k, "workers": workers, "clock": about["clock"], "pid": about["pid"], "placement": "ray"}
            part_head(capture, session, None if resume else part, arm_lines, call)
            capture.write({"kind": "clock", "when": "start", "node": about["node"], "pid": about["pid"], **self.clocks[k]})

    def _reading(self, k: int, actor) -> dict:
        """A clock reading of actor k: measured always; on the driver's own machine (the same boot)
        the clocks are one clock, and the measured offset is kept only as a check."""
        measured = offset(actor)
        if self.about[k]["clock"]["boot_id"] == clock()["boot_id"]:
            return {"offset_s": 0.0, "uncertainty_s": 0.0, "same_clock": True, "measured": measured}
        return measured

    @property
    def size(self) -> int:
        return len(self.actors)

    def new_window(self) -> None:
        pass  # no shared counter: each actor sends the requests of its own slots

    def _drain(self, k: int, message: dict) -> dict:
        import ray

        capture = self.captures[k]
        try:
            for ref in self.actors[k].run.options(num_returns="streaming").remote(message):
                item = ray.get(ref)
                for line in item.get("lines", []):
                    capture.write(line)
                if "answer" in item:
                    return item["answer"]
        except ray.exceptions.RayError as exc:
            return {"lost": f"{type(exc).__name__}"}
        return {"lost": "its stream ended without an answer"}

    async def ask(self, messages: list[dict]) -> list[dict]:
        # the agreed instant, on each actor's own clock
        messages = [{**m, "start_at": m["start_at"] + self.clocks[k]["offset_s"]} if "start_at" in m else m for k, m in enumerate(messages)]
        answers = await asyncio.gather(*(asyncio.to_thread(self._drain, k, m) for k, m in enumerate(messages)))
        lost = [(k, a["lost"]) for k, a in enumerate(answers) if "lost" in a]
        if lost:
            where = messages[0]["where"]
            said = []
            for k, why in lost:
                self.captures[k].write({"kind": "window-incomplete", **where, "reason": why})
                said.append(f"worker {k} (pid {self.about[k]['pid']} on node {self.about[k]['node'][:12]}) was lost ({why})")
            raise WorkerLost(
                f"window {where['arm']} c={where['concurrency']} repetition {where['repetition'] + 1}: {'; '.join(said)}; "
                f"it is marked incomplete, the finished windows are kept in {self.parts}: measure it again with the same command and --resume"
            )
        return answers

    def close(self) -> None:
        import ray

        for k, (actor, capture) in enumerate(zip(self.actors, self.captures)):
            try:
                if k in self.open:
                    capture.write({"kind": "clock", "when": "end", **self._reading(k, actor)})
                ray.get(actor.close.remote(), timeout=30)
                ray.kill(actor)
            except ray.exceptions.RayError:
                pass  # a lost worker: its window-incomplete line says so
            capture.close()
            capture.unlock()
        ray.shutdown()
