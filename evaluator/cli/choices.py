"""Output-format choices the command lines share, defined once (the findings formats of
validate and assess come from present.FORMATS, one row per reporter)."""

from __future__ import annotations

from enum import Enum


class Format(str, Enum):
    """Commands that print either text for people or JSON for programs."""

    text = "text"
    json = "json"


class ListFormat(str, Enum):
    """`archive list`: also CSV, for a spreadsheet."""

    text = "text"
    json = "json"
    csv = "csv"
