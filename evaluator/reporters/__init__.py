"""One reporter per output format, all reading the same FileAssessment list."""

from __future__ import annotations

from collections.abc import Callable

from ..assessment import FileAssessment
from . import json_report, text_report

# (results, full) -> text. full=False for validate, True for assess.
REPORTER_BY_NAME: dict[str, Callable[[list[FileAssessment], bool], str]] = {
    "text": text_report.render,
    "json": json_report.render,
}
