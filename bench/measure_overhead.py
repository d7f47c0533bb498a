"""What `sdeval measure` costs the client: CPU per streamed chunk of its streaming client next to a
bare httpx streaming loop, both against the simulator answering at once, one chunk a write as
servers stream, alternating in one run (goal: at most 1.3x); the most concurrent streams it holds
on this machine (goal: 1,000); and the chunks per second `sdeval measure` holds with --workers 1
and 2 against the simulator answering at once (goal: 2 workers at least 1.7x one; the simulator
shares this machine's cores with the client).

The simulator runs in its own process, so only the client's CPU (time.process_time) is counted.
For --workers it answers as a cache would (the same words for every prompt, encoded once, 64
chunks a write: see Simulator.same_answer), so that it takes little of the cores it shares with
the client, which still reads, splits and checks every chunk; the CPU each side used per chunk is
printed beside the rates, with what those costs allow on two otherwise idle cores, so a reader can
tell a client that does not scale from a machine busy with other work.
Usage: .venv/bin/python bench/measure_overhead.py [--rounds 5] [--requests 40] [--max-tokens 400]
       [--streams 250,500,1000] [--worker-rounds 3] [--worker-max-tokens 2000] [--only chunk|streams|workers]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from evaluator.measure.client import stream_chat

WRITE = 64  # chunks per write of the simulator the --workers windows measure against


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


def _cpu_of(pid: int) -> float | None:
    """The CPU seconds (user + system) process `pid` has used, where /proc says (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _measured_rate(base: str, workers: int, concurrency: int, requests: int, max_tokens: int, server_pid: int) -> dict[str, float | None]:
    """One measured window of `sdeval measure --workers N`: its chunks per second (the capture's
    measured chunks over the window, the union of the workers' windows), the client's CPU per
    chunk in the window (each process's event-loop CPU share times its window, from the capture's
    self-check) and the simulator's CPU per chunk it served (warm-ups too)."""
    from evaluator.measure.cli import main as measure

    def lines(path: Path) -> list[dict]:
        return [json.loads(line) for line in path.read_text().splitlines()]

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        argv = ["--arm", f"target-only={base}", "--concurrency", str(concurrency), "--repetitions", "1", "--warmup", str(2 * workers)]
        argv += ["--requests", str(requests), "--max-tokens", str(max_tokens), "--quiet", "--workers", str(workers), "-o", str(out)]
        server_before = _cpu_of(server_pid)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = measure(argv)
        server_after = _cpu_of(server_pid)
        if code == 2:
            raise SystemExit(f"sdeval measure --workers {workers} could not run")
        entries = lines(Path(tmp) / "r.json.capture" / "capture.jsonl")
        own = [lines(Path(tmp) / "r.json.parts" / f"worker-{k}" / "capture.jsonl") for k in range(workers)] if workers > 1 else [entries]
    sent = [e for e in entries if e["kind"] == "request"]
    chunks = sum(e["chunks"] for e in sent if not e["warmup"])
    seconds = sum(e["duration_us"] for e in entries if e["kind"] == "window") / 1e6
    windows = [e for part in own for e in part if e["kind"] == "window"]
    client_cpu = sum(w["client_cpu_fraction"] * w["duration_us"] / 1e6 for w in windows)
    server = None if server_before is None or server_after is None else (server_after - server_before) / sum(e["chunks"] for e in sent)
    busy = max(w["client_cpu_fraction"] for w in windows)  # the busiest process's event loop, share of its window
    return {"rate": chunks / seconds, "client_us": client_cpu / chunks * 1e6, "server_us": None if server is None else server * 1e6, "busy": busy}


def _serve(step_delay: float, *cheap: str) -> tuple[subprocess.Popen, str]:
    port = _port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "evaluator.measure.simulator", "--port", str(port), "--step-delay", str(step_delay), *cheap],
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
    p.add_argument("--worker-max-tokens", type=int, default=2000, help="tokens per answer in the --workers windows")
    p.add_argument("--only", choices=("chunk", "streams", "workers"), help="measure only this part")
    args = p.parse_args()
    print(f"{os.cpu_count()} cores; simulator in its own process; client CPU by time.process_time")
    for part, measure in (("chunk", _per_chunk), ("streams", _streams), ("workers", _workers)):
        if args.only in (None, part):
            measure(args)


def _per_chunk(args) -> None:
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


def _streams(args) -> None:
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


def _workers(args) -> None:
    # For --workers the simulator answers as a cache would: the same words for every prompt, encoded
    # once, 64 chunks a write, so it takes little of the cores it shares with the client here; the
    # client still reads, splits and checks every chunk. Its CPU is measured and printed.
    proc, url = _serve(0.0, "--chunks-per-write", str(WRITE), "--same-answer")
    try:
        base = url.removesuffix("/v1/chat/completions")
        runs: dict[int, list[dict]] = {1: [], 2: []}
        for _ in range(args.worker_rounds):  # alternating, so the machine's drift lands on both
            for workers in (1, 2):
                runs[workers].append(_measured_rate(base, workers, 16, 96, args.worker_max_tokens, proc.pid))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    medians: dict[int, dict] = {}
    for workers in (1, 2):
        got = runs[workers]
        server = [r["server_us"] for r in got if r["server_us"] is not None]
        medians[workers] = m = {
            "rate": statistics.median(r["rate"] for r in got),
            "client_us": statistics.median(r["client_us"] for r in got),
            "server_us": statistics.median(server) if server else None,
            "busy": statistics.median(r["busy"] for r in got),
        }
        shown = ", ".join(f"{r['rate']:.0f}" for r in got)
        cpu = f"client {m['client_us']:.1f} us CPU per chunk" + ("" if m["server_us"] is None else f", simulator {m['server_us']:.1f} us")
        print(f"sdeval measure --workers {workers}: median {m['rate']:8.0f} chunks/s  ({shown}); {cpu}; event loop busy {m['busy']:.0%}")
    one, two = medians[1], medians[2]
    print(
        f"2 workers / 1 worker: {two['rate'] / one['rate']:.2f}x (goal >= 1.7x), concurrency 16, 96 requests x {args.worker_max_tokens} tokens, "
        f"the simulator {WRITE} chunks a write with one answer for every prompt, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    if one["server_us"] is not None and two["server_us"] is not None:  # (the client's CPU share of the window is from its self-check)
        bound = 2 * one["client_us"] / (two["client_us"] + two["server_us"])
        print(
            f"  what the CPU per chunk allows on 2 idle cores shared with the simulator: 2 x {one['client_us']:.1f} / "
            f"({two['client_us']:.1f} + {two['server_us']:.1f}) = {min(2.0, bound):.2f}x"
        )


if __name__ == "__main__":
    main()
