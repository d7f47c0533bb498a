"""validate and assess in the formats vendors' CI already reads: SARIF 2.1.0 (checked against
OASIS's schema), GitHub workflow annotations, JUnit XML and GitLab Code Quality."""

from __future__ import annotations

import json
import shutil
from urllib.parse import quote
from xml.etree import ElementTree as ET

import jsonschema
import pytest
from conftest import EXAMPLES, ROOT

SARIF_SCHEMA = ROOT / ".venv" / "share" / "sdeval-test" / "sarif-2.1.0-rtm.5.json"
RECORDS = sorted(p for p in [*EXAMPLES.glob("*.json"), *EXAMPLES.glob("*.yaml")] if not p.name.startswith("requirements"))


def findings_of(sdeval, *files) -> list[dict]:
    return sdeval("validate", *files, "--format", "json").json()["findings"]


@pytest.mark.skipif(not SARIF_SCHEMA.exists(), reason="the SARIF 2.1.0 schema was not fetched (scripts/setup test takes it with npm)")
@pytest.mark.parametrize("command", ["validate", "assess"])
def test_sarif_validates_against_the_sarif_2_1_0_schema_and_carries_every_finding(sdeval, command, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"record_version": "1.1", "offer": {}}')
    files = [*RECORDS, broken]
    out = sdeval(command, *files, "--format", "sarif")
    assert out.exit_code == 1
    log = json.loads(out.stdout)
    schema = json.loads(SARIF_SCHEMA.read_text())
    validator = jsonschema.validators.validator_for(schema)(schema)
    problems = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(log)]
    assert problems == []

    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    expected = findings_of(sdeval, *files)
    assert [(r["ruleId"], r["level"]) for r in run["results"]] == [
        (f["code"], {"error": "error", "warning": "warning", "info": "note"}[f["severity"]]) for f in expected
    ]
    for result, finding in zip(run["results"], expected):
        assert rules[result["ruleIndex"]]["id"] == finding["code"]
        location = result["locations"][0]
        assert location["physicalLocation"]["artifactLocation"]["uri"] == quote(finding["file"])
        assert location["logicalLocations"][0]["fullyQualifiedName"] == (finding["path"] or "/")
        if finding["line"] is not None:
            assert location["physicalLocation"]["region"] == {"startLine": finding["line"], "startColumn": finding["column"]}
    acceptance = next(r for r in rules if r["id"] == "acceptance-only")
    assert acceptance["helpUri"].startswith("https://docs.vllm.ai/")
    assert "What to ask the vendor" in acceptance["help"]["text"]


def test_github_annotations_name_file_line_column_and_rule(sdeval):
    out = sdeval("validate", EXAMPLES / "acceptance-only.json", "--format", "github")
    assert out.exit_code == 1
    lines = out.stdout.splitlines()
    path = str(EXAMPLES / "acceptance-only.json").replace(":", "%3A").replace(",", "%2C")
    assert lines[0] == (
        f"::error file={path},line=198,col=18,title=sdeval acceptance-only at /claims/0/counted::the claimed speedup of 3x is a mean "
        "acceptance length (3 in run spec), which contains no time; output-throughput speedup against the baseline measured over "
        "complete intervals is 1.67x [claim three-x]"
    )
    assert lines[1] == f"sdeval: {EXAMPLES / 'acceptance-only.json'}: NOT ESTABLISHED (1 error, 0 warnings, 0 info)"
    info = sdeval("validate", EXAMPLES / "complete-offer.yaml", "--format", "github").stdout.splitlines()
    assert info[0].startswith("::notice file=") and "k-band-unmeasured" in info[0]


def test_github_escaping_keeps_a_hostile_file_name_inside_its_own_command(sdeval, tmp_path):
    """A file named to close the property list and open another command stays one annotation."""
    hostile = tmp_path / "x,title=ok::%0A::error file=pwned.json"
    shutil.copy(EXAMPLES / "acceptance-only.json", hostile)
    out = sdeval("validate", hostile, "--format", "github")
    first, summary = out.stdout.splitlines()
    assert first.startswith("::error file=") and first.count("::") == 2
    props = first.split("::")[1].removeprefix("error ")
    assert "x%2Ctitle=ok%3A%3A%250A%3A%3Aerror file=pwned.json" in props
    assert summary.startswith("sdeval: ")


def test_junit_has_a_suite_per_file_a_case_per_claim_and_finding(sdeval):
    out = sdeval("assess", EXAMPLES / "acceptance-only.json", EXAMPLES / "complete-offer.yaml", "--format", "junit")
    assert out.exit_code == 1
    root = ET.fromstring(out.stdout)
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [str(EXAMPLES / "acceptance-only.json"), str(EXAMPLES / "complete-offer.yaml")]
    bad, good = suites
    assert (bad.get("tests"), bad.get("failures")) == ("2", "2")
    assert [c.get("name") for c in bad] == ["claim three-x: NOT ESTABLISHED", "acceptance-only at /claims/0/counted (line 198, column 18)"]
    assert bad[0].find("failure").get("message") == "claim three-x is NOT ESTABLISHED: acceptance-only"
    assert good.get("failures") == "0" and len(good) == 8
    assert good[-1].find("system-out").text.startswith("info: configuration eagle3-dynamic-k uses K = 1")
    assert (root.get("tests"), root.get("failures")) == ("10", "2")


def test_junit_writes_no_character_xml_cannot_hold(sdeval, tmp_path):
    hostile = tmp_path / "bell\x07.json"
    hostile.write_text('{"record_version": "1.1"}')
    out = sdeval("validate", hostile, "--format", "junit")
    root = ET.fromstring(out.stdout)  # a raw BEL would make this raise
    assert root.find("testsuite").get("name").endswith("bell\\x07.json")


def test_gitlab_code_quality_issues_are_stable_and_complete(sdeval):
    files = [EXAMPLES / "acceptance-only.json", EXAMPLES / "complete-offer.yaml", EXAMPLES / "unstated-load.json"]
    first = sdeval("validate", *files, "--format", "gitlab").json()
    again = sdeval("validate", *files, "--format", "gitlab").json()
    assert first == again
    expected = findings_of(sdeval, *files)
    assert [(i["check_name"], i["location"]["path"], i["location"]["lines"]["begin"]) for i in first] == [
        (f["code"], f["file"], f["line"] or 1) for f in expected
    ]
    assert {i["severity"] for i in first} <= {"info", "minor", "major", "critical", "blocker"}
    assert len({i["fingerprint"] for i in first}) == len(first)
    assert first[0]["severity"] == "major" and first[0]["description"].startswith("the claimed speedup of 3x")


def test_every_reporter_format_is_offered_by_validate_and_assess(sdeval):
    from evaluator.present import FORMATS

    for command in ("validate", "assess"):
        help_text = sdeval(command, "--help").stdout
        for name in FORMATS:
            assert name in help_text
    assert set(FORMATS) == {"text", "json", "sarif", "github", "junit", "gitlab", "markdown"}
