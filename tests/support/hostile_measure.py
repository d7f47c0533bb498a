"""Running `sdeval measure` in this process against a hostile server (hostile_server.py), as the
hostile tests do: one arm, one load, four requests, a short --timeout; the record and the capture's
requests read back."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from conftest import invoke

from .hostile_server import Conn, Request, answer, models, stream

FAST = ["--concurrency", "1", "--repetitions", "1", "--warmup", "0", "--requests", "4", "--max-tokens", "6", "--quiet", "--timeout", "3"]
KEY = "sk-hostile-5f4e3d2c1b0a"


def alternate(bad, good=None):
    """Odd requests answered honestly, even ones by `bad`: a record is still written, with findings."""
    count = [0]
    lock = threading.Lock()

    def script(request: Request, conn: Conn) -> None:
        with lock:
            count[0] += 1
            n = count[0]
        (bad if n % 2 == 0 else good or stream(answer(3)))(request, conn)

    return script


def arm(chat, **more) -> dict:
    return {"/v1/models": models("m"), "/v1/chat/completions": chat, **more}


def run(
    tmp_path: Path, server_url: str, *extra: str, env: dict | None = None, name: str = "rec.json", arm_name: str = "target-only", timeout: str = "3"
):
    out = tmp_path / name
    settings = [*FAST[:-1], timeout]  # (FAST ends with the --timeout value)
    result = invoke("measure", "--arm", f"{arm_name}={server_url}", *extra, *settings, "-o", out, env=env)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    record = json.loads(out.read_text()) if out.exists() else None
    capture = out.with_name(out.name + ".capture") / "capture.jsonl"
    lines = [json.loads(line) for line in capture.read_text().splitlines()] if capture.exists() else []
    return result, record, [e for e in lines if e["kind"] == "request"]
