"""A private key or its password never leaves sdeval: not on stdout or stderr, not in a log
record, not in an exception message (nor its chained causes), not in the PDF (raw or inflated).
A key file others can read draws a one-line warning."""

from __future__ import annotations

import logging
import os
import re
import zlib

import pytest
from conftest import example

pytestmark = pytest.mark.pdf

OFFER = example("sd201-offer-b.json")
PASSWORD = "Pw-9f3Qx-unique-71"


@pytest.fixture(scope="module")
def secrets(tmp_path_factory):
    """An RSA identity as an encrypted PEM key and as PKCS#12, both under PASSWORD, with a password file."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.serialization import load_pem_private_key, pkcs12

    from evaluator.report.signing import keygen

    work = tmp_path_factory.mktemp("secrets")
    key_path, cert_path = keygen(work / "id", common_name="Secret Keeper", force=False)
    private = load_pem_private_key(key_path.read_bytes(), None)
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    encryption = serialization.BestAvailableEncryption(PASSWORD.encode())
    locked = work / "locked.pem"
    locked.write_bytes(private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption))
    p12 = work / "id.p12"
    p12.write_bytes(pkcs12.serialize_key_and_certificates(b"k", private, cert, None, encryption))
    for path in (locked, p12):
        os.chmod(path, 0o600)
    password_file = work / "password"
    password_file.write_text(PASSWORD + "\n")
    wrong = work / "wrong-password"
    wrong.write_text(PASSWORD[::-1])
    der = private.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    pems = [key_path.read_text(), locked.read_text()]
    # What must never show: the password, each PEM body line, the DER key, the private exponent (hex).
    needles = [PASSWORD, *[line for pem in pems for line in pem.splitlines() if "-----" not in line]]
    return {
        "work": work,
        "key": key_path,
        "cert": cert_path,
        "locked": locked,
        "p12": p12,
        "password": password_file,
        "wrong": wrong,
        "der": der,
        "needles": needles,
        "d": format(private.private_numbers().d, "x"),
    }


def leaked(text: str, secrets) -> list[str]:
    return [n[:12] + "..." for n in [*secrets["needles"], secrets["d"]] if n in text]


def inflated_streams(pdf: bytes) -> list[bytes]:
    out = []
    for match in re.finditer(rb"stream\r?\n(.*?)endstream", pdf, re.S):
        try:
            out.append(zlib.decompress(match.group(1)))
        except zlib.error:
            out.append(match.group(1))
    return out


def test_the_leak_check_sees_a_key_and_a_password(secrets):
    assert len(leaked(secrets["key"].read_text(), secrets)) > 30
    assert leaked(secrets["locked"].read_text(), secrets) != []
    assert leaked(f"password was {PASSWORD}", secrets) == [PASSWORD[:12] + "..."]


def test_signed_reports_carry_no_key_or_password(secrets, sdeval, caplog):
    caplog.set_level(logging.DEBUG)
    work = secrets["work"]
    runs = {
        "pem": ("--key", secrets["locked"], "--cert", secrets["cert"], "--password-file", secrets["password"]),
        "p12": ("--pkcs12", secrets["p12"], "--password-file", secrets["password"]),
    }
    for name, options in runs.items():
        out = sdeval("render", OFFER, "-o", work / f"{name}.pdf", *options)
        assert out.exit_code == 0, out.stderr
        assert out.stderr == f"wrote {work / f'{name}.pdf'} ({(work / f'{name}.pdf').stat().st_size:,} bytes, signed by Secret Keeper)\n"
        assert "warning" not in out.stderr  # both files are 0600
        assert leaked(out.stdout + out.stderr, secrets) == []
        verified = sdeval("verify", work / f"{name}.pdf", "--trust", secrets["cert"])
        assert verified.exit_code == 0, verified.stdout
        assert leaked(verified.stdout + verified.stderr, secrets) == []
        pdf = (work / f"{name}.pdf").read_bytes()
        streams = inflated_streams(pdf)
        assert len(streams) > 10
        for blob in [pdf, *streams]:
            assert secrets["der"] not in blob and secrets["der"][-64:] not in blob
            assert leaked(blob.decode("latin-1"), secrets) == []
    assert leaked("\n".join(r.getMessage() + " " + repr(r.args) for r in caplog.records), secrets) == []


def _chain(exc: BaseException | None) -> str:
    parts = []
    while exc is not None:
        parts.append(f"{type(exc).__name__}: {exc} {exc.args!r}")
        exc = exc.__cause__ or exc.__context__
    return "\n".join(parts)


def test_wrong_password_and_wrong_key_errors_name_the_file_and_carry_no_secret(secrets, sdeval, caplog):
    from evaluator.report.signing import SigningProblem, load_identity

    caplog.set_level(logging.DEBUG)
    attempts = [
        (
            dict(key=None, cert=None, pkcs12=secrets["p12"], password_file=secrets["wrong"]),
            f"{secrets['p12']}: cannot read the PKCS#12 file (wrong password, or not PKCS#12)",
        ),
        (
            dict(key=secrets["locked"], cert=secrets["cert"], pkcs12=None, password_file=secrets["wrong"]),
            f"{secrets['locked']}: cannot read the key (not PEM/DER, or wrong password)",
        ),
        (
            dict(key=secrets["key"], cert=secrets["cert"], pkcs12=None, password_file=secrets["password"]),
            None,
        ),  # an unencrypted key given a password: cryptography refuses; the message must still be clean
        (
            dict(key=secrets["cert"], cert=secrets["cert"], pkcs12=None, password_file=secrets["password"]),
            f"{secrets['cert']}: cannot read the key (not PEM/DER, or wrong password)",
        ),
    ]
    for options, message in attempts:
        with pytest.raises(SigningProblem) as info:
            load_identity(**options)
        if message is not None:
            assert str(info.value) == message
        assert leaked(_chain(info.value), secrets) == []
    out = sdeval("render", OFFER, "-o", secrets["work"] / "x.pdf", "--pkcs12", secrets["p12"], "--password-file", secrets["wrong"])
    assert out.exit_code == 2
    assert leaked(out.stdout + out.stderr, secrets) == []
    assert not (secrets["work"] / "x.pdf").exists()
    assert leaked("\n".join(r.getMessage() for r in caplog.records), secrets) == []


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o644])
def test_a_key_file_readable_by_group_or_others_draws_one_warning_line(secrets, sdeval, tmp_path, mode):
    key = tmp_path / "key.pem"
    key.write_bytes(secrets["key"].read_bytes())
    os.chmod(key, mode)
    out = sdeval("render", OFFER, "-o", tmp_path / "r.pdf", "--key", key, "--cert", secrets["cert"])
    assert out.exit_code == 0, out.stderr
    lines = out.stderr.splitlines()
    assert lines[0] == f"sdeval: warning: {key}: private key file has mode {mode:04o}, readable beyond its owner; chmod 600 it"
    assert len(lines) == 2 and lines[1].startswith(f"wrote {tmp_path / 'r.pdf'}")


def test_a_pkcs12_file_readable_by_others_draws_the_warning_too(secrets, sdeval, tmp_path):
    p12 = tmp_path / "id.p12"
    p12.write_bytes(secrets["p12"].read_bytes())
    os.chmod(p12, 0o644)
    out = sdeval("render", OFFER, "-o", tmp_path / "r.pdf", "--pkcs12", p12, "--password-file", secrets["password"])
    assert out.exit_code == 0, out.stderr
    assert out.stderr.splitlines()[0] == f"sdeval: warning: {p12}: private key file has mode 0644, readable beyond its owner; chmod 600 it"
