"""`archive rejudge`: what the installed rule catalog says about the archived inputs, claim by claim.

`assess_again` is the ONE place the archive runs sdeval's assessment, through the pipeline
(evaluator/pipeline.py) that `sdeval assess` and verify's reproduction check use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class CannotReassess(Exception):
    """The archived inputs cannot be assessed again (one line)."""


def assess_again(manifest: dict[str, Any], attachments: dict[str, bytes]) -> dict[str, Any]:
    """The assessment document the installed sdeval makes from a report's attached inputs,
    exactly as `sdeval assess INPUT... [--requirements PROFILE] -f json` would print it. The inputs
    are read back by the report container (report/container.py), with the checks verify applies."""
    from ..pipeline import CannotRun, ProfileInput, reassess
    from ..report.container import ContainerProblem, inputs, reference_inputs

    try:
        records, profile = inputs(manifest, attachments)
        references = reference_inputs(manifest, attachments)
    except ContainerProblem as exc:
        raise CannotReassess(f"the attached inputs cannot be read back ({exc})") from None
    try:
        return reassess(records, ProfileInput(*profile) if profile else None, references).document
    except CannotRun as exc:
        what = "requirements profile" if profile else "independent results"
        raise CannotReassess(f"the attached {what} cannot be judged again: {exc}") from None


@dataclass
class ClaimChange:
    file: str
    claim: str
    before: str | None  # verdict; None when the claim is new
    after: str | None  # None when the claim is gone
    appeared: list[str] = field(default_factory=list)  # finding codes
    disappeared: list[str] = field(default_factory=list)

    @property
    def verdict_changed(self) -> bool:
        return self.before != self.after

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "claim": self.claim,
            "before": self.before,
            "after": self.after,
            "verdict_changed": self.verdict_changed,
            "codes_appeared": self.appeared,
            "codes_disappeared": self.disappeared,
        }

    def text(self) -> str:
        codes = [f"+{c}" for c in self.appeared] + [f"-{c}" for c in self.disappeared]
        change = f"{self.before or 'absent'} -> {self.after or 'absent'}" if self.verdict_changed else f"{self.after} (unchanged)"
        return f"claim {self.claim} ({self.file}): {change}" + (f" [{' '.join(codes)}]" if codes else "")


def claim_changes(before: dict[str, Any], after: dict[str, Any]) -> list[ClaimChange]:
    """Per claim: the verdict before and after, and the finding codes that appear or disappear."""

    def claims(doc: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
        out = {}
        for f in doc.get("files") or []:
            for c in f.get("claims") or []:
                out[(str(f.get("file")), str(c.get("id")))] = c
        return out

    def codes(claim: dict[str, Any] | None) -> set[str]:
        return {str(x.get("code")) for x in (claim or {}).get("findings") or [] if isinstance(x, dict)}

    then, now = claims(before), claims(after)
    changes = []
    for key in list(then) + [k for k in now if k not in then]:
        old, new = then.get(key), now.get(key)
        change = ClaimChange(
            key[0],
            key[1],
            old.get("verdict") if old else None,
            new.get("verdict") if new else None,
            sorted(codes(new) - codes(old)),
            sorted(codes(old) - codes(new)),
        )
        if change.verdict_changed or change.appeared or change.disappeared:
            changes.append(change)
    return changes


def requirements_outcome(doc: dict[str, Any]) -> str | None:
    """ "met" when some offer meets every buyer requirement, "not-met" when none does; None without a profile."""
    section = doc.get("requirements")
    if not isinstance(section, dict):
        return None
    return "met" if (section.get("ranking") or {}).get("meets_all") else "not-met"
