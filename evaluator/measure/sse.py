"""A server-sent event stream read as a hostile server may send it.

Splitting: each byte is looked at once (the unfinished line is kept as a list of pieces, joined
once when its end arrives), so a 50 MB event costs what 50 MB costs, not a re-split of the whole
buffer on every read; lines end at LF, CRLF or CR, as the SSE format says (a read holding no CR,
what servers send, is split at its LFs by bytes.split, the same lines at a fraction of the cost); a
byte order mark at the stream's start is dropped, as the format says; an event is capped at
bodies.EVENT (the client reads the stream within bodies.STREAM).

Errors: an event typed `event: error`, and llama.cpp's own `error: {...}` line (its server writes
a failure mid-stream so, where OpenAI's would be `data: {"error": ...}`), end the request as the
failure "stream-error" with the server's message, never as a stream that merely stopped.

Interpreting: an event may hold any JSON value, nested to any depth, with any string in it. What is
not an OpenAI chunk (a `choices` entry that is not an object, a string `delta`, a usage count that
is not a whole number, JSON nested past the parser's limit, a second choice or an index other than
0 where measure asked for one) ends the request as a failure of a named kind (Malformed), never as
an exception; a chunk naming another model than the stream's first is the failure "model-changed".
Nothing read is ever walked recursively.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .bodies import EVENT, BodyProblem

_LINE_END = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"
_ERROR_FIELDS = (b"event", b"error")
# The failures an event can end a request with (beside the client's own).
MALFORMED = "malformed-event"
MODEL_CHANGED = "model-changed"
EVENT_TOO_LARGE = "event-too-large"


class EventReader:
    """Feed it bytes as they arrive; it returns the data of each event they complete."""

    def __init__(self, max_event_bytes: int = EVENT.max_bytes) -> None:
        self.max_event_bytes = max_event_bytes
        self._line: list[bytes] = []  # the pieces of the line not ended yet
        self._line_bytes = 0
        self._data: list[bytes] = []  # the data lines of the event not dispatched yet
        self._event_bytes = 0
        self._after_cr = False  # the last piece ended in CR: an LF first in the next belongs to it
        self._start: bytes | None = b""  # the stream's first bytes while they may still be a BOM; None after
        self._error = False  # the event being read is an error (`event: error`, or llama.cpp's `error:` line)

    def feed(self, chunk: bytes) -> list[bytes]:
        if self._start is not None:
            chunk = self._past_bom(chunk)
        events: list[bytes] = []
        for line in self._lines(chunk):  # (one loop, no call per line: it runs for every chunk of every answer)
            if not line:  # a blank line dispatches the event
                if self._error:
                    events.append(self._error_event())
                elif self._data:
                    events.append(b"\n".join(self._data))
                self._data, self._event_bytes = [], 0
                continue
            name, _, value = line.partition(b":")
            value = value[1:] if value.startswith(b" ") else value
            if name == b"data":  # comments (":...") and the id and retry fields carry nothing here
                self._data.append(value)
                self._event_bytes += len(value) + 1
                if self._event_bytes > self.max_event_bytes:
                    self._too_large()
            elif name in _ERROR_FIELDS:
                self._field(name, value)
        if self._line_bytes + self._event_bytes > self.max_event_bytes:  # with the line not ended yet
            self._too_large()
        return events

    def _past_bom(self, chunk: bytes) -> bytes:
        """`chunk` without the stream's BOM, held back while the bytes so far could still be one."""
        start = self._start + chunk if self._start else chunk
        if len(start) < len(_BOM) and _BOM.startswith(start):
            self._start = start
            return b""
        self._start = None
        return start[len(_BOM) :] if start.startswith(_BOM) else start

    def _field(self, name: bytes, value: bytes) -> None:
        if name == b"error":  # llama.cpp: the line's value is the error
            self._error = True
            self._data.append(value)
            self._event_bytes += len(value) + 1
            if self._event_bytes > self.max_event_bytes:
                self._too_large()
        elif value.strip() == b"error":
            self._error = True

    def _error_event(self) -> bytes:
        """An error event as the data take_event reads as one: {"error": {"message": ...}}."""
        self._error = False
        text = b"\n".join(self._data).decode("utf-8", "replace")
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            value = text
        if isinstance(value, dict):
            value = value.get("error", value)
        message = value.get("message") if isinstance(value, dict) else value
        shown = message if isinstance(message, str) and message else text or "(no message)"
        return json.dumps({"error": {"message": f"{shown[:200]}"}}).encode()

    def _lines(self, chunk: bytes) -> list[bytes]:
        """The lines `chunk` ends, the first joined to what came before it; what it leaves
        unfinished is kept for the next."""
        if self._after_cr or b"\r" in chunk:
            return self._lines_any(chunk)
        # Lines end at LF only (what servers send): one split in C, the same lines as below.
        lines = chunk.split(b"\n")
        tail = lines.pop()  # the unfinished line, empty when the chunk ends a line
        if lines and self._line:
            lines[0] = b"".join((*self._line, lines[0]))
            self._line, self._line_bytes = [], 0
        if tail:
            self._line.append(tail)
            self._line_bytes += len(tail)
        return lines

    def _lines_any(self, chunk: bytes) -> list[bytes]:
        lines: list[bytes] = []
        start = 1 if self._after_cr and chunk[:1] == b"\n" else 0
        self._after_cr = False
        for end in _LINE_END.finditer(chunk, start):
            piece = chunk[start : end.start()]
            lines.append(b"".join((*self._line, piece)) if self._line else piece)
            self._line, self._line_bytes = [], 0
            start = end.end()
            self._after_cr = end.group() == b"\r" and start == len(chunk)
        if start < len(chunk):
            self._line.append(chunk[start:])
            self._line_bytes += len(chunk) - start
        return lines

    def _too_large(self) -> None:
        raise BodyProblem(EVENT_TOO_LARGE, f"a stream event is over the limit of {self.max_event_bytes:,} bytes")


# ------------------------------------------------------------------ interpreting an event


class Malformed(Exception):
    """An event that is not what an OpenAI stream sends; `kind` is the request's failure."""

    def __init__(self, detail: str, kind: str = MALFORMED) -> None:
        super().__init__(detail)
        self.kind, self.detail = kind, detail


def brief(value: Any) -> str:
    """A JSON value in a few words, whatever its size or depth."""
    if isinstance(value, str):
        return json.dumps(value[:200], ensure_ascii=False) + ("..." if len(value) > 200 else "")
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return json.dumps(value)  # a number, true, false or null


_DECODER = json.JSONDecoder()


def parse(data: bytes) -> Any:
    """The event's JSON value; Malformed when it is not JSON or nests past the parser's limit."""
    text = data.decode("utf-8", "replace")
    try:  # a value filling the whole text, as every chunk is: json.loads's own reading, less its checks
        value, end = _DECODER.raw_decode(text)
        if end == len(text):
            return value
    except (ValueError, RecursionError):
        pass
    try:  # anything else (whitespace around the value, a BOM, not JSON) exactly as json.loads reads it
        return json.loads(text)
    except RecursionError:
        raise Malformed("a stream event nests its JSON deeper than measure reads") from None
    except ValueError:  # not JSON, or an integer of more digits than Python converts
        raise Malformed(f"a stream event is not JSON: {text[:80]!r}") from None


def whole_number(value: Any, where: str) -> int | None:
    """A count the server gave: absent (None), or a whole number of at least 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Malformed(f"{where} is {brief(value)}, not a whole number")
    return value


def text_or_none(value: Any, where: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise Malformed(f"{where} is {brief(value)}, not text")
    return value


def object_or_none(value: Any, where: str) -> dict | None:
    if value is not None and not isinstance(value, dict):
        raise Malformed(f"{where} is {brief(value)}, not an object")
    return value


def flat_scalars(value: dict) -> dict[str, Any]:
    """What can be kept of a dict as sent (llama.cpp's timings): its numbers and short texts."""
    return {
        k: v
        for k, v in value.items()
        if isinstance(k, str) and (isinstance(v, (int, float)) and not isinstance(v, bool) or isinstance(v, str) and len(v) <= 200)
    }


def take_event(result: Any, data: bytes, arrived: float) -> bool:
    """Read one event's data into `result` (client.Result); True when the stream is over for the
    client: [DONE], an error event, or an event that makes the request a failure."""
    if data.strip() == b"[DONE]":
        return True
    try:
        return _take(result, parse(data), arrived)
    except Malformed as exc:
        result.outcome, result.detail = exc.kind, exc.detail
        return True


def _take(result: Any, obj: Any, arrived: float) -> bool:
    # Run once per chunk: each field is looked up once and checked inline (the helpers above only
    # word the failure), in the order the failures are reported.
    if not isinstance(obj, dict):
        raise Malformed(f"a stream event is {brief(obj)}, not a JSON object")
    result.chunks += 1
    get = obj.get
    if "error" in obj:
        error = obj["error"]
        message = error.get("message") if isinstance(error, dict) else error
        result.outcome = "stream-error"
        result.detail = f"error event inside the 200 stream: {(message if isinstance(message, str) else brief(message))[:200]}"
        return True
    model = get("model")
    if model is not None and not isinstance(model, str):
        text_or_none(model, "the chunk's model")
    if model:  # (an empty model names none: Azure's first chunk, its content-filter results, has "")
        if result.model is None:
            result.model = model
        elif model != result.model:
            raise Malformed(f"chunk {result.chunks} names model {brief(model)}, the stream began as {brief(result.model)}", MODEL_CHANGED)
    usage = get("usage")
    if usage is not None:
        object_or_none(usage, "usage")
        result.completion_tokens = whole_number(usage.get("completion_tokens"), "usage.completion_tokens")
        result.prompt_tokens = whole_number(usage.get("prompt_tokens"), "usage.prompt_tokens")
        details = object_or_none(usage.get("prompt_tokens_details"), "usage.prompt_tokens_details")
        if details is not None and details.get("cached_tokens") is not None:
            result.cached_tokens = whole_number(details["cached_tokens"], "usage.prompt_tokens_details.cached_tokens")
    timings = get("timings")
    if timings is not None and isinstance(timings, dict):
        result.server_timings = flat_scalars(timings)
    choices = get("choices")
    if choices is None:
        return False
    if not isinstance(choices, list):
        raise Malformed(f"choices is {brief(choices)}, not an array")
    if len(choices) > 1:  # measure sends n=1: a second choice's text is not this answer's
        raise Malformed(f"chunk {result.chunks} carries {len(choices)} choices; measure asked for one (n=1)")
    for i, choice in enumerate(choices):
        if not isinstance(choice, dict):
            raise Malformed(f"choices[{i}] is {brief(choice)}, not an object")
        index = choice.get("index")
        if index != 0 and index is not None:  # (0 first: the one compare an honest chunk costs)
            raise Malformed(f"choices[{i}] has index {brief(index)}; measure asked for one choice (n=1), index 0")
        delta = choice.get("delta")
        if delta is not None:  # a chat chunk: content or reasoning
            if not isinstance(delta, dict):
                object_or_none(delta, f"choices[{i}].delta")
            text = _text(delta, "content", i, "delta.")
            if len(delta) > 1 or "content" not in delta:  # (a delta holding content alone is the usual one)
                text += _text(delta, "reasoning_content", i, "delta.") + _text(delta, "reasoning", i, "delta.")
        else:  # a completions chunk
            text = _text(choice, "text", i, "")
        if text:
            result.content_chunks += 1
            result.pieces.append(text)
            if result.first_token is None:
                result.first_token = arrived
        finish = choice.get("finish_reason")
        if finish is not None and not isinstance(finish, str):
            text_or_none(finish, f"choices[{i}].finish_reason")
        if finish:
            result.finish_reason = finish
            result.finished = arrived
    return False


def _text(holder: dict, key: str, i: int, inside: str) -> str:
    """holder[key]: absent or null gives "", text is taken as sent, anything else is Malformed."""
    value = holder.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        text_or_none(value, f"choices[{i}].{inside}{key}")
    return value
