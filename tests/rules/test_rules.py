"""Every rule, case by case (evaluator/rules/cases.yaml for records, tests/fit_cases.yaml for the
buyer-fit codes), and the catalog as a whole."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import jsonpatch
import pytest
import yaml
from conftest import EXAMPLES
from support.rule_cases import RULE_CASES

from evaluator.engine.loader import load_bytes, load_file
from evaluator.pipeline import ProfileInput, reassess
from evaluator.rules import REGISTRY
from evaluator.rules.assess import assess
from evaluator.rules.references import REFERENCE_CODES
from evaluator.rules.requirements import FIT_CODES

CASES = RULE_CASES
FIT_CASES = yaml.safe_load((Path(__file__).parents[1] / "fit_cases.yaml").read_text())
REFERENCE_CASES = yaml.safe_load((Path(__file__).parents[1] / "reference_cases.yaml").read_text())


def run_case(case: dict) -> list[str]:
    name = f"{case['rule']}-{case['name']}.json"
    if "raw" in case:  # parse cases: the file's own text
        return [f.pointer for f in assess(load_bytes(name, case["raw"].encode())).findings if f.code == case["rule"]]
    data = load_file(str(EXAMPLES / case["base"])).data
    patched = jsonpatch.apply_patch(data, case.get("patch", []))
    result = assess(load_bytes(name, json.dumps(patched).encode()))
    return [f.pointer for f in result.findings if f.code == case["rule"]]


@pytest.mark.parametrize("case", CASES, ids=[f"{c['rule']}-{c['name']}" for c in CASES])
def test_rule_case(case):
    assert Counter(run_case(case)) == Counter(case["expect"])


def run_fit_case(case: dict) -> list[str]:
    """The requirements whose cell carries the case's code, judging complete-offer.yaml (patched),
    then the cost findings with it ("cost:price" for the profile, "cost:CONFIGURATION" for an offer's)."""
    offer = jsonpatch.apply_patch(load_file(str(EXAMPLES / "complete-offer.yaml")).data, case.get("offer_patch", []))
    profile = jsonpatch.apply_patch(load_file(str(EXAMPLES / case["profile"]["base"])).data, case["profile"].get("patch", []))
    assessed = reassess([("offer.json", json.dumps(offer).encode())], ProfileInput("profile.json", json.dumps(profile).encode()))
    assert assessed.results[0].outcome == "established", "a fit case judges established evidence"
    cells = [cell.requirement for cell in assessed.comparison.cells if case["rule"] in cell.codes]
    costs = [f"cost:{f.configuration or 'price'}" for f in assessed.comparison.economics.findings if f.code == case["rule"]]
    return cells + costs


@pytest.mark.parametrize("case", FIT_CASES, ids=[f"{c['rule']}-{c['name']}" for c in FIT_CASES])
def test_fit_case(case):
    assert run_fit_case(case) == case["expect"]


def run_reference_case(case: dict) -> list[str]:
    """The claims carrying the case's code when the 250 tokens/s-per-user claim (its lengths stated)
    is set beside the case's InferenceX rows, read through the inferencex importer."""
    from support.reference_rows import references_file

    record = load_file(str(EXAMPLES / "public-claims" / "trt-deepseek-r1-250-tps-per-user.yaml")).data
    record["runs"][0]["workload"].update(input_tokens_mean=1024, output_tokens_mean=2048)
    assessed = reassess([("offer.json", json.dumps(record).encode())], None, [("refs.json", references_file(case["rows"]))])
    return [c.id for c in assessed.results[0].claims for f in c.findings if f.code == case["rule"]]


@pytest.mark.parametrize("case", REFERENCE_CASES, ids=[f"{c['rule']}-{c['name']}" for c in REFERENCE_CASES])
def test_reference_case(case):
    assert run_reference_case(case) == case["expect"]


def test_every_rule_has_a_failing_and_a_passing_case():
    every = CASES + FIT_CASES + REFERENCE_CASES
    failing = {c["rule"] for c in every if c["expect"]}
    passing = {c["rule"] for c in every if not c["expect"]}
    assert set(REGISTRY) - failing == set(), "rules without a failing case"
    assert set(REGISTRY) - passing == set(), "rules without a passing case"
    assert {c["rule"] for c in CASES} <= set(REGISTRY) - set(FIT_CODES) - set(REFERENCE_CODES), "record cases for unknown, fit or reference codes"
    assert {c["rule"] for c in REFERENCE_CASES} <= set(REFERENCE_CODES), "reference cases for codes that are not reference codes"
    assert {c["rule"] for c in FIT_CASES} <= set(FIT_CODES), "fit cases for codes that are not fit codes"


@pytest.mark.parametrize("code", sorted(REGISTRY))
def test_every_rule_is_documented(code):
    rule = REGISTRY[code]
    assert rule.severity in ("error", "warning", "info")
    for text in (rule.title, rule.rationale, rule.failing_example, rule.passing_example, rule.reference):
        assert text.strip(), f"{code} lacks a section"
    assert not rule.title.endswith("."), "titles are one line without a full stop"
    assert len(rule.rationale) >= 80, "a rationale a buyer can read, not a stub"


REQUIRED_CODES = """parse schema acceptance-only throughput-basis claim-mismatch load-unstated load-extrapolated
baseline-missing baseline-mismatch interval-undefined interval-incomplete interval-stage-sum scope-exceeded
counts-inconsistent coverage-gap identity-incomplete quality-missing lossy-acceptance single-run acceptance-bimodal
installation-mixed speedups-compounded acceptance-incomparable""".split()


def test_catalog_holds_every_code_the_issue_names():
    assert set(REQUIRED_CODES) <= set(REGISTRY)
    assert REGISTRY["acceptance-bimodal"].severity == "info"


def test_the_documented_rule_table_matches_the_catalog():
    from conftest import ROOT

    # the record rules in docs/claims.md, the buyer's requirement rules in docs/buyers.md
    lines = [line for name in ("claims.md", "buyers.md") for line in (ROOT / "docs" / name).read_text().splitlines()]
    rows = [line.split("|")[1:3] for line in lines if line.startswith("| `")]
    table = {cell.strip().strip("`"): severity.strip() for cell, severity in rows if cell.strip().strip("`") in REGISTRY}
    assert table == {code: rule.severity for code, rule in REGISTRY.items()}


def test_rules_code_shows_the_fields_a_passing_record_holds(sdeval):
    out = sdeval("rules", "load-unstated").stdout
    assert (
        "The fields it reads, in a record it passes (examples/sd201-offer-b.json):\n"
        "    claims:\n"
        "    - {id: b-200, concurrency: 1}\n"
        "    runs:\n"
        "    - id: offer-b\n"
        "      load: {concurrency: 1, loop: closed, multi_sequence_share: 0}\n"
    ) in out
    assert "The fields it reads" not in sdeval("rules", "parse").stdout


def _within(part, whole) -> bool:
    """`part` is `whole` with fields left out (list items matched by id, else kept in order)."""
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(k in whole and _within(v, whole[k]) for k, v in part.items())
    if isinstance(part, list) and part and all(isinstance(p, dict) for p in part):
        if not isinstance(whole, list):
            return False
        by_id = {item.get("id"): item for item in whole if isinstance(item, dict) and "id" in item}
        return all(_within(p, by_id[p["id"]]) if "id" in p and p["id"] in by_id else any(_within(p, w) for w in whole) for p in part)
    return part == whole


@pytest.mark.parametrize("code", sorted({c["rule"] for c in CASES}))
def test_every_snippet_is_part_of_a_record_the_rule_passes(code):
    from evaluator.rules.snippets import passing_snippet

    snippet = passing_snippet(code)
    passing = next((c for c in CASES if c["rule"] == code and not c["expect"] and "base" in c), None)
    if passing is None or not any(c["expect"] for c in CASES if c["rule"] == code and "base" in c):
        assert snippet is None
        return
    assert snippet is not None, code
    record = jsonpatch.apply_patch(load_file(str(EXAMPLES / passing["base"])).data, passing.get("patch", []))
    assert run_case(passing) == []
    assert _within(yaml.safe_load(snippet[1]), record)
