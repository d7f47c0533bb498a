"""`sdeval serve`: the form served on 127.0.0.1 and assessed by sdeval itself.

The real `sdeval serve` process is started as a user starts it (the console script, port 0) and
stopped at the end. Over HTTP: only loopback, only with the printed token, only at the Host it
listens on. In Debian's Chromium: every shipped example and public-claims record loaded into the
page gets exactly the findings, verdicts and asks that `sdeval assess --format json` gives the
same record; with a profile, the page shows the text `assess -r` prints.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLES, example
from support.served_form import SDEVAL, Server
from support.served_form import open_page as _open
from support.served_form import settled as _settled
from support.served_form import until as _until

httpx = pytest.importorskip("httpx")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    server = Server(cwd=tmp_path_factory.mktemp("serve"))
    yield server
    server.stop()


def _assess_json(sdeval, path: Path, *args) -> dict:
    return sdeval("assess", "--format", "json", path, *args).json()


def _listening_addresses(port: int) -> set[str]:
    """Local addresses of sockets listening on `port`, read from the kernel's tables."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if int(hex_port, 16) == port and state == "0A":  # LISTEN
                found.add(address)
    return found


# ------------------------------------------------------------------ HTTP


def test_it_listens_on_loopback_only(served):
    assert _listening_addresses(served.port) == {"0100007F"}  # 127.0.0.1, nothing else


def test_the_page_and_assessing_need_the_printed_token(served):
    assert httpx.get(served.url).status_code == 200
    assert httpx.get(served.base + "/").status_code == 403
    assert httpx.get(served.base + "/?token=" + "x" * len(served.token)).status_code == 403
    body = example("sd201-offer-a.json").read_bytes()
    assert served.assess(body, **{"X-Sdeval-Token": "wrong"}).status_code == 403
    assert httpx.post(f"{served.base}/assess", content=body).status_code == 403
    # DNS rebinding: a page from another site reaching this port under its own name.
    assert served.assess(body, Host=f"attacker.example:{served.port}").status_code == 403
    assert httpx.get(served.url, headers={"Host": f"attacker.example:{served.port}"}).status_code == 403


def test_the_page_is_never_cached_framed_or_referred(served):
    headers = httpx.get(served.url).headers
    assert headers["cache-control"] == "no-store"
    assert headers["referrer-policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert "connect-src 'self'" in headers["content-security-policy"]


def test_a_cross_origin_preflight_is_not_granted(served):
    answer = httpx.options(
        f"{served.base}/assess",
        headers={"Origin": "https://attacker.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "x-sdeval-token"},
    )
    assert "access-control-allow-origin" not in answer.headers


def test_the_answer_is_assess_json_for_the_same_bytes(served, sdeval, tmp_path):
    body = example("sd201-offer-a.json").read_bytes()
    (tmp_path / "form.json").write_bytes(body)
    answer = served.assess(body).json()
    cli = sdeval("assess", "--format", "json", tmp_path / "form.json")
    expected = cli.json()
    for f in expected["findings"]:
        f["file"] = "form.json"
    expected["files"][0]["file"] = "form.json"
    assert answer["document"] == expected
    assert answer["exit"] == cli.exit_code == 1
    assert answer["reason"] == "exit 1: form.json has 1 error finding"


def test_a_record_over_the_size_limit_is_refused_in_one_line(served):
    from evaluator.engine.loader import DEFAULT_MAX_BYTES

    answer = served.assess(b" " * (DEFAULT_MAX_BYTES + 1))
    assert answer.status_code == 413
    assert answer.json() == {"error": f"the record is over {DEFAULT_MAX_BYTES} bytes"}


def test_bad_start_arguments_are_one_line_errors(tmp_path):
    tool_output = tmp_path / "bench.json"
    tool_output.write_text(json.dumps({"date": "20260101-000000", "backend": "vllm", "num_prompts": 10, "completed": 10, "duration": 1.0}))
    cases = [
        (["serve", str(tmp_path / "missing.json")], f"{tmp_path / 'missing.json'}: "),
        (
            ["serve", "-r", str(example("sd201-offer-a.json"))],
            f"sdeval: {example('sd201-offer-a.json')}: is an evidence record, not a requirements profile",
        ),
        (["serve", "--port", "70000"], "sdeval: --port 70000: give a port from 1 to 65535, or 0 for a free one"),
    ]
    for args, start in cases:
        done = subprocess.run([SDEVAL, *args], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done
        assert done.stdout == ""
        assert len(done.stderr.splitlines()) == 1, done.stderr
        assert start in done.stderr, done.stderr


def test_a_port_in_use_is_a_one_line_error(served):
    done = subprocess.run([SDEVAL, "serve", "--port", str(served.port)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith(f"sdeval: --port {served.port}: cannot listen on 127.0.0.1 (")
    assert len(done.stderr.splitlines()) == 1


def test_ctrl_c_stops_it_quietly(tmp_path):
    server = Server(cwd=tmp_path)
    err = server.stop()
    assert server.proc.returncode == 130  # Ctrl-C, as every sdeval command exits on it
    assert err == "sdeval serve: open the address above in your browser; Ctrl-C stops the server\nsdeval serve: stopped\n"
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.url, timeout=2)


# --------------------------------------------------------------- Chromium

# Evidence records: the shipped examples and the transcribed public claims (profiles are not records).
RECORDS = sorted(
    str(p.relative_to(EXAMPLES))
    for p in [*EXAMPLES.glob("*.*"), *(EXAMPLES / "public-claims").glob("*.*")]
    if p.suffix in (".json", ".yaml") and "record_version" in p.read_text()
)


def _load(page, path: Path) -> None:
    """As a person loads a file: through the page's file input."""
    page.set_input_files("#load-file", str(path))
    _until(page, "document.getElementById('status').textContent.startsWith('Loaded')")


def _as_json(name: str, tmp_path: Path) -> Path:
    """The record as JSON (the page's file input takes either; JSON keeps the comparison to one parser)."""
    path = example(name)
    data = yaml.safe_load(path.read_text()) if path.suffix == ".yaml" else json.loads(path.read_text())
    out = tmp_path / "in.json"
    out.write_text(json.dumps(data, indent=2))
    return out


@pytest.mark.browser
@pytest.mark.parametrize("name", RECORDS)
def test_the_served_pages_findings_verdicts_and_asks_are_assess_json(browser, served, sdeval, tmp_path, name):
    context, page, errors = _open(browser, served.url)
    try:
        given = _as_json(name, tmp_path)
        _load(page, given)
        verdict = _settled(page)
        expected = _assess_json(sdeval, given)
        shown = {(f["code"], f["severity"], f["path"], f["message"]) for f in page.evaluate("window.sdevalForm.findings()")}
        assert shown == {(f["code"], f["severity"], f["path"], f["message"]) for f in expected["findings"]}
        got, want = verdict["document"]["files"][0], expected["files"][0]
        assert [(c["id"], c["verdict"], c["unfavourable"]) for c in got["claims"]] == [
            (c["id"], c["verdict"], c["unfavourable"]) for c in want["claims"]
        ]
        assert got["asks"] == want["asks"]
        assert got["outcome"] == want["outcome"]
        # What the person sees: every finding listed, and the asks as the CLI words them.
        assert page.locator("#findings-list li").count() == len([f for f in expected["findings"]])
        assert page.locator("#verdict-asks li").all_inner_texts() == [f"{a['text']} ({a['code']})" for a in want["asks"]]
    finally:
        context.close()
    assert errors == []


@pytest.mark.browser
def test_typing_changes_the_verdict_live(browser, served, tmp_path):
    context, page, errors = _open(browser, served.url)
    try:
        _load(page, _as_json("sd201-offer-a.json", tmp_path))
        before = _settled(page)
        assert before["document"]["files"][0]["claims"][0]["verdict"] == "not-established"
        assert "throughput-basis" in page.locator("#findings-list").inner_text()
        # The vendor's figure, restated as what users receive and counted as emitted: established.
        page.locator('[data-pointer="/claims/0/value"]').fill("150")
        page.locator('[data-pointer="/claims/0/counted"]').select_option("emitted-output")
        _until(page, "window.sdevalForm.settled() && window.sdevalForm.verdict().document.files[0].claims[0].verdict !== 'not-established'")
        after = page.evaluate("window.sdevalForm.verdict()")
        assert after["document"]["files"][0]["claims"][0]["verdict"] == "established"
        assert page.locator("#verdict-claims li").first.inner_text().startswith("a-200: established; users receive 150 tokens/s")
    finally:
        context.close()
    assert errors == []


@pytest.mark.browser
def test_with_a_profile_the_page_shows_what_assess_r_prints(browser, sdeval, tmp_path):
    profile = example("requirements-sd201.yaml")
    record = example("sd201-offer-a.json")
    server = Server(str(record), "-r", str(profile), cwd=tmp_path)
    try:
        context, page, errors = _open(browser, server.url)
        try:
            verdict = _settled(page)
            # The page names the file it was given, as the form holds it (sd201-offer-a.form.json).
            saved = tmp_path / "sd201-offer-a.form.json"
            saved.write_text(page.evaluate("window.sdevalForm.collect()") + "\n")
            cwd = os.getcwd()
            os.chdir(tmp_path)
            try:
                cli = sdeval("assess", saved.name, "-r", str(profile))
            finally:
                os.chdir(cwd)
            assert verdict["text"] == cli.stdout
            assert page.locator("#verdict-text").inner_text().rstrip("\n") == cli.stdout.rstrip("\n")
            assert verdict["exit"] == cli.exit_code == 1
            assert page.locator("#verdict-text-box").get_attribute("open") is not None
            assert page.locator("#status").inner_text() == "Loaded sd201-offer-a.json (given to sdeval serve)."
        finally:
            context.close()
        assert errors == []
    finally:
        server.stop()


def test_the_offline_form_never_promises_what_validate_will_say():
    from evaluator.form.page import render_form

    page = render_form()
    assert "will accept" not in page
    assert "the verdict needs sdeval" in page
    assert 'id="sdeval-served"' not in page
    served = render_form(served={"token": "t", "profile": None, "initial": None})
    assert 'id="sdeval-served"' in served and "every change is assessed by sdeval" in served


def test_the_served_page_escapes_a_hostile_profile_name_and_record():
    from evaluator.form.page import render_form

    page = render_form(
        served={
            "token": "t",
            "profile": "<img src=x onerror=alert(1)>.yaml",
            "initial": {"name": "a</script><b>", "text": "</script><script>alert(2)</script>"},
        }
    )
    # Inside the JSON data element only '</' could end it early, and every one is escaped there.
    start = page.index('<script type="application/json" id="sdeval-served">')
    end = page.index("</script>", start)
    data = page[start:end]
    assert "</" not in data[data.index(">") + 1 :]
    assert "<img src=x" not in page[:start] + page[end:]
    assert "</script><script>alert(2)" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;.yaml" in page


@pytest.mark.browser
def test_what_was_typed_over_the_starting_record_survives_a_reload(browser, tmp_path):
    server = Server(str(example("sd201-offer-a.json")), cwd=tmp_path)
    try:
        context, page, errors = _open(browser, server.url)
        try:
            _settled(page)
            page.locator('[data-pointer="/claims/0/value"]').fill("150")
            _until(page, "Object.keys(localStorage).some(k => (localStorage.getItem(k) || '').includes('150'))")
            page.reload()
            _until(page, "window.sdevalForm !== undefined")
            assert page.locator('[data-pointer="/claims/0/value"]').input_value() == "150"
            assert page.locator("#status").inner_text().startswith("Restored what you typed earlier")
        finally:
            context.close()
        assert errors == []
    finally:
        server.stop()


# ------------------------------------------------------------------ hostile input (issue 36)


def test_a_record_with_a_lone_surrogate_is_a_parse_finding_not_a_500(served, sdeval, tmp_path):
    # Valid JSON ("\ud800" is a legal escape) whose string cannot be written out as UTF-8.
    body = b'{"record_version": "1.2", "offer": {"vendor": "a\\ud800b"}}'
    answer = served.assess(body)
    assert answer.status_code == 200, answer.text
    (finding,) = answer.json()["document"]["findings"]
    assert finding["code"] == "parse"
    assert "surrogate \\ud800 on its own" in finding["message"]
    (tmp_path / "form.json").write_bytes(body)
    for command in ("validate", "assess"):
        result = sdeval(command, tmp_path / "form.json")
        assert result.exit_code == 1, result.stderr
        assert "internal error" not in result.stderr + result.stdout
        assert "surrogate \\ud800 on its own" in result.stdout + result.stderr
    started = sdeval("serve", tmp_path / "form.json")
    assert started.exit_code == 2 and "surrogate \\ud800 on its own" in started.stderr


def test_a_client_that_disconnects_mid_body_leaves_no_traceback(tmp_path):
    import socket

    server = Server(cwd=tmp_path)
    try:
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            head = (
                f"POST /assess HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nX-Sdeval-Token: {server.token}\r\n"
                "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
            )
            sock.sendall(head.encode() + b'{"record_version": ')
            time.sleep(0.3)  # the app is reading the body when the client goes
        time.sleep(0.5)
        assert httpx.get(server.url, timeout=10).status_code == 200  # still serving
    finally:
        err = server.stop()
    assert err == "sdeval serve: open the address above in your browser; Ctrl-C stops the server\nsdeval serve: stopped\n"


def test_a_vendor_string_opening_a_comment_and_a_script_cannot_stop_the_pages_scripts():
    # "<!--<script>" inside a <script> element's data puts an HTML tokenizer into the "script data
    # double escaped" state, where the element's own "</script>" is text: every script after it is
    # swallowed. The embedded JSON holds no '<', '>' or '&' at all.
    from evaluator.form.page import render_form

    vendor = "<!--<script>&amp;-->"
    text = json.dumps({"record_version": "1.2", "offer": {"vendor": vendor}})
    page = render_form(served={"token": "t", "profile": None, "initial": {"name": "a.json", "text": text}})
    start = page.index('<script type="application/json" id="sdeval-served">')
    data = page[page.index(">", start) + 1 : page.index("</script>", start)]
    assert not set("<>&") & set(data)
    assert json.loads(data)["initial"]["text"] == text
    for element in ("sdeval-schema", "sdeval-catalog", "sdeval-wording"):
        start = page.index(f'id="{element}">')
        assert not set("<>&") & set(page[page.index(">", start) + 1 : page.index("</script>", start)])


@pytest.mark.browser
def test_the_page_still_runs_with_a_vendor_string_opening_a_comment_and_a_script(browser, tmp_path):
    record = json.loads(example("sd201-offer-a.json").read_text())
    record["offer"]["vendor"] = "<!--<script>"
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(record))
    server = Server(str(path), cwd=tmp_path)
    try:
        context, page, errors = _open(browser, server.url)  # waits for the page's own script to run
        try:
            verdict = _settled(page)  # the form loaded the record and sdeval answered for it
            assert json.loads(page.evaluate("window.sdevalForm.collect()"))["offer"]["vendor"] == "<!--<script>"
            assert verdict["document"]["files"][0]["file"] == "hostile.form.json"
        finally:
            context.close()
    finally:
        server.stop()
    assert not errors, errors


@pytest.mark.browser
def test_an_info_note_is_counted_and_coloured_as_info_not_as_a_problem(browser, served, tmp_path):
    # complete-offer.yaml: established, one info finding. Before: "1 problem found." in an error's red.
    context, page, errors = _open(browser, served.url)
    try:
        _load(page, _as_json("complete-offer.yaml", tmp_path))
        _settled(page)
        assert page.locator("#findings-summary").inner_text() == "No problems: 1 info."
        item = page.locator("#findings-list li")
        assert item.count() == 1 and item.get_attribute("data-severity") == "info"
        red = "rgb(164, 22, 26)"  # --bad
        assert item.evaluate("el => getComputedStyle(el).color") != red
        assert page.locator("[aria-invalid=true]").count() == 0
    finally:
        context.close()
    assert errors == []


def test_a_record_served_from_a_file_is_named_after_that_file(tmp_path):
    # Before: every message named form.json, whatever file `sdeval serve FILE` was given.
    given = tmp_path / "acme-offer.json"
    given.write_bytes(example("sd201-offer-a.json").read_bytes())
    server = Server(str(given), "--port", "0", cwd=tmp_path)
    try:
        answer = server.assess(given.read_bytes()).json()
    finally:
        server.stop()
    assert answer["reason"] == "exit 1: acme-offer.form.json has 1 error finding"
    assert answer["asks_heading"] == "What to ask the vendor"
    assert answer["text"].startswith("acme-offer.form.json: NOT ESTABLISHED")


# ------------------------------------------------------------------ a long record (issue 42)


HOSTILE = '<img src=x onerror="document.title=1"></textarea><script>document.title=2</script>'


def _long_record(path: Path, runs: int, broken: range) -> dict:
    """sd201-offer-a.json's run repeated `runs` times (run-00000, ...): those in `broken` count E
    one above A + B (counts-inconsistent) and carry markup in their notes."""
    record = json.loads(example("sd201-offer-a.json").read_text())
    template = record["runs"][0]
    record["runs"] = []
    for i in range(runs):
        run = json.loads(json.dumps(template))
        run["id"] = f"run-{i:05d}"
        if i in broken:
            run["counts"]["emitted_tokens"] = 16
            run["notes"] = HOSTILE
        record["runs"].append(run)
    record["claims"][0]["run"] = "run-00000"
    path.write_text(json.dumps(record))
    return record


@pytest.mark.browser
@pytest.mark.slow
def test_a_5000_run_record_is_a_page_of_folds_that_open_on_their_rows(browser, sdeval, tmp_path):
    # Before: every run was a fieldset of some 60 fields, open; one run alone is about 18,000 px
    # tall, and a 500-run record took over two minutes to load and was 3.6 million px tall.
    path = tmp_path / "long.json"
    record = _long_record(path, 5000, range(4290, 4350))
    expected = {f["path"] for f in _assess_json(sdeval, path)["findings"] if f["code"] == "counts-inconsistent"}
    assert len(expected) == 60
    server = Server(str(path), cwd=tmp_path)
    try:
        context, page, errors = _open(browser, server.url)
        try:
            height = page.evaluate("document.documentElement.scrollHeight")
            assert height < 20_000, height  # 100 closed groups of 50 runs, under the rest of the form
            groups = page.locator("#o-runs .fold-group")
            assert groups.count() == 100 and page.locator("#o-runs .folded").count() == 5000
            assert page.evaluate("[...document.querySelectorAll('details.fold-group, details.folded')].every(d => !d.open)")
            assert groups.nth(0).locator(":scope > summary").inner_text().startswith("Run 1\u201350")

            # sdeval's answer counted into the folds that hold the problems; the problems grouped by code.
            _until(page, "window.sdevalForm.settled()", seconds=600)
            assert {f["path"] for f in page.evaluate("window.sdevalForm.findings()") if f["code"] == "counts-inconsistent"} == expected
            assert groups.nth(86).locator(":scope > summary").inner_text() == "Run 4301\u20134350 (50 errors)"
            assert groups.nth(85).locator(":scope > summary").inner_text() == "Run 4251\u20134300 (10 errors)"
            assert groups.nth(84).locator(":scope > summary").inner_text() == "Run 4201\u20134250 (no problems)"
            assert page.locator("#o-runs-4300 > summary").text_content() == "Run 4301: run-04300 (1 error)"  # inside the closed group
            problems = page.locator("#findings-list li.finding-group").filter(has_text="counts-inconsistent")
            assert problems.locator(":scope > details > summary").inner_text() == "counts-inconsistent 60 errors"
            assert not problems.locator(":scope > details").evaluate("d => d.open")
            problems.locator(":scope > details > summary").click()
            assert problems.locator("li[data-code=counts-inconsistent]").count() == 60
            assert problems.locator("li[data-code=counts-inconsistent]").first.is_visible()
            assert page.evaluate("document.documentElement.scrollHeight") < 20_000

            # Opening a group shows its runs' summaries; opening a run builds its fields with its values.
            groups.nth(86).locator(":scope > summary").click()
            assert page.locator("#o-runs-4300 > summary").is_visible()
            page.locator("#o-runs-4300 > summary").click()
            _until(page, "document.querySelector('[data-pointer=\"/runs/4300/id\"]') !== null")
            assert page.locator('[data-pointer="/runs/4300/id"]').input_value() == "run-04300"
            emitted = page.locator('[data-pointer="/runs/4300/counts/emitted_tokens"]')
            assert emitted.input_value() == "16" and emitted.is_visible()
            assert "counts-inconsistent" in page.locator("#f-runs-4300-counts-emitted_tokens-err").inner_text()
            # What a folded run held is text in its fields once opened, never markup.
            assert page.locator('[data-pointer="/runs/4300/notes"]').input_value() == HOSTILE
            assert page.locator("img, form script").count() == 0 and page.title() not in ("1", "2")

            # Nothing is lost by folding: the page saves the record it was given.
            assert json.loads(page.evaluate("window.sdevalForm.collect()")) == record
        finally:
            context.close()
    finally:
        server.stop()
    assert errors == []
