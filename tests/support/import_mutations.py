"""Mutations of tool outputs for the importer fuzz test (tests/importers/test_importers_fuzz.py).

From a sample file that imports, each mutant changes one thing the way a broken tool, a cut-off
copy or a hostile vendor would: a key deleted or duplicated, a value made null, a string, negative,
NaN, infinite, huge, a boolean, a list, a deep object, a string with control characters, a value
in another unit; the file cut short, re-encoded, its line endings changed. Mutants are drawn from
a seeded generator, so a run is the same every time and a failure names the seed and mutation.

`problem(result, files)` says what is wrong with the command's answer to a mutant, or None: it
must import (exit 0, runs that fit the record, no negative, NaN, infinite or boolean figure) or
refuse in one line `sdeval: FILE: ...` (exit 2), and never show a raw control character.
"""

from __future__ import annotations

import json
import math
import random
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

# Strings a hostile file carries: terminal escapes, a bell, a bidi override, a NUL, C1 controls.
HOSTILE_STRINGS = ("\x1b[2J\x1b[31mred", "bell\x07", "abc\u202eevil", "nul\x00byte", "c1\x85\x9bx", "tab\tand\nnewline", "\ud800")


@dataclass(frozen=True)
class Seed:
    """A sample that imports: the format, the files the command takes, and which of them is mutated."""

    fmt: str
    files: tuple[Path, ...]
    mutated: int = 0

    @property
    def name(self) -> str:
        return self.files[self.mutated].name


@dataclass(frozen=True)
class Mutant:
    seed: Seed
    what: str  # the mutation, in words, so a failure says exactly which input it was
    data: bytes


# ------------------------------------------------------------------ reading a sample into values


def _kind(path: Path, raw: bytes) -> str:
    if path.suffix == ".prom":
        return "prom"
    if path.suffix in (".yaml", ".yml"):
        return "yaml"
    text = raw.decode("utf-8")
    try:
        json.loads(text)
        return "json"
    except json.JSONDecodeError:
        return "jsonl"


def _documents(kind: str, raw: bytes) -> list[Any]:
    text = raw.decode("utf-8")
    if kind == "json":
        return [json.loads(text)]
    if kind == "yaml":
        return [yaml.safe_load(text)]
    return [_line(line) for line in text.splitlines() if line.strip()]


class _Unparsed(str):
    """A line of a sample that is not JSON (a sample of a malformed line), written back as it was."""


def _line(line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return _Unparsed(line)


class _Duplicated(dict):
    """An object written with one key twice: first `first`, then the key's own value (which
    Python's json keeps; another reader may keep the first)."""

    def __init__(self, data: dict, key: str, first: Any) -> None:
        super().__init__(data)
        self.key, self.first = key, first


def _dump(value: Any) -> str:
    """JSON text, NaN and Infinity as Python writes them, a _Duplicated object with its key twice."""
    if isinstance(value, dict):
        pairs = [f"{json.dumps(str(k))}: {_dump(v)}" for k, v in value.items()]
        if isinstance(value, _Duplicated):
            pairs.insert(0, f"{json.dumps(value.key)}: {_dump(value.first)}")
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_dump(v) for v in value) + "]"
    if isinstance(value, _Unparsed):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def _write(kind: str, docs: list[Any]) -> bytes:
    if kind == "json":
        return (_dump(docs[0]) + "\n").encode("utf-8", "surrogatepass")
    if kind == "jsonl":
        return "".join(_dump(d) + "\n" for d in docs).encode("utf-8", "surrogatepass")
    # YAML: a duplicated key cannot go through safe_dump, so YAML mutants are JSON text (JSON is YAML).
    if any(isinstance(v, _Duplicated) for d in docs for _, v in _walk(d)):
        return (_dump(docs[0]) + "\n").encode("utf-8", "surrogatepass")
    return yaml.safe_dump(docs[0], sort_keys=False, allow_unicode=True).encode("utf-8", "surrogatepass")


def _walk(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:8]):  # a long list's first entries stand for the rest
            yield from _walk(v, (*path, i))


def _parent(doc: Any, path: tuple) -> Any:
    for step in path[:-1]:
        doc = doc[step]
    return doc


# ------------------------------------------------------------------ what a value becomes


def _deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = {"a": value}
    return value


# What a number is set to that is no count or duration (the string of it, a negative, NaN...):
# a mutant of one of these is `... set to NAME`.
NOT_A_FIGURE = ("the string of it", "its negative", "NaN", "Infinity", "-Infinity", "1e308", "10**30", "it plus a half", "false")


def _replacements(value: Any, rng: random.Random) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = [("null", None), ("true", True), ("a list", [value]), ("an object", {"value": value}), ("a deep object", _deep(300))]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        out += [
            ("the string of it", str(value)),
            ("its negative", -value if value else -1),
            ("NaN", math.nan),
            ("Infinity", math.inf),
            ("-Infinity", -math.inf),
            ("1e308", 1e308),
            ("10**30", 10**30),
            ("a thousand times it (ms as s)", value * 1000),
            ("a thousandth of it (s as ms)", value / 1000),
            ("a billion times it (s as ns)", value * 1_000_000_000),
            ("it plus a half", value + 0.5),
            ("false", False),
        ]
    elif isinstance(value, str):
        out += [("a hostile string", rng.choice(HOSTILE_STRINGS) + value), ("the empty string", ""), ("a number", 12), ("the string 'inf'", "inf")]
    return out


def _structured(seed: Seed, kind: str, raw: bytes, rng: random.Random) -> Mutant:
    docs = _documents(kind, raw)
    n = rng.choice([i for i, d in enumerate(docs) if not isinstance(d, _Unparsed)])
    places = [(p, v) for p, v in _walk(docs[n]) if p]
    path, value = rng.choice(places)
    parent = _parent(docs[n], path)
    where = f"{'line ' + str(n + 1) + ' ' if kind == 'jsonl' else ''}{'/'.join(map(str, path))}"
    roll = rng.random()
    if roll < 0.12 and isinstance(parent, dict):
        del parent[path[-1]]
        what = f"{where} deleted"
    elif roll < 0.22 and isinstance(parent, dict):
        other = rng.choice([v for _, v in _replacements(value, rng)[:4]] + [value])
        grand = _parent(docs[n], path[:-1]) if len(path) > 1 else None
        dup = _Duplicated(parent, path[-1], other)
        if grand is None:
            docs[n] = dup
        else:
            grand[path[-2]] = dup
        what = f"{where} given twice, first as {_dump(other)[:40]}"
    else:
        name, new = rng.choice(_replacements(value, rng))
        parent[path[-1]] = new
        what = f"{where} set to {name}"
    return Mutant(seed, what, _write(kind, docs))


# ------------------------------------------------------------------ Prometheus text


_SAMPLE = re.compile(rb"^([a-zA-Z_:][^ {]*(?:\{[^}]*\})?) (\S+)(.*)$")


def _prom(seed: Seed, raw: bytes, rng: random.Random) -> Mutant:
    lines = raw.splitlines(keepends=True)
    samples = [i for i, line in enumerate(lines) if _SAMPLE.match(line)]
    i = rng.choice(samples)
    found = _SAMPLE.match(lines[i].rstrip(b"\r\n"))
    assert found is not None
    name, value, rest = found.groups()
    roll = rng.random()
    if roll < 0.15:
        del lines[i]
        what = f"line {i + 1} deleted"
    elif roll < 0.3:
        lines.insert(i + 1, name + b" 12345\n")
        what = f"line {i + 1} given twice, the second with the value 12345"
    elif roll < 0.4 and b"{" in name:
        lines[i] = name.replace(b'="', b'="\x1b[31m\xe2\x80\xae', 1) + b" " + value + rest + b"\n"
        what = f"line {i + 1}: a label value with an escape and a bidi override"
    else:
        new = rng.choice([b"NaN", b"+Inf", b"-Inf", b"-5", b"1e308", b"12.5", b"abc", b"", b"0x10", b"1e999", b"true"])
        lines[i] = name + b" " + new + rest + b"\n"
        what = f"line {i + 1}: value {value.decode()} set to {new.decode() or 'nothing'}"
    return Mutant(seed, what, b"".join(lines))


# ------------------------------------------------------------------ bytes, whatever the format


def _textual(seed: Seed, raw: bytes, rng: random.Random) -> Mutant:
    roll = rng.randrange(7)
    if roll == 0:
        cut = rng.choice([1, len(raw) // 3, len(raw) // 2, len(raw) - 2, rng.randrange(1, len(raw))])
        return Mutant(seed, f"cut after byte {cut} of {len(raw)}", raw[:cut])
    if roll == 1:
        return Mutant(seed, "UTF-16 with its byte order mark", raw.decode("utf-8").encode("utf-16"))
    if roll == 2:
        return Mutant(seed, "a UTF-8 byte order mark before it", b"\xef\xbb\xbf" + raw)
    if roll == 3:
        return Mutant(seed, "CRLF line endings", raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    if roll == 4:
        at = rng.randrange(len(raw))
        junk = rng.choice([b"\x00", b"\x1b[2J", b"\xff\xfe", b"\xe2\x80\xae", b"\x85"])
        return Mutant(seed, f"{junk!r} inserted at byte {at}", raw[:at] + junk + raw[at:])
    if roll == 5:
        return Mutant(seed, "empty", b"")
    at = rng.randrange(len(raw))
    return Mutant(seed, f"byte {at} flipped", raw[:at] + bytes([raw[at] ^ 0x20]) + raw[at + 1 :])


def mutants(seed: Seed, count: int, rng_seed: int) -> Iterator[Mutant]:
    """`count` mutants of the seed's mutated file: about three in four change one value, the rest its bytes."""
    rng = random.Random(f"{rng_seed}:{seed.fmt}:{seed.name}")
    raw = seed.files[seed.mutated].read_bytes()
    kind = _kind(seed.files[seed.mutated], raw)
    for _ in range(count):
        if rng.random() < 0.25:
            yield _textual(seed, raw, rng)
        elif kind == "prom":
            yield _prom(seed, raw, rng)
        else:
            yield _structured(seed, kind, raw, rng)


# ------------------------------------------------------------------ what the command must answer


def shows_raw_control(text: str) -> str | None:
    """The first character of `text` a terminal would act on (a control character other than newline
    and tab, a bidi control, an invisible one), or None."""
    from evaluator._infra.safe_text import is_invisible

    for ch in text:
        if ch not in "\n\t" and (unicodedata.category(ch) == "Cc" or is_invisible(ch)):
            return f"raw U+{ord(ch):04X}"
    return None


def _bad_figures(value: Any, where: str = "") -> Iterator[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _bad_figures(v, f"{where}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _bad_figures(v, f"{where}/{i}")
    elif isinstance(value, float) and not math.isfinite(value):
        yield f"{where} is {value}"
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
        yield f"{where} is negative ({value})"


def _strict_json(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} in the output")

    return json.loads(text, parse_constant=refuse)


def problem(result: Any, files: list[Path]) -> str | None:
    """What is wrong with `sdeval import`'s answer (a conftest Result), or None when it is right."""
    for stream in (result.stdout, result.stderr):
        raw = shows_raw_control(stream)
        if raw:
            return f"{raw} in the output: {stream[:300]!r}"
    if result.exit_code == 2:
        lines = result.stderr.splitlines()
        if len(lines) != 1 or not lines[0].startswith("sdeval: "):
            return f"exit 2 but stderr is not one 'sdeval: ' line: {result.stderr[:500]!r}"
        if "internal error" in lines[0]:
            return f"internal error: {lines[0][:500]}"
        if not any(lines[0].startswith(f"sdeval: {f}") for f in files):
            return f"the message does not start with the file: {lines[0][:500]}"
        return None
    if result.exit_code != 0:
        return f"exit {result.exit_code}: {result.stderr[:500]!r}"
    if any(not line.startswith("sdeval: ") for line in result.stderr.splitlines()):
        return f"stderr line without 'sdeval: ': {result.stderr[:500]!r}"
    from evaluator.engine.record import Run

    try:
        runs = _strict_json(result.stdout)["runs"]
    except ValueError as exc:
        return f"standard output is not strict JSON: {exc}"
    for run in runs:
        Run.model_validate(run)
        for key in ("counts", "interval", "latency", "reported", "load", "workload", "request_latencies", "goodput", "request_acceptance"):
            bad = next(_bad_figures(run.get(key), f"{run['id']}/{key}"), None)
            if bad:
                return bad
    return None
