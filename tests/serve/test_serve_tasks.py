"""`sdeval serve` shows a measured run's per-task figures and per-request acceptance (record 1.3
`runs[].per_task`, `runs[].request_acceptance`): under each run, the per-task table with the cells
`sdeval assess` prints and the histograms of per-request A / P the PDF draws, from sdeval's answer.

The record is measured here by `sdeval measure` against the project's simulator, with two tasks a
drafter predicts very differently; one task's label is markup, which the page must show as text.
"""

from __future__ import annotations

import json
import re

import pytest
from support.served_form import Server, open_page, settled, until

pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from support.measure_servers import serve  # noqa: E402

from evaluator.engine.wording import num  # noqa: E402
from evaluator.measure.cli import main as measure  # noqa: E402
from evaluator.measure.simulator import Simulator  # noqa: E402

HOSTILE = "<img src=x onerror=alert(1)>"
COLUMNS = ["task", "requests", "tokens", "decode", "ttft", "speedup", "pairs", "rate"]


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """(path, record): both arms at two loads, 8 prompts of each task, 2 repetitions."""
    folder = tmp_path_factory.mktemp("tasks")
    prompts = folder / "prompts.jsonl"
    prompts.write_text(
        "".join(
            json.dumps({"id": f"{marker}-{n}", "task": task, "prompt": f"{marker} number {n}: go on"}) + "\n"
            for task, marker in (("easy", "EASY"), (HOSTILE, "HARD"))
            for n in range(8)
        )
    )
    spec = Simulator(speculative=True, k=4, step_delay_s=0.002, accept_by_text=(("EASY", 0.95), ("HARD", 0.05)))
    base = Simulator(step_delay_s=0.002)
    path = folder / "rec.json"
    with serve(spec) as spec_url, serve(base) as base_url:
        arms = [
            a for arm, url in (("speculative", spec_url), ("target-only", base_url)) for a in ("--arm", f"{arm}={url}", "--metrics", f"{url}/metrics")
        ]
        code = measure(
            [*arms, "--prompts", str(prompts), "--concurrency", "1,2", "--repetitions", "2", "--warmup", "0", "--requests", "8", "--max-tokens", "16"]
            + ["--quiet", "-o", str(path)]
        )
    assert code == 0
    return path, json.loads(path.read_text())


def _shown_at(cell: str, value: float) -> bool:
    """The cell is `value` rounded to the digits the cell shows."""
    digits = cell.replace(",", "")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    return abs(float(digits) - value) <= 0.5 * 10**-decimals * (1 + 1e-9)


def _expected_rows(run: dict) -> list[list]:
    rows = []
    for t in run.get("per_task", {}).get("tasks", []):
        s = t.get("speedup")
        rows.append(
            [
                t["task"],
                str(t["requests"]),
                num(t["output_tokens"]),
                t["decode_tokens_per_s"]["p50"],
                t["ttft_ms"]["p50"],
                f"{num(s['median'], 'x')} [{num(s['low'])}, {num(s['high'])}]" if s else "-",
                str(s["pairs"]) if s else "-",
                t.get("acceptance_rate"),
            ]
        )
    return rows


def _same_row(shown: list[str], expected: list) -> bool:
    exact = all(shown[k] == expected[k] for k in (0, 1, 2, 5, 6))
    figures = all(_shown_at(shown[k], expected[k]) if expected[k] is not None else shown[k] == "-" for k in (3, 4, 7))
    return exact and figures


# What one run's box holds, read from the page: the table's cells, the charts' bars and captions.
READ_RUN = """i => {
  const box = document.getElementById('o-runs-' + i).querySelector(':scope > .task-view');
  if (!box) return null;
  return {
    header: [...box.querySelectorAll('thead th')].map(c => c.textContent),
    rows: [...box.querySelectorAll('tbody tr')].map(tr => [...tr.cells].map(c => c.textContent)),
    method: box.querySelector('details > p') ? box.querySelector('details > p').textContent : null,
    charts: [...box.querySelectorAll('figure')].map(f => ({
      bars: [...f.querySelectorAll('rect')].map(r => [Number(r.dataset.count), parseFloat(r.getAttribute('height'))]),
      caption: f.querySelector('figcaption').textContent,
    })),
  };
}"""


def test_the_answer_carries_each_runs_rows_as_assess_prints_them(measured, sdeval, tmp_path):
    path, record = measured
    text = sdeval("assess", path).stdout
    server = Server(cwd=tmp_path)
    try:
        tasks = server.assess(path.read_bytes()).json()["tasks"]
    finally:
        server.stop()
    assert sorted(tasks) == sorted(r["id"] for r in record["runs"])  # every run of this record has per_task
    printed = 0
    for run_id, view in tasks.items():
        assert view["method"] == next(r for r in record["runs"] if r["id"] == run_id)["per_task"]["method"]
        for row in view["rows"]:
            # the text table's line for this run and task, cell for cell
            line = next(ln for ln in text.splitlines() if ln.startswith(f"    {run_id}  ") and f"  {row['task']}  " in ln)
            assert re.split(r"\s{2,}", line.strip()) == [run_id, *(row[c] for c in COLUMNS)]
            printed += 1
    assert printed == 8  # 4 runs x 2 tasks


@pytest.mark.browser
def test_each_run_shows_its_per_task_table_and_histograms_and_saves_them_unchanged(browser, measured, sdeval, tmp_path):
    path, record = measured
    document = sdeval("assess", "--format", "json", path).json()
    assessed = {r["run"]: r for r in document["files"][0]["runs"]}
    server = Server(str(path), cwd=tmp_path)
    try:
        context, page, errors = open_page(browser, server.url)
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        try:
            settled(page)
            # Each claim's verdict line ends with how sure its measured figure is, as `assess` words it.
            measured = [
                ln.strip().removeprefix("measured: ") for ln in sdeval("assess", path).stdout.splitlines() if ln.strip().startswith("measured: ")
            ]
            lines = page.locator("#verdict-claims li").all_inner_texts()
            assert len(lines) == len(document["files"][0]["claims"]) == len(measured) > 0
            assert all(line.endswith("; measured " + m) for line, m in zip(lines, measured)), (lines, measured)
            for i, run in enumerate(record["runs"]):
                shown = page.evaluate(READ_RUN, i)
                expected = assessed[run["id"]]
                assert shown is not None, run["id"]
                assert shown["header"][0] == "Task" and len(shown["header"]) == len(COLUMNS)
                assert shown["method"] == expected["per_task"]["method"]  # the record's words, not the page's
                rows = _expected_rows(expected)
                assert len(shown["rows"]) == len(rows) == 2
                for got, want in zip(shown["rows"], rows):
                    assert _same_row(got, want), (got, want)
                # the run's histogram, then each task's: one bar per tenth of A / P, each as tall as its count
                bins = [expected["request_acceptance"]["rate_histogram"]] if "request_acceptance" in expected else []
                bins += [t["request_acceptance"]["rate_histogram"] for t in expected["per_task"]["tasks"] if "request_acceptance" in t]
                assert [[count for count, _ in c["bars"]] for c in shown["charts"]] == bins
                for chart, counts in zip(shown["charts"], bins):
                    tallest = max(h for _, h in chart["bars"])
                    assert [h for _, h in chart["bars"]] == pytest.approx([tallest * c / max(counts) for c in counts], abs=0.1)
                if run["arrangement"] == "target-only":
                    assert bins == []  # no drafts, no per-request acceptance
                else:
                    assert shown["charts"][0]["caption"].startswith(f"{expected['request_acceptance']['requests']} requests; counts from llama.cpp")

            # The instrument's log of each window (record 1.3 `measurement`), some 7,000 px of fields a run,
            # stays closed under the findings drawn from it, and opens on a click.
            for i in range(len(record["runs"])):
                block = page.locator(f'#o-runs-{i} > details:has(> [data-key="measurement"])')
                assert block.count() == 1 and not block.evaluate("d => d.open")
            block.locator(":scope > summary").click()
            assert page.locator(f'[data-pointer="/runs/{i}/measurement/windows/0/requests"]').is_visible()

            # The markup in a task label is text: in the table, no element made of it, nothing run.
            assert page.locator(".task-view tbody th", has_text=HOSTILE).count() == 4
            assert page.locator("img").count() == 0 and dialogs == []

            # Saving writes the measured blocks back as they came (the table is not part of the record).
            with page.expect_download() as download:
                page.get_by_role("button", name="Save record as JSON").click()
            download.value.save_as(tmp_path / "saved.json")
            saved = json.loads((tmp_path / "saved.json").read_text())
            for key in ("per_task", "request_acceptance"):
                assert [json.dumps(r.get(key), sort_keys=True) for r in saved["runs"]] == [
                    json.dumps(r.get(key), sort_keys=True) for r in record["runs"]
                ]
            assert saved == record
        finally:
            context.close()
    finally:
        server.stop()
    assert errors == []


@pytest.mark.browser
def test_a_folded_runs_table_is_drawn_when_it_is_opened(browser, measured, tmp_path):
    path, record = measured
    copies = [{**json.loads(json.dumps(record["runs"][0])), "id": f"copy-{n:02d}"} for n in range(22)]
    many = {**record, "runs": record["runs"] + copies}
    assert len(many["runs"]) > 20  # past FOLD_AFTER: every run a closed summary
    (tmp_path / "many.json").write_text(json.dumps(many))
    server = Server(str(tmp_path / "many.json"), cwd=tmp_path)
    try:
        context, page, errors = open_page(browser, server.url)
        try:
            answer = settled(page)
            assert len(answer["tasks"]) == 26
            assert page.locator("#o-runs .folded").count() == 26 and page.locator(".task-view").count() == 0
            page.locator("#o-runs .fold-group > summary").first.click()
            page.locator("#o-runs-9 > summary").click()
            until(page, "document.querySelector('#o-runs-9 > .task-view') !== null")
            shown = page.evaluate(READ_RUN, 9)
            assert [row[0] for row in shown["rows"]] == [HOSTILE, "easy"] and len(shown["charts"]) == 3
            assert page.locator(".task-view").count() == 1  # only the opened run's
            # the per-task fields themselves stay closed under the table, and open on a click
            details = page.locator('#o-runs-9 > details:has(> [data-key="per_task"])')
            assert not details.evaluate("d => d.open")
        finally:
            context.close()
    finally:
        server.stop()
    assert errors == []


def test_a_run_with_per_request_counts_and_no_tasks_shows_its_histogram_alone(measured, tmp_path):
    # As an importer writes it (vLLM's per-request speculative_decoding block): request_acceptance only.
    path, record = measured
    changed = json.loads(json.dumps(record))
    run = changed["runs"][0]
    del run["per_task"]
    acceptance = run["request_acceptance"]
    acceptance["requests_without_proposals"] = 2
    acceptance["requests"] += 2
    server = Server(cwd=tmp_path)
    try:
        tasks = server.assess(json.dumps(changed).encode()).json()["tasks"]
    finally:
        server.stop()
    view = tasks[run["id"]]
    assert view["method"] is None and view["rows"] == []
    [histogram] = view["histograms"]
    assert histogram["task"] is None and histogram["bins"] == acceptance["rate_histogram"]
    assert histogram["caption"].startswith(f"{acceptance['requests']} requests; 2 proposed nothing; counts from llama.cpp")
    # the bars' labels are the PDF's: each bin's share of the requests that proposed, and the axis from 0
    total = sum(acceptance["rate_histogram"])
    assert histogram["shares"] == [f"{100 * n / total:.0f} %" for n in acceptance["rate_histogram"]]
    assert histogram["axis"][0] == [0.0, "0"] and histogram["axis"][-1][0] >= max(acceptance["rate_histogram"])
