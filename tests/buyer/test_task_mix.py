"""A buyer's traffic mix (profile task_mix) judged on an offer's per-task speedups (record 1.3
runs[].per_task): weighting one task or another changes the fit, through the real command line."""

from __future__ import annotations

import json

import yaml
from conftest import example

PER_TASK = {
    "method": "paired per-prompt speedups, median with an order-statistic interval",
    "tasks": [
        {
            "task": "code",
            "requests": 16,
            "output_tokens": 384,
            "speedup": {"baseline_run": "target-only-c1", "pairs": 16, "median": 0.8, "low": 0.7, "high": 0.9},
        },
        {
            "task": "maths",
            "requests": 16,
            "output_tokens": 384,
            "speedup": {"baseline_run": "target-only-c1", "pairs": 16, "median": 2.9, "low": 2.6, "high": 3.1},
        },
        {
            "task": "prose",
            "requests": 5,
            "output_tokens": 120,
            "speedup": {"baseline_run": "target-only-c1", "pairs": 5, "median": 1.5, "note": "too few"},
        },
    ],
}


def _offer(tmp_path, per_task=PER_TASK):
    """The established complete offer, its speculative run at concurrency 1 split by task."""
    record = yaml.safe_load(example("complete-offer.yaml").read_text())
    assert record["runs"][1]["id"] == "eagle3-c1"
    if per_task is not None:
        record["runs"][1]["per_task"] = per_task
    path = tmp_path / "offer.json"
    path.write_text(json.dumps(record))
    return path


def _fit(sdeval, tmp_path, offer, mix) -> dict:
    profile = tmp_path / "profile.json"
    profile.write_text(
        json.dumps({"requirements_version": "1.1", "buyer": {"name": "Traffic-mix buyer"}, "loads": {"concurrency": [1]}, "task_mix": mix})
    )
    result = sdeval("assess", offer, "--requirements", profile, "--format", "json")
    doc = result.json()["requirements"]
    return next(c for c in doc["results"] if c["requirement"] == "task-mix")


def test_weighting_one_task_or_the_other_changes_the_fit(sdeval, tmp_path):
    offer = _offer(tmp_path)
    maths = _fit(sdeval, tmp_path, offer, {"maths": 1})
    code = _fit(sdeval, tmp_path, offer, {"code": 1})
    assert (maths["status"], maths["codes"]) == ("met", [])
    assert "run eagle3-c1: 2.9x [2.6, 3.1]" in maths["message"]
    assert (code["status"], code["codes"]) == ("not-met", ["task-mix-no-speedup"])
    assert "run eagle3-c1: 0.8x [0.7, 0.9]" in code["message"]


def test_the_mix_is_a_weighted_harmonic_mean_of_the_task_speedups(sdeval, tmp_path):
    # 3 parts code to 1 part maths: 4 / (3 / 0.8 + 1 / 2.9) = 0.977x; the range from the interval ends
    cell = _fit(sdeval, tmp_path, _offer(tmp_path), {"code": 3, "maths": 1})
    low, mid, high = 4 / (3 / 0.7 + 1 / 2.6), 4 / (3 / 0.8 + 1 / 2.9), 4 / (3 / 0.9 + 1 / 3.1)
    assert f"code 0.75, maths 0.25): run eagle3-c1: {mid:.3f}x [{low:.3f}, {high:.2f}]" in cell["message"], cell["message"]
    assert "together at least 90 %" in cell["message"]
    assert cell["status"] == "not-met"


def test_a_task_without_an_interval_or_without_per_task_figures_is_not_established(sdeval, tmp_path):
    prose = _fit(sdeval, tmp_path, _offer(tmp_path), {"prose": 1, "maths": 1})
    assert (prose["status"], prose["codes"]) == ("not-established", ["task-mix-uncovered"])
    bare = _fit(sdeval, tmp_path, _offer(tmp_path, None), {"maths": 1})
    assert (bare["status"], bare["codes"]) == ("not-established", ["task-mix-uncovered"])
