"""What ran: the tool, its version, the model and tokenizer it names, and its command line (issue 28.4).

The record has no fields for the model, tokenizer or command line an output file names (the
configuration states them, the run only points at it), so an importer keeps them in the run's
notes, in one sentence built here, where a reader comparing the run with its configuration finds
them. Only what the file says is kept. A command line is kept as written, with two exceptions: its
line breaks become spaces (notes are one paragraph), and the values of options that carry secrets
(`--api-key X`, `--hf-token=X`, an `Authorization:` header) are withheld, since a record is sent to
other people. A command line holding other control characters is not kept, and the note says so;
a model or tokenizer name holding them is left out.
"""

from __future__ import annotations

import re
from typing import Any

# An option whose name ends in one of these words carries a secret: its value is withheld.
# (`--tokenizer` and `--max-tokens` do not end in one of them.)
_SECRET_OPTION = re.compile(
    r"""(?P<name>(?<![\w-])--?[\w-]*?(?:api[-_]?key|token|secret|password|passwd|credentials?))(?P<sep>=|\s+)(?P<value>'[^']*'|"[^"]*"|[^\s'"]+)""",
    re.IGNORECASE,
)
_AUTH_HEADER = re.compile(r"""(?P<head>(?:authorization|x-api-key|api-key)\s*:\s*)(?P<value>(?:bearer\s+|basic\s+)?[^\s'"]+)""", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
MAX_COMMAND = 4000


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _name(value: Any) -> str | None:
    """A model, tokenizer or version as the file writes it; one holding control characters is not kept (notes refuse them)."""
    text = _text(value)
    if text is None or _CONTROL.search(text) or "\n" in text:
        return None
    return text[:500]


def command_line(raw: Any) -> tuple[str | None, str | None]:
    """(the command line as kept, or None; a remark to add to the note, or None)."""
    text = _text(raw)
    if text is None:
        return None, None
    text = re.sub(r"[ \t]*\\\r?\n\s*", " ", text)  # shell line continuations
    text = re.sub(r"\s*\r?\n\s*", " ", text)
    if _CONTROL.search(text):
        return None, "its command line holds control characters and is not kept"
    withheld = False

    def secret(match: re.Match) -> str:
        nonlocal withheld
        withheld = True
        quote = match["value"][0] if match["value"][0] in "'\"" else ""
        return f"{match['name']}{match['sep']}{quote}***{quote}"

    def header(match: re.Match) -> str:
        nonlocal withheld
        withheld = True
        return f"{match['head']}***"

    text = _AUTH_HEADER.sub(header, _SECRET_OPTION.sub(secret, text))
    remark = "secret values withheld as ***" if withheld else None
    if len(text) > MAX_COMMAND:
        text = text[:MAX_COMMAND] + " ..."
        remark = ", ".join(r for r in (remark, f"cut at {MAX_COMMAND} characters") if r)
    return text, remark


def note(tool: str, version: Any = None, model: Any = None, tokenizer: Any = None, command: Any = None, *, model_from: str = "") -> str | None:
    """One sentence naming what the file says ran, or None when it names nothing beyond the tool.

    `model` and `tokenizer` are a name or a list of names (several models: a round-robin run);
    `model_from` says where the model was read when that matters ("as the first response names it")."""
    parts = []
    names = [n for n in map(_name, model if isinstance(model, list) else [model]) if n]
    if names:
        parts.append(f"model {', '.join(names)}{f' ({model_from})' if model_from else ''}")
    if _name(tokenizer):
        parts.append(f"tokenizer {_name(tokenizer)}")
    kept, remark = command_line(command)
    if kept is not None:
        parts.append(f"command line: {kept}" + (f" ({remark})" if remark else ""))
    elif remark is not None:
        parts.append(remark)
    if not parts:
        return None
    who = f"{tool} {_name(str(version))}" if version is not None and _name(str(version)) else tool
    return f"{who}: {'; '.join(parts)}."
