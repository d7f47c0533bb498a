"""The assessor's identity and the PAdES B-B signature.

RSA only: with an EC key pyHanko 0.38 marks the file PDF 2.0, which breaks the PDF/A-3 claim.
Passwords come from a file or the SDEVAL_SIGNING_PASSWORD environment variable, never
from the command line (where `ps` and shell history would show them).
"""

from __future__ import annotations

import datetime as dt
import io
import os
from dataclasses import dataclass
from pathlib import Path

from ..output import write_atomic

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
                digital_signature=True, content_commitment=True, key_encipherment=False, data_encipherment=False,
                key_agreement=False, key_cert_sign=True, crl_sign=False, encipher_only=False, decipher_only=False,
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
    signer: object  # pyhanko.sign.signers.SimpleSigner
    name: str  # the certificate subject, as printed on the cover


def read_password(password_file: Path | None) -> bytes | None:
    if password_file is not None:
        try:
            return password_file.read_bytes().rstrip(b"\r\n")
        except OSError as exc:
            raise SigningProblem(f"{password_file}: cannot read the password file ({exc.strerror})") from None
    value = os.environ.get(PASSWORD_ENV)
    return value.encode() if value else None


def load_identity(*, key: Path | None, cert: Path | None, pkcs12: Path | None, password_file: Path | None) -> Identity:
    from pyhanko.sign.signers import SimpleSigner

    password = read_password(password_file)
    if pkcs12 is not None:
        _readable(pkcs12)
        signer = SimpleSigner.load_pkcs12(str(pkcs12), passphrase=password)
        if signer is None:
            raise SigningProblem(f"{pkcs12}: cannot read the PKCS#12 file (wrong password, or not PKCS#12)")
        where = pkcs12
    else:
        assert key is not None and cert is not None
        _readable(key)
        _readable(cert)
        signer = SimpleSigner.load(str(key), str(cert), key_passphrase=password)
        if signer is None:
            raise SigningProblem(f"{key}: cannot load the key with {cert} (not PEM/DER, encrypted without a password, or wrong password)")
        where = key
    algorithm = signer.signing_cert.public_key.algorithm
    if algorithm != "rsa":
        raise SigningProblem(f"{where}: the key is {algorithm.upper()}; use an RSA key (an EC key makes the signed file PDF 2.0, which breaks PDF/A-3)")
    return Identity(signer, subject_name(signer.signing_cert))


def subject_name(cert) -> str:
    """The certificate's common name (what a reader knows the signer by), or its whole subject."""
    names = cert.subject.native
    return names.get("common_name") or cert.subject.human_friendly


def _readable(path: Path) -> None:
    if not path.is_file():
        raise SigningProblem(f"{path}: no such file")


def sign(pdf: bytes, identity: Identity) -> bytes:
    """PAdES baseline B-B, as an incremental update: the unsigned bytes stay the file's prefix."""
    from pyhanko.pdf_utils import generic
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.pdf_utils.metadata.model import VENDOR
    from pyhanko.sign import fields
    from pyhanko.sign.signers import PdfSignatureMetadata, PdfSigner

    meta = PdfSignatureMetadata(
        field_name=FIELD_NAME,
        subfilter=fields.SigSeedSubFilter.PADES,
        md_algorithm="sha256",
        reason="sdeval assessment of a speculative-decoding offer",
    )
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf))
    # pyHanko rewrites XMP pdf:Producer to its own name; PDF/A wants the Info entry to match.
    info = writer.trailer["/Info"]
    info[generic.NameObject("/Producer")] = generic.TextStringObject(VENDOR)
    writer.update_container(info)
    out = io.BytesIO()
    PdfSigner(meta, signer=identity.signer).sign_pdf(writer, output=out)
    return out.getvalue()
