"""Read a record file (JSON or YAML) into plain JSON data, or say exactly why not.

A file that cannot be read as a record is a `parse` finding, not a crash. Both
readers refuse what another JSON parser would read differently: duplicate keys,
NaN/Infinity (and 1e999, which overflows to Infinity), and, for YAML, anything
beyond plain JSON data (tags that construct objects, YAML 1.1 booleans such as
`no`, sexagesimal numbers such as `1:30`, timestamps).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .._infra.reading import DEFAULT_MAX_BYTES, UnreadableFile, read_bytes, read_stdin  # noqa: F401  (the loader's own errors)
from .._infra.safe_text import SURROGATE

MAX_DEPTH = 64


class ParseProblem(Exception):
    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    def where(self) -> str:
        if self.line is None:
            return ""
        return f"line {self.line}, column {self.column}: "


def pointer(path: tuple[str | int, ...]) -> str:
    """RFC 6901 JSON Pointer for a path of keys and indexes (how positions and findings are keyed)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


@dataclass
class LoadedFile:
    path: str
    raw: bytes
    sha256: str
    data: Any = None
    problem: ParseProblem | None = None
    # JSON Pointer -> (line, column) of each value, and -> the text of each number as written.
    # YAML fills both while it builds the data; for JSON they are read from the text the first
    # time a finding or a report asks (most valid records never need them).
    _positions: dict[str, tuple[int, int]] | None = field(default=None, repr=False)
    _written: dict[str, str] | None = field(default=None, repr=False)

    def _scan(self) -> None:
        self._positions, self._written = {}, {}
        if self.problem is None and self.data is not None:
            self._positions, self._written = _json_positions(self.raw.decode("utf-8"))

    @property
    def positions(self) -> dict[str, tuple[int, int]]:
        if self._positions is None:
            self._scan()
        assert self._positions is not None  # _scan set it
        return self._positions

    def position(self, at: str) -> tuple[int | None, int | None]:
        """Line and column of the value at `at`, or of its nearest enclosing value that is in the
        file (a missing field is reported where its object is)."""
        return _position_in(self.positions, at)

    def written(self, at: str) -> str | None:
        """The number at `at` exactly as its author wrote it ("1.90", "2226"), or None."""
        if self._written is None:
            self._scan()
        assert self._written is not None  # _scan set it
        return self._written.get(at)


def _position_in(positions: dict[str, tuple[int, int]], at: str) -> tuple[int | None, int | None]:
    while True:
        if at in positions:
            return positions[at]
        if not at:
            return None, None
        at = at[: at.rfind("/")]


def load_file(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> LoadedFile:
    """`-` reads standard input, reported as <stdin>."""
    if path == "-":
        return load_bytes("<stdin>", read_stdin(max_bytes))
    raw = read_bytes(path, max_bytes)
    if raw.startswith(b"%PDF-"):  # a report given where a record belongs: say which command reads it
        raise UnreadableFile(f"{path}: a signed report (PDF), not an evidence record: use `sdeval verify {path}`")
    return load_bytes(path, raw)


def utf8_text(raw: bytes) -> str:
    """A file's (or a line's) text, or a ParseProblem at the first byte that is not UTF-8; a file
    that starts with a byte-order mark is said as what to do about it: a UTF-16 or UTF-32 one
    (Windows editors, PowerShell's `>`) is not UTF-8 at all (_other_encoding); a UTF-8 one is not JSON."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raise ParseProblem("starts with a UTF-8 byte-order mark; save the file as UTF-8 without BOM", 1, 1)
    if (encoding := _other_encoding(raw)) is not None:
        raise ParseProblem(f"{encoding}; save the file as UTF-8", 1, 1)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ParseProblem(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})", line, col) from None


def load_bytes(path: str, raw: bytes) -> LoadedFile:
    loaded = LoadedFile(path=path, raw=raw, sha256=hashlib.sha256(raw).hexdigest())
    try:
        text = utf8_text(raw)
        if _is_yaml(path, text):
            loaded.data, loaded._positions, loaded._written = _parse_yaml(text)
        else:
            loaded.data = parse_json_value(text)
            if _too_deep(loaded.data):
                raise _depth_problem(text)
        if _SURROGATE_ESCAPE.search(text) is not None:
            _refuse_surrogates(loaded, text)
        if not isinstance(loaded.data, dict):
            raise ParseProblem(f"the top level is {_json_type(loaded.data)}, not an object")
    except ParseProblem as problem:
        loaded.data = None
        loaded.problem = problem
    return loaded


# A string can hold a UTF-16 surrogate only by an escape (\ud800 in JSON and YAML, \U0000d800 in
# YAML): UTF-8 text cannot carry one. Such a string cannot be written out as UTF-8 again (a page,
# a report, a terminal), so it is refused here, where the file is read, for every command alike.
_SURROGATE_ESCAPE = re.compile(r"\\(?:u|U0000)[dD][89a-fA-F]")


def _refuse_surrogates(loaded: LoadedFile, text: str) -> None:
    """A ParseProblem at the first string (key or value, in document order) holding a surrogate
    code point, with no other half to pair (JSON pairs them; what is left is alone)."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(loaded.data, ())]
    while stack:
        value, path = stack.pop()
        found, what = None, "the text at"
        if isinstance(value, str):
            found = SURROGATE.search(value)
        elif isinstance(value, dict):
            found = next((m for m in map(SURROGATE.search, value) if m is not None), None)
            what = "a key in"
            stack.extend(reversed([(v, (*path, k)) for k, v in value.items()]))
        elif isinstance(value, list):
            stack.extend(reversed([(v, (*path, i)) for i, v in enumerate(value)]))
        if found is not None:
            at = pointer(path)
            positions = loaded._positions if loaded._positions is not None else _json_positions(text)[0]
            raise ParseProblem(
                f"{what} {at or 'the top level'} holds the UTF-16 surrogate \\u{ord(found.group(0)):04x} on its own, "
                "which is no character (UTF-8 cannot write it); write the character itself",
                *_position_in(positions, at),
            )


_BYTE_ORDER_MARKS = (  # UTF-32 first: its little-endian mark starts with UTF-16's
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"),
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
    (b"\xff\xfe", "UTF-16 (little-endian)"),
    (b"\xfe\xff", "UTF-16 (big-endian)"),
)


def _other_encoding(raw: bytes) -> str | None:
    """How a file saved as UTF-16 or UTF-32 (Windows editors and PowerShell's default) gives itself
    away, in words, or None: its byte-order mark, or, without one, a NUL in every other byte of
    ASCII text, which UTF-8 text never holds."""
    for mark, encoding in _BYTE_ORDER_MARKS:
        if raw.startswith(mark):
            return f"is {encoding} text (it starts with that byte-order mark), not UTF-8"
    head = raw[:256]
    if len(head) >= 4 and any(head) and head.count(0) * 2 >= len(head) - 1 and (not any(head[1::2]) or not any(head[0::2])):
        return "looks like UTF-16 text without a byte-order mark (a NUL in every other byte), not UTF-8"
    return None


def _is_yaml(path: str, text: str) -> bool:
    """By extension; a file without one (or standard input) is JSON when it starts like JSON."""
    suffix = Path(path).suffix.lower()
    if suffix in (".yaml", ".yml"):
        return True
    if suffix == ".json":
        return False
    return not text.lstrip().startswith(("{", "["))


def _json_type(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")


def _too_deep(data: Any) -> bool:
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return False


_JSON_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _depth_problem(text: str) -> ParseProblem:
    """Where a JSON text first opens level MAX_DEPTH + 1 (looked for only once it is too deep)."""
    depth, deepest = 0, None
    for match in _JSON_NESTING.finditer(text):
        token = match.group(0)
        if token in "[{":
            depth += 1
            if depth == MAX_DEPTH and deepest is None:
                deepest = match.start()  # a value inside this one is level MAX_DEPTH + 1
            if depth > MAX_DEPTH:
                deepest = match.start()
                break
        elif token in "]}":
            depth -= 1
    if deepest is None:
        return ParseProblem(f"nested deeper than {MAX_DEPTH} levels")
    line = text.count("\n", 0, deepest) + 1
    return ParseProblem(f"nested deeper than {MAX_DEPTH} levels", line, deepest - (text.rfind("\n", 0, deepest) + 1) + 1)


# ------------------------------------------------------------------------------ JSON


class _DuplicateKey(Exception):
    pass


def _pairs_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


class _RefusedNumber(ValueError):
    """A number JSON's decoder reads but a record cannot hold; `token` as the file writes it."""

    def __init__(self, token: str, message: str):
        super().__init__(message)
        self.token = token


def _refuse_constant(name: str) -> float:
    raise _RefusedNumber(name, f"{name} is not a number in JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _RefusedNumber(text, f"{text} is too large for a number")
    return value


def parse_json_value(text: str, *, nonfinite: bool = False) -> Any:
    """One JSON value as records are read (no duplicate key, no NaN or Infinity, no number that
    overflows, nesting within the interpreter's limit), or a ParseProblem with its line and column.
    With `nonfinite`, NaN and Infinity as Python's json module writes them are read (SGLang's
    bench_serving writes its infinite request_rate so); a figure read from them must be checked."""
    try:
        return json.loads(
            text,
            object_pairs_hook=_pairs_without_duplicates,
            parse_constant=None if nonfinite else _refuse_constant,
            parse_float=None if nonfinite else _finite_float,
        )
    except json.JSONDecodeError as exc:
        if exc.msg == "Invalid control character at":  # the decoder's words end where the position was
            raise ParseProblem(
                f"not valid JSON: the control character {_char_name(text[exc.pos])} stands unescaped in a string", exc.lineno, exc.colno
            ) from None
        raise ParseProblem(f"not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except _RefusedNumber as exc:
        raise ParseProblem(str(exc), *_locate_token(text, exc.token)) from None
    except _DuplicateKey as exc:
        key = exc.args[0]
        line, col = _locate_key(text, key)
        raise ParseProblem(f"duplicate key {json.dumps(key)}", line, col) from None
    except ValueError as exc:
        raise ParseProblem(str(exc)) from None
    except RecursionError:  # the decoder's own guard, at the interpreter's recursion limit
        raise _depth_problem(text) from None


def _locate_key(text: str, key: str) -> tuple[int | None, int | None]:
    """Position of the second occurrence of a key, good enough to point a person at it."""
    needle = json.dumps(key)
    first = text.find(needle)
    second = text.find(needle, first + 1) if first >= 0 else -1
    at = second if second >= 0 else first
    if at < 0:
        return None, None
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def _locate_token(text: str, token: str) -> tuple[int | None, int | None]:
    """Line and column of the first `token` outside a string (a number or a constant the decoder refused)."""
    for match in re.finditer(r'"(?:[^"\\]|\\.)*"|' + re.escape(token), text):
        if not match.group(0).startswith('"'):
            at = match.start()
            return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1
    return None, None


def _char_name(ch: str) -> str:
    import unicodedata

    name = unicodedata.name(ch, "") or {"\x00": "NUL", "\x1b": "ESCAPE", "\t": "TAB", "\n": "LINE FEED", "\r": "CARRIAGE RETURN"}.get(ch, "")
    return f"U+{ord(ch):04X}" + (f" ({name})" if name else "")


# The text of a JSON document that json.loads accepted, as tokens: whitespace is all that lies between.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null')


def _json_positions(text: str) -> tuple[dict[str, tuple[int, int]], dict[str, str]]:
    """Line and column of every value of a valid JSON text, and every number's text, by JSON Pointer.
    The standard decoder keeps no positions, so the text is walked once more, token by token."""
    positions: dict[str, tuple[int, int]] = {}
    written: dict[str, str] = {}
    # One frame per open container: [pointer, is_object, next key or index, expecting a key].
    stack: list[list[Any]] = []
    line, line_start, last = 1, 0, 0
    for match in _JSON_TOKEN.finditer(text):
        token, at = match.group(0), match.start()
        newlines = text.count("\n", last, at)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", last, at) + 1
        last = at
        if token in ",:":
            if token == "," and stack:
                top = stack[-1]
                if top[1]:
                    top[3] = True
                else:
                    top[2] += 1
            continue
        if token in "}]":
            stack.pop()
            continue
        frame = stack[-1] if stack else None
        if frame is not None and frame[1] and frame[3]:
            frame[2] = json.loads(token)  # a key
            frame[3] = False
            continue
        if frame is None:
            here = ""
        else:
            step = str(frame[2])
            here = frame[0] + "/" + step.replace("~", "~0").replace("/", "~1")
        positions[here] = (line, at - line_start + 1)
        if token == "{":
            stack.append([here, True, None, True])
        elif token == "[":
            stack.append([here, False, 0, False])
        elif token[0] in "-0123456789":
            written[here] = token
    return positions, written


# ------------------------------------------------------------------------------ YAML


def _compose_node_within_depth(self, parent, index):
    """PyYAML's scanner and parser keep their nesting on lists; its composer recurses, once per
    level. Refuse level MAX_DEPTH + 1 before composing it, where the file opens it."""
    self.depth = getattr(self, "depth", 0) + 1
    try:
        if self.depth > MAX_DEPTH:
            mark = self.peek_event().start_mark
            raise ParseProblem(f"nested deeper than {MAX_DEPTH} levels", mark.line + 1, mark.column + 1)
        return yaml.composer.Composer.compose_node(self, parent, index)
    finally:
        self.depth -= 1


class _JsonYamlLoader(yaml.SafeLoader):
    """SafeLoader restricted to JSON data with YAML 1.2 core scalars.

    PyYAML's SafeLoader follows YAML 1.1: `no` is False, `1:30` is 90, `2024-01-01`
    is a date. Evidence copied from a vendor's slide must mean what it says, so
    only true/false, null, decimal integers and decimal floats are resolved.
    """

    compose_node = _compose_node_within_depth


_JsonYamlLoader.yaml_implicit_resolvers = {}

for _tag, _pattern, _first in (
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:int", r"^[-+]?[0-9]+$", list("-+0123456789")),
    (
        "tag:yaml.org,2002:float",
        r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$",
        list("-+.0123456789"),
    ),
    ("tag:yaml.org,2002:float", r"^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", list("-+.")),
):
    _JsonYamlLoader.add_implicit_resolver(_tag, re.compile(_pattern), _first)

try:
    from yaml._yaml import CParser as _CParser
except ImportError:  # PyYAML built without libyaml: the pure-Python loader reads everything
    _CParser = None  # type: ignore[misc,assignment]  # the optional-import idiom mypy does not follow


class _ReadWithPython(Exception):
    """libyaml might read this document otherwise than PyYAML's pure-Python reader (the rule here)."""


if _CParser is not None:

    class _CJsonYamlLoader(yaml.composer.Composer, _CParser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
        """libyaml's C scanner and parser (some 15 times faster than PyYAML's pure-Python ones) under
        the same Python composer, resolvers and depth guard as _JsonYamlLoader, so the node tree,
        its tags and its marks are those the pure-Python loader builds. Composer comes first in the
        order, so get_single_node is the Python composer's, with the depth check before each level
        (libyaml's own composer would recurse in C with none).

        A document where the two could differ is left to the pure-Python loader (_ReadWithPython):
        one with a tag (libyaml and PyYAML resolve the non-specific tag `!` on an empty node
        differently, a string against null; records hardly ever carry tags), or with an empty
        key or value, or a plain scalar holding `?`, in a flow collection. _parse_yaml also keeps
        from it the texts of _C_READS_OTHERWISE."""

        def __init__(self, stream: str):
            _CParser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

        def compose_node(self, parent, index):
            event = self.peek_event()
            if getattr(event, "tag", None) is not None:
                raise _ReadWithPython
            if parent is not None and parent.flow_style and isinstance(event, yaml.ScalarEvent):
                # In a flow collection: an empty key or value (`{a: }`), which PyYAML places just
                # after the `:` or `?` and libyaml at the next token; a plain scalar holding `?`
                # (`[a?b]`), which libyaml reads and PyYAML refuses.
                # (Parser events always carry their marks; PyYAML's stubs allow None.)
                if event.start_mark.index == event.end_mark.index or (not event.style and "?" in event.value):  # type: ignore[union-attr]
                    raise _ReadWithPython
            return _compose_node_within_depth(self, parent, index)

    _CJsonYamlLoader.yaml_implicit_resolvers = _JsonYamlLoader.yaml_implicit_resolvers

# What libyaml reads otherwise than PyYAML's pure-Python reader, found by running both on the
# hostile cases and on some 400,000 random texts of YAML's indicators and dumped data, mutated
# (tests/engine/test_loader.py keeps the cases and a smaller comparison). A document with any of these is
# read by the pure-Python loader alone:
# - a tab, which libyaml takes as separation after `:`, at a line's end or inside flow collections,
#   where PyYAML refuses the file ("found character '\t' that cannot start any token");
# - a byte-order mark after the start (U+FEFF), which libyaml skips and PyYAML keeps as text;
# - the line breaks NEL, LS and PS, and a CR not followed by LF: the two count lines in different
#   code (PyYAML's reader, libyaml's scanner). They were seen to differ only on a last line without
#   its break (below), but records hardly hold these breaks, so they are left to PyYAML too;
# - a block scalar's header followed by `#` with no space (`|#`, `>-#`), which libyaml takes as a
#   comment and PyYAML refuses;
# - (in _parse_yaml) a last line without its line break: libyaml ends such a stream on a line of
#   its own, so a value left empty there (`key:`) would be placed a line further down.
_C_READS_OTHERWISE = re.compile("[\t\ufeff\x85\u2028\u2029]|\r(?!\n)|[|>][-+0-9]{0,2}#")

_ALLOWED_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:map",
    "tag:yaml.org,2002:seq",
}
MAX_YAML_NODES = 200_000


def _parse_yaml(text: str) -> tuple[Any, dict[str, tuple[int, int]], dict[str, str]]:
    node = None
    if _CParser is not None and text.endswith("\n") and _C_READS_OTHERWISE.search(text) is None:
        try:
            node = _compose(_CJsonYamlLoader, text)
        except (yaml.YAMLError, ParseProblem, _ReadWithPython):
            # libyaml words its errors (and places some) otherwise: the pure-Python loader says why,
            # as it always has. Only a document that fails (or is empty) pays for a second reading.
            node = None
    if node is None:
        node = _compose_or_say_why(text)
    positions: dict[str, tuple[int, int]] = {}
    written: dict[str, str] = {}
    budget = [MAX_YAML_NODES]
    return _yaml_node_to_data(node, "", positions, budget, set(), written), positions, written


def _compose(loader_class: type, text: str) -> yaml.Node | None:
    loader = loader_class(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def _compose_or_say_why(text: str) -> yaml.Node:
    """The pure-Python loader's reading, or a ParseProblem in its words."""
    loader = None
    try:
        loader = _JsonYamlLoader(text)
        node = loader.get_single_node()
    except (ValueError, OverflowError):
        # PyYAML's scanner turns an escape such as "\UFFFFFFFF" into chr() unchecked.
        assert loader is not None  # the constructor scans no escape: get_single_node met it
        at = loader.get_mark()
        raise ParseProblem("not valid YAML: an escape sequence names no Unicode character", at.line + 1, at.column + 1) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise ParseProblem(
            f"not valid YAML: {exc.problem or exc.context}",
            mark.line + 1 if mark else None,
            mark.column + 1 if mark else None,
        ) from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        raise ParseProblem(f"not valid YAML: character U+{exc.character:04X} is not allowed", line, column) from None
    except yaml.YAMLError as exc:
        raise ParseProblem(f"not valid YAML: {exc}") from None
    finally:
        if loader is not None:
            loader.dispose()
    if node is None:
        raise ParseProblem("the file is empty")
    return node


def _yaml_node_to_data(node: yaml.Node, pointer: str, positions: dict, budget: list[int], active: set[int], written: dict | None = None) -> Any:
    """Build plain data from the node tree ourselves, so every value has a position,
    every tag is checked, and aliases cannot expand into a memory bomb."""
    where = (node.start_mark.line + 1, node.start_mark.column + 1)
    positions[pointer] = where
    budget[0] -= 1
    if budget[0] < 0:
        raise ParseProblem(f"more than {MAX_YAML_NODES} values (aliases count each time they are used)", *where)
    if node.tag not in _ALLOWED_TAGS:
        raise ParseProblem(f"YAML tag {node.tag} is not allowed; a record holds plain data only", *where)
    if id(node) in active:
        raise ParseProblem("recursive YAML alias", *where)
    if isinstance(node, yaml.MappingNode):
        active.add(id(node))
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge" or (key_node.value == "<<" and not key_node.style):
                # YAML 1.1 readers merge here, others read a key named "<<": refuse the ambiguity.
                # (A plain scalar's style is None from PyYAML's parser and "" from libyaml's.)
                raise ParseProblem("YAML merge keys (<<) are not allowed", key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            key = _yaml_node_to_data(key_node, pointer + "/~key", {}, budget, active)
            if not isinstance(key, str):
                raise ParseProblem(f"mapping key {json.dumps(key)} is not a string", key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            if key in out:
                raise ParseProblem(f"duplicate key {json.dumps(key)}", key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            child = pointer + "/" + key.replace("~", "~0").replace("/", "~1")
            out[key] = _yaml_node_to_data(value_node, child, positions, budget, active, written)
        active.discard(id(node))
        return out
    if isinstance(node, yaml.SequenceNode):
        active.add(id(node))
        items = [_yaml_node_to_data(v, f"{pointer}/{i}", positions, budget, active, written) for i, v in enumerate(node.value)]
        active.discard(id(node))
        return items
    assert isinstance(node, yaml.ScalarNode)  # the composer builds no fourth kind of node
    value = _construct_scalar_value(node)
    if written is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
        written[pointer] = node.value
    return value


def _construct_scalar_value(node: yaml.ScalarNode) -> Any:
    text = node.value
    where = (node.start_mark.line + 1, node.start_mark.column + 1)
    tag = node.tag
    if tag == "tag:yaml.org,2002:str":
        return text
    if tag == "tag:yaml.org,2002:null":
        return None
    if tag == "tag:yaml.org,2002:bool":
        if text.lower() not in ("true", "false"):
            raise ParseProblem(f"{json.dumps(text)} is not true or false", *where)
        return text.lower() == "true"
    if tag == "tag:yaml.org,2002:int":
        try:
            return int(text, 10)
        except ValueError:
            raise ParseProblem(f"{json.dumps(text)} is not a decimal integer", *where) from None
    if tag == "tag:yaml.org,2002:float":
        if text.lstrip("+-").lower() in (".inf", ".nan"):
            raise ParseProblem(f"{text} is not a finite number", *where)
        try:
            value = float(text)
        except ValueError:
            raise ParseProblem(f"{json.dumps(text)} is not a decimal number", *where) from None
        if not math.isfinite(value):
            raise ParseProblem(f"{text} is not a finite number", *where)
        return value
    raise ParseProblem(f"YAML tag {tag} is not allowed", *where)
