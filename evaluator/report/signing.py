"""The assessor's identity and the PAdES signature (B-B; B-T with --tsa; B-LTA with --ltv).

RSA only: with an EC key pyHanko 0.38 marks the file PDF 2.0, which breaks the PDF/A-3 claim.
Passwords come from a file or the SDEVAL_SIGNING_PASSWORD environment variable, never
from the command line (where `ps` and shell history would show them).
"""

from __future__ import annotations

import datetime as dt
import io
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from .._infra import forking
from .._infra.atomic import write_atomic

PASSWORD_ENV = "SDEVAL_SIGNING_PASSWORD"
FIELD_NAME = "sdeval-assessor"


class SigningProblem(Exception):
    """The key, certificate or password cannot be used (exit 2, one line naming the file)."""


# ------------------------------------------------------------------------------ keygen


def keygen(directory: Path, *, common_name: str, force: bool, days: int = 3650) -> tuple[Path, Path]:
    """A self-signed RSA-3072 identity for trials: DIR/key.pem (0600) and DIR/cert.pem."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID

    directory.mkdir(parents=True, exist_ok=True)
    key_path, cert_path = directory / "key.pem", directory / "cert.pem"
    key = rsa.generate_private_key(public_exponent=65537, key_size=3072)
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "sdeval trial identity (self-signed)"),
        ]
    )
    now = dt.datetime.now(dt.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            # digital signature + non-repudiation (content commitment): what pyHanko expects of a signer.
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=True,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    # Check both targets first, so a refusal never leaves one new file beside one old one.
    for path in (key_path, cert_path):
        if path.exists() and not force:
            raise SigningProblem(f"{path}: already exists; pass --force to replace it")
    write_atomic(key_path, key_pem, force=force, mode=0o600)
    write_atomic(cert_path, cert.public_bytes(serialization.Encoding.PEM), force=force, mode=0o644)
    return key_path, cert_path


# ------------------------------------------------------------------------------ signer


@dataclass
class Identity:
    """The assessor's key and certificate, read and checked with cryptography. pyHanko's signer
    is built from them only when a signature is made (pyHanko takes half a second to import)."""

    private: Any  # cryptography RSAPrivateKey
    certificate: Any  # cryptography x509.Certificate
    extra: list  # further certificates from a PKCS#12 file
    name: str  # the certificate subject, as printed on the cover
    warnings: list[str]

    @cached_property
    def signer(self):  # pyhanko.sign.signers.SimpleSigner
        return _signer(self.private, self.certificate, self.extra)


def exposure_warning(path: Path) -> str | None:
    """One line when a private key (or PKCS#12) file can be read by its group or by others."""
    import stat

    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None
    if mode & 0o077 == 0:
        return None
    return f"warning: {path}: private key file has mode {mode:04o}, readable beyond its owner; chmod 600 it"


def read_password(password_file: Path | None) -> bytes | None:
    if password_file is not None:
        try:
            return password_file.read_bytes().rstrip(b"\r\n")
        except OSError as exc:
            raise SigningProblem(f"{password_file}: cannot read the password file ({exc.strerror})") from None
    value = os.environ.get(PASSWORD_ENV)
    return value.encode() if value else None


def load_identity(*, key: Path | None, cert: Path | None, pkcs12: Path | None, password_file: Path | None) -> Identity:
    """Read the key once with cryptography (which checks an RSA key's maths on every load) and
    hand pyHanko a signer that reuses it, instead of pyHanko re-reading it for each signature value."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import pkcs12 as p12

    password = read_password(password_file)
    if pkcs12 is not None:
        raw = _read(pkcs12)
        try:
            private, certificate, extra = p12.load_key_and_certificates(raw, password)
        except (ValueError, TypeError):
            raise SigningProblem(f"{pkcs12}: cannot read the PKCS#12 file (wrong password, or not PKCS#12)") from None
        if private is None or certificate is None:
            raise SigningProblem(f"{pkcs12}: holds no key and certificate pair")
        where = pkcs12
    else:
        assert key is not None and cert is not None
        raw_key, raw_cert = _read(key), _read(cert)
        load_key = serialization.load_pem_private_key if b"-----BEGIN" in raw_key else serialization.load_der_private_key
        try:
            private = load_key(raw_key, password)
        except TypeError:
            raise SigningProblem(f"{key}: the key is encrypted; give its password with --password-file or {PASSWORD_ENV}") from None
        except ValueError:
            raise SigningProblem(f"{key}: cannot read the key (not PEM/DER, or wrong password)") from None
        try:
            load_cert = x509.load_pem_x509_certificate if b"-----BEGIN" in raw_cert else x509.load_der_x509_certificate
            certificate = load_cert(raw_cert)
        except ValueError:
            raise SigningProblem(f"{cert}: cannot read the certificate (not PEM/DER)") from None
        extra = []
        where = key
    if not isinstance(private, rsa.RSAPrivateKey):
        from cryptography.hazmat.primitives.asymmetric import ec

        kind = "EC" if isinstance(private, ec.EllipticCurvePrivateKey) else type(private).__name__
        raise SigningProblem(f"{where}: the key is {kind}; use an RSA key (an EC key makes the signed file PDF 2.0, which breaks PDF/A-3)")
    theirs = certificate.public_key()  # of any kind: only an RSA one can be this key's
    if not isinstance(theirs, rsa.RSAPublicKey) or theirs.public_numbers() != private.public_key().public_numbers():
        raise SigningProblem(f"{cert or pkcs12}: the certificate does not belong to the key")
    from asn1crypto import x509 as asn1_x509
    from cryptography.hazmat.primitives.serialization import Encoding

    from .trust import iso_time, unfit_for_signing

    # Refused here, as verify would refuse the report: a report nobody can verify is not made.
    now = dt.datetime.now(dt.timezone.utc)
    unfit = unfit_for_signing(certificate.public_bytes(Encoding.DER), now, when=f"at {iso_time(now)}, the signing time")
    if unfit:
        raise SigningProblem(f"{cert or pkcs12}: cannot sign with this certificate: {unfit}")
    warning = exposure_warning(where)
    name = subject_name(asn1_x509.Certificate.load(certificate.public_bytes(Encoding.DER)))
    return Identity(private, certificate, list(extra or []), name, [warning] if warning else [])


def _signer(private, certificate, extra: list):
    from asn1crypto import x509 as asn1_x509
    from cryptography.hazmat.primitives.asymmetric.padding import PKCS1v15
    from cryptography.hazmat.primitives.serialization import Encoding
    from pyhanko.keys.internal import translate_pyca_cryptography_cert_to_asn1, translate_pyca_cryptography_key_to_asn1
    from pyhanko.sign.general import get_pyca_cryptography_hash
    from pyhanko.sign.signers import SimpleSigner
    from pyhanko_certvalidator.registry import SimpleCertificateStore

    class _LoadedKeySigner(SimpleSigner):
        def sign_raw(self, data: bytes, digest_algorithm: str) -> bytes:
            mechanism = self.get_signature_mechanism_for_digest(digest_algorithm).signature_algo
            if mechanism != "rsassa_pkcs1v15":
                return super().sign_raw(data, digest_algorithm)
            return private.sign(data, PKCS1v15(), get_pyca_cryptography_hash(digest_algorithm))

    signing_cert = translate_pyca_cryptography_cert_to_asn1(certificate)
    others = [asn1_x509.Certificate.load(c.public_bytes(Encoding.DER)) for c in extra]
    return _LoadedKeySigner(
        signing_key=translate_pyca_cryptography_key_to_asn1(private),
        signing_cert=signing_cert,
        cert_registry=SimpleCertificateStore.from_certs([signing_cert, *others]),
    )


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise SigningProblem(f"{path}: no such file") from None
    except IsADirectoryError:
        raise SigningProblem(f"{path}: is a directory") from None
    except OSError as exc:
        raise SigningProblem(f"{path}: cannot read ({exc.strerror})") from None


def subject_name(cert) -> str:
    """The certificate's common name (what a reader knows the signer by), or its whole subject."""
    names = cert.subject.native
    return names.get("common_name") or cert.subject.human_friendly


@dataclass(frozen=True)
class Timestamping:
    """`render --tsa URL [--ltv]`: an RFC 3161 signature timestamp from that authority (PAdES B-T);
    with `ltv`, the validation data in the document security store and a document timestamp (B-LTA).
    `roots` (DER) end the chains of the signer and the authority when collecting that data, besides
    any self-signed certificate the identity or the authority's answer carries."""

    url: str
    ltv: bool = False
    roots: tuple[bytes, ...] = ()
    timeout: float = 10.0


def sign(pdf: bytes, identity: Identity, timestamping: Timestamping | None = None, prepared: tuple | None = None) -> bytes:
    """PAdES baseline B-B (B-T with a timestamp, B-LTA with ltv), as incremental updates: the
    unsigned bytes stay the file's prefix."""
    from pyhanko.pdf_utils import generic
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.pdf_utils.metadata.model import VENDOR
    from pyhanko.sign import fields
    from pyhanko.sign.signers import PdfSignatureMetadata, PdfSigner

    from .._infra.aio import run

    if prepared is None:
        prepared = (None, None) if timestamping is None else _timestamper(identity, timestamping)
    timestamper, context = prepared
    long_term = {"embed_validation_info": True, "use_pades_lta": True, "validation_context": context} if context else {}
    meta = PdfSignatureMetadata(
        field_name=FIELD_NAME,
        subfilter=fields.SigSeedSubFilter.PADES,
        md_algorithm="sha256",
        reason="sdeval assessment of a speculative-decoding offer",
        **long_term,
    )
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf))
    # pyHanko rewrites XMP pdf:Producer to its own name; PDF/A wants the Info entry to match.
    info = writer.trailer["/Info"]
    info[generic.NameObject("/Producer")] = generic.TextStringObject(VENDOR)
    writer.update_container(info)
    out = io.BytesIO()
    signer = PdfSigner(meta, signer=identity.signer, timestamper=timestamper)

    async def signing():
        try:
            return await signer.async_sign_pdf(writer, output=out)
        finally:
            if context is not None:
                await context.aclose()  # the HTTP session that fetched revocation data

    try:
        run(signing)
    except SigningProblem:
        raise
    except Exception as exc:
        if timestamping is None:
            raise
        raise SigningProblem(_timestamping_problem(timestamping, exc)) from None
    return out.getvalue()


def _timestamper(identity: Identity, timestamping: Timestamping):
    """The authority's client, asked once here (its answer is reused to size the signature), so
    an authority that does not answer, or answers garbage, stops signing with one line; and with
    ltv, the validation context that collects the chains and revocation data to embed."""
    from asn1crypto import x509 as asn1_x509
    from cryptography.hazmat.primitives.serialization import Encoding
    from pyhanko.sign.timestamps import HTTPTimeStamper
    from pyhanko_certvalidator import ValidationContext

    from .._infra.aio import run

    timestamper = HTTPTimeStamper(timestamping.url, timeout=timestamping.timeout)
    try:
        run(lambda: timestamper.async_dummy_response("sha256"))
    except Exception as exc:
        raise SigningProblem(_timestamping_problem(timestamping, exc)) from None
    if not timestamping.ltv:
        return timestamper, None
    mine = [asn1_x509.Certificate.load(c.public_bytes(Encoding.DER)) for c in [identity.certificate, *identity.extra]]
    theirs = list(timestamper.cert_registry)
    given = [asn1_x509.Certificate.load(der) for der in timestamping.roots]
    roots = given + [c for c in mine + theirs if c.self_signed in ("yes", "maybe")]  # asn1crypto says "no" when not
    # hard-fail: a certificate that names a CRL or OCSP responder must have its revocation data fetched.
    context = ValidationContext(trust_roots=roots, other_certs=mine + theirs, allow_fetching=True, revocation_mode="hard-fail")
    return timestamper, context


def _timestamping_problem(timestamping: Timestamping, exc: BaseException) -> str:
    """One line naming the authority and what went wrong."""
    from pyhanko.sign.general import SigningError
    from pyhanko.sign.timestamps import TimestampRequestError

    where = f"--tsa {timestamping.url}"
    cause = exc.__cause__
    if isinstance(exc, TimestampRequestError) and cause is not None:
        status = getattr(cause, "status", None)
        kind = type(cause).__name__
        if kind == "ContentTypeError":
            return f"{where}: the answer is not an RFC 3161 timestamp reply ({_one_line(cause)})"
        if status:
            return f"{where}: the time-stamping authority answered HTTP {status}"
        return f"{where}: the time-stamping authority did not answer ({kind}: {_one_line(cause)})"
    if isinstance(exc, TimestampRequestError):
        return f"{where}: the time-stamping authority refused the request ({_one_line(exc)})"
    if isinstance(exc, SigningError) and timestamping.ltv:
        reason = _one_line(exc.__cause__) if exc.__cause__ else _one_line(exc)
        return f"{where} --ltv: cannot collect the validation data: {_one_line(exc)}" + (f" ({reason})" if exc.__cause__ else "")
    if timestamping.ltv and type(exc).__name__ == "PathBuildingError":
        return f"{where} --ltv: a certificate chain does not reach a root; give the root with --trust CERT ({_one_line(exc)})"
    if timestamping.ltv and type(exc).__name__ in ("PathValidationError", "InsufficientRevinfoError"):
        return f"{where} --ltv: cannot collect the validation data: {_one_line(exc)}"
    return f"{where}: the answer is not a valid RFC 3161 timestamp response ({type(exc).__name__}: {_one_line(exc)})"


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200] or type(exc).__name__


# ------------------------------------------------------------------------------ signing beside rendering


class Signing(forking.ForkedOrHere):
    """Loads the identity and signs the report: in a forked process when forking is safe, so the
    key's checks and pyHanko's import (about 0.7 s together) overlap this process's rendering;
    otherwise here, first. Use as a context manager; the forked process never outlives it."""

    def __init__(
        self,
        *,
        key: Path | None,
        cert: Path | None,
        pkcs12: Path | None,
        password_file: Path | None,
        timestamping: Timestamping | None = None,
    ) -> None:
        options = {"key": key, "cert": cert, "pkcs12": pkcs12, "password_file": password_file}
        self._timestamping = timestamping
        self._here = None if forking.fork_is_safe() else load_identity(**options)
        # The timestamp is requested where the signature is made: in the signing process.
        self._forked = forking.Forked(_sign_in_child, {**options, "timestamping": timestamping}, role="signing") if self._here is None else None
        self._said: tuple[str, list[str]] | None = None

    def identity(self) -> tuple[str, list[str]]:
        """The signer's name and any warnings about the key file; SigningProblem if it cannot be used."""
        if self._here is not None:
            return self._here.name, self._here.warnings
        assert self._forked is not None  # no identity here: the signing process holds it
        if self._said is None:
            self._said = self._forked.receive()
        return self._said

    def sign(self, pdf: bytes) -> bytes:
        if self._here is not None:
            return sign(pdf, self._here, self._timestamping)
        self.identity()
        assert self._forked is not None  # as in identity()
        self._forked.send(pdf)
        return self._forked.receive()


def _sign_in_child(connection, options: dict) -> bytes:
    options = dict(options)
    timestamping = options.pop("timestamping", None)
    identity = load_identity(**options)
    connection.send((identity.name, identity.warnings))
    # Import pyHanko and build the signer now, while the parent lays out the pages, at a lower
    # priority: on two cores the writer and the parent are the critical path, this is not.
    os.nice(10)
    identity.signer  # noqa: B018
    import pyhanko.pdf_utils.incremental_writer  # noqa: F401
    import pyhanko.sign.signers  # noqa: F401

    # Ask the time-stamping authority now too: its first answer sizes the signature, and a
    # failure is reported when the parent hands over the pages.
    try:
        prepared = None if timestamping is None else _timestamper(identity, timestamping)
    except SigningProblem:
        connection.recv()  # take the pages first, so the parent's send never meets a closed pipe
        raise
    return sign(connection.recv(), identity, timestamping, prepared)
