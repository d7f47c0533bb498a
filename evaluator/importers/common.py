"""What every importer shares: the error it raises, where a run came from, and exact conversions.

An importer returns `Imported` pieces (run fields without id, configuration or arrangement);
the package (__init__.py) names them and validates each against the record's `Run` model.
Conversions here never guess: a value the source does not carry stays missing.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine.loader import UnreadableFile, read_bytes

# Whole-document formats (JSON files) are read in one piece, up to this size.
MAX_DOCUMENT_BYTES = 512 * 1024 * 1024
# A line of a JSON Lines file is at most this long: read whole, a file of one endless line (a
# gigabyte without a newline) would otherwise take its size in memory, and more to parse.
MAX_LINE_BYTES = 64 * 1024 * 1024


class ImportProblem(Exception):
    """The input cannot be imported; the message names the file and the place (exit 2)."""


@contextmanager
def figures_of(path: Path) -> Iterator[None]:
    """Reading `path` and its figures: a read the system fails part way (EIO from /proc/self/mem, a
    file made unreadable) is said naming the file; a figure too large for a float (10**400, or a
    product of two huge ones) or for the record's limits, met while an importer computes with it, is
    refused naming the file and the field, as a figure the record's own check refuses is. Never an
    internal error."""
    try:
        yield
    except OSError as exc:
        raise ImportProblem(f"{getattr(exc, 'filename', None) or path}: cannot read ({exc.strerror or exc})") from None
    except OverflowError:
        raise ImportProblem(
            f"{path}: holds a figure too large to compute with (beyond 1.8e308, or an infinite one where a finite one is needed)"
        ) from None
    except ValueError as exc:
        from pydantic import ValidationError

        if not isinstance(exc, ValidationError):
            raise
        first = exc.errors()[0]
        where = "/".join(str(x) for x in (_snake(exc.title), *first["loc"]))
        raise ImportProblem(f"{path}: the imported figures do not fit the record at {where}: {first['msg']}") from None


def _snake(name: str) -> str:
    """RequestAcceptance -> request_acceptance: the record field a model is the value of."""
    import re

    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@dataclass
class Imported:
    """One run's fields as read from a source, before it gets an id and a configuration."""

    fields: dict[str, Any]
    source: dict[str, Any]
    speculative: bool  # the source carries speculative-decoding counts or figures
    warnings: list[str] = field(default_factory=list)


def sha256_of(path: Path) -> str:
    try:
        with open(path, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError as exc:
        raise ImportProblem(f"{path}: cannot read ({exc.strerror})") from None


class HashedLines:
    """A file's lines (bytes, with their line breaks), its SHA-256 taken over them as they are
    read: the hash is of the bytes imported, and the file is read once.

        with HashedLines(path) as lines:
            for number, line in enumerate(lines, 1): ...
            sha = lines.sha256()   # the rest of the file too, if the loop stopped early"""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._hash = hashlib.sha256()
        try:
            self._fh = open(path, "rb")
        except OSError as exc:
            raise ImportProblem(f"{path}: cannot read ({exc.strerror})") from None

    def __enter__(self) -> HashedLines:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._fh.close()

    def __iter__(self) -> Iterator[bytes]:
        update, readline, at = self._hash.update, self._fh.readline, 0
        while line := readline(MAX_LINE_BYTES + 1):
            if len(line) > MAX_LINE_BYTES:
                raise ImportProblem(f"{self.path}: byte {at + 1}: a line runs on for over {MAX_LINE_BYTES} bytes, the limit for one line")
            update(line)
            at += len(line)
            yield line

    def sha256(self) -> str:
        while block := self._fh.read(1 << 20):
            self._hash.update(block)
        return self._hash.hexdigest()


# Parallel sizes as tools write them: vLLM's engine arguments (as `vllm bench sweep` merges the
# serve parameters it varied into each result, dashes or underscores), SGLang's ServerArgs (in
# bench_serving's server_info), TensorRT-LLM's world_info.
_PARALLEL_KEYS = {
    "tensor": ("tensor_parallel_size", "tp_size"),
    "pipeline": ("pipeline_parallel_size", "pp_size"),
    "data": ("data_parallel_size", "dp_size"),
    "expert": ("expert_parallel_size", "ep_size"),
    "context": ("decode_context_parallel_size",),
}


def parallel_sizes(settings: Any) -> dict[str, int] | None:
    """The parallel sizes a tool's settings state, as the record's Parallelism; None when none."""
    if not isinstance(settings, dict):
        return None
    flat = {str(k).lstrip("-").replace("-", "_"): v for k, v in settings.items()}
    out = {}
    for name, keys in _PARALLEL_KEYS.items():
        size = next((count(flat[k]) for k in keys if k in flat and not isinstance(flat[k], bool)), None)
        if size:
            out[name] = size
    # vLLM --enable-expert-parallel spreads the experts over tensor x data parallel ranks (data
    # parallel 1 unless stated).
    if flat.get("enable_expert_parallel") is True and "expert" not in out and "tensor" in out:
        out["expert"] = out["tensor"] * out.get("data", 1)
    return out or None


def source(
    fmt: str,
    path: Path,
    sha256: str,
    tool_version: Any = None,
    entry: str | None = None,
    *,
    model: Any = None,
    tokenizer: Any = None,
    parallelism: dict[str, int] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"format": fmt, "file": path.name, "sha256": sha256}
    if parallelism:
        out["parallelism"] = parallelism
    if tool_version not in (None, ""):
        out["tool_version"] = str(tool_version)
    if entry is not None:
        out["entry"] = entry
    # The model and tokenizer the file names (the first, for a run over several), where they are
    # plain names: a name holding control characters is not kept (the record refuses them).
    for key, value in (("model", model), ("tokenizer", tokenizer)):
        value = value[0] if isinstance(value, list) and value else value
        if isinstance(value, str) and value.strip() and value.isprintable():
            out[key] = value.strip()[:500]
    return out


# A top-level JSON array is read as the value of this one-key object, through the same strict
# loader records use (which takes objects only); it adds 5 columns to line 1.
_ARRAY_WRAP = b'{"_":'


def read_json_document(path: Path, fmt: str, arrays: bool = False) -> tuple[Any, str]:
    """A whole JSON (or YAML) file and its SHA-256, or an ImportProblem naming the line and column.
    With `arrays`, a JSON array at the top level is read too. A file that does not parse but
    looks like another format's output (a Prometheus scrape, say) is named as that format
    instead of getting the parser's complaint."""
    try:
        raw = read_bytes(str(path), MAX_DOCUMENT_BYTES)
    except UnreadableFile as exc:
        raise ImportProblem(str(exc)) from None
    return _json_document(path, raw, fmt, arrays)


def _json_document(path: Path, raw: bytes, fmt: str, arrays: bool) -> tuple[Any, str]:
    from ..engine.loader import load_bytes
    from .sniff import describe_guess

    wrapped = arrays and raw.lstrip()[:1] == b"["
    loaded = load_bytes(str(path), _ARRAY_WRAP + raw + b"}" if wrapped else raw)
    if loaded.problem is not None:
        guess = describe_guess(path, fmt)
        if guess:
            raise ImportProblem(f"{path}: is neither JSON nor YAML, so it is not {fmt} output{guess}")
        problem = loaded.problem
        if wrapped and problem.line == 1 and problem.column is not None:
            problem.column = max(1, problem.column - len(_ARRAY_WRAP))
        raise ImportProblem(f"{path}: {problem.where()}{problem.message}")
    if wrapped:
        return loaded.data["_"], hashlib.sha256(raw).hexdigest()
    return loaded.data, loaded.sha256


def json_entries(path: Path, fmt: str, arrays: str | None = None) -> tuple[list[tuple[str | None, dict]], str]:
    """A file holding one JSON object, or one object per line (benchmark tools' append form), or,
    when `arrays` names what writes them, an array of objects: the objects, each with where it
    stood ("line 3", "[2]", or None for a whole-file object), and the file's SHA-256."""
    raw: bytes | None = None
    unread: ImportProblem | None = None
    try:
        raw = read_bytes(str(path), MAX_DOCUMENT_BYTES)
    except UnreadableFile as exc:  # too large for a whole document, say: lines are read as a stream
        unread = ImportProblem(str(exc))
    if raw is not None:
        starts_like_object = raw[:1] == b"{"
    else:
        with open(path, "rb") as fh:
            starts_like_object = fh.read(1) == b"{"
    try:
        if unread is not None:
            raise unread
        assert raw is not None  # unread otherwise, raised above
        data, sha = _json_document(path, raw, fmt, arrays=bool(arrays))
        if arrays and isinstance(data, list) and data and all(isinstance(item, dict) for item in data):
            return [(f"[{i}]", item) for i, item in enumerate(data)], sha
        if not isinstance(data, dict):
            from .sniff import describe_guess

            what = "an array" if isinstance(data, list) else "not a JSON object"
            expected = f"an object, or an array of objects ({arrays})" if arrays else "an object"
            raise ImportProblem(f"{path}: the top level is {what}, where {fmt} output is {expected}{describe_guess(path, fmt)}")
        return [(None, data)], sha
    except ImportProblem:
        if not starts_like_object:
            raise
    found: list[tuple[str | None, dict]] = []
    # The bytes already read (split as a file's lines are), or a stream hashed as it is read.
    with nullcontext(io.BytesIO(raw)) if raw is not None else HashedLines(path) as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            item = parse_json_line(path, number, line)
            if not isinstance(item, dict):
                raise ImportProblem(f"{path}: line {number}: not a JSON object")
            found.append((f"line {number}", item))
        return found, hashlib.sha256(raw).hexdigest() if raw is not None else lines.sha256()  # type: ignore[union-attr]  # HashedLines exactly when raw is None


def import_entries(path: Path, fmt: str, run_fields, arrays: str | None = None) -> list[Imported]:
    """One run per JSON object of the file; run_fields(object, path, entry) -> (fields, speculative)
    or (fields, speculative, tool version)."""
    found, sha = json_entries(path, fmt, arrays)
    out = []
    for entry, d in found:
        fields, speculative, *version = run_fields(d, path, entry)
        # vllm bench serve and SGLang's bench_serving both name the model and tokenizer so.
        # Parallel sizes: a vllm bench sweep result's merged serve parameters, or SGLang's server_info.
        sizes = parallel_sizes(d) or parallel_sizes(d.get("server_info"))
        found_source = source(
            fmt, path, sha, version[0] if version else None, entry=entry, model=d.get("model_id"), tokenizer=d.get("tokenizer_id"), parallelism=sizes
        )
        out.append(Imported(fields=fields, source=found_source, speculative=speculative))
    return out


def parse_json_line(path: Path, number: int, line: bytes) -> Any:
    """One line of a JSON Lines file, read as strictly as a record (UTF-8, no duplicate key, nesting
    within bounds), except that NaN and Infinity are read (Python's json writes them; the
    conversions below never take one as a figure)."""
    from ..engine.loader import ParseProblem, parse_json_value, utf8_text

    try:
        return parse_json_value(utf8_text(line), nonfinite=True)
    except ParseProblem as problem:
        column = f", column {problem.column}" if problem.line == 1 and problem.column is not None else ""
        message = problem.message.removeprefix("not valid JSON: ")
        what = f"not valid JSON ({message})" if message != problem.message else message
        raise ImportProblem(f"{path}: line {number}{column}: {what}") from None


# ------------------------------------------------------------------ exact conversions


def count(value: Any) -> int | None:
    """A count as an int: 128000 and 128000.0 are counts, 12.5 and True are not."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and value >= 0:
        return int(value)
    return None


def number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


def core(d: dict, key: str, where: str, convert=count) -> Any:
    """d[key] by `convert` (count or number), for a figure a run rests on (its E, S, P, A, requests,
    duration): missing or null stays missing, but a value that is there and is no such figure (true,
    "12", -5, NaN, Infinity, 12.5 for a count, a list) is refused at its key rather than dropped in
    silence, since the record would then lack a figure the file seemed to give."""
    value = d.get(key)
    if value is None:
        return None
    out = convert(value)
    if out is None:
        what = "a count (a whole number, 0 or more)" if convert is count else "a finite number, 0 or more"
        raise ImportProblem(f"{where}: {key}: {_written(value)} is not {what}")
    return out


def _written(value: Any) -> str:
    """A value as the file wrote it, cut short (NaN and Infinity as Python's json writes them)."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def percent_to_fraction(value: Any) -> float | None:
    """Tools that report 61.2 (%) mean 0.612; computed on the decimal as written, not the binary float."""
    from fractions import Fraction

    v = number(value)
    if v is None or v > 100:
        return None
    return float(Fraction(repr(v)) / 100)


def histogram(value: Any, where: str) -> list[int] | None:
    """Dense list [39, 1, 0, 3] or string-keyed object {"0": 39, "1": 1, "3": 3}, as a dense list."""
    if value is None:
        return None
    if isinstance(value, list):
        out = [count(v) for v in value]
        if any(v is None for v in out):
            raise ImportProblem(f"{where}: histogram entries must be non-negative whole numbers")
        return out  # type: ignore[return-value]  # none is None: refused above
    if isinstance(value, dict):
        dense: dict[int, int] = {}
        for key, v in value.items():
            if not (isinstance(key, str) and key.isdigit()) or count(v) is None:
                raise ImportProblem(f"{where}: histogram key {json.dumps(key)} is not a number of accepted drafts")
            dense[int(key)] = count(v)  # type: ignore[assignment]  # not None: refused above
        if not dense:
            return []
        return [dense.get(j, 0) for j in range(max(dense) + 1)]
    raise ImportProblem(f"{where}: histogram is neither a list nor an object")


def drop_none(data: dict[str, Any]) -> dict[str, Any]:
    """Nested dicts without missing values (and without sections left empty)."""
    out = {}
    for key, value in data.items():
        if isinstance(value, dict):
            value = drop_none(value)
            if not value:
                continue
        if value is not None:
            out[key] = value
    return out


def percentiles(mean: Any = None, p50: Any = None, p90: Any = None, p95: Any = None, p99: Any = None, *, scale: float = 1.0) -> dict | None:
    values = {"mean": mean, "p50": p50, "p90": p90, "p95": p95, "p99": p99}
    out = {k: n * scale for k, v in values.items() if (n := number(v)) is not None}
    return out or None


def serving_load(d: dict, sent: int | None, concurrency_key: str = "max_concurrency", sent_is: str = "") -> tuple[dict, str | None]:
    """The load of vLLM's and SGLang's serving benchmarks, and a note when it had to be read.

    `request_rate` is a rate (open loop, with `max_concurrency` as a cap when set) or infinite
    ("inf" from vLLM, Infinity from SGLang): then `max_concurrency` bounds a closed loop, and
    without it every request is sent at once: a burst, an open loop with every request in flight at
    the start and fewer as they finish, never a closed loop at concurrency = requests sent."""
    raw = d.get("request_rate")
    infinite = raw == "inf" or (isinstance(raw, float) and math.isinf(raw) and raw > 0)
    rate = None if infinite else number(raw)
    cap = count(d.get(concurrency_key)) or None
    if rate is not None:
        return {"request_rate": rate, "concurrency": cap, "loop": "open"}, None
    if cap is not None:
        return {"concurrency": cap, "loop": "closed"}, None
    if infinite and sent:
        return {"concurrency": sent, "loop": "open"}, (
            f"request_rate is infinite and max_concurrency unset: all {sent} requests{sent_is} were sent at once "
            f"(a burst: at most {sent} in flight, fewer as they finished; not a closed loop at concurrency {sent})."
        )
    return {}, None


def serving_latency(d: dict, metric: str) -> dict | None:
    """Latency from the flat mean_/median_/pNN_<metric>_ms keys of vLLM's and SGLang's serving benchmarks."""
    return percentiles(*(d.get(f"{stat}_{metric}_ms") for stat in ("mean", "median", "p90", "p95", "p99")))


# A client-side benchmark times each run from its first request sent to its last response
# received: one clock, everything the server does in between included.
CLIENT_WALL_CLOCK = {
    "start_event": "first benchmark request sent by the client",
    "end_event": "last benchmark response received by the client",
    "scope": "end-to-end",
    "measurement": "complete-interval",
}


def version_tuple(text: Any) -> tuple[int, ...] | None:
    """(0, 8, 1) for "0.8.1" or "v0.8.1rc2": the numeric release a tool wrote, or None."""
    import re

    found = re.match(r"v?(\d+)\.(\d+)(?:\.(\d+))?", text) if isinstance(text, str) else None
    return tuple(int(g) for g in found.groups() if g is not None) if found else None


def untested_note(tool: str, version: Any, tested: tuple[int, ...]) -> str | None:
    """A note for a file from a release newer than the one the tests ran the tool at: read as that one."""
    found = version_tuple(version)
    if found is None or found[: len(tested)] <= tested:
        return None
    shown = ".".join(map(str, tested))
    return f"{tool} {version} is newer than {tool} {shown}, the version sdeval was tested on by running it: read as {shown} writes its files."


def request_acceptance(per_request: Counter, source: str) -> dict[str, Any] | None:
    """Record 1.3 runs[].request_acceptance from a tally of (P, A, S) -> requests, by the one builder."""
    # Here, not at the top: the registry imports this module, and `sdeval --version` and help
    # must not load the record models the builder makes.
    from ..engine.request_acceptance import RequestCounts, distribution

    counts = [RequestCounts(p, a, s, requests=n) for (p, a, s), n in sorted(per_request.items(), key=repr) if n > 0]
    built = distribution(counts, source)
    return None if built is None else built.model_dump(exclude_none=True)
