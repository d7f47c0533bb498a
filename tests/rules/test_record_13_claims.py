"""Record 1.3's claim forms: a throughput counting total tokens ((I + E) / T, per accelerator too) and
a per-user comparison at matched throughput per accelerator (a step function over each side's sweep);
a batch-synchronous load; and the blank form showing the 1.3 fields commented. Figures on exact
fractions of complete-offer.yaml's counts, as the engine computes them."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
import yaml
from conftest import example

from evaluator.engine.record import EvidenceRecord
from evaluator.form.blank import blank_form
from evaluator.pipeline import reassess

INPUT_C64 = 384 * 1180  # 384 requests of 1,180 prompt tokens
TOTAL_C64 = Fraction(INPUT_C64 + 196609) / Fraction("88.324")
USER_EAGLE_C64 = Fraction(196609) / Fraction("88.324") / 64
USER_TARGET_C64 = Fraction(196608) / Fraction("115.516") / 64
USER_TARGET_C256 = Fraction(393216) / Fraction("100.541") / 256
SWEEPS = {"sweep": ["eagle3-c1", "eagle3-c64", "eagle3-c256"], "baseline_sweep": ["target-only-c1", "target-only-c64", "target-only-c256"]}


def offer(*claims: dict, input_tokens: int | None = INPUT_C64) -> dict:
    data = yaml.safe_load(example("complete-offer.yaml").read_text())
    data["record_version"] = "1.3"
    if input_tokens is not None:
        next(r for r in data["runs"] if r["id"] == "eagle3-c64")["counts"]["input_tokens"] = input_tokens
    data["claims"] += list(claims)
    return data


def judged(data: dict, claim_id: str):
    result = reassess([("offer.json", json.dumps(data).encode())]).results[0]
    claim = next(c for c in result.claims if c.id == claim_id)
    return claim, [(f.code, f.message) for f in claim.findings if f.severity == "error"]


def total(value: float, **fields) -> dict:
    return {
        "id": "total",
        "text": f"{value} total tokens/s",
        "kind": "output-throughput",
        "counted": "total-tokens",
        "value": value,
        "unit": "tokens/s",
        "run": "eagle3-c64",
        "concurrency": 64,
        "task": "customer-support chat",
        **fields,
    }


# ------------------------------------------------------------------ total tokens


def test_a_total_token_throughput_is_prompt_plus_output_tokens_over_the_interval():
    claim, errors = judged(offer(total(round(float(TOTAL_C64)))), "total")
    assert claim.computed["value"] == pytest.approx(float(TOTAL_C64), rel=1e-12)
    assert "(I + E) / T" in claim.computed["figure"]
    assert errors == []


def test_a_total_token_throughput_per_gpu_divides_by_the_configurations_accelerators():
    claim, errors = judged(offer(total(round(float(TOTAL_C64 / 4)), throughput_per="accelerator")), "total")
    assert claim.computed["value"] == pytest.approx(float(TOTAL_C64 / 4), rel=1e-12)
    assert errors == []
    # Output tokens alone are far below what was claimed: the claim is not established.
    claim, errors = judged(offer(total(round(float(TOTAL_C64 / 4)), throughput_per="accelerator", counted="emitted-output")), "total")
    assert [code for code, _ in errors] == ["claim-mismatch"]


def test_a_total_token_throughput_needs_the_prompt_tokens_counted():
    claim, errors = judged(offer(total(7357), input_tokens=None), "total")
    assert claim.verdict == "not-established"
    assert claim.computed["value"] is None
    assert [code for code, _ in errors] == ["counts-missing"]
    assert "input_tokens" in errors[0][1]


def test_a_total_token_speedup_is_the_ratio_of_both_sides_totals():
    data = offer(total(2.0, kind="speedup", unit="x", baseline="target-only-c64"))
    next(r for r in data["runs"] if r["id"] == "target-only-c64")["counts"]["input_tokens"] = INPUT_C64
    claim, _ = judged(data, "total")
    expected = TOTAL_C64 / (Fraction(INPUT_C64 + 196608) / Fraction("115.516"))
    assert claim.computed["value"] == pytest.approx(float(expected), rel=1e-12)


# ------------------------------------------------- matched throughput per accelerator


def matched(value: float, at: float, **fields) -> dict:
    return {
        "id": "matched",
        "text": f"{value}x tokens/s per user at nearly identical GPU throughput",
        "kind": "speedup",
        "counted": "per-user-output",
        "value": value,
        "unit": "x",
        "run": "eagle3-c64",
        "baseline": "target-only-c64",
        "at_accelerator_throughput": at,
        "task": "customer-support chat",
        **SWEEPS,
        **fields,
    }


def test_matched_throughput_takes_each_sides_fastest_per_user_run_at_that_throughput_per_gpu():
    # At 400 tokens/s per GPU or more: eagle3-c64 (556.5) and c256 qualify, target-only-c64 (425.5) and
    # c256; the fastest per user of each are the c64 runs.
    expected = USER_EAGLE_C64 / USER_TARGET_C64
    claim, errors = judged(offer(matched(round(float(expected), 2), 400)), "matched")
    assert claim.computed["value"] == pytest.approx(float(expected), rel=1e-12)
    assert "run eagle3-c64 against baseline target-only-c64" in claim.computed["figure"]
    assert errors == []


def test_matched_throughput_is_a_step_function_never_interpolated():
    # At 500 per GPU target-only-c64 (425.5) no longer qualifies: the baseline's point jumps to c256.
    expected = USER_EAGLE_C64 / USER_TARGET_C256
    claim, _ = judged(offer(matched(1.3, 500)), "matched")
    assert claim.computed["value"] == pytest.approx(float(expected), rel=1e-12)
    assert "against baseline target-only-c256" in claim.computed["figure"]


def test_a_throughput_no_run_of_a_side_reaches_is_load_extrapolated_not_unstated():
    claim, errors = judged(offer(matched(1.3, 1000)), "matched")
    codes = [code for code, _ in errors]
    assert "load-extrapolated" in codes and "load-unstated" not in codes
    messages = sorted(m for code, m in errors if code == "load-extrapolated")
    assert [m.split(" (")[0] for m in messages] == [
        "the claim is stated at 1,000 output tokens/s per accelerator, but no baseline run reaches it",
        "the claim is stated at 1,000 output tokens/s per accelerator, but no run run reaches it",
    ]
    assert "the busiest, eagle3-c256, 963 tokens/s per accelerator" in messages[1]
    finding = next(f for f in claim.findings if f.code == "load-extrapolated")
    assert finding.pointer == "/claims/7/at_accelerator_throughput"


# ------------------------------------------------------------ load and the form


def test_a_batch_synchronous_load_reads_per_user_speed_as_a_closed_loop_does():
    data = offer()
    run = next(r for r in data["runs"] if r["id"] == "eagle3-c64")
    run["load"] = {"concurrency": 64, "loop": "batch-synchronous", "rounds": 3}
    record = EvidenceRecord.model_validate_json(json.dumps(data))
    from evaluator.engine.unit_figures import per_user, tokens_per_s

    loaded = next(r for r in record.runs if r.id == "eagle3-c64")
    assert per_user(loaded, tokens_per_s(loaded)) == (USER_EAGLE_C64, "E / T / concurrency")


def test_the_blank_form_shows_the_1_3_fields_with_their_help():
    """`sdeval init`: each 1.3 field is in the blank form under its description, which says it is 1.3's
    (a scalar left empty, a block written commented out)."""
    form = blank_form().splitlines()
    for field in (
        "at_accelerator_throughput",
        "validity_gates",
        "deployment",
        "reasoning_effort",
        "residency",
        "k_schedule_kind",
        "input_tokens",
        "prefix_cache",
    ):
        at = next(n for n, line in enumerate(form) if line.lstrip("# -").startswith(f"{field}:"))
        help_lines = []
        for line in reversed(form[:at]):
            if not line.lstrip().startswith("# ") or line.lstrip().startswith(("#- ", "# -")) or ":" in line.split("#", 1)[1][:40].split(" ")[1:2]:
                break
            help_lines.insert(0, line.strip()[2:])
        assert "record 1.3" in " ".join(help_lines).lower(), (field, help_lines)
