"""What the CI formats (SARIF, GitHub annotations, JUnit, GitLab Code Quality) share: every
finding with its file, the rule behind it and a link a reader can follow."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..rules import lookup

if TYPE_CHECKING:
    from ..rules.registry import Rule
    from ..rules.results import FileAssessment, Finding

_URL = re.compile(r"https://[^\s,;)]+")


def findings(results: list[FileAssessment]) -> Iterator[tuple[FileAssessment, Finding]]:
    """Every finding of every file, in file order (as the text and JSON reports list them)."""
    for r in results:
        for f in r.findings:
            yield r, f


def rule_of(code: str) -> Rule | None:
    return lookup(code)


def help_uri(rule: Rule | None) -> str | None:
    """The first public address in the rule's reference: the source a reader can check it against."""
    if rule is None:
        return None
    found = _URL.search(rule.reference)
    return found.group(0).rstrip(".") if found else None


def help_text(rule: Rule) -> str:
    """The rule's explanation as `sdeval rules CODE` gives it, for a reader who has no sdeval."""
    parts = [rule.title + ".", "Why it matters: " + rule.rationale, "Reference: " + rule.reference]
    if rule.ask:
        parts.append("What to ask the vendor: " + rule.ask)
    parts.append(f"`sdeval rules {rule.code}` explains it with a failing and a passing example.")
    return "\n\n".join(parts)


def fingerprint(r: FileAssessment, f: Finding) -> str:
    """Stable across runs and edits elsewhere in the file: the file, the rule and the place."""
    return hashlib.sha256(f"{r.file}\0{f.code}\0{f.pointer}\0{f.claim or ''}".encode()).hexdigest()


def message(f: Finding) -> str:
    return f.message + (f" [claim {f.claim}]" if f.claim else "")
