"""The buyer's requirements profile and `sdeval assess OFFER... --requirements PROFILE`.

Each outcome and rule code is pinned through the real command line: the shipped examples
(SD-201, the 32-128 chat buyer), and small variants of the buyer's profile written per test.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from conftest import EXAMPLES, changed_profile, example

from evaluator._infra.resources import schema_path
from evaluator.buyer.profile import RequirementsProfile
from evaluator.engine.loader import load_file
from evaluator.form.blank import blank_requirements
from evaluator.form.schemas import SCHEMAS, schema_text
from evaluator.rules import REGISTRY
from evaluator.rules.requirements import FIT_CODES

SD201_A, SD201_B = str(example("sd201-offer-a.json")), str(example("sd201-offer-b.json"))
COMPLETE, QUIET = str(example("complete-offer.yaml")), str(example("quiet-load-offer.yaml"))
# What people read: offers go by vendor and offer id, not by the path typed.
NAME_A, NAME_B = "SD-201 Offer A (fictional), SD-201-A", "SD-201 Offer B (fictional), SD-201-B"
NAME_COMPLETE, NAME_QUIET = "Acme Inference Ltd, ACME-SD-2026-114", "Quietline AI GmbH, QL-2026-031"
BUYER = str(example("requirements.yaml"))
PRESETS = sorted((EXAMPLES / "requirements-presets").glob("*.yaml"))

NEW_CODES = (
    "requirement-load-uncovered",
    "requirement-between-loads",
    "slo-not-met",
    "throughput-below-requirement",
    "quality-below-threshold",
    "sampling-mismatch",
    "scope-mismatch",
    "task-mismatch",
    "requirement-figure-missing",
    "task-mix-uncovered",
    "task-mix-no-speedup",
    "identity-mismatch",
    "relaxed-acceptance-refused",
    "cost-basis-missing",
)


def fit(result) -> dict:
    return result.json()["requirements"]


def cell(doc: dict, requirement: str, offer: str) -> dict:
    return next(r for r in doc["results"] if r["requirement"] == requirement and r["offer"] == offer)


def profile(tmp_path: Path, **changes) -> str:
    """The shipped buyer's profile with some top-level sections replaced (None removes one)."""
    return changed_profile(tmp_path, BUYER, **changes)


# ------------------------------------------------------------------ schema and forms


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_committed_schema_matches_the_models(name):
    assert schema_path(name).read_text(encoding="utf-8") == schema_text(SCHEMAS[name]())


@pytest.mark.parametrize("path", [Path(BUYER), example("requirements-sd201.yaml"), example("requirements-cost.yaml"), *PRESETS], ids=lambda p: p.name)
def test_shipped_profiles_fit_the_published_schema_and_the_model(path):
    data = load_file(str(path)).data
    jsonschema.Draft202012Validator(json.loads(schema_path("requirements.schema.json").read_text())).validate(data)
    RequirementsProfile.model_validate(data)


def test_init_requirements_writes_the_commented_blank_profile(sdeval, tmp_path):
    result = sdeval("init", "--requirements")
    assert result.exit_code == 0
    assert result.stdout == blank_requirements()
    assert "# Judge offers with:  sdeval assess OFFER... --requirements THIS_FILE" in result.stdout
    # Every field of the model is in the form, with its description as a comment.
    for name, info in RequirementsProfile.model_fields.items():
        assert f"{name}:" in result.stdout
        assert info.description.split()[0] in result.stdout
    # Filled in with a buyer name only, the blank profile asks nothing of an offer: refused, saying so.
    data = load_file_text(tmp_path, result.stdout.replace("  name:\n", "  name: Example buyer\n", 1))
    with pytest.raises(ValueError, match="the profile requires nothing to judge an offer by"):
        RequirementsProfile.model_validate(data)
    data["scope"] = "end-to-end"
    assert RequirementsProfile.model_validate(data).buyer.name == "Example buyer"


def load_file_text(tmp_path: Path, text: str):
    path = tmp_path / "form.yaml"
    path.write_text(text)
    loaded = load_file(str(path))
    assert loaded.problem is None, loaded.problem.message
    return loaded.data


def test_uncommenting_the_optional_entries_gives_valid_yaml(sdeval):
    text = sdeval("init", "--requirements").stdout
    data = yaml.safe_load("\n".join(line.replace("#- ", "", 1) for line in text.splitlines()))
    assert set(data["latency_limits"][0]) == {"metric", "percentile", "limit_ms", "source"}
    assert set(data["loads"]["concurrency_bands"][0]) == {"min_concurrency", "max_concurrency"}


def test_init_requirements_never_overwrites_without_force(sdeval, tmp_path):
    target = tmp_path / "req.yaml"
    target.write_text("mine\n")
    result = sdeval("init", "--requirements", "-o", target)
    assert result.exit_code == 2
    assert result.stderr == f"sdeval: {target}: already exists; pass --force to replace it\n"
    assert target.read_text() == "mine\n"
    assert sdeval("init", "--requirements", "-o", target, "--force").exit_code == 0
    assert target.read_text() == blank_requirements()


# --------------------------------------------------------------- bad profile files


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "requirements_version: '1.0'\nbuyer: {name: x}\nloads: {concurency: [8]}\n",
            '3:21: /loads/concurency: unknown field "concurency": did you mean "concurrency"?',
        ),
        ("requirements_version: '1.0'\nbuyer: {name: x}\nbuyer: {name: y}\n", '3:1: duplicate key "buyer"'),
        (
            "requirements_version: '1.0'\nbuyer: {name: x}\nloads: {concurrency_bands: [{min_concurrency: 128, max_concurrency: 32}]}\n",
            "3:29: /loads/concurrency_bands/0: concurrency band 128-32 runs backwards",
        ),
        (
            "requirements_version: '1.0'\nbuyer: {name: x}\nlatency_limits: [{metric: e2e, percentile: p99, limit_ms: 100}]\n",
            "1:1: latency or throughput requirements need at least one load (loads.concurrency, concurrency_bands or request_rates)",
        ),
        (
            "requirements_version: '1.0'\nbuyer: {name: x}\nscope: everything\n",
            '3:8: /scope: must be "generation-only" or "end-to-end" (got "everything")',
        ),
        (
            "requirements_version: '1.0'\nbuyer: {name: x}\n",
            "1:1: the profile requires nothing to judge an offer by: state latency_limits or throughput (with the loads you "
            "will run), quality, tasks, task_mix, sampling, scope or pinned_identity",
        ),
    ],
    ids=["misspelt", "duplicate", "backwards-band", "no-load", "bad-scope", "requires-nothing"],
)
def test_a_bad_profile_stops_with_one_line_naming_file_and_place(sdeval, tmp_path, text, message):
    path = tmp_path / "req.yaml"
    path.write_text(text)
    result = sdeval("assess", SD201_B, "--requirements", path)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == f"sdeval: {path}:{message}\n"


def test_every_problem_of_a_profile_is_reported_at_once_in_file_order(sdeval, tmp_path):
    path = tmp_path / "req.yaml"
    path.write_text(
        "requirements_version: '1.0'\nbuyer:\n  name: x\n  date: 2026/11/10\nloads:\n  concurency: [32]\n"
        "latency_limits:\n  - metric: e2e\n    percentile: p99\n    limit_ms: -1\n"
    )
    stopped = sdeval("assess", SD201_B, "--requirements", path)
    assert (stopped.exit_code, stopped.stdout) == (2, "")
    assert stopped.stderr.splitlines() == [
        f'sdeval: {path}:4:9: /buyer/date: must be a date written YYYY-MM-DD (got "2026/11/10")',
        f'sdeval: {path}:6:15: /loads/concurency: unknown field "concurency": did you mean "concurrency"?',
        f"sdeval: {path}:10:15: /latency_limits/0/limit_ms: must be more than 0 (got -1)",
    ]
    # `sdeval validate` tells a profile from a record by what it holds, and checks it as a profile.
    checked = sdeval("validate", path)
    assert checked.exit_code == 1
    assert checked.stdout.splitlines() == [
        f'{path}:4:9: /buyer/date: error schema: must be a date written YYYY-MM-DD (got "2026/11/10")',
        f'{path}:6:15: /loads/concurency: error schema: unknown field "concurency": did you mean "concurrency"?',
        f"{path}:10:15: /latency_limits/0/limit_ms: error schema: must be more than 0 (got -1)",
        f"{path}: INVALID REQUIREMENTS PROFILE (3 errors)",
    ]


@pytest.mark.parametrize("path", [Path(BUYER), example("requirements-sd201.yaml"), *PRESETS], ids=lambda p: p.name)
def test_validate_recognises_every_shipped_profile(sdeval, path):
    result = sdeval("validate", path, "-f", "json")
    assert result.exit_code == 0
    entry = result.json()["files"][0]
    assert (entry["kind"], entry["outcome"], entry["errors"]) == ("requirements-profile", "valid-profile", 0)
    assert sdeval("validate", path).stdout == f"{path}: valid requirements profile (0 errors)\n"


def test_a_profile_given_as_an_offer_is_refused_with_where_it_belongs(sdeval):
    result = sdeval("assess", BUYER)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"sdeval: {BUYER}: is a requirements profile, not an evidence record: give it with --requirements "
        f"(`sdeval validate {BUYER}` checks it on its own)\n"
    )


def test_a_missing_profile_is_exit_2(sdeval, tmp_path):
    result = sdeval("assess", SD201_B, "--requirements", tmp_path / "nope.yaml")
    assert (result.exit_code, result.stderr) == (2, f"sdeval: {tmp_path / 'nope.yaml'}: no such file\n")


def test_a_baseline_offer_not_given_is_exit_2(sdeval, tmp_path):
    path = profile(tmp_path, baseline={"kind": "offer", "offer_id": "NOT-GIVEN"})
    result = sdeval("assess", COMPLETE, "--requirements", path)
    assert (result.exit_code, result.stderr) == (2, "sdeval: the profile's baseline offer 'NOT-GIVEN' is not among the offers given\n")


# ----------------------------------------------------------------------- rule catalog


def test_the_fit_family_is_exactly_the_new_codes():
    assert FIT_CODES == NEW_CODES


@pytest.mark.parametrize("code", NEW_CODES)
def test_new_codes_are_in_the_one_catalog_with_every_section(sdeval, code):
    rule = REGISTRY[code]
    assert rule.severity == "error" and rule.check is None
    assert all((rule.title, rule.rationale, rule.failing_example, rule.passing_example, rule.reference))
    explained = sdeval("rules", code)
    assert explained.exit_code == 0
    assert explained.stdout.startswith(f"{code} (error)\n{rule.title}\n")
    assert code in sdeval("rules").stdout


# ------------------------------------------------------------------------------ SD-201


def test_sd201_offer_b_meets_180_tokens_per_s_and_offer_a_is_not_established(sdeval):
    result = sdeval("assess", SD201_A, SD201_B, "--requirements", example("requirements-sd201.yaml"), "-f", "json")
    assert result.exit_code == 0  # some offer meets every requirement
    doc = fit(result)
    assert [r["id"] for r in doc["requirements"]] == ["throughput-per-request", "scope", "lossless-acceptance"]
    b = cell(doc, "throughput-per-request", SD201_B)
    assert (b["status"], b["codes"]) == ("met", [])
    assert b["points"] == [
        {
            "axis": "concurrency",
            "load": 1,
            "basis": "measured",
            "runs": ["offer-b"],
            "values": [200.0],
            "status": "met",
            "codes": [],
            "message": "at concurrency 1: 200 tokens/s per request (run offer-b)",
        }
    ]
    a = cell(doc, "throughput-per-request", SD201_A)
    assert (a["status"], a["codes"]) == ("not-established", ["throughput-basis"])
    assert a["points"][0]["values"] == [150.0]  # what its run gives, shown but not counted
    assert {r["status"] for r in doc["results"] if r["offer"] == SD201_A} == {"not-established"}
    assert doc["matrix"]["throughput-per-request"] == {
        SD201_A: {"status": "not-established", "codes": ["throughput-basis"]},
        SD201_B: {"status": "met", "codes": []},
    }
    assert [(o["file"], o["rank"], o["meets_all"]) for o in doc["offers"]] == [(SD201_B, 1, True), (SD201_A, 2, False)]
    assert doc["ranking"]["statements"] == [
        f"Only {NAME_B} meets every requirement.",
        f"{NAME_A}: its evidence is not established, so it ranks below every offer whose evidence is.",
    ]
    assert [(o["file"], o["name"]) for o in doc["offers"]] == [(SD201_B, NAME_B), (SD201_A, NAME_A)]


def test_the_assessment_json_keeps_its_shape_and_gains_one_key(sdeval):
    plain = sdeval("assess", SD201_A, SD201_B, "-f", "json").json()
    with_req = sdeval("assess", SD201_A, SD201_B, "-r", example("requirements-sd201.yaml"), "-f", "json").json()
    assert set(with_req) - set(plain) == {"requirements"}
    assert {k: v for k, v in with_req.items() if k != "requirements"} == plain


def test_sd201_text_report(sdeval):
    result = sdeval("assess", SD201_A, SD201_B, "--requirements", example("requirements-sd201.yaml"))
    text = result.stdout[result.stdout.index("requirements: ") :]
    lines = text.splitlines()[3:7]
    assert [cell.strip() for cell in lines[0].split("  ") if cell.strip()] == ["requirement", NAME_A, NAME_B]  # offers by name
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:]}
    assert rows == {
        "throughput-per-request": ["NOT", "ESTABLISHED", "met"],
        "scope": ["NOT", "ESTABLISHED", "met"],
        "lossless-acceptance": ["NOT", "ESTABLISHED", "met"],
    }
    assert f"  1. {NAME_B}: meets 3 of 3, not met 0, not established 0 (evidence established)" in text
    assert f"  2. {NAME_A}: meets 0 of 3, not met 0, not established 3 (evidence NOT ESTABLISHED)" in text
    assert f"\n{NAME_A} ({SD201_A}):\n" in text  # the file as given, once, beside the name
    assert "  throughput-per-request (at least 180 output tokens/s per request at every required load): NOT ESTABLISHED [throughput-basis]" in text


# --------------------------------------------------- the buyer at concurrency 32 to 128


def test_quiet_load_offer_is_established_on_its_own(sdeval):
    result = sdeval("assess", QUIET, "-f", "json")
    assert result.exit_code == 0
    assert [c["verdict"] for c in result.json()["files"][0]["claims"]] == ["established"] * 3


def test_buyer_at_32_to_128_gets_no_offer_that_meets_everything(sdeval):
    result = sdeval("assess", COMPLETE, QUIET, "--requirements", BUYER, "-f", "json")
    assert result.exit_code == 1
    doc = fit(result)
    expected = {
        "latency-e2e-p99": ("not-established", ["requirement-load-uncovered"], "not-established", ["requirement-load-uncovered"]),
        "latency-ttft-p99": ("not-established", ["requirement-load-uncovered"], "not-established", ["requirement-load-uncovered"]),
        "throughput-aggregate": (
            "not-established",
            ["requirement-between-loads", "requirement-load-uncovered"],
            "not-established",
            ["requirement-load-uncovered"],
        ),
        "quality-1": ("met", [], "met", []),
        "task": ("met", [], "met", []),
        "sampling": ("met", [], "met", []),
        "scope": ("met", [], "met", []),
        "identity": ("met", [], "met", []),
        "lossless-acceptance": ("met", [], "met", []),
    }
    got = {
        r["id"]: (
            doc["matrix"][r["id"]][COMPLETE]["status"],
            doc["matrix"][r["id"]][COMPLETE]["codes"],
            doc["matrix"][r["id"]][QUIET]["status"],
            doc["matrix"][r["id"]][QUIET]["codes"],
        )
        for r in doc["requirements"]
    }
    assert got == expected
    assert doc["ranking"] == {
        "meets_all": [],
        "statements": [
            "No offer meets every requirement.",
            f"{NAME_COMPLETE} and {NAME_QUIET} tie at rank 1: each meets 6 of 9 requirements.",
        ],
    }
    assert [(o["rank"], o["met"], o["not_met"], o["not_established"]) for o in doc["offers"]] == [(1, 6, 0, 3), (1, 6, 0, 3)]


def test_quiet_load_offer_fails_the_buyer_because_nothing_is_known_at_32_to_128(sdeval):
    doc = fit(sdeval("assess", QUIET, "--requirements", BUYER, "-f", "json"))
    points = cell(doc, "latency-e2e-p99", QUIET)["points"]
    assert [(p["load"], p["basis"], p["status"], p["codes"], p["message"]) for p in points] == [
        (32, "none", "not-established", ["requirement-load-uncovered"], "no run at concurrency 32 nor on both sides of it (measured: 1, 8)"),
        (128, "none", "not-established", ["requirement-load-uncovered"], "no run at concurrency 128 nor on both sides of it (measured: 1, 8)"),
    ]


def test_band_is_judged_at_its_ends_measured_loads_and_k_band_edges(sdeval):
    doc = fit(sdeval("assess", COMPLETE, "--requirements", BUYER, "-f", "json"))
    points = cell(doc, "latency-e2e-p99", COMPLETE)["points"]
    assert [(p["load"], p["basis"], p["runs"], p["values"], p["status"]) for p in points] == [
        (32, "bracketed", ["eagle3-c8", "eagle3-c64"], [10300, 19800], "met"),
        (64, "measured", ["eagle3-c64"], [19800], "met"),
        (65, "none", ["eagle3-c64", "eagle3-c256"], [], "not-established"),
        (128, "none", ["eagle3-c64", "eagle3-c256"], [], "not-established"),
    ]
    assert points[2]["message"] == (
        "no run at concurrency 65; the nearest runs eagle3-c64 (K = 3) and eagle3-c256 (K = 0) lie in other K bands than concurrency 65 (K = 1)"
    )
    between = cell(doc, "throughput-aggregate", COMPLETE)["points"][0]
    assert (between["status"], between["codes"]) == ("not-established", ["requirement-between-loads"])
    assert between["message"] == (
        "at concurrency 32 (not measured), judged on the measured loads around it, 8 (553 tokens/s, run eagle3-c8) and 64 (2,226 tokens/s, "
        "run eagle3-c64): not met at 8, the next measured load below your 32, so undecided here (nothing between them was measured, "
        "and no estimate decides it)"
    )


# ------------------------------------------------------------- each code, one variant


def test_slo_not_met(sdeval, tmp_path):
    path = profile(tmp_path, loads={"concurrency": [64]}, latency_limits=[{"metric": "e2e", "percentile": "p99", "limit_ms": 15000}])
    result = sdeval("assess", COMPLETE, "--requirements", path, "-f", "json")
    assert result.exit_code == 1
    c = cell(fit(result), "latency-e2e-p99", COMPLETE)
    assert (c["status"], c["codes"], c["message"]) == ("not-met", ["slo-not-met"], "at concurrency 64: 19,800 ms (run eagle3-c64)")


def test_the_limit_is_strict_as_in_mlperf(sdeval, tmp_path):
    path = profile(tmp_path, loads={"concurrency": [64]}, latency_limits=[{"metric": "e2e", "percentile": "p99", "limit_ms": 19800}])
    assert cell(fit(sdeval("assess", COMPLETE, "-r", path, "-f", "json")), "latency-e2e-p99", COMPLETE)["status"] == "not-met"


def test_slo_not_met_on_both_sides_of_a_bracketed_load(sdeval, tmp_path):
    path = profile(tmp_path, loads={"concurrency": [32]}, latency_limits=[{"metric": "e2e", "percentile": "p99", "limit_ms": 10000}])
    c = cell(fit(sdeval("assess", COMPLETE, "-r", path, "-f", "json")), "latency-e2e-p99", COMPLETE)
    assert (c["status"], c["codes"], c["points"][0]["basis"]) == ("not-met", ["slo-not-met"], "bracketed")


def test_all_met_at_a_measured_load_and_exit_0(sdeval, tmp_path):
    path = profile(tmp_path, loads={"concurrency": [64]}, throughput={"aggregate_tokens_per_s": 2000})
    result = sdeval("assess", COMPLETE, QUIET, "-r", path, "-f", "json")
    assert result.exit_code == 0
    doc = fit(result)
    assert doc["ranking"]["meets_all"] == [COMPLETE]
    assert doc["ranking"]["statements"][0] == f"Only {NAME_COMPLETE} meets every requirement."


def test_throughput_below_requirement(sdeval, tmp_path):
    path = tmp_path / "req.yaml"
    path.write_text(example("requirements-sd201.yaml").read_text().replace("per_request_tokens_per_s: 180", "per_request_tokens_per_s: 250"))
    result = sdeval("assess", SD201_B, "-r", path, "-f", "json")
    assert result.exit_code == 1
    c = cell(fit(result), "throughput-per-request", SD201_B)
    assert (c["status"], c["codes"]) == ("not-met", ["throughput-below-requirement"])


def test_quality_below_threshold(sdeval, tmp_path):
    path = profile(
        tmp_path,
        quality=[{"task": "customer-support chat", "metric": "rubric pass rate (LLM judge, 3 judges majority)", "min_share_of_baseline": 0.999}],
    )
    c = cell(fit(sdeval("assess", QUIET, "-r", path, "-f", "json")), "quality-1", QUIET)
    assert (c["status"], c["codes"]) == ("not-met", ["quality-below-threshold"])
    assert c["message"] == "runs eagle3-c1, eagle3-c8: 0.858 against at least 0.860 = 0.999 x baseline 0.861"


def test_quality_absolute_threshold_met(sdeval, tmp_path):
    path = profile(
        tmp_path, quality=[{"task": "Customer-support chat", "metric": "rubric pass rate (LLM judge, 3 judges majority)", "min_score": 0.85}]
    )
    assert cell(fit(sdeval("assess", QUIET, "-r", path, "-f", "json")), "quality-1", QUIET)["status"] == "met"


def test_sampling_mismatch(sdeval, tmp_path):
    doc = fit(sdeval("assess", QUIET, "-r", profile(tmp_path, sampling={"temperature": 0}), "-f", "json"))
    row = cell(doc, "sampling", QUIET)
    assert (row["status"], row["codes"]) == ("not-met", ["sampling-mismatch"])
    assert row["message"].startswith("run eagle3-c1 was sampled with temperature 0.7 (yours 0)")
    # Evidence sampled otherwise counts for nothing, so the quality result is not the buyer's either.
    assert cell(doc, "quality-1", QUIET)["codes"] == ["sampling-mismatch"]


def test_sampling_mismatch_at_a_load(sdeval, tmp_path):
    path = profile(tmp_path, sampling={"temperature": 0}, loads={"concurrency": [8]})
    c = cell(fit(sdeval("assess", QUIET, "-r", path, "-f", "json")), "latency-e2e-p99", QUIET)
    assert (c["status"], c["codes"]) == ("not-established", ["sampling-mismatch"])
    assert c["message"] == "at concurrency 8: run eagle3-c8 was sampled with temperature 0.7 (yours 0)"


def test_scope_mismatch(sdeval, tmp_path):
    path = profile(tmp_path, scope="generation-only", loads={"concurrency": [8]})
    doc = fit(sdeval("assess", QUIET, "-r", path, "-f", "json"))
    assert (cell(doc, "scope", QUIET)["status"], cell(doc, "scope", QUIET)["codes"]) == ("not-met", ["scope-mismatch"])
    assert cell(doc, "throughput-aggregate", QUIET)["codes"] == ["scope-mismatch"]
    assert cell(doc, "scope", QUIET)["message"].startswith("run eagle3-c1 was timed end-to-end, not generation-only")


def test_task_mismatch(sdeval, tmp_path):
    path = profile(tmp_path, tasks=["code completion"], quality=[{"task": "code completion", "metric": "pass@1", "min_score": 0.5}])
    doc = fit(sdeval("assess", QUIET, "-r", path, "-f", "json"))
    assert (cell(doc, "task", QUIET)["status"], cell(doc, "task", QUIET)["codes"]) == ("not-met", ["task-mismatch"])
    assert cell(doc, "task", QUIET)["message"] == 'run eagle3-c1 measured "customer-support chat"; run eagle3-c8 measured "customer-support chat"'
    q = cell(doc, "quality-1", QUIET)
    assert (q["status"], q["codes"]) == ("not-established", ["task-mismatch"])


def test_requirement_figure_missing(sdeval, tmp_path):
    path = profile(tmp_path, loads={"concurrency": [8]}, latency_limits=[{"metric": "itl", "percentile": "p99", "limit_ms": 50}])
    c = cell(fit(sdeval("assess", QUIET, "-r", path, "-f", "json")), "latency-itl-p99", QUIET)
    assert (c["status"], c["codes"], c["message"]) == (
        "not-established",
        ["requirement-figure-missing"],
        "at concurrency 8: run eagle3-c8 reports no p99 inter-token latency",
    )


def test_identity_mismatch(sdeval, tmp_path):
    path = profile(tmp_path, pinned_identity={"hardware.accelerator": "NVIDIA B200", "target.model": "meta-llama/Llama-3.3-70B-Instruct"})
    c = cell(fit(sdeval("assess", QUIET, "-r", path, "-f", "json")), "identity", QUIET)
    assert (c["status"], c["codes"], c["message"]) == (
        "not-met",
        ["identity-mismatch"],
        'configuration eagle3-k3 has hardware.accelerator "NVIDIA H100 SXM5 80GB", not "NVIDIA B200"',
    )


def test_relaxed_acceptance_refused(sdeval, tmp_path):
    offer = yaml.safe_load(Path(QUIET).read_text())
    offer["configurations"][0]["proposer"]["relaxed_acceptance"] = {"enabled": True, "top_k": 3, "delta": 0.5}
    offer["claims"] = [c for c in offer["claims"] if c["kind"] != "lossless"]  # else lossy-acceptance fires
    offer_path = tmp_path / "relaxed.json"
    offer_path.write_text(json.dumps(offer))
    doc = fit(sdeval("assess", offer_path, "-r", BUYER, "-f", "json"))
    c = cell(doc, "lossless-acceptance", str(offer_path))
    assert (c["status"], c["codes"]) == ("not-met", ["relaxed-acceptance-refused"])
    allowed = profile(tmp_path, lossy_acceptance_allowed=True)
    assert "lossless-acceptance" not in {r["id"] for r in fit(sdeval("assess", offer_path, "-r", allowed, "-f", "json"))["requirements"]}


def test_a_run_no_claim_rests_on_is_still_checked_before_it_counts(sdeval, tmp_path):
    offer = yaml.safe_load(Path(QUIET).read_text())
    extra = json.loads(json.dumps(next(r for r in offer["runs"] if r["id"] == "eagle3-c8")))
    extra.update(id="eagle3-c64-unclaimed", load={"concurrency": 64, "loop": "closed", "multi_sequence_share": 0.0})
    extra["interval"].pop("start_event")
    offer["runs"].append(extra)
    offer_path = tmp_path / "unclaimed.json"
    offer_path.write_text(json.dumps(offer))
    assert sdeval("validate", offer_path).exit_code == 0  # no claim rests on it, so the record rules pass
    path = profile(tmp_path, loads={"concurrency": [64]})
    c = cell(fit(sdeval("assess", offer_path, "-r", path, "-f", "json")), "latency-e2e-p99", str(offer_path))
    assert (c["status"], c["codes"]) == ("not-established", ["interval-undefined"])


def test_an_invalid_offer_file_is_not_established_and_ranked_last(sdeval, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"record_version": "1.0"}')
    result = sdeval("assess", bad, SD201_B, "-r", example("requirements-sd201.yaml"), "-f", "json")
    doc = fit(result)
    assert result.exit_code == 0
    assert {r["status"] for r in doc["results"] if r["offer"] == str(bad)} == {"not-established"}
    assert cell(doc, "scope", str(bad))["codes"] == ["schema"]
    assert [o["file"] for o in doc["offers"]] == [SD201_B, str(bad)]


def test_ties_between_offers_that_meet_everything_are_stated(sdeval, tmp_path):
    path = tmp_path / "req.yaml"
    path.write_text(example("requirements-sd201.yaml").read_text().replace("per_request_tokens_per_s: 180", "per_request_tokens_per_s: 50"))
    copy = tmp_path / "b-again.json"
    copy.write_text(Path(SD201_B).read_text())
    doc = fit(sdeval("assess", SD201_B, copy, "-r", path, "-f", "json"))
    # Two offers by the same name are told apart by their files' base names.
    assert doc["ranking"]["statements"] == [
        f"{NAME_B} (sd201-offer-b.json) and {NAME_B} (b-again.json) each meet every requirement: a tie that these requirements do not break."
    ]
    assert [o["rank"] for o in doc["offers"]] == [1, 1]


def test_named_offer_baseline_for_speedups_and_quality(sdeval, tmp_path):
    path = profile(tmp_path, baseline={"kind": "offer", "offer_id": "QL-2026-031"})
    doc = fit(sdeval("assess", COMPLETE, QUIET, "-r", path, "-f", "json"))
    assert doc["baseline"] == f"offer QL-2026-031 ({NAME_QUIET})"
    complete = next(f for f in doc["figures"] if f["offer"] == COMPLETE)["series"][0]["points"]
    assert [(p["concurrency"], p["baseline_run"]) for p in complete] == [(1, "eagle3-c1"), (8, "eagle3-c8"), (64, None), (256, None)]
    assert complete[0]["speedup"] == 1.0
    assert cell(doc, "quality-1", COMPLETE)["message"].endswith("0.858 against at least 0.841 = 0.98 x baseline 0.858")


def test_a_limit_reads_as_stated_and_a_figure_beside_it_never_rounds_onto_it(sdeval, tmp_path):
    # eagle3-c8's p99 TTFT is 171 ms. Against "below 170.96 ms" it fails; printed to three significant
    # figures both would read "171 ms", a failure that looks like a pass. The limit keeps its digits;
    # against "below 171.04 ms" the figure passes and reads as itself.
    offer = str(EXAMPLES / "complete-offer.yaml")
    for limit, verdict in ((170.96, "NOT MET"), (171.04, "met")):
        limits = [{"metric": "ttft", "percentile": "p99", "limit_ms": limit}]
        path = profile(tmp_path, loads={"concurrency": [8]}, latency_limits=limits)
        text = " ".join(sdeval("assess", offer, "-r", path).stdout.split())
        assert f"latency-ttft-p99 (p99 time to first token below {limit} ms at every required load): {verdict}" in text
        assert "at concurrency 8: 171 ms (run eagle3-c8)" in text


def test_a_figure_that_fails_its_limit_by_a_hair_is_printed_apart_from_it(sdeval, tmp_path):
    data = yaml.safe_load((EXAMPLES / "complete-offer.yaml").read_text())
    (run,) = [r for r in data["runs"] if r["id"] == "eagle3-c8"]
    run["latency"]["ttft_ms"]["p99"] = 1000.4  # three significant figures would print 1,000: the limit itself
    offer = tmp_path / "offer.json"
    offer.write_text(json.dumps(data))
    path = profile(tmp_path, loads={"concurrency": [8]}, latency_limits=[{"metric": "ttft", "percentile": "p99", "limit_ms": 1000}])
    text = " ".join(sdeval("assess", str(offer), "-r", path).stdout.split())
    assert "at concurrency 8: 1,000.4 ms (run eagle3-c8)" in text
