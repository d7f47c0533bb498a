"""The per-rule cases shipped with the rules (evaluator/rules/cases.yaml), read once for every test that walks them."""

from __future__ import annotations

from pathlib import Path

import yaml

RULE_CASES: list[dict] = yaml.safe_load((Path(__file__).resolve().parents[2] / "evaluator" / "rules" / "cases.yaml").read_text())
