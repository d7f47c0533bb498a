"""The licence and the changelog an auditor relies on: the newest changelog section names the
formats the running code reads and writes, so a version bump without its entry fails here."""

from __future__ import annotations

import re

from conftest import ROOT


def newest_section() -> str:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    assert sections, "CHANGELOG.md has no release section"
    return sections[0]


def test_the_licence_is_apache_2_and_pyproject_says_so():
    assert "Apache License" in (ROOT / "LICENSE").read_text(encoding="utf-8").splitlines()[0]
    assert 'license = "Apache-2.0"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_the_newest_changelog_section_names_what_this_code_reads_and_writes():
    from evaluator.engine.record import RECORD_VERSION
    from evaluator.present.json_document import ASSESSMENT_SCHEMA_VERSION
    from evaluator.rules import RULE_CATALOG_VERSION

    section = newest_section()
    assert f"writes {RECORD_VERSION}" in section, f"the newest section does not say it writes record {RECORD_VERSION}"
    assert f"rule catalog {RULE_CATALOG_VERSION}" in section
    assert f"assessment JSON {ASSESSMENT_SCHEMA_VERSION}" in section


def test_every_released_section_names_the_catalog_the_release_table_gives():
    """verify judges a report's claimed catalog by evaluator.RELEASES: a release missing
    there, or shipped with another catalog, would make its genuine reports fail reproduction."""
    from evaluator import RELEASES

    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    released = dict(re.findall(r"^## \[(\d[^\]]*)\] - \d{4}-\d\d-\d\d\n\n.*?rule catalog (\d+\.\d+)", text, flags=re.M | re.S))
    assert released == RELEASES
