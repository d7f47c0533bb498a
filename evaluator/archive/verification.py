"""The archive's ONE door to report verification (evaluator/verify/one.py and many.py).

Everything the archive needs from a signed report comes through `verify_one` / `verify_many`:
the named checks, who signed and when (a trusted timestamp when there is one), the embedded
assessment and manifest, and the attachments (`read_attachments`). The archive's trust anchors
(signers' and time-stamping authorities' roots) are all given to verify at once.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Signer:
    name: str  # the common name, as the cover prints it
    subject: str  # the whole subject
    fingerprint_sha256: str  # of the signer's certificate (DER)
    not_before: str
    not_after: str
    key_type: str
    key_size: int | None


@dataclass(frozen=True)
class Timestamp:
    time: str
    authority: str
    authority_fingerprint_sha256: str | None


@dataclass
class Verified:
    """One report's verification, in the form the archive indexes and prints."""

    path: str
    passed: bool
    checks: list[dict[str, Any]]  # {"name", "status": pass|fail|not checked, "reason", "notes"}
    text: str  # `sdeval verify`'s own wording of the checks
    reason: str  # one line: why the report did not pass ("passed" when it did)
    problem: str | None = None  # not a report at all (not a PDF, unreadable, no assessment)
    signer: Signer | None = None
    timestamp: Timestamp | None = None
    assessment: dict[str, Any] | None = None
    manifest: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "problem": self.problem,
            "checks": self.checks,
            "signer": asdict(self.signer) if self.signer else None,
            "timestamp": asdict(self.timestamp) if self.timestamp else None,
        }


def fingerprint(der: bytes) -> str:
    return hashlib.sha256(der).hexdigest()


def load_certificates(path: Path) -> list[bytes]:
    """Every certificate (DER) in a PEM file (one or more) or a DER file; ValueError if none."""
    from ..report.trust import TrustAnchors, TrustProblem

    try:
        return [anchor.der for anchor in TrustAnchors.from_paths([path]).anchors]
    except TrustProblem as exc:
        raise ValueError(str(exc)) from None


def certificate_subject(der: bytes) -> str:
    from ..report.trust import describe

    return describe(der).subject


def _anchors(paths: list[Path]):
    from ..report.trust import TrustAnchors

    return TrustAnchors.from_paths(paths, origin="the archive's anchors") if paths else None


def verify_one(path: Path, anchors: list[Path], *, strict: bool) -> Verified:
    return verify_many([path], anchors, strict=strict, workers=1)[0]


def verify_many(paths: list[Path], anchors: list[Path], *, strict: bool, workers: int | None = None) -> list[Verified]:
    """Every report verified, in order, across the cores (verify_many forks only where it is safe)."""
    from ..verify import many

    outcomes = many.verify_many(paths, trust=_anchors(anchors), strict=strict, workers=workers)
    return [_verified(outcome) for outcome in outcomes]


def _verified(outcome) -> Verified:
    from ..report.container import ASSESSMENT_NAME, MANIFEST_NAME

    path = str(outcome.path)
    if outcome.problem:
        return Verified(path, False, [], outcome.text(), outcome.problem, problem=outcome.problem)
    checks = [c.as_dict() for c in outcome.checks]
    # Admitted and counted as passing also when the verdicts come from another real rule catalog this
    # release does not carry: integrity and trust hold, and `archive rejudge` shows what differs.
    verified = Verified(path, outcome.admissible, checks, outcome.text(), "passed" if outcome.passed else _reason(outcome))
    if outcome.signer is not None:
        info = outcome.signer
        verified.signer = Signer(
            name=info.common_name or info.subject,
            subject=info.subject,
            fingerprint_sha256=info.fingerprint_sha256,
            not_before=info.not_before.isoformat(),
            not_after=info.not_after.isoformat(),
            key_type=info.key_type,
            key_size=info.key_size,
        )
    stamp = outcome.timestamp
    if stamp is not None:
        verified.timestamp = Timestamp(stamp.time.isoformat(), stamp.authority_subject or "unknown", stamp.authority_fingerprint_sha256)
    attached = outcome.attachments or {}
    verified.manifest = _json(attached.get(MANIFEST_NAME))
    verified.assessment = outcome.assessment if outcome.assessment is not None else _json(attached.get(ASSESSMENT_NAME))
    return verified


def _reason(outcome) -> str:
    """One line for a refusal: the first check that lets the report not verify, in verify's words."""
    for check in outcome.checks:
        if check.passed is False:
            return f"{check.name} failed: {check.detail}"
    for check in outcome.checks:
        if check.passed is None and check.word not in ("none",):
            return f"{check.name} {check.word.replace('-', ' ')}: {check.detail}"
    return outcome.first_reason()


def _json(raw: bytes | None) -> Any:
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def read_attachments(data: bytes) -> dict[str, bytes]:
    """The report's attached files by name (a name attached twice is left out: verify fails such a report)."""
    from ..report.container import ContainerProblem, ReportContents

    try:
        return ReportContents.read(data).files()
    except ContainerProblem:  # a damaged file: verify names the problem; here there is simply nothing
        return {}


def verify_bytes(path: Path, data: bytes, anchors: tuple[Path, ...], *, strict: bool) -> Verified:
    """One report verified from bytes its caller has already read (and hashed): read once."""
    from ..verify.one import NotAReport, not_a_report, verify_report

    try:
        outcome = verify_report(path, trust=_anchors_once(anchors), strict=strict, data=data)
    except NotAReport as exc:
        outcome = not_a_report(path, str(exc))
    return _verified(outcome)


@functools.lru_cache(maxsize=4)
def _anchors_once(paths: tuple[Path, ...]):
    """The trust anchors, read once per process (each worker of `archive verify` verifies many reports)."""
    return _anchors(list(paths))
