"""The closed loop: for each arm, load and repetition, warm-up requests, a scrape, the measured
window, a scrape. Everything goes to the capture as it happens."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .capture import Capture, MeasureProblem
from .client import stream_chat
from .prompts import Prompt, salt_for, salted
from .scrape import check, fetch, get


@dataclass
class Arm:
    name: str
    url: str
    arrangement: str
    metrics: str | None = None
    api_key_env: str | None = None
    configuration: Path | None = None
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def base(self) -> str:
        return self.url.rstrip("/").removesuffix("/v1")


@dataclass
class Settings:
    concurrencies: list[int]
    repetitions: int
    warmup: int
    requests: int | None  # per window; default 4 x concurrency, at least 8
    max_tokens: int
    temperature: float
    top_p: float
    seed: int
    timeout_s: float

    def per_window(self, concurrency: int) -> int:
        return self.requests or max(8, 4 * concurrency)


def _openai_models(body: bytes, url: str) -> list[str]:
    try:
        obj = json.loads(body)
        ids = [m["id"] for m in obj["data"]]
        if not all(isinstance(i, str) for i in ids) or not ids:
            raise ValueError
    except (ValueError, KeyError, TypeError):
        raise MeasureProblem(
            f"{url}: did not answer an OpenAI model list ({body[:60].decode('utf-8', 'replace')!r}); is this an OpenAI-compatible base URL?"
        ) from None
    return ids


async def identify(client, arm: Arm) -> dict[str, Any]:
    """The arm's model ids from /v1/models and what its server says of itself (llama.cpp /props)."""
    import httpx

    url = f"{arm.base}/v1/models"
    try:
        response = await get(client, url, arm.headers, 30)
    except httpx.HTTPError as exc:
        raise MeasureProblem(f"--arm {arm.name}={arm.url}: unreachable ({type(exc).__name__}: {exc})"[:300]) from None
    if response.status_code != 200:
        raise MeasureProblem(f"{url}: HTTP {response.status_code}; is this an OpenAI-compatible base URL?")
    info: dict[str, Any] = {"models": _openai_models(response.content, url)}
    try:
        props = await get(client, f"{arm.base}/props", arm.headers, 10)
        if props.status_code == 200 and isinstance(props.json(), dict):
            p = props.json()
            info["server_states"] = {k: p[k] for k in ("build_info", "model_path") if isinstance(p.get(k), str)}
    except (httpx.HTTPError, ValueError):
        pass  # not every server has /props; what it says is not evidence anyway
    return info


def _body(prompt: Prompt, salt: str, model: str, s: Settings) -> dict[str, Any]:
    # Every sampling setting sent explicitly: nothing relies on server defaults.
    return {
        "model": model,
        "messages": salted(prompt, salt),
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": s.max_tokens,
        "temperature": s.temperature,
        "top_p": s.top_p,
        "seed": s.seed,
        "n": 1,
    }


async def _closed_loop(client, arm: Arm, model: str, jobs: list[tuple[int, Prompt, str]], concurrency: int, s: Settings, on_result) -> None:
    queue = list(reversed(jobs))
    url = f"{arm.base}/v1/chat/completions"

    async def worker() -> None:
        while queue:
            index, prompt, salt = queue.pop()
            result = await stream_chat(client, url, _body(prompt, salt, model, s), arm.headers, s.timeout_s)
            on_result(index, prompt, result)

    await asyncio.gather(*(worker() for _ in range(concurrency)))


async def measure_arm(client, arm: Arm, model: str, prompts: list[Prompt], s: Settings, capture: Capture, done: set, progress) -> None:
    metrics_server = None
    for c in s.concurrencies:
        for rep in range(s.repetitions):
            key = (arm.name, c, rep)
            if key in done:
                continue
            where = {"arm": arm.name, "concurrency": c, "repetition": rep}
            # a window cut short by a crash is measured again from here; build.py keeps only this attempt
            capture.write({"kind": "window-start", **where})
            warm = [(i, prompts[i % len(prompts)], salt_for(c, rep, i, warmup=True)) for i in range(s.warmup)]
            await _closed_loop(
                client,
                arm,
                model,
                warm,
                c,
                s,
                lambda i, p, r: capture.write({"kind": "request", **where, "warmup": True, "index": i, "prompt": p.id, **r.to_json()}),  # noqa: B023 (awaited within this iteration)
            )
            scrapes = {}
            if arm.metrics:
                scrapes["before"] = await _scrape(client, arm, capture, where, "before")
                if metrics_server is None:
                    metrics_server = check(capture.dir / scrapes["before"], arm.metrics, arm.arrangement == "speculative")
            n = s.per_window(c)
            jobs = [(i, prompts[i % len(prompts)], salt_for(c, rep, i)) for i in range(n)]
            bar = progress.start(f"{arm.name} c={c} rep {rep + 1}/{s.repetitions}", n)
            window: list = []

            def keep(i, p, r, where=where, window=window, bar=bar):
                window.append(r)
                capture.write({"kind": "request", **where, "warmup": False, "index": i, "prompt": p.id, "task": p.task, **r.to_json()})
                bar.advance()

            await _closed_loop(client, arm, model, jobs, c, s, keep)
            bar.close()
            if arm.metrics:
                scrapes["after"] = await _scrape(client, arm, capture, where, "after")
            start = min(r.sent for r in window)
            end = max(r.last_byte or r.sent for r in window)
            # a fixed resolution (microseconds), so repetitions add up exactly to the run's interval
            capture.write(
                {
                    "kind": "window",
                    **where,
                    "duration_us": max(1, round((end - start) * 1e6)),
                    "scrapes": scrapes,
                    "metrics_format": metrics_server.format if metrics_server else None,
                    "ended": time.time(),
                }
            )


async def _scrape(client, arm: Arm, capture: Capture, where: dict, when: str) -> str:
    assert arm.metrics is not None  # scraped only for an arm with a metrics URL
    text = await fetch(client, arm.metrics, arm.headers)
    name = f"scrape-{arm.name}-c{where['concurrency']}-r{where['repetition']}-{when}.prom"
    sha = capture.save_scrape(name, text)
    capture.write({"kind": "scrape", **where, "when": when, "file": name, "sha256": sha})
    return name
