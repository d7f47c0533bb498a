"""Trusted timestamps (render --tsa: PAdES B-T) and long-term validation (--ltv: B-LTA), with a real
RFC 3161 authority on 127.0.0.1 (tests/support/local_pki.py: pyHanko's DummyTimeStamper behind http.server,
certificates made with cryptography), and poppler's pdfsig and pyHanko's own CLI agreeing with
`sdeval verify`. Nothing reaches beyond the machine.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import example, invoke
from cryptography.hazmat.primitives.serialization import Encoding
from support.local_pki import NOW, TsaServer
from support.pdf_helpers import flip, poppler, signed_ranges, stream_span, swap_attachment

pytestmark = pytest.mark.pdf

OFFER = example("sd201-offer-b.json")  # small: renders fast
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tsa():
    server = TsaServer()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def pki(tsa, work):
    return tsa.pki.write(work / "pki")


@pytest.fixture(scope="module")
def trial(work, cli):
    """A self-signed trial identity from `sdeval keygen`: key, cert."""
    assert cli("keygen", work / "trial", "--name", "Trial Signer").exit_code == 0
    return work / "trial" / "key.pem", work / "trial" / "cert.pem"


def sha256_of(cert) -> str:
    return hashlib.sha256(cert.public_bytes(Encoding.DER)).hexdigest()


def render_in_a_process(*args) -> subprocess.CompletedProcess:
    """`sdeval render` in its own process: forking is safe there, so the signing (and the timestamp
    request) happens in the forked signing process, as for a user."""
    return subprocess.run([sys.executable, "-m", "evaluator", "render", *map(str, args)], cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def bt_report(tsa, trial, work):
    target = work / "bt.pdf"
    before = len(tsa.requests)
    out = render_in_a_process(OFFER, "-o", target, "--key", trial[0], "--cert", trial[1], "--tsa", tsa.tsa_url)
    assert out.returncode == 0, out.stderr
    assert out.stderr == f"wrote {target} ({target.stat().st_size:,} bytes, signed by Trial Signer, timestamped)\n"
    assert tsa.requests[before:] == ["POST /tsa", "POST /tsa"]  # one to size the signature, one for the token
    return target


@pytest.fixture(scope="module")
def lta_report(tsa, pki, work, cli):
    """Signed by a CA-issued signer whose certificate names a CRL on the local server."""
    target = work / "lta.pdf"
    out = cli(
        "render",
        OFFER,
        "-o",
        target,
        "--key",
        pki["signer_key"],
        "--cert",
        pki["signer_cert"],
        "--tsa",
        tsa.tsa_url,
        "--ltv",
        "--trust",
        pki["root"],
        "--trust",
        pki["tsa_root"],
    )
    assert out.exit_code == 0, out.stderr
    assert "signed by Jane Auditor, timestamped, with long-term validation data" in out.stderr
    assert {"GET /root.crl", "GET /tsa-root.crl"} <= set(tsa.requests)
    return target


@pytest.fixture(scope="module")
def lta_trial_report(tsa, pki, trial, work):
    target = work / "lta-trial.pdf"
    out = render_in_a_process(OFFER, "-o", target, "--key", trial[0], "--cert", trial[1], "--tsa", tsa.tsa_url, "--ltv", "--trust", pki["tsa_root"])
    assert out.returncode == 0, out.stderr
    return target


# ----------------------------------------------------------------------------- B-T


def test_a_signature_timestamp_dates_the_signature_and_names_its_authority(bt_report, tsa, trial, pki, cli):
    out = cli("verify", bt_report, "--trust", trial[1], "--trust", pki["tsa_root"], "--format", "json")
    assert out.exit_code == 0, out.stdout
    report = json.loads(out.stdout)["reports"][0]
    stamp = report["timestamp"]
    assert stamp["kind"] == "signature" and stamp["trusted"] is True
    assert stamp["authority_subject"] == "O=sdeval test PKI,CN=sdeval test TSA"
    assert stamp["authority_fingerprint_sha256"] == sha256_of(tsa.pki.tsa.cert)
    assert report["signing_time"] == stamp["time"]  # the signing time reported is the timestamp's
    assert report["claimed_signing_time"] is not None and report["claimed_signing_time"] != stamp["time"]
    moment = dt.datetime.fromisoformat(stamp["time"].replace("Z", "+00:00"))
    assert abs(moment - dt.datetime.now(dt.timezone.utc)) < dt.timedelta(minutes=10)
    text = cli("verify", bt_report, "--trust", trial[1], "--trust", pki["tsa_root"]).stdout
    assert f"signed by {stamp['time']} (trusted timestamp); the signer claims {report['claimed_signing_time']}" in text
    assert (
        f"  timestamp     PASS: signature timestamp {stamp['time']} by O=sdeval test PKI,CN=sdeval test TSA "
        f"(SHA-256 {stamp['authority_fingerprint_sha256']}); intact, valid, and each authority chains to a trust anchor"
    ) in text


def test_a_timestamp_whose_authority_is_not_an_anchor_fails(bt_report, trial, cli):
    out = cli("verify", bt_report, "--trust", trial[1])
    assert out.exit_code == 1
    assert f"the authority's certificate does not chain to a trust anchor (1 trust anchor from {trial[1]})" in out.stdout
    assert "(not proven by a trusted timestamp)" in out.stdout
    assert out.stdout.splitlines()[-1] == "NOT VERIFIED: timestamp failed"


def test_without_anchors_the_timestamp_is_shown_but_not_established(bt_report, cli, monkeypatch):
    monkeypatch.delenv("SDEVAL_TRUST", raising=False)
    out = cli("verify", bt_report)
    assert out.exit_code == 1
    assert "  timestamp     NOT ESTABLISHED: signature timestamp " in out.stdout
    assert out.stdout.splitlines()[-1].startswith("NOT VERIFIED: the report is intact, but the signer is not established")


# ----------------------------------------------------------------------------- B-LTA


def _reader(path: Path):
    from pyhanko.pdf_utils.reader import PdfFileReader

    return PdfFileReader(io.BytesIO(path.read_bytes()), strict=False)


def test_ltv_embeds_the_chains_the_revocation_data_and_a_document_timestamp(lta_report, tsa, pki, cli):
    from pyhanko.sign.validation import DocumentSecurityStore

    reader = _reader(lta_report)
    assert len(list(reader.embedded_regular_signatures)) == 1
    assert len(list(reader.embedded_timestamp_signatures)) == 1
    dss = DocumentSecurityStore.read_dss(reader)
    fingerprints = {c.sha256.hex() for c in dss.load_certs()}
    assert {sha256_of(c.cert) for c in (tsa.pki.root, tsa.pki.signer, tsa.pki.tsa_root, tsa.pki.tsa)} <= fingerprints
    assert len(dss.crls) == 2  # the signer's CA and the TSA's root each name a CRL
    data = lta_report.read_bytes()
    assert data.startswith(b"%PDF-1.7") and b"/Version /2.0" not in data  # still PDF 1.7, as PDF/A-3 needs
    out = cli("verify", lta_report, "--trust", pki["root"], "--trust", pki["tsa_root"], "--format", "json")
    assert out.exit_code == 0, out.stdout
    report = json.loads(out.stdout)["reports"][0]
    assert [t["kind"] for t in report["timestamps"]] == ["signature", "document"]
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["signature"]["reason"].startswith(
        "intact and valid, covers its revision; every later revision only adds validation data or document timestamps"
    )
    assert checks["trust"]["reason"] == (
        f"the signer's certificate chains to O=sdeval test PKI,CN=sdeval test root CA (SHA-256 {sha256_of(tsa.pki.root.cert)}, "
        f"from {pki['root']}); revocation checked against the revocation data embedded in the report"
    )


def test_an_ltv_report_of_a_trial_identity_verifies_with_the_signer_and_the_tsa_root(lta_trial_report, trial, pki, cli):
    out = cli("verify", lta_trial_report, "--trust", trial[1], "--trust", pki["tsa_root"])
    assert out.exit_code == 0, out.stdout
    assert out.stdout.splitlines()[-1] == "verified: every check passed"


def test_pdfsig_lists_the_document_timestamp_and_agrees(lta_report, bt_report):
    out = poppler("pdfsig", str(lta_report))
    signatures = out.stdout.split("Signature #")[1:]
    assert len(signatures) == 2, out.stdout
    assert "Signer Certificate Common Name: Jane Auditor" in signatures[0] and "Signature is Valid." in signatures[0]
    assert "Signature Field Name: Timestamp-" in signatures[1]
    assert "Signer Certificate Common Name: sdeval test TSA" in signatures[1]
    bt = poppler("pdfsig", str(bt_report)).stdout
    assert "Signature is Valid." in bt and "Total document signed" in bt


def _pyhanko() -> str:
    exe = Path(sys.executable).parent / "pyhanko"
    if not exe.exists():
        found = shutil.which("pyhanko")
        if found is None:
            pytest.skip("pyhanko-cli is not installed (scripts/setup test installs it)")
        return found
    return str(exe)


def test_pyhankos_cli_agrees_on_bt_and_lta(bt_report, lta_report, trial, pki, work, cli):
    anchors = ["--trust-replace", "--trust", str(pki["tsa_root"])]
    bt = subprocess.run(
        [_pyhanko(), "sign", "validate", "--no-revocation-check", *anchors, "--trust", str(trial[1]), "--executive-summary", str(bt_report)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    ours = json.loads(cli("verify", bt_report, "--trust", trial[1], "--trust", pki["tsa_root"], "-f", "json").stdout)["reports"][0]
    assert bt.returncode == 0, bt.stderr
    assert bt.stdout.strip() == f"sdeval-assessor:{ours['signer']['fingerprint_sha256']}:VALID"
    # B-LTA the AdES way: revocation data required, taken from the DSS.
    lta = subprocess.run(
        [_pyhanko(), "sign", "adesverify", *anchors, "--trust", str(pki["root"]), "--executive-summary", str(lta_report)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert lta.returncode == 0, lta.stderr
    assert lta.stdout.strip().endswith(":VALID")
    bad = work / "lta-flipped.pdf"
    data = lta_report.read_bytes()
    first, _ = signed_ranges(data)
    bad.write_bytes(flip(data, first.start + len(first) // 2))
    both = subprocess.run(
        [_pyhanko(), "sign", "adesverify", *anchors, "--trust", str(pki["root"]), "--executive-summary", str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert both.returncode == 1
    assert cli("verify", bad, "--trust", pki["root"], "--trust", pki["tsa_root"]).exit_code == 1


# ----------------------------------------------------------------------------- after expiry


def test_after_the_signers_certificate_expires_only_a_timestamped_report_still_verifies(tsa, work, pki):
    """A signer whose certificate expires two days from now; verified as of thirty days from now
    (`pki` writes the roots it reads under work/pki, whichever test ran first)."""
    from evaluator.report.signing import Timestamping, load_identity, sign
    from evaluator.report.trust import TrustAnchors
    from evaluator.verify.one import verify_report

    short = tsa.pki.issue_signer("Short Lived", not_after=NOW + dt.timedelta(days=2))
    (work / "short-key.pem").write_bytes(short.key_pem())
    (work / "short-cert.pem").write_bytes(short.pem())
    identity = load_identity(key=work / "short-key.pem", cert=work / "short-cert.pem", pkcs12=None, password_file=None)
    draft = work / "draft.pdf"

    assert invoke("render", str(OFFER), "-o", str(draft)).exit_code == 0
    roots = tuple(c.cert.public_bytes(Encoding.DER) for c in (tsa.pki.root, tsa.pki.tsa_root))
    anchors = TrustAnchors.from_paths([work / "pki" / "root.pem", work / "pki" / "tsa-root.pem"])
    later = NOW + dt.timedelta(days=30)
    period = f"(valid {iso(short.cert.not_valid_before_utc)} to {iso(short.cert.not_valid_after_utc)})"
    for name, timestamping in (("bb", None), ("lta", Timestamping(tsa.tsa_url, ltv=True, roots=roots))):
        path = work / f"short-{name}.pdf"
        path.write_bytes(sign(draft.read_bytes(), identity, timestamping))
        assert verify_report(path, trust=anchors, strict=False).passed  # today, both verify
        outcome = verify_report(path, trust=anchors, strict=False, now=later)
        trust = {c.name: c for c in outcome.checks}["trust"]
        if name == "bb":
            assert not outcome.passed
            assert trust.detail == (
                f"the signer's certificate, or one above it, is not valid at {iso(later)} {period}, and no trusted timestamp shows when it was used"
            )
        else:
            assert outcome.passed, outcome.text()
            assert trust.detail.endswith(
                f"; the certificate has expired {period}, but was valid at the trusted timestamp {iso(outcome.signing_time)}"
                "; revocation checked against the revocation data embedded in the report"
            ), trust.detail


def iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z")


def test_a_later_document_timestamp_carries_timestamps_whose_authority_expired(tsa, pki, work):
    """B-LTA kept alive: signed with an authority whose certificate expires in two days, then a
    document timestamp from a long-lived authority added on top (what `pyhanko sign ltaupdate` does).
    Twenty days on, the first timestamps count through the later one; without it they do not."""
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.signers import PdfTimeStamper
    from pyhanko.sign.timestamps import HTTPTimeStamper
    from pyhanko_certvalidator import ValidationContext

    from evaluator.report.signing import Timestamping, load_identity, sign
    from evaluator.report.trust import TrustAnchors
    from evaluator.verify.one import verify_report

    identity = load_identity(key=pki["signer_key"], cert=pki["signer_cert"], pkcs12=None, password_file=None)

    draft = work / "chain-draft.pdf"
    assert invoke("render", str(OFFER), "-o", str(draft)).exit_code == 0
    roots = tuple(c.cert.public_bytes(Encoding.DER) for c in (tsa.pki.root, tsa.pki.tsa_root))
    short = work / "short-tsa.pdf"
    short.write_bytes(sign(draft.read_bytes(), identity, Timestamping(f"{tsa.url}/short-tsa", ltv=True, roots=roots)))
    context = ValidationContext(trust_roots=[tsa.pki.root.asn1(), tsa.pki.tsa_root.asn1()], allow_fetching=True)
    renewed = io.BytesIO()
    PdfTimeStamper(HTTPTimeStamper(tsa.tsa_url)).update_archival_timestamp_chain(
        PdfFileReader(io.BytesIO(short.read_bytes())), context, in_place=False, output=renewed
    )
    (work / "renewed.pdf").write_bytes(renewed.getvalue())
    anchors = TrustAnchors.from_paths([pki["root"], pki["tsa_root"]])
    later = NOW + dt.timedelta(days=20)  # the short-lived authority has expired; the CRLs (30 days) are still current
    stale = verify_report(short, trust=anchors, strict=False, now=later)
    stamp = {c.name: c for c in stale.checks}["timestamp"]
    assert not stale.passed and stamp.passed is False
    assert "the authority's certificate, or one above it, is not valid at " in stamp.detail
    assert stamp.detail.endswith(", and no later trusted document timestamp covers it")
    kept = verify_report(work / "renewed.pdf", trust=anchors, strict=False, now=later)
    assert kept.passed, kept.text()
    kinds = [(t.kind, t.authority.common_name, t.trusted_at is not None) for t in kept.timestamps]
    assert kinds == [
        ("signature", "sdeval short-lived TSA", True),
        ("document", "sdeval short-lived TSA", True),
        ("document", "sdeval test TSA", False),
    ]
    assert "(its authority's certificate has since expired; it was valid at the document timestamp " in kept.text()


# ----------------------------------------------------------------------------- tampered B-LTA


def _last_contents_digit(data: bytes) -> int:
    match = list(re.finditer(rb"/Contents\s*<([0-9a-fA-F]+)>", data))[-1]
    position = match.start(1) + len(match.group(1).rstrip(b"0")) // 2
    while data[position] not in b"0123456789":
        position += 1
    return position


def _crl_span(path: Path, issuer_common_name: str) -> range:
    """Where the DSS keeps the CRL of the named issuer (the DSS lists them in no fixed order)."""
    from asn1crypto import crl as asn1_crl
    from pyhanko.sign.validation import DocumentSecurityStore
    from pypdf import PdfReader

    data = path.read_bytes()
    for ref in DocumentSecurityStore.read_dss(_reader(path)).crls:
        stream = ref.get_object()
        if asn1_crl.CertificateList.load(stream.data).issuer.native["common_name"] == issuer_common_name:
            return stream_span(data, PdfReader(io.BytesIO(data)).get_object(ref.idnum))
    raise AssertionError(f"no CRL of {issuer_common_name} in the DSS")


def test_each_part_of_an_ltv_report_changed_fails_with_its_reason(lta_report, pki, work, cli):
    data = lta_report.read_bytes()
    crl = _crl_span(lta_report, "sdeval test root CA")  # the CRL the signer's certificate names
    cases = {
        "the document timestamp's token": (
            flip(data, _last_contents_digit(data)),
            "  timestamp     FAIL: a document timestamp cannot be validated: it is damaged (",
        ),
        "a CRL in the document security store": (
            flip(data, crl.start + len(crl) // 2),
            "  timestamp     FAIL: the document timestamp of ",
        ),
        "bytes appended after the last revision": (
            data + b"\n% appended\n",
            "  signature     FAIL: bytes were appended after the last revision",
        ),
        "an attachment swapped by a later update": (
            swap_attachment(data, OFFER.name, b'{"forged": true}'),
            "  signature     FAIL: does not cover the entire file: an incremental update was added after signing that changes the document",
        ),
    }
    for name, (changed, reason) in cases.items():
        copy = work / "lta-changed.pdf"
        copy.write_bytes(changed)
        out = cli("verify", copy, "--trust", pki["root"], "--trust", pki["tsa_root"])
        assert out.exit_code == 1, f"{name}:\n{out.stdout}"
        assert reason in out.stdout, f"{name}:\n{out.stdout}"
        assert out.stdout.splitlines()[-1].startswith("NOT VERIFIED: "), name
    # The changed CRL also breaks the trust check, in pyHanko's words, never as "does not chain".
    copy = work / "lta-crl.pdf"
    copy.write_bytes(cases["a CRL in the document security store"][0])
    out = cli("verify", copy, "--trust", pki["root"], "--trust", pki["tsa_root"]).stdout
    assert "is not intact: the bytes it covers were changed" in out
    assert "but the chain does not validate: " in out and "CRL signature could not be verified" in out


# ----------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    "path, message",
    [
        ("/garbage", "the answer is not a valid RFC 3161 timestamp response (ValueError: "),
        ("/html", "the answer is not an RFC 3161 timestamp reply ("),
        ("/missing", "the time-stamping authority answered HTTP 404"),
    ],
)
def test_an_authority_that_answers_wrongly_stops_render_with_one_line_and_no_file(tsa, trial, work, cli, path, message):
    target = work / "never.pdf"
    url = tsa.url + path
    out = cli("render", OFFER, "-o", target, "--key", trial[0], "--cert", trial[1], "--tsa", url)
    assert out.exit_code == 2
    assert out.stderr.startswith(f"sdeval: --tsa {url}: {message}"), out.stderr
    assert out.stderr.count("\n") == 1
    assert not target.exists()


def test_an_authority_that_does_not_answer_stops_render_in_the_signing_process(trial, work):
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    target = work / "never.pdf"
    out = render_in_a_process(OFFER, "-o", target, "--key", trial[0], "--cert", trial[1], "--tsa", f"http://127.0.0.1:{port}/tsa")
    assert out.returncode == 2
    assert out.stderr.startswith(f"sdeval: --tsa http://127.0.0.1:{port}/tsa: the time-stamping authority did not answer (ClientConnectorError: ")
    assert out.stderr.count("\n") == 1
    assert not target.exists()


def test_timestamp_options_misused_exit_2(tsa, trial, work, cli):
    target = work / "never.pdf"
    out = cli("render", OFFER, "-o", target, "--key", trial[0], "--cert", trial[1], "--ltv")
    assert (out.exit_code, out.stderr) == (2, "sdeval: --ltv needs --tsa URL (the document timestamp comes from that authority)\n")
    out = cli("render", OFFER, "-o", target, "--tsa", tsa.tsa_url)
    assert (out.exit_code, out.stderr) == (2, "sdeval: --tsa needs a signing identity (--key and --cert, or --pkcs12)\n")
    out = cli("render", OFFER, "-o", target, "--key", trial[0], "--cert", trial[1], "--tsa", "ftp://127.0.0.1/tsa")
    assert (out.exit_code, out.stderr) == (2, "sdeval: --tsa ftp://127.0.0.1/tsa: not an http:// or https:// URL\n")
    # --ltv must reach a root for the authority's chain: without the TSA root it says so and writes nothing.
    out = cli("render", OFFER, "-o", target, "--key", trial[0], "--cert", trial[1], "--tsa", tsa.tsa_url, "--ltv", env={"SDEVAL_TRUST": ""})
    assert out.exit_code == 2
    assert out.stderr.startswith(f"sdeval: --tsa {tsa.tsa_url} --ltv: a certificate chain does not reach a root; give the root with --trust CERT (")
    assert not target.exists()
