"""Trust anchors an auditor gives `sdeval verify`, and how a certificate is described to them.

A report verifies only when its signer chains to one of these certificates. They come from
`--trust PATH` (repeatable) or, when no `--trust` is given, from the SDEVAL_TRUST environment
variable (paths separated by the OS path separator). A path is a file holding one or more PEM
certificates (or one DER certificate), or a folder whose *.pem, *.crt, *.cer and *.der files are read.

Only asn1crypto and cryptography are imported here (no pyHanko), so loading anchors stays cheap.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TRUST_ENV = "SDEVAL_TRUST"
CERT_SUFFIXES = (".pem", ".crt", ".cer", ".der")
MAX_ANCHOR_FILE_BYTES = 10 * 1024 * 1024


class TrustProblem(Exception):
    """The trust anchors cannot be read (exit 2); the message names the file and where it came from."""


@dataclass(frozen=True)
class CertificateInfo:
    """Who a certificate names, told apart by its SHA-256 fingerprint (of the DER bytes, lower-case hex:
    `openssl x509 -in CERT.pem -outform DER | sha256sum` prints the same)."""

    subject: str  # RFC 4514, e.g. "CN=Jane Auditor,O=Example Audit Ltd"
    common_name: str | None
    fingerprint_sha256: str
    not_before: dt.datetime
    not_after: dt.datetime
    key_type: str  # RSA, EC, Ed25519, ...
    key_size: int | None  # bits

    def as_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject,
            "common_name": self.common_name,
            "fingerprint_sha256": self.fingerprint_sha256,
            "not_before": _iso(self.not_before),
            "not_after": _iso(self.not_after),
            "key_type": self.key_type,
            "key_size": self.key_size,
        }

    def text(self) -> str:
        key = f"{self.key_type} {self.key_size} bits" if self.key_size else self.key_type
        return f"{self.subject}; SHA-256 {self.fingerprint_sha256}; valid {_iso(self.not_before)} to {_iso(self.not_after)}; {key}"


def _iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z")


def iso_time(moment: dt.datetime | None) -> str | None:
    return None if moment is None else _iso(moment)


def describe(der: bytes) -> CertificateInfo:
    """Subject, fingerprint, validity and key of a DER certificate."""
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed448, ed25519, rsa
    from cryptography.x509.oid import NameOID

    cert = x509.load_der_x509_certificate(der)
    names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    try:
        key = cert.public_key()
    except (ValueError, TypeError):  # an algorithm cryptography cannot load
        key = None
    if isinstance(key, rsa.RSAPublicKey):
        kind, size = "RSA", key.key_size
    elif isinstance(key, ec.EllipticCurvePublicKey):
        kind, size = f"EC {key.curve.name}", key.key_size
    elif isinstance(key, dsa.DSAPublicKey):
        kind, size = "DSA", key.key_size
    elif isinstance(key, ed25519.Ed25519PublicKey):
        kind, size = "Ed25519", 256
    elif isinstance(key, ed448.Ed448PublicKey):
        kind, size = "Ed448", 456
    else:
        kind, size = cert.public_key_algorithm_oid.dotted_string if hasattr(cert, "public_key_algorithm_oid") else "unknown", None
    return CertificateInfo(
        subject=cert.subject.rfc4514_string(),
        common_name=str(names[0].value) if names else None,
        fingerprint_sha256=hashlib.sha256(der).hexdigest(),
        not_before=cert.not_valid_before_utc,
        not_after=cert.not_valid_after_utc,
        key_type=kind,
        key_size=size,
    )


@dataclass(frozen=True)
class Anchor:
    der: bytes
    info: CertificateInfo
    source: str  # the file it was read from

    @property
    def fingerprint_sha256(self) -> str:
        return self.info.fingerprint_sha256

    def asn1(self):  # asn1crypto.x509.Certificate, what pyHanko takes
        from asn1crypto import x509 as asn1_x509

        return asn1_x509.Certificate.load(self.der)

    def text(self) -> str:
        return f"{self.info.subject} (SHA-256 {self.fingerprint_sha256}, from {self.source})"


@dataclass(frozen=True)
class TrustAnchors:
    anchors: tuple[Anchor, ...]
    origin: str  # "--trust" or "SDEVAL_TRUST": named in messages
    skipped: tuple[str, ...] = ()  # private-key files in a folder given (sdeval keygen's key.pem): never anchors

    @classmethod
    def from_paths(cls, paths: Iterable[str | os.PathLike], *, origin: str = "--trust") -> TrustAnchors:
        """Every certificate in the given files and folders; TrustProblem if one cannot be read or none is found."""
        found: dict[str, Anchor] = {}
        skipped: list[str] = []
        for raw in paths:
            for anchor in _read_path(Path(raw), origin, skipped):
                found.setdefault(anchor.fingerprint_sha256, anchor)
        if not found:
            raise TrustProblem(f"no certificate found in the trust anchors given ({origin})")
        return cls(tuple(found.values()), origin, tuple(skipped))

    def notes(self) -> list[str]:
        """What was passed over in a folder given as anchors, one line each."""
        return [f"{name}: a private key, not a certificate: skipped ({self.origin})" for name in self.skipped]

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> TrustAnchors | None:
        """The anchors SDEVAL_TRUST names, or None when it is unset or empty."""
        value = (os.environ if environ is None else environ).get(TRUST_ENV, "")
        paths = [p for p in value.split(os.pathsep) if p.strip()]
        return cls.from_paths(paths, origin=TRUST_ENV) if paths else None

    @classmethod
    def from_options(cls, paths: list[Path] | None, environ: Mapping[str, str] | None = None) -> TrustAnchors | None:
        """`--trust` when given (it replaces SDEVAL_TRUST), else SDEVAL_TRUST, else None."""
        return cls.from_paths(paths) if paths else cls.from_environment(environ)

    @property
    def certificates(self) -> list:
        return [a.asn1() for a in self.anchors]

    @property
    def fingerprints(self) -> set[str]:
        return {a.fingerprint_sha256 for a in self.anchors}

    def find(self, fingerprint_sha256: str) -> Anchor | None:
        return next((a for a in self.anchors if a.fingerprint_sha256 == fingerprint_sha256), None)

    def sources(self) -> str:
        names = list(dict.fromkeys(a.source for a in self.anchors))
        listed = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        return f"{len(self.anchors)} trust anchor{'s' * (len(self.anchors) != 1)} from {listed}"


def _read_path(path: Path, origin: str, skipped: list[str]) -> list[Anchor]:
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in CERT_SUFFIXES and p.is_file())
        # The folder `sdeval keygen` makes holds key.pem beside cert.pem: a key is never an anchor.
        keys = [f for f in files if _only_private_keys(f)]
        skipped.extend(str(f) for f in keys)
        files = [f for f in files if f not in keys]
        if not files:
            raise TrustProblem(f"{path}: no certificate files (*.pem, *.crt, *.cer, *.der) in the folder ({origin})")
        return [anchor for f in files for anchor in _read_file(f, origin)]
    return _read_file(path, origin)


def _only_private_keys(path: Path) -> bool:
    """A PEM file whose every block is a private key (PKCS#8, RSA, EC, encrypted)."""
    from asn1crypto import pem

    try:
        data = path.read_bytes()[: MAX_ANCHOR_FILE_BYTES + 1]
        kinds = [kind for kind, _, _ in pem.unarmor(data, multiple=True)] if pem.detect(data) else []
    except (OSError, ValueError):
        return False  # read again, and reported, as a certificate file
    return bool(kinds) and all(kind.endswith("PRIVATE KEY") for kind in kinds)


def _read_file(path: Path, origin: str) -> list[Anchor]:
    from asn1crypto import pem
    from asn1crypto import x509 as asn1_x509

    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):  # a FIFO would block the read below until something writes to it
            raise TrustProblem(f"{path}: not a regular file; not a certificate file ({origin})")
        if st.st_size > MAX_ANCHOR_FILE_BYTES:
            raise TrustProblem(f"{path}: larger than {MAX_ANCHOR_FILE_BYTES // (1024 * 1024)} MB; not a certificate file ({origin})")
        data = path.read_bytes()
    except FileNotFoundError:
        raise TrustProblem(f"{path}: no such file ({origin})") from None
    except OSError as exc:
        raise TrustProblem(f"{path}: cannot read ({exc.strerror or exc}) ({origin})") from None
    if pem.detect(data):
        blocks = []
        try:
            for kind, _, der in pem.unarmor(data, multiple=True):
                if kind == "CERTIFICATE":
                    blocks.append(der)
        except ValueError as exc:
            raise TrustProblem(f"{path}: damaged PEM ({exc}) ({origin})") from None
        if not blocks:
            if _only_private_keys(path):
                raise TrustProblem(f"{path}: holds a private key, not a certificate: give the certificate (cert.pem) or its folder ({origin})")
            raise TrustProblem(f"{path}: holds no PEM certificate ({origin})")
    else:
        blocks = [data]
    anchors = []
    for number, der in enumerate(blocks, start=1):
        where = f"{path}" if len(blocks) == 1 else f"{path}: certificate {number}"
        try:
            asn1_x509.Certificate.load(der).native  # noqa: B018 (parses every field)
            info = describe(der)
        except Exception:  # asn1crypto and cryptography raise several kinds on bad DER
            # Neither PEM nor DER certificate bytes (a README, a key, a damaged file).
            raise TrustProblem(f"{where}: not a certificate (PEM or DER) ({origin})") from None
        anchors.append(Anchor(der, info, str(path)))
    return anchors


# ------------------------------------------------------------------------------ fit for signing

# Extended key usages under which a certificate may sign a document (RFC 5280 4.2.1.12: once the
# extension is present it is binding, whatever its criticality). TLS-only purposes are not among them.
DOCUMENT_SIGNING_PURPOSES = {
    "1.3.6.1.5.5.7.3.36": "documentSigning",  # RFC 9336
    "1.3.6.1.5.5.7.3.4": "emailProtection",  # S/MIME personal certificates, accepted by PDF readers
    "1.2.840.113583.1.1.5": "Adobe Authentic Documents Trust",
    "1.3.6.1.4.1.311.10.3.12": "Microsoft document signing",
    "2.5.29.37.0": "anyExtendedKeyUsage",
}
_PURPOSE_NAMES = {
    "1.3.6.1.5.5.7.3.1": "serverAuth",
    "1.3.6.1.5.5.7.3.2": "clientAuth",
    "1.3.6.1.5.5.7.3.3": "codeSigning",
    "1.3.6.1.5.5.7.3.8": "timeStamping",
    "1.3.6.1.5.5.7.3.9": "OCSPSigning",
}


def unfit_for_signing(der: bytes, moment: dt.datetime, *, when: str) -> str | None:
    """Why this certificate may not sign a document at `moment`, in one clause, or None.
    `when` says where the moment comes from ("at the trusted timestamp ...", "now ...").

    Checked for every signer, also one that is itself the trust anchor: pyHanko takes an anchor as
    given, so without this an expired or TLS-only self-signed certificate would still be trusted."""
    from cryptography import x509

    cert = x509.load_der_x509_certificate(der)
    period = f"valid {_iso(cert.not_valid_before_utc)} to {_iso(cert.not_valid_after_utc)}"
    if moment > cert.not_valid_after_utc:
        return f"the certificate had expired {when} ({period})"
    if moment < cert.not_valid_before_utc:
        return f"the certificate was not yet valid {when} ({period})"
    try:
        usage = cert.extensions.get_extension_for_class(x509.KeyUsage).value
    except x509.ExtensionNotFound:
        usage = None
    if usage is not None and not (usage.digital_signature or usage.content_commitment):
        return "its key usage allows neither digitalSignature nor nonRepudiation, so it may not sign documents"
    try:
        purposes = [p.dotted_string for p in cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value]
    except x509.ExtensionNotFound:
        purposes = None
    if purposes is not None and not any(p in DOCUMENT_SIGNING_PURPOSES for p in purposes):
        named = ", ".join(_PURPOSE_NAMES.get(p, p) for p in purposes) or "none"
        allowed = ", ".join(DOCUMENT_SIGNING_PURPOSES.values())
        return f"its extended key usage ({named}) is not for signing documents (one of {allowed} is needed)"
    return None
