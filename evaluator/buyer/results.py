"""What judging an offer against a buyer's profile produces: every requirement, every cell of the
requirements x offers matrix with the runs and loads behind it, the standings and the statements.

Plain data with `as_dict()`: the `requirements` section of the assessment JSON is
`Comparison.as_dict()`, and the text, the PDF section and the chart read the same objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..engine.loader import pointer
from ..rules.registry import Path
from .across_loads import Series

if TYPE_CHECKING:
    from .costs import Economics
    from .profile import RequirementsProfile

Status = Literal["met", "not-met", "not-established"]


@dataclass(frozen=True)
class Requirement:
    id: str
    kind: str  # latency, throughput-per-request, throughput-aggregate, quality, sampling, scope, task, identity, lossless
    text: str
    path: Path
    index: int | None = None  # into latency_limits or quality
    source: str | None = None  # where a published limit comes from

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "text": self.text, "path": pointer(self.path), "source": self.source}


@dataclass(frozen=True)
class PointResult:
    """One required load: which runs gave the figure, how, and the verdict there."""

    axis: str  # concurrency or request_rate
    load: float
    basis: str  # measured (one run at the load), bracketed (runs either side), or none
    runs: tuple[str, ...]
    values: tuple[float, ...]  # the figure of each run, in the order of runs
    status: Status
    codes: tuple[str, ...]
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "axis": self.axis,
            "load": self.load,
            "basis": self.basis,
            "runs": list(self.runs),
            "values": list(self.values),
            "status": self.status,
            "codes": list(self.codes),
            "message": self.message,
        }


@dataclass(frozen=True)
class Cell:
    requirement: str
    offer: str
    status: Status
    codes: tuple[str, ...]
    message: str
    points: tuple[PointResult, ...] = ()
    detail: str = ""  # what the evidence says, without the offer-level gate

    def as_dict(self) -> dict[str, Any]:
        return {
            "requirement": self.requirement,
            "offer": self.offer,
            "status": self.status,
            "codes": list(self.codes),
            "message": self.message,
            "points": [p.as_dict() for p in self.points],
        }


@dataclass
class Standing:
    file: str  # the path as given: the key in the JSON matrix and results
    name: str  # what people read: vendor and offer id (wording.offer_names)
    offer_id: str | None
    vendor: str | None
    evidence: str  # the offer's own outcome: established, not-established, invalid
    met: int
    not_met: int
    not_established: int
    rank: int = 0

    @property
    def total(self) -> int:
        return self.met + self.not_met + self.not_established

    @property
    def meets_all(self) -> bool:
        return self.evidence == "established" and self.met == self.total

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "name": self.name,
            "offer_id": self.offer_id,
            "vendor": self.vendor,
            "evidence": self.evidence,
            "rank": self.rank,
            "meets_all": self.meets_all,
            "met": self.met,
            "not_met": self.not_met,
            "not_established": self.not_established,
        }


@dataclass
class Comparison:
    profile_file: str
    profile_sha256: str
    profile: RequirementsProfile
    requirements: list[Requirement]
    standings: list[Standing]  # in rank order
    cells: list[Cell]
    series: dict[str, list[Series]]  # offer file -> its series across concurrency
    baseline: str
    names: dict[str, str] = field(default_factory=dict)  # offer file -> the name people read
    statements: list[str] = field(default_factory=list)
    economics: Economics | None = None  # cost per million output tokens and the frontier, per offer

    def name(self, file: str) -> str:
        return self.names.get(file, file)

    def cell(self, requirement: str, offer: str) -> Cell:
        return next(c for c in self.cells if c.requirement == requirement and c.offer == offer)

    @property
    def offer_files(self) -> list[str]:
        """Offers in command-line order (standings are in rank order)."""
        return list(dict.fromkeys(c.offer for c in self.cells)) or [s.file for s in self.standings]

    @property
    def meets_all(self) -> list[str]:
        return [s.file for s in self.standings if s.meets_all]

    def as_dict(self) -> dict[str, Any]:
        """The `requirements` section of the assessment JSON."""
        p = self.profile
        return {
            "profile": {
                "file": self.profile_file,
                "sha256": self.profile_sha256,
                "requirements_version": p.requirements_version,
                "buyer": p.buyer.name,
                "profile_id": p.buyer.profile_id,
                "source": p.source,
            },
            "baseline": self.baseline,
            "requirements": [r.as_dict() for r in self.requirements],
            "offers": [s.as_dict() for s in self.standings],
            "matrix": {
                r.id: {f: {"status": self.cell(r.id, f).status, "codes": list(self.cell(r.id, f).codes)} for f in self.offer_files}
                for r in self.requirements
            },
            "results": [cell.as_dict() for cell in self.cells],
            "ranking": {"meets_all": self.meets_all, "statements": self.statements},
            "figures": [{"offer": file, "name": self.name(file), "series": [s.as_dict() for s in series]} for file, series in self.series.items()],
            "economics": self.economics.as_dict() if self.economics is not None else None,
        }
