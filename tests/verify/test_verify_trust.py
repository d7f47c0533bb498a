"""Trust anchors (--trust, files of several certificates, folders, SDEVAL_TRUST), look-alike signers,
and `sdeval verify` over many reports (one line each, JSON, across the cores, exit codes)."""

from __future__ import annotations

import json
import os

import pytest
from conftest import example
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from support.pdf_helpers import cert_fingerprint as fingerprint

pytestmark = pytest.mark.pdf

OFFER = example("sd201-offer-b.json")  # small: renders fast


@pytest.fixture(scope="module")
def reports(work, cli):
    """The genuine auditor's report and a look-alike's: a fresh identity under the very same name."""
    made = {}
    for who in ("genuine", "forger"):
        assert cli("keygen", work / who, "--name", "Jane Auditor").exit_code == 0
        target = work / "reports" / f"{who}.pdf"
        target.parent.mkdir(exist_ok=True)
        out = cli("render", OFFER, "-o", target, "--key", work / who / "key.pem", "--cert", work / who / "cert.pem")
        assert out.exit_code == 0, out.stderr
        assert "signed by Jane Auditor" in out.stderr
        made[who] = target
    return made


# ------------------------------------------------------------------------- look-alikes


def test_a_look_alike_never_verifies(reports, work, cli, monkeypatch):
    monkeypatch.delenv("SDEVAL_TRUST", raising=False)
    genuine, forger = work / "genuine" / "cert.pem", work / "forger" / "cert.pem"
    # Without anchors: integrity holds, the signer is not established, exit 1, and the fingerprint tells them apart.
    out = cli("verify", reports["forger"])
    assert out.exit_code == 1
    assert f"SHA-256 {fingerprint(forger)}" in out.stdout and fingerprint(genuine) not in out.stdout
    assert "verified: every check passed" not in out.stdout
    # With the genuine certificate as anchor, on the command line or from SDEVAL_TRUST.
    for args, env in ((["--trust", genuine], {}), ([], {"SDEVAL_TRUST": str(genuine)})):
        out = cli("verify", reports["forger"], *args, env=env)
        assert out.exit_code == 1, out.stdout
        source = genuine
        assert (
            f"  trust         FAIL: the signer's certificate does not chain to a trust anchor (1 trust anchor from {source}): "
            f"it bears the name O=sdeval trial identity (self-signed),CN=Jane Auditor of the anchor with SHA-256 {fingerprint(genuine)}, "
            f"but is another certificate (SHA-256 {fingerprint(forger)}) that the anchor's key did not sign"
        ) in out.stdout
        assert out.stdout.splitlines()[-1] == "NOT VERIFIED: trust failed"
    assert cli("verify", reports["genuine"], "--trust", genuine).exit_code == 0
    assert cli("verify", reports["genuine"], env={"SDEVAL_TRUST": str(genuine)}).exit_code == 0


# ------------------------------------------------------------------------- anchors


def test_anchors_from_files_of_several_certificates_folders_and_the_environment(work, reports, cli):
    from evaluator.report.trust import TrustAnchors

    genuine, forger = work / "genuine" / "cert.pem", work / "forger" / "cert.pem"
    bundle = work / "bundle.pem"
    bundle.write_bytes(forger.read_bytes() + b"\n" + genuine.read_bytes())
    anchors = TrustAnchors.from_paths([bundle])
    assert [a.fingerprint_sha256 for a in anchors.anchors] == [fingerprint(forger), fingerprint(genuine)]
    assert cli("verify", reports["genuine"], "--trust", bundle).exit_code == 0
    folder = work / "anchors"
    folder.mkdir()
    (folder / "genuine.crt").write_bytes(genuine.read_bytes())
    der = x509.load_pem_x509_certificate(forger.read_bytes()).public_bytes(Encoding.DER)
    (folder / "forger.der").write_bytes(der)
    (folder / "README.txt").write_text("not read: only *.pem, *.crt, *.cer and *.der are")
    assert TrustAnchors.from_paths([folder]).fingerprints == {fingerprint(genuine), fingerprint(forger)}
    assert cli("verify", reports["genuine"], "--trust", folder).exit_code == 0
    unreadable = str(work / "no-such-anchor.pem")
    environ = {"SDEVAL_TRUST": os.pathsep.join([str(folder / "forger.der"), str(genuine)])}
    assert TrustAnchors.from_environment(environ).fingerprints == {fingerprint(genuine), fingerprint(forger)}
    assert TrustAnchors.from_environment({"SDEVAL_TRUST": ""}) is None
    # --trust replaces SDEVAL_TRUST: an unreadable variable does not matter when --trust is given.
    out = cli("verify", reports["genuine"], "--trust", genuine, env={"SDEVAL_TRUST": unreadable})
    assert out.exit_code == 0, out.stdout


def test_unreadable_anchors_stop_verify_with_exit_2(work, reports, cli):
    not_pem = work / "key-not-cert.pem"
    not_pem.write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    garbage = work / "garbage.der"
    garbage.write_bytes(b"\x30\x03\x02\x01\x01 not a certificate")
    empty = work / "empty-folder"
    empty.mkdir()
    cases = [
        (["--trust", work / "nope.pem"], {}, f"sdeval: {work / 'nope.pem'}: no such file (--trust)\n"),
        (
            ["--trust", not_pem],
            {},
            f"sdeval: {not_pem}: holds a private key, not a certificate: give the certificate (cert.pem) or its folder (--trust)\n",
        ),
        (["--trust", garbage], {}, f"sdeval: {garbage}: not a certificate (PEM or DER) (--trust)\n"),
        (["--trust", empty], {}, f"sdeval: {empty}: no certificate files (*.pem, *.crt, *.cer, *.der) in the folder (--trust)\n"),
        ([], {"SDEVAL_TRUST": str(work / "nope.pem")}, f"sdeval: {work / 'nope.pem'}: no such file (SDEVAL_TRUST)\n"),
    ]
    for args, env, message in cases:
        out = cli("verify", reports["genuine"], *args, env=env)
        assert (out.exit_code, out.stderr, out.stdout) == (2, message, ""), args


# ------------------------------------------------------------------------- many reports


@pytest.fixture(scope="module")
def archive(work, reports, cli):
    """A folder as an auditor keeps one: three genuine reports (one in a subfolder), the look-alike's,
    and an unsigned draft."""
    folder = work / "archive"
    (folder / "2026").mkdir(parents=True)
    for name in ("a.pdf", "b.pdf", "2026/c.pdf"):
        (folder / name).write_bytes(reports["genuine"].read_bytes())
    (folder / "forged.pdf").write_bytes(reports["forger"].read_bytes())
    assert cli("render", OFFER, "-o", folder / "draft.pdf").exit_code == 0
    return folder


def test_a_folder_gives_one_line_per_report_and_a_total(archive, work, cli):
    genuine = work / "genuine" / "cert.pem"
    out = cli("verify", archive, "--trust", genuine)
    assert out.exit_code == 1
    lines = out.stdout.splitlines()
    assert lines[0] == "file\tvendor\toffer\toutcome\tsigner\tfingerprint\ttimestamp\tresult"
    rows = [line.split("\t") for line in lines[1:-1]]
    assert [r[0] for r in rows] == [str(archive / n) for n in ("2026/c.pdf", "a.pdf", "b.pdf", "draft.pdf", "forged.pdf")]
    assert all(len(r) == 8 for r in rows)
    good = rows[0]
    assert good[1:] == ["SD-201 Offer B (fictional)", "SD-201-B", "established", "Jane Auditor", fingerprint(genuine), "none", "verified"]
    assert rows[3][4:] == ["-", "-", "none", "NOT VERIFIED: signature: the report is not signed (an unsigned draft)"]
    assert rows[4][5] == fingerprint(work / "forger" / "cert.pem")
    assert rows[4][7].startswith("NOT VERIFIED: trust: the signer's certificate does not chain to a trust anchor")
    assert lines[-1] == "5 reports: 3 verified, 2 not verified"
    only_good = cli("verify", archive / "a.pdf", archive / "b.pdf", archive / "2026", "--trust", genuine)
    assert only_good.exit_code == 0 and only_good.stdout.splitlines()[-1] == "3 reports: 3 verified, 0 not verified"


def test_json_lists_every_report_with_its_checks_signer_and_timestamp(archive, work, cli):
    out = cli("verify", archive, "--trust", work / "genuine" / "cert.pem", "--format", "json")
    assert out.exit_code == 1
    doc = json.loads(out.stdout)
    assert doc["summary"] == {"reports": 5, "verified": 3, "not_verified": 2, "not_a_report": 0}
    first = doc["reports"][0]
    assert set(first) >= {"file", "passed", "checks", "signer", "timestamp", "signing_time", "claimed_signing_time", "outcome", "offers"}
    assert first["passed"] is True and first["timestamp"] is None and first["signing_time"] is None
    assert [c["name"] for c in first["checks"]] == ["signature", "timestamp", "trust", "attachments", "reproduction"]
    assert [c["status"] for c in first["checks"]] == ["pass", "none", "pass", "pass", "pass"]
    assert set(first["signer"]) >= {"subject", "fingerprint_sha256", "not_before", "not_after", "key_type", "key_size"}
    assert (first["signer"]["key_type"], first["signer"]["key_size"]) == ("RSA", 3072)
    assert first["offers"] == [{"file": OFFER.name, "vendor": "SD-201 Offer B (fictional)", "offer_id": "SD-201-B", "outcome": "established"}]
    draft = doc["reports"][3]
    assert draft["passed"] is False and draft["signer"] is None
    assert {c["name"]: c["status"] for c in draft["checks"]}["trust"] == "not-evaluated"


def test_a_file_that_is_not_a_report_is_a_failing_line_and_exit_2(archive, work, cli):
    stray = work / "stray"
    stray.mkdir()
    (stray / "notes.pdf").write_text("just text\n")
    out = cli("verify", archive / "a.pdf", stray, "--trust", work / "genuine" / "cert.pem")
    assert out.exit_code == 2
    assert out.stdout.splitlines()[2].endswith(f"\tNOT A REPORT: {stray / 'notes.pdf'}: not a PDF (no %PDF- header)")
    assert out.stdout.splitlines()[-1] == "2 reports: 1 verified, 0 not verified, 1 not a report"
    empty = work / "no-pdfs"
    empty.mkdir()
    out = cli("verify", empty)
    assert (out.exit_code, out.stderr) == (2, f"sdeval: {empty}: no *.pdf file in the folder\n")


def test_verify_many_in_forked_processes_gives_the_same_outcomes_in_order(archive, work, monkeypatch):
    import multiprocessing

    from evaluator._infra import forking
    from evaluator.report.trust import TrustAnchors
    from evaluator.verify.many import report_paths, verify_many

    anchors = TrustAnchors.from_paths([work / "genuine" / "cert.pem"])
    paths = report_paths([archive])
    alone = verify_many(paths, trust=anchors, strict=False, workers=1)
    monkeypatch.setattr(forking, "fork_is_safe", lambda: True)
    shared = verify_many(paths, trust=anchors, strict=False, workers=2)
    assert [o.path for o in shared] == paths
    assert [o.as_dict() for o in shared] == [o.as_dict() for o in alone]
    assert [o.passed for o in shared] == [True, True, True, False, False]
    assert shared[0].attachments[OFFER.name] == OFFER.read_bytes()
    assert shared[0].assessment["outcome"] == "established"
    assert multiprocessing.active_children() == []
