"""Shared by the bench scripts: whole-process timings of two commands, alternating in one run
so that machine noise hits both alike."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed with exit {done.returncode}")
    return elapsed


def alternate(first: list[str], second: list[str], runs: int) -> tuple[list[float], list[float]]:
    for cmd in (first, second):  # warm the file cache and the .pyc files once
        timed(cmd)
    a, b = [], []
    for _ in range(runs):
        a.append(timed(first))
        b.append(timed(second))
    return a, b


def describe(label: str, samples: list[float]) -> str:
    return f"{label}  median {statistics.median(samples) * 1000:7.1f} ms  (min {min(samples) * 1000:.1f}, max {max(samples) * 1000:.1f})"
