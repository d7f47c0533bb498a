"""sdeval render OFFER... --requirements REQ: the requirements x offers table, the ranking, the
chart of every offer and baseline, the attached profile, and verify re-judging it.

Each report is rendered once per module (about a second each) and copied for tampering.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import xml.etree.ElementTree as ET

import pytest
from conftest import example, invoke
from support.pdf_helpers import attachments, page_texts, poppler, swap_attachment

pytestmark = pytest.mark.pdf

COMPLETE, QUIET = example("complete-offer.yaml"), example("quiet-load-offer.yaml")
SD201_A, SD201_B = example("sd201-offer-a.json"), example("sd201-offer-b.json")
REQ, REQ_SD201 = example("requirements.yaml"), example("requirements-sd201.yaml")
REQ_COST = example("requirements-cost.yaml")
SVG = "{http://www.w3.org/2000/svg}"
# The pages name offers by vendor and offer id; the paths typed stay in the manifest.
NAME_COMPLETE, NAME_QUIET = "Acme Inference Ltd, ACME-SD-2026-114", "Quietline AI GmbH, QL-2026-031"
NAME_A, NAME_B = "SD-201 Offer A (fictional), SD-201-A", "SD-201 Offer B (fictional), SD-201-B"


def rel(path) -> str:
    """The path as a user in the repository types it; the report names files that way."""
    return f"examples/{path.name}"


@pytest.fixture(scope="module")
def two_offers(work, cli, identity, monkeypatch_module):
    key, cert = identity
    out = cli("render", rel(COMPLETE), rel(QUIET), "--requirements", rel(REQ), "-o", work / "two.pdf", "--key", key, "--cert", cert)
    # No offer meets every requirement: the same exit status as `sdeval assess --requirements`.
    assert out.exit_code == 1, out.stderr
    assert "signed by sdeval trial assessor" in out.stderr
    return work / "two.pdf"


@pytest.fixture(scope="module")
def sd201(work, cli, monkeypatch_module):
    out = cli("render", rel(SD201_A), rel(SD201_B), "-r", rel(REQ_SD201), "-o", work / "sd201.pdf")
    assert out.exit_code == 0, out.stderr  # offer B meets every requirement
    return work / "sd201.pdf"


@pytest.fixture(scope="module")
def priced(work, cli, monkeypatch_module):
    out = cli("render", rel(COMPLETE), rel(QUIET), "-r", rel(REQ_COST), "-o", work / "priced.pdf")
    assert out.exit_code == 0, out.stderr  # complete-offer meets every requirement of the cost profile
    return work / "priced.pdf"


@pytest.fixture(scope="module")
def monkeypatch_module():
    """Run from the repository root so files are named examples/... as a user would give them."""
    mp = pytest.MonkeyPatch()
    mp.chdir(COMPLETE.parent.parent)
    yield mp
    mp.undo()


def words(text: str) -> str:
    return " ".join(text.split())


def requirements_page(path) -> tuple[list[str], str]:
    pages = page_texts(path)
    return pages, next(p for p in pages if re.search(r"^\s*Buyer requirements\s*$", p, re.M))


def cells(page: str, requirement: str) -> list[str]:
    """The status words in a requirement's table row (pdftotext -layout keeps a row on one line)."""
    line = next(l for l in page.splitlines() if l.strip().startswith(requirement + " ") or l.strip() == requirement)
    return re.findall(r"(✓ met|✗ NOT MET|\? NOT ESTABLISHED)", line)


# ----------------------------------------------------------------------------- content


def test_table_gives_every_requirement_for_both_offers_with_codes(two_offers):
    _, page = requirements_page(two_offers)
    header = page.split("latency-e2e-p99")[0]
    # Offers by name, wrapping inside their column rather than widening the table past the page.
    assert re.search(r"Requirement\s+Acme Inference Ltd, ACME-\s+Quietline AI GmbH,\s*\n\s+SD-2026-114\s+QL-2026-031", header)
    assert "examples/" not in page
    assert cells(page, "latency-e2e-p99") == ["? NOT ESTABLISHED"] * 2
    assert cells(page, "latency-ttft-p99") == ["? NOT ESTABLISHED"] * 2
    assert cells(page, "throughput-aggregate") == ["? NOT ESTABLISHED"] * 2
    for met in ("quality-1", "task", "sampling", "scope", "identity", "lossless-acceptance"):
        assert cells(page, met) == ["✓ met"] * 2, met
    rows = page.split("throughput-aggregate")[1].split("quality-1")[0]
    # complete-offer: undecided at 32 (553 vs 2,226 tokens/s) and no run in its K = 1 band; quiet-load: measured at 1 and 8 only.
    assert re.search(r"requirement-between-loads\s+requirement-load-uncovered\s*\n.*requirement-load-uncovered", rows)
    assert "6 met, 0 not met, 3 not" in page
    pages = page_texts(two_offers)
    assert "requirement-load-uncovered No run at, or on both sides of, a load the buyer will run" in words("".join(pages[1:3]))


def test_ranking_statements_are_the_comparisons_verbatim(two_offers, sdeval):
    pages, page = requirements_page(two_offers)
    statements = sdeval("assess", COMPLETE, QUIET, "-r", REQ, "-f", "json").json()["requirements"]["ranking"]["statements"]
    assert statements == [
        "No offer meets every requirement.",
        f"{NAME_COMPLETE} and {NAME_QUIET} tie at rank 1: each meets 6 of 9 requirements.",
    ]
    text = words("".join(pages[1:3]))
    assert "No offer meets every requirement." in text
    assert f"{NAME_COMPLETE} and {NAME_QUIET} tie at rank 1: each meets 6 of 9 requirements." in text
    # A tie shares its rank number: both lines start "1.", neither "2.".
    assert re.findall(r"^\s*(\d)\. (?:Acme|Quietline)", page, re.M) == ["1", "1"]
    # On the cover the buyer's answer is the headline, said once; the evidence outcome follows it.
    cover = words(pages[0])
    assert (
        "AGAINST THE BUYER'S REQUIREMENTS (NORTHWIND SUPPORT DESK, NW-RFP-2026-07) NO OFFER MEETS EVERY REQUIREMENT "
        f"{NAME_COMPLETE} and {NAME_QUIET} tie at rank 1: each meets 6 of 9 requirements. "
        "Evidence behind the claims: ESTABLISHED." in cover
    )
    assert "No offer meets every requirement." not in cover


def reading_order(path) -> str:
    """The text in reading order (no -layout), so a table cell's wrapped lines stay together."""
    out = poppler("pdftotext", str(path), "-")
    assert out.returncode == 0, out.stderr
    return words(out.stdout)


def test_break_even_per_offer_and_one_chart_of_every_offer_and_baseline(two_offers):
    text = reading_order(two_offers)
    # The break-even as the bracket of measured points, the interpolated estimate beside it, labelled.
    assert "speculation stops paying between measured concurrency 64 (1.31x) and 256 (0.984x) (estimate: 246.7, interpolated)" in text
    assert "the estimate beside it is interpolated linearly between them, is not a measurement, and decides nothing." in text
    assert "not reached in the measured range (concurrency 1 to 8; speedup above 1 throughout)" in text
    assert "Output throughput by concurrency: every offer and its baseline" in text
    assert "concurrent requests (closed loop, log scale)" in text
    for label in (f"{NAME_COMPLETE}: baseline (target-only)", f"{NAME_QUIET}: baseline (target-only)"):
        assert label in text
    assert "examples/" not in text.split("sdeval-report.json")[-1]  # no path typed on any page after the cover


def test_chart_draws_each_line_in_its_own_grey_print_style():
    from evaluator.buyer.judge import compare
    from evaluator.buyer.profile import load_requirements
    from evaluator.engine.loader import load_file
    from evaluator.present.buyer_pages import chart_data, fit_context
    from evaluator.rules import lookup
    from evaluator.rules.assess import assess

    results = [assess(load_file(str(p))) for p in (COMPLETE, QUIET, SD201_A, SD201_B)]
    profile, _ = load_requirements(str(REQ))
    c = compare(profile, results, "req.yaml")
    root = ET.fromstring(str(fit_context(c, lookup)["chart"]))
    lines = list(root.iter(f"{SVG}polyline"))
    expected = [l for l in chart_data(c)["lines"] if l["points"]]
    assert len(lines) == len(expected) == 6  # two offers with baselines, two SD-201 offers without
    styles = [(l.get("stroke-dasharray"), l.get("stroke")) for l in lines]
    assert len(set(styles)) == len(styles)  # no two lines look alike without colour
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert f"{NAME_A} (not established)" in texts  # and drawn in grey
    assert lines[[l["offer"] for l in expected].index(str(SD201_A))].get("stroke") == "#888"
    assert "output tokens/s (E / T, log scale)" in texts and "concurrent requests (closed loop, log scale)" in texts


def test_cost_section_gives_the_cheapest_within_the_limits_and_the_frontier(priced, sdeval):
    text = reading_order(priced)
    doc = sdeval("assess", rel(COMPLETE), rel(QUIET), "-r", rel(REQ_COST), "-f", "json").json()["requirements"]["economics"]
    complete = doc["offers"][0]
    assert "Cost per million output tokens within your limits" in text
    assert "2.4 USD per accelerator-hour (source: Northwind's reserved H100 SXM5 rate, 2026 budget (illustrative))" in text
    assert ("Cheapest within your limits: 1.20 USD per million output tokens (eagle3-dynamic-k at concurrency 64, run eagle3-c64).") in text
    assert (
        f"Baseline's cheapest within your limits: {complete['baseline_cheapest']['text']}; "
        "no cost ratio: the baseline has no cost within your limits."
    ) in text
    assert complete["frontiers"][0]["text"] + "." in text.replace("/ ", "/")  # a line may break after "tokens/"
    assert text.count("Throughput per accelerator against tokens/s per user") == 2  # one chart per offer
    assert "1000 / your p99 TPOT limit of 40 ms = 25 tokens/s" in text
    # The cost table (pdftotext -layout keeps a row's first line on one line): the cheapest row,
    # a load not measured (its bounds from the measured loads around it, the estimates labelled), and
    # a load outside the limits with why.
    layout = "\n".join(page_texts(priced))
    rows = [words(line) for line in layout.splitlines() if line.strip().startswith("eagle3-dynamic-k ")]
    assert rows[:5] == [
        # One number of decimals per column (tokens/s per accelerator whole, per user to 0.1), costs in cents.
        "eagle3-dynamic-k 1 eagle3-c1 21 84.2 31.67 ✓ within",
        "eagle3-dynamic-k 8 eagle3-c8 138 69.1 4.82 ✓ within",
        "eagle3-dynamic-k 32 eagle3-c8 – at least 138 at least 34.8 at most 4.82 ✓ within",
        "eagle3-dynamic-k 64 eagle3-c64 556 34.8 1.20 ✓ within",
        "eagle3-dynamic-k 256 eagle3-c256 963 15.0 0.69 ✗ NOT within",
    ]
    assert re.search(r"1\.20 +✓ within\n\s+offered +cheapest\n", layout)
    assert re.search(
        r"\n\s+offered +not +eagle3-c64 +estimate: +estimate: +estimate:\n\s+measured: +318 +39\.7 +2\.10\n\s+between\n\s+8 and 64\n", layout
    )
    assert (
        'A load not measured is judged on the measured loads around it: "at least" and "at most" give the worse of their two measured'
        " figures; each estimate is interpolated linearly between them, is not a measurement, and decides nothing."
    ) in text


def test_without_a_price_the_section_gives_throughput_and_the_finding(two_offers):
    text = reading_order(two_offers)
    assert "Throughput per accelerator and per user" in text
    assert "cost-basis-missing no cost per million output tokens: the profile states no price" in text
    assert "Cheapest within your limits" not in text and "USD" not in text


def test_sd201_offer_b_meets_the_requirement_and_offer_a_is_not_established(sd201):
    pages, page = requirements_page(sd201)
    assert cells(page, "throughput-per-request") == ["? NOT ESTABLISHED", "✓ met"]
    row = page.split("throughput-per-request")[1].split("scope")[0]
    assert "throughput-basis" in row
    assert f"Only {NAME_B} meets every requirement." in words(page)
    assert (
        f"1 OF 2 OFFERS MEET EVERY REQUIREMENT Only {NAME_B} meets every requirement. "
        f"{NAME_A}: its evidence is not established, so it ranks below every offer whose evidence is." in words(pages[0])
    )


def test_annex_stays_last_on_its_own_page_without_figures(two_offers):
    last = page_texts(two_offers)[-1]
    assert re.match(r"\s*(UNSIGNED DRAFT\s*)?Separate equipment installation scope", last)
    assert "tokens/s" not in last and "Buyer requirements" not in last


# ----------------------------------------------------------------------------- attachments


def test_profile_is_attached_byte_for_byte_and_hashed_on_the_cover(two_offers, sdeval):
    listing = poppler("pdfdetach", "-list", str(two_offers))
    assert listing.returncode == 0, listing.stderr
    assert sorted(re.findall(r"^\d+: (.+)$", listing.stdout, re.M)) == [
        "assessment.json",
        "complete-offer.yaml",
        "quiet-load-offer.yaml",
        "requirements.yaml",
        "sdeval-report.json",
    ]
    data = two_offers.read_bytes()
    attached = attachments(data)
    assert attached["requirements.yaml"] == [REQ.read_bytes()]
    manifest = json.loads(attached["sdeval-report.json"][0])
    assert [(i["attachment"], i["file"], i["role"]) for i in manifest["inputs"]] == [
        ("complete-offer.yaml", "complete-offer.yaml", "evidence record"),
        ("quiet-load-offer.yaml", "quiet-load-offer.yaml", "evidence record"),
        ("requirements.yaml", "requirements.yaml", "requirements profile"),
    ]
    sha = hashlib.sha256(REQ.read_bytes()).hexdigest()
    assert sha in page_texts(two_offers)[0]
    # The embedded assessment is exactly what `sdeval assess --requirements -f json` prints.
    # (From the folder that holds them: a report names its inputs by file name alone.)
    cwd = os.getcwd()
    os.chdir(REQ.parent)
    try:
        printed = sdeval("assess", COMPLETE.name, QUIET.name, "--requirements", REQ.name, "-f", "json").stdout
    finally:
        os.chdir(cwd)
    assert attached["assessment.json"] == [printed.encode()]
    assert json.loads(printed)["requirements"]["profile"]["sha256"] == sha


# ----------------------------------------------------------------------------- verify


def test_verify_re_judges_the_attached_profile(two_offers, cli, identity):
    out = cli("verify", two_offers, "--trust", identity[1])
    assert out.exit_code == 0, out.stdout
    assert "reproduction  PASS: re-assessing 2 inputs against requirements requirements.yaml with sdeval" in out.stdout
    assert "attachments   PASS: 5 files" in out.stdout


def test_a_changed_profile_fails_verify_naming_the_changed_cells(two_offers, cli, work):
    changed = REQ.read_bytes().replace(b"temperature: 0.7", b"temperature: 0.0")
    assert changed != REQ.read_bytes()
    forged = work / "changed-profile.pdf"
    forged.write_bytes(swap_attachment(two_offers.read_bytes(), "requirements.yaml", changed))
    out = cli("verify", forged)
    assert out.exit_code == 1
    assert "signature     FAIL" in out.stdout
    assert re.search(r"attachments   FAIL: requirements.yaml: SHA-256 \w+ differs from the manifest's", out.stdout)
    assert "reproduction  FAIL" in out.stdout
    old_sha, new_sha = (hashlib.sha256(b).hexdigest() for b in (REQ.read_bytes(), changed))
    assert f"requirements profile sha256: {old_sha} -> {new_sha}" in out.stdout
    assert "requirement sampling, offer complete-offer.yaml: met -> not-met [sampling-mismatch]" in out.stdout
    assert "requirement sampling, offer quiet-load-offer.yaml: met -> not-met [sampling-mismatch]" in out.stdout


def test_an_edited_requirements_section_fails_reproduction(two_offers, cli, work):
    data = two_offers.read_bytes()
    doc = json.loads(attachments(data)["assessment.json"][0])
    doc["requirements"]["matrix"]["task"]["quiet-load-offer.yaml"] = {"status": "not-met", "codes": ["task-mismatch"]}
    forged = work / "edited-section.pdf"
    forged.write_bytes(swap_attachment(data, "assessment.json", json.dumps(doc).encode()))
    out = cli("verify", forged)
    assert out.exit_code == 1
    assert "requirement task, offer quiet-load-offer.yaml: not-met [task-mismatch] -> met" in out.stdout


# ----------------------------------------------------------------------------- bad input


def test_an_unusable_profile_stops_render_with_one_line_and_writes_nothing(cli, work, monkeypatch_module):
    bad = work / "bad-req.yaml"
    bad.write_text('requirements_version: "1.0"\nbuyer: {name: x}\nthroughput: {aggregate_tokens_per_s: 5}\n')
    target = work / "never.pdf"
    out = cli("render", rel(COMPLETE), "-r", bad, "-o", target)
    assert out.exit_code == 2
    assert out.stderr == (
        f"sdeval: {bad}:1:1: latency or throughput requirements need at least one load (loads.concurrency, concurrency_bands or request_rates)\n"
    )
    out = cli("render", rel(COMPLETE), "-r", work / "missing.yaml", "-o", target)
    assert (out.exit_code, out.stderr) == (2, f"sdeval: {work / 'missing.yaml'}: no such file\n")
    assert not target.exists()
    out = cli("render", rel(COMPLETE), "-r", rel(REQ), "-o", rel(REQ), "--force")
    assert (out.exit_code, out.stderr) == (2, "sdeval: examples/requirements.yaml: is one of the input files\n")


def test_the_profile_can_come_from_standard_input(work, monkeypatch_module):

    target = work / "stdin.pdf"
    out = invoke("render", rel(SD201_A), rel(SD201_B), "-r", "-", "-o", str(target), input=REQ_SD201.read_bytes())
    assert out.exit_code == 0, out.stderr
    manifest = json.loads(attachments(target.read_bytes())["sdeval-report.json"][0])
    assert manifest["inputs"][-1] == {
        "attachment": "stdin",
        "file": "<stdin>",
        "role": "requirements profile",
        "sha256": hashlib.sha256(REQ_SD201.read_bytes()).hexdigest(),
    }
    assert attachments(target.read_bytes())["stdin"] == [REQ_SD201.read_bytes()]
