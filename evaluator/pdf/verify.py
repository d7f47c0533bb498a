"""`sdeval verify`: is this the report sdeval signed, unchanged, and does it still follow from its inputs?

Four named checks, in the order an auditor needs them:
  signature     intact and valid, and covering the entire file: appended bytes or a later
                incremental update (which can swap an attachment while pyHanko still calls
                the signature intact and valid) fail;
  trust         the signer chains to --trust (not checked without it);
  attachments   every attached file's SHA-256 equals the manifest's, the embedded assessment's
                and the one printed on the cover;
  reproduction  re-assessing the attached inputs with this sdeval gives the attached assessment
                (and, when a requirements profile is attached, re-judging the offers against it
                gives the attached `requirements` section).
Attachments are only believed after the signature check: a viewer shows a swapped file as readily
as the signed one.
"""

from __future__ import annotations

import io
import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..loader import UnreadableFile, read_bytes
from .render import ASSESSMENT_NAME, MANIFEST_NAME, RECORD_ROLE, REQUIREMENTS_ROLE
from .signing import subject_name

MAX_REPORT_BYTES = 200 * 1024 * 1024


class NotAReport(Exception):
    """Exit 2: not a PDF, unreadable, or no sdeval assessment inside."""


@dataclass
class Check:
    name: str
    passed: bool | None  # None: not checked (trust without --trust)
    detail: str
    notes: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    path: Path
    checks: list[Check]

    @property
    def passed(self) -> bool:
        return all(c.passed is not False for c in self.checks)

    def text(self) -> str:
        words = {True: "PASS", False: "FAIL", None: "NOT CHECKED"}
        lines = [f"{self.path}:"]
        for c in self.checks:
            lines.append(f"  {c.name:<13} {words[c.passed]}: {c.detail}")
            lines += [f"  {'':<13}   {n}" for n in c.notes]
        failed = [c.name for c in self.checks if c.passed is False]
        lines.append(f"NOT VERIFIED: {', '.join(failed)} failed" if failed else "verified: every check passed")
        return "\n".join(lines) + "\n"


def verify_report(path: Path, *, trust: Path | None, strict: bool) -> Outcome:
    if path.is_dir():
        raise NotAReport(f"{path}: is a directory, not a PDF")
    # pypdf and pyHanko log what they repair or reject in a damaged file; the checks report it.
    for name in ("pypdf", "pyhanko"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    try:
        data = read_bytes(str(path), MAX_REPORT_BYTES)
    except UnreadableFile as exc:
        raise NotAReport(str(exc)) from None
    if b"%PDF-" not in data[:1024]:
        raise NotAReport(f"{path}: not a PDF (no %PDF- header)")
    if trust is not None and not trust.is_file():
        raise NotAReport(f"{trust}: no such file (--trust)")
    attached, problem = _attachments(data)
    if attached is not None and (MANIFEST_NAME not in attached or ASSESSMENT_NAME not in attached):
        raise NotAReport(f"{path}: holds no sdeval assessment (no {MANIFEST_NAME} / {ASSESSMENT_NAME} attachment)")
    checks = list(_signature_checks(data, trust))
    if attached is None:
        checks.append(Check("attachments", False, f"cannot be read ({problem})"))
        return Outcome(path, checks)
    checks.append(_attachment_check(data, attached))
    checks.append(_reproduction_check(attached, strict))
    return Outcome(path, checks)


# ---------------------------------------------------------------------------- reading


def _attachments(data: bytes) -> tuple[dict[str, list[bytes]] | None, str | None]:
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        return {name: list(contents) for name, contents in reader.attachments.items()}, None
    except Exception as exc:  # a damaged file: say what pypdf could not read, never crash
        return None, f"{type(exc).__name__}: {exc}"


def _cover_text(data: bytes) -> str:
    from pypdf import PdfReader

    try:
        return PdfReader(io.BytesIO(data), strict=False).pages[0].extract_text() or ""
    except Exception:
        return ""


# ---------------------------------------------------------------------------- signature


def _signature_checks(data: bytes, trust: Path | None) -> list[Check]:
    from pyhanko.keys import load_cert_from_pemder
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import async_validate_pdf_signature
    from pyhanko.sign.validation.status import SignatureCoverageLevel
    from pyhanko_certvalidator import ValidationContext

    from .aio import run

    trust_skipped = Check("trust", None, "pass --trust CERT.pem to check who signed")
    try:
        sigs = PdfFileReader(io.BytesIO(data), strict=False).embedded_signatures
        if not sigs:
            return [Check("signature", False, "the report is not signed (an unsigned draft)"), trust_skipped]
        if len(sigs) > 1:
            return [Check("signature", False, f"{len(sigs)} signatures; a report carries exactly one"), trust_skipped]
        roots = [load_cert_from_pemder(str(trust))] if trust is not None else []
        context = ValidationContext(trust_roots=roots, allow_fetching=False)
        status = run(lambda: async_validate_pdf_signature(sigs[0], context))
    except Exception as exc:  # structurally damaged files raise instead of returning a status
        return [
            Check("signature", False, f"cannot be validated: the file or its signature is damaged ({type(exc).__name__}: {_one_line(exc)})"),
            trust_skipped,
        ]

    problems = []
    if not status.intact:
        problems.append("not intact: the signed bytes were changed")
    if not status.valid:
        problems.append("the signature value does not match the signer's key")
    if status.coverage != SignatureCoverageLevel.ENTIRE_FILE:
        problems.append(
            "does not cover the entire file: bytes were appended or an incremental update was added after signing"
        )
    if status.docmdp_ok is False:
        problems.append("a later revision modifies the signed document")
    if _altered_certificate_copy(sigs[0], status.signing_cert):
        problems.append("the signature carries an altered copy of the signer's certificate")
    signer = subject_name(status.signing_cert)
    when = status.signer_reported_dt.isoformat() if status.signer_reported_dt else "time not stated"
    detail = f"signer {signer}, signed {when}"
    if problems:
        signature = Check("signature", False, "; ".join(problems) + f" ({detail})")
    else:
        signature = Check("signature", True, f"intact and valid, covers the entire file; {detail}")
    if trust is None:
        return [signature, trust_skipped]
    if status.trusted:
        return [signature, Check("trust", True, f"the signer's certificate chains to {trust}")]
    return [signature, Check("trust", False, f"the signer's certificate does not chain to {trust}")]


def _altered_certificate_copy(signature, signing_cert) -> bool:
    """The CMS certificate set lies inside /Contents, outside the signed byte ranges, and may hold
    the signer's certificate more than once; pyHanko validates against one copy. A copy with the
    signer's issuer and serial number but other bytes was changed after signing."""
    try:
        certificates = signature.signed_data["certificates"]
    except (KeyError, TypeError):
        return False
    if signing_cert is None or not certificates:
        return False
    wanted = (signing_cert.issuer.dump(), signing_cert.serial_number)
    for choice in certificates:
        cert = choice.chosen
        try:
            same_identity = (cert.issuer.dump(), cert.serial_number) == wanted
        except (AttributeError, ValueError):
            return True  # not even a readable certificate
        if same_identity and cert.dump() != signing_cert.dump():
            return True
    return False


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200]


# ---------------------------------------------------------------------------- attachments


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _single(attached: dict[str, list[bytes]], name: str) -> bytes:
    contents = attached[name]
    if len(contents) != 1:
        raise ValueError(f"{name} is attached {len(contents)} times")
    return contents[0]


def _read_manifest(attached: dict[str, list[bytes]]) -> dict[str, Any]:
    manifest = json.loads(_single(attached, MANIFEST_NAME))
    if not isinstance(manifest, dict) or not isinstance(manifest.get("inputs"), list):
        raise ValueError(f"{MANIFEST_NAME} is not an sdeval report manifest")
    return manifest


def _attachment_check(data: bytes, attached: dict[str, list[bytes]]) -> Check:
    try:
        return _compare_hashes(data, attached)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:  # a manifest sdeval did not write
        return Check("attachments", False, f"the manifest or assessment cannot be read ({type(exc).__name__}: {_one_line(exc)})")


def _compare_hashes(data: bytes, attached: dict[str, list[bytes]]) -> Check:
    manifest = _read_manifest(attached)
    assessment = json.loads(_single(attached, ASSESSMENT_NAME))
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
    for item in manifest["inputs"]:
        if _role(item) == REQUIREMENTS_ROLE:
            named = profile.get("sha256") if profile.get("file") == item["file"] else None
        else:
            named = assessed.get(item["file"])
        if named != item["sha256"]:
            problems.append(f"{item['attachment']}: the embedded assessment names another SHA-256 for {item['file']}")
    # The cover prints each hash on one line; extraction may still split it, so compare without whitespace.
    cover = re.sub(r"\s+", "", _cover_text(data))
    names = [*actual, MANIFEST_NAME]
    actual[MANIFEST_NAME] = _sha256(_single(attached, MANIFEST_NAME))
    for name in names:
        if actual[name] not in cover:
            problems.append(f"{name}: SHA-256 {actual[name]} is not printed on the cover")
    if problems:
        return Check("attachments", False, problems[0], problems[1:])
    return Check("attachments", True, f"{len(names)} files; each SHA-256 matches the manifest, the assessment and the cover")


# ---------------------------------------------------------------------------- reproduction


def _role(item: dict[str, Any]) -> str:
    # Manifests written before requirements profiles could be attached give every input this role.
    return item.get("role", RECORD_ROLE)


def _reproduction_check(attached: dict[str, list[bytes]], strict: bool) -> Check:
    from ..reporters.differences import describe_differences, without_tool
    from ..run import CannotRun, ProfileInput, reassess

    try:
        manifest = _read_manifest(attached)
        embedded = json.loads(_single(attached, ASSESSMENT_NAME))
        records = [i for i in manifest["inputs"] if _role(i) == RECORD_ROLE]
        profiles = [i for i in manifest["inputs"] if _role(i) == REQUIREMENTS_ROLE]
        if len(records) + len(profiles) != len(manifest["inputs"]) or len(profiles) > 1:
            raise ValueError("the manifest lists inputs of unknown roles, or more than one requirements profile")
        inputs = [(i["file"], _single(attached, i["attachment"])) for i in records]
        profile = [ProfileInput(i["file"], _single(attached, i["attachment"])) for i in profiles]
    except (ValueError, KeyError, TypeError) as exc:
        return Check("reproduction", False, f"the inputs cannot be read back ({type(exc).__name__}: {_one_line(exc)})")
    if not isinstance(embedded, dict) or not isinstance(embedded.get("tool", {}), dict):
        return Check("reproduction", False, f"{ASSESSMENT_NAME} is not an sdeval assessment")
    try:
        fresh = reassess(inputs, profile[0] if profile else None).document()
    except CannotRun as exc:
        return Check("reproduction", False, f"the attached requirements profile cannot be judged again: {exc}")
    then, now_tool = embedded.get("tool", {}), fresh["tool"]
    now = f"sdeval {now_tool['version']} (rule catalog {now_tool['rule_catalog_version']})"
    before = f"sdeval {then.get('version')} (rule catalog {then.get('rule_catalog_version')})"
    differences = describe_differences(without_tool(embedded), without_tool(fresh))
    if not differences:
        same_tool = before == now
        return Check(
            "reproduction",
            True,
            f"re-assessing {len(inputs)} input{'s' * (len(inputs) != 1)}"
            + (f" against requirements {profile[0].path}" if profile else "")
            + f" with {now} gives the embedded assessment"
            + ("" if same_tool else f" (made with {before})"),
        )
    if then.get("rule_catalog_version") != now_tool["rule_catalog_version"]:
        detail = (
            f"{now} assesses the inputs differently from {before}, which made the report; "
            "a newer rule catalog can legitimately differ"
        )
        if strict:
            return Check("reproduction", False, detail + " (--strict)", differences)
        return Check("reproduction", True, detail + "; --strict makes this a failure", differences)
    return Check("reproduction", False, f"{now}, the same rule catalog, does not reproduce the embedded assessment", differences)
