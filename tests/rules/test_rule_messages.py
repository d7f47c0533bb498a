"""Message templates in the rule catalog: the words the CLI and the browser form share."""

from __future__ import annotations

import pytest

from evaluator.rules import REGISTRY
from evaluator.rules.registry import Rule, register


def _rule(**messages: str) -> Rule:
    return Rule("made-up-rule", "error", "t", "r", "f", "p", "ref", messages=messages)


@pytest.mark.parametrize("template", ["{value:.2f} tokens/s", "{value!r}", "{0} steps", "{claim.value}", "{unclosed"])
def test_a_template_the_page_could_not_fill_is_refused(template):
    with pytest.raises(ValueError, match="may use only {name} placeholders"):
        register(_rule(bad=template))
    assert "made-up-rule" not in REGISTRY


def test_rules_the_form_checks_word_their_findings_from_the_catalog():
    assert set(REGISTRY["load-unstated"].messages) == {"claim", "run"}
    assert set(REGISTRY["baseline-missing"].messages) == {"none", "itself"}
    assert REGISTRY["baseline-missing"].say("none", value="2x") == "the claimed speedup (2x) names no baseline run to compare with"


def test_the_catalog_json_carries_the_templates(sdeval):
    rules = {r["code"]: r for r in sdeval("rules", "--format", "json").json()["rules"]}
    assert rules["counts-inconsistent"]["messages"]["e-not-a-plus-b"] == "emitted tokens E = {E} but A + B = {A} + {B} = {sum}"
    assert rules["parse"]["messages"] == {}
