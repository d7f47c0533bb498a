"""`sdeval import` on malformed and hostile files: each input here made the command fail in a way a
user should never see (an internal error, a line break inside its one line, a raw bidi override on
the terminal, a duplicated key or a file of one endless line read silently). Each now imports
correctly or is refused in one line `sdeval: FILE: where: what`, exit 2. The fuzz test
(test_importers_fuzz.py) found most of them; these pin the exact inputs."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from support.tool_outputs import runs_of

DATA = Path(__file__).resolve().parents[1] / "data" / "importers"


def refusal(result, path: Path) -> str:
    """The one line of a refusal naming `path` as given, without its `sdeval: FILE: ` head."""
    assert result.exit_code == 2, (result.exit_code, result.stdout[:300])
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"sdeval: {path}: "), result.stderr
    assert "internal error" not in result.stderr
    return result.stderr.removeprefix(f"sdeval: {path}: ").rstrip("\n")


def edited_json(tmp_path: Path, name: str, change) -> Path:
    data = json.loads((DATA / name).read_text())
    change(data)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_a_count_too_large_for_a_float_is_refused_naming_the_file(sdeval, tmp_path):
    # LLMPerf's interval is completed x 60 / per minute: with 1e308 requests that was OverflowError.
    path = tmp_path / "summary.json"
    path.write_text(
        json.dumps(
            {"results_num_completed_requests": 1e308, "results_num_completed_requests_per_min": 1.0, "results_number_output_tokens_mean": 100.0}
        )
    )
    assert refusal(sdeval("import", "llmperf", path, "--arrangement", "target-only"), path).startswith("holds a figure too large to compute with")


def test_a_per_request_count_beyond_the_records_limit_is_refused_at_its_field(sdeval, tmp_path):
    # The request_acceptance builder's own check raised a pydantic ValidationError: an internal error.
    lines = (DATA / "sglang-responses-2025-11.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["meta_info"]["spec_draft_token_num"] = 1e308
    path = tmp_path / "responses.jsonl"
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    said = refusal(sdeval("import", "sglang-responses", path), path)
    assert said.startswith("the imported figures do not fit the record at request_acceptance/proposed_drafts: Input should be less than or equal to")


def test_a_figure_beyond_the_records_limit_names_the_file_as_given(sdeval, tmp_path):
    # It named the file without its folder (trtllm-bench-eagle3.json), unlike every other refusal.
    path = edited_json(tmp_path, "vllm-bench-result.json", lambda d: d.update(mean_ttft_ms=1e308))
    said = refusal(sdeval("import", "vllm-bench", path), path)
    assert said.startswith("the imported run does not fit the record at latency/ttft_ms/mean")


def test_a_bidi_override_in_a_kept_string_is_printed_as_a_json_escape(sdeval, tmp_path):
    path = edited_json(tmp_path, "trtllm-bench-eagle3.json", lambda d: d["dataset"].update(dataset_path="abc\u202eevil.jsonl"))
    result = sdeval("import", "trtllm-bench", path)
    [run] = runs_of(result)
    assert run["workload"]["dataset"] == "abc\u202eevil.jsonl"  # the same string, for a JSON reader
    assert "\u202e" not in result.stdout
    assert '"dataset": "abc\\u202eevil.jsonl"' in result.stdout


def test_a_parser_message_with_a_line_break_stays_one_line(sdeval, tmp_path):
    # A form feed where a label's comma was: prometheus_client's message quotes it, and it became two lines.
    raw = (DATA / "vllm-metrics-after.prom").read_bytes()
    assert raw[701:702] == b","
    path = tmp_path / "after.prom"
    path.write_bytes(raw[:701] + b"\x0c" + raw[702:])
    said = refusal(sdeval("import", "vllm-metrics", DATA / "vllm-metrics-before.prom", path), path)
    assert said.startswith("line 10: not Prometheus text format (Invalid labels: ")
    assert "\\x0c" in said


@pytest.mark.parametrize("value", ["NaN", "+Inf", "-5"])
def test_a_scrape_value_that_is_no_count_is_refused_at_its_line(sdeval, tmp_path, value):
    # NaN was `ValueError: cannot convert float NaN to integer`, an internal error.
    lines = (DATA / "llamacpp-metrics-after.prom").read_text().splitlines()
    assert lines[41] == "llamacpp:requests_deferred 0"
    lines[41] = f"llamacpp:requests_deferred {value}"
    path = tmp_path / "after.prom"
    path.write_text("\n".join(lines) + "\n")
    said = refusal(sdeval("import", "llamacpp-metrics", DATA / "llamacpp-metrics-before.prom", path), path)
    shown = {"NaN": "nan", "+Inf": "inf", "-5": "-5"}[value]
    assert said == f"line 42: llamacpp:requests_deferred is {shown}, where a server's counter or gauge is a finite number, never negative"


def test_a_duplicated_key_in_a_json_line_is_refused(sdeval, tmp_path):
    # Python's json kept the second value; another reader keeps the first: the figure is ambiguous.
    text = (DATA / "sglang-bench.jsonl").read_text()
    path = tmp_path / "bench.jsonl"
    path.write_text(text.replace("{", '{"total_output_tokens": 5, ', 1))
    said = refusal(sdeval("import", "sglang-bench", path, "--arrangement", "speculative"), path)
    assert said.startswith("line 1, column ") and said.endswith('duplicate key "total_output_tokens"')


def test_a_json_line_nested_past_the_interpreters_limit_is_refused(sdeval, tmp_path):
    # json.loads raised RecursionError through the lines reader: an internal error.
    path = tmp_path / "bench.jsonl"
    path.write_text('{"duration": 1, "completed": 1, "total_output_tokens": 1, "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    said = refusal(sdeval("import", "vllm-bench", path, "--arrangement", "speculative"), path)
    assert said.startswith("line 1, column ") and said.endswith("nested deeper than 64 levels")


def test_a_utf16_file_is_named_as_utf16(sdeval, tmp_path):
    for name, fmt in (("vllm-bench-result.json", "vllm-bench"), ("sglang-responses-native.jsonl", "sglang-responses")):
        path = tmp_path / name
        path.write_bytes((DATA / name).read_text().encode("utf-16"))
        said = refusal(sdeval("import", fmt, path, "--arrangement", "speculative"), path)
        assert said == "line 1, column 1: is UTF-16 (little-endian) text (it starts with that byte-order mark), not UTF-8; save the file as UTF-8"


@pytest.mark.parametrize(
    ("name", "fmt", "said"),
    [
        ("vllm-bench-append.jsonl", "vllm-bench", "line 1, column 1: starts with a UTF-8 byte-order mark; save the file as UTF-8 without BOM"),
        (
            "llamacpp-responses.jsonl",
            "llamacpp-responses",
            "line 1: not a valid response (it starts with a UTF-8 byte-order mark; save the file as UTF-8 without BOM); "
            "pass --skip-bad-lines to import the other lines",
        ),
    ],
)
def test_a_utf8_byte_order_mark_is_named_in_every_reader(sdeval, tmp_path, name, fmt, said):
    # The per-request readers (msgspec) said "JSON is malformed: invalid character (byte 0)".
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbf" + (DATA / name).read_bytes())
    assert refusal(sdeval("import", fmt, path, "--arrangement", "speculative"), path) == said


def test_crlf_line_endings_import_as_the_same_runs(sdeval, tmp_path):
    for name, fmt in (
        ("vllm-bench-result.json", "vllm-bench"),
        ("vllm-responses-mixed.jsonl", "vllm-responses"),
        ("guidellm-benchmarks.json", "guidellm"),
    ):
        path = tmp_path / name
        path.write_bytes((DATA / name).read_bytes().replace(b"\n", b"\r\n"))
        crlf, lf = (
            runs_of(sdeval("import", fmt, path, "--arrangement", "speculative")),
            runs_of(sdeval("import", fmt, DATA / name, "--arrangement", "speculative")),
        )
        for run in crlf + lf:
            del run["source"]["sha256"]
        assert crlf == lf


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/mem is Linux's")
def test_a_file_whose_read_fails_is_said_in_one_line(sdeval):
    # /proc/self/mem opens, says it is a regular file of 0 bytes, then fails to read (EIO): an internal error.
    path = Path("/proc/self/mem")
    assert refusal(sdeval("import", "vllm-bench", path, "--arrangement", "speculative"), path) == "cannot read (Input/output error)"


@pytest.mark.parametrize(("fmt", "head", "size"), [("vllm-responses", b'{"choices": [', 100 << 20), ("vllm-bench", b"{", 600 << 20)])
def test_a_file_of_one_endless_line_is_refused_without_reading_it_whole(sdeval, tmp_path, fmt, head, size):
    # A sparse file (no disk taken): one line of `size` bytes. Every line was read whole into memory
    # (twice its size at the peak), the 600 MB one past the whole-document limit as a JSON line.
    path = tmp_path / "endless.jsonl"
    path.write_bytes(head)
    os.truncate(path, size)
    said = refusal(sdeval("import", fmt, path, "--arrangement", "speculative"), path)
    assert said == "byte 1: a line runs on for over 67108864 bytes, the limit for one line"


def test_the_output_file_is_not_overwritten_without_force(sdeval, tmp_path):
    out = tmp_path / "runs.json"
    out.write_text("mine\n")
    said = refusal(sdeval("import", "vllm-bench", DATA / "vllm-bench-result.json", "-o", out), out)
    assert "--force" in said
    assert out.read_text() == "mine\n"
    assert sdeval("import", "vllm-bench", DATA / "vllm-bench-result.json", "-o", out, "--force").exit_code == 0
    assert json.loads(out.read_text())["runs"]


def test_the_output_file_is_never_the_file_being_imported(sdeval, tmp_path):
    # With --force the runs replaced the tool's own output, the file their sha256 names.
    path = tmp_path / "result.json"
    path.write_bytes((DATA / "vllm-bench-result.json").read_bytes())
    said = refusal(sdeval("import", "vllm-bench", path, "-o", path, "--force"), path)
    assert said == f"is the file being imported ({path}); write the runs to another file"
    assert path.read_bytes() == (DATA / "vllm-bench-result.json").read_bytes()


@pytest.mark.parametrize("value", [True, "12", -5, 12.5, float("nan"), [12]])
def test_a_core_count_that_is_no_count_is_refused_at_its_key(sdeval, tmp_path, value):
    # It was dropped in silence: the run imported without E, as if the file had not given it.
    path = edited_json(tmp_path, "vllm-bench-result.json", lambda d: d.update(total_output_tokens=value))
    said = refusal(sdeval("import", "vllm-bench", path), path)
    # NaN is no JSON: the document reader refuses it, and the file, one line, is read as a JSON line.
    at = "line 1: " if value != value else ""
    assert said == f"{at}total_output_tokens: {json.dumps(value)} is not a count (a whole number, 0 or more)"


def test_an_infinite_duration_is_refused_at_its_line_and_key(sdeval, tmp_path):
    lines = (DATA / "sglang-bench.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["duration"] = float("inf")
    path = tmp_path / "bench.jsonl"
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    said = refusal(sdeval("import", "sglang-bench", path, "--arrangement", "speculative"), path)
    assert said == "line 1: duration: Infinity is not a finite number, 0 or more"


@pytest.mark.parametrize("where", ["request_totals", "args"])
def test_a_guidellm_object_written_as_a_list_is_no_internal_error(sdeval, tmp_path, where):
    # `metrics.request_totals or {}` (and v0.3's `args`, read where `config` is none) kept the list,
    # and `.get` on it was an AttributeError.
    def change(d):
        bench = d["benchmarks"][0]
        if where == "args":
            del bench["config"]
        (bench["metrics"] if where == "request_totals" else bench)[where] = [1, 2]

    path = edited_json(tmp_path, "guidellm-benchmarks.json", change)
    [first, _] = runs_of(sdeval("import", "guidellm", path, "--arrangement", "speculative"))
    # What the list stood for stays unstated: the requests counted, or the strategy's load.
    if where == "request_totals":
        assert "num_requests" not in first["workload"]
    else:
        assert first["load"] == {"measured_peak_concurrency": 1}


@pytest.mark.parametrize("value", [-1, True, "48"])
def test_an_sglang_responses_completion_count_that_is_no_count_is_refused(sdeval, tmp_path, value):
    # Dropped in silence: the requests' E went missing as if SGLang had not reported it.
    lines = (DATA / "sglang-responses-native.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["meta_info"]["completion_tokens"] = value
    path = tmp_path / "responses.jsonl"
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    said = refusal(sdeval("import", "sglang-responses", path), path)
    assert said == f"line 1: meta_info: completion_tokens: {json.dumps(value)} is not a count (a whole number, 0 or more)"


@pytest.mark.parametrize(("key", "value"), [("results_num_completed_requests_per_min", -60.0), ("results_number_output_tokens_mean", "100")])
def test_an_llmperf_figure_that_is_no_figure_is_refused_at_its_key(sdeval, tmp_path, key, value):
    # Dropped in silence: the run lost its interval (from the rate per minute) or its E (from the mean).
    path = tmp_path / "summary.json"
    summary = {"results_num_completed_requests": 10, "results_num_completed_requests_per_min": 60.0, "results_number_output_tokens_mean": 100.0}
    path.write_text(json.dumps({**summary, key: value}))
    said = refusal(sdeval("import", "llmperf", path, "--arrangement", "target-only"), path)
    assert said == f"{key}: {json.dumps(value)} is not a finite number, 0 or more"
