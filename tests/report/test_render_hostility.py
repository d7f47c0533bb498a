"""Hostile records reach the PDF as text that stays on the page, and nothing is fetched.

The records come from tests/support/hostile_records.py (bench/render_hostile.py times the same ones):
markup, CSS, url() and file:// references in every vendor string, fields that are one unbroken
word of their maximum length, right-to-left and combining text, and an invalid record whose
unknown key is a 100,000-character word (it reaches the page through the schema finding).
"""

from __future__ import annotations

import json

import pytest
from conftest import invoke
from support.hostile_records import hostile_record, invalid_record_with_long_key, word
from support.pdf_helpers import attachments, page_texts, words_outside

pytestmark = pytest.mark.pdf


@pytest.fixture(scope="module")
def rendered(tmp_path_factory, server):
    """Each hostile record rendered once through the CLI, with the loopback trap listening."""
    base, seen = server
    work = tmp_path_factory.mktemp("hostile")
    records = {
        "long-words": hostile_record(base, runs=2),
        "many-runs": hostile_record(base, runs=40, long_words=False),
        "long-key": invalid_record_with_long_key(),
    }
    out = {}
    for name, record in records.items():
        source = work / f"{name}.json"
        source.write_text(json.dumps(record, ensure_ascii=False))
        result = invoke("render", source, "-o", work / f"{name}.pdf")
        out[name] = (source, work / f"{name}.pdf", result)
    return out, seen


@pytest.mark.parametrize("name", ["long-words", "many-runs", "long-key"])
def test_hostile_record_renders_fetching_nothing_with_every_word_on_the_page(rendered, name):
    results, seen = rendered
    source, pdf, result = results[name]
    # The hostile records are valid and their claim holds; the long key is a schema error.
    assert result.exit_code == (1 if name == "long-key" else 0), result.stderr
    assert pdf.exists(), result.stderr
    assert seen == []  # no request ever reached the loopback server
    assert attachments(pdf.read_bytes())[source.name] == [source.read_bytes()]
    words, outside = words_outside(pdf)
    assert words > 1000
    assert outside == [], "\n".join(outside[:10])


RUNNING = ("UNSIGNED DRAFT", "sdeval assessment \u2014", "Page ")


def _flat(pdf) -> str:
    """The pages' text without the running header and footer, with line breaks, spaces and break
    opportunities removed: a word wrapped over lines and pages joins again."""
    lines = [line for page in page_texts(pdf) for line in page.splitlines() if not any(r in line for r in RUNNING)]
    return "".join("".join(lines).split()).replace("\u200b", "")


def test_long_words_are_printed_whole_not_cut(rendered):
    results, _ = rendered
    _, pdf, _ = results["long-words"]
    text = _flat(pdf)
    for seed, length in (("C", 20000 - 400), ("N", 20000), ("M", 2000), ("Q", 1900), ("K", 20000 - 40)):
        assert word(length, seed)[-1500:] in text, seed  # the tail: clear of any bidi reordering at its start


def test_the_100000_character_key_is_printed_whole_in_its_finding(rendered):
    results, _ = rendered
    _, pdf, result = results["long-key"]
    assert result.exit_code == 1
    assert word(100_000, "X") in _flat(pdf)


def test_markup_rtl_and_combining_text_show_literally(rendered):
    results, _ = rendered
    _, pdf, _ = results["long-words"]
    text = " ".join(" ".join(page_texts(pdf)).split())
    assert '<img src="file:///etc/passwd">' in text
    assert '<object data="file:///etc/hostname"></object>' in text.replace("\u200b", "")
    assert "\u05d4\u05e6\u05e2\u05ea" in text or "\u05ea\u05e2\u05e6\u05d4" in text  # Hebrew, in either visual order
    assert "Z\u0351\u036b" in text  # combining marks stay on their letter
