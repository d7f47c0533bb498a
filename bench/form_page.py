"""How heavy is the evidence form? Prints medians; run: .venv/bin/python bench/form_page.py

- generation: `render_form()` against `blank_form()` (`sdeval init`, the YAML form) in the same run;
- the page's size, and the vendored Ajv bundle's share of it;
- in Chromium (when /usr/bin/chromium and playwright are there): opening the page from disk,
  and loading examples/complete-offer.yaml (as JSON) until every live check has run.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evaluator._infra.resources import data_dir  # noqa: E402
from evaluator.form.blank import blank_form  # noqa: E402
from evaluator.form.page import render_form  # noqa: E402

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    render_form()  # warm the template cache and imports
    form_ms, init_ms = median_ms(render_form, 21), median_ms(blank_form, 21)
    html = render_form()
    ajv = (data_dir("templates") / "form" / "vendor" / "ajv2020.min.js").stat().st_size
    print(f"render_form (sdeval form)  median {form_ms:7.2f} ms")
    print(f"blank_form  (sdeval init)  median {init_ms:7.2f} ms   ratio form/init {form_ms / init_ms:5.1f}x")
    print(f"page size {len(html.encode()):,} bytes, of which Ajv {ajv:,} bytes ({ajv / len(html.encode()):.0%})")

    if not Path("/usr/bin/chromium").exists():
        print("chromium: not installed, browser figures skipped")
        return
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        page_file = Path(tmp) / "evidence-form.html"
        page_file.write_text(html, encoding="utf-8")
        record = Path(tmp) / "complete-offer.json"
        record.write_text(json.dumps(yaml.safe_load((ROOT / "examples" / "complete-offer.yaml").read_text())))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            opens, loads = [], []
            for _ in range(7):
                page = browser.new_page()
                start = time.perf_counter()
                page.goto(page_file.as_uri())
                page.wait_for_function("window.sdevalForm !== undefined")
                opens.append((time.perf_counter() - start) * 1000)
                took = page.evaluate(
                    """async text => { const t0 = performance.now();
                    window.sdevalForm.loadText(text); return performance.now() - t0; }""",
                    record.read_text(),
                )
                loads.append(took)
                page.close()
            browser.close()
    print(f"chromium: open page from disk median {statistics.median(opens):7.1f} ms")
    print(f"chromium: fill complete-offer + all live checks median {statistics.median(loads):7.1f} ms")


if __name__ == "__main__":
    main()
