"""A small certificate authority and an RFC 3161 time-stamping authority on 127.0.0.1, for the
timestamp and long-term-validation tests. Nothing here reaches beyond the machine.

- `LocalPki` makes, with `cryptography`: a CA root; a signer issued by it whose certificate names
  a CRL distribution point on the local server (so `--ltv` has revocation information to embed);
  a separate TSA root; and a TSA certificate (critical extended key usage timeStamping) issued by
  it, also naming a CRL.
- `TsaServer` serves, on 127.0.0.1 and an ephemeral port, POST /tsa answered by pyHanko's
  `DummyTimeStamper` (a real RFC 3161 token signed with the TSA key), POST /short-tsa (the same with a
  TSA certificate that expires in two days), the CRLs, and broken authorities (/garbage, /html, and
  404 for any other path). It counts requests and shuts itself down after
  `lifetime` seconds if the test never stops it.
"""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

NOW = dt.datetime.now(dt.timezone.utc)


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name), x509.NameAttribute(NameOID.ORGANIZATION_NAME, "sdeval test PKI")])


def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


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
    flags.update(on)
    return x509.KeyUsage(**flags)


@dataclass
class Issued:
    key: rsa.RSAPrivateKey
    cert: x509.Certificate

    def pem(self) -> bytes:
        return self.cert.public_bytes(serialization.Encoding.PEM)

    def key_pem(self) -> bytes:
        return self.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())

    def asn1(self):
        from asn1crypto import x509 as asn1_x509

        return asn1_x509.Certificate.load(self.cert.public_bytes(serialization.Encoding.DER))


def _issue(
    subject: str,
    key,
    issuer: Issued | None,
    *,
    ca: bool,
    usage: x509.KeyUsage,
    eku=None,
    crl_url: str | None = None,
    not_before: dt.datetime | None = None,
    not_after: dt.datetime | None = None,
) -> Issued:
    name = _name(subject)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer.cert.subject if issuer else name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before or NOW - dt.timedelta(days=1))
        .not_valid_after(not_after or NOW + dt.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .add_extension(usage, critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    )
    if issuer is not None:
        builder = builder.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()), critical=False)
    if eku is not None:
        builder = builder.add_extension(x509.ExtendedKeyUsage(eku), critical=True)
    if crl_url is not None:
        point = x509.DistributionPoint([x509.UniformResourceIdentifier(crl_url)], None, None, None)
        builder = builder.add_extension(x509.CRLDistributionPoints([point]), critical=False)
    return Issued(key, builder.sign((issuer or Issued(key, None)).key, hashes.SHA256()))


def _crl(issuer: Issued) -> bytes:
    crl = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(issuer.cert.subject)
        .last_update(NOW - dt.timedelta(hours=1))
        .next_update(NOW + dt.timedelta(days=30))
        .add_extension(x509.CRLNumber(1), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()), critical=False)
        .sign(issuer.key, hashes.SHA256())
    )
    return crl.public_bytes(serialization.Encoding.DER)


@dataclass
class LocalPki:
    base_url: str  # where the TsaServer answers; certificates name their CRLs there
    root: Issued = field(init=False)
    signer: Issued = field(init=False)
    tsa_root: Issued = field(init=False)
    tsa: Issued = field(init=False)

    def __post_init__(self) -> None:
        signing = _usage(digital_signature=True, content_commitment=True)
        self.root = _issue("sdeval test root CA", _key(), None, ca=True, usage=_usage(key_cert_sign=True, crl_sign=True))
        self.signer = _issue("Jane Auditor", _key(), self.root, ca=False, usage=signing, crl_url=f"{self.base_url}/root.crl")
        self.tsa_root = _issue("sdeval test TSA root", _key(), None, ca=True, usage=_usage(key_cert_sign=True, crl_sign=True))
        self.tsa = _issue(
            "sdeval test TSA",
            _key(),
            self.tsa_root,
            ca=False,
            usage=_usage(digital_signature=True, content_commitment=True),
            eku=[ExtendedKeyUsageOID.TIME_STAMPING],
            crl_url=f"{self.base_url}/tsa-root.crl",
        )

    def short_tsa(self, days: int = 2) -> Issued:
        """Another TSA certificate under the TSA root, expiring in `days`."""
        return _issue(
            "sdeval short-lived TSA",
            _key(),
            self.tsa_root,
            ca=False,
            usage=_usage(digital_signature=True, content_commitment=True),
            eku=[ExtendedKeyUsageOID.TIME_STAMPING],
            crl_url=f"{self.base_url}/tsa-root.crl",
            not_after=NOW + dt.timedelta(days=days),
        )

    def issue_signer(self, common_name: str, *, not_after: dt.datetime, not_before: dt.datetime | None = None) -> Issued:
        """Another signer under the same root, e.g. one whose certificate expires soon."""
        return _issue(
            common_name,
            _key(),
            self.root,
            ca=False,
            usage=_usage(digital_signature=True, content_commitment=True),
            crl_url=f"{self.base_url}/root.crl",
            not_before=not_before,
            not_after=not_after,
        )

    def write(self, directory: Path) -> dict[str, Path]:
        """signer key and cert, the signer's chain as one PEM, and each root, as files."""
        directory.mkdir(parents=True, exist_ok=True)
        files = {
            "signer_key": (directory / "signer-key.pem", self.signer.key_pem()),
            "signer_cert": (directory / "signer-cert.pem", self.signer.pem()),
            "root": (directory / "root.pem", self.root.pem()),
            "tsa_root": (directory / "tsa-root.pem", self.tsa_root.pem()),
            "tsa_cert": (directory / "tsa-cert.pem", self.tsa.pem()),
        }
        for path, data in files.values():
            path.write_bytes(data)
        (directory / "signer-key.pem").chmod(0o600)
        return {name: path for name, (path, _) in files.items()}

    def signer_pkcs12(self, path: Path, password: bytes) -> Path:
        from cryptography.hazmat.primitives.serialization import pkcs12

        path.write_bytes(
            pkcs12.serialize_key_and_certificates(
                b"signer", self.signer.key, self.signer.cert, [self.root.cert], serialization.BestAvailableEncryption(password)
            )
        )
        return path


class TsaServer:
    """RFC 3161 over HTTP on 127.0.0.1 (pyHanko's DummyTimeStamper signs the tokens), plus CRLs."""

    def __init__(self, lifetime: float = 900.0) -> None:
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                server.requests.append(f"POST {self.path}")
                status, kind, answer = server.answer_post(self.path, body)
                self._reply(status, kind, answer)

            def do_GET(self):  # noqa: N802
                server.requests.append(f"GET {self.path}")
                crl = server.crls.get(self.path)
                if crl is None:
                    self._reply(404, "text/plain", b"not here")
                else:
                    self._reply(200, "application/pkix-crl", crl)

            def _reply(self, status: int, kind: str, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        self.pki = LocalPki(self.url)
        self.crls = {"/root.crl": _crl(self.pki.root), "/tsa-root.crl": _crl(self.pki.tsa_root)}
        from asn1crypto import keys
        from pyhanko.sign.timestamps.dummy_client import DummyTimeStamper

        tsa_key = keys.PrivateKeyInfo.load(
            self.pki.tsa.key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        )
        self.stamper = DummyTimeStamper(tsa_cert=self.pki.tsa.asn1(), tsa_key=tsa_key)
        short = self.pki.short_tsa()
        short_key = keys.PrivateKeyInfo.load(
            short.key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        )
        self.short_stamper = DummyTimeStamper(tsa_cert=short.asn1(), tsa_key=short_key)  # at /short-tsa: expires in 2 days
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        self._timer = threading.Timer(lifetime, self.stop)  # never outlives a forgetful test for long
        self._timer.daemon = True
        self._timer.start()

    @property
    def tsa_url(self) -> str:
        return f"{self.url}/tsa"

    def answer_post(self, path: str, body: bytes) -> tuple[int, str, bytes]:
        from asn1crypto import tsp

        if path in ("/tsa", "/short-tsa"):
            stamper = self.stamper if path == "/tsa" else self.short_stamper
            return 200, "application/timestamp-reply", stamper.request_tsa_response(tsp.TimeStampReq.load(body)).dump()
        if path == "/garbage":
            return 200, "application/timestamp-reply", b"\x30\x03\x02\x01\x07 this is not a timestamp"
        if path == "/html":
            return 200, "text/html", b"<html>a web page, not a time-stamping authority</html>"
        return 404, "text/plain", b"not here"

    def stop(self) -> None:
        self._timer.cancel()
        if self._thread.is_alive():
            self.httpd.shutdown()
            self._thread.join(5)
        self.httpd.server_close()
