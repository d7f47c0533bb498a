"""A string holding a lone UTF-16 surrogate ("\\ud800" is a legal JSON escape, and YAML's too) can
be read but never written out as UTF-8 again: the loader refuses it as a parse finding, at its
place, so validate, assess and serve all say so instead of crashing where the text is printed."""

from __future__ import annotations

import pytest

from evaluator.engine.loader import load_bytes


@pytest.mark.parametrize(
    ("name", "text", "where", "line", "column", "code"),
    [
        ("r.json", b'{"offer": {"vendor": "a\\ud800b"}}', "the text at /offer/vendor", 1, 22, "d800"),
        ("r.json", b'{"runs": [1,\n "x\\uDC00"]}', "the text at /runs/1", 2, 2, "dc00"),
        ("r.json", b'{"offer": {"a\\udfff": 1}}', "a key in /offer", 1, 11, "dfff"),
        ("r.yaml", b'offer:\n  vendor: "a\\ud800"\n', "the text at /offer/vendor", 2, 11, "d800"),
        ("r.yaml", b'offer: ["\\U0000dbff"]\n', "the text at /offer/0", 1, 9, "dbff"),
    ],
)
def test_a_lone_surrogate_is_a_parse_problem_at_its_place(name, text, where, line, column, code):
    loaded = load_bytes(name, text)
    assert loaded.data is None
    assert loaded.problem is not None
    assert loaded.problem.message.startswith(f"{where} holds the UTF-16 surrogate \\u{code} on its own")
    assert (loaded.problem.line, loaded.problem.column) == (line, column)


def test_a_surrogate_pair_and_an_escaped_backslash_are_text():
    loaded = load_bytes("r.json", b'{"a": "\\ud83d\\ude00", "b": "\\\\ud800"}')
    assert loaded.problem is None
    assert loaded.data == {"a": "\U0001f600", "b": "\\ud800"}
