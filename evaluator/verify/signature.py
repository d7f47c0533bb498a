"""The signature, timestamp and trust checks of `sdeval verify`, with pyHanko, offline.

  signature   the one signature is intact and valid, and covers the entire file, or covers its
              revision and every later revision only adds validation data (DSS) and document
              timestamps (PAdES B-LT / B-LTA), with nothing appended after the last one;
  timestamp   each RFC 3161 timestamp (the signature's, and any document timestamp) is intact,
              valid, covers what it should, and its authority chains to a trust anchor;
  trust       the signer's certificate chains to a trust anchor, now, or, once it has expired,
              at the time of a trusted timestamp (the timestamp proves the signature existed
              while the certificate was valid).
When the signature is broken, timestamp and trust are not evaluated, and say so: a damaged report
proves nothing about who signed it. The signer's certificate is described whenever it can be read.

Revocation: only what the report embeds (its DSS, written by `render --ltv`) is used; verify never
fetches. A revoked certificate fails; with no revocation information the trust line says so.
"""

from __future__ import annotations

import datetime as dt
import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..report.trust import CertificateInfo, TrustAnchors, describe, iso_time, unfit_for_signing
from . import budget
from .budget import AnalysisOverBudget, treated_as_modified
from .checks import NONE, NOT_ESTABLISHED, Check, not_evaluated
from .updates import later_change, updated_after

NO_ANCHOR = "no trust anchor given (--trust CERT or SDEVAL_TRUST)"
# Sub-indications pyHanko gives when a certificate is used outside its validity period.
_TIME_BOUND = {"OUT_OF_BOUNDS_NO_POE", "OUT_OF_BOUNDS_NOT_REVOKED", "EXPIRED", "NOT_YET_VALID"}


@dataclass(frozen=True)
class TimestampInfo:
    kind: str  # "signature" (RFC 3161 token on the signature) or "document" (PAdES document timestamp)
    time: dt.datetime
    authority: CertificateInfo | None
    trusted: bool | None = None  # None: not evaluated
    trusted_at: dt.datetime | None = None  # set when trusted as of a later document timestamp (its authority has since expired)
    problem: str | None = None  # why the authority is not trusted

    @property
    def authority_subject(self) -> str | None:
        return self.authority.subject if self.authority else None

    @property
    def authority_fingerprint_sha256(self) -> str | None:
        return self.authority.fingerprint_sha256 if self.authority else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "time": iso_time(self.time),
            "authority_subject": self.authority_subject,
            "authority_fingerprint_sha256": self.authority_fingerprint_sha256,
            "trusted": self.trusted,
            "trusted_at": iso_time(self.trusted_at),
        }

    def text(self) -> str:
        who = f"{self.authority.subject} (SHA-256 {self.authority.fingerprint_sha256})" if self.authority else "an unreadable authority"
        later = (
            f" (its authority's certificate has since expired; it was valid at the document timestamp {iso_time(self.trusted_at)})"
            if self.trusted_at
            else ""
        )
        return f"{self.kind} timestamp {iso_time(self.time)} by {who}{later}"


@dataclass
class SignatureResult:
    signature: Check
    timestamp: Check
    trust: Check
    signer: CertificateInfo | None = None
    timestamps: list[TimestampInfo] = field(default_factory=list)
    claimed_signing_time: dt.datetime | None = None
    signing_time: dt.datetime | None = None  # the earliest trusted timestamp over the signature
    signer_salvaged: bool = False  # the certificate was read from a signature pyHanko could not parse

    @property
    def checks(self) -> list[Check]:
        return [self.signature, self.timestamp, self.trust]


def _broken(detail: str, why: str, **known) -> SignatureResult:
    return SignatureResult(Check("signature", False, detail), not_evaluated("timestamp", why), not_evaluated("trust", why), **known)


def check_signature(data: bytes, trust: TrustAnchors | None, *, now: dt.datetime | None = None) -> SignatureResult:
    """`now`: the validation time (default: the current time)."""
    from pyhanko.pdf_utils.reader import PdfFileReader

    now = now or dt.datetime.now(dt.timezone.utc)
    try:
        reader = PdfFileReader(io.BytesIO(data), strict=False)
    except Exception as exc:  # structurally damaged files raise instead of returning a status
        return _broken(
            f"cannot be validated: the file structure is damaged ({_one_line(exc)})",
            "the signature is broken",
            signer=_salvaged_signer(data),
            signer_salvaged=True,
        )
    try:  # listing the signatures parses each one's CMS container
        regular = list(reader.embedded_regular_signatures)
        documents = list(reader.embedded_timestamp_signatures)
    except Exception as exc:
        return _broken(
            f"cannot be validated: the signature's CMS container is damaged ({_one_line(exc)})",
            "the signature is broken",
            signer=_salvaged_signer(data),
            signer_salvaged=True,
        )
    if not regular:
        return _broken("the report is not signed (an unsigned draft)", "the report is not signed")
    if len(regular) > 1:
        return _broken(f"{len(regular)} signatures; a report carries exactly one", "the report carries more than one signature")
    sig = regular[0]
    signer = _signer_info(sig)
    claimed = _claimed_time(sig)
    known: dict[str, Any] = {"signer": signer, "claimed_signing_time": claimed}
    try:
        return _Validation(data, reader, sig, documents, trust, now, known).run()
    except AnalysisOverBudget:
        return _broken(f"does not cover the entire file: {treated_as_modified(budget.ANALYSIS_BUDGET_S)}", "the signature is broken", **known)
    except Exception as exc:  # a damaged CMS raises inside pyHanko rather than returning a status
        if signer is None:
            known.update(signer=_salvaged_signer(data), signer_salvaged=True)
        return _broken(f"cannot be validated: the signature's CMS container is damaged ({_one_line(exc)})", "the signature is broken", **known)


def _salvaged_signer(data: bytes) -> CertificateInfo | None:
    """The first end-entity certificate that parses inside the last /Contents of a damaged signature.
    CMS SignedData lists its certificates before the signer infos (where a timestamp token, with the
    authority's certificate, would be), so this is the signer's as the signature carries it; it is
    shown marked as read from a damaged signature, never as verified."""
    from asn1crypto import x509 as asn1_x509

    found = list(re.finditer(rb"/Contents\s*<([0-9A-Fa-f\s]+)>", data))
    if not found:
        return None
    hex_digits = re.sub(rb"\s", b"", found[-1].group(1))
    cms = bytes.fromhex(hex_digits[: len(hex_digits) // 2 * 2].decode())
    for start in (m.start() for m in re.finditer(rb"\x30\x82", cms)):
        try:
            cert = asn1_x509.Certificate.load(cms[start:])
            der = cert.dump()
            cert.native  # noqa: B018 (parses every field)
            if cert.extended_key_usage_value and "time_stamping" in cert.extended_key_usage_value.native:
                continue
            return describe(der)
        except Exception:
            continue
    return None


def _signer_info(sig) -> CertificateInfo | None:
    try:
        return describe(sig.signer_cert.dump())
    except Exception:  # no readable certificate in a damaged CMS
        return None


def _claimed_time(sig) -> dt.datetime | None:
    try:
        return sig.self_reported_timestamp
    except Exception:
        return None


class _Validation:
    def __init__(self, data: bytes, reader, sig, documents: list, trust: TrustAnchors | None, now: dt.datetime, known: dict) -> None:
        self.data, self.reader, self.sig, self.documents = data, reader, sig, documents
        self.trust, self.now, self.known = trust, now, known
        self.dss_problem: str | None = None  # the document security store exists but cannot be read

    # -------------------------------------------------------------------- contexts

    def context(self, moment: dt.datetime):
        """Anchors as the only roots, plus the certificates and revocation data the report embeds."""
        from pyhanko.sign.validation import DocumentSecurityStore
        from pyhanko.sign.validation.errors import NoDSSFoundError
        from pyhanko_certvalidator import ValidationContext

        kwargs: dict[str, Any] = {
            "trust_roots": self.trust.certificates if self.trust else [],
            "allow_fetching": False,
            "revocation_mode": "soft-fail",
            "moment": moment,
        }
        try:
            return DocumentSecurityStore.read_dss(self.reader).as_validation_context(kwargs)
        except NoDSSFoundError:
            return ValidationContext(**kwargs)
        except Exception as exc:  # a damaged DSS: validate without it, and the timestamp check says so
            self.dss_problem = _one_line(exc)
            return ValidationContext(**kwargs)

    def embedded_revocation_data(self) -> int:
        from pyhanko.sign.validation import DocumentSecurityStore

        try:
            dss = DocumentSecurityStore.read_dss(self.reader)
            return len(dss.crls) + len(dss.ocsps)
        except Exception:  # none, or damaged (which the timestamp check reports)
            return 0

    def validate(self, moment: dt.datetime, *, skip_diff: bool = False):
        from pyhanko.sign.validation import async_validate_pdf_signature

        from .._infra.aio import run

        return run(
            lambda: async_validate_pdf_signature(self.sig, self.context(moment), ts_validation_context=self.context(self.now), skip_diff=skip_diff)
        )

    # -------------------------------------------------------------------- the checks

    def run(self) -> SignatureResult:
        changed = later_change(self.reader, self.sig)
        if changed is None and updated_after(self.reader, self.sig):
            # Updates of the kinds sdeval adds: pyHanko's full change analysis judges them, within the budget.
            with budget.cpu_budget(budget.ANALYSIS_BUDGET_S):
                return self.judged()
        return self.judged(changed)

    def judged(self, changed: str | None = None) -> SignatureResult:
        if changed is not None:
            # Decided before pyHanko's change analysis, which walks every object of the document
            # (seconds on a tagged report): an update that is neither validation data nor a
            # document timestamp fails whatever that analysis would say.
            status = self.validate(self.now, skip_diff=True)
            when = self.known["claimed_signing_time"]
            claimed = f"the signer claims {iso_time(when)}" if when else "no signing time claimed"
            problems = self.integrity_problems(status, changed=changed)
            return _broken("; ".join(problems) + f" ({claimed})", "the signature is broken", **self.known)
        status = self.validate(self.now)
        problems = self.integrity_problems(status)
        when = self.known["claimed_signing_time"]
        claimed = f"the signer claims {iso_time(when)}" if when else "no signing time claimed"
        if problems:
            return _broken("; ".join(problems) + f" ({claimed})", "the signature is broken", **self.known)
        stamps, stamp_problems = self.timestamps(status)
        if self.dss_problem:
            stamp_problems.append(f"the document security store (validation data) cannot be read ({self.dss_problem})")
        covering = [s for s, ok in stamps if ok and s.trusted]
        signing_time = min((s.time for s in covering), default=None)
        trust = self.trust_check(status, signing_time)
        timestamp = self.timestamp_check(stamps, stamp_problems)
        coverage = self.coverage_text(status)
        if signing_time is not None:
            detail = f"intact and valid, {coverage}; signed by {iso_time(signing_time)} (trusted timestamp); {claimed}"
        else:
            detail = f"intact and valid, {coverage}; {claimed} (not proven by a trusted timestamp)"
        return SignatureResult(
            Check("signature", True, detail),
            timestamp,
            trust,
            timestamps=[s for s, _ in stamps],
            signing_time=signing_time,
            **self.known,
        )

    def integrity_problems(self, status, *, changed: str | None = None) -> list[str]:
        """The first thing wrong, in order of precedence: one precise reason, not its consequences
        (a changed /ByteRange also upsets the coverage and the revision analysis). `changed`: what
        a later revision changes, found before (and instead of) pyHanko's change analysis."""
        from pyhanko.sign.diff_analysis import ModificationLevel
        from pyhanko.sign.validation.status import SignatureCoverageLevel

        if not status.intact:
            return ["not intact: the signed bytes were changed"]
        if not status.valid:
            return ["the signature value does not match the signer's key"]
        if _altered_certificate_copy(self.sig, status.signing_cert):
            return ["the signature carries an altered copy of the signer's certificate"]
        if changed is not None:
            return [f"does not cover the entire file: an incremental update was added after signing that changes the document ({changed})"]
        if status.coverage == SignatureCoverageLevel.ENTIRE_FILE:
            return []
        if status.coverage == SignatureCoverageLevel.ENTIRE_REVISION and status.modification_level == ModificationLevel.LTA_UPDATES:
            if not _ends_cleanly(self.data):
                return ["bytes were appended after the last revision"]
            if status.docmdp_ok is False:
                return ["a later revision modifies the signed document"]
            return []
        if status.coverage == SignatureCoverageLevel.ENTIRE_REVISION and status.modification_level in (None, ModificationLevel.NONE):
            return ["does not cover the entire file: bytes were appended after signing"]
        level = status.modification_level.name.lower().replace("_", " ") if status.modification_level else "unknown"
        return [
            "does not cover the entire file: an incremental update was added after signing"
            f" that changes the document (pyHanko's modification level: {level})"
        ]

    def coverage_text(self, status) -> str:
        from pyhanko.sign.validation.status import SignatureCoverageLevel

        if status.coverage == SignatureCoverageLevel.ENTIRE_FILE:
            return "covers the entire file"
        return "covers its revision; every later revision only adds validation data or document timestamps"

    # -------------------------------------------------------------------- timestamps

    def timestamps(self, status) -> tuple[list[tuple[TimestampInfo, bool]], list[str]]:
        """Each timestamp with whether it is intact, valid and covers what it should, and the problems found."""
        from pyhanko.sign.diff_analysis import ModificationLevel
        from pyhanko.sign.validation import async_validate_pdf_signature, async_validate_pdf_timestamp
        from pyhanko.sign.validation.status import SignatureCoverageLevel

        from .._infra.aio import run

        found: list[tuple[TimestampInfo, bool]] = []
        # pyHanko's status of each, and how to validate it as of another time
        statuses: list[Any] = []
        again: list[Callable[[dt.datetime], Any]] = []
        problems: list[str] = []
        token = status.timestamp_validity
        if token is not None:
            ok = token.intact and token.valid
            if not ok:
                problems.append(f"the signature timestamp is {_crypto_problem(token)}")
            found.append((self.stamp_info("signature", token), ok))
            statuses.append(token)
            again.append(
                lambda moment: (
                    run(
                        lambda: async_validate_pdf_signature(self.sig, self.context(self.now), ts_validation_context=self.context(moment))
                    ).timestamp_validity
                )
            )
        for ts in self.documents:

            def validated_at(moment: dt.datetime, ts: Any = ts) -> Any:  # ts bound now: the loop moves on
                return run(lambda: async_validate_pdf_timestamp(ts, self.context(moment)))

            try:
                doc = validated_at(self.now)
            except Exception as exc:
                problems.append(f"a document timestamp cannot be validated: it is damaged ({_one_line(exc)})")
                continue
            ok = doc.intact and doc.valid
            if not ok:
                problems.append(f"the document timestamp of {iso_time(doc.timestamp)} is {_crypto_problem(doc)}")
            elif doc.coverage != SignatureCoverageLevel.ENTIRE_FILE and not (
                doc.coverage == SignatureCoverageLevel.ENTIRE_REVISION and doc.modification_level == ModificationLevel.LTA_UPDATES
            ):
                ok = False
                problems.append(f"the document timestamp of {iso_time(doc.timestamp)} does not cover the document: later revisions change it")
            found.append((self.stamp_info("document", doc), ok))
            statuses.append(doc)
            again.append(validated_at)
        return self.chained_timestamps(found, statuses, again), problems

    def chained_timestamps(self, found, statuses, again) -> list[tuple[TimestampInfo, bool]]:
        """PAdES B-LTA: a timestamp whose authority's certificate has since expired still counts when a
        later trusted document timestamp covers it (every later revision does) and the certificate was
        valid at that later time. Newest first, so each later timestamp is settled before it is used."""
        if self.trust is None:
            return found
        later_documents: list[dt.datetime] = []
        for i in sorted(range(len(found)), key=lambda k: found[k][0].time, reverse=True):
            info, ok = found[i]
            expired = getattr(statuses[i].trust_problem_indic, "name", None) in _TIME_BOUND
            covering = [t for t in later_documents if t > info.time]
            if ok and not info.trusted and expired and covering:
                moment = min(covering)
                then = again[i](moment)
                if then is not None and then.trusted and then.validation_path is not None:
                    info = replace(info, trusted=True, trusted_at=moment, problem=None)
                    found[i] = (info, ok)
            if ok and info.trusted and info.kind == "document":
                later_documents.append(info.time)
        return found

    def stamp_info(self, kind: str, status) -> TimestampInfo:
        try:
            authority = describe(status.signing_cert.dump())
        except Exception:
            authority = None
        if self.trust is None:
            return TimestampInfo(kind, status.timestamp, authority)
        if status.trusted and status.validation_path is not None:
            return TimestampInfo(kind, status.timestamp, authority, True)
        reason = _trust_reason(
            status, "the authority's certificate", self.trust, now=self.now, tail=", and no later trusted document timestamp covers it"
        )
        return TimestampInfo(kind, status.timestamp, authority, False, problem=reason)

    def timestamp_check(self, stamps: list[tuple[TimestampInfo, bool]], problems: list[str]) -> Check:
        if not stamps and not problems:
            return Check(
                "timestamp",
                True,
                "no trusted timestamp: the signing time is only the signer's claim (render with --tsa to add one)",
                status=NONE,
            )
        listed = "; ".join(info.text() for info, _ in stamps)
        if problems:
            return Check("timestamp", False, "; ".join(problems), [listed] if listed else [])
        if self.trust is None:
            return Check("timestamp", None, f"{listed}: intact and valid, but the authority is not established: {NO_ANCHOR}", status=NOT_ESTABLISHED)
        untrusted = [info for info, _ in stamps if not info.trusted]
        if untrusted:
            return Check("timestamp", False, "; ".join(f"{info.text()}: {info.problem}" for info in untrusted))
        return Check("timestamp", True, f"{listed}; intact, valid, and each authority chains to a trust anchor")

    # -------------------------------------------------------------------- trust

    def trust_check(self, status, signing_time: dt.datetime | None) -> Check:
        if self.trust is None:
            return Check("trust", None, f"{NO_ANCHOR}: who signed is not established", status=NOT_ESTABLISHED)
        if status.trusted and status.validation_path is not None:
            unfit = self.unfit(signing_time)
            if unfit:
                return Check("trust", False, self.chained(status.validation_path) + f", but {unfit}")
            return Check("trust", True, self.chained(status.validation_path) + self.revocation_note(status))
        indication = getattr(status.trust_problem_indic, "name", None)
        if indication in _TIME_BOUND and signing_time is not None and self.signer_valid_at(signing_time):
            # Point-in-time validation at the trusted timestamp: valid then, so the signature was made while it was.
            earlier = self.validate(signing_time)
            if earlier.trusted and earlier.validation_path is not None:
                unfit = self.unfit(signing_time)
                if unfit:
                    return Check("trust", False, self.chained(earlier.validation_path) + f", but {unfit}")
                signer = self.known["signer"]
                state = "has expired" if self.now > signer.not_after else "is not valid at the validation time"
                return Check(
                    "trust",
                    True,
                    self.chained(earlier.validation_path)
                    + f"; the certificate {state} (valid {iso_time(signer.not_before)} to {iso_time(signer.not_after)}),"
                    f" but was valid at the trusted timestamp {iso_time(signing_time)}" + self.revocation_note(earlier),
                )
        look_alike = _look_alike(status.signing_cert, self.trust)
        if look_alike:
            return Check("trust", False, f"the signer's certificate does not chain to a trust anchor ({self.trust.sources()}){look_alike}")
        if status.validation_path is not None and indication not in _TIME_BOUND:
            # A chain to an anchor was found but does not validate: pyHanko's own words say why.
            return Check("trust", False, self.chained(status.validation_path) + f", but the chain does not validate: {self.explain()}")
        tail = (
            ", and no trusted timestamp shows when it was used"
            if signing_time is None
            else f", nor at the trusted timestamp {iso_time(signing_time)}"
        )
        return Check("trust", False, _trust_reason(status, "the signer's certificate", self.trust, now=self.now, tail=tail))

    def unfit(self, signing_time: dt.datetime | None) -> str | None:
        """Why the signer's certificate could not sign this report: validity at the signing time (the
        trusted timestamp's, else now, said so), key usage and extended key usage."""
        try:
            der = self.sig.signer_cert.dump()
        except Exception:  # no readable certificate: pyHanko would not have trusted it either
            return "the signer's certificate cannot be read"
        if signing_time is not None:
            when = f"at the trusted timestamp {iso_time(signing_time)}"
        else:
            when = f"now ({iso_time(self.now)}; no trusted timestamp shows when the report was signed)"
        return unfit_for_signing(der, signing_time or self.now, when=when)

    def explain(self) -> str:
        """pyHanko's own words for why the signer's chain does not validate."""
        from pyhanko_certvalidator import CertificateValidator

        from .._infra.aio import run

        validator = CertificateValidator(
            self.sig.signer_cert, intermediate_certs=self.sig.other_embedded_certs, validation_context=self.context(self.now)
        )
        try:
            run(validator.async_validate_path)
        except Exception as exc:
            return " ".join(str(exc).split())[:300] or type(exc).__name__
        return "pyHanko gives no reason"

    def signer_valid_at(self, moment: dt.datetime) -> bool:
        signer = self.known["signer"]
        return signer is not None and signer.not_before <= moment <= signer.not_after

    def chained(self, path) -> str:
        assert self.trust is not None  # called only once trust_check has found anchors
        anchor_cert = path.trust_anchor.authority.certificate if hasattr(path.trust_anchor.authority, "certificate") else None
        anchor = self.trust.find(anchor_cert.sha256.hex()) if anchor_cert is not None else None
        named = anchor.text() if anchor else "a trust anchor"
        return f"the signer's certificate chains to {named}"

    def revocation_note(self, status) -> str:
        path = status.validation_path
        declares = any(_declares_revocation(c) for c in path.iter_certs(include_root=False)) if path is not None else False
        if not declares:
            return ""
        if self.embedded_revocation_data():
            return "; revocation checked against the revocation data embedded in the report"
        return "; revocation not checked: the report embeds no revocation data (render with --ltv to embed it)"


def _declares_revocation(cert) -> bool:
    try:
        return bool(cert.crl_distribution_points or cert.ocsp_urls)
    except Exception:
        return False


def _crypto_problem(status) -> str:
    if not status.intact:
        return "not intact: the bytes it covers were changed"
    return "not valid: its signature does not match the authority's key"


def _trust_reason(status, who: str, trust: TrustAnchors | None, *, now: dt.datetime | None = None, tail: str = "") -> str:
    """Why a certificate does not validate against the anchors, in words; `tail` follows a validity-period reason."""
    indication = getattr(status.trust_problem_indic, "name", None)
    sources = trust.sources() if trust else "no trust anchors"
    if indication in _TIME_BOUND:
        try:
            cert = status.signing_cert
            period = f" (valid {iso_time(cert.not_valid_before)} to {iso_time(cert.not_valid_after)})"
        except Exception:
            period = ""
        moment = f" at {iso_time(now)}" if now else ""
        return f"{who}, or one above it, is not valid{moment}{period}{tail}"
    if indication in ("REVOKED_NO_POE", "REVOKED_CA_NO_POE", "REVOKED"):
        return f"{who}, or one above it, is revoked according to the revocation data embedded in the report"
    if indication in (None, "NO_CERTIFICATE_CHAIN_FOUND", "CERTIFICATE_CHAIN_GENERAL_FAILURE") or _unanchored_self_signed(status, indication):
        # The commonest slip: checked against another certificate than the one that signed.
        return f"{who} does not chain to a trust anchor ({sources})" + _look_alike(status.signing_cert, trust)
    words = _AUDITOR_WORDS.get(indication or "", "does not validate, for a reason pyHanko does not name")
    return f"{who} {words} (checked against {sources})"


# pyHanko's trust indications (ETSI EN 319 102-1 sub-indications) in an auditor's words; those
# above (no chain, revoked, expired or not yet valid) are worded where they are judged.
_AUDITOR_WORDS = {
    "CHAIN_CONSTRAINTS_FAILURE": "chains to a trust anchor, but a certificate on the way may not be used so (its key usage, basic constraints or name constraints forbid it)",
    "SIG_CONSTRAINTS_FAILURE": "does not meet the signature validation policy (a required attribute is missing or wrong)",
    "CRYPTO_CONSTRAINTS_FAILURE": "relies on an algorithm or key size no longer accepted as secure",
    "CRYPTO_CONSTRAINTS_FAILURE_NO_POE": "relies on an algorithm or key size no longer accepted as secure, and nothing proves the signature was made before that",
    "POLICY_PROCESSING_ERROR": "cannot be checked: the validation policy could not be processed",
    "SIGNATURE_POLICY_NOT_AVAILABLE": "cannot be checked: the signature policy it names is not available",
    "TIMESTAMP_ORDER_FAILURE": "cannot be trusted: its timestamps are in an impossible order",
    "NO_SIGNING_CERTIFICATE_FOUND": "cannot be checked: the signature does not carry the certificate that made it",
    "REVOCATION_OUT_OF_BOUNDS_NO_POE": "cannot be checked: its revocation data lies outside the certificate's validity period",
    "NO_POE": "cannot be shown valid at the time it was used: nothing proves when the signature was made",
    "TRY_LATER": "cannot be checked now: its revocation data is out of date (check again when fresher data is published)",
    "SIGNED_DATA_NOT_FOUND": "cannot be checked: the signed data is not found",
    "FORMAT_FAILURE": "cannot be checked: the signature is not formed as the standard requires",
    "HASH_FAILURE": "does not match the signed bytes: the report was changed after signing",
    "SIG_CRYPTO_FAILURE": "does not match its key: the signature value is wrong",
    "GENERIC": "does not validate, for a reason pyHanko does not name",
}


def _unanchored_self_signed(status, indication: str | None) -> bool:
    """pyHanko reports a self-signed certificate that is not an anchor (a trial identity checked
    against another one) as a chain constraints failure: to an auditor it simply does not chain."""
    if indication != "CHAIN_CONSTRAINTS_FAILURE" or status.validation_path is not None:
        return False
    try:
        return status.signing_cert.self_signed in ("yes", "maybe")
    except Exception:  # no readable certificate: not a self-signed one we can name
        return False


def _look_alike(cert, trust: TrustAnchors | None) -> str:
    """Say so when the certificate claims an anchor's name, as its own subject or as its issuer, but
    is not that anchor and was not signed by the anchor's key: a look-alike."""
    if trust is None or cert is None:
        return ""
    try:
        from cryptography import x509

        mine = x509.load_der_x509_certificate(cert.dump())
        info = describe(cert.dump())
    except Exception:
        return ""
    for anchor in trust.anchors:
        if anchor.fingerprint_sha256 == info.fingerprint_sha256:
            continue
        theirs = x509.load_der_x509_certificate(anchor.der)
        if theirs.subject not in (mine.subject, mine.issuer):
            continue
        try:
            mine.verify_directly_issued_by(theirs)
            continue  # truly issued by the anchor: not a look-alike
        except Exception:
            pass
        return (
            f": it bears the name {anchor.info.subject} of the anchor with SHA-256 {anchor.fingerprint_sha256}, "
            f"but is another certificate (SHA-256 {info.fingerprint_sha256}) that the anchor's key did not sign"
        )
    return ""


def _ends_cleanly(data: bytes) -> bool:
    """Nothing but line ends after the last `%%EOF` (the end of the last revision pyHanko read)."""
    return re.search(rb"%%EOF[\r\n]*\Z", data[-64:]) is not None


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
    return f"{type(exc).__name__}: " + " ".join(str(exc).split())[:200]
