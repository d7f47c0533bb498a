"""The command line as a user meets it: exit codes, one-line errors, the catalog, the form."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT, example
from evaluator.rules import REGISTRY


def test_validate_json_is_stable_and_versioned(sdeval):
    doc = sdeval("validate", "--format", "json", example("sd201-offer-a.json")).json()
    assert doc["schema_version"] == "1.1"
    assert doc["tool"]["name"] == "sdeval"
    assert doc["findings"] == [
        {
            "file": str(example("sd201-offer-a.json")),
            "code": "throughput-basis",
            "severity": "error",
            "path": "/claims/0/counted",
            "message": "the claimed 200 tokens/s counts proposed drafts; emitted output over the same 0.100 s "
            "interval is 150 tokens/s",
            "claim": "a-200",
            "run": None,
            "line": None,
            "column": None,
        }
    ]
    assert doc["summary"] == {"files": 1, "errors": 1, "warnings": 0, "info": 0}


def test_assess_shows_offer_a_emits_150_tokens_per_second(sdeval):
    result = sdeval("assess", example("sd201-offer-a.json"))
    assert result.exit_code == 1
    assert "NOT ESTABLISHED" in result.stdout
    assert "emitted output tokens/s (E / T) = 150 tokens/s" in result.stdout
    doc = sdeval("assess", "--format", "json", example("sd201-offer-a.json")).json()
    claim = doc["files"][0]["claims"][0]
    assert claim["verdict"] == "not-established"
    assert claim["output"] == {"figure": "emitted output tokens/s (E / T)", "value": 150.0, "unit": "tokens/s"}
    assert [f["code"] for f in claim["findings"]] == ["throughput-basis"]


def test_assess_shows_the_vllm_example_exactly(sdeval):
    out = sdeval("assess", example("vllm-docs-ngram.json")).stdout
    assert "draft acceptance rate (A / P) = 0.07751937984496124" in out
    assert "mean acceptance length (1 + A / S) = 1.2325581395348837 tokens/step" in out


def test_offer_b_is_established(sdeval):
    doc = sdeval("assess", "--format", "json", example("sd201-offer-b.json")).json()
    assert doc["outcome"] == "established"
    assert doc["files"][0]["claims"][0]["computed"]["value"] == 200.0


def test_several_files_at_once_exit_1_if_any_has_an_error(sdeval):
    result = sdeval("validate", example("sd201-offer-b.json"), example("sd201-offer-a.json"))
    assert result.exit_code == 1
    assert "sd201-offer-b.json: established" in result.stdout


def test_parse_error_names_file_line_and_column(sdeval, tmp_path):
    bad = tmp_path / "offer.json"
    bad.write_text('{"record_version": "1.0",\n  "offer": }')
    result = sdeval("validate", bad)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == f"{bad}:2:12: /: error parse: not valid JSON: Expecting value"


def test_schema_error_in_yaml_names_its_line(sdeval, tmp_path):
    text = example("complete-offer.yaml").read_text().replace("concurrency: 8\n", "concurrency: -8\n", 1)
    bad = tmp_path / "offer.yaml"
    bad.write_text(text)
    result = sdeval("validate", bad)
    assert result.exit_code == 1
    line = next(l for l in result.stdout.splitlines() if "error schema" in l)
    assert "/runs/2/load/concurrency: error schema:" in line
    lineno = int(line.split(":")[1])
    assert text.splitlines()[lineno - 1].strip() == "concurrency: -8"


@pytest.mark.parametrize("args", [("validate", "missing.json"), ("assess", "missing.json")])
def test_missing_file_exits_2_with_one_line(sdeval, args):
    result = sdeval(*args)
    assert result.exit_code == 2
    assert result.stderr == "sdeval: missing.json: no such file\n"


def test_directory_exits_2(sdeval, tmp_path):
    result = sdeval("validate", tmp_path)
    assert result.exit_code == 2
    assert "is a directory" in result.stderr


def test_standard_input(sdeval):
    result = sdeval("validate", "-", input=example("sd201-offer-a.json").read_text())
    assert result.exit_code == 1
    assert result.stdout.startswith("<stdin>: /claims/0/counted: error throughput-basis")


def test_bad_usage_exits_2(sdeval):
    assert sdeval("validate", "--format", "xml", example("sd201-offer-b.json")).exit_code == 2
    assert sdeval("frobnicate").exit_code == 2


def test_assess_output_file_is_not_overwritten_without_force(sdeval, tmp_path):
    out = tmp_path / "assessment.json"
    out.write_text("keep me")
    result = sdeval("assess", example("sd201-offer-b.json"), "-o", out)
    assert result.exit_code == 2
    assert "already exists; pass --force" in result.stderr
    assert out.read_text() == "keep me"
    assert sdeval("assess", example("sd201-offer-b.json"), "-o", out, "--force").exit_code == 0
    assert json.loads(out.read_text())["outcome"] == "established"


def test_rules_lists_every_code_and_explains_one(sdeval):
    listing = sdeval("rules").stdout
    for code in REGISTRY:
        assert code in listing
    explained = sdeval("rules", "throughput-basis").stdout
    assert explained.startswith("throughput-basis (error)\n")
    assert "Why it matters:" in explained and "Reference:" in explained
    doc = sdeval("rules", "--format", "json").json()
    assert [r["code"] for r in doc["rules"]] == list(REGISTRY)
    unknown = sdeval("rules", "no-such-rule")
    assert unknown.exit_code == 2 and "no rule named 'no-such-rule'" in unknown.stderr


def test_schema_command_prints_the_committed_schema(sdeval):
    assert sdeval("schema").stdout == (ROOT / "schemas" / "evidence-record.schema.json").read_text()


def test_init_writes_a_commented_blank_form_that_parses(sdeval, tmp_path):
    form = tmp_path / "evidence.yaml"
    assert sdeval("init", "-o", form).exit_code == 0
    text = form.read_text()
    assert "# P: candidate tokens proposed by the drafter" in text
    data = yaml.safe_load(text)
    assert data["record_version"] == "1.1"
    assert set(data) == {"record_version", "offer", "configurations", "runs", "claims", "installation_scope"}
    # a blank form is not evidence: validate says which fields to fill, it does not crash
    result = sdeval("validate", form)
    assert result.exit_code == 1
    assert "/offer/vendor: error schema" in result.stdout
    # and init never overwrites what the buyer already typed
    form.write_text("my work")
    assert sdeval("init", "-o", form).exit_code == 2
    assert form.read_text() == "my work"


def test_uncommenting_an_optional_section_of_the_form_gives_valid_yaml(sdeval):
    text = sdeval("init").stdout
    uncommented = "\n".join(line.replace("#- ", "", 1) for line in text.splitlines())
    data = yaml.safe_load(uncommented)
    assert "installation_scope" in data and "relaxed_acceptance" in data["configurations"][0]["proposer"]


def _run_process(*args, **kw):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    return subprocess.run([sys.executable, "-m", "evaluator", *args], capture_output=True, text=True, cwd=ROOT, env=env, **kw)


def test_python_dash_m_and_no_traceback_on_internal_error(tmp_path):
    ok = _run_process("validate", "examples/sd201-offer-b.json")
    assert ok.returncode == 0 and "established" in ok.stdout
    # A record so deep that Python's own JSON decoder gives up must still end in one line.
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000 + "]" * 100000)
    result = _run_process("validate", str(deep))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr + result.stdout
    assert "error parse:" in result.stdout


def test_validate_imports_nothing_only_rendering_needs():
    code = (
        "import sys; from evaluator.cli import main; sys.argv=['sdeval','validate','examples/complete-offer.yaml'];\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy=[m for m in ('weasyprint','pyhanko','jinja2','cryptography','pypdf') if m in sys.modules]\n"
        "print('HEAVY', heavy)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert "HEAVY []" in result.stdout
