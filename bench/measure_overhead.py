"""What `sdeval measure` costs the client: CPU per streamed chunk of its streaming client next to a
bare httpx streaming loop, both against the simulator answering at once, alternating in one run
(goal: at most 1.3x); the most concurrent streams it holds on this machine (goal: 1,000); and the
chunks per second `sdeval measure` holds with --workers 1 and 2 against the simulator answering at
once (goal: 2 workers at least 1.7x one; the simulator shares this machine's cores with the client).

The simulator runs in its own process, so only the client's CPU (time.process_time) is counted.
Usage: .venv/bin/python bench/measure_overhead.py [--rounds 5] [--requests 40] [--max-tokens 400]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time

import httpx

from evaluator.measure.client import stream_chat


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _body(i: int, max_tokens: int) -> dict:
    return {
        "model": "sim-target",
        "messages": [{"role": "user", "content": f"prompt {i}"}],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": max_tokens,
        "temperature": 0,
    }


async def _bare(client, url: str, body: dict) -> int:
    chunks = 0
    async with client.stream("POST", url, json=body) as response:
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                chunks += 1
    return chunks


async def _harness(client, url: str, body: dict) -> int:
    result = await stream_chat(client, url, body, {}, 60)
    assert result.outcome == "completed", result.detail
    return result.chunks + 1  # + [DONE], which the bare loop counts too


async def _cpu_per_chunk(kind, url: str, requests: int, max_tokens: int) -> float:
    async with httpx.AsyncClient(trust_env=False, timeout=60) as client:
        cpu = time.process_time()
        chunks = 0
        for i in range(requests):  # one at a time: the client's work per chunk, not scheduling
            chunks += await kind(client, url, _body(i, max_tokens))
        return (time.process_time() - cpu) / chunks


async def _hold(url: str, streams: int, max_tokens: int) -> tuple[int, float]:
    limits = httpx.Limits(max_connections=streams + 8, max_keepalive_connections=streams + 8)
    async with httpx.AsyncClient(trust_env=False, limits=limits, timeout=120) as client:
        start = time.monotonic()
        results = await asyncio.gather(*(stream_chat(client, url, _body(i, max_tokens), {}, 120) for i in range(streams)))
        return sum(r.outcome == "completed" for r in results), time.monotonic() - start


def _measured_rate(base: str, workers: int, concurrency: int, requests: int, max_tokens: int) -> float:
    """Chunks per second of one measured window of `sdeval measure --workers N` (its capture's
    chunks over the window's duration, the union of the workers' windows)."""
    import contextlib
    import io
    import json
    import tempfile
    from pathlib import Path

    from evaluator.measure.cli import main as measure

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        argv = ["--arm", f"target-only={base}", "--concurrency", str(concurrency), "--repetitions", "1", "--warmup", str(2 * workers)]
        argv += ["--requests", str(requests), "--max-tokens", str(max_tokens), "--quiet", "--workers", str(workers), "-o", str(out)]
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = measure(argv)
        if code == 2:
            raise SystemExit(f"sdeval measure --workers {workers} could not run")
        lines = [json.loads(line) for line in (Path(tmp) / "r.json.capture" / "capture.jsonl").read_text().splitlines()]
    chunks = sum(e["chunks"] for e in lines if e["kind"] == "request" and not e["warmup"])
    seconds = sum(e["duration_us"] for e in lines if e["kind"] == "window") / 1e6
    return chunks / seconds


def _serve(step_delay: float) -> tuple[subprocess.Popen, str]:
    port = _port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "evaluator.measure.simulator", "--port", str(port), "--step-delay", str(step_delay)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return proc, f"http://127.0.0.1:{port}/v1/chat/completions"
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            raise SystemExit("the simulator did not start")
        time.sleep(0.1)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--requests", type=int, default=40)
    p.add_argument("--max-tokens", type=int, default=400)
    p.add_argument("--streams", default="250,500,1000", help="concurrent stream counts to try, in order")
    p.add_argument("--worker-rounds", type=int, default=3, help="alternating rounds of --workers 1 and 2")
    args = p.parse_args()
    print(f"{os.cpu_count()} cores; simulator in its own process; client CPU by time.process_time")
    proc, url = _serve(0.0)
    try:
        asyncio.run(_cpu_per_chunk(_bare, url, 5, args.max_tokens))  # warm both paths once
        asyncio.run(_cpu_per_chunk(_harness, url, 5, args.max_tokens))
        bare, harness = [], []
        for _ in range(args.rounds):
            bare.append(asyncio.run(_cpu_per_chunk(_bare, url, args.requests, args.max_tokens)))
            harness.append(asyncio.run(_cpu_per_chunk(_harness, url, args.requests, args.max_tokens)))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    b, h = statistics.median(bare), statistics.median(harness)
    print(f"bare httpx loop   median {b * 1e6:6.1f} us CPU per chunk  (min {min(bare) * 1e6:.1f}, max {max(bare) * 1e6:.1f})")
    print(f"measure's client  median {h * 1e6:6.1f} us CPU per chunk  (min {min(harness) * 1e6:.1f}, max {max(harness) * 1e6:.1f})")
    print(f"ratio harness / bare: {h / b:.2f}x (goal <= 1.3x), {args.rounds} rounds of {args.requests} requests x {args.max_tokens} tokens")
    # Streams held: each answer paced at 50 ms per token, 40 tokens, so every stream stays open ~2 s.
    proc, url = _serve(0.05)
    try:
        held = 0
        for n in (int(x) for x in args.streams.split(",")):
            completed, seconds = asyncio.run(_hold(url, n, 40))
            print(f"{n:5d} concurrent streams: {completed} completed in {seconds:.1f} s")
            if completed != n:
                break
            held = n
        print(f"most concurrent streams held: {held} (goal 1,000)")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    proc, url = _serve(0.0)
    try:
        base = url.removesuffix("/v1/chat/completions")
        rates: dict[int, list[float]] = {1: [], 2: []}
        for _ in range(args.worker_rounds):  # alternating, so the machine's drift lands on both
            for workers in (1, 2):
                rates[workers].append(_measured_rate(base, workers, 16, 96, args.max_tokens))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    one, two = statistics.median(rates[1]), statistics.median(rates[2])
    for workers, rate in ((1, one), (2, two)):
        shown = ", ".join(f"{r:.0f}" for r in rates[workers])
        print(f"sdeval measure --workers {workers}: median {rate:8.0f} chunks/s  ({shown})")
    print(
        f"2 workers / 1 worker: {two / one:.2f}x (goal >= 1.7x), concurrency 16, 96 requests x {args.max_tokens} tokens, "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )


if __name__ == "__main__":
    main()
