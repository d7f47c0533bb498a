"""`--configuration` is checked against the record's configuration schema before anything is sent:
every problem one line naming the file, the place and the field, exit 2, nothing written; a stated
proposer is recorded as stated; `--resume` takes a corrected file and the record says so."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from support.measure_servers import serve  # noqa: E402

from evaluator.measure.cli import main as measure  # noqa: E402
from evaluator.measure.simulator import Simulator  # noqa: E402

SMALL = ["--concurrency", "1", "--repetitions", "1", "--warmup", "0", "--requests", "2", "--max-tokens", "8", "--quiet"]
GOOD = """target: {model: google/gemma-3-270m, revision: abc123}
proposer: {method: ngram, k: 8}
numerics: {weights: q4_k_m, activations: f32, kv_cache: f16}
runtime: {name: llama.cpp llama-server, version: b1-7e4c0a9, flags: "-np 2 --metrics"}
hardware: {accelerator: none (CPU backend), count: 0}
"""
# The slip: a YAML flow mapping split at the comma inside "(x86_64, 2 cores)", and a misspelt field.
BAD = """target: {model: google/gemma-3-270m}
proposer: {method: ngram, k: 8}
hardware: {accelerator: CPU (x86_64, 2 cores), count: 1}
numerics: {weigths: q4_k_m}
"""


def test_a_bad_configuration_stops_measure_before_anything_is_sent_one_line_per_problem(tmp_path, capsys):
    (tmp_path / "spec.yaml").write_text(BAD)
    sim = Simulator(speculative=True)
    with serve(sim) as url:
        code = measure(["--arm", f"speculative={url}", "--configuration", str(tmp_path / "spec.yaml"), *SMALL, "-o", str(tmp_path / "rec.json")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.splitlines() == [
        f'sdeval: {tmp_path / "spec.yaml"}: line 3, column 46: hardware.2 cores): unknown field "2 cores)" (misspelt, or in the wrong place)',
        f'sdeval: {tmp_path / "spec.yaml"}: line 4, column 21: numerics.weigths: unknown field "weigths": did you mean "weights"?',
    ]
    assert sim.requests == 0 and sim.authorizations == []  # nothing sent, not even /v1/models
    assert not list(tmp_path.glob("rec.json*"))


def test_a_stated_proposer_is_recorded_as_stated_and_resume_takes_a_corrected_file(tmp_path, capsys):
    (tmp_path / "spec.yaml").write_text(GOOD)
    with serve(Simulator(speculative=True)) as url:
        arm = ["--arm", f"speculative={url}", "--metrics", f"{url}/metrics"]
        assert measure([*arm, "--configuration", str(tmp_path / "spec.yaml"), *SMALL, "-o", str(tmp_path / "rec.json")]) == 0, capsys.readouterr().err
        record = json.loads((tmp_path / "rec.json").read_text())
        assert record["configurations"][0]["proposer"] == {"method": "ngram", "k": 8}  # no "not stated" over what the file gives
        assert record["configurations"][0]["hardware"] == {"accelerator": "none (CPU backend)", "count": 0}
        (tmp_path / "fixed.yaml").write_text(GOOD.replace("count: 0", "count: 0, host: the buyer's test machine"))
        code = measure(["--resume", *arm, "--configuration", str(tmp_path / "fixed.yaml"), *SMALL, "-o", str(tmp_path / "rec.json")])
        assert code == 0, capsys.readouterr().err
    record = json.loads((tmp_path / "rec.json").read_text())
    assert record["configurations"][0]["hardware"]["host"] == "the buyer's test machine"
    assert f"Configuration as corrected with --resume ({tmp_path / 'fixed.yaml'}), not as first given." in record["runs"][0]["notes"]
