"""Reading records: every way a file can fail to be a record becomes a `parse` finding with a place."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.engine import loader
from evaluator.engine.loader import UnreadableFile, load_bytes, load_file
from evaluator.rules.assess import assess

ROOT = Path(__file__).resolve().parents[2]

PARSE_CASES = [
    # (name, bytes, message fragment, line, column)
    ("broken.json", b'{"a": 1,\n  "b": }', "not valid JSON", 2, 8),
    ("dup.json", b'{"offer": 1,\n "offer": 2}', 'duplicate key "offer"', 2, 2),
    ("nested-dup.json", b'{"a": {"x": 1, "x": 2}}', 'duplicate key "x"', 1, 16),
    ("nan.json", b'{"a": NaN}', "NaN is not a number", 1, 7),
    ("inf.json", b'{"a": -Infinity}', "Infinity is not a number", 1, 7),
    ("huge.json", b'{"a": 1e999}', "1e999 is too large", 1, 7),
    ("huge-after-a-string.json", b'{"n": "1e400",\n "a": -1e400}', "-1e400 is too large", 2, 7),
    # Saved as UTF-16 or UTF-32 (Windows editors, PowerShell's `>`): said so, not "byte 0xff".
    ("utf16.json", '{"a": 1}'.encode("utf-16"), "is UTF-16 (little-endian) text (it starts with that byte-order mark), not UTF-8", 1, 1),
    ("utf16be.yaml", b"\xfe\xff" + "a: 1\n".encode("utf-16-be"), "is UTF-16 (big-endian) text", 1, 1),
    ("utf32.json", '{"a": 1}'.encode("utf-32"), "is UTF-32 (little-endian) text", 1, 1),
    ("utf16-no-mark.json", '{"a": 1}'.encode("utf-16-le"), "looks like UTF-16 text without a byte-order mark", 1, 1),
    ("utf16be-no-mark.yaml", "a: 1\n".encode("utf-16-be"), "looks like UTF-16 text without a byte-order mark", 1, 1),
    # A raw control character in a JSON string: named, where the decoder's words stopped short ("at").
    ("nul-in-string.json", b'{"a": "x\x00y"}', "not valid JSON: the control character U+0000 (NUL) stands unescaped in a string", 1, 9),
    ("escape-in-key.json", b'{"a\x1b[31m": 1}', "the control character U+001B (ESCAPE) stands unescaped in a string", 1, 4),
    ("zeros.json", b"\x00" * 64, "not valid JSON: Expecting value", 1, 1),
    ("bom.json", b'\xef\xbb\xbf{"a": 1}', "byte-order mark", 1, 1),
    ("latin1.json", b'{"vendor": "Caf\xe9"}', "not valid UTF-8", 1, 16),
    ("array.json", b"[1, 2]", "top level is an array", None, None),
    ("empty.json", b"", "not valid JSON", 1, 1),
    ("dup.yaml", b"offer: 1\nruns: 2\noffer: 3\n", 'duplicate key "offer"', 3, 1),
    ("tag.yaml", b"offer: !!python/object/apply:os.system ['true']\n", "tag:yaml.org,2002:python/object/apply:os.system is not allowed", 1, 8),
    ("custom-tag.yaml", b"offer: !vendor {a: 1}\n", "YAML tag !vendor is not allowed", 1, 8),
    ("nan.yaml", b"a: .nan\n", ".nan is not a finite number", 1, 4),
    ("bad.yaml", b"a: [1, 2\n", "not valid YAML", 2, 1),
    ("empty.yaml", b"", "the file is empty", None, None),
    ("merge.yaml", b"base: &b {x: 1}\nother:\n  <<: *b\n", "merge keys", 3, 3),
    ("nul.yaml", b"a: 1\nb: \x00\n", "character U+0000 is not allowed", 2, 4),
    ("recursive.yaml", b"a: &a [*a]\n", "recursive YAML alias", 1, 4),
    ("escape-beyond-unicode.yaml", b'a: "\\UFFFFFFFF"\n', "names no Unicode character", 1, 7),
    ("escape-past-unicode.yaml", b'a: "x\\U00110000"\n', "names no Unicode character", 1, 8),
]


@pytest.mark.parametrize("name,raw,fragment,line,column", PARSE_CASES, ids=[c[0] for c in PARSE_CASES])
def test_unreadable_content_is_a_parse_finding_with_its_place(name, raw, fragment, line, column):
    result = assess(load_bytes(name, raw))
    assert [f.code for f in result.findings] == ["parse"]
    finding = result.findings[0]
    assert fragment in finding.message
    assert (finding.line, finding.column) == (line, column)
    assert result.outcome == "invalid"


def test_yaml_alias_bomb_is_refused_not_expanded():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    result = assess(load_bytes("bomb.yaml", "\n".join(lines).encode()))
    assert [f.code for f in result.findings] == ["parse"]
    assert "aliases count each time" in result.findings[0].message


@pytest.mark.parametrize(
    "text,expected",
    [
        ("answer: no\n", {"answer": "no"}),  # YAML 1.1 would read false
        ("flags: [yes, on, off, y, N]\n", {"flags": ["yes", "on", "off", "y", "N"]}),  # YAML 1.1 booleans, all of them strings
        ("zero: -0\n", {"zero": 0}),
        ("when: 2026-11-04T10:00:00Z\n", {"when": "2026-11-04T10:00:00Z"}),  # not a timestamp object
        ("time: 1:30\n", {"time": "1:30"}),  # YAML 1.1 would read 90
        ("date: 2026-11-04\n", {"date": "2026-11-04"}),  # not a date object
        ("octal: 0o17\n", {"octal": "0o17"}),
        ("hex: 0x1F\n", {"hex": "0x1F"}),
        ("flags: [true, false, null, ~]\n", {"flags": [True, False, None, None]}),
        ("n: [1, -2, 3.5, 1e3]\n", {"n": [1, -2, 3.5, 1000.0]}),
    ],
)
def test_yaml_reads_only_plain_json_data(text, expected):
    assert load_bytes("x.yaml", text.encode()).data == expected


def test_yaml_positions_point_at_the_value():
    loaded = load_bytes("x.yaml", b"offer:\n  vendor: Acme\nruns:\n  - id: r1\n")
    assert loaded.positions["/offer/vendor"] == (2, 11)
    assert loaded.positions["/runs/0/id"] == (4, 9)


def test_missing_file_and_directory_cannot_be_read(tmp_path):
    with pytest.raises(UnreadableFile, match="no such file"):
        load_file(str(tmp_path / "nope.json"))
    with pytest.raises(UnreadableFile, match="is a directory"):
        load_file(str(tmp_path))


def test_oversized_file_is_refused_before_reading(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2048)
    with pytest.raises(UnreadableFile, match="over the 1024-byte limit"):
        load_file(str(big), max_bytes=1024)


# libyaml's C parser reads YAML where the pure-Python one would read it alike; elsewhere the
# pure-Python loader reads the document (evaluator/engine/loader.py, _C_READS_OTHERWISE and
# _CJsonYamlLoader). Each case below is one the two readers once read differently.
READ_OTHERWISE_BY_LIBYAML = [
    "a:\tb\n",  # libyaml: a tab as separation; PyYAML refuses it
    "{a: 1,\tb: 2}\n",
    "a: 1\t\nb: 2\n",
    "a: 1\n\ufeffb: 2\n",  # a byte-order mark inside: libyaml skips it, PyYAML keeps it
    "a: 1\rb: 2\r",  # a lone CR, NEL, LS: lines counted otherwise
    "a: 1\x85b: 2\n",
    "? a\u2028b\n",
    ">#comment\n",  # libyaml takes `#` straight after a block header as a comment
    "a: |-#x\n  t\n",
    "? key",  # no final line break: libyaml places the empty value a line down
    "a:",
    "key: !\n",  # the non-specific tag on an empty node: libyaml a string, PyYAML null
    "? !\n",
    "{a: }\n",  # an empty value in a flow collection: placed at `}` by libyaml, after `:` by PyYAML
    "[a: , b]\n",
    "{? , b: 1}\n",
    "k: {a:\n  }\n",
    "[a?b]\n",  # a plain scalar holding `?` in a flow collection: PyYAML refuses it
    "{a?: b}\n",
    "%YAML 1.3\n---\na: 1\n",  # libyaml refuses, PyYAML reads
    'a: "\\ud800"\n',
]


def _read(load, text):
    try:
        return ("data",) + load(text)
    except loader.ParseProblem as problem:
        return ("problem", problem.message, problem.line, problem.column)


def _pure_python(text):
    node = loader._compose_or_say_why(text)
    positions, written = {}, {}
    return loader._yaml_node_to_data(node, "", positions, [loader.MAX_YAML_NODES], set(), written), positions, written


needs_libyaml = pytest.mark.skipif(loader._CParser is None, reason="PyYAML was built without libyaml")


@needs_libyaml
@pytest.mark.parametrize("text", READ_OTHERWISE_BY_LIBYAML)
def test_where_libyaml_reads_otherwise_the_pure_python_reading_is_kept(text):
    assert _read(loader._parse_yaml, text) == _read(_pure_python, text)


@needs_libyaml
@pytest.mark.parametrize("path", sorted(str(p) for p in (ROOT / "examples").glob("*.yaml")) + [str(ROOT / "evaluator" / "rules" / "cases.yaml")])
def test_shipped_yaml_is_read_by_libyaml_as_the_pure_python_reader_reads_it(path, monkeypatch):
    text = Path(path).read_text(encoding="utf-8")
    expected = _read(_pure_python, text)
    monkeypatch.setattr(loader, "_compose_or_say_why", lambda text: pytest.fail("read by the pure-Python loader"))
    assert _read(loader._parse_yaml, text) == expected


YAML_TEXT = "abc019 :-?#&*!|>'\"%@`,[]{}\\/\n\r\t\u00e9\U0001f600\u2028~.+_="


def _yaml_data(depth: int = 0):
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(YAML_TEXT, max_size=8))
    if depth > 3:
        return scalars
    keys = st.text(YAML_TEXT, max_size=8)
    return st.one_of(
        scalars,
        st.lists(st.deferred(lambda: _yaml_data(depth + 1)), max_size=4),
        st.dictionaries(keys, st.deferred(lambda: _yaml_data(depth + 1)), max_size=4),
    )


@needs_libyaml
@settings(max_examples=300, deadline=None)
@given(
    data=st.dictionaries(st.text(YAML_TEXT, max_size=8), _yaml_data(), min_size=1, max_size=5),
    flow=st.sampled_from([True, False, None]),
    style=st.sampled_from([None, '"', "'"]),
    width=st.sampled_from([20, 80, 1000]),
    edits=st.lists(st.tuples(st.integers(min_value=0), st.sampled_from(["", *YAML_TEXT])), max_size=2),
)
def test_libyaml_and_pure_python_readings_agree_on_generated_yaml(data, flow, style, width, edits):
    text = yaml.dump(data, default_flow_style=flow, default_style=style, width=width, allow_unicode=True)
    for at, char in edits:  # a character dropped or put in, so that broken documents are compared too
        at %= len(text) + 1
        text = text[:at] + char + text[at + (not char) :]
    assert _read(loader._parse_yaml, text) == _read(_pure_python, text)
