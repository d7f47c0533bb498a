"""The signing key and certificate: a pair that does not belong together is said so, whatever the certificate's key type."""

from __future__ import annotations

import pytest


def _ed25519_self_signed(key) -> bytes:
    import datetime as dt

    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    from cryptography.x509.oid import NameOID

    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Example Signer")])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .sign(key, None)  # Ed25519 takes no hash algorithm
    )
    return cert.public_bytes(serialization.Encoding.PEM)


def test_a_certificate_whose_key_is_not_rsa_does_not_belong_to_an_rsa_key(tmp_path):
    # The certificate's key was compared through public_numbers(), which Ed25519 keys do not have:
    # an Ed25519 certificate beside an RSA key ended in an AttributeError traceback.
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

    from evaluator.report.signing import SigningProblem, load_identity

    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ed_key = ed25519.Ed25519PrivateKey.generate()
    key = tmp_path / "signer.key"
    key.write_bytes(rsa_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    key.chmod(0o600)
    cert = tmp_path / "signer.pem"
    cert.write_bytes(_ed25519_self_signed(ed_key))
    with pytest.raises(SigningProblem) as caught:
        load_identity(key=key, cert=cert, pkcs12=None, password_file=None)
    assert str(caught.value) == f"{cert}: the certificate does not belong to the key"
