"""--format gitlab: a GitLab Code Quality report (the CodeClimate subset GitLab reads from a job's
`artifacts:reports:codequality`): a JSON array, one issue per finding with its description,
check_name (the rule code), a stable fingerprint, severity and location (path and first line)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from .._infra.safe_text import json_shown
from .ci_common import findings, fingerprint, message

if TYPE_CHECKING:
    from ..buyer.results import Comparison
    from ..rules.results import FileAssessment

# GitLab's severities are info, minor, major, critical and blocker.
SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def render(results: list[FileAssessment], full: bool, comparison: Comparison | None = None) -> str:
    issues = [
        {
            "description": message(f),
            "check_name": f.code,
            "fingerprint": fingerprint(r, f),
            "severity": SEVERITY[f.severity],
            "location": {"path": r.file, "lines": {"begin": f.line or 1}},
        }
        for r, f in findings(results)
    ]
    return json_shown(json.dumps(issues, indent=2, ensure_ascii=False)) + "\n"
