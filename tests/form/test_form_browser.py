"""The evidence form in a real browser: Debian's Chromium driven by Playwright.

A person fills the page field by field, saves, and `sdeval validate` reads the saved
file; the page's live findings are compared with the CLI's, word for word.
Skipped, with the reason, where no Chromium or no Playwright can be had.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from conftest import example

from evaluator.engine.wording import num

pytestmark = pytest.mark.browser

# The codes the page checks live; the CLI's findings of these codes must equal the page's.
LIVE_CODES = {"load-unstated", "baseline-missing", "counts-inconsistent"}


@pytest.fixture(scope="session")
def form_file(tmp_path_factory):
    from evaluator.form.page import render_form

    out = tmp_path_factory.mktemp("form") / "evidence-form.html"
    out.write_text(render_form(), encoding="utf-8")
    return out


@pytest.fixture
def page(browser, form_file):
    context = browser.new_context(accept_downloads=True, viewport={"width": 1366, "height": 768})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.goto(form_file.as_uri())
    pg.wait_for_function("window.sdevalForm !== undefined")
    yield pg
    context.close()
    assert errors == [], errors


# ------------------------------------------------------------------ helpers


def at(page, pointer: str):
    return page.locator(f'[data-pointer="{pointer}"]')


def settle(page):
    """Let the page's debounced check run."""
    page.wait_for_timeout(200)


def type_record(page, record: dict, skip: set[str] = frozenset()) -> None:
    """Fill the form the way a person would: one field at a time, adding list items with
    the page's own buttons, choosing runs and configurations from the pickers."""

    def control(pointer):
        loc = at(page, pointer)
        summary = page.locator(f'details:has([data-pointer="{pointer}"]):not([open]) > summary')
        for _ in range(summary.count()):
            summary.first.click()
        return loc

    def walk(value, pointer):
        if pointer in skip:
            return
        el = at(page, pointer)
        node = el.get_attribute("data-node")
        if node == "object":
            for key, sub in value.items():
                walk(sub, f"{pointer}/{key}")
        elif node == "list":
            for i, item in enumerate(value):
                if at(page, f"{pointer}/{i}").count() == 0:
                    el.locator(":scope > .add").click()
                walk(item, f"{pointer}/{i}")
        elif node in ("choices", "picks"):
            for v in value:
                control(pointer).locator(f'input[value="{v}"]').check()
        elif node == "numbers":
            control(pointer).fill(", ".join(json.dumps(v) for v in value))
        elif node == "lines":
            control(pointer).fill("\n".join(value))
        else:
            loc = control(pointer)
            tag = loc.evaluate("e => e.tagName")
            text = value if isinstance(value, str) else json.dumps(value)
            if tag == "SELECT":
                loc.select_option(text)
            elif loc.get_attribute("readonly") is not None:
                assert loc.input_value() == text  # the record version is printed, not typed
            else:
                loc.fill(text)

    walk(record, "")
    settle(page)


def save(page, tmp_path: Path, name="saved.json") -> Path:
    with page.expect_download() as download:
        page.get_by_role("button", name="Save record as JSON").click()
    target = tmp_path / name
    download.value.save_as(target)
    return target


def load(page, path: Path) -> None:
    page.set_input_files("#load-file", str(path))
    page.wait_for_function("document.getElementById('status').textContent.startsWith('Loaded')")
    settle(page)


def page_findings(page, codes=LIVE_CODES) -> set[tuple[str, str, str]]:
    return {(f["code"], f["path"], f["message"]) for f in page.evaluate("window.sdevalForm.findings()") if f["code"] in codes}


def cli_findings(sdeval, path: Path, codes=LIVE_CODES) -> set[tuple[str, str, str]]:
    doc = sdeval("validate", "--format", "json", path).json()
    return {(f["code"], f["path"], f["message"]) for f in doc["findings"] if f["code"] in codes}


def same_json(a, b) -> bool:
    """Equal, and of the same JSON types all the way down (2 is not 2.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return a == b


def offer_b() -> dict:
    """Offer B as a person types it: the form sets the record version (this release's), not the file's."""
    from evaluator.engine.record import RECORD_VERSION

    return {**json.loads(example("sd201-offer-b.json").read_text()), "record_version": RECORD_VERSION}


# -------------------------------------------------------------------- tests


def test_offer_b_typed_field_by_field_saves_a_record_sdeval_accepts(page, sdeval, tmp_path):
    record = offer_b()
    type_record(page, record)
    assert page.evaluate("window.sdevalForm.findings()") == []
    assert page.locator("#findings-summary").inner_text() == (
        "No problems found in the schema or the counts. The verdict needs sdeval: sdeval validate on the saved file checks every rule."
    )
    saved = save(page, tmp_path)
    assert saved.name == "saved.json"
    result = sdeval("validate", saved)
    assert result.exit_code == 0, result.stdout
    assert same_json(json.loads(saved.read_text()), record)


def test_offer_b_without_concurrency_shows_and_fails_with_load_unstated(page, sdeval, tmp_path):
    type_record(page, offer_b(), skip={"/claims/0/concurrency"})
    message = "the claimed 200 tokens/s states no concurrency or request rate"
    # Shown next to the field, with the code and the CLI's words...
    err = page.locator("#f-claims-0-concurrency-err")
    assert err.is_visible()
    assert err.inner_text().split(None, 1) == ["load-unstated", message]
    assert page.locator("#f-claims-0-concurrency").get_attribute("aria-invalid") == "true"
    assert page_findings(page) == {("load-unstated", "/claims/0/concurrency", message)}
    # ...and the saved record fails validate with the same finding.
    saved = save(page, tmp_path)
    result = sdeval("validate", "--format", "json", saved)
    assert result.exit_code == 1
    assert cli_findings(sdeval, saved) == {("load-unstated", "/claims/0/concurrency", message)}


def test_complete_offer_loaded_and_saved_unchanged_is_the_same_record(page, sdeval, tmp_path):
    original = yaml.safe_load(example("complete-offer.yaml").read_text())
    as_json = tmp_path / "complete-offer.json"
    as_json.write_text(json.dumps(original, indent=2))
    load(page, as_json)
    saved = save(page, tmp_path, "again.json")
    assert same_json(json.loads(saved.read_text()), original)
    assert sdeval("validate", "--format", "json", saved).json()["findings"] == [
        {**f, "file": str(saved)} for f in sdeval("validate", "--format", "json", as_json).json()["findings"]
    ]


# Evidence records only: the requirements profiles beside them are another format.
EXAMPLES = sorted(
    p.name
    for p in example("x").parent.iterdir()
    if p.suffix in (".json", ".yaml") and "record_version:" in p.read_text().replace('"record_version"', "record_version:")
)


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_loads_saves_unchanged_and_the_page_agrees_with_the_cli(page, sdeval, tmp_path, name):
    original = yaml.safe_load(example(name).read_text()) if name.endswith(".yaml") else json.loads(example(name).read_text())
    as_json = tmp_path / "in.json"
    as_json.write_text(json.dumps(original, indent=2))
    load(page, as_json)
    assert page_findings(page) == cli_findings(sdeval, as_json)
    saved = save(page, tmp_path, "out.json")
    assert same_json(json.loads(saved.read_text()), original)


def _broken_variants():
    def claim_load(r):
        del r["claims"][0]["concurrency"]

    def all_load(r):
        del r["claims"][0]["concurrency"]
        del r["runs"][0]["load"]["concurrency"]

    def e_off(r):
        r["runs"][0]["counts"]["emitted_tokens"] = 16

    def a_over_p(r):
        r["runs"][0]["counts"]["accepted_drafts"] = 25
        del r["runs"][0]["counts"]["accepted_per_position"]

    def histogram(r):
        r["runs"][0]["counts"]["accepted_length_histogram"] = [1, 1, 1, 1, 2]

    def speedup_no_baseline(r):
        r["claims"].append({"id": "c2", "text": "2x faster", "kind": "speedup", "value": 2.0, "unit": "x", "run": "offer-b", "concurrency": 1})

    def speedup_itself(r):
        speedup_no_baseline(r)
        r["claims"][1]["baseline"] = "offer-b"

    def big_claim(r):
        r["claims"][0]["value"] = 12345.678
        del r["claims"][0]["concurrency"]

    def relative_no_baseline(r):  # record 1.2: "40 % lower" quoted as written, and a change needs a baseline
        r["claims"].append({"id": "c2", "text": "40 % lower p50 TPOT", "kind": "latency", "relative": "lower", "value": 40, "unit": "%",
                            "latency_metric": "tpot", "percentile": "p50", "run": "offer-b"})  # fmt: skip

    def cost_at_matched_interactivity(r):  # stated at a per-user speed: no load asked of the claim
        r["claims"].append({"id": "c2", "text": "57 % cheaper", "kind": "cost", "relative": "lower", "value": 57, "unit": "%",
                            "at_per_user_speed": 50, "run": "offer-b", "price": {"currency": "USD", "per_accelerator_hour": 2}})  # fmt: skip

    return [
        claim_load,
        all_load,
        e_off,
        a_over_p,
        histogram,
        speedup_no_baseline,
        speedup_itself,
        big_claim,
        relative_no_baseline,
        cost_at_matched_interactivity,
    ]


@pytest.mark.parametrize("breakage", _broken_variants(), ids=lambda f: f.__name__)
def test_live_findings_are_word_for_word_the_clis(page, sdeval, tmp_path, breakage):
    record = offer_b()
    breakage(record)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(record, indent=2))
    expected = cli_findings(sdeval, path)
    assert expected, "the variant must break a rule the page checks"
    load(page, path)
    assert page_findings(page) == expected


def test_counting_identities_are_checked_as_numbers_are_typed(page):
    type_record(page, offer_b())
    field = at(page, "/runs/0/counts/emitted_tokens")
    field.fill("16")
    settle(page)
    err = page.locator("#f-runs-0-counts-emitted_tokens-err")
    assert err.inner_text().split(None, 1) == ["counts-inconsistent", "run offer-b: emitted tokens E = 16 but A + B = 10 + 5 = 15"]
    field.fill("15")
    settle(page)
    assert not err.is_visible()
    at(page, "/runs/0/counts/accepted_drafts").fill("21")
    settle(page)
    assert page.locator("#f-runs-0-counts-accepted_drafts-err").inner_text().split(None, 1) == [
        "counts-inconsistent",
        "run offer-b: accepted drafts A = 21 exceed proposed drafts P = 20",
    ]


def test_schema_errors_show_next_to_the_field(page):
    type_record(page, offer_b())
    at(page, "/runs/0/counts/verification_steps").fill("5.0")
    at(page, "/offer/date").fill("20 Oct 2026")
    settle(page)
    assert "must be a whole number" in page.locator("#f-runs-0-counts-verification_steps-err").inner_text()
    assert page.locator("#f-offer-date-err").inner_text().startswith("schema")


def test_the_pages_number_formatting_is_the_clis(page):
    cases = [
        (200.0, "tokens/s"),
        (0.7, ""),
        (2.19, "x"),
        (1.0, "x"),
        (0.07751937984496124, ""),
        (999.99999, ""),
        (1234.5, "tokens/s"),
        (12345.678, ""),
        (2226.0, "tokens/s"),
        (-0.5, ""),
        (None, "x"),
        (2.1927110455608543, "x"),
        (1.9003510272046085, "x"),
        (0.984402843323477, "x"),
        (84.2001, "tokens/s"),
        (2225.9974638829763, "tokens/s"),
        (99.96, ""),
        (100.5, ""),
        (0.125, ""),
        (1e-7, ""),
        (1.5e-7, ""),
        (0.1 + 0.2, ""),
        (-0.0001, ""),
        (0.0, ""),
        (1e20, ""),
    ]
    got = page.evaluate("cases => cases.map(([v, u]) => window.sdevalForm.num(v, u, false))", [list(c) for c in cases])
    assert got == [num(v, u) for v, u in cases]
    ints = [0, 7, 9999, 10000, 123456789]
    assert page.evaluate("xs => xs.map(x => window.sdevalForm.num(x, '', true))", ints) == [num(i) for i in ints]


def test_the_catalog_in_the_running_page_is_the_registry(page, sdeval):
    assert page.evaluate("window.sdevalForm.catalog") == sdeval("rules", "--format", "json").json()


def test_what_was_typed_survives_a_reload_until_saved(page, tmp_path):
    at(page, "/offer/vendor").fill("Acme Inference Ltd")
    settle(page)
    page.reload()
    page.wait_for_function("window.sdevalForm !== undefined")
    assert at(page, "/offer/vendor").input_value() == "Acme Inference Ltd"
    assert "Restored what you typed earlier" in page.locator("#status").inner_text()
    save(page, tmp_path)
    page.reload()
    page.wait_for_function("window.sdevalForm !== undefined")
    assert at(page, "/offer/vendor").input_value() == ""


def test_runs_can_be_added_duplicated_and_removed_and_claims_pick_them(page):
    type_record(page, offer_b())
    run = at(page, "/runs/0")
    run.get_by_role("button", name="Duplicate run 1 (offer-b)").click()
    settle(page)
    assert at(page, "/runs/1/id").input_value() == "offer-b-copy"
    assert at(page, "/runs/1/counts/emitted_tokens").input_value() == "15"
    options = at(page, "/claims/0/baseline").locator("option").all_inner_texts()
    assert options == ["— none —", "offer-b", "offer-b-copy"]
    at(page, "/runs/1").get_by_role("button", name="Remove run 2 (offer-b-copy)").click()
    settle(page)
    assert at(page, "/runs/1").count() == 0
    assert at(page, "/claims/0/baseline").locator("option").all_inner_texts() == ["— none —", "offer-b"]


def test_every_control_has_a_label_and_the_keyboard_reaches_it(page):
    unlabelled = page.evaluate("""() => Array.from(document.querySelectorAll('input, select, textarea'))
        .filter(e => e.type !== 'hidden' && e.labels.length === 0).map(e => e.outerHTML.slice(0, 120))""")
    assert unlabelled == []
    # From the page's top, Tab reaches the file loader, then Save, then the form's fields in order.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to the list of problems"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "load-file"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "save"
    # Adding a run with the keyboard puts the cursor in the new run's first field.
    add = page.get_by_role("button", name="Add run")
    add.focus()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.dataset.pointer") == "/runs/1/id"


@pytest.mark.parametrize("name", ["specforge-specbundle-up-to-4x.yaml", "medusa-readme-2.2-3.6x.yaml", "inferencex-agentx-synthetic-acceptance.yaml"])
def test_a_claim_stated_as_a_bound_a_range_or_no_figure_reads_the_same_on_the_page(page, sdeval, tmp_path, name):
    # "up to 4x", "2.2-3.6x", and a claim with no figure: the page words them as the CLI does.
    original = yaml.safe_load(example("public-claims/" + name).read_text())
    as_json = tmp_path / "in.json"
    as_json.write_text(json.dumps(original, indent=2))
    load(page, as_json)
    found = page_findings(page)
    assert found and found == cli_findings(sdeval, as_json)


# ------------------------------------------------------------- what a person sees as they fill it


def visible_errors(page) -> list[str]:
    return page.evaluate("() => Array.from(document.querySelectorAll('#record .err')).filter(e => !e.hidden).map(e => e.id)")


def test_a_blank_form_is_not_a_page_of_red_until_fields_are_touched_or_saved(page, tmp_path):
    assert visible_errors(page) == []
    assert page.locator("#findings-list li").count() == 0
    waiting = len(page.evaluate("window.sdevalForm.findings()"))
    assert waiting > 10  # the blank record is far from valid...
    assert page.locator("#findings-summary").inner_text() == (
        f"{waiting} fields are still to fill in or fix: shown as you reach them, and all at once when you save."
    )
    # ...but only a field the person has been in shows its problem.
    date = at(page, "/offer/date")
    date.fill("20 Oct 2026")
    date.press("Tab")
    settle(page)
    assert visible_errors(page) == ["f-offer-date-err"]
    assert page.locator("#f-offer-date-err").inner_text().split(None, 1) == ["schema", 'must be a date written YYYY-MM-DD (got "20 Oct 2026")']
    # The problems list names the field as the page labels it, and links to it.
    item = page.locator("#findings-list li a")
    assert item.count() == 1
    assert item.inner_text() == 'Offer › Date: must be a date written YYYY-MM-DD (got "20 Oct 2026")'
    assert item.get_attribute("href") == "#f-offer-date"
    at(page, "/offer/vendor").focus()
    item.click()
    assert page.evaluate("document.activeElement.id") == "f-offer-date"
    # Saving shows every problem.
    save(page, tmp_path)
    settle(page)
    assert len(visible_errors(page)) > 5
    assert page.locator("#findings-list li").count() == len(page.evaluate("window.sdevalForm.findings()"))


def test_problems_in_a_list_item_are_named_by_the_item(page, tmp_path):
    record = offer_b()
    record["runs"][0]["counts"]["emitted_tokens"] = "fifteen"
    path = tmp_path / "words.json"
    path.write_text(json.dumps(record))
    load(page, path)
    texts = page.locator("#findings-list li a").all_inner_texts()
    assert 'Run 1: offer-b › Counts › Emitted tokens (E): must be a whole number (got "fifteen")' in texts


def test_a_yaml_record_loads_and_saves_as_the_same_record(page, sdeval, tmp_path):
    load(page, example("complete-offer.yaml"))
    assert page.locator("#status").inner_text() == "Loaded complete-offer.yaml."
    saved = save(page, tmp_path, "from-yaml.json")
    assert same_json(json.loads(saved.read_text()), yaml.safe_load(example("complete-offer.yaml").read_text()))
    # YAML 1.2 core scalars as the CLI reads them: "no" is text, and a number keeps its digits.
    page.evaluate("t => window.sdevalForm.loadYaml(t)", "record_version: '1.0'\noffer:\n  vendor: no\n  offer_id: 1.90\n")
    assert json.loads(page.evaluate("window.sdevalForm.collect()"))["offer"] == {"vendor": "no", "offer_id": 1.90}
    assert '"offer_id": 1.90' in page.evaluate("window.sdevalForm.collect()")


def test_a_misspelt_field_gets_the_clis_did_you_mean(page, sdeval, tmp_path):
    record = offer_b()
    record["runs"][0]["arangement"] = record["runs"][0].pop("arrangement")
    path = tmp_path / "misspelt.json"
    path.write_text(json.dumps(record, indent=2))
    load(page, path)
    schema = {(f["path"], f["message"]) for f in page.evaluate("window.sdevalForm.findings()") if f["code"] == "schema"}
    cli = {(f["path"], f["message"]) for f in sdeval("validate", "-f", "json", path).json()["findings"] if f["code"] == "schema"}
    assert schema == cli == {("/runs/0/arangement", 'unknown field "arangement": did you mean "arrangement"? (arrangement is required, and missing)')}


def test_strings_from_the_record_sit_in_their_own_bidi_isolate(page, tmp_path):
    """An override left open in a loaded record's string ends at that string (FSI ... PDI, as in
    the PDF), so it cannot reorder the page's own words after it; plain text is left as it is."""
    record = offer_b()
    record["offer"]["\u05d4x\u202e"] = "\u202eevil"
    record["offer"]["plain"] = "text"
    path = tmp_path / "rtl.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    load(page, path)
    shown = page.locator(".extras code").all_text_contents()
    assert '\u2068\u05d4x\u202e\u2069: \u2068"\u202eevil"\u2069' in shown
    assert 'plain: "text"' in shown


def test_an_emails_claims_are_typed_with_no_run_and_saved_as_no_evidence_attached(page, sdeval, tmp_path):
    # The blank form starts with one configuration and one run: a buyer with only an e-mail removes them.
    for section in ("/configurations", "/runs"):
        at(page, f"{section}/0").locator(':scope > .item-actions button[data-action="remove"]').click()
    record = {
        "record_version": "1.1",
        "offer": {"vendor": "Example Vendor", "offer_id": "EM-2", "claim_text": "3x faster, said the e-mail."},
        "configurations": [],
        "runs": [],
        "claims": [{"id": "three-x", "kind": "speedup", "text": "3x faster", "value": 3, "unit": "x", "concurrency": 8}],
    }
    type_record(page, record)
    saved = save(page, tmp_path)
    assert same_json(json.loads(saved.read_text()), record)
    doc = sdeval("assess", "--format", "json", saved).json()
    assert [(f["code"], f["path"]) for f in doc["findings"]] == [("evidence-missing", "/claims/0/run")]
    assert doc["files"][0]["claims"][0]["verdict"] == "not-established"
