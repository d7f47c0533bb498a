"""`sdeval measure --workers N`: the client in N processes on this machine.

One streamed chunk costs the client about 17 µs of CPU, so one process tops out near one core; N
worker processes (multiprocessing, spawn: each its own interpreter, event loop and connection pool)
each send their share of every window. The driver (the `measure` process) keeps the order of the
windows (arms stay interleaved), scrapes the servers' counters once around each whole window, and
tells every worker the one agreed instant to start on (CLOCK_MONOTONIC is the machine's, so it is the
same instant in every process). Each process writes its own capture (RECORD.parts/driver,
RECORD.parts/worker-K), merged afterwards into RECORD.capture by merge.py. The driver's side
(`measure_windows_in_workers`) and a worker's side of one window (`measure_share`) are also those of
`--ray` (ray_workers.py), whose workers may be on other machines.
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .capture import Capture, MeasureProblem
from .loop import Arm, Settings, _closed_loop, _first_prompt, _scrape, _until_deadline, measured_jobs
from .merge import PART, clock
from .prompts import Prompt, salt_for
from .scrape import check
from .selfcheck import ClientCheck

START_MARGIN_S = 0.1  # the agreed instant is this far after the driver sends it: every worker is waiting by then


def worker_count(text: str) -> int:
    """--workers N, or auto: the cores this process may run on."""
    if text == "auto":
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    try:
        n = int(text)
    except ValueError:
        raise MeasureProblem(f"--workers {text!r}: give a whole number of processes, or auto") from None
    if n < 1:
        raise MeasureProblem("--workers must be at least 1")
    return n


def split(c: int, workers: int) -> list[range]:
    """Each worker's slots of concurrency c, as even as can be (sizes differ by at most one; a worker
    beyond c holds none at this load)."""
    out, first = [], 0
    for k in range(workers):
        size = c // workers + (1 if k < c % workers else 0)
        out.append(range(first, first + size))
        first += size
    return out


@dataclass
class _Handle:
    process: Any
    conn: Any


class WorkerPool:
    """N spawned worker processes, each answering the driver's commands on its own pipe."""

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
        import multiprocessing

        context = multiprocessing.get_context("spawn")  # no fork of the driver's event loop and sockets
        self.handles: list[_Handle] = []
        self.parts = parts
        # The window's next request, shared by every worker's slots: a slot anywhere sends the next
        # request as its last answer ends, as in one process's closed loop (a fixed share per worker
        # would leave one worker's slots idle while another's still send).
        self.next_job = context.Value("q", 0)
        for k in range(workers):
            mine, theirs = context.Pipe()
            process = context.Process(
                target=_worker_main,
                args=(theirs, self.next_job, k, workers, parts / f"worker-{k}", session, arm_lines, call, arms, s, prompts, resume),
                name=f"sdeval-measure-worker-{k}",
                daemon=True,
            )
            process.start()
            theirs.close()
            self.handles.append(_Handle(process, mine))

    @property
    def size(self) -> int:
        return len(self.handles)

    def new_window(self) -> None:
        self.next_job.value = 0

    async def ask(self, messages: list[dict]) -> list[dict]:
        """Sends each worker its message and waits for every answer."""
        for handle, message in zip(self.handles, messages):
            handle.conn.send(message)
        answers: list[dict] = []
        for k, handle in enumerate(self.handles):
            try:
                answer = await asyncio.to_thread(handle.conn.recv)
            except EOFError:
                handle.process.join(timeout=5)
                raise MeasureProblem(
                    f"{self.parts}: worker {k} stopped (exit code {handle.process.exitcode}) in the middle of a window; the windows every "
                    f"process finished can be made a record with: sdeval measure merge {self.parts}/* -o RECORD"
                ) from None
            if "error" in answer:
                raise MeasureProblem(f"worker {k}: {answer['error']}")
            answers.append(answer)
        return answers

    def close(self) -> None:
        for handle in self.handles:
            if handle.process.is_alive():
                try:
                    handle.conn.send({"op": "stop"})
                except OSError:
                    pass
        for handle in self.handles:
            handle.process.join(timeout=30)
            if handle.process.is_alive():  # one of ours that did not stop: ended by its own handle
                handle.process.terminate()
                handle.process.join(timeout=5)
            handle.conn.close()


async def measure_windows_in_workers(
    client, order, models: dict[str, str], prompts: list[Prompt], s: Settings, nonce: str, driver: Capture, pool, progress, started: dict
) -> None:
    """The driver's side of every window of `order` the driver's capture has not finished (`started`
    counts each window's earlier attempts, as loop.measure_windows does): warm-ups in the workers, a
    scrape, the workers' shares started on one instant, a scrape. `pool` is a WorkerPool or a RayPool."""
    workers = pool.size
    metrics_servers: dict[str, Any] = {}
    done = {key for key, attempts in started.items() if attempts is None}
    for arm, c, rep, _ in order:  # (the task is None: --per-task-windows is refused with workers)
        if (arm.name, c, rep, None) in done:
            continue
        where = {"arm": arm.name, "concurrency": c, "repetition": rep}
        attempt = started.get((arm.name, c, rep, None), 0)
        salts = functools.partial(salt_for, nonce, c, rep, attempt=attempt)
        slots = split(c, workers)
        busy = [k for k, r in enumerate(slots) if len(r)]
        driver.write({"kind": "window-start", **where, "attempt": attempt, "slots": [[r.start, r.stop] for r in slots]})
        warm: list[list] = [[] for _ in slots]
        for i in range(s.warmup):  # each busy worker warms its own connections
            warm[busy[i % len(busy)]].append((i, prompts[i % len(prompts)], salts(i, warmup=True)))
        common = {"arm": arm.name, "model": models[arm.name], "where": where}
        # every worker, busy or not at this load, writes the window: the merge takes windows every part finished
        await pool.ask([{"op": "warmup", **common, "jobs": warm[k], "slots": slots[k]} for k in range(workers)])
        scrapes: dict[str, list[str]] = {}
        if arm.metrics:
            scrapes["before"] = [await _scrape(client, arm, k, driver, where, "before", s.info_timeout_s) for k in range(len(arm.metrics))]
            if arm.name not in metrics_servers:
                metrics_servers[arm.name] = check(driver.dir / scrapes["before"][0], arm.metrics[0], arm.arrangement == "speculative")
        jobs = measured_jobs(prompts, s, c, rep, salts)
        bar = progress.start(f"{arm.name} c={c} repetition {rep + 1} of {s.repetitions} ({len(busy)} workers)", len(jobs))
        pool.new_window()  # every worker is idle between windows
        start_at = time.monotonic() + START_MARGIN_S
        # by count: the window's jobs; by time (--duration): where its prompts start, each worker making its own
        share: dict[str, Any] = (
            {"jobs": jobs}
            if s.duration_s is None
            else {"first": _first_prompt(s, c, rep), "salt": [nonce, c, rep, attempt], "duration_s": s.duration_s}
        )
        answers = await pool.ask([{"op": "measure", **common, **share, "slots": slots[k], "start_at": start_at} for k in range(workers)])
        if s.duration_s is None and (sent := sum(a.get("requests", 0) for a in answers)) != len(jobs):
            raise MeasureProblem(f"{arm.name} c={c} repetition {rep + 1}: the workers sent {sent} of {len(jobs)} requests")
        bar.advance(sum(answer.get("requests", 0) for answer in answers))
        bar.close()
        if arm.metrics:
            scrapes["after"] = [await _scrape(client, arm, k, driver, where, "after", s.info_timeout_s) for k in range(len(arm.metrics))]
        server = metrics_servers.get(arm.name)
        driver.write(
            {
                "kind": "window",
                **where,
                "scrapes": scrapes,
                "metrics_format": server.format if server else None,
                "start_at": start_at,
                "ended": time.time(),
            }
        )


def _worker_main(
    conn,
    next_job,
    index: int,
    workers: int,
    directory: Path,
    session: dict,
    arm_lines: list[dict],
    call: dict,
    arms: list[Arm],
    s: Settings,
    prompts: list[Prompt],
    resume: bool,
) -> None:
    try:
        asyncio.run(_worker(conn, next_job, index, workers, directory, session, arm_lines, call, {a.name: a for a in arms}, s, prompts, resume))
    except Exception as exc:  # said to the driver in one line; the capture so far stays on disk
        try:
            conn.send({"error": f"{type(exc).__name__}: {exc}"[:300]})
        except OSError:
            pass
    finally:
        conn.close()


def part_head(capture: Capture, session: dict, part: dict | None, arm_lines: list[dict], call: dict) -> None:
    """A part's first lines (a new part) or those a continued one adds (part None: its arms added by
    --append, the call)."""
    if part is not None:
        capture.write(session)
        capture.write(part)
    for line in arm_lines:
        capture.write(line)
    capture.write(call)


def client_limits(c_max: int):
    import httpx

    return httpx.Limits(max_connections=c_max + 8, max_keepalive_connections=c_max + 8, keepalive_expiry=2.0)  # as the one-process client's


async def _worker(
    conn,
    next_job,
    index: int,
    workers: int,
    directory: Path,
    session: dict,
    arm_lines: list[dict],
    call: dict,
    arms: dict[str, Arm],
    s: Settings,
    prompts: list[Prompt],
    resume: bool,
) -> None:
    import httpx

    capture = Capture(directory, secrets=tuple(secret for arm in arms.values() for secret in arm.keys.secrets))
    capture.open(new=not resume)
    part = {"kind": PART, "role": "worker", "index": index, "workers": workers, "clock": clock(), "pid": os.getpid()}
    part_head(capture, session, None if resume else part, arm_lines, call)
    most = max(len(split(c, workers)[index]) for c in s.concurrencies) or 1

    def shared(message: dict):  # the window's next request, whichever worker's slot asks first
        while True:
            with next_job.get_lock():  # held for an increment: microseconds, once per request
                i = next_job.value
                next_job.value = i + 1
            yield i

    try:
        async with httpx.AsyncClient(limits=client_limits(most), trust_env=False) as client:
            while True:
                message = await asyncio.to_thread(conn.recv)
                if message["op"] == "stop":
                    return
                conn.send(await measure_share(client, message, arms[message["arm"]], s, prompts, capture.write, shared(message)))
    finally:
        capture.close()


def _jobs(message: dict, prompts: list[Prompt], indices):
    """The window's jobs at `indices` (an iterator of request numbers): by count, until the window's
    jobs are all taken; by time, until its duration has passed since the agreed start (on this
    worker's own monotonic clock)."""
    if "jobs" in message:
        jobs = message["jobs"]
        for i in indices:
            if i >= len(jobs):
                return
            yield jobs[i]
        return
    first = message["first"]
    nonce, c, rep, attempt = message["salt"]
    salts = functools.partial(salt_for, nonce, c, rep, attempt=attempt)
    made = ((i, prompts[(first + i) % len(prompts)], salts(i)) for i in indices)
    yield from _until_deadline(message["start_at"] + message["duration_s"], made)


async def measure_share(client, message: dict, arm: Arm, s: Settings, prompts: list[Prompt], write, indices) -> dict:
    """One worker's share of one window (its warm-ups, or its measured requests from the agreed
    instant on), each line handed to `write` as it happens."""
    where, slots = message["where"], message["slots"]
    if message["op"] == "warmup":
        write({"kind": "window-start", **where})
        await _closed_loop(
            client,
            arm,
            message["model"],
            message["jobs"],
            len(slots),
            s,
            lambda i, p, salt, r: write({"kind": "request", **where, "warmup": True, "index": i, "prompt": p.id, "salt": salt, **r}),
            first_slot=slots.start,
        )
        return {}
    sent: list[dict] = []

    def keep(i, p, salt, r):
        sent.append(r)
        write({"kind": "request", **where, "warmup": False, "index": i, "prompt": p.id, "task": p.task, "salt": salt, **r})

    await asyncio.sleep(max(0.0, message["start_at"] - time.monotonic()))  # the agreed instant
    late = time.monotonic() - message["start_at"]
    async with ClientCheck() as client_check:
        await _closed_loop(client, arm, message["model"], _jobs(message, prompts, indices), len(slots), s, keep, first_slot=slots.start)
    start = min((r["sent"] for r in sent), default=message["start_at"])
    end = max((r["last_byte"] or r["sent"] for r in sent), default=start)
    write(
        {
            "kind": "window",
            **where,
            "slots": [slots.start, slots.stop],
            "start_late_ms": round(late * 1000, 3),
            "duration_us": max(1, round((end - start) * 1e6)),
            "ended": time.time(),
            **client_check.figures(),
        }
    )
    return {"requests": len(sent)}
