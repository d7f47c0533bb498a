"""The closed loop: for each arm, load and repetition, a scrape, the warm-up requests handed
straight on to the measured window's (drain: false, as the MLPerf Endpoints client's
warmup.drain), a scrape. Everything goes to the capture as it happens."""

from __future__ import annotations

import asyncio
import functools
import itertools
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._infra.safe_text import shown
from . import bodies
from .answers import model_ids, server_states
from .bodies import INFO_DEADLINE_S
from .capture import Capture, MeasureProblem
from .client import stream_chat
from .credentials import Keys
from .prompts import Prompt, salt_for, salted, salted_text
from .scrape import check, fetch
from .selfcheck import ClientCheck
from .task_windows import file_tag, task_prompts
from .task_windows import where as window_where


@dataclass
class Arm:
    name: str
    url: str
    arrangement: str
    metrics: list[str] = field(default_factory=list)  # one /metrics per engine of the deployment, summed
    api_key_env: str | None = None
    configuration: Path | None = None
    metrics_api_key_env: str | None = None
    keys: Keys = field(default_factory=Keys)  # read from the variables above; each for its origin only

    @property
    def base(self) -> str:
        return self.url.rstrip("/").removesuffix("/v1")


@dataclass
class Settings:
    concurrencies: list[int]
    repetitions: int
    warmup: int
    requests: int | None  # per window; default 4 x concurrency, at least 8 (with duration_s: the prompts' stride)
    max_tokens: int
    temperature: float
    top_p: float
    seed: int
    timeout_s: float
    endpoint: str = "chat"  # chat: /v1/chat/completions with messages; completions: /v1/completions with text to continue
    percentile_method: str = "linear"
    duration_s: float | None = None  # a window by time (--duration): requests sent until it has passed
    # Each /v1/models, /props and /metrics request, body included. Not a setting of the measurement
    # (cli leaves it out of the session's settings): --resume may give a longer one.
    info_timeout_s: float = INFO_DEADLINE_S
    per_task_windows: bool = False  # each task label in its own windows (task_windows.py)

    def per_window(self, concurrency: int) -> int:
        return self.requests or max(8, 4 * concurrency)


async def identify(client, arm: Arm, deadline_s: float) -> dict[str, Any]:
    """The arm's model ids from /v1/models and what its server says of itself (llama.cpp /props)."""
    import httpx

    url = f"{arm.base}/v1/models"
    try:
        status, body = await bodies.get(client, url, arm.keys.for_arm(url), bodies.MODELS, deadline_s)
    except httpx.HTTPError as exc:
        raise MeasureProblem(f"--arm {arm.name}={arm.url}: unreachable ({type(exc).__name__}: {exc})"[:300]) from None
    except bodies.BodyProblem as exc:
        raise MeasureProblem(f"{url}: {exc}") from None
    if status != 200:
        raise MeasureProblem(f"{url}: HTTP {status}; is this an OpenAI-compatible base URL?")
    info: dict[str, Any] = {"models": model_ids(body, url)}
    props = f"{arm.base}/props"
    try:
        status, body = await bodies.get(client, props, arm.keys.for_arm(props), bodies.PROPS, deadline_s)
        if status == 200 and (states := server_states(body)):
            info["server_states"] = states
    except (httpx.HTTPError, bodies.BodyProblem):
        pass  # not every server has /props; what it says is not evidence anyway
    return info


def _body(prompt: Prompt, salt: str, model: str, s: Settings) -> dict[str, Any]:
    # Every sampling setting sent explicitly: nothing relies on server defaults.
    text = {"prompt": salted_text(prompt, salt)} if s.endpoint == "completions" else {"messages": salted(prompt, salt)}
    return {
        "model": model,
        **text,
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": s.max_tokens,
        "temperature": s.temperature,
        "top_p": s.top_p,
        "seed": s.seed,
        "n": 1,
    }


async def _closed_loop(client, arm: Arm, model: str, jobs, concurrency: int, s: Settings, on_result, first_slot: int = 0) -> None:
    """c slots, each sending the next job as soon as its last answer ends, until `jobs` (a list, or
    an iterator that stops at a window's deadline, or one shared by worker processes) has nothing left."""
    queue = iter(jobs)
    url = f"{arm.base}/v1/{'completions' if s.endpoint == 'completions' else 'chat/completions'}"

    async def worker(slot: int) -> None:
        for index, prompt, salt in queue:  # one iterator shared by the slots: each job is sent once
            result = await stream_chat(client, url, _body(prompt, salt, model, s), arm.keys.for_arm(url), s.timeout_s)
            on_result(index, prompt, salt, {"slot": slot, **result.to_json()})

    # a worker process holding part of a window's concurrency numbers its slots from first_slot (workers.py)
    await asyncio.gather(*(worker(slot) for slot in range(first_slot, first_slot + concurrency)))


def _until(duration_s: float, jobs):
    """The jobs, until `duration_s` has passed since the first was taken: a slot then has nothing
    left to send."""
    deadline = None
    for job in jobs:
        now = time.monotonic()
        if deadline is None:
            deadline = now + duration_s
        elif now >= deadline:
            return
        yield job


def _until_deadline(deadline: float, jobs):
    """The jobs, until the monotonic clock passes `deadline`: a slot then has nothing left to send.
    Worker processes share a window's time by an instant the driver agreed, not by their first job."""
    for job in jobs:
        if time.monotonic() >= deadline:
            return
        yield job


def window_order(arms: list[Arm], s: Settings, interleaved: bool, tasks: list[str] | None = None) -> list[tuple[Arm, int, int, str | None]]:
    """(arm, concurrency, repetition, task) in the order measured; the task is None unless each is
    measured in its own windows (--per-task-windows: every task's turn at each repetition).
    Interleaved: at each load, every arm's repetition r before any arm's r + 1, the arms' order
    reversed on every other turn (A1 B1 B2 A2 A3 B3 ...), so drift of the machine lands on both
    arms. Arm by arm (--append, one server restarted between arms): every load and repetition of
    one arm, then the next."""
    turns: list[str | None] = list(tasks) if tasks else [None]
    if not interleaved:
        return [(arm, c, rep, t) for arm in arms for c in s.concurrencies for rep in range(s.repetitions) for t in turns]
    return [
        (arm, c, rep, t)
        for c in s.concurrencies
        for rep in range(s.repetitions)
        for k, t in enumerate(turns)
        for arm in (arms if (rep * len(turns) + k) % 2 == 0 else arms[::-1])
    ]


async def measure_windows(
    client, order, models: dict[str, str], prompts: list[Prompt], s: Settings, nonce: str, capture: Capture, started: dict, progress
) -> None:
    """Measures every window of `order` the capture has not finished; `started` counts the windows'
    earlier attempts (cut by a crash), which changes their salts. A task's window (--per-task-windows)
    sends only that task's prompts, its salts marked with the task's place among the labels."""
    metrics_servers: dict[str, Any] = {}
    done = {key for key, attempts in started.items() if attempts is None}
    by_task = task_prompts(prompts, "the prompts") if s.per_task_windows else {}
    numbers = {task: n for n, task in enumerate(by_task)}
    for arm, c, rep, task in order:
        key = (arm.name, c, rep, task)
        if key in done:
            continue
        salts = functools.partial(salt_for, nonce, c, rep, attempt=started.get(key, 0), task=numbers.get(task))
        mine = by_task[task] if task is not None else prompts
        await _window(client, arm, models[arm.name], c, rep, task, mine, s, salts, capture, progress, metrics_servers)


def _first_prompt(s: Settings, c: int, rep: int) -> int:
    """Each window takes the next prompts of the set (the same in every arm), so repetitions and
    loads together go through the whole set rather than its first n prompts again and again."""
    return sum(s.per_window(cc) for cc in s.concurrencies[: s.concurrencies.index(c)]) * s.repetitions + rep * s.per_window(c)


def measured_jobs(prompts: list[Prompt], s: Settings, c: int, rep: int, salts) -> list[tuple[int, Prompt, str]]:
    """The window's measured requests by count: (index, prompt, salt)."""
    first = _first_prompt(s, c, rep)
    return [(i, prompts[(first + i) % len(prompts)], salts(i)) for i in range(s.per_window(c))]


async def _window(
    client, arm: Arm, model: str, c: int, rep: int, task: str | None, prompts, s: Settings, salts, capture: Capture, progress, metrics_servers
) -> None:
    where = window_where(arm.name, c, rep, task)
    # a window cut short by a crash is measured again from here; build.py keeps only this attempt
    capture.write({"kind": "window-start", **where})
    warm = [(i, prompts[i % len(prompts)], salts(i, warmup=True)) for i in range(s.warmup)]
    warm_salts = {salt for _, _, salt in warm}
    scrapes: dict[str, list[str]] = {}
    scrape_problem = None  # a scrape that failed mid-run: the window is measured, without server counts
    if arm.metrics:
        try:
            scrapes["before"] = [await _scrape(client, arm, k, capture, where, "before", s.info_timeout_s) for k in range(len(arm.metrics))]
            if arm.name not in metrics_servers:
                metrics_servers[arm.name] = check(capture.dir / scrapes["before"][0], arm.metrics[0], arm.arrangement == "speculative")
        except MeasureProblem as exc:
            scrapes, scrape_problem = {}, str(exc)
    n = s.per_window(c)
    jobs: Any = measured_jobs(prompts, s, c, rep, salts)
    if s.duration_s is not None:  # a window by time: new requests until the duration has passed since the first
        first = _first_prompt(s, c, rep)
        jobs = _until(s.duration_s, ((i, prompts[(first + i) % len(prompts)], salts(i)) for i in itertools.count()))
    bar = progress.start(f"{arm.name} c={c}{f' task {shown(task)[:24]}' if task is not None else ''} repetition {rep + 1} of {s.repetitions}", n)
    window: list = []

    def keep(i, p, salt, r):
        if salt in warm_salts:  # a warm-up's salt says so (prompts.salt_for)
            capture.write({"kind": "request", **where, "warmup": True, "index": i, "prompt": p.id, "salt": salt, **r})
            return
        window.append(r)
        capture.write({"kind": "request", **where, "warmup": False, "index": i, "prompt": p.id, "task": p.task, "salt": salt, **r})
        bar.advance()

    # No drain: one queue, the warm-up's jobs first, so each slot goes on to a measured request as
    # its warm-up ends and the measured requests start one by one on busy slots, never in a burst.
    # The scrapes therefore span the warm-up too (build.py counts it on the client's side).
    async with ClientCheck() as client_check:
        await _closed_loop(client, arm, model, itertools.chain(warm, jobs), c, s, keep)
    bar.close()
    if arm.metrics and scrape_problem is None:
        try:
            scrapes["after"] = [await _scrape(client, arm, k, capture, where, "after", s.info_timeout_s) for k in range(len(arm.metrics))]
        except MeasureProblem as exc:
            scrapes, scrape_problem = {}, str(exc)
    start = min(r["sent"] for r in window)
    end = max(r["last_byte"] or r["sent"] for r in window)
    server = metrics_servers.get(arm.name)
    # a fixed resolution (microseconds), so repetitions add up exactly to the run's interval
    capture.write(
        {
            "kind": "window",
            **where,
            "duration_us": max(1, round((end - start) * 1e6)),
            "scrapes": scrapes,
            "drain": False,
            "metrics_format": server.format if server else None,
            "ended": time.time(),
            **client_check.figures(),
            **({"scrape_problem": scrape_problem} if scrape_problem else {}),
        }
    )


async def _scrape(client, arm: Arm, engine: int, capture: Capture, where: dict, when: str, deadline_s: float) -> str:
    """The arm's `engine`-th /metrics, kept in its own file."""
    url = arm.metrics[engine]
    text = await fetch(client, url, arm.keys.for_metrics(url), deadline_s)
    task = f"-t{file_tag(where['window_task'])}" if "window_task" in where else ""  # a task's window (--per-task-windows)
    name = f"scrape-{arm.name}-c{where['concurrency']}-r{where['repetition']}{task}-{when}{f'-{engine + 1}' if engine else ''}.prom"
    sha = capture.save_scrape(name, text)
    capture.write({"kind": "scrape", **where, "when": when, "url": url, "file": name, "sha256": sha})
    return name
