"""What a server says of itself at the start (/v1/models, /props): any JSON, any depth, any string,
and a model id the record could not hold refused in one line before anything is measured."""

from __future__ import annotations

import json

import pytest
from support.hostile_server import deep

from evaluator.measure.answers import model_ids, server_states
from evaluator.measure.capture import MeasureProblem

URL = "http://h:1/v1/models"


def _list(*ids: object) -> bytes:
    return json.dumps({"data": [{"id": i} for i in ids]}).encode()


def test_an_openai_model_list_gives_its_ids():
    assert model_ids(_list("gemma3-270m", "other"), URL) == ["gemma3-270m", "other"]


@pytest.mark.parametrize(
    "body",
    [deep(200_000), b"[]", b'{"data": null}', b'{"data": [null]}', b'{"data": [{"id": 5}]}', b'{"data": []}', b"\xff\xfe", b"<html>\x1b[2J"],
)
def test_anything_else_is_one_line_naming_the_url(body):
    with pytest.raises(MeasureProblem) as caught:
        model_ids(body, URL)
    message = str(caught.value)
    assert message.startswith(f"{URL}: did not answer an OpenAI model list (")
    assert "\x1b" not in message and "\n" not in message


@pytest.mark.parametrize(
    ("model", "problem"),
    [
        ("m\x1b]0;title\x07", 'model 1 of the list, "m\\x1b]0;title\\x07", holds the control character U+001B'),
        ("gemma\u202e3", 'model 1 of the list, "gemma\\u202e3", holds the bidi control U+202E'),
        ("m\ud800", 'model 1 of the list, "m\\ud800", holds the UTF-16 surrogate \\ud800 on its own at character 2'),
        ("m" * 2001, "is 2,001 characters long, over the record's 2,000"),
        ("", 'model 1 of the list, "", is empty'),
    ],
)
def test_a_model_id_the_record_cannot_hold_is_refused_at_the_start(model, problem):
    with pytest.raises(MeasureProblem) as caught:
        model_ids(_list(model), URL)
    assert problem in str(caught.value) and str(caught.value).endswith("; a record cannot name it")
    assert not any(ch in str(caught.value) for ch in "\x1b\x07\u202e\ud800")


@pytest.mark.parametrize("body", [deep(200_000), b"null", b'{"build_info": ["b"]}', b'{"build_info": "b\\u0007"}', b"\xff"])
def test_props_keep_only_plain_text(body):
    assert server_states(body) == {}


def test_props_plain_text_is_kept():
    assert server_states(b'{"build_info": "b5702-abc", "model_path": "/m.gguf", "x": 1}') == {"build_info": "b5702-abc", "model_path": "/m.gguf"}
