"""A certificate signs a report only while it is valid and only if it is meant for signing documents
(issue 22.3): an expired, a not-yet-valid, a no-signing key usage and a TLS-only extended key usage
certificate are refused by `verify` (self-signed anchors included, which pyHanko takes as given), by
`archive add`, and by `render --key` before it signs. `keygen` still makes certificates that pass."""

from __future__ import annotations

import datetime as dt

import pytest
from conftest import example
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from support.archive_fixtures import _render, archive_args

pytestmark = pytest.mark.pdf

NOW = dt.datetime.now(dt.timezone.utc)
SIGNING = {"digital_signature": True, "content_commitment": True}


def _usage(**on: bool) -> x509.KeyUsage:
    flags = dict.fromkeys(
        [
            "digital_signature",
            "content_commitment",
            "key_encipherment",
            "data_encipherment",
            "key_agreement",
            "key_cert_sign",
            "crl_sign",
            "encipher_only",
            "decipher_only",
        ],
        False,
    )
    return x509.KeyUsage(**{**flags, **on})


def _certificate(
    name: str,
    key,
    *,
    issuer=None,
    issuer_key=None,
    ca: bool,
    usage: dict,
    eku=None,
    not_before: dt.datetime | None = None,
    not_after: dt.datetime | None = None,
) -> x509.Certificate:
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer.subject if issuer else subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before or NOW - dt.timedelta(days=1))
        .not_valid_after(not_after or NOW + dt.timedelta(days=365))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .add_extension(_usage(**usage), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    )
    if issuer is not None:
        builder = builder.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
    if eku is not None:
        builder = builder.add_extension(x509.ExtendedKeyUsage(eku), critical=False)
    return builder.sign(issuer_key or key, hashes.SHA256())


def _key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z")


SELF_SIGNED = {
    # name: (key usage, extended key usage, not before, not after)
    "expired": (SIGNING, None, NOW - dt.timedelta(days=400), NOW - dt.timedelta(days=30)),
    "not-yet-valid": (SIGNING, None, NOW + dt.timedelta(days=30), NOW + dt.timedelta(days=400)),
    "no-signing-usage": ({"key_encipherment": True}, None, None, None),
    "tls-only": (SIGNING, [ExtendedKeyUsageOID.SERVER_AUTH], None, None),
    "document-signing": (SIGNING, [x509.ObjectIdentifier("1.3.6.1.5.5.7.3.36")], None, None),
}


@pytest.fixture(scope="module")
def made(work):
    """Each case's certificate and key on disk and a report it signed (signed directly, past the
    refusal `render --key` now makes, as an older sdeval or another tool could have)."""
    from evaluator.report.signing import Identity, sign

    unsigned = _render("offer-b")
    out = {}
    for name, (usage, eku, not_before, not_after) in SELF_SIGNED.items():
        key = _key()
        cert = _certificate(f"Signer {name}", key, ca=False, usage=usage, eku=eku, not_before=not_before, not_after=not_after)
        folder = work / name
        folder.mkdir()
        (folder / "cert.pem").write_bytes(_pem(cert))
        (folder / "key.pem").write_bytes(
            key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        )
        (folder / "report.pdf").write_bytes(sign(unsigned, Identity(key, cert, [], f"Signer {name}", [])))
        out[name] = (folder, cert)
    # Under a CA: a TLS server certificate the CA issued, and its chain as the signer presents it.
    ca_key, tls_key = _key(), _key()
    ca = _certificate("Test CA", ca_key, ca=True, usage={"key_cert_sign": True, "crl_sign": True})
    tls = _certificate("www.example.test", tls_key, issuer=ca, issuer_key=ca_key, ca=False, usage=SIGNING, eku=[ExtendedKeyUsageOID.SERVER_AUTH])
    folder = work / "ca-tls-only"
    folder.mkdir()
    (folder / "ca.pem").write_bytes(_pem(ca))
    (folder / "report.pdf").write_bytes(sign(unsigned, Identity(tls_key, tls, [], "www.example.test", [])))
    out["ca-tls-only"] = (folder, tls)
    return out


def _period(cert: x509.Certificate) -> str:
    return f"valid {_iso(cert.not_valid_before_utc)} to {_iso(cert.not_valid_after_utc)}"


REASONS = {
    "expired": lambda cert: "the certificate had expired now (",
    "not-yet-valid": lambda cert: "the certificate was not yet valid now (",
    "no-signing-usage": lambda cert: "its key usage allows neither digitalSignature nor nonRepudiation, so it may not sign documents",
    "tls-only": lambda cert: "its extended key usage (serverAuth) is not for signing documents (one of documentSigning, emailProtection,",
}


@pytest.mark.parametrize("case", ["expired", "not-yet-valid", "no-signing-usage", "tls-only"])
def test_a_self_signed_anchor_unfit_for_signing_fails_trust(made, cli, case):
    folder, cert = made[case]
    out = cli("verify", folder / "report.pdf", "--trust", folder / "cert.pem")
    assert out.exit_code == 1, out.stdout
    trust = next(line for line in out.stdout.splitlines() if line.startswith("  trust "))
    assert trust.startswith("  trust         FAIL: the signer's certificate chains to CN=Signer ")
    assert f", but {REASONS[case](cert)}" in trust
    if case in ("expired", "not-yet-valid"):
        assert "; no trusted timestamp shows when the report was signed)" in trust and f"({_period(cert)})" in trust
    assert out.stdout.splitlines()[-1] == "NOT VERIFIED: trust failed"
    # The signature itself is intact: only who may sign is refused.
    assert "  signature     PASS" in out.stdout


def test_a_ca_issued_tls_certificate_fails_trust(made, cli):
    folder, _ = made["ca-tls-only"]
    out = cli("verify", folder / "report.pdf", "--trust", folder / "ca.pem")
    assert out.exit_code == 1, out.stdout
    assert (
        "but its extended key usage (serverAuth) is not for signing documents (one of documentSigning, emailProtection, "
        "Adobe Authentic Documents Trust, Microsoft document signing, anyExtendedKeyUsage is needed)"
    ) in out.stdout


def test_a_document_signing_purpose_and_a_keygen_identity_pass(made, cli, work):
    folder, _ = made["document-signing"]
    out = cli("verify", folder / "report.pdf", "--trust", folder / "cert.pem")
    assert out.exit_code == 0, out.stdout
    assert cli("keygen", work / "trial").exit_code == 0
    target = work / "trial.pdf"
    out = cli("render", example("sd201-offer-b.json"), "-o", target, "--key", work / "trial" / "key.pem", "--cert", work / "trial" / "cert.pem")
    assert out.exit_code == 0, out.stderr
    assert cli("verify", target, "--trust", work / "trial" / "cert.pem").exit_code == 0


@pytest.mark.parametrize("case", ["expired", "not-yet-valid", "no-signing-usage", "tls-only"])
def test_render_refuses_to_sign_with_an_unfit_certificate(made, cli, work, case):
    folder, cert = made[case]
    target = work / f"{case}-new.pdf"
    out = cli("render", example("sd201-offer-b.json"), "-o", target, "--key", folder / "key.pem", "--cert", folder / "cert.pem")
    assert out.exit_code == 2
    assert len(out.stderr.splitlines()) == 1, out.stderr
    assert out.stderr.startswith(f"sdeval: {folder / 'cert.pem'}: cannot sign with this certificate: ")
    if case == "expired":
        assert ", the signing time (" in out.stderr and _period(cert) in out.stderr
    assert not target.exists()


@pytest.mark.archive
def test_archive_add_refuses_a_report_signed_with_an_expired_certificate(made, db, tmp_path, sdeval):
    folder, _ = made["expired"]
    root = tmp_path / "archive"
    assert sdeval(*archive_args("init", root, db, "--trust", folder / "cert.pem")).exit_code == 0
    out = sdeval(*archive_args("add", root, db, folder / "report.pdf"))
    assert out.exit_code == 1, out.stdout
    assert out.stdout.startswith(f"refused {folder / 'report.pdf'}: trust failed: the signer's certificate chains to CN=Signer expired")
    assert "but the certificate had expired now" in out.stdout
    assert sdeval(*archive_args("list", root, db, "-f", "json")).json()["reports"] == []
