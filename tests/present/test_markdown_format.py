"""--format markdown (evaluator/present/markdown.py, one module and one FORMATS row): what a CI job
summary or a pull-request comment shows, rendered by a real CommonMark parser with GitHub's tables,
and a vendor's strings that stay text there: no link, image, HTML, heading or table cell of their own."""

from __future__ import annotations

import json
import re

import pytest
from conftest import example


def html_of(markdown: str) -> str:
    from markdown_it import MarkdownIt  # rich's Markdown parser: CommonMark, here with GFM tables

    return MarkdownIt("commonmark").enable("table").render(markdown)


def test_assess_gives_a_heading_a_claim_table_the_asks_and_the_whole_report(sdeval):
    out = sdeval("assess", example("sd201-offer-a.json"), "-f", "markdown")
    assert out.exit_code == 1
    file = str(example("sd201-offer-a.json"))
    assert out.stdout.splitlines()[:13] == [
        "## sdeval assessment",
        "",
        f"### `{file}`: NOT ESTABLISHED",
        "",
        "1 error, 0 warnings, 0 info",
        "",
        "| claim | kind | claimed | verdict | first error |",
        "|---|---|---|---|---|",
        "| `a-200` | output-throughput | `200 tokens/s` | ✗ NOT ESTABLISHED | throughput-basis |",
        "",
        "**What to ask the vendor** (1 request):",
        "",
        "```text",
    ]
    # The whole report is the text format's, verbatim, inside a fenced block.
    text = sdeval("assess", example("sd201-offer-a.json")).stdout
    html = html_of(out.stdout)
    report = re.findall(r'<pre><code class="language-text">(.*?)</code></pre>', html, re.S)[-1]
    import html as html_module

    assert html_module.unescape(report).rstrip("\n") == text.rstrip("\n")
    assert html.count("<table>") == 1 and "<h3>" in html


def test_validate_gives_each_file_its_outcome_and_its_findings(sdeval):
    out = sdeval("validate", example("sd201-offer-a.json"), example("complete-offer.yaml"), "-f", "markdown")
    assert out.exit_code == 1
    lines = out.stdout.splitlines()
    assert lines[0] == "## sdeval validate"
    assert f"### `{example('complete-offer.yaml')}`: ESTABLISHED" in lines
    assert "<table>" not in html_of(out.stdout)  # claims are assess's
    assert any(line.startswith("error throughput-basis") or "throughput-basis" in line for line in lines)


HOSTILE = "x``` `|</code><img src=x onerror=alert(1)> [click](https://evil.example) @acme/owners\n## OWNED | c"


@pytest.fixture
def hostile_record(tmp_path, monkeypatch):
    """A record named so that report lines start with a fence of backticks, given by that name."""
    data = json.loads(example("sd201-offer-a.json").read_text())
    data["claims"][0]["text"] = "200 tokens/s " + HOSTILE
    data["claims"][0]["unit"] = "tokens/s |<b>`x`</b>"
    data["offer"]["claim_text"] = HOSTILE
    data["offer"]["vendor"] = "Evil `|` <script>alert(1)</script> [v](https://evil.example)"
    path = tmp_path / "```er|<img src=y>.json"
    path.write_text(json.dumps(data))
    monkeypatch.chdir(tmp_path)
    return path.name


@pytest.mark.parametrize("command", ["assess", "validate"])
def test_a_vendors_strings_stay_text_in_the_rendered_markdown(sdeval, hostile_record, command):
    out = sdeval(command, hostile_record, "-f", "markdown")
    html = html_of(out.stdout)
    # Nothing from the record became markup: every tag in the page is one sdeval writes.
    assert set(re.findall(r"<(/?[a-z0-9]+)", html)) <= {"h2", "/h2", "h3", "/h3", "p", "/p", "code", "/code", "pre", "/pre", "table", "/table",
                                                          "thead", "/thead", "tbody", "/tbody", "tr", "/tr", "th", "/th", "td", "/td", "strong", "/strong",
                                                          "details", "/details", "summary", "/summary"}  # fmt: skip
    # ...and the record's strings appear only inside code.
    outside_code = re.sub(r"<code[^>]*>.*?</code>", "", html, flags=re.S)
    for marker in ("evil.example", "onerror", "OWNED", "@acme", "alert", "<img", "<script", "<b>"):
        assert marker not in outside_code, marker
    assert len(re.findall(r"<h[23]>", html)) == 2  # the page's heading and the file's, no more
    if command == "assess":
        [row] = re.findall(r"<tbody>\s*<tr>(.*?)</tr>", html, re.S)
        assert row.count("<td>") == 5  # the vendor's | made no cell of its own
        # The claimed figure and the file name arrive whole, as written.
        assert "200 tokens/s |&lt;b&gt;`x`&lt;/b&gt;" in row
    assert "```er|&lt;img src=y&gt;.json" in html


def test_no_line_can_close_the_fenced_block_or_end_a_code_span():
    from evaluator.present.markdown import block, code

    lines = ["```", "~~~", "````", "## heading?", "<img src=x>"]
    html = html_of("\n".join(block(lines)) + "\nafter\n")
    assert html == '<pre><code class="language-text">```\n~~~\n````\n## heading?\n&lt;img src=x&gt;\n</code></pre>\n<p>after</p>\n'
    assert html_of(code("a``b`") + " [x](https://e.example)") == '<p><code>a``b`</code> <a href="https://e.example">x</a></p>\n'
