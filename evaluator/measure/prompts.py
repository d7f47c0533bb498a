"""The workload: prompts from a JSONL file (or the shipped set), and per-request salts."""

from __future__ import annotations

import hashlib
import json
import random
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .._infra.safe_text import control_problem, surrogate_problem
from .capture import MeasureProblem

# The shipped sets, per endpoint: chat prompts for a chat model; for a base model on
# /v1/completions, texts to continue (prose, code, maths, list; 16 each).
DEFAULT_SETS = {
    "chat": ("data/prompts.jsonl", "sdeval default prompts v1"),
    "completions": ("data/continuations.jsonl", "sdeval continuation prompts v1"),
}
MAX_PROMPTS_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Prompt:
    id: str
    messages: tuple[dict, ...]
    task: str | None
    text: str | None = None  # a {"prompt": ...} line's text, what a completions endpoint continues


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
        except RecursionError:  # the decoder's own guard, at the interpreter's recursion limit
            raise MeasureProblem(f"{where}: line {number}: nests its JSON deeper than measure reads") from None
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
        given = obj.get("id", f"line-{number}")
        if isinstance(given, bool) or not isinstance(given, (str, int)):
            raise MeasureProblem(f'{where}: line {number}: "id" must be text or a whole number')
        if isinstance(obj.get("prompt"), str):
            texts = [('"prompt"', obj["prompt"])]
        else:
            texts = [(f'"messages" {i + 1} {k}', m[k]) for i, m in enumerate(messages) for k in ("role", "content")]
        _check_texts([*texts, ('"task"', task or ""), ('"id"', str(given))], task, f"{where}: line {number}")
        continued = obj["prompt"] if isinstance(obj.get("prompt"), str) else None
        prompts.append(Prompt(str(given), messages, task, continued))
    if not prompts:
        raise MeasureProblem(f"{where}: holds no prompts")
    return _interleaved(prompts)


def _check_texts(texts: list[tuple[str, str]], task: str | None, where: str) -> None:
    """What the record (the task) or a server (every text) could not take, refused before anything
    is sent: a lone surrogate anywhere, a control character or over 2,000 characters in a task."""
    for name, text in texts:
        if (problem := surrogate_problem(text)) is not None:
            raise MeasureProblem(f"{where}: {name} {problem}; write the character itself")
    if task is not None and (
        problem := control_problem(task, lines=False) or (f"is {len(task):,} characters long, over 2,000" if len(task) > 2000 else None)
    ):
        raise MeasureProblem(f'{where}: "task" {problem}')


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


def load_prompts(path: Path | None, endpoint: str = "chat") -> tuple[list[Prompt], str, str]:
    """(prompts, dataset name, sha256 of the text)."""
    if path is None:
        file, name = DEFAULT_SETS[endpoint]
        text = resources.files("evaluator.measure").joinpath(file).read_text(encoding="utf-8")
        return _read(text, f"the shipped set {name}"), name, hashlib.sha256(text.encode()).hexdigest()
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
    texts = [" ".join(rng.choice(vocabulary) for _ in range(words)) for _ in range(count)]
    return [Prompt(f"random-{i}", ({"role": "user", "content": text},), "random tokens", text) for i, text in enumerate(texts)]


SALT_SCHEME = (
    "each request's text starts with [NONCE request CCCC-RR-IIIII-A] (a warm-up says warm-up in place of request): NONCE is "
    "random per measurement (one capture; --append and --resume keep it), CCCC the concurrency, RR the 0-based repetition, "
    "IIIII the request, A the attempt at the window (0; 1 and up where --resume measures a cut window again, so it cannot "
    "find the cut attempt's prompts in the cache); the same salts in every arm"
)


def salted(prompt: Prompt, salt: str) -> list[dict]:
    """The salt leads the first message, so no request finds another's text in the prefix cache,
    within this measurement (the load, repetition and request) or across them (the nonce). Salts
    are the same in both arms, so both arms see the same prompts, of the same token length."""
    first, *rest = prompt.messages
    return [{"role": first["role"], "content": f"{salt} {first['content']}"}, *rest]


def salted_text(prompt: Prompt, salt: str) -> str:
    """For a completions endpoint: the salt, then the text to continue."""
    assert prompt.text is not None, "checked by require_text"
    return f"{salt} {prompt.text}"


def require_text(prompts: list[Prompt], where: str) -> None:
    """A completions endpoint continues text: every prompt must be a {"prompt": ...} line."""
    for p in prompts:
        if p.text is None:
            raise MeasureProblem(f'{where}: prompt {p.id}: --endpoint completions needs {{"prompt": TEXT}}, not "messages"')


def new_nonce() -> str:
    import secrets

    return secrets.token_hex(4)


def salt_for(nonce: str, concurrency: int, repetition: int, index: int, warmup: bool = False, attempt: int = 0, task: int | None = None) -> str:
    """`task`: the window's task's place among the labels (--per-task-windows), so that two tasks'
    windows at one load and repetition never send one salt."""
    where = f" task {task}" if task is not None else ""
    return f"[{nonce} {'warm-up' if warmup else 'request'} {concurrency:04d}-{repetition:02d}-{index:05d}-{attempt % 10}{where}]"
