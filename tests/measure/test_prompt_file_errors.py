"""The prompts file of `sdeval measure`: a line it cannot read is one line naming the file and the line."""

from __future__ import annotations

import sys

import pytest

from evaluator.measure.capture import MeasureProblem
from evaluator.measure.prompts import load_prompts


def test_a_prompts_line_with_a_number_too_long_to_read_is_a_one_line_problem(tmp_path):
    # json.loads raises a plain ValueError (not a JSONDecodeError, which has .msg) for an integer of
    # more digits than Python converts: it used to escape as an AttributeError traceback.
    digits = sys.get_int_max_str_digits() + 1
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text('{"prompt": "fine"}\n{"prompt": "x", "id": ' + "1" * digits + "}\n")
    with pytest.raises(MeasureProblem) as caught:
        load_prompts(prompts)
    assert str(caught.value) == f"{prompts}: line 2: a number has more than {digits - 1} digits"
