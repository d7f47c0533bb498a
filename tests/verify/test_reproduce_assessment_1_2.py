"""Reports written in assessment JSON 1.2, before a load not measured was given as its measured
bracket (1.3): without a requirements section they reproduce; with one, where the break-even was
an interpolated figure, reproduction names the section that differs."""

from __future__ import annotations

import pytest
from conftest import example

pytestmark = pytest.mark.pdf

COMPLETE, REQ_COST = example("complete-offer.yaml"), example("requirements-cost.yaml")


def _report(tmp_path, change, profile=None):
    """An unsigned report whose embedded assessment is made to read as 1.2 wrote it."""
    from evaluator.pipeline import assess_paths
    from evaluator.report.render import render_pdf

    assessed = assess_paths([str(COMPLETE)], profile=str(profile) if profile else None, for_report=profile is not None)
    change(assessed.document)
    path = tmp_path / "report.pdf"
    path.write_bytes(render_pdf(assessed, signer=None))
    return path


def _reproduction(sdeval, path) -> str:
    out = sdeval("verify", path).stdout
    return " ".join(out.split("reproduction", 1)[1].split("NOT VERIFIED")[0].split())


def test_a_1_2_report_without_requirements_reproduces(sdeval, tmp_path):
    def as_1_2(doc):
        assert doc["schema_version"] == "1.3"
        doc["schema_version"] = "1.2"

    assert _reproduction(sdeval, _report(tmp_path, as_1_2)).startswith("PASS: re-assessing 1 input with sdeval")


def test_a_1_2_report_with_an_interpolated_break_even_names_the_requirements_section(sdeval, tmp_path):
    def as_1_2(doc):
        doc["schema_version"] = "1.2"
        for series in doc["requirements"]["figures"][0]["series"]:
            be = series["break_even"]
            # The shape 1.2 wrote: the interpolated concurrency as the break-even itself.
            series["break_even"] = {
                "status": "interpolated",
                "concurrency": be["estimate"]["concurrency"],
                "interpolated": True,
                "between": [64, 256],
                "text": "break-even at concurrency 246.7 (interpolated between measured 64 and 256)",
            }

    line = _reproduction(sdeval, _report(tmp_path, as_1_2, REQ_COST))
    assert line.startswith("FAIL: sdeval"), line
    assert line.endswith("the same rule catalog, does not reproduce the embedded assessment the requirements section differs in: figures"), line
