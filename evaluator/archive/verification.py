"""The archive's ONE door to report verification.

Everything the archive needs from a signed report comes through `verify_one` / `verify_many`:
the named checks, who signed and when (a signature time stamp when there is one), the embedded
assessment and manifest, and the attachments (`read_attachments`).

ADAPTER: today's `evaluator.pdf.verify.verify_report(path, trust=Path | None, strict=bool)`
takes one trust certificate and returns only the checks. This module therefore
  - picks, among the archive's anchors, the one the signer's certificate names as issuer
    (self-signed identities and one-level chains; a report matching none is checked against
    the first anchor, so trust fails with the usual reason);
  - reads the signer, its certificate fingerprint and any signature time stamp from the CMS
    (pyHanko / asn1crypto), and the manifest and assessment from the attachments.
When `verify_report(path, trust=TrustAnchors, strict=...)` with `Outcome.signer`, `.timestamp`,
`.assessment`, `.attachments` and `verify_many` land, `verify_many` / `_verify_here` become a thin
mapping of that Outcome, and `_choose_anchor` / `_signature_facts` go away:
  trust        TrustAnchors.from_paths(anchors) (every anchor at once: signers' and TSA roots)
  passed       outcome.passed; problem = outcome.problem
  checks       one dict per check (name, status from its word, reason, notes)
  reason       "passed", or outcome.first_reason() (a check "not established" fails too)
  signer       outcome.signer (subject, common_name, fingerprint_sha256, ...)
  timestamp    outcome.timestamp (time, authority_subject, authority_fingerprint_sha256)
  assessment   outcome.assessment; manifest = json.loads(outcome.attachments[MANIFEST_NAME])
Nothing else in the archive changes.
"""

from __future__ import annotations

import hashlib
import io
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
    from asn1crypto import pem, x509

    raw = path.read_bytes()
    if pem.detect(raw):
        ders = [der for kind, _, der in pem.unarmor(raw, multiple=True) if kind == "CERTIFICATE"]
    else:
        ders = [raw]
    for der in ders:
        try:
            x509.Certificate.load(der).native  # noqa: B018 (parses the whole certificate)
        except Exception:
            raise ValueError(f"{path}: not a certificate (PEM or DER)") from None
    if not ders:
        raise ValueError(f"{path}: holds no certificate")
    return ders


def certificate_subject(der: bytes) -> str:
    from asn1crypto import x509

    return x509.Certificate.load(der).subject.human_friendly


def verify_one(path: Path, anchors: list[Path], *, strict: bool) -> Verified:
    return _verify_here(path, anchors, strict)


def verify_many(paths: list[Path], anchors: list[Path], *, strict: bool, workers: int | None = None) -> list[Verified]:
    """Every report verified, in order, one process per core."""
    from functools import partial

    from .parallel import map_across_cores

    if len(paths) > 1:
        _warm_up()  # imported once here, so each forked worker starts with them
    return map_across_cores(partial(_verify_here, anchors=anchors, strict=strict), paths, workers=workers)


def _warm_up() -> None:
    import pypdf  # noqa: F401
    import pyhanko.sign.validation  # noqa: F401
    import pyhanko_certvalidator  # noqa: F401

    from .. import assessment, fit_report  # noqa: F401
    from ..pdf import verify  # noqa: F401


def _verify_here(path: Path, anchors: list[Path], strict: bool) -> Verified:
    from ..pdf.verify import NotAReport, verify_report

    try:
        data = path.read_bytes()
    except OSError as exc:
        problem = f"{path}: cannot read ({exc.strerror or exc})"
        return Verified(str(path), False, [], "", problem, problem=problem)
    signature = _embedded_signature(data)  # parsed once, for the anchor and the signer's facts
    try:
        outcome = verify_report(path, trust=_choose_anchor(signature, anchors), strict=strict)
    except NotAReport as exc:
        return Verified(str(path), False, [], "", str(exc), problem=str(exc))
    status = {True: "pass", False: "fail", None: "not checked"}
    checks = [{"name": c.name, "status": status[c.passed], "reason": c.detail, "notes": list(c.notes)} for c in outcome.checks]
    failed = "; ".join(f"{c['name']} failed: {c['reason']}" for c in checks if c["status"] == "fail")
    verified = Verified(str(path), outcome.passed, checks, outcome.text(), failed or "passed")
    verified.signer, verified.timestamp = _signature_facts(signature)
    attached = read_attachments(data)
    verified.manifest = _json(attached.get(_names().manifest))
    verified.assessment = _json(attached.get(_names().assessment))
    return verified


@dataclass(frozen=True)
class _Names:
    manifest: str
    assessment: str


def _names() -> _Names:
    from ..pdf.render import ASSESSMENT_NAME, MANIFEST_NAME

    return _Names(MANIFEST_NAME, ASSESSMENT_NAME)


def _json(raw: bytes | None) -> Any:
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def read_attachments(data: bytes) -> dict[str, bytes]:
    """The report's attached files by name (a name attached twice is left out: verify fails such a report)."""
    from pypdf import PdfReader

    try:
        attached = PdfReader(io.BytesIO(data), strict=False).attachments
        return {name: contents[0] for name, contents in attached.items() if len(contents) == 1}
    except Exception:  # a damaged file: verify names the problem; here there is simply nothing
        return {}


def _embedded_signature(data: bytes):
    """The report's one signature (pyHanko's EmbeddedPdfSignature), or None (none, several, or unreadable)."""
    from pyhanko.pdf_utils.reader import PdfFileReader

    try:
        sigs = PdfFileReader(io.BytesIO(data), strict=False).embedded_signatures
    except Exception:  # a damaged file: verify says what is wrong
        return None
    return sigs[0] if len(sigs) == 1 else None


def _choose_anchor(sig, anchors: list[Path]) -> Path | None:
    if not anchors:
        return None
    try:
        from pyhanko.keys import load_cert_from_pemder

        issuers = set()
        if sig is not None:
            issuers.add(sig.signer_cert.issuer.dump())
            for choice in sig.signed_data["certificates"] or []:
                issuers.add(choice.chosen.issuer.dump())
        for anchor in anchors:
            if load_cert_from_pemder(str(anchor)).subject.dump() in issuers:
                return anchor
    except Exception:  # a damaged signature: any anchor lets verify say what is wrong
        pass
    return anchors[0]


def _signature_facts(sig) -> tuple[Signer | None, Timestamp | None]:
    from ..pdf.signing import subject_name

    try:
        if sig is None:
            return None, None
        cert = sig.signer_cert
        key = cert.public_key
        signer = Signer(
            name=subject_name(cert),
            subject=cert.subject.human_friendly,
            fingerprint_sha256=fingerprint(cert.dump()),
            not_before=cert.not_valid_before.isoformat(),
            not_after=cert.not_valid_after.isoformat(),
            key_type=key.algorithm,
            key_size=key.bit_size,
        )
        return signer, _signature_timestamp(sig.signer_info)
    except Exception:  # a damaged CMS: the signature check has already said so
        return None, None


def _signature_timestamp(signer_info) -> Timestamp | None:
    """The RFC 3161 signature time stamp among the unsigned attributes (PAdES B-T), if any:
    its genTime and the authority that signed the token."""
    from asn1crypto import tsp

    unsigned = signer_info["unsigned_attrs"]
    if not unsigned or unsigned.native is None:
        return None
    for attribute in unsigned:
        if attribute["type"].native != "signature_time_stamp_token":
            continue
        token = attribute["values"][0]["content"]  # SignedData
        info = token["encap_content_info"]["content"].parsed
        if not isinstance(info, tsp.TSTInfo):
            continue
        sid = token["signer_infos"][0]["sid"]
        authority, authority_fpr = "unknown", None
        for choice in token["certificates"] or []:
            cert = choice.chosen
            if sid.name == "issuer_and_serial_number" and (
                cert.issuer.dump() == sid.chosen["issuer"].dump() and cert.serial_number == sid.chosen["serial_number"].native
            ):
                authority, authority_fpr = cert.subject.human_friendly, fingerprint(cert.dump())
            elif sid.name == "subject_key_identifier" and cert.key_identifier == sid.chosen.native:
                authority, authority_fpr = cert.subject.human_friendly, fingerprint(cert.dump())
        return Timestamp(info["gen_time"].native.isoformat(), authority, authority_fpr)
    return None
