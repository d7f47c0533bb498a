"""What assessing a file produces: findings, per-claim verdicts, the asks to the vendor, and the
file's assessment that every output reads (present/). Plain data; the engine that fills it is
rules/assess.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from .._infra.exit_codes import EXIT_FINDINGS, EXIT_OK
from ..engine.loader import pointer
from ..engine.metrics import RunMetrics
from ..engine.record import EvidenceRecord, PerTask, RequestAcceptance
from ..engine.wording import claimed
from .registry import Path

Verdict = Literal["established", "not-established"]


@dataclass(frozen=True)
class Finding:
    code: str
    severity: str
    path: Path
    message: str
    claim: str | None = None
    run: str | None = None
    line: int | None = None
    column: int | None = None
    # The request to the vendor (the rule's ask filled in), for error findings.
    ask: str | None = None

    @property
    def pointer(self) -> str:
        return pointer(self.path)

    def as_dict(self, file: str) -> dict[str, Any]:
        return {
            "file": file,
            "code": self.code,
            "severity": self.severity,
            "path": self.pointer,
            "message": self.message,
            "claim": self.claim,
            "run": self.run,
            "line": self.line,
            "column": self.column,
        }


@dataclass
class ClaimResult:
    id: str
    kind: str
    text: str
    value: float | None
    unit: str | None
    run: str | None  # a claim sent with nothing measured names no run
    baseline: str | None
    verdict: Verdict
    findings: list[Finding]
    computed: dict[str, Any] | None
    output: dict[str, Any] | None
    # The claimed figure as the vendor stated it ('up to 4x', '2.2-3.6x'); value is its (low) number.
    stated: str | None = None
    value_high: float | None = None
    bound: str | None = None
    # A claim written as a change against its baseline: "lower" ('40 % lower') or "higher"; stated holds it as written.
    relative: str | None = None
    # An established result that does not favour the offer (a speedup below 1: slower than its baseline).
    unfavourable: str | None = None
    unfavourable_brief: str | None = None  # the same in a few words, for the report's cover
    # The measured 95 % interval of the claim's figure (record 1.3; rules/spread.claim_interval), or None.
    interval: dict[str, Any] | None = None

    # The claimed value exactly as the record writes it ("1.90"), read from the file only when a
    # report shows it (a large JSON file's text is walked once for it).
    written_in_file: Callable[[], str | None] = lambda: None
    # With `--references`: the independent rows at the claim's key (references/match.ClaimReferences).
    independent: Any = None

    @property
    def written(self) -> str | None:
        return self.written_in_file()

    def as_stated(self) -> str | None:
        """The claimed figure as the vendor stated it: a range, a bound or a change as stated ('up to
        4x', '40 % lower'), a figure as written ('1.90x'); None for a claim with no figure."""
        if self.value_high is not None or self.bound is not None or self.relative is not None:
            return self.stated
        return None if self.value is None else claimed(self.text, self.written, self.value, self.unit or "")


@dataclass(frozen=True)
class Ask:
    """One request to the vendor: the error code behind it, its words, and the claims it concerns
    (none when the finding concerns no claim, such as an unused run's broken counts)."""

    code: str
    text: str
    claims: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "text": self.text, "claims": list(self.claims)}


@dataclass
class FileAssessment:
    file: str
    sha256: str
    record: EvidenceRecord | None = None
    findings: list[Finding] = field(default_factory=list)
    claims: list[ClaimResult] = field(default_factory=list)
    metrics: dict[str, RunMetrics] = field(default_factory=dict)
    # Per run id: the K it drafted with (fixed, or its concurrency's band) and, for a speculative
    # run, the run it is compared with (engine/baselines.baseline_for), so reporters never pair runs themselves.
    k: dict[str, int | None] = field(default_factory=dict)
    baseline: dict[str, str | None] = field(default_factory=dict)
    # Per speculative run id with no baseline although a target-only run at its load exists: why that
    # pairing was refused (engine/baselines.refused_pairing), so a report says "refused", never "none".
    refused: dict[str, str] = field(default_factory=dict)
    # Per run id: its output-throughput speedup over that baseline (metrics.speedup), or None.
    speedup: dict[str, float | None] = field(default_factory=dict)
    # Per run id, record 1.3: the run's figures per task and its per-request acceptance distribution,
    # where the record has them (the outputs show them beside the accounting).
    per_task: dict[str, PerTask] = field(default_factory=dict)
    request_acceptance: dict[str, RequestAcceptance] = field(default_factory=dict)
    # What to ask the vendor: every error finding's request, once per offer.
    asks: list[Ask] = field(default_factory=list)
    # "evidence-record", or "requirements-profile" when `sdeval validate` was given a buyer's profile,
    # or "configuration" when it was given a `sdeval measure --configuration` file.
    kind: str = "evidence-record"
    # Who made the record (offer.source, record 1.3): whom the asks address (rules/addressee.py).
    source: str = "vendor"

    @property
    def asks_heading(self) -> str:
        from .addressee import heading

        return heading(self.source)

    @property
    def outcome(self) -> str:
        if self.kind == "requirements-profile":
            return "invalid-profile" if self.count("error") else "valid-profile"
        if self.kind == "configuration":
            return "invalid-configuration" if self.count("error") else "valid-configuration"
        if self.record is None:
            return "invalid"
        if any(f.severity == "error" for f in self.findings) or any(c.verdict != "established" for c in self.claims):
            return "not-established"
        return "established"

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)


def exit_code(results: list[FileAssessment]) -> int:
    """1 when any file has an error finding (parse and schema included), else 0."""
    return EXIT_FINDINGS if any(r.count("error") for r in results) else EXIT_OK
