"""What a server says of itself at the start (/v1/models, llama.cpp's /props), read as a hostile
server may send it: any JSON value, nested to any depth, any string. A model list measure cannot
use is one line naming the URL (exit 2) before anything is written; a model id the record could not
hold (a control character, an invisible one, a lone surrogate, over 2,000 characters) is refused
there, not after the measurement when the record is built. /props is not evidence: what it holds
is kept only when it is plain text."""

from __future__ import annotations

import json
from typing import Any

from .._infra.safe_text import control_problem, identity_problem, shown, surrogate_problem
from .capture import MeasureProblem

MAX_NAME = 2000  # the record schema's maxLength for a model


def _json(body: bytes) -> Any:
    try:
        return json.loads(body.decode("utf-8"))
    except (ValueError, RecursionError):  # not UTF-8 or not JSON; nested past the parser's limit
        return None


def name_problem(text: str) -> str | None:
    """Why `text` cannot name a model (or a vendor, an offer) in the record, or None."""
    if len(text) > MAX_NAME:
        return f"is {len(text):,} characters long, over the record's {MAX_NAME:,}"
    if not text:
        return "is empty"
    return surrogate_problem(text) or control_problem(text, lines=False) or identity_problem(text)


def model_ids(body: bytes, url: str) -> list[str]:
    """The ids of an OpenAI model list, each one the record can hold."""
    obj = _json(body)
    data = obj.get("data") if isinstance(obj, dict) else None
    entries = data if isinstance(data, list) else []
    ids: list[str] = [m["id"] for m in entries if isinstance(m, dict) and isinstance(m.get("id"), str)]
    if not ids or len(ids) != len(entries):
        start = shown(body[:60].decode("utf-8", "replace"))
        raise MeasureProblem(f'{url}: did not answer an OpenAI model list ("{start}"); is this an OpenAI-compatible base URL?')
    for i, model in enumerate(ids):
        if (problem := name_problem(model)) is not None:
            raise MeasureProblem(f'{url}: model {i + 1} of the list, "{shown(model[:200])}", {problem}; a record cannot name it')
    return ids


def server_states(body: bytes) -> dict[str, str]:
    """llama.cpp's build_info and model_path from /props, when they are plain text."""
    obj = _json(body)
    if not isinstance(obj, dict):
        return {}
    return {k: v for k in ("build_info", "model_path") if isinstance(v := obj.get(k), str) and name_problem(v) is None}
