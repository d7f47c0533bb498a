"""--format json: the stable, versioned document (see assessment.as_document)."""

from __future__ import annotations

import json

from ..assessment import FileAssessment, as_document


def render(results: list[FileAssessment], full: bool) -> str:
    return json.dumps(as_document(results, full=full), indent=2, ensure_ascii=False) + "\n"
