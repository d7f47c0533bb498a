"""The vendor's path: vllm bench serve results with /metrics scrapes around each, both arms at two
concurrencies, into one record; and the per-request and counter formats of SGLang and llama.cpp.

The bench results and scrapes are written by the tests from the documented shapes (vllm bench
serve --save-result keys of vllm/benchmarks/serve.py; vLLM's metric names, labels and help texts
of ../shared/formats.md section 2), with counts that satisfy every counting identity.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.tool_outputs import MODEL, bench_result, runs_of

DATA = Path(__file__).resolve().parents[1] / "data" / "importers"

# arm, concurrency: completed requests, output tokens, duration, spec counters (S, P, A, per position)
ARMS = {
    ("spec", 1): (100, 12800, 64.0, (4000, 12000, 8700, [3600, 2900, 2200])),
    ("spec", 8): (400, 51200, 96.0, (16600, 49800, 34200, [14000, 11400, 8800])),
    ("base", 1): (100, 12800, 110.0, None),
    ("base", 8): (400, 51200, 150.0, None),
}
# The server's counters before each benchmark: what earlier benchmarks left there.
EARLIER = {"requests": 250, "tokens": 31000, "spec": (9000, 27000, 19000, [8000, 6500, 4500])}


def scrape(requests: int, tokens: int, spec, running: int = 0) -> str:
    """A vLLM /metrics text with the families the importer reads (and *_created noise)."""
    labels = f'engine="0",model_name="{MODEL}"'
    lines = [
        "# HELP vllm:num_requests_running Number of requests in model execution batches.",
        "# TYPE vllm:num_requests_running gauge",
        f"vllm:num_requests_running{{{labels}}} {float(running)}",
        "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.",
        "# TYPE vllm:num_requests_waiting gauge",
        f"vllm:num_requests_waiting{{{labels}}} 0.0",
        "# HELP vllm:generation_tokens_total Number of generation tokens processed.",
        "# TYPE vllm:generation_tokens_total counter",
        f"vllm:generation_tokens_total{{{labels}}} {float(tokens)}",
        f"vllm:generation_tokens_created{{{labels}}} 1.7869290186211162e+09",
        "# HELP vllm:request_success_total Count of successfully processed requests.",
        "# TYPE vllm:request_success_total counter",
        f'vllm:request_success_total{{engine="0",finished_reason="stop",model_name="{MODEL}"}} 10.0',
        f'vllm:request_success_total{{engine="0",finished_reason="length",model_name="{MODEL}"}} {float(requests - 10)}',
    ]
    if spec:
        S, P, A, per_pos = spec
        for name, help_text, value in (
            ("spec_decode_num_drafts", "Number of spec decoding drafts.", S),
            ("spec_decode_num_draft_tokens", "Number of draft tokens.", P),
            ("spec_decode_num_accepted_tokens", "Number of accepted tokens.", A),
        ):
            lines += [f"# HELP vllm:{name}_total {help_text}", f"# TYPE vllm:{name}_total counter", f"vllm:{name}_total{{{labels}}} {float(value)}"]
        lines += [
            "# HELP vllm:spec_decode_num_accepted_tokens_per_pos_total Accepted tokens per draft position.",
            "# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter",
        ] + [f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{{labels},position="{p}"}} {float(n)}' for p, n in enumerate(per_pos)]
    return "\n".join(lines) + "\n"


def add(a, b):
    return None if a is None else (a[0] + b[0], a[1] + b[1], a[2] + b[2], [x + y for x, y in zip(a[3], b[3])])


def write_arm(tmp_path: Path, arm: str, concurrency: int, extra_requests: int = 0, extra_tokens: int = 0) -> tuple[Path, Path, Path]:
    completed, tokens, duration, spec = ARMS[(arm, concurrency)]
    name = f"{arm}-c{concurrency}"
    result = tmp_path / f"{name}.json"
    result.write_text(json.dumps(bench_result(completed, tokens, duration, concurrency, spec), indent=2))
    before_spec = EARLIER["spec"] if spec else None
    before = tmp_path / f"{name}-before.prom"
    after = tmp_path / f"{name}-after.prom"
    before.write_text(scrape(EARLIER["requests"], EARLIER["tokens"], before_spec))
    after.write_text(
        scrape(EARLIER["requests"] + completed + extra_requests, EARLIER["tokens"] + tokens + extra_tokens, add(before_spec, spec) if spec else None)
    )
    return result, before, after


def write_record(tmp_path: Path) -> Path:
    """A record with the two configurations and the claims, waiting for its runs."""
    record = {
        "record_version": "1.0",
        "offer": {
            "vendor": "Acme Inference Ltd",
            "offer_id": "ACME-SD-7",
            "date": "2026-11-20",
            "claim_text": "2x faster at 1 and 8 concurrent chats.",
        },
        "configurations": [
            {"id": "eagle3", "target": {"model": MODEL}, "proposer": {"method": "eagle-3", "k": 3}},
            {"id": "target-only", "target": {"model": MODEL}, "proposer": {"method": "none"}},
        ],
        "runs": [],
        "claims": [
            {
                "id": f"speedup-c{c}",
                "text": f"2x faster at {c} concurrent",
                "kind": "speedup",
                "value": 1.72 if c == 1 else 1.56,
                "unit": "x",
                "counted": "emitted-output",
                "run": f"spec-c{c}",
                "baseline": f"base-c{c}",
                "concurrency": c,
            }
            for c in (1, 8)
        ],
    }
    path = tmp_path / "offer.json"
    path.write_text(json.dumps(record, indent=2))
    return path


def import_arms(sdeval, tmp_path: Path, with_scrapes: bool) -> Path:
    record = write_record(tmp_path)
    for arm, concurrency in ARMS:
        result, before, after = write_arm(tmp_path, arm, concurrency)
        configuration = "eagle3" if arm == "spec" else "target-only"
        args = ["import", "vllm-bench", result, "--run-id", f"{arm}-c{concurrency}", "--configuration", configuration, "--into", record, "--in-place"]
        if arm == "base":
            args += ["--arrangement", "target-only"]
        if with_scrapes:
            args += ["--metrics", before, after]
        done = sdeval(*args)
        assert done.exit_code == 0, done.stderr
    return record


def coverage_findings(sdeval, record: Path) -> list[dict]:
    result = sdeval("validate", record, "--format", "json")
    return [f for f in result.json()["findings"] if f["code"] == "coverage-gap"]


def test_scrapes_around_each_benchmark_settle_the_population_for_both_arms_at_two_concurrencies(sdeval, tmp_path):
    record = import_arms(sdeval, tmp_path, with_scrapes=True)
    assert coverage_findings(sdeval, record) == []
    runs = {r["id"]: r for r in json.loads(record.read_text())["runs"]}
    assert list(runs) == ["spec-c1", "spec-c8", "base-c1", "base-c8"]
    spec = runs["spec-c8"]["counts"]
    assert spec == {
        "verification_steps": 16600,
        "proposed_drafts": 49800,
        "accepted_drafts": 34200,
        "emitted_tokens": 51200,
        "accepted_per_position": [14000, 11400, 8800],
        "population": "benchmark-requests",
        "population_check": [
            {"count": "requests", "benchmark": 400, "server": 400},
            {"count": "output-tokens", "benchmark": 51200, "server": 51200},
            {"count": "requests-in-flight", "benchmark": 0, "server": 0},
            {"count": "verification-steps", "benchmark": 16600, "server": 16600},
            {"count": "proposed-drafts", "benchmark": 49800, "server": 49800},
            {"count": "accepted-drafts", "benchmark": 34200, "server": 34200},
        ],
    }
    assert runs["spec-c8"]["notes"] == (
        "The server's counters between the scrapes match the benchmark's (requests 400 in the benchmark, 400 on the server; "
        "output tokens 51200 in the benchmark, 51200 on the server; requests in flight 0 in the benchmark, 0 on the server; "
        "verification steps 16600 in the benchmark, 16600 on the server; proposed drafts 49800 in the benchmark, 49800 on the server; "
        "accepted drafts 34200 in the benchmark, 34200 on the server): it served only the benchmark's requests, so its speculative "
        "counters are the benchmark's."
    )
    assert [s["file"] for s in runs["spec-c8"]["source"]["server_scrapes"]] == ["spec-c8-before.prom", "spec-c8-after.prom"]
    assert runs["base-c1"]["counts"]["population"] == "benchmark-requests"
    assert runs["base-c1"]["counts"]["population_check"] == [
        {"count": "requests", "benchmark": 100, "server": 100},
        {"count": "output-tokens", "benchmark": 12800, "server": 12800},
        {"count": "requests-in-flight", "benchmark": 0, "server": 0},
    ]


def test_without_the_scrapes_coverage_gap_stays_and_names_what_to_capture(sdeval, tmp_path):
    record = import_arms(sdeval, tmp_path, with_scrapes=False)
    findings = coverage_findings(sdeval, record)
    assert [(f["run"], f["path"]) for f in findings] == [("spec-c1", "/runs/0/counts/population"), ("spec-c8", "/runs/1/counts/population")]
    assert findings[0]["message"] == (
        "run spec-c1: the counts mix server-wide counters with the benchmark's own requests, which may be different requests; "
        "to settle it, scrape the server's /metrics just before and just after the benchmark, with nothing else sent to it and "
        "import them with the result: sdeval import vllm-bench RESULT --metrics BEFORE AFTER, so the server's request and token "
        "counts can show it served only the benchmark"
    )


def test_a_server_that_served_more_than_the_benchmark_says_which_counts_differ_and_by_how_much(sdeval, tmp_path):
    # Scrapes around the whole command: vllm bench serve's initial test prompt (one request, 128 tokens) is in them.
    result, before, after = write_arm(tmp_path, "spec", 1, extra_requests=1, extra_tokens=128)
    done = sdeval("import", "vllm-bench", result, "--metrics", before, after)
    assert done.exit_code == 0, done.stderr
    [run] = done.json()["runs"]
    assert run["counts"]["population"] == "mixed"
    assert [c for c in run["counts"]["population_check"] if c["benchmark"] != c["server"]] == [
        {"count": "requests", "benchmark": 100, "server": 101},
        {"count": "output-tokens", "benchmark": 12800, "server": 12928},
    ]
    record = write_record(tmp_path)
    data = json.loads(record.read_text())
    data["runs"] = [{**run, "id": "spec-c1", "configuration": "eagle3"}]
    data["claims"] = data["claims"][:1]
    data["claims"][0]["baseline"] = None
    record.write_text(json.dumps(data))
    [finding] = coverage_findings(sdeval, record)
    assert finding["message"] == (
        "run spec-c1: the counts mix server-wide counters with the benchmark's own requests, which may be different requests: "
        "requests: 101 on the server against 100 in the benchmark (1 more); "
        "output tokens: 12,928 on the server against 12,800 in the benchmark (128 more)"
    )


def test_metrics_refusals(sdeval, tmp_path):
    result, before, after = write_arm(tmp_path, "spec", 1)
    wrong = sdeval("import", "guidellm", result, "--metrics", before, after)
    assert wrong.exit_code == 2
    assert "--metrics BEFORE AFTER applies to vllm-bench only" in wrong.stderr
    base_result, base_before, base_after = write_arm(tmp_path, "base", 1)
    # A speculative result with scrapes of a server that has no speculative counters.
    mismatched = sdeval("import", "vllm-bench", result, "--metrics", base_before, base_after)
    assert mismatched.exit_code == 2
    assert "has spec_decode_* figures but the scrapes" in mismatched.stderr
    assert "they are not of the server the benchmark ran against" in mismatched.stderr


def test_synthetic_acceptance_in_a_sweep_result_is_recorded(sdeval, tmp_path):
    completed, tokens, duration, spec = ARMS[("spec", 1)]
    result = bench_result(completed, tokens, duration, 1, spec)
    # vllm bench sweep merges the serve parameters it varied into each result.
    result["speculative_config"] = {
        "method": "eagle3",
        "num_speculative_tokens": 3,
        "rejection_sample_method": "synthetic",
        "synthetic_acceptance_length": 3.12,
    }
    result["run_number"] = 0
    path = tmp_path / "summary.json"
    path.write_text(json.dumps([result]))
    [run] = sdeval("import", "vllm-bench", path).json()["runs"]
    assert run["simulated_acceptance"] == {
        "mechanism": 'vLLM speculative_config {"rejection_sample_method": "synthetic", "synthetic_acceptance_length": 3.12}',
        "acceptance_length": 3.12,
    }
    dotted = bench_result(completed, tokens, duration, 1, spec) | {"speculative_config.rejection_sample_method": "synthetic"}
    path.write_text(json.dumps(dotted))
    [run] = sdeval("import", "vllm-bench", path).json()["runs"]
    assert run["simulated_acceptance"] == {"mechanism": 'vLLM speculative_config {"rejection_sample_method": "synthetic"}'}
    plain = bench_result(completed, tokens, duration, 1, spec) | {"speculative_config": '{"method": "eagle3", "rejection_sample_method": "standard"}'}
    path.write_text(json.dumps(plain))
    [run] = sdeval("import", "vllm-bench", path).json()["runs"]
    assert "simulated_acceptance" not in run


# --------------------------------------------------------------------------------- SGLang


def test_sglang_native_meta_info_sums_covered_requests_and_excludes_the_rest(sdeval):
    [run] = runs_of(sdeval("import", "sglang-responses", DATA / "sglang-responses-native.jsonl"))
    assert run["arrangement"] == "speculative"
    # a1 [2,1,3,4] + b1 [0,2,3,0] + b2 [0,0,0,4]; a2 never verified and has no figures.
    assert run["counts"] == {
        "verification_steps": 19,
        "proposed_drafts": 57,
        "accepted_drafts": 39,
        "emitted_tokens": 30 + 14 + 17,
        "accepted_length_histogram": [2, 3, 6, 8],
        "population": "benchmark-requests",
        "requests_with_metrics": 3,
        "requests_without_metrics": 1,
        "missing_metrics_as": "excluded",
    }
    assert run["workload"] == {"num_requests": 4}  # a batch line holds two requests
    assert run["notes"] == (
        "1 of 4 requests carried no speculative figures; their tokens are not in the counts. "
        "SGLang's own spec_accept_length is completion_tokens / spec_verify_ct (the first token, from the prefill, counted in), "
        "not 1 + A / S: it is not read, and request_acceptance's length histogram is 1 + A / S from the requests' own counts."
    )
    assert "reported" not in run


def test_sglang_openai_sglext_streamed_chunks_joined_and_partial_n_not_covered(sdeval):
    [run] = runs_of(sdeval("import", "sglang-responses", DATA / "sglang-responses-openai.jsonl"))
    # c1 [1,4,4,1] + c2 (streamed: sglext and usage chunks) [1,2,2,1] + c3 (n = 2, both choices) [0,0,3,0] + [0,3,1,0];
    # c4 (n = 2, one choice without figures) and c5 (no sglext) are not covered.
    assert run["counts"] == {
        "verification_steps": 23,
        "proposed_drafts": 69,
        "accepted_drafts": 35,
        "emitted_tokens": 26 + 16 + 20,
        "accepted_length_histogram": [2, 9, 10, 2],
        "population": "benchmark-requests",
        "requests_with_metrics": 3,
        "requests_without_metrics": 2,
        "missing_metrics_as": "excluded",
    }
    assert run["workload"] == {"num_requests": 5}
    assert run["notes"].endswith("1 streamed content chunk passed over. SGLang: model m (as the first response naming one names it).")


def test_sglang_first_era_fields_and_a_request_that_never_verified(sdeval):
    [run] = runs_of(sdeval("import", "sglang-responses", DATA / "sglang-responses-2025-11.jsonl"))
    # PR #13425's example (spec_verify_ct 4, spec_accept_token_num 9, spec_draft_token_num 20) and a
    # request with spec_verify_ct 0, which that era wrote as a count: zero steps, covered.
    assert run["counts"] == {
        "verification_steps": 4,
        "proposed_drafts": 20,
        "accepted_drafts": 9,
        "emitted_tokens": 15,
        "population": "benchmark-requests",
        "requests_with_metrics": 2,
        "requests_without_metrics": 0,
        "missing_metrics_as": "excluded",
    }


def test_sglang_responses_without_any_figures_need_the_arrangement(sdeval, tmp_path):
    path = tmp_path / "plain.jsonl"
    path.write_text(json.dumps({"text": "hi", "meta_info": {"id": "x", "prompt_tokens": 3, "completion_tokens": 5}}) + "\n")
    refused = sdeval("import", "sglang-responses", path)
    assert refused.exit_code == 2 and "pass --arrangement" in refused.stderr
    [run] = runs_of(sdeval("import", "sglang-responses", path, "--arrangement", "target-only"))
    assert run["counts"] == {"emitted_tokens": 5, "population": "benchmark-requests"}


@pytest.mark.parametrize("name", ["sglang-responses-native.jsonl", "sglang-responses-openai.jsonl", "sglang-responses-2025-11.jsonl"])
def test_sglang_responses_are_named_by_the_guesser(name):
    from evaluator.importers import sniff

    assert sniff(DATA / name) == "sglang-responses"


# ------------------------------------------------------------------------------ llama.cpp


def test_llamacpp_counters_give_exact_deltas(sdeval):
    [run] = runs_of(sdeval("import", "llamacpp-metrics", DATA / "llamacpp-metrics-before.prom", DATA / "llamacpp-metrics-after.prom"))
    assert run["arrangement"] == "speculative"
    assert run["counts"] == {
        "verification_steps": 552 - 130,
        "proposed_drafts": 2160 - 510,
        "accepted_drafts": 2105 - 497,
        "emitted_tokens": 3100 - 750,
        "accepted_per_position": [548 - 129, 540 - 127, 525 - 124, 492 - 117],
        "population": "server-wide",
    }
    assert sum(run["counts"]["accepted_per_position"]) == run["counts"]["accepted_drafts"]
    assert run["source"]["format"] == "llamacpp-metrics"


def test_llamacpp_without_a_draft_model_is_not_speculative(sdeval, tmp_path):
    # llama.cpp writes its speculative counters at zero on a server without a draft model.
    before, after = tmp_path / "a.prom", tmp_path / "b.prom"
    for path, tokens in ((before, 100), (after, 612)):
        path.write_text(
            "# TYPE llamacpp:tokens_predicted_total counter\n"
            f"llamacpp:tokens_predicted_total {tokens}\n"
            "# TYPE llamacpp:spec_decode_num_draft_tokens_total counter\nllamacpp:spec_decode_num_draft_tokens_total 0\n"
            "# TYPE llamacpp:spec_decode_num_accepted_tokens_total counter\nllamacpp:spec_decode_num_accepted_tokens_total 0\n"
            "# TYPE llamacpp:spec_decode_num_drafts_total counter\nllamacpp:spec_decode_num_drafts_total 0\n"
            "# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 0\n"
        )
    refused = sdeval("import", "llamacpp-metrics", before, after)
    assert refused.exit_code == 2 and "pass --arrangement" in refused.stderr
    [run] = runs_of(sdeval("import", "llamacpp-metrics", before, after, "--arrangement", "target-only"))
    assert run["counts"] == {"emitted_tokens": 512, "population": "server-wide"}


def test_llamacpp_scrape_given_as_vllm_is_named(sdeval):
    path = DATA / "llamacpp-metrics-after.prom"
    result = sdeval("import", "vllm-metrics", DATA / "llamacpp-metrics-before.prom", path)
    assert result.exit_code == 2
    assert "it looks like a llamacpp-metrics scrape (try `sdeval import llamacpp-metrics BEFORE AFTER`" in result.stderr


def test_counts_said_to_be_the_benchmarks_but_contradicted_by_the_server_are_named(sdeval, tmp_path):
    from conftest import example

    data = json.loads(example("vllm-docs-ngram.json").read_text())
    data["runs"][0]["counts"]["population_check"] = [
        {"count": "verification-steps", "benchmark": 43, "server": 50},
        {"count": "requests", "benchmark": 3, "server": 3},
    ]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(data))
    [finding] = coverage_findings(sdeval, path)
    assert finding["path"] == "/runs/0/counts/population_check"
    assert finding["message"] == (
        f"run {data['runs'][0]['id']}: the server's counters over the same interval show other requests than the benchmark's: "
        "verification steps: 50 on the server against 43 in the benchmark (7 more)"
    )


# ------------------------------------------------- from benchmark runs to established claims


def test_from_bench_results_and_scrapes_to_claims_written_by_sdeval_claim_all_established(sdeval, tmp_path):
    """The whole vendor's path: a record with the configurations pinned, both arms imported at two
    concurrencies with the scrapes around each benchmark, each run's quality result added, then every
    claim written by `sdeval claim` from the counts. Nothing is typed but ids."""
    identity = {
        "target": {
            "model": MODEL,
            "revision": "5825c9120fc701a0b7d9a30d61005f2a09466b74",
            "tokenizer": MODEL,
            "tokenizer_revision": "5825c9120fc701a0b7d9a30d61005f2a09466b74",
        },
        "numerics": {"weights": "bf16", "activations": "bf16", "kv_cache": "fp8"},
        "sampling": {"temperature": 0, "top_p": 1, "top_k": 0, "seed": 0, "n": 1},
        "runtime": {"name": "vLLM", "version": "0.25.1"},
        "hardware": {"accelerator": "NVIDIA H100 SXM5 80GB", "count": 4},
    }
    record = tmp_path / "offer.json"
    record.write_text(
        json.dumps(
            {
                "record_version": "1.1",
                "offer": {
                    "vendor": "Acme Inference Ltd",
                    "offer_id": "ACME-SD-7",
                    "date": "2026-11-20",
                    "claim_text": "Faster chat at 1 and 8 users.",
                },
                "configurations": [
                    {
                        "id": "eagle3",
                        **identity,
                        "proposer": {"method": "eagle-3", "model": "yuhuili/EAGLE3-LLaMA3.3-Instruct-70B", "revision": "0b1c2d3", "k": 3},
                    },
                    {"id": "target-only", **identity, "proposer": {"method": "none"}},
                ],
                "runs": [],
                "claims": [],
            },
            indent=2,
        )
    )
    for arm, concurrency in ARMS:
        result, before, after = write_arm(tmp_path, arm, concurrency)
        args = [
            "import",
            "vllm-bench",
            result,
            "--run-id",
            f"{arm}-c{concurrency}",
            "--configuration",
            "eagle3" if arm == "spec" else "target-only",
            "--into",
            record,
            "--in-place",
            "--metrics",
            before,
            after,
        ]
        done = sdeval(*args, *(["--arrangement", "target-only"] if arm == "base" else []))
        assert done.exit_code == 0, done.stderr
    data = json.loads(record.read_text())
    for run in data["runs"]:  # what the vendor's own evaluation gave, one result per run
        run["quality"] = [
            {
                "task": "chat",
                "metric": "exact match",
                "score": 0.91,
                "method": "held-out chat set, greedy",
                "equality_check": "greedy-equality",
                "equality_matched": 500,
                "equality_total": 500,
            }
        ]
        run["workload"]["task"] = "chat"
    record.write_text(json.dumps(data, indent=2))
    for concurrency in (1, 8):
        for args in (["--kind", "speedup", "--baseline", f"base-c{concurrency}"], ["--kind", "output-throughput"]):
            done = sdeval("claim", record, "--run", f"spec-c{concurrency}", *args, "--in-place")
            assert done.exit_code == 0, done.stderr
    assessed = sdeval("assess", record, "-f", "json").json()
    [entry] = assessed["files"]
    assert [(c["id"], c["value"], c["verdict"]) for c in entry["claims"]] == [
        ("speedup-spec-c1", 1.72, "established"),  # (12800 / 64) / (12800 / 110) = 1.71875
        ("output-throughput-spec-c1", 200.0, "established"),
        ("speedup-spec-c8", 1.56, "established"),  # (51200 / 96) / (51200 / 150) = 1.5625
        ("output-throughput-spec-c8", 533.0, "established"),
    ]
    assert [f["code"] for f in assessed["findings"] if f["severity"] == "error"] == []


def test_an_import_that_carries_forced_acceptance_draws_acceptance_simulated_at_the_run(sdeval, tmp_path):
    completed, tokens, duration, spec = ARMS[("spec", 1)]
    result = bench_result(completed, tokens, duration, 1, spec)
    result["speculative_config"] = {
        "method": "eagle3",
        "num_speculative_tokens": 3,
        "rejection_sample_method": "synthetic",
        "synthetic_acceptance_length": 3.12,
    }
    path = tmp_path / "synthetic.json"
    path.write_text(json.dumps(result))
    record = write_record(tmp_path)
    done = sdeval("import", "vllm-bench", path, "--run-id", "spec-c1", "--configuration", "eagle3", "--into", record, "--in-place")
    assert done.exit_code == 0, done.stderr
    findings = [f for f in sdeval("validate", record, "-f", "json").json()["findings"] if f["code"] == "acceptance-simulated"]
    assert [(f["path"], f["run"]) for f in findings] == [("/runs/0/simulated_acceptance", "spec-c1")]


def test_init_vendor_gives_a_record_import_into_and_claim_take(sdeval, tmp_path):
    """The vendor's start (issue 26.10): `init --vendor`, two bench results imported into its two
    configurations, a speedup claimed; what is left is evidence the vendor still owes, never the
    record's shape."""
    offer = tmp_path / "offer.yaml"
    assert sdeval("init", "--vendor", "-o", offer).exit_code == 0
    base = {
        "duration": 10.0,
        "completed": 8,
        "num_prompts": 8,
        "failed": 0,
        "max_concurrency": 8,
        "request_rate": "inf",
        "total_input_tokens": 256,
        "total_output_tokens": 1024,
        "model_id": "<org/model>",
    }
    (tmp_path / "base.json").write_text(json.dumps(base))
    spec = dict(base, duration=5.0, spec_decode_num_drafts=300, spec_decode_draft_tokens=900, spec_decode_accepted_tokens=700)
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    one, two, claimed = tmp_path / "one.yaml", tmp_path / "two.yaml", tmp_path / "claimed.yaml"
    assert sdeval("import", "vllm-bench", tmp_path / "spec.json", "--into", offer, "-o", one, "--configuration", "speculative").exit_code == 0
    imported = sdeval(
        "import", "vllm-bench", tmp_path / "base.json", "--into", one, "-o", two, "--configuration", "target-only", "--arrangement", "target-only"
    )
    assert imported.exit_code == 0, imported.stderr
    made = sdeval("claim", two, "--run", "spec", "--baseline", "base", "--kind", "speedup", "-o", claimed)
    assert made.exit_code == 0, made.stderr
    codes = {f["code"] for f in sdeval("assess", claimed, "--format", "json").json()["findings"] if f["severity"] == "error"}
    assert codes == {"quality-missing", "coverage-gap"}  # the evidence still owed: a quality result, the server's scrapes
