"""Reading records: every way a file can fail to be a record becomes a `parse` finding with a place."""

from __future__ import annotations

import pytest

from evaluator.engine.loader import UnreadableFile, load_bytes, load_file
from evaluator.rules.assess import assess

PARSE_CASES = [
    # (name, bytes, message fragment, line, column)
    ("broken.json", b'{"a": 1,\n  "b": }', "not valid JSON", 2, 8),
    ("dup.json", b'{"offer": 1,\n "offer": 2}', 'duplicate key "offer"', 2, 2),
    ("nested-dup.json", b'{"a": {"x": 1, "x": 2}}', 'duplicate key "x"', 1, 16),
    ("nan.json", b'{"a": NaN}', "NaN is not a number", None, None),
    ("inf.json", b'{"a": -Infinity}', "Infinity is not a number", None, None),
    ("huge.json", b'{"a": 1e999}', "1e999 is too large", None, None),
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
