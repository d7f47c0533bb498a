"""One named check of `sdeval verify` and the word it prints."""

from __future__ import annotations

from dataclasses import dataclass, field

# status words, as printed (upper case) and in JSON
PASS, FAIL, NOT_EVALUATED, NOT_ESTABLISHED, NONE = "pass", "fail", "not-evaluated", "not-established", "none"
# reproduction only: the report names a real rule catalog this release does not carry
NOT_REPRODUCIBLE = "not-reproducible"


@dataclass
class Check:
    name: str
    passed: bool | None  # None: the check could not say yes (not evaluated, or trust not established)
    detail: str
    notes: list[str] = field(default_factory=list)
    status: str | None = None  # a word other than pass/fail/not-evaluated, e.g. "not-established", "none"

    @property
    def word(self) -> str:
        if self.status is not None:
            return self.status
        return {True: PASS, False: FAIL, None: NOT_EVALUATED}[self.passed]

    @property
    def holds(self) -> bool:
        """Whether this check lets the report verify: it passed, or (a timestamp) there is none to check."""
        return self.passed is True

    def line(self) -> str:
        return f"  {self.name:<13} {self.word.upper().replace('-', ' ')}: {self.detail}"

    def as_dict(self) -> dict:
        return {"name": self.name, "status": self.word, "reason": self.detail, "notes": list(self.notes)}


def not_evaluated(name: str, why: str) -> Check:
    return Check(name, None, why)
