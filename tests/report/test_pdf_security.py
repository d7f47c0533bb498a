"""Vendor strings reach the page as text, and WeasyPrint fetches nothing but the template assets."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import example
from support.pdf_helpers import attachments, page_texts

pytestmark = pytest.mark.pdf


def test_hostile_vendor_strings_show_literally_and_fetch_nothing(tmp_path, sdeval, server):
    base, seen = server
    record = yaml.safe_load(example("complete-offer.yaml").read_text())
    vendor = '<img src="file:///etc/passwd">'
    claim = (
        f"</style><style>@import url({base}/import.css);</style>"
        f'<link rel="attachment" href="file:///etc/hostname">'
        f'<div style="background: url({base}/bg.png)">x</div><img src="{base}/img.png">'
    )
    record["offer"]["vendor"] = vendor
    record["offer"]["claim_text"] = claim
    record["offer"]["offer_id"] = f'url({base}/id.png) "\\" }} @page {{ content: "x" }}'
    record["installation_scope"]["items"][0]["description"] = f'<svg><image href="{base}/svg.png"/></svg>'
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(record))
    out = sdeval("render", path, "-o", tmp_path / "hostile.pdf")
    assert out.exit_code == 0, out.stderr
    assert seen == []
    data = (tmp_path / "hostile.pdf").read_bytes()
    assert sorted(attachments(data)) == ["assessment.json", "hostile.json", "sdeval-report.json"]
    text = " ".join(" ".join(page_texts(tmp_path / "hostile.pdf")).split())
    assert vendor in text
    assert "@import url(" in text and '<link rel="attachment" href="file:///etc/hostname">' in text
    assert f'<svg><image href="{base}/svg.png"/></svg>' in text


def test_the_fetcher_allows_only_files_inside_the_templates(tmp_path):
    from evaluator._infra.resources import data_dir
    from evaluator.report.fetcher import AllowListFetcher

    templates = data_dir("templates")
    fetcher = AllowListFetcher(templates)
    assert fetcher.allows((templates / "report.css").as_uri())
    (tmp_path / "evil.css").write_text("x")
    refused = [
        "file:///etc/passwd",
        (templates / "nope.css").as_uri(),
        templates.as_uri() + "/../pyproject.toml",
        templates.as_uri() + "/%2e%2e/pyproject.toml",
        (tmp_path / "evil.css").as_uri(),
        "http://127.0.0.1:9/x.css",
        "https://example.org/x.css",
        "data:text/css,body{}",
        "file://otherhost/etc/passwd",
    ]
    for url in refused:
        assert not fetcher.allows(url), url
        with pytest.raises(ValueError, match="refused by sdeval's allow-list"):
            fetcher.fetch(url)
    assert fetcher.refused == refused


def test_the_fetcher_stops_markup_that_escaped_escaping(tmp_path, server):
    """Even raw markup in a template could not copy a local file in or call out."""
    from weasyprint import HTML

    from evaluator._infra.resources import data_dir
    from evaluator.report.fetcher import AllowListFetcher

    base, seen = server
    secret = tmp_path / "secret.txt"
    secret.write_text("do not embed")
    html = (
        f'<link rel="attachment" href="{secret.as_uri()}"><link rel="stylesheet" href="{base}/x.css">'
        f'<img src="{secret.as_uri()}"><p style="background: url({base}/bg.png)">text</p>'
    )
    templates = data_dir("templates")
    pdf = HTML(string=html, base_url=f"{templates}/", url_fetcher=AllowListFetcher(templates)).write_pdf()
    assert seen == []
    assert attachments(pdf) == {}
