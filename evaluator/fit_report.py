"""`sdeval assess OFFER... --requirements PROFILE`: load the profile, judge, and render.

The JSON is the ordinary assessment document (assessment.as_document, unchanged) with one
more top-level key, `requirements`, holding the requirements x offers results. The exit
status answers the buyer's question: 0 when at least one offer meets every requirement,
1 when none does, 2 when the profile cannot be used.
"""

from __future__ import annotations

import json
from typing import Any

from .assessment import FileAssessment, as_document
from .buyer_fit import BaselineNotGiven, Comparison, compare, comparison_document
from .loader import UnreadableFile
from .requirements import RequirementsError, load_requirements, load_requirements_bytes


class FitCannotRun(Exception):
    """One line for `sdeval: ...`, exit 2."""


def judge(results: list[FileAssessment], profile_path: str, raw: bytes | None = None) -> Comparison:
    """Judge every offer against the profile at `profile_path`; with `raw`, against those bytes
    (named by the path), as `sdeval render` and `sdeval verify` do with the file they embed."""
    try:
        if raw is None:
            profile, sha256 = load_requirements(profile_path)
        else:
            profile, sha256 = load_requirements_bytes(profile_path, raw)
        return compare(profile, results, profile_path, sha256)
    except (UnreadableFile, RequirementsError, BaselineNotGiven) as exc:
        raise FitCannotRun(str(exc)) from None


def document(results: list[FileAssessment], comparison: Comparison) -> dict[str, Any]:
    doc = as_document(results, full=True)
    doc["requirements"] = comparison_document(comparison)
    return doc


def render(results: list[FileAssessment], comparison: Comparison, fmt: str, assessment_text: str) -> str:
    if fmt == "json":
        return json.dumps(document(results, comparison), indent=2, ensure_ascii=False) + "\n"
    from .reporters.requirements_text import render as render_text

    return assessment_text + "\n" + render_text(comparison)


def exit_code(comparison: Comparison) -> int:
    return 0 if comparison.meets_all else 1
