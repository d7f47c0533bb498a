"""sdeval render / keygen / verify on the shipped complete offer: content, attachments, signature, tampering.

Rendering takes about a second, so each report is made once per module and copied for tampering.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import example
from support.pdf_helpers import attachments, cert_fingerprint, flip, page_texts, poppler, signed_ranges, swap_attachment

from evaluator import __version__
from evaluator.engine.loader import load_bytes
from evaluator.present.json_document import document as as_document
from evaluator.rules import RULE_CATALOG_VERSION
from evaluator.rules.assess import assess

pytestmark = pytest.mark.pdf

OFFER = example("complete-offer.yaml")
OFFER_SHA = hashlib.sha256(OFFER.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def signed(work, cli, identity):
    key, cert = identity
    out = cli("render", OFFER, "-o", work / "signed.pdf", "--key", key, "--cert", cert)
    assert out.exit_code == 0, out.stderr
    assert "signed by sdeval trial assessor" in out.stderr
    return work / "signed.pdf"


@pytest.fixture(scope="module")
def draft(work, cli):
    out = cli("render", OFFER, "-o", work / "draft.pdf")
    assert out.exit_code == 0, out.stderr
    assert "UNSIGNED DRAFT" in out.stderr
    return work / "draft.pdf"


def verify(cli, path, *extra):
    return cli("verify", path, *extra)


# ----------------------------------------------------------------------------- content


def test_cover_gives_outcome_verdicts_hashes_versions_and_signer(signed):
    cover = page_texts(signed)[0]
    assert "Acme Inference Ltd" in cover and "ACME-SD-2026-114" in cover
    assert "Overall outcome" in cover.replace("OVERALL OUTCOME", "Overall outcome")
    assert re.search(r"\bESTABLISHED\b", cover) and "NOT ESTABLISHED" not in cover
    for claim in ("speedup-c1", "speedup-c8", "speedup-c64", "speedup-c256", "throughput-c64", "tpot-c64", "lossless"):
        assert claim in cover
    assert OFFER_SHA in cover
    embedded = attachments(signed.read_bytes())
    for name, (data,) in embedded.items():
        assert hashlib.sha256(data).hexdigest() in cover, name
    assert f"sdeval {__version__}, rule catalog {RULE_CATALOG_VERSION}" in cover
    assert "sdeval trial assessor" in cover
    assert "UNSIGNED DRAFT" not in "".join(page_texts(signed))


def test_draft_is_marked_on_every_page(draft):
    pages = page_texts(draft)
    assert len(pages) >= 6
    assert all("UNSIGNED DRAFT" in p for p in pages)


def test_sections_in_order_and_annex_alone_on_last_page(signed):
    pages = page_texts(signed)
    text = "\n".join(pages)
    order = [
        "Claims and the findings behind each verdict",
        "Accounting per run",
        "Output throughput and speedup by concurrency",
        "Accepted-length histograms",
        "Configuration identity",
        "Interval definitions",
        "Quality",
        "Separate equipment installation scope",
    ]
    position = 0
    for heading in order:  # each heading after the one before
        position = text.index(heading, position)
    last = " ".join(pages[-1].split())
    assert last.startswith("Separate equipment installation scope")
    assert all("Separate equipment installation scope" not in p for p in pages[:-1])
    for item in ("standby-node", "rack-row-3", "fabric-cabling", "outside the software performance decision"):
        assert item in last
    # No performance figure on the annex page (the vendor's "4x H100" is equipment, not a figure).
    assert not re.search(r"tokens/s|\d\.\d+x|\bms\b|%|speedup|throughput|latency", last, re.I)
    assert not any(figure in last for figure in ("2.19", "2,226", "84.2", "0.653", "37.6"))


def test_accounting_and_throughput_figures_come_from_the_counts(signed):
    text = "\n".join(page_texts(signed))
    # eagle3-c1: A/P, 1 + A/S and E/T, each over its own denominator, to three significant figures.
    for division, result in (("16,274 / 24,909", "= 0.653"), ("1 + 16,274 / 8,303", "= 2.96"), ("24,577 / 291.888 s", "= 84.2 tokens/s")):
        assert division in text and result in text
    assert "Output throughput by concurrency" in text  # the SVG chart's title, drawn as text
    # The speedup table: each column with one number of decimals, whole tokens/s above 100.
    page = next(p for p in page_texts(signed) if "Output throughput and speedup by concurrency" in p)
    rows = [line.split() for line in page.splitlines() if re.match(r"\s+\d+\s+\d+\s+eagle3-c", line)]
    assert rows == [
        ["1", "3", "eagle3-c1", "84", "target-only-c1", "38", "2.19x"],
        ["8", "3", "eagle3-c8", "553", "target-only-c8", "291", "1.90x"],
        ["64", "3", "eagle3-c64", "2,226", "target-only-c64", "1,702", "1.31x"],
        ["256", "0", "eagle3-c256", "3,850", "target-only-c256", "3,911", "0.98x"],
    ]
    # Claims as their authors wrote them: the cover's "Claimed" column reads 1.90x, not 1.9x.
    cover = page_texts(signed)[0]
    assert re.search(r"speedup-c8 1\.90x output +1\.90x ", cover)
    assert re.search(r"throughput-c64 2,226 output +2,226 tokens/s ", cover)


def test_the_speedup_table_prints_the_embedded_assessments_figures(signed, work, cli, identity):
    """Issue 22.8: K, the paired baseline and the speedup the pages print are the embedded
    assessment's, so a report whose JSON says otherwise fails reproduction, naming the figure."""
    from evaluator.engine.wording import column

    data = signed.read_bytes()
    doc = json.loads(attachments(data)["assessment.json"][0])
    runs = {r["run"]: r for r in doc["files"][0]["runs"]}
    speculative = [r for r in runs.values() if r["baseline_run"] is not None]
    assert [(r["run"], r["k"], r["baseline_run"]) for r in speculative] == [
        ("eagle3-c1", 3, "target-only-c1"),
        ("eagle3-c8", 3, "target-only-c8"),
        ("eagle3-c64", 3, "target-only-c64"),
        ("eagle3-c256", 0, "target-only-c256"),
    ]
    tps = column([r["emitted_tokens_per_s"] for r in speculative])
    base = column([runs[r["baseline_run"]]["emitted_tokens_per_s"] for r in speculative])
    speedups = column([r["speedup"] for r in speculative])
    page = next(p for p in page_texts(signed) if "Output throughput and speedup by concurrency" in p)
    rows = [line.split()[1:] for line in page.splitlines() if re.match(r"\s+\d+\s+\d+\s+eagle3-c", line)]
    assert rows == [[str(r["k"]), r["run"], t, r["baseline_run"], b, f"{x}x"] for r, t, b, x in zip(speculative, tps, base, speedups)]
    # The same report, with one speedup changed in its JSON before signing, no longer reproduces.
    from evaluator.pipeline import assess_paths
    from evaluator.report import render as render_module
    from evaluator.report.signing import load_identity, sign

    assessed = assess_paths([str(OFFER)], for_report=True)
    assessed.document["files"][0]["runs"][0]["speedup"] = 3.0
    forged = work / "forged-speedup.pdf"
    forged.write_bytes(
        sign(render_module.render_pdf(assessed, signer="x"), load_identity(key=identity[0], cert=identity[1], pkcs12=None, password_file=None))
    )
    out = verify(cli, forged, "--trust", identity[1])
    assert out.exit_code == 1
    first = doc["files"][0]["runs"][0]
    assert f"run {first['run']} (complete-offer.yaml): speedup 3.0 -> {first['speedup']}" in out.stdout


def test_a_note_behind_every_claim_is_said_once(signed):
    text = "\n".join(page_texts(signed))
    assert text.count("k-band-unmeasured") == 2  # named once before the claims, explained once after them
    assert " ".join(text.split()).count("A note concerns what every claim rests on; it is listed once, after the claims: k-band-unmeasured.") == 1
    assert text.count("no run was measured in that band") == 1


def test_what_every_quality_result_shares_is_said_once(signed):
    page = next(p for p in page_texts(signed) if re.search(r"^\s*Quality\s*$", p, re.M))
    quality = page[re.search(r"^\s*Quality\s*$", page, re.M).end() :]
    assert quality.count("rubric pass rate (LLM judge, 3 judges majority)") == 1
    assert quality.count("acme-support-chat-eval v3 rubric, 384 conversations, temperature 0.7, same seeds") == 1
    assert re.search(r"baseline score\s+0\.861", quality)
    scores = re.findall(r"^\s+(target-only-c\d+|eagle3-c\d+)\s+(0\.\d+)\s*$", quality, re.M)
    assert scores == [
        ("target-only-c1", "0.861"),
        ("eagle3-c1", "0.858"),
        ("target-only-c8", "0.861"),
        ("eagle3-c8", "0.858"),
        ("target-only-c64", "0.861"),
        ("eagle3-c64", "0.858"),
        ("target-only-c256", "0.861"),
        ("eagle3-c256", "0.858"),
    ]


def test_no_annex_items_says_none_identified(work, cli):
    out = cli("render", example("sd201-offer-b.json"), "-o", work / "b.pdf")
    assert out.exit_code in (0, 1), out.stderr
    pages = page_texts(work / "b.pdf")
    assert "Separate equipment installation scope" in pages[-1]
    assert "None identified." in pages[-1]


def test_what_to_ask_the_vendor_comes_before_the_claims_detail(work, cli):
    out = cli("render", example("unstated-load.json"), "-o", work / "asks.pdf")
    assert out.exit_code == 1, out.stderr
    text = " ".join("\n".join(page_texts(work / "asks.pdf")).split())
    # The buyer's action list first (issue 26.2), then the detail boxes it comes from.
    claims, asks, accounting = (text.index(h) for h in ("Claims and the findings", "What to ask the vendor", "Accounting per run"))
    assert asks < claims < accounting
    for request in (
        "1. Please state the concurrency or request rate run spec was measured at. Claim speedup; rule load-unstated",
        "2. Please state the concurrency or request rate baseline run target-only was measured at.",
        "3. Please state the concurrency or request rate the claimed 1.67x was measured at.",
    ):
        assert request in text


def test_an_established_offer_has_nothing_to_ask(draft):
    assert "What to ask the vendor" not in "".join(page_texts(draft))


def test_an_undated_offer_says_so_on_the_cover(work, cli):
    record = json.loads(example("sd201-offer-b.json").read_text())
    del record["offer"]["date"]
    (work / "undated.json").write_text(json.dumps(record))
    assert cli("render", work / "undated.json", "-o", work / "undated.pdf").exit_code == 0
    assert "Offer SD-201-B, date not stated" in page_texts(work / "undated.pdf")[0]


def test_invalid_record_still_renders_its_findings(work, cli):
    bad = work / "broken.json"
    bad.write_text('{"record_version": "1.0", "offer": ')
    out = cli("render", bad, "-o", work / "broken.pdf")
    assert out.exit_code == 1
    pages = page_texts(work / "broken.pdf")
    cover = " ".join(pages[0].split())
    assert (
        "broken.json Not an evidence record that could be read OVERALL OUTCOME INVALID RECORD The record could not "
        "be read as an evidence record, so no claim can be judged; its errors are listed below. 1 error" in cover
    )
    assert "see the verdicts below" not in cover and "Verdict per claim" not in cover
    assert "Why broken.json could not be read as an evidence record" in pages[1]
    assert "ERROR parse at / (line 1): not valid JSON: Expecting value" in " ".join(pages[1].split())


# ------------------------------------------------------------------------- attachments


def test_inputs_and_assessment_are_attached_byte_exact(signed):
    embedded = attachments(signed.read_bytes())
    assert sorted(embedded) == ["assessment.json", "complete-offer.yaml", "sdeval-report.json"]
    assert embedded["complete-offer.yaml"] == [OFFER.read_bytes()]
    expected = as_document([assess(load_bytes("complete-offer.yaml", OFFER.read_bytes()))], full=True)
    assert json.loads(embedded["assessment.json"][0]) == expected
    manifest = json.loads(embedded["sdeval-report.json"][0])
    assert manifest["inputs"] == [
        {"attachment": "complete-offer.yaml", "file": "complete-offer.yaml", "role": "evidence record", "sha256": OFFER_SHA}
    ]
    listed = poppler("pdfdetach", "-list", str(signed))
    assert listed.returncode == 0
    assert "3 embedded files" in listed.stdout
    for name in embedded:
        assert name in listed.stdout


def test_a_signed_report_names_its_inputs_by_file_name_never_by_the_assessors_folders(signed, work, cli, identity):
    """Issue 22.9: the render above was given an absolute path; two inputs of one name stay apart."""
    folder = str(OFFER.parent)
    data = signed.read_bytes()
    embedded = {name: contents[0] for name, contents in attachments(data).items()}
    for name in ("assessment.json", "sdeval-report.json"):
        assert folder.encode() not in embedded[name], name
    assert folder not in "\n".join(page_texts(signed))
    twin = work / "elsewhere" / "complete-offer.yaml"
    twin.parent.mkdir()
    twin.write_bytes(OFFER.read_bytes())
    target = work / "twins.pdf"
    out = cli("render", OFFER, twin, "-o", target, "--key", identity[0], "--cert", identity[1])
    assert out.exit_code == 0, out.stderr
    manifest = json.loads(attachments(target.read_bytes())["sdeval-report.json"][0])
    assert [(i["file"], i["attachment"]) for i in manifest["inputs"]] == [
        ("complete-offer.yaml", "complete-offer.yaml"),
        ("complete-offer-2.yaml", "complete-offer-2.yaml"),
    ]
    assert str(work) not in "\n".join(page_texts(target))
    assert verify(cli, target, "--trust", identity[1]).exit_code == 0


def test_pdfa_3a_metadata_and_producer_stay_consistent_after_signing(signed):
    from pypdf import PdfReader

    reader = PdfReader(str(signed))
    xmp = reader.xmp_metadata
    raw = reader.trailer["/Root"]["/Metadata"].get_object().get_data().decode()
    assert 'pdfaid:part="3"' in raw or "<pdfaid:part>3</pdfaid:part>" in raw
    assert 'pdfaid:conformance="A"' in raw or "<pdfaid:conformance>A</pdfaid:conformance>" in raw
    assert reader.metadata["/Producer"] == xmp.pdf_producer
    assert reader.pdf_header == "%PDF-1.7"
    assert "/Version" not in reader.trailer["/Root"] or reader.trailer["/Root"]["/Version"] != "/2.0"
    fonts = poppler("pdffonts", str(signed)).stdout.splitlines()[2:]
    assert fonts and all(" yes yes yes " in f for f in fonts), fonts


# --------------------------------------------------------------------------- signature


def test_verify_passes_and_names_every_check(signed, identity, cli):
    out = verify(cli, signed, "--trust", identity[1])
    assert out.exit_code == 0, out.stdout
    lines = out.stdout.splitlines()
    fingerprint = cert_fingerprint(identity[1])
    assert lines[1].startswith(
        f"  signer        O=sdeval trial identity (self-signed),CN=sdeval trial assessor; SHA-256 {fingerprint}; valid "
    ) and lines[1].endswith("; RSA 3072 bits")
    assert re.fullmatch(
        r"  signature     PASS: intact and valid, covers the entire file; the signer claims \S+Z \(not proven by a trusted timestamp\)", lines[2]
    ), lines[2]
    assert lines[3] == "  timestamp     NONE: no trusted timestamp: the signing time is only the signer's claim (render with --tsa to add one)"
    assert lines[4] == (
        f"  trust         PASS: the signer's certificate chains to O=sdeval trial identity (self-signed),CN=sdeval trial assessor "
        f"(SHA-256 {fingerprint}, from {identity[1]})"
    )
    assert lines[5] == "  attachments   PASS: 3 files; each SHA-256 matches the manifest, the assessment and the cover"
    assert (
        lines[6]
        == f"  reproduction  PASS: re-assessing 1 input with sdeval {__version__} (rule catalog {RULE_CATALOG_VERSION}) gives the embedded assessment"
    )
    assert lines[7] == "verified: every check passed"


def test_verify_without_trust_says_integrity_holds_but_the_signer_is_not_established(signed, cli, monkeypatch):
    monkeypatch.delenv("SDEVAL_TRUST", raising=False)
    out = verify(cli, signed)
    assert out.exit_code == 1
    assert "  trust         NOT ESTABLISHED: no trust anchor given (--trust CERT or SDEVAL_TRUST): who signed is not established" in out.stdout
    assert "  signature     PASS" in out.stdout and "  attachments   PASS" in out.stdout
    assert out.stdout.splitlines()[-1] == (
        "NOT VERIFIED: the report is intact, but the signer is not established: no trust anchor given (--trust CERT or SDEVAL_TRUST)"
    )
    assert "verified: every" not in out.stdout


def test_verify_fails_for_another_signer(signed, work, cli):
    assert cli("keygen", work / "other").exit_code == 0
    out = verify(cli, signed, "--trust", work / "other" / "cert.pem")
    assert out.exit_code == 1
    assert (
        f"  trust         FAIL: the signer's certificate does not chain to a trust anchor (1 trust anchor from {work / 'other' / 'cert.pem'})"
        in out.stdout
    )
    assert out.stdout.rstrip().endswith("NOT VERIFIED: trust failed")


@pytest.mark.parametrize("where", [0.02, 0.3, 0.6, 0.97, "tail"])
def test_any_changed_byte_fails(signed, identity, work, cli, where):
    data = signed.read_bytes()
    first, second = signed_ranges(data)
    position = second.start + len(second) // 2 if where == "tail" else first.start + int(len(first) * where)
    copy = work / f"flipped-{where}.pdf"
    copy.write_bytes(flip(data, position))
    out = verify(cli, copy, "--trust", identity[1])
    assert out.exit_code == 1, out.stdout
    assert "  signature     FAIL: " in out.stdout
    # A broken signature proves nothing about who signed: trust is not evaluated, not "does not chain".
    assert "  trust         NOT EVALUATED: the signature is broken" in out.stdout
    assert "  timestamp     NOT EVALUATED: the signature is broken" in out.stdout


def test_junk_appended_fails(signed, identity, work, cli):
    copy = work / "appended.pdf"
    copy.write_bytes(signed.read_bytes() + b"\n% appended after signing\n")
    out = verify(cli, copy, "--trust", identity[1])
    assert out.exit_code == 1
    assert "  signature     FAIL: does not cover the entire file: bytes were appended after signing" in out.stdout


def test_attachment_swapped_by_incremental_update_fails(signed, identity, work, cli):
    forged = OFFER.read_bytes().replace(b"duration_s: 291.888", b"duration_s: 191.888")
    copy = work / "swapped.pdf"
    copy.write_bytes(swap_attachment(signed.read_bytes(), "complete-offer.yaml", forged))
    assert attachments(copy.read_bytes())["complete-offer.yaml"] == [forged]  # what a viewer would show
    out = verify(cli, copy, "--trust", identity[1])
    assert out.exit_code == 1
    assert (
        "  signature     FAIL: does not cover the entire file: an incremental update was added after signing that changes the document" in out.stdout
    )
    assert "  attachments   FAIL: complete-offer.yaml: SHA-256" in out.stdout


def test_unsigned_draft_fails_verification(draft, cli):
    out = verify(cli, draft)
    assert out.exit_code == 1
    assert out.stdout.splitlines()[1:5] == [
        "  signer        unknown: no readable signer certificate in the report",
        "  signature     FAIL: the report is not signed (an unsigned draft)",
        "  timestamp     NOT EVALUATED: the report is not signed",
        "  trust         NOT EVALUATED: the report is not signed",
    ]


def test_not_a_pdf_or_no_assessment_exits_2(work, cli):
    text = work / "notes.pdf"
    text.write_text("just text\n")
    out = verify(cli, text)
    assert out.exit_code == 2
    assert out.stderr == f"sdeval: {text}: not a PDF (no %PDF- header)\n"
    from weasyprint import HTML

    plain = work / "plain.pdf"
    HTML(string="<p>hello</p>").write_pdf(plain)
    out = verify(cli, plain)
    assert out.exit_code == 2
    assert "holds no sdeval assessment" in out.stderr
    out = verify(cli, work / "missing.pdf")
    assert out.exit_code == 2 and "no such file" in out.stderr


def test_pdfsig_agrees(signed):
    out = poppler("pdfsig", str(signed))
    assert "Signature is Valid." in out.stdout
    assert "Total document signed" in out.stdout


def test_pyhanko_cli_agrees(signed, identity, work):
    exe = Path(os.environ.get("VIRTUAL_ENV", "")) / "bin" / "pyhanko"
    exe = str(exe) if exe.exists() else shutil.which("pyhanko") or str(Path(__import__("sys").executable).parent / "pyhanko")
    if not Path(exe).exists():
        pytest.skip("pyhanko-cli is not installed (scripts/setup test installs it)")
    base = [exe, "sign", "validate", "--no-revocation-check", "--trust-replace", "--trust", str(identity[1]), "--executive-summary"]
    ok = subprocess.run([*base, str(signed)], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip().endswith(":VALID")
    bad = work / "pyhanko-flipped.pdf"
    data = signed.read_bytes()
    first, _ = signed_ranges(data)
    bad.write_bytes(flip(data, first.start + len(first) // 2))
    out = subprocess.run([*base, str(bad)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1


def test_a_truncated_report_fails_in_one_line_per_check(signed, work, cli):
    cut = work / "truncated.pdf"
    cut.write_bytes(signed.read_bytes()[: len(signed.read_bytes()) // 3])
    out = verify(cli, cut)
    assert out.exit_code == 1
    assert "  signature     FAIL: cannot be validated: the file structure is damaged (" in out.stdout
    assert "  attachments   FAIL: cannot be read (" in out.stdout
    assert "  reproduction  NOT EVALUATED: the attachments cannot be read" in out.stdout
    assert out.stderr == ""


def test_a_table_split_across_pages_never_leaves_one_row_alone(work):
    """43 speculative runs: the speedup table fills a page and two rows go over, never one
    (without report.css's rule the last row went over alone, as 42 + 1)."""
    import copy

    import yaml

    from evaluator.pipeline import reassess
    from evaluator.report.render import render_pdf

    base = yaml.safe_load(OFFER.read_text())
    spec = next(r for r in base["runs"] if r["id"] == "eagle3-c8")
    target = next(r for r in base["runs"] if r["id"] == "target-only-c8")
    doc = copy.deepcopy(base)
    doc["runs"] = []
    for i in range(43):
        for template, prefix in ((target, "t"), (spec, "s")):
            run = copy.deepcopy(template)
            run["id"], run["load"]["concurrency"] = f"{prefix}{i:02d}", 2 + i
            doc["runs"].append(run)
    claim = next(c for c in base["claims"] if c["kind"] == "speedup")
    doc["claims"] = [{**claim, "run": "s00", "baseline": "t00", "concurrency": 2}]
    path = work / "many-runs.pdf"
    path.write_bytes(render_pdf(reassess([("many-runs.json", json.dumps(doc).encode())]), signer=None))
    rows = [len(re.findall(r"^\s+\d+\s+\d+\s+s\d\d\s", page, re.M)) for page in page_texts(path)]
    rows = [n for n in rows if n]
    assert sum(rows) == 43 and len(rows) == 2
    assert min(rows) >= 2, rows
