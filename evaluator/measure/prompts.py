"""The workload: prompts from a JSONL file (or the shipped set), and per-request salts."""

from __future__ import annotations

import hashlib
import json
import random
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .capture import MeasureProblem

DEFAULT_SET = "sdeval default prompts v1"
MAX_PROMPTS_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Prompt:
    id: str
    messages: tuple[dict, ...]
    task: str | None


def _read(text: str, where: str) -> list[Prompt]:
    prompts = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise MeasureProblem(f"{where}: line {number}: not JSON ({exc.msg})") from None
        except ValueError:  # not a decoding error, so no .msg: an integer longer than Python converts
            raise MeasureProblem(f"{where}: line {number}: a number has more than {sys.get_int_max_str_digits()} digits") from None
        if not isinstance(obj, dict):
            raise MeasureProblem(f"{where}: line {number}: not a JSON object")
        if isinstance(obj.get("prompt"), str):
            messages: tuple[dict, ...] = ({"role": "user", "content": obj["prompt"]},)
        elif (
            isinstance(obj.get("messages"), list)
            and obj["messages"]
            and all(isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str) for m in obj["messages"])
        ):
            messages = tuple({"role": m["role"], "content": m["content"]} for m in obj["messages"])
        else:
            raise MeasureProblem(f'{where}: line {number}: needs "prompt" (text) or "messages" (a list of {{role, content}})')
        task = obj.get("task")
        if task is not None and not isinstance(task, str):
            raise MeasureProblem(f'{where}: line {number}: "task" must be text')
        prompts.append(Prompt(str(obj.get("id", f"line-{number}")), messages, task))
    if not prompts:
        raise MeasureProblem(f"{where}: holds no prompts")
    return _interleaved(prompts)


def _interleaved(prompts: list[Prompt]) -> list[Prompt]:
    """Round-robin over the tasks, in file order within each, so even a short window mixes them."""
    by_task: dict[str | None, list[Prompt]] = {}
    for p in prompts:
        by_task.setdefault(p.task, []).append(p)
    queues = list(by_task.values())
    out = []
    while any(queues):
        for q in queues:
            if q:
                out.append(q.pop(0))
    return out


def load_prompts(path: Path | None) -> tuple[list[Prompt], str, str]:
    """(prompts, dataset name, sha256 of the text)."""
    if path is None:
        text = resources.files("evaluator.measure").joinpath("data/prompts.jsonl").read_text(encoding="utf-8")
        return _read(text, "the default prompt set"), DEFAULT_SET, hashlib.sha256(text.encode()).hexdigest()
    from ..engine.loader import UnreadableFile, read_bytes

    try:
        raw = read_bytes(str(path), MAX_PROMPTS_BYTES)
    except UnreadableFile as exc:
        raise MeasureProblem(str(exc).replace("a record file", "a prompts file")) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MeasureProblem(f"{path}: not valid UTF-8 at byte {exc.start}") from None
    return _read(text, str(path)), path.name, hashlib.sha256(raw).hexdigest()


def random_prompts(count: int, words: int, seed: int) -> list[Prompt]:
    """Random-token prompts, only on request: they overstate speculative gains (SPEED-Bench)."""
    rng = random.Random(seed)
    vocabulary = [f"{a}{b}" for a in "bcdfghklmnprstvz" for b in ("a", "e", "i", "o", "u", "an", "or", "is")]
    return [
        Prompt(f"random-{i}", ({"role": "user", "content": " ".join(rng.choice(vocabulary) for _ in range(words))},), "random tokens")
        for i in range(count)
    ]


def salted(prompt: Prompt, salt: str) -> list[dict]:
    """The salt leads the first message, so no repetition finds the one before in the prefix cache.
    Salts are the same in both arms (they depend on load, repetition and request only), so both
    arms see the same prompts, of the same token length."""
    first, *rest = prompt.messages
    return [{"role": first["role"], "content": f"{salt} {first['content']}"}, *rest]


def salt_for(concurrency: int, repetition: int, index: int, warmup: bool = False) -> str:
    return f"[{'warm-up' if warmup else 'request'} {concurrency:04d}-{repetition:02d}-{index:05d}]"
