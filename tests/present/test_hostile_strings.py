"""Strings a dishonest vendor could write: control characters that rewrite a terminal, bidi
controls that reorder the tool's text, invisible characters that make two names look alike,
metadata XML cannot hold, broken Prometheus scrapes, deep nesting, a corrupted archive index.
Each case is what a user would see; every output path is piped through `_assert_clean`."""

from __future__ import annotations

import copy
import json
import os
import sys
import unicodedata
from pathlib import Path

import pytest
from conftest import example
from support.archive_fixtures import archive_args

B = json.loads(example("sd201-offer-b.json").read_text())
RUN = B["runs"][0]["id"]
# Every control character a text field refuses: C0 but tab, DEL, C1 (65 - 1 characters).
CONTROLS = [chr(c) for c in (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)) if c != 0x09]
EVERY_CONTROL = "".join(CONTROLS)
# What an identity field refuses beyond that, and what every output escapes.
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u034f", "\ufe0f", "\u180e"]
BIDI_CONTROLS = ["\u202a", "\u202b", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u202c", "\u2069"]


def _assert_clean(text: str, where: str) -> None:
    """No byte below 0x20 but newline and tab, no DEL, no C1, no bidi control and no invisible
    character: what a terminal, a pager or a log viewer could be steered by."""
    raw = text.encode("utf-8")
    bad = sorted({b for b in raw if (b < 0x20 and b not in (0x0A, 0x09)) or b == 0x7F})
    assert not bad, f"{where}: raw control bytes {[hex(b) for b in bad]}"
    unsafe = sorted({f"U+{ord(c):04X}" for c in text if unicodedata.category(c) in ("Cc", "Cf") and c not in "\n\t"})
    assert not unsafe, f"{where}: unescaped {unsafe}"


def _record(**offer) -> dict:
    record = copy.deepcopy(B)
    record["offer"].update(offer)
    return record


def _write(tmp_path: Path, name: str, data) -> Path:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else json.dumps(data).encode())
    return path


def _findings(sdeval, path) -> dict[str, str]:
    result = sdeval("validate", "--format", "json", path)
    return {f["path"]: f["message"] for f in result.json()["findings"] if f["code"] == "schema"}


# ------------------------------------------------------------------ 1. control characters


def test_every_control_character_is_a_schema_finding_at_its_field(sdeval, tmp_path):
    for ch in CONTROLS:
        path = _write(tmp_path, f"c{ord(ch):02x}.json", _record(vendor=f"Acme{ch}Corp"))
        result = sdeval("validate", "--format", "json", path)
        assert result.exit_code == 1, hex(ord(ch))
        schema = [f for f in result.json()["findings"] if f["code"] == "schema"]
        assert [f["path"] for f in schema] == ["/offer/vendor"], hex(ord(ch))
        assert schema[0]["message"].startswith(f"holds the control character U+{ord(ch):04X}"), schema[0]["message"]
        assert " at character 5; this field takes printable characters and tabs " in schema[0]["message"]


def test_tab_everywhere_and_newline_in_multi_line_fields_stay_valid(sdeval, tmp_path):
    record = _record(vendor="Acme\tCorp", claim_text="up to 3x\nfaster\n\tgeneration")
    record["configurations"][0]["runtime"]["flags"] = "vllm serve model \\\n  --speculative-config '{}'"
    assert sdeval("validate", _write(tmp_path, "ok.json", record)).exit_code == 0


def test_newline_and_cr_where_they_would_fake_a_line(sdeval, tmp_path):
    record = _record(vendor="Acme\nacceptance-only.json: established", claim_text="up to 3x\r")
    found = _findings(sdeval, _write(tmp_path, "nl.json", record))
    assert found["/offer/vendor"] == (
        "holds the control character U+000A at character 5; this field takes printable characters and tabs "
        '(got "Acme\\nacceptance-only.json: established")'
    )
    assert found["/offer/claim_text"].startswith(
        "holds the control character U+000D at character 9; this field takes printable characters and tabs and newlines"
    )


def test_control_characters_in_yaml_are_found_at_their_line(sdeval, tmp_path):
    path = tmp_path / "bel.yaml"
    path.write_text('offer:\n  vendor: "Acme\\a\\e[2J"\n', encoding="utf-8")
    result = sdeval("validate", path)
    assert f"{path}:2:11: /offer/vendor: error schema: holds the control character U+0007 at character 5;" in result.stdout


def test_older_records_still_read(sdeval):
    for name in ("sd201-offer-a.json", "sd201-offer-b.json", "complete-offer.yaml", "acceptance-only.json", "quiet-load-offer.yaml"):
        result = sdeval("validate", "--format", "json", example(name))
        assert not [f for f in result.json()["findings"] if f["code"] in ("schema", "parse")], name


# ------------------------------------------------------------------ 2. bidi and invisible characters


@pytest.mark.parametrize("field", ["vendor", "offer_id", "target-model", "drafter"])
@pytest.mark.parametrize("ch", BIDI_CONTROLS, ids=[f"U+{ord(c):04X}" for c in BIDI_CONTROLS])
def test_bidi_controls_are_refused_in_identity_fields(sdeval, tmp_path, field, ch):
    record = copy.deepcopy(B)
    value = f"Acme {ch}Corp"
    if field in ("vendor", "offer_id"):
        record["offer"][field] = value
        at = f"/offer/{field}"
    elif field == "target-model":
        record["configurations"][0]["target"]["model"] = value
        at = "/configurations/0/target/model"
    else:
        record["configurations"][0]["proposer"]["model"] = value
        at = "/configurations/0/proposer/model"
    found = _findings(sdeval, _write(tmp_path, "bidi.json", record))
    # Paired or not: the published schema's pattern cannot count pairs, and a name needs no control.
    assert found[at] == (
        f"holds the bidi control U+{ord(ch):04X} ({unicodedata.name(ch)}) at character 6; a name takes none, "
        "since it would reorder the text printed after it (right-to-left letters need no control)"
    )


def test_right_to_left_names_and_bidi_controls_in_free_text_stay_valid(sdeval, tmp_path):
    record = _record(vendor="\u05d4\u05e6\u05e2\u05ea \u0639\u0631\u0636 Corp", claim_text="free text \u202eleft open")
    record["runs"][0]["notes"] = "\u2067\u0639\u0631\u0636\u2069 and \u200b"
    assert sdeval("validate", _write(tmp_path, "rtl.json", record)).exit_code == 0


def test_the_invisible_list_is_unicode_s():
    """INVISIBLE_RANGES (written out for the schema's pattern) is general category Cf and the
    other default-ignorable code points, as this Python's Unicode database has them."""
    from evaluator._infra.safe_text import INVISIBLE_RANGES

    listed = {c for low, high in INVISIBLE_RANGES for c in range(low, high + 1)}
    cf = {c for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"}
    assert cf <= listed
    assert {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, 0x2028, 0x2029} | set(range(0xFE00, 0xFE10)) <= listed
    assert all(unicodedata.category(chr(c)) in ("Cf", "Mn", "Lo", "Cn", "Zl", "Zp") for c in listed)


@pytest.mark.parametrize("ch", INVISIBLE, ids=[f"U+{ord(c):04X}" for c in INVISIBLE])
def test_invisible_characters_in_identity_fields_are_named_and_shown_escaped(sdeval, tmp_path, ch):
    found = _findings(sdeval, _write(tmp_path, "zw.json", _record(vendor=f"Ac{ch}me")))
    name = unicodedata.name(ch, "")
    escaped = f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"
    assert found["/offer/vendor"] == (
        f"holds the invisible character U+{ord(ch):04X}{f' ({name})' if name else ''} at character 3 "
        f"(shown: Ac{escaped}me); a name must look like what it is"
    )


def test_two_vendors_that_look_alike_never_print_alike(sdeval, tmp_path):
    """The look-alike is refused, and its finding (text and JSON) shows the difference."""
    path = _write(tmp_path, "twin.json", _record(vendor="Acme\u200b Corp"))
    text = sdeval("validate", path).stdout
    _assert_clean(text, "validate")
    assert "(shown: Acme\\u200b Corp)" in text


def test_every_input_string_in_the_pdf_sits_in_its_own_bidi_isolate(tmp_path):
    """An override left open in free text ends at its string: the offer id after the vendor in the
    footer and the title keeps its order. (FSI ... PDI is the plain-text <bdi>: WeasyPrint's
    layout, Pango and FriBidi, applies it to text and to the footer's string-set alike.)"""
    import datetime as dt

    from evaluator.pipeline import assess_paths
    from evaluator.report.render import embedded_files, render_html

    hebrew = "\u05d4\u05e6\u05e2\u05ea"
    record = _record(vendor=f"{hebrew} Corp", offer_id="AO-1", claim_text="up to 3x \u202eevil left open")
    path = _write(tmp_path, "rtl.json", record)
    assessed = assess_paths([str(path)])
    when = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)
    html = render_html(assessed, embedded_files(assessed, when), when=when, signer=None)
    assert f'data-footer="\u2068\u2068{hebrew} Corp\u2069, AO-1\u2069"' in html
    assert f"<title>Speculative-decoding offer assessment: \u2068\u2068{hebrew} Corp\u2069, AO-1\u2069</title>" in html
    assert "\u2068up to 3x \u202eevil left open\u2069" in html
    assert html.count("\u202e") == html.count("\u2068up to 3x \u202eevil left open\u2069")  # never outside its isolate


# ------------------------------------------------------------------ 1. every output path


@pytest.fixture(scope="module")
def hostile_name() -> str:
    # A file name may hold any byte but / and NUL: it is printed by every command.
    return "offer" + "".join(c for c in EVERY_CONTROL if c not in "\x00/") + "\u202e\u200b.json"


def test_validate_and_assess_print_no_raw_control_character(sdeval, tmp_path, hostile_name):
    record = _record(vendor=f"Acme{EVERY_CONTROL}", claim_text=f"up to 3x{EVERY_CONTROL}", offer_id="\u202eAO-1")
    record["offer"][f"x{EVERY_CONTROL}"] = "an unknown field whose name is every control character"
    path = _write(tmp_path, hostile_name, record)
    for command in ("validate", "assess"):
        result = sdeval(command, path)
        assert result.exit_code == 1
        _assert_clean(result.stdout, command)
        _assert_clean(result.stderr, command)
        # The unknown field's pointer is escaped like its message: one line, every character shown.
        assert "/offer/x\\x00\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\\x0a\\x0b" in result.stdout
    valid = _write(tmp_path, "v" + hostile_name, _record(vendor="\u05d4 evil", claim_text="3x\n\u202efaster\tnow"))
    result = sdeval("assess", valid)
    _assert_clean(result.stdout + result.stderr, "assess of a valid record")
    assert result.exit_code == 0, result.stdout
    assert "  offer: \u05d4 evil, " in result.stdout
    assert "  vendor's claim: 3x\\x0a\\u202efaster\tnow\n" in result.stdout  # a newline in it could fake a line of ours


@pytest.mark.parametrize("fmt", ["json", "sarif", "gitlab", "github", "junit", "markdown"])
def test_every_findings_format_prints_no_raw_control_character(sdeval, tmp_path, hostile_name, fmt):
    # The JSON formats, GitHub's workflow commands and JUnit XML printed bidi controls, C1 and
    # invisible characters raw (a file name, a vendor's text): now escaped, JSON's as JSON escapes.
    valid = _write(tmp_path, "v" + hostile_name, _record(vendor="\u05d4 evil", claim_text="3x\n\u202efaster\tnow"))
    broken = _write(tmp_path, hostile_name, _record(claim_text=f"up to 3x{EVERY_CONTROL}"))
    for command in ("validate", "assess"):
        result = sdeval(command, "--format", fmt, valid, broken)
        assert result.exit_code == 1
        _assert_clean(result.stdout + result.stderr, f"{command} --format {fmt}")
        if fmt in ("json", "gitlab"):  # the same data for a JSON reader: the names as they are
            written = json.dumps(json.loads(result.stdout), ensure_ascii=False)
            assert json.dumps(str(broken), ensure_ascii=False)[1:-1] in written


def test_claim_prints_no_raw_control_character(sdeval, tmp_path):
    record = _write(tmp_path, "offer.json", B)
    result = sdeval(
        "claim", record, "--run", RUN, "--kind", "output-throughput", "--text", f"evil{EVERY_CONTROL[1:]}", "--id", "c9", "-o", tmp_path / "out.json"
    )
    assert result.exit_code == 2
    assert result.stderr.startswith("sdeval: --text: holds the control character U+0001 at character 5;")
    _assert_clean(result.stdout + result.stderr, "claim")
    assert not (tmp_path / "out.json").exists()
    ok = sdeval("claim", record, "--run", RUN, "--kind", "output-throughput", "--text", "\u202eevil", "--id", "c9", "-o", tmp_path / "out.json")
    assert ok.exit_code == 0, ok.stderr
    _assert_clean(ok.stdout + ok.stderr, "claim")
    assert "(\\u202eevil)" in ok.stderr


@pytest.fixture(scope="module")
def hostile_reports(tmp_path_factory, reports, hostile_name):  # noqa: F811 (fixture)
    """A signed report and an unsigned draft of a record named with every control character,
    whose vendor and offer hold right-to-left text and a paired override."""
    import datetime as dt

    from evaluator.pipeline import assess_paths
    from evaluator.report import render as render_module
    from evaluator.report.signing import load_identity, sign

    folder = tmp_path_factory.mktemp("hostile-reports")
    src = folder / "inputs"
    src.mkdir()
    record = _write(src, hostile_name, _record(vendor="\u05d4\u05e6 Corp", offer_id="AO-1", claim_text="\u202eevil\u202c left \u2067open"))
    reports_dir = folder / "reports"
    reports_dir.mkdir()
    cwd = os.getcwd()
    os.chdir(src)
    try:
        unsigned = render_module.render_pdf(assess_paths([record.name]), signer=None, when=dt.datetime.now(dt.timezone.utc))
        signed = render_module.render_pdf(assess_paths([record.name]), signer="Archive Assessor")
    finally:
        os.chdir(cwd)
    (reports_dir / ("draft" + hostile_name[5:-5] + ".pdf")).write_bytes(unsigned)
    identity = load_identity(key=reports.key, cert=reports.cert, pkcs12=None, password_file=None)
    signed_path = reports_dir / ("signed" + hostile_name[5:-5] + ".pdf")
    signed_path.write_bytes(sign(signed, identity))
    return reports_dir, signed_path


def test_verify_folder_prints_no_raw_control_character(sdeval, hostile_reports, reports):  # noqa: F811
    folder, _ = hostile_reports
    result = sdeval("verify", "--trust", reports.cert, "--jobs", "1", folder)
    _assert_clean(result.stdout + result.stderr, "verify FOLDER")
    assert "\u05d4\u05e6 Corp" in result.stdout
    assert result.stdout.count("\n") == 4  # a header, two reports, the total: no line faked


def test_archive_list_show_log_print_no_raw_control_character(sdeval, tmp_path, hostile_reports, reports):  # noqa: F811
    _, signed = hostile_reports
    root = tmp_path / "archive"
    assert sdeval(*archive_args("init", root, None, "--trust", reports.cert)).exit_code == 0
    added = sdeval(*archive_args("add", root, None, signed))
    assert added.exit_code == 0, added.stdout + added.stderr
    _assert_clean(added.stdout + added.stderr, "archive add")
    for command in (["list"], ["show", "1"], ["log"], ["verify"], ["rejudge"]):
        result = sdeval(*archive_args(command[0], root, None, *command[1:]))
        assert result.exit_code == 0, (command, result.stderr)
        _assert_clean(result.stdout + result.stderr, f"archive {command[0]}")
    listed = sdeval(*archive_args("list", root, None)).stdout
    assert "\u05d4\u05e6 Corp" in listed
    shown = sdeval(*archive_args("show", root, None, "1")).stdout
    assert "source name: signed\\x01\\x02" in shown


# ------------------------------------------------------------------ 3. metadata


def test_render_key_with_bel_and_esc_in_the_record_signs(sdeval, tmp_path, reports):  # noqa: F811
    """The record is not valid (its vendor holds BEL and ESC) and its file name holds them too:
    the report still renders, signed, and its XMP title is XML with the characters escaped."""
    from pypdf import PdfReader

    path = _write(tmp_path, "bel\x07\x1b.json", _record(vendor="Acme\x07\x1b Corp"))
    out = tmp_path / "report.pdf"
    result = sdeval("render", path, "-o", out, "--key", reports.key, "--cert", reports.cert)
    assert result.exit_code == 1, result.stderr
    assert "internal error" not in result.stderr
    _assert_clean(result.stderr, "render")
    reader = PdfReader(out)
    assert reader.metadata.title == "Speculative-decoding offer assessment: bel\\x07\\x1b.json"
    assert "bel\\x07\\x1b.json" in reader.xmp_metadata.dc_title["x-default"]


# ------------------------------------------------------------------ 4. scrapes

SCRAPE = """# TYPE vllm:spec_decode_num_drafts_total counter
vllm:spec_decode_num_drafts_total{engine="0"} %(d0)s
vllm:spec_decode_num_drafts_total{engine="1"} %(d1)s
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0"} %(g0)s
vllm:generation_tokens_total{engine="1"} %(g1)s
"""


def _scrape(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_series_twice_in_one_scrape_names_both_lines(sdeval, tmp_path):
    before = _scrape(tmp_path, "before.prom", SCRAPE % dict(d0=0, d1=0, g0=0, g1=0))
    after = _scrape(tmp_path, "after.prom", SCRAPE % dict(d0=50, d1=40, g0=140, g1=0) + 'vllm:generation_tokens_total{engine="0"} 150\n')
    result = sdeval("import", "vllm-metrics", before, after)
    assert result.exit_code == 2
    assert result.stderr == (
        f'sdeval: {after}: lines 5 and 7: the series vllm:generation_tokens_total{{engine="0"}} appears twice in one scrape; '
        "summing both would count it twice\n"
    )


def test_a_counter_that_fell_is_refused_even_when_another_engine_rose(sdeval, tmp_path):
    before = _scrape(tmp_path, "before.prom", SCRAPE % dict(d0=3, d1=0, g0=10, g1=0))
    after = _scrape(tmp_path, "after.prom", SCRAPE % dict(d0=1, d1=7, g0=10, g1=30))  # 3 -> 1, masked by 0 -> 7
    result = sdeval("import", "vllm-metrics", before, after)
    assert result.exit_code == 2
    assert result.stderr == (
        f'sdeval: {after}: the counter vllm:spec_decode_num_drafts_total{{engine="0"}} went down from 3 (in {before}) to 1; '
        "an engine restarted between the scrapes, or the files are in the wrong order (before first)\n"
    )


def test_a_counter_series_that_vanished_is_refused(sdeval, tmp_path):
    before = _scrape(tmp_path, "before.prom", SCRAPE % dict(d0=3, d1=2, g0=10, g1=5))
    text = (SCRAPE % dict(d0=9, d1=2, g0=30, g1=5)).replace('vllm:generation_tokens_total{engine="1"} 5\n', "")
    after = _scrape(tmp_path, "after.prom", text)
    result = sdeval("import", "vllm-metrics", before, after)
    assert result.stderr == (
        f'sdeval: {after}: the counter vllm:generation_tokens_total{{engine="1"}} was 5 in {before} and is missing here; '
        "its engine restarted or stopped between the scrapes, so the window cannot be counted\n"
    )


def test_a_scrape_is_refused_while_it_is_read(tmp_path, monkeypatch):
    """Over the limit is found after reading one byte past it, not after reading the whole file."""
    import tracemalloc

    from evaluator.importers import ImportProblem, vllm_metrics

    monkeypatch.setattr(vllm_metrics, "MAX_SCRAPE_BYTES", 10_000)
    big = _scrape(tmp_path, "big.prom", "# padding\n" * 200_000)  # 2 MB
    tracemalloc.start()
    try:
        with pytest.raises(ImportProblem) as refused:
            vllm_metrics.Scrape(big, vllm_metrics.VLLM)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(refused.value) == f"{big}: over the 10000-byte limit for a scrape"
    assert peak < 200_000, peak


# ------------------------------------------------------------------ 5. deep nesting


@pytest.mark.parametrize(
    "name,text,where",
    [
        ("flow.yaml", "a: " + "[" * 50_000 + "]" * 50_000 + "\n", "1:67"),
        ("block.yaml", "".join("  " * i + "k:\n" for i in range(1500)) + "  " * 1500 + "v\n", "64:127"),
        ("deep.json", '{"a": ' + "[" * 50_000 + "]" * 50_000 + "}", "1:70"),
        ("just-over.json", '{"a": ' + "[" * 63 + "1" + "]" * 63 + "}", "1:69"),
    ],
)
def test_deep_nesting_is_one_parse_finding_with_file_line_and_limit(sdeval, tmp_path, name, text, where):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = sdeval("validate", path)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == f"{path}:{where}: /: error parse: nested deeper than 64 levels"


def test_nesting_at_the_limit_is_read(tmp_path):
    from evaluator.engine.loader import load_bytes

    assert load_bytes("ok.json", ('{"a": ' + "[" * 62 + "1" + "]" * 62 + "}").encode()).problem is None
    assert load_bytes("ok.yaml", ("a: " + "[" * 62 + "1" + "]" * 62).encode()).problem is None


# ------------------------------------------------------------------ 6. internal errors


def test_a_corrupted_archive_index_names_its_file_and_the_way_back(sdeval, tmp_path, reports):  # noqa: F811
    root = tmp_path / "archive"
    assert sdeval(*archive_args("init", root, None, "--trust", reports.cert)).exit_code == 0
    (root / "index.sqlite").write_bytes(b"junk" * 1000)
    for command in ("list", "log"):
        result = sdeval(*archive_args(command, root, None))
        assert result.exit_code == 2
        assert result.stderr == (
            f"sdeval: {root / 'index.sqlite'}: the archive index is corrupted (file is not a database); run `sdeval archive rebuild` to rebuild it\n"
        )


def test_an_internal_error_names_the_file_it_was_working_on(monkeypatch, tmp_path):
    import io

    from evaluator import pipeline as run
    from evaluator.cli import commands as cli

    def broken(item):
        raise RuntimeError("unforeseen\nsecond line")

    monkeypatch.setattr(run, "assess", broken)
    path = _write(tmp_path, "offer.json", B)
    monkeypatch.setattr(sys, "argv", ["sdeval", "validate", str(path)])
    stderr = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == 2
    assert stderr.getvalue() == f"sdeval: internal error while working on {path}: RuntimeError: unforeseen\\x0asecond line\n"


def test_the_escaping_function_is_the_one_every_output_uses():
    from evaluator._infra.safe_text import shown

    assert shown("Acme\x1b[1A\x07 \u202eCorp\u200b\tok") == "Acme\\x1b[1A\\x07 \\u202eCorp\\u200b\tok"
    assert shown("a\nb") == "a\\x0ab" and shown("a\nb", lines=True) == "a\nb"
    assert shown("\u05d4\u05e6\u05e2\u05ea caf\u00e9 Z\u0351") == "\u05d4\u05e6\u05e2\u05ea caf\u00e9 Z\u0351"
    assert shown("\x85\x9b\x7f") == "\\x85\\x9b\\x7f"
