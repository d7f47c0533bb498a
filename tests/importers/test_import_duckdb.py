"""DuckDB as the engine of a large vllm-responses import (issue 29.6): the same record byte for byte
as the default reader, the same one-line error for a bad line (the file goes back to the default
reader), on clean, hostile and generated logs; and duckdb imported only on its own path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("duckdb")

from evaluator.importers import responses_duckdb, vllm_responses  # noqa: E402


def response(i: int, h: list[int] | None = None, k: int = 3, metrics: bool = True, tokens: int | None = 20) -> dict:
    h = h if h is not None else [1 + i % 4, i % 3, 1, i % 2]
    steps, accepted = sum(h), sum(j * n for j, n in enumerate(h))
    line: dict = {
        "id": f"chatcmpl-{i}",
        "object": "chat.completion",
        "model": "meta-llama/Llama-3.1-8B-Instruct",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "some words, information, banana"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": tokens, "total_tokens": 10 + (tokens or 0)},
        "metrics": None,
    }
    if metrics:
        line["metrics"] = {
            "speculative_decoding": {
                "mean_acceptance_length": 1 + accepted / max(steps, 1),
                "draft_acceptance_rate": accepted / (k * max(steps, 1)),
                "acceptance_histogram": h,
                "num_spec_steps": steps,
                "num_accepted_draft_tokens": accepted,
                "num_draft_tokens": k * steps,
                "num_spec_tokens": k,
            }
        }
    return line


def clean_lines(n: int = 12) -> list[bytes]:
    """Lines of a plain vLLM file: every fifth without metrics (as an n > 1 request has)."""
    return [json.dumps(response(i, metrics=bool(i % 5) or i == 0)).encode() + b"\n" for i in range(n)]


@pytest.fixture
def engine(monkeypatch):
    def use(name: str) -> None:
        monkeypatch.setenv(responses_duckdb.ENGINE_ENV, name)

    return use


def both(sdeval, path: Path, *extra: str):
    """`sdeval import vllm-responses` of the file by each engine: (exit code, stdout, stderr) twice."""
    done = [sdeval("import", "vllm-responses", "--engine", name, path, *extra) for name in ("python", "duckdb")]
    return [(r.exit_code, r.stdout, r.stderr) for r in done]


def engine_used(path: Path, engine) -> str:
    engine("duckdb")
    try:
        return vllm_responses.read(path).engine
    except Exception:
        return "python"  # refused: the default reader read it and said why


def test_a_clean_file_is_summed_by_duckdb_into_the_same_record(sdeval, tmp_path, engine):
    path = tmp_path / "responses.jsonl"
    path.write_bytes(b"".join(clean_lines(40)))
    python, duck = both(sdeval, path)
    assert python == duck and python[0] == 0
    assert "sha256" in python[1] and "accepted_length_histogram" in python[1]
    assert engine_used(path, engine) == "duckdb"
    totals = vllm_responses.read(path)
    engine("python")
    reference = vllm_responses.read(path)
    assert (totals.requests_with, totals.requests_without, totals.steps, totals.drafts, totals.accepted, totals.emitted, totals.hist) == (
        reference.requests_with,
        reference.requests_without,
        reference.steps,
        reference.drafts,
        reference.accepted,
        reference.emitted,
        reference.hist,
    )
    assert totals.sha256 == reference.sha256 and totals.k_values == reference.k_values and totals.first_model == reference.first_model


# Each hostile line, put into a clean file, must give the same record or the same one-line error from both engines.
HOSTILE = {
    "NaN in a field summed": b'{"metrics":{"speculative_decoding":{"num_spec_steps":NaN,"num_draft_tokens":3,"num_accepted_draft_tokens":1}}}',
    "NaN where nothing is read": b'{"metrics":null,"usage":{"completion_tokens":3},"x":NaN}',
    "-Infinity where nothing is read": b'{"metrics":null,"x":[1,-Infinity]}',
    "lower-case nan": b'{"metrics":null,"x": nan}',
    "trailing comma in an object": b'{"metrics":null,"usage":{"completion_tokens":3},}',
    "trailing comma in an array": b'{"metrics":null,"choices":[1,2, ]}',
    "a float rate of 1e400": b'{"metrics":{"speculative_decoding":{"num_spec_steps":1,"num_draft_tokens":3,"num_accepted_draft_tokens":1,"draft_acceptance_rate":1e400}}}',
    "duplicate key at the root": b'{"metrics":null,"metrics":{"speculative_decoding":{"num_spec_steps":1,"num_draft_tokens":3,"num_accepted_draft_tokens":1}}}',
    "duplicate key in the counts": b'{"metrics":{"speculative_decoding":{"num_spec_steps":1,"num_spec_steps":2,"num_draft_tokens":3,"num_accepted_draft_tokens":1}}}',
    "duplicate key in usage": b'{"metrics":null,"usage":{"completion_tokens":3,"completion_tokens":4}}',
    "a count as a string": b'{"metrics":{"speculative_decoding":{"num_spec_steps":"1","num_draft_tokens":3,"num_accepted_draft_tokens":1}}}',
    "a count as 1.0": b'{"metrics":{"speculative_decoding":{"num_spec_steps":1.0,"num_draft_tokens":3,"num_accepted_draft_tokens":1}}}',
    "a count as 1e0": b'{"metrics":{"speculative_decoding":{"num_spec_steps":1e0,"num_draft_tokens":3,"num_accepted_draft_tokens":1}}}',
    "a negative count": b'{"metrics":{"speculative_decoding":{"num_spec_steps":-1,"num_draft_tokens":3,"num_accepted_draft_tokens":1}}}',
    "minus zero": b'{"metrics":{"speculative_decoding":{"num_spec_steps":-0,"num_draft_tokens":0,"num_accepted_draft_tokens":0,"acceptance_histogram":[]}}}',
    "a count of 2**64": b'{"metrics":null,"usage":{"completion_tokens":18446744073709551616}}',
    "a count of 2**64 - 1": b'{"metrics":null,"usage":{"completion_tokens":18446744073709551615}}',
    "huge counts": b'{"metrics":{"speculative_decoding":{"num_spec_steps":18446744073709551615,"num_draft_tokens":18446744073709551615,'
    b'"num_accepted_draft_tokens":18446744073709551615,"acceptance_histogram":[18446744073709551615]}}}',
    "a count as true": b'{"metrics":null,"usage":{"completion_tokens":true}}',
    "a missing count": b'{"metrics":{"speculative_decoding":{"num_draft_tokens":3,"num_accepted_draft_tokens":1}}}',
    "a null count": b'{"metrics":{"speculative_decoding":{"num_spec_steps":null,"num_draft_tokens":3,"num_accepted_draft_tokens":1}}}',
    "no histogram": b'{"metrics":{"speculative_decoding":{"num_spec_steps":2,"num_draft_tokens":6,"num_accepted_draft_tokens":1}},"usage":{"completion_tokens":4}}',
    "a histogram as an object": b'{"metrics":{"speculative_decoding":{"num_spec_steps":2,"num_draft_tokens":6,"num_accepted_draft_tokens":1,"acceptance_histogram":{"0":1,"1":1}}}}',
    "a histogram of strings": b'{"metrics":{"speculative_decoding":{"num_spec_steps":2,"num_draft_tokens":6,"num_accepted_draft_tokens":1,"acceptance_histogram":["1","1"]}}}',
    "a histogram of 40 columns": b'{"metrics":{"speculative_decoding":{"num_spec_steps":1,"num_draft_tokens":6,"num_accepted_draft_tokens":39,"acceptance_histogram":['
    + b"0," * 39
    + b"1]}}}",
    "a histogram that contradicts its counts": b'{"metrics":{"speculative_decoding":{"num_spec_steps":5,"num_draft_tokens":6,"num_accepted_draft_tokens":1,"acceptance_histogram":[1,1]}}}',
    "detailed arrays": b'{"metrics":{"speculative_decoding":{"num_spec_steps":2,"num_draft_tokens":6,"num_accepted_draft_tokens":1,"acceptance_histogram":[1,1],'
    b'"per_step_accepted":[0,1],"per_step_drafted":[3,3]}}}',
    "metrics as a number": b'{"metrics":5}',
    "usage as a list": b'{"metrics":null,"usage":[]}',
    "object as a number": b'{"object":5,"metrics":null}',
    "a streamed content chunk": b'{"object":"chat.completion.chunk","choices":[{"delta":{"content":"x"}}]}',
    "an escaped chunk name": b'{"object":"chat.completion\\u002echunk","choices":[]}',
    "llama.cpp timings": b'{"timings":{"draft_n":4,"draft_n_accepted":2,"predicted_n":9},"usage":{"completion_tokens":9}}',
    "stop": b'{"stop":true,"metrics":null}',
    "a null line": b"null",
    "a number line": b"5",
    "a list line": b"[{}]",
    "a string line": b'"x"',
    "an empty object": b"{}",
    "a blank line": b"",
    "a line of spaces": b"   \t ",
    "two objects on a line": b'{"metrics":null}{"metrics":null}',
    "a carriage return between them": b'{"metrics":null}\r{"metrics":null}',
    "a carriage return as white space": b'{"metrics":\rnull}',
    "a NUL byte": b'{"metrics":null}\x00',
    "a byte order mark": b'\xef\xbb\xbf{"metrics":null}',
    "invalid UTF-8 in a string": b'{"metrics":null,"x":"\xff"}',
    "a lone surrogate": b'{"metrics":null,"x":"\\ud800"}',
    "a key in capitals": b'{"METRICS":{"speculative_decoding":{"num_spec_steps":1,"num_draft_tokens":3,"num_accepted_draft_tokens":1}}}',
    "an escaped key": b'{"metr\\u0069cs":{"speculative_decoding":{"num_spec_steps":1,"num_draft_tokens":3,"num_accepted_draft_tokens":1,"acceptance_histogram":[0,1]}}}',
    "nested 600 deep": b'{"metrics":null,"x":' + b"[" * 600 + b"]" * 600 + b"}",
    "nested 990 deep": b'{"metrics":null,"x":' + b"[" * 990 + b"]" * 990 + b"}",
    "a comment": b'{"metrics":null} // note',
    "not JSON": b"chatcmpl garbage",
}


@pytest.mark.parametrize("where", ["first", "middle", "last without newline"])
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_line_gives_the_same_record_or_error_from_both_engines(sdeval, tmp_path, name, where):
    lines = clean_lines()
    bad = HOSTILE[name]
    if where == "first":
        lines.insert(0, bad + b"\n")
    elif where == "middle":
        lines.insert(6, bad + b"\n")
    else:
        lines.append(bad)
    path = tmp_path / "responses.jsonl"
    path.write_bytes(b"".join(lines))
    for extra in ((), ("--skip-bad-lines",)):
        python, duck = both(sdeval, path, *extra)
        assert duck == python, (name, where, extra)


def test_hostile_lines_go_back_to_the_default_reader_and_clean_ones_do_not(tmp_path, engine):
    """The table above must not pass because DuckDB was never used: the plain lines stay with DuckDB."""
    # Lines msgspec takes and DuckDB reads alike (the contradicting histogram is summed by DuckDB; import_file then finds the line).
    plain = {
        "minus zero",
        "a count of 2**64 - 1",
        "huge counts",
        "no histogram",
        "a histogram that contradicts its counts",
        "a streamed content chunk",
    }
    plain |= {"an escaped chunk name", "an empty object", "a blank line", "a line of spaces", "a carriage return as white space", "a key in capitals"}
    plain |= {"an escaped key"}
    for name in HOSTILE:
        path = tmp_path / "responses.jsonl"
        lines = clean_lines()
        lines.insert(6, HOSTILE[name] + b"\n")
        path.write_bytes(b"".join(lines))
        assert engine_used(path, engine) == ("duckdb" if name in plain else "python"), name


@pytest.mark.parametrize("name", ["r[1].jsonl", "r*.jsonl", "r?.jsonl", "r{1,2}.jsonl", "r.jsonl.gz"])
def test_a_file_name_duckdb_would_read_as_a_pattern_or_archive_is_read_as_it_is(sdeval, tmp_path, engine, name):
    """DuckDB globs * ? [ ] { } and unpacks .gz by name; sdeval reads the one file named, as it is."""
    (tmp_path / "r1.jsonl").write_bytes(b"".join(clean_lines(3)))  # what a pattern would also match
    (tmp_path / "r2.jsonl").write_bytes(b"".join(clean_lines(7)))
    path = tmp_path / name
    path.write_bytes(b"".join(clean_lines(12)))
    python, duck = both(sdeval, path)
    assert duck == python and python[0] == 0
    assert '"num_requests": 12' in python[1]
    assert engine_used(path, engine) == ("duckdb" if name.endswith(".gz") else "python")


def test_a_duckdb_failure_falls_back_to_the_default_reader(tmp_path, engine, monkeypatch):
    import duckdb

    path = tmp_path / "responses.jsonl"
    path.write_bytes(b"".join(clean_lines()))

    def broken(*args, **kwargs):
        raise duckdb.IOException("disk full")

    monkeypatch.setattr(duckdb, "connect", broken)
    assert engine_used(path, engine) == "python"


def test_auto_picks_duckdb_from_the_size_threshold_on(tmp_path, engine, monkeypatch):
    path = tmp_path / "responses.jsonl"
    path.write_bytes(b"".join(clean_lines()))
    size = path.stat().st_size
    engine("auto")
    assert responses_duckdb.DUCKDB_MIN_BYTES is None, "auto picks DuckDB now: re-measure docs/speed.md and change this test"
    assert vllm_responses.read(path).engine == "python"
    monkeypatch.setattr(responses_duckdb, "DUCKDB_MIN_BYTES", size + 1)
    assert vllm_responses.read(path).engine == "python"
    monkeypatch.setattr(responses_duckdb, "DUCKDB_MIN_BYTES", size)
    assert vllm_responses.read(path).engine == "duckdb"
    monkeypatch.setattr(responses_duckdb, "installed", lambda: False)
    assert vllm_responses.read(path).engine == "python"
    engine("duckdb")
    with pytest.raises(Exception, match=r"--engine duckdb needs DuckDB: pip install 'sdeval\[duckdb\]'"):
        vllm_responses.read(path)


def test_a_wrong_engine_name_is_one_line(sdeval, tmp_path, engine):
    path = tmp_path / "responses.jsonl"
    path.write_bytes(b"".join(clean_lines()))
    engine("fast")
    done = sdeval("import", "vllm-responses", path)
    assert (done.exit_code, done.stdout, done.stderr) == (2, "", "sdeval: SDEVAL_IMPORT_ENGINE='fast' is not one of auto, python, duckdb\n")


def test_duckdb_is_imported_only_on_its_path(tmp_path):
    path = tmp_path / "responses.jsonl"
    path.write_bytes(b"".join(clean_lines()))
    code = (
        "import sys, os; from pathlib import Path; from evaluator.importers import vllm_responses as v;"
        "os.environ['SDEVAL_IMPORT_ENGINE'] = sys.argv[2]; t = v.read(Path(sys.argv[1])); print(t.engine, 'duckdb' in sys.modules)"
    )
    seen = [
        subprocess.run([sys.executable, "-c", code, str(path), name], capture_output=True, text=True, check=True, cwd=ROOT).stdout
        for name in ("auto", "duckdb")
    ]
    assert seen == ["python False\n", "duckdb True\n"]


# ------------------------------------------------------------------ generated and mutated logs

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=2**66),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["5", "chat.completion.chunk", "", "NaN"]),
    st.lists(st.integers(min_value=-1, max_value=2**65), max_size=5),
    st.dictionaries(st.sampled_from(["0", "1", "x"]), st.integers(min_value=0, max_value=9), max_size=3),
)
PLACES = [
    ("object",),
    ("usage",),
    ("usage", "completion_tokens"),
    ("metrics",),
    ("metrics", "speculative_decoding"),
    *[("metrics", "speculative_decoding", f) for f in responses_duckdb._SD_FIELDS],
    ("timings",),
    ("stop",),
]
RAW = [b"NaN", b"Infinity", b"-inf", b"1e400", b"-0", b"1.0", b"[1,]", b'{"a":1,}', b"18446744073709551616"]


def _set(line: dict, place: tuple[str, ...], value) -> dict:
    at = line
    for key in place[:-1]:
        if not isinstance(at.get(key), dict):
            at[key] = {}
        at = at[key]
    if value is _DROP:
        at.pop(place[-1], None)
    else:
        at[place[-1]] = value
    return line


_DROP = object()


@st.composite
def logs(draw) -> bytes:
    n = draw(st.integers(min_value=1, max_value=8))
    out = []
    for i in range(n):
        line = response(
            i, h=draw(st.lists(st.integers(0, 6), min_size=1, max_size=5)), metrics=draw(st.booleans()), tokens=draw(st.sampled_from([20, None]))
        )
        if draw(st.integers(0, 7)) == 0:  # a mutated line: a field given another value, or dropped
            place = draw(st.sampled_from(PLACES))
            line = _set(line, place, draw(st.one_of(VALUES, st.just(_DROP))))
        text = json.dumps(line).encode()
        if draw(st.integers(0, 11)) == 0:  # raw JSON that json.dumps never writes
            text = text[:-1] + b', "raw": ' + draw(st.sampled_from(RAW)) + b"}"
        out.append(text + b"\n")
    return b"".join(out)


@pytest.mark.property
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=logs(), skip=st.booleans())
def test_both_engines_agree_on_generated_and_mutated_logs(sdeval, tmp_path, data, skip):
    path = tmp_path / "responses.jsonl"
    path.write_bytes(data)
    python, duck = both(sdeval, path, *(("--skip-bad-lines",) if skip else ()))
    assert duck == python
