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


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("[" * 200_000 + "]" * 200_000, "line 2: nests its JSON deeper than measure reads"),
        (
            '{"prompt": "a\\ud800"}',
            'line 2: "prompt" holds the UTF-16 surrogate \\ud800 on its own at character 2, which is no character; write the character itself',
        ),
        (
            '{"messages": [{"role": "user", "content": "\\udc00x"}]}',
            'line 2: "messages" 1 content holds the UTF-16 surrogate \\udc00 on its own at character 1',
        ),
        ('{"prompt": "x", "task": "chat\\ud800"}', 'line 2: "task" holds the UTF-16 surrogate \\ud800'),
        ('{"prompt": "x", "id": "p\\ud800"}', 'line 2: "id" holds the UTF-16 surrogate \\ud800'),
        ('{"prompt": "x", "task": "chat\\u001b[2J"}', 'line 2: "task" holds the control character U+001B'),
        ('{"prompt": "x", "task": "' + "t" * 2001 + '"}', 'line 2: "task" is 2,001 characters long, over 2,000'),
        ('{"prompt": "x", "id": [[1]]}', 'line 2: "id" must be text or a whole number'),
    ],
)
def test_a_prompts_line_the_record_or_a_server_could_not_take_is_refused_up_front(tmp_path, line, problem):
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text('{"prompt": "fine"}\n' + line + "\n")
    with pytest.raises(MeasureProblem) as caught:
        load_prompts(prompts)
    assert str(caught.value).startswith(f"{prompts}: {problem}")
    assert "\x1b" not in str(caught.value)
