"""`sdeval reference import|fetch`, and `assess|render|serve --references`: the files written, the
one-line refusals, no network during assess, and a signed report whose verify reproduces the comparison."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from conftest import EXAMPLES
from support.mlperf_endpoints import endpoints_summary
from support.reference_rows import inferencex_row

CLAIM = EXAMPLES / "public-claims" / "trt-deepseek-r1-250-tps-per-user.yaml"
ROWS = [inferencex_row(osl=1024, date="2026-05-19", run_url="https://github.com/SemiAnalysisAI/InferenceX/actions/runs/1/attempts/1")]


@pytest.fixture
def refs(tmp_path, sdeval) -> Path:
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps(ROWS))
    out = tmp_path / "refs.json"
    result = sdeval("reference", "import", "inferencex", rows, "-o", out)
    assert (result.exit_code, result.stderr) == (0, f"wrote {out} (1 rows from 1 source)\n")
    return out


def test_the_references_file_validates_against_its_schema(refs):
    from jsonschema import Draft202012Validator

    schema = json.loads((Path(__file__).parents[2] / "schemas" / "references.schema.json").read_text())
    Draft202012Validator.check_schema(schema)
    assert list(Draft202012Validator(schema).iter_errors(json.loads(refs.read_text()))) == []


@pytest.mark.parametrize(
    ("content", "line"),
    [
        ("[1]", "rows.json: /0: not an InferenceX row (an object with `metrics`)"),
        ('[{"metrics": {}, "model": "dsr1", "hardware": 7}]', "rows.json: /0/hardware: missing or not a string"),
        ('{"rows": []}', "rows.json: /: not an InferenceX results array (a JSON array of rows)"),
        ("[", "rows.json: not JSON (Expecting value: line 1 column 2 (char 1))"),
    ],
)
def test_bad_inferencex_input_is_one_line(tmp_path, sdeval, content, line):
    bad = tmp_path / "rows.json"
    bad.write_text(content)
    result = sdeval("reference", "import", "inferencex", bad, "-o", tmp_path / "out.json")
    assert (result.exit_code, result.stderr) == (2, f"sdeval: {tmp_path}/{line}\n")
    assert not (tmp_path / "out.json").exists()


def test_bad_mlperf_row_names_its_line(tmp_path, sdeval):
    bad = tmp_path / "summary.csv"
    bad.write_text(
        "Organization,SystemName,Model,Scenario,Result,Units,accelerator_model_name,total_accelerators\nX,S,deepseek-r1,Offline,fast,Tokens/s,NVIDIA B200,8\n"
    )
    result = sdeval("reference", "import", "mlperf-summary", bad, "-o", tmp_path / "out.json")
    assert (result.exit_code, result.stderr) == (2, f"sdeval: {bad}: line 2: Result 'fast' is not a number\n")


def test_an_existing_output_is_kept_without_force(tmp_path, sdeval, refs):
    before = refs.read_bytes()
    result = sdeval("reference", "import", "inferencex", tmp_path / "rows.json", "-o", refs)
    assert result.exit_code == 2 and refs.read_bytes() == before


def test_mlperf_endpoints_point_at_its_stated_key(tmp_path, sdeval):
    summary = tmp_path / "result_summary.json"
    summary.write_text(json.dumps(endpoints_summary()))
    out = tmp_path / "refs.json"
    args = ["--model", "deepseek-ai/DeepSeek-R1-0528", "--accelerator", "NVIDIA H200", "--count", "8", "--precision", "fp8"]
    result = sdeval("reference", "import", "mlperf-endpoints", summary, "-o", out, *args, "--framework", "vLLM", "--spec-method", "none")
    assert result.exit_code == 0, result.stderr
    (row,) = json.loads(out.read_text())["rows"]
    assert row["key"] == {
        "model": "deepseek-r1",
        "accelerator": "h200",
        "accelerators": 8,
        "precision": "fp8",
        "framework": "vllm",
        "spec_method": "none",
        "concurrency": 8,
    }
    # 39,600 output tokens over 41.25 s = 960 tokens/s; median TPOT 12 ms = 83.3 tokens/s per user.
    assert row["figures"]["output_tokens_per_s"]["value"] == 960.0
    assert row["figures"]["output_tokens_per_s_per_accelerator"]["value"] == 120.0
    assert row["figures"]["tokens_per_s_per_user"]["value"] == 1000 / 12


def test_point_settings_belong_to_mlperf_endpoints_only(tmp_path, sdeval, refs):
    result = sdeval("reference", "import", "inferencex", tmp_path / "rows.json", "-o", tmp_path / "x.json", "--model", "x")
    assert result.stderr == "sdeval: --model: the point's settings are for mlperf-endpoints; inferencex rows state their own\n"
    result = sdeval("reference", "import", "mlperf-endpoints", tmp_path / "rows.json", "-o", tmp_path / "x.json")
    assert result.stderr == "sdeval: mlperf-endpoints: give at least --model and --accelerator (result_summary.json names neither)\n"


def test_fetch_reads_the_api_and_keeps_the_url(tmp_path, sdeval):
    asked: list[str] = []

    class Api(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            asked.append(self.path)
            body = json.dumps(ROWS).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = HTTPServer(("127.0.0.1", 0), Api)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{httpd.server_port}/api/v1"
        out = tmp_path / "fetched.json"
        result = sdeval("reference", "fetch", "inferencex", "--model", "DeepSeek-R1", "--api", base, "-o", out)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert result.exit_code == 0, result.stderr
    assert asked == ["/api/v1/benchmarks?model=DeepSeek-R1"]
    doc = json.loads(out.read_text())
    assert doc["sources"][0]["source"] == f"{base}/benchmarks?model=DeepSeek-R1" and len(doc["rows"]) == 1


def test_fetch_of_a_file_format_says_to_import(sdeval, tmp_path):
    result = sdeval("reference", "fetch", "mlperf-summary", "--model", "x", "-o", tmp_path / "x.json")
    assert (
        result.stderr == "sdeval: mlperf-summary: published as files, not an API: download it and use `sdeval reference import mlperf-summary FILE`\n"
    )


def test_a_file_that_is_not_references_is_refused_in_one_line(sdeval, tmp_path):
    result = sdeval("assess", CLAIM, "--references", CLAIM)
    assert result.exit_code == 2 and result.stderr.startswith(f"sdeval: {CLAIM}: not a references file")
    broken = tmp_path / "refs.json"
    broken.write_text(
        json.dumps(
            {"references_version": "1.0", "tables_version": "1.5", "sources": [], "rows": [{"id": "x", "source": 0, "key": {}, "figures": {}}]}
        )
    )
    result = sdeval("assess", CLAIM, "--references", broken)
    assert result.stderr == f"sdeval: {broken}: /rows/0/source: names source 0, the file lists 0\n"


def test_assess_with_references_opens_no_network_connection(refs):
    """Python's audit events (socket.connect, socket.getaddrinfo) seen by a hook in the process that runs assess."""
    program = (
        "import sys\n"
        "seen = []\n"
        "sys.addaudithook(lambda event, args: seen.append(event) if event in ('socket.connect', 'socket.getaddrinfo', 'socket.gethostbyname') else None)\n"
        "from evaluator.cli.commands import app\n"
        "try:\n"
        f"    app(['assess', {str(CLAIM)!r}, '--references', {str(refs)!r}, '-f', 'json'])\n"
        "except SystemExit as exit:\n"
        "    code = exit.code\n"
        "print('NETWORK', seen, code, file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert out.stderr.splitlines()[-1] == "NETWORK [] 1"
    assert json.loads(out.stdout)["references"]["claims"][0]["rows"][0]["match"] == "partial"


def test_the_audit_hook_sees_a_connection():
    """The check above can fail: the same hook sees a loopback connection attempt."""
    program = (
        "import sys, socket\n"
        "seen = []\n"
        "sys.addaudithook(lambda event, args: seen.append(event) if event == 'socket.connect' else None)\n"
        "s = socket.socket()\n"
        "try:\n"
        "    s.connect(('127.0.0.1', 9))\n"
        "except OSError:\n"
        "    pass\n"
        "s.close()\n"
        "print(seen)\n"
    )
    assert subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60).stdout == "['socket.connect']\n"


def test_served_form_sets_the_claim_beside_the_references(refs):
    from evaluator.serve.app import Served, assess_record

    served = Served(token="t", port=1, references=(("refs.json", refs.read_bytes()),))
    import yaml

    answer = assess_record(served, json.dumps(yaml.safe_load(CLAIM.read_text())).encode())  # the page sends JSON
    assert "    independent results (tokens/s per user) at key: model deepseek-r1;" in answer["text"]
    assert "refs.json row inferencex/0: 200 tokens/s per user" in answer["text"]
    assert answer["document"]["references"]["files"][0]["file"] == "refs.json"


def test_strings_from_a_references_file_reach_the_terminal_escaped(tmp_path, sdeval, refs):
    doc = json.loads(refs.read_text())
    doc["rows"][0]["id"] = "row\x1b[2J\u202eevil"
    doc["rows"][0]["url"] = "https://x/\x07bell"
    doc["sources"][0]["source"] = "rows.json\nsdeval: everything verified"
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(doc))
    result = sdeval("assess", CLAIM, "--references", hostile)
    assert result.exit_code == 1
    assert "\x1b" not in result.stdout and "\u202e" not in result.stdout and "\x07" not in result.stdout
    assert "row\\x1b[2J\\u202eevil" in result.stdout
    assert "\nsdeval: everything verified" not in result.stdout and "rows.json\\x0asdeval: everything verified" in result.stdout


def test_assess_output_file_is_the_json_document_with_references(tmp_path, sdeval, refs):
    written = tmp_path / "assessment.json"
    text = sdeval("assess", CLAIM, "--references", refs, "-o", written)
    printed = sdeval("assess", CLAIM, "--references", refs, "-f", "json").json()
    assert json.loads(written.read_text()) == printed and printed["references"]["files"][0]["file"] == str(refs)
    assert f"independent results (normalisation tables of rule catalog {printed['tool']['rule_catalog_version']}):\n  {refs} (SHA-256 " in text.stdout
