"""`sdeval init` and `sdeval init --vendor` write the record version this release writes (issue 29:
--vendor wrote 1.2, which docs/record.md says only `sdeval measure` writes)."""

from __future__ import annotations

import yaml
from conftest import ROOT

from evaluator import RECORD_VERSION


def test_init_and_init_vendor_write_the_version_the_docs_name(sdeval):
    blank = yaml.safe_load(sdeval("init").stdout)
    vendor = yaml.safe_load(sdeval("init", "--vendor").stdout)
    assert blank["record_version"] == vendor["record_version"] == RECORD_VERSION == "1.1"
    docs = (ROOT / "docs" / "record.md").read_text()
    assert "`sdeval measure` wrote it until record 1.3, the other commands still write 1.1" in docs
    assert "`sdeval init` still writes 1.1" in docs and "measure writes `record_version` 1.3" in docs
