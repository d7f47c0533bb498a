"""`sdeval claim`: a claim computed from the runs' counts, with load, scope and task from the run;
refused, writing nothing, when it could not be established by its own evidence."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import example

from evaluator.engine.metrics import exact


@pytest.fixture
def bare(tmp_path):
    """complete-offer.yaml without its claims, as a vendor has it before writing any."""
    data = yaml.safe_load(example("complete-offer.yaml").read_text())
    data["claims"] = []
    path = tmp_path / "offer.json"
    path.write_text(json.dumps(data, indent=2))
    return path, data


def run(data, run_id):
    return next(r for r in data["runs"] if r["id"] == run_id)


def test_speedup_at_concurrency_8_is_1_90x_and_the_record_validates(sdeval, bare, tmp_path):
    path, data = bare
    out = tmp_path / "with-claim.json"
    result = sdeval("claim", path, "--run", "eagle3-c8", "--baseline", "target-only-c8", "--kind", "speedup", "-o", out)
    assert result.exit_code == 0, result.stderr
    claim = json.loads(out.read_text())["claims"][0]
    assert claim == {
        "id": "speedup-eagle3-c8",
        "text": "1.90x output throughput against target-only-c8 at 8 concurrent requests (customer-support chat)",
        "kind": "speedup",
        "value": 1.9,
        "unit": "x",
        "counted": "emitted-output",
        "run": "eagle3-c8",
        "baseline": "target-only-c8",
        "concurrency": 8,
        "scope": "end-to-end",
        "task": "customer-support chat",
    }
    # The value is the rules' own figure, (E / T) / (E_b / T_b), as a person writes it.
    spec, base = run(data, "eagle3-c8"), run(data, "target-only-c8")
    ratio = (exact(spec["counts"]["emitted_tokens"]) / exact(spec["interval"]["duration_s"])) / (
        exact(base["counts"]["emitted_tokens"]) / exact(base["interval"]["duration_s"])
    )
    assert round(float(ratio), 2) == 1.90
    assessed = sdeval("assess", out, "-f", "json").json()
    assert assessed["files"][0]["claims"][0]["verdict"] == "established"
    assert [f["code"] for f in assessed["findings"] if f["severity"] == "error"] == []
    assert result.stderr == f"sdeval: added claim speedup-eagle3-c8 ({claim['text']}) to {out}\nsdeval: claim speedup-eagle3-c8: established\n"


def test_without_an_output_the_claim_is_printed(sdeval, bare):
    path, _ = bare
    result = sdeval("claim", path, "--run", "eagle3-c64", "--kind", "output-throughput")
    assert result.exit_code == 0
    (claim,) = result.json()["claims"]
    assert (claim["value"], claim["unit"], claim["text"]) == (
        2226.0,
        "tokens/s",
        "2,226 output tokens/s at 64 concurrent requests (customer-support chat)",
    )


def test_a_latency_claim_takes_the_measured_percentile(sdeval, bare):
    path, _ = bare
    result = sdeval("claim", path, "--run", "eagle3-c64", "--kind", "latency", "--latency-metric", "tpot", "--percentile", "p99")
    (claim,) = result.json()["claims"]
    assert (claim["value"], claim["latency_metric"], claim["percentile"], claim["counted"]) == (37.6, "tpot", "p99", "response-time")


def test_a_baseline_not_on_equal_terms_is_refused_and_nothing_is_written(sdeval, bare, tmp_path):
    path, _ = bare
    before = path.read_bytes()
    out = tmp_path / "never.json"
    for target in (["-o", out], ["--in-place"]):
        result = sdeval("claim", path, "--run", "eagle3-c8", "--baseline", "target-only-c64", "--kind", "speedup", *target)
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr == (
            "sdeval: baseline target-only-c64 is not measured on equal terms with run eagle3-c8: "
            "workload.num_requests 96 vs 384; load.concurrency 8 vs 64\n"
        )
    assert not out.exists() and path.read_bytes() == before


def test_a_run_without_the_counts_is_refused(sdeval, bare, tmp_path):
    path, data = bare
    del run(data, "eagle3-c8")["counts"]["emitted_tokens"]
    path.write_text(json.dumps(data))
    result = sdeval("claim", path, "--run", "eagle3-c8", "--kind", "output-throughput", "-o", tmp_path / "x.json")
    assert result.exit_code == 2
    assert result.stderr == "sdeval: emitted output tokens/s (E / T) cannot be computed: emitted_tokens missing (run eagle3-c8)\n"
    assert not (tmp_path / "x.json").exists()


def test_a_run_without_a_load_is_refused(sdeval, bare):
    path, data = bare
    del run(data, "eagle3-c8")["load"]
    path.write_text(json.dumps(data))
    result = sdeval("claim", path, "--run", "eagle3-c8", "--kind", "output-throughput")
    assert result.exit_code == 2
    assert result.stderr == "sdeval: run eagle3-c8 states no concurrency or request rate; a claim holds only at the load it was measured at\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--run", "nope", "--kind", "output-throughput"], "has no run 'nope'"),
        (["--run", "eagle3-c8", "--kind", "speedup"], "a speedup needs --baseline RUN"),
        (["--run", "eagle3-c8", "--kind", "latency"], "a latency claim needs --latency-metric"),
        (
            ["--run", "eagle3-c8", "--kind", "output-throughput", "--task", "translation"],
            'run eagle3-c8 measured "customer-support chat", not "translation"',
        ),
        (["--run", "eagle3-c8", "--baseline", "eagle3-c8", "--kind", "speedup"], "run eagle3-c8 cannot be its own baseline"),
    ],
)
def test_one_line_refusals(sdeval, bare, args, message):
    path, _ = bare
    result = sdeval("claim", path, *args)
    assert result.exit_code == 2 and result.stdout == ""
    assert message in result.stderr and result.stderr.count("\n") == 1


def test_an_id_already_taken_is_refused(sdeval, tmp_path):
    result = sdeval(
        "claim", example("complete-offer.yaml"), "--run", "eagle3-c8", "--baseline", "target-only-c8", "--kind", "speedup", "--id", "speedup-c8"
    )
    assert result.exit_code == 2
    assert "already has a claim 'speedup-c8'; choose another with --id" in result.stderr


def test_the_text_can_be_overridden_and_a_generated_id_never_collides(sdeval, bare, tmp_path):
    path, _ = bare
    out = tmp_path / "two.json"
    assert sdeval("claim", path, "--run", "eagle3-c1", "--baseline", "target-only-c1", "--kind", "speedup", "-o", out).exit_code == 0
    result = sdeval(
        "claim",
        out,
        "--run",
        "eagle3-c1",
        "--baseline",
        "target-only-c1",
        "--kind",
        "speedup",
        "--text",
        "Over twice as fast for one user",
        "--in-place",
    )
    assert result.exit_code == 0, result.stderr
    claims = json.loads(out.read_text())["claims"]
    assert [(c["id"], c["text"], c["value"]) for c in claims] == [
        ("speedup-eagle3-c1", "2.19x output throughput against target-only-c1 at 1 concurrent request (customer-support chat)", 2.19),
        ("speedup-eagle3-c1-2", "Over twice as fast for one user", 2.19),
    ]


def test_a_response_time_speedup_is_written_from_the_latencies(sdeval, bare):
    path, _ = bare
    result = sdeval(
        "claim", path, "--run", "eagle3-c8", "--baseline", "target-only-c8", "--kind", "speedup", "--latency-metric", "e2e", "--percentile", "p50"
    )
    (claim,) = result.json()["claims"]
    # p50 end-to-end: 14,100 ms target-only over 7,460 ms speculative.
    assert (claim["value"], claim["counted"], claim["latency_metric"], claim["percentile"]) == (1.89, "response-time", "e2e", "p50")
    assert claim["text"] == "1.89x faster p50 end-to-end latency against target-only-c8 at 8 concurrent requests (customer-support chat)"


def test_claim_says_whether_the_new_claim_is_established_and_what_stands_in_its_way(sdeval, bare, tmp_path):
    path, data = bare
    out = tmp_path / "with-claim.json"
    ok = sdeval("claim", path, "--run", "eagle3-c8", "--baseline", "target-only-c8", "--kind", "speedup", "-o", out)
    assert ok.exit_code == 0 and ok.stderr.splitlines()[-1] == "sdeval: claim speedup-eagle3-c8: established"
    del data["configurations"][0]["runtime"]["version"]
    path.write_text(json.dumps(data))
    printed = sdeval("claim", path, "--run", "eagle3-c8", "--baseline", "target-only-c8", "--kind", "speedup")
    assert printed.exit_code == 0 and json.loads(printed.stdout)["claims"][0]["id"] == "speedup-eagle3-c8"
    assert printed.stderr.splitlines() == [
        "sdeval: claim speedup-eagle3-c8: NOT ESTABLISHED; 1 error stands in its way:",
        "sdeval:   identity-incomplete at /configurations/0/runtime/version: configuration eagle3-dynamic-k does not state runtime.version",
    ]


def test_an_unequal_population_names_the_failed_request_behind_it(sdeval, bare, tmp_path):
    # As `sdeval measure` writes it: one of 16 requests timed out, so 15 completed and every
    # per-request mean moved; the cause is the failed request, and the refusal names it.
    path, data = bare
    spec, base = run(data, "eagle3-c8"), run(data, "target-only-c8")
    for r in (spec, base):
        r["workload"].update(num_requests=16, requests_sent=16, requests_failed=0, input_tokens_mean=72.125)
    spec["workload"].update(num_requests=15, requests_failed=1, input_tokens_mean=69.333)
    path.write_text(json.dumps(data))
    result = sdeval("claim", path, "--run", "eagle3-c8", "--baseline", "target-only-c8", "--kind", "speedup", "-o", tmp_path / "x.json")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "sdeval: baseline target-only-c8 is not measured on equal terms with run eagle3-c8: "
        "workload.num_requests 15 vs 16; workload.input_tokens_mean 69.333 vs 72.125; "
        "because run eagle3-c8: 1 of 16 requests sent failed or did not complete (measure again until every request completes)\n"
    )


def test_claim_without_kind_is_one_clear_line(sdeval, bare):
    path, _ = bare
    result = sdeval("claim", path, "--run", "eagle3-c8")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "sdeval: --kind is missing: say what is claimed, one of output-throughput, speedup, latency, acceptance-rate, acceptance-length\n"
    )
