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
    # Strings that steer a terminal, reorder the tool's text or pass for another name (issue 23).
    ("esc-in-vendor.json", _copy(**{"offer.vendor": "Acme\x1b[1A\x1b[2K"}), "schema", "/offer/vendor"),
    ("bel-in-claim.json", _copy(**{"claims.0.text": "3x\x07"}), "schema", "/claims/0/text"),
    ("cr-in-claim-text.json", _copy(**{"offer.claim_text": "up to 3x\rnothing"}), "schema", "/offer/claim_text"),
    ("c1-csi-in-notes.json", _copy(**{"runs.0.notes": "\x9b2J"}), "schema", "/runs/0/notes"),
    ("del-in-contact.json", _copy(**{"offer.contact": "x\x7f"}), "schema", "/offer/contact"),
    ("newline-in-vendor.json", _copy(**{"offer.vendor": "Acme\nx.json: established"}), "schema", "/offer/vendor"),
    ("rlo-in-vendor.json", _copy(**{"offer.vendor": "Acme \u202eCorp"}), "schema", "/offer/vendor"),
    ("isolate-in-model.json", _copy(**{"configurations.0.target.model": "\u2067llama"}), "schema", "/configurations/0/target/model"),
    ("zwsp-in-offer-id.json", _copy(**{"offer.offer_id": "SD-201\u200b-B"}), "schema", "/offer/offer_id"),
    ("bom-in-drafter.json", _copy(**{"configurations.0.proposer.model": "\ufeffdraft"}), "schema", "/configurations/0/proposer/model"),
    ("control-in-a-key.json", _copy(**{"offer.x\x1b[2J": 1}), "schema", "/offer/x\x1b[2J"),
    ("deep-flow.yaml", b"a: " + b"[" * 50_000 + b"]" * 50_000 + b"\n", "parse", ""),
    ("deep-block.yaml", "".join("  " * i + "k:\n" for i in range(1500)).encode() + b"  " * 1500 + b"v\n", "parse", ""),
    ("deep-json.json", b'{"a": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", "parse", ""),
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


@pytest.mark.parametrize("command", ["validate", "assess"])
def test_a_gigabyte_on_one_line_is_refused_before_a_byte_is_read(sdeval, tmp_path, command):
    """A sparse file: 1 GiB by its size, nothing on the disk; refused on its size alone."""
    path = tmp_path / "one-line.json"
    with open(path, "wb") as fh:
        fh.truncate(1 << 30)
    result = sdeval(command, path)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"sdeval: {path}: 1073741824 bytes is over the 20971520-byte limit\n"


@pytest.mark.parametrize("command", ["validate", "assess"])
def test_a_record_saved_as_utf16_is_named_so_by_both_commands(sdeval, tmp_path, command):
    path = tmp_path / "offer.json"
    path.write_bytes(example("sd201-offer-b.json").read_text().encode("utf-16"))
    result = sdeval(command, path)
    assert result.exit_code == 1
    assert (
        f"{path}:1:1: /: error parse: is UTF-16 (little-endian) text (it starts with that byte-order mark), not UTF-8; save the file as UTF-8"
        in result.stdout
    )
