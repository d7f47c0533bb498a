"""One reporter per output format, all reading the same FileAssessment list (and, with a
requirements profile, the Comparison judged from it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..assessment import FileAssessment
from . import json_report, text_report

if TYPE_CHECKING:
    from ..fit.results import Comparison

# (results, full, comparison) -> text. full=False for validate, True for assess.
REPORTER_BY_NAME: dict[str, Callable[[list[FileAssessment], bool, "Comparison | None"], str]] = {
    "text": text_report.render,
    "json": json_report.render,
}
