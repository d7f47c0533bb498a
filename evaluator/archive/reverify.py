"""`archive verify`'s per-report work, shared among processes: each worker takes reports as it
becomes free (a pool, not fixed shares, so a tampered report that fails at once leaves no core
idle) and, per report, reads the stored file once, checks its SHA-256 against the index, verifies
those same bytes in full and compares every indexed fact with them; only the one-line result comes
back. `--shard i/N` takes every N-th report (by number) so N machines share an archive, and
`--since DATE` the reports that have not passed a verification since DATE.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from .store import StoreProblem


@dataclass
class Checked:
    id: int
    sha256: str
    stored_as: str
    passed: bool
    reason: str  # one line: what is wrong with it ("passed" when nothing is)
    problem: str | None = None  # the stored file is missing, changed or unreadable, or not a report
    checks: list[dict[str, Any]] = field(default_factory=list)
    withdrawn: dict[str, Any] | None = None  # {time, by, reason} when the report was withdrawn

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "sha256": self.sha256,
            "stored_as": self.stored_as,
            "passed": self.passed,
            "problem": self.problem,
            "reason": None if self.passed else self.reason,
            "checks": self.checks,
            "withdrawn": self.withdrawn,
        }


class BadShard(ValueError):
    """--shard is not i/N with 1 <= i <= N."""


def parse_shard(text: str) -> tuple[int, int]:
    try:
        i, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise BadShard(f"--shard {text}: give i/N, e.g. 2/4 (the second of four shares)") from None
    if not 1 <= i <= n:
        raise BadShard(f"--shard {text}: i must be from 1 to N")
    return i, n


def in_shard(report_id: int, shard: tuple[int, int] | None) -> bool:
    return shard is None or (report_id - 1) % shard[1] == shard[0] - 1


def unverified_since(detail: dict[str, list[Any]], since: str) -> bool:
    """True when the report has not passed a verification at or after `since` (stored UTC form)."""
    last = detail["verified"][0] if detail["verified"] else None
    return last is None or last.result != "passed" or last.time < since


def check_all(
    root: Path, rows: list[Any], details: dict[int, dict[str, list[Any]]], anchors: list[Path], *, strict: bool, workers: int | None
) -> list[Checked]:
    """Each report checked (in the order given), across the cores."""
    from .._infra.forking import map_across_cores
    from ..verify.many import warm_up

    warm_up()  # imported once here, before the workers fork
    jobs = [(root, row, details[row.id]) for row in rows]
    return map_across_cores(partial(check_one, anchors=tuple(anchors), strict=strict), jobs, workers=workers, label="verifying")


def check_one(job: tuple[Path, Any, dict[str, list[Any]]], *, anchors: tuple[Path, ...], strict: bool) -> Checked:
    from .facts import index_differences
    from .store import Store
    from .verification import verify_bytes

    root, row, detail = job
    store = Store(root)
    try:
        data = store.read_admitted(row.stored_as, row.sha256)
    except StoreProblem as exc:
        return Checked(row.id, row.sha256, row.stored_as, False, str(exc), str(exc))
    outcome = verify_bytes(store.path_of(row.stored_as), data, anchors, strict=strict)
    passed, reason = outcome.passed, outcome.reason
    if passed:
        differences = index_differences(row, detail, outcome)
        if differences:
            passed, reason = False, "the index differs from the report: " + "; ".join(differences)
    return Checked(row.id, row.sha256, row.stored_as, passed, reason, outcome.problem, outcome.checks)
