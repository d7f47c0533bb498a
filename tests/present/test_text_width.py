"""Text output fits: a terminal's width, SDEVAL_TEXT_WIDTH when set, every line whole through a pipe, wide tables split into column
groups that repeat the row label, JSON untouched (evaluator/present/width.py)."""

from __future__ import annotations

import os
import re
import subprocess

from conftest import ROOT
from support.terminal import SDEVAL, on_a_terminal

from evaluator.present.width import fit

TWO_OFFERS = ["examples/complete-offer.yaml", "examples/quiet-load-offer.yaml", "-r", "examples/requirements-cost.yaml"]


def _piped(*args: str, width: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("SDEVAL_TEXT_WIDTH", "COLUMNS")}
    if width is not None:
        env["SDEVAL_TEXT_WIDTH"] = width
    return subprocess.run([SDEVAL, *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120).stdout


def test_requirements_output_through_a_pipe_keeps_lines_whole_unless_a_width_is_asked_for():
    whole = _piped("assess", *TWO_OFFERS)
    assert whole == _piped("assess", *TWO_OFFERS, width="0")
    assert max(len(line) for line in whole.splitlines()) > 100
    out = _piped("assess", *TWO_OFFERS, width="100")
    assert max(len(line) for line in out.splitlines()) <= 100
    assert len(out.splitlines()) > 150


def test_on_a_terminal_it_fits_the_terminals_width():
    out = on_a_terminal(80, "assess", *TWO_OFFERS)
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "What to ask the vendor" in out or "established" in out


def test_folding_keeps_every_word_of_prose_in_order():
    whole = _piped("assess", "examples/acceptance-only.json", width="0")
    fitted = _piped("assess", "examples/acceptance-only.json", width="100")
    assert fitted != whole
    assert fitted.split() == whole.split()


def test_json_is_never_folded():
    assert _piped("assess", *TWO_OFFERS, "--format", "json") == _piped("assess", *TWO_OFFERS, "--format", "json", width="0")


TABLE = """  accounting per run:
    run                    S        P        A       B        E    T (s)    A/P  1+A/S  E/T tok/s    A/T    P/T               spread
    target-only-c1         -        -        -       -   24,576      640      -      -         38      -      -    3 reps, 37.9-38.7
    eagle3-c64        68,267  204,801  128,342  68,267  196,609   88.324  0.627   2.88      2,226  1,453  2,319  3 reps, 2,200-2,246
  after the table"""


def test_a_wide_table_splits_into_column_groups_that_repeat_the_row_label():
    lines = fit(TABLE, 100).split("\n")
    assert max(len(line) for line in lines) <= 100
    first, second = lines[1:4], lines[5:8]
    assert lines[4] == "" and lines[8] == "  after the table"
    assert [row.split()[0] for row in first] == [row.split()[0] for row in second] == ["run", "target-only-c1", "eagle3-c64"]
    # Every cell is whole, and the groups hold the columns in order.
    cells = [re.split(r" {2,}", row.strip()) for row in first]
    more = [re.split(r" {2,}", row.strip())[1:] for row in second]
    assert cells[0] + more[0] == re.split(r" {2,}", TABLE.split("\n")[1].strip())
    assert cells[2] + more[2] == re.split(r" {2,}", TABLE.split("\n")[3].strip())
    # Right-aligned figures stay right-aligned under their heading.
    assert first[0].index("E/T tok/s") + len("E/T tok/s") == first[2].index("2,226") + len("2,226")


def test_a_table_that_fits_and_a_word_wider_than_the_width_are_left_whole():
    narrow = "    a     b\n    cc   dd"
    assert fit(narrow, 100) == narrow
    address = "  see " + "https://example.org/" + "x" * 120
    assert fit(address, 100) == "  see\n    " + address.split()[1]


def test_a_numbered_ask_continues_under_its_text():
    line = "    1. " + "word " * 40
    lines = fit(line.rstrip(), 60).split("\n")
    assert all(len(x) <= 60 for x in lines)
    assert all(x.startswith("       ") and not x.startswith("        ") for x in lines[1:])


def test_every_column_group_repeats_the_cells_that_tell_its_rows_apart():
    # The cost table lists each load for the offer and for its baseline: the load alone does not
    # say which row is which, so every column group repeats the configuration beside it.
    out = _piped("assess", *TWO_OFFERS, width="100")
    block = out.split("  cost and interactivity:\n")[1].split("\n    a load not measured")[0]
    headers = [line for line in block.splitlines() if line.startswith("    load ")]
    assert len(headers) >= 3
    assert all(line.split()[:2] == ["load", "configuration"] for line in headers), headers
    # and each group has the offer's and the baseline's rows, told apart
    for group in block.split("\n\n"):
        rows = group.splitlines()[1:]
        assert any("eagle3-dynamic-k" in r for r in rows) and any("target-only" in r for r in rows), group
