"""What a newcomer reads first holds (issue 42): the README defines the count letters before it uses
them, says once how to reach the installed command, says what ../shared/real-outputs is; the
figures the docs quote about the tool's own output are the tool's."""

from __future__ import annotations

import re
import runpy

import pytest
from conftest import ROOT


def test_the_readme_defines_each_count_letter_before_any_formula_uses_it():
    readme = (ROOT / "README.md").read_text()
    # The sample output under the title shows what sdeval prints; the paragraph right after it explains the letters.
    sample_end = readme.index("```", readme.index("```") + 3)
    assert readme.index("The letters are a run's counts") == readme.index("\n\n", sample_end) + 2
    for letter in "SPABDET":
        defined = readme.index(f"**{letter}**")
        uses = [m.start() for m in re.finditer(rf"(?<![\w*`]){letter} [/=+]|[/=+] {letter}\b", readme) if m.start() > sample_end]
        assert uses and defined < min(uses), letter
    assert readme.count("source .venv/bin/activate") == 1


def test_the_readme_says_what_real_outputs_is_and_that_its_tests_skip_without_it():
    readme = (ROOT / "README.md").read_text()
    said = readme[readme.index("../shared/real-outputs/") - 300 : readme.index("../shared/real-outputs/") + 300]
    assert "beside the repository" in said and "skip" in said


def test_the_form_pages_size_in_buyers_md_is_the_pages(sdeval, tmp_path):
    page = tmp_path / "form.html"
    assert sdeval("form", "-o", page).exit_code == 0
    stated = int(re.search(r"self-contained HTML file \(about (\d+) KB", (ROOT / "docs" / "buyers.md").read_text()).group(1))
    assert abs(page.stat().st_size / 1000 - stated) <= 0.1 * stated, (page.stat().st_size, stated)


def test_no_doc_points_to_an_issue_number_a_reader_cannot_open():
    # Another project's issue is fine where the line links it (InferenceX issue 1580, .../issues/1580).
    for page in (ROOT / "docs").glob("*.md"):
        for line in page.read_text().splitlines():
            for number in re.findall(r"\b[Ii]ssue (\d+)\b", line):
                assert f"/issues/{number}" in line, f"{page.name}: {line}"


@pytest.mark.slow
def test_development_md_states_the_suites_size_as_pytest_collects_it():
    # Before: "1,072 tests in 13 min 56 s", then "2,022 passed", typed by hand and stale by the next round.
    generator = runpy.run_path(str(ROOT / "scripts" / "generate_docs.py"))
    counts = generator["collected_tests"]()
    assert counts["all"] > 2000 and 0 < counts["fast"] < counts["all"]
    page = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    assert generator["counts_sentence"](counts) in page, "docs/development.md's test counts are stale: run .venv/bin/python scripts/generate_docs.py"
