"""Trust, worded for an auditor: a report checked against another certificate than the one that
signed it "does not chain to a trust anchor" (pyHanko calls a self-signed signer outside the anchors a
chain constraints failure); every other indication in words; the folder `sdeval keygen` made works as
--trust (its key is skipped with a note); a report given to assess is sent to verify."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from conftest import example

pytestmark = pytest.mark.pdf


@pytest.fixture(scope="module")
def signed(work, cli):
    """A report signed by Alice's trial identity, and Bob's identity beside it (another name)."""
    for who, name in (("alice", "Alice Auditor"), ("bob", "Bob Reviewer")):
        assert cli("keygen", work / who, "--name", name).exit_code == 0
    pdf = work / "report.pdf"
    out = cli("render", example("sd201-offer-b.json"), "-o", pdf, "--key", work / "alice" / "key.pem", "--cert", work / "alice" / "cert.pem")
    assert out.exit_code == 0, out.stderr
    return pdf


def test_the_wrong_anchor_does_not_chain_to_a_trust_anchor(signed, work, cli):
    out = cli("verify", signed, "--trust", work / "bob" / "cert.pem")
    assert out.exit_code == 1
    line = next(x for x in out.stdout.splitlines() if x.startswith("  trust"))
    assert (
        line == f"  trust         FAIL: the signer's certificate does not chain to a trust anchor (1 trust anchor from {work / 'bob' / 'cert.pem'})"
    )
    assert "constraints" not in out.stdout


def test_the_folder_keygen_made_is_taken_as_anchors_and_its_key_skipped_with_a_note(signed, work, cli):
    out = cli("verify", signed, "--trust", work / "alice")
    assert out.exit_code == 0, out.stdout + out.stderr
    assert out.stdout.splitlines()[-1] == "verified: every check passed"
    assert out.stderr == f"sdeval: note: {work / 'alice' / 'key.pem'}: a private key, not a certificate: skipped (--trust)\n"
    wrong = cli("verify", signed, "--trust", work / "bob")
    assert wrong.exit_code == 1 and "does not chain to a trust anchor" in wrong.stdout
    key = cli("verify", signed, "--trust", work / "alice" / "key.pem")
    assert key.exit_code == 2
    assert key.stderr == (
        f"sdeval: {work / 'alice' / 'key.pem'}: holds a private key, not a certificate: give the certificate (cert.pem) or its folder (--trust)\n"
    )


@pytest.mark.parametrize("command", ["assess", "validate"])
def test_a_report_given_to_assess_is_sent_to_verify(signed, cli, command):
    out = cli(command, signed)
    assert (out.exit_code, out.stdout) == (2, "")
    assert out.stderr == f"sdeval: {signed}: a signed report (PDF), not an evidence record: use `sdeval verify {signed}`\n"


def test_every_trust_indication_pyhanko_gives_is_worded_for_an_auditor():
    from pyhanko.sign.ades.report import AdESFailure, AdESIndeterminate

    from evaluator.verify.signature import _trust_reason

    for indication in [*AdESIndeterminate, *AdESFailure]:
        status = SimpleNamespace(trust_problem_indic=indication, signing_cert=None, validation_path=None)
        words = _trust_reason(status, "the signer's certificate", None)
        assert words.startswith("the signer's certificate"), indication
        # pyHanko's own name for it never reaches the auditor, nor a word the auditor cannot act on.
        if "_" in indication.name:  # REVOKED, EXPIRED are plain words; CHAIN_CONSTRAINTS_FAILURE is not
            assert indication.name.lower().replace("_", " ") not in words, (indication, words)
        assert "pyHanko does not name" not in words or indication.name == "GENERIC", (indication, words)
