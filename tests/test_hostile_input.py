"""Hostile input through the command line: one clear line (a finding or an error), no traceback,
nothing written. The loader-level cases are in test_loader.py; these check what the user sees."""

from __future__ import annotations

import json

import pytest

from conftest import example

B = json.loads(example("sd201-offer-b.json").read_text())


def _write(tmp_path, name, data) -> str:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else json.dumps(data).encode())
    return str(path)


def _copy(**changes):
    record = json.loads(json.dumps(B))
    for dotted, value in changes.items():
        node = record
        *parents, last = dotted.split(".")
        for p in parents:
            node = node[int(p)] if p.isdigit() else node[p]
        node[int(last) if last.isdigit() else last] = value
    return record


CASES = [
    ("count-beyond-a-count.json", _copy(**{"runs.0.counts.emitted_tokens": 10**30}), "schema", "/runs/0/counts/emitted_tokens"),
    ("too-many-runs.json", _copy(runs=[B["runs"][0]] * 5001), "schema", "/runs"),
    ("too-many-claims.json", _copy(claims=[B["claims"][0]] * 501), "schema", "/claims"),
    ("huge-histogram.json", _copy(**{"runs.0.counts.accepted_length_histogram": [0] * 300}), "schema", "/runs/0/counts/accepted_length_histogram"),
    ("long-vendor.json", _copy(**{"offer.vendor": "A" * 100_000}), "schema", "/offer/vendor"),
    ("bool-as-count.json", _copy(**{"runs.0.counts.emitted_tokens": True}), "schema", "/runs/0/counts/emitted_tokens"),
    ("digits.json", b'{"a": ' + b"9" * 5000 + b"}", "parse", ""),
]


@pytest.mark.parametrize("name,data,code,pointer", CASES, ids=[c[0] for c in CASES])
def test_hostile_record_gives_a_finding_at_its_place(sdeval, tmp_path, name, data, code, pointer):
    path = _write(tmp_path, name, data)
    before = sorted(p.name for p in tmp_path.iterdir())
    result = sdeval("validate", "--format", "json", path)
    assert result.exit_code == 1
    findings = result.json()["findings"]
    assert (code, pointer) in {(f["code"], f["path"]) for f in findings}
    assert sorted(p.name for p in tmp_path.iterdir()) == before, "validate wrote a file"


def test_a_device_is_not_read(sdeval):
    result = sdeval("validate", "/dev/zero")
    assert result.exit_code == 2
    assert result.stderr == "sdeval: /dev/zero: is not a regular file\n"


def test_size_cap_is_configurable(sdeval):
    result = sdeval("validate", "--max-size", "100", example("sd201-offer-b.json"))
    assert result.exit_code == 2
    assert "over the 100-byte limit" in result.stderr


def test_standard_input_obeys_the_size_cap(sdeval):
    result = sdeval("validate", "--max-size", "100", "-", input="{" + " " * 200 + "}")
    assert result.exit_code == 2
    assert result.stderr == "sdeval: <stdin>: more than the 100-byte limit\n"
