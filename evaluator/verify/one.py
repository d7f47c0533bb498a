"""`sdeval verify`: is this the report sdeval signed, unchanged, signed by someone the auditor
trusts, and does it still follow from its inputs?

Five named checks, in the order an auditor needs them, each printed for every report (a check that
could not run says why):
  signature     intact and valid, covering the entire file, or its revision followed only by
                validation data and document timestamps (PAdES B-LT/B-LTA); appended bytes or any
                other later revision (which can swap an attachment while pyHanko still calls the
                signature intact and valid) fail;
  timestamp     any RFC 3161 timestamp is intact, valid, and its authority chains to a trust anchor
                ("none" when the report has none: its signing time is then only the signer's claim);
  trust         the signer chains to a trust anchor the auditor gave (TrustAnchors); without one
                the signer is not established and the report does not verify;
  attachments   every attached file's SHA-256 equals the manifest's, the embedded assessment's
                and the one printed on the cover;
  reproduction  re-assessing the attached inputs with this sdeval gives the attached assessment
                (and, when a requirements profile is attached, re-judging the offers against it
                gives the attached `requirements` section).
Attachments are only believed after the signature check: a viewer shows a swapped file as readily
as the signed one. The signer's certificate (subject, SHA-256 fingerprint, validity, key) is
described for every report, also when checks fail, so a look-alike signer can be told apart.

The API the archive builds on: `TrustAnchors`, `verify_report(path, trust=..., strict=...) -> Outcome`,
and `verify_many.verify_many(paths, ...)` for many reports across the cores.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._infra.reading import UnreadableFile, read_bytes
from ..report.container import (
    ASSESSMENT_NAME,
    MANIFEST_NAME,
    REFERENCES_ROLE,
    REQUIREMENTS_ROLE,
    ContainerProblem,
    ReportContents,
    reference_inputs,
    role,
)
from ..report.container import inputs as read_inputs
from ..report.trust import CertificateInfo, TrustAnchors, TrustProblem, iso_time
from .checks import NOT_ESTABLISHED, NOT_EVALUATED, NOT_REPRODUCIBLE, Check, not_evaluated
from .signature import NO_ANCHOR, TimestampInfo

__all__ = [
    "Check",
    "NotAReport",
    "Outcome",
    "SignerInfo",
    "TimestampInfo",
    "TrustAnchors",
    "TrustProblem",
    "verify_report",
]

MAX_REPORT_BYTES = 200 * 1024 * 1024
SignerInfo = CertificateInfo  # subject, fingerprint_sha256, not_before, not_after, key_type, key_size


class NotAReport(Exception):
    """Exit 2: not a PDF, unreadable, or no sdeval assessment inside."""


@dataclass
class Outcome:
    path: Path
    checks: list[Check]
    signer: SignerInfo | None = None
    timestamps: list[TimestampInfo] = field(default_factory=list)
    claimed_signing_time: dt.datetime | None = None  # what the signer wrote; only a claim
    signing_time: dt.datetime | None = None  # the earliest trusted timestamp over the signature
    assessment: dict[str, Any] | None = None  # the embedded assessment.json, parsed
    attachments: dict[str, bytes] | None = None  # each attached file (name -> bytes)
    problem: str | None = None  # set when the file is not a report (NotAReport's message)
    signer_salvaged: bool = False  # `signer` was read from a signature too damaged to validate

    @property
    def passed(self) -> bool:
        return self.problem is None and bool(self.checks) and all(c.holds for c in self.checks)

    @property
    def admissible(self) -> bool:
        """What the archive admits: everything holds, except that the verdicts may come from another
        real rule catalog this release does not carry (they stay listed, and `rejudge` compares them)."""
        return self.problem is None and bool(self.checks) and all(c.holds or c.word == NOT_REPRODUCIBLE for c in self.checks)

    @property
    def timestamp(self) -> TimestampInfo | None:
        """The timestamp that dates the signature: its own token, else the first document timestamp."""
        return next((t for t in self.timestamps if t.kind == "signature"), self.timestamps[0] if self.timestamps else None)

    @property
    def result(self) -> str:
        return "not-a-report" if self.problem else "verified" if self.passed else "not-verified"

    def offers(self) -> list[dict[str, Any]]:
        files = (self.assessment or {}).get("files") if isinstance(self.assessment, dict) else None
        out = []
        for f in files if isinstance(files, list) else []:
            offer = f.get("offer") if isinstance(f, dict) else None
            offer = offer if isinstance(offer, dict) else {}
            out.append({"file": f.get("file"), "vendor": offer.get("vendor"), "offer_id": offer.get("offer_id"), "outcome": f.get("outcome")})
        return out

    @property
    def outcome(self) -> str | None:
        value = self.assessment.get("outcome") if isinstance(self.assessment, dict) else None
        return value if isinstance(value, str) else None

    def verdict(self) -> str:
        """The last line of the text: verified, or why not, never suggesting more than was checked."""
        if self.problem:
            return f"NOT A REPORT: {self.problem}"
        if self.passed:
            return "verified: every check passed"
        failed = [c.name for c in self.checks if c.passed is False]
        unknown = [c.name for c in self.checks if c.passed is None and c.word == NOT_EVALUATED]
        unestablished = [c.name for c in self.checks if c.passed is None and c.word == NOT_ESTABLISHED]
        elsewhere = [c.name for c in self.checks if c.passed is None and c.word == NOT_REPRODUCIBLE]
        if not failed and not unknown and not unestablished and elsewhere:
            return "NOT VERIFIED: intact and trusted, but its verdicts are not reproducible with this release's rule catalog"
        if not failed and not unknown and unestablished:
            return f"NOT VERIFIED: the report is intact, but the signer is not established: {NO_ANCHOR}"
        parts = []
        if failed:
            parts.append(f"{', '.join(failed)} failed")
        if unknown:
            parts.append(f"{', '.join(unknown)} not evaluated")
        if unestablished:
            parts.append(f"{', '.join(unestablished)} not established")
        if elsewhere:
            parts.append(f"{', '.join(elsewhere)} not reproducible with this release")
        return "NOT VERIFIED: " + "; ".join(parts)

    def signer_line(self) -> str:
        if self.signer is not None and self.signer_salvaged:
            return f"  {'signer':<13} {self.signer.text()} (read from the damaged signature, not verified)"
        if self.signer is not None:
            return f"  {'signer':<13} {self.signer.text()}"
        return f"  {'signer':<13} unknown: no readable signer certificate in the report"

    def text(self) -> str:
        if self.problem:
            return f"{self.path}:\n{self.verdict()}\n"
        lines = [f"{self.path}:", self.signer_line()]
        for c in self.checks:
            lines.append(c.line())
            lines += [f"  {'':<13}   {n}" for n in c.notes]
        lines.append(self.verdict())
        return "\n".join(lines) + "\n"

    def first_reason(self) -> str:
        """One line: why the report does not verify (the first check that does not hold)."""
        if self.problem:
            return f"NOT A REPORT: {self.problem}"
        if self.passed:
            return "verified"
        failing = next((c for c in self.checks if c.passed is False), None)
        if failing is None:
            return self.verdict()
        return f"NOT VERIFIED: {failing.name}: {failing.detail}"

    def as_dict(self) -> dict[str, Any]:
        stamp = self.timestamp
        return {
            "file": str(self.path),
            "passed": self.passed,
            "result": self.result,
            "problem": self.problem,
            "verdict": self.verdict(),
            "checks": [c.as_dict() for c in self.checks],
            "signer": ({**self.signer.as_dict(), "from_damaged_signature": self.signer_salvaged} if self.signer else None),
            "timestamp": stamp.as_dict() if stamp else None,
            "timestamps": [t.as_dict() for t in self.timestamps],
            "signing_time": iso_time(self.signing_time),
            "claimed_signing_time": iso_time(self.claimed_signing_time),
            "outcome": self.outcome,
            "offers": self.offers(),
        }


def not_a_report(path: Path, message: str) -> Outcome:
    return Outcome(Path(path), [], problem=message)


def verify_report(path: Path, *, trust: TrustAnchors | None, strict: bool, now: dt.datetime | None = None, data: bytes | None = None) -> Outcome:
    """Every check on one report. NotAReport (exit 2) when the file is not an sdeval report.
    `now` is the validation time (default: the current time). `data`: the file's bytes, already
    read by the caller (the archive, which has just checked their SHA-256), so it is read once."""
    from .signature import check_signature

    path = Path(path)
    if path.is_dir():
        raise NotAReport(f"{path}: is a directory, not a PDF")
    # pypdf and pyHanko log what they repair or reject in a damaged file; the checks report it.
    for name in ("pypdf", "pyhanko", "pyhanko_certvalidator"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    try:
        data = read_bytes(str(path), MAX_REPORT_BYTES) if data is None else data
    except UnreadableFile as exc:
        raise NotAReport(str(exc)) from None
    if b"%PDF-" not in data[:1024]:
        from ..importers.sniff import own_kind

        what = {
            "record": "; it is an evidence record (`sdeval render` makes a signed report of it)",
            "profile": "; it is a requirements profile (`sdeval render RECORD... -r` attaches it to a report)",
        }.get(own_kind(path) or "", "")
        raise NotAReport(f"{path}: not a PDF (no %PDF- header){what}")
    # pyHanko reads the signature; one reading with pypdf's strict reader serves the attachment and
    # cover checks, whole, signed or not: a signature over a broken object does not mend it.
    found = check_signature(data, trust, now=now)
    try:
        contents, problem = ReportContents.read(data), None
    except ContainerProblem as exc:
        contents, problem = None, str(exc)
    if contents is not None and not contents.is_report:
        raise NotAReport(f"{path}: holds no sdeval assessment (no {MANIFEST_NAME} / {ASSESSMENT_NAME} attachment)")
    outcome = Outcome(
        path,
        found.checks,
        signer=found.signer,
        timestamps=found.timestamps,
        claimed_signing_time=found.claimed_signing_time,
        signing_time=found.signing_time,
        signer_salvaged=found.signer_salvaged,
    )
    if contents is None:
        outcome.checks.append(Check("attachments", False, f"cannot be read ({problem})"))
        outcome.checks.append(not_evaluated("reproduction", "the attachments cannot be read"))
        return outcome
    outcome.attachments = contents.files()
    outcome.assessment = _parsed_assessment(contents)
    outcome.checks.append(_attachment_check(contents))
    outcome.checks.append(_reproduction_check(contents, strict))
    return outcome


def _parsed_assessment(contents: ReportContents) -> dict[str, Any] | None:
    try:
        return contents.assessment()
    except ContainerProblem:
        return None


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200]


# ---------------------------------------------------------------------------- attachments


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _attachment_check(contents: ReportContents) -> Check:
    try:
        return _compare_hashes(contents)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:  # a manifest sdeval did not write
        return Check("attachments", False, f"the manifest or assessment cannot be read ({type(exc).__name__}: {_one_line(exc)})")


def _compare_hashes(contents: ReportContents) -> Check:
    attached = contents.attached
    manifest = contents.manifest()
    assessment = contents.assessment()
    problems = []
    expected = {i["attachment"]: i["sha256"] for i in manifest["inputs"]}
    expected[ASSESSMENT_NAME] = manifest["assessment"]["sha256"]
    for name in sorted(set(attached) - set(expected) - {MANIFEST_NAME}):
        problems.append(f"{name} is attached but not listed in the manifest")
    actual: dict[str, str] = {}
    for name, sha in expected.items():
        if name not in attached:
            problems.append(f"{name} is listed but not attached")
            continue
        if len(attached[name]) != 1:
            problems.append(f"{name} is attached {len(attached[name])} times")
            continue
        actual[name] = _sha256(attached[name][0])
        if actual[name] != sha:
            problems.append(f"{name}: SHA-256 {actual[name]} differs from the manifest's {sha}")
    assessed = {f.get("file"): f.get("sha256") for f in assessment.get("files", [])}
    profile = (assessment.get("requirements") or {}).get("profile") or {}
    compared = {f.get("file"): f.get("sha256") for f in (assessment.get("references") or {}).get("files", [])}
    for item in manifest["inputs"]:
        if role(item) == REQUIREMENTS_ROLE:
            named = profile.get("sha256") if profile.get("file") == item["file"] else None
        elif role(item) == REFERENCES_ROLE:
            named = compared.get(item["file"])
        else:
            named = assessed.get(item["file"])
        if named != item["sha256"]:
            problems.append(f"{item['attachment']}: the embedded assessment names another SHA-256 for {item['file']}")
    # The cover prints each hash on one line; extraction may still split it, so compare without whitespace.
    cover = re.sub(r"\s+", "", contents.cover_text())
    names = [*actual, MANIFEST_NAME]
    actual[MANIFEST_NAME] = _sha256(contents.single(MANIFEST_NAME))
    for name in names:
        if actual[name] not in cover:
            problems.append(f"{name}: SHA-256 {actual[name]} is not printed on the cover")
    if problems:
        return Check("attachments", False, problems[0], problems[1:])
    return Check("attachments", True, f"{len(names)} files; each SHA-256 matches the manifest, the assessment and the cover")


# ---------------------------------------------------------------------------- reproduction


def _reproduction_check(contents: ReportContents, strict: bool) -> Check:
    from ..pipeline import CannotRun, ProfileInput, reassess
    from ..present.differences import as_of_schema, describe_differences, without_tool

    try:
        manifest = contents.manifest()
        embedded = json.loads(contents.single(ASSESSMENT_NAME))
        inputs, given = read_inputs(manifest, contents.files())
        profile = [ProfileInput(*given)] if given else []
        references = reference_inputs(manifest, contents.files())
    except (ValueError, KeyError, TypeError) as exc:  # ContainerProblem is a ValueError
        return Check("reproduction", False, f"the inputs cannot be read back ({type(exc).__name__}: {_one_line(exc)})")
    if not isinstance(embedded, dict) or not isinstance(embedded.get("tool", {}), dict):
        return Check("reproduction", False, f"{ASSESSMENT_NAME} is not an sdeval assessment")
    try:
        fresh = reassess(inputs, profile[0] if profile else None, references).document
    except CannotRun as exc:
        what = "requirements profile" if profile else "independent results"
        return Check("reproduction", False, f"the attached {what} cannot be judged again: {exc}")
    then, now_tool = embedded.get("tool", {}), fresh["tool"]
    now = f"sdeval {now_tool['version']} (rule catalog {now_tool['rule_catalog_version']})"
    before = f"sdeval {then.get('version')} (rule catalog {then.get('rule_catalog_version')})"
    claimed = judge_claimed_catalog(then.get("version"), then.get("rule_catalog_version"))
    differences = describe_differences(without_tool(embedded), without_tool(as_of_schema(fresh, embedded.get("schema_version"))))
    if claimed.standing == UNKNOWN:
        # A catalog no release shipped proves nothing, whether or not today's verdicts agree.
        return Check("reproduction", False, claimed.words, differences)
    if not differences:
        same_tool = before == now
        return Check(
            "reproduction",
            True,
            f"re-assessing {len(inputs)} input{'s' * (len(inputs) != 1)}"
            + (f" against requirements {profile[0].path}" if profile else "")
            + (f" beside independent results {', '.join(name for name, _ in references)}" if references else "")
            + f" with {now} gives the embedded assessment"
            + ("" if same_tool else f" (made with {before})"),
        )
    if claimed.standing == CURRENT:
        return Check("reproduction", False, f"{now}, the same rule catalog, does not reproduce the embedded assessment", differences)
    # Made with another real catalog that this release does not carry: the verdicts can be neither
    # confirmed nor refuted here, only by the release that has that catalog.
    which = "an older" if claimed.standing == OLDER else "a newer"
    detail = (
        f"{now} assesses the inputs differently from {before}, which made the report; this sdeval does not carry"
        f" {which} rule catalog {then.get('rule_catalog_version')}, so the embedded verdicts are not reproduced:"
        f" verify the report with {claimed.words}"
    )
    if strict:
        return Check("reproduction", False, detail + " (--strict)", differences)
    return Check("reproduction", None, detail, differences, status=NOT_REPRODUCIBLE)


# ---------------------------------------------------------------------------- claimed catalogs
# A report names the sdeval version and rule catalog that made it. Reproduction trusts that claim
# only as far as evaluator.RELEASES does: a catalog no release shipped, or a release named with
# another release's catalog, is a report nobody should believe.

CURRENT, OLDER, NEWER, UNKNOWN = "current", "older", "newer", "unknown"


@dataclass(frozen=True)
class ClaimedCatalog:
    standing: str  # CURRENT, OLDER (a release shipped it), NEWER (than this release's) or UNKNOWN
    words: str  # why, in a clause, for UNKNOWN; the release that has it, for OLDER and NEWER


def _version_key(version: str) -> tuple[int, ...] | None:
    try:
        return tuple(int(part) for part in version.split("."))
    except (AttributeError, ValueError):
        return None


def judge_claimed_catalog(tool_version: object, catalog: object) -> ClaimedCatalog:
    """What the (tool version, rule catalog) a report claims is worth to this release."""
    from .. import RELEASES, RULE_CATALOG_VERSION, __version__

    known = {**RELEASES, __version__: RULE_CATALOG_VERSION}
    if not isinstance(catalog, str) or not catalog:
        return ClaimedCatalog(UNKNOWN, "the report names no rule catalog")
    if isinstance(tool_version, str) and tool_version in known and known[tool_version] != catalog:
        return ClaimedCatalog(
            UNKNOWN,
            f"the report claims sdeval {tool_version} with rule catalog {catalog}, but sdeval {tool_version} has rule catalog {known[tool_version]}",
        )
    if catalog == RULE_CATALOG_VERSION:
        return ClaimedCatalog(CURRENT, f"sdeval {__version__}")
    shipped = [release for release, shipped_catalog in RELEASES.items() if shipped_catalog == catalog]
    if shipped:
        return ClaimedCatalog(OLDER, f"sdeval {shipped[-1]}")
    ours, theirs = _version_key(RULE_CATALOG_VERSION), _version_key(catalog)
    if ours is not None and theirs is not None and theirs > ours:
        return ClaimedCatalog(NEWER, "a release newer than this one")
    released = ", ".join(f"{c} (sdeval {r})" for r, c in RELEASES.items())
    return ClaimedCatalog(
        UNKNOWN,
        f"the report claims rule catalog {catalog}, which no sdeval release has "
        f"(released: {released}; this sdeval {__version__}: {RULE_CATALOG_VERSION})",
    )
