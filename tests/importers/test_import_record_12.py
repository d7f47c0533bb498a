"""Record 1.2 from the tools' own files (issue 27): the MLPerf Endpoints warm-up and TTFT definition, and the
parallel sizes SGLang's server_info and a vllm bench sweep result state, kept as source.parallelism."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT
from support.mlperf_endpoints import endpoints_summary, import_endpoints

REAL = ROOT.parent / "shared" / "real-outputs"  # public tool outputs kept outside the repository


def test_mlperf_endpoints_states_its_warm_up_kept_out_and_its_ttft_definition(sdeval, tmp_path):
    path = tmp_path / "result_summary.json"
    path.write_text(json.dumps(endpoints_summary()))
    run = import_endpoints(sdeval, path)
    assert run["interval"]["warmup"] == {"requests": 32, "excluded": True}
    assert run["latency"]["ttft_definition"] == "first-fragment-any-kind"
    assert "salted" not in run["workload"]  # warmup.salt salts the warm-up prompts, not the measured ones

    cold = dict(endpoints_summary())
    cold["run_config"] = {**cold["run_config"], "warmup": {"enabled": False}}
    path.write_text(json.dumps(cold))
    assert "warmup" not in import_endpoints(sdeval, path)["interval"]


@pytest.mark.skipif(not REAL.is_dir(), reason=f"{REAL} is absent")
def test_sglang_bench_keeps_the_parallel_sizes_of_its_server_info(sdeval):
    sglang = sdeval("import", "sglang-bench", REAL / "sglang-bench" / "tonyli-agg-n100-in128-out128-c32.jsonl", "--arrangement", "target-only")
    assert sglang.exit_code == 0, sglang.stderr
    assert sglang.json()["runs"][0]["source"]["parallelism"] == {"tensor": 1, "pipeline": 1, "data": 1, "expert": 1}
    # Behind a prefill/decode router server_info has no single size: none is kept.
    pd = sdeval("import", "sglang-bench", REAL / "sglang-bench" / "tonyli-pd-1p1d-in2048-out512-c128.jsonl", "--arrangement", "target-only")
    assert pd.exit_code == 0, pd.stderr
    assert "parallelism" not in pd.json()["runs"][0]["source"]


def test_a_vllm_bench_sweep_result_keeps_the_parallel_sizes_it_was_served_with(sdeval, tmp_path):
    # vllm bench sweep merges the serve parameters it varied into each result; expert parallel is tensor x data.
    result = json.loads((ROOT / "tests" / "data" / "importers" / "vllm-bench-result.json").read_text())
    result.update({"tensor_parallel_size": 4, "data-parallel-size": 2, "enable_expert_parallel": True})
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps(result))
    out = sdeval("import", "vllm-bench", path, "--arrangement", "speculative")
    assert out.exit_code == 0, out.stderr
    assert out.json()["runs"][0]["source"]["parallelism"] == {"tensor": 4, "data": 2, "expert": 8}
    # A plain vllm bench serve result states none.
    plain = sdeval("import", "vllm-bench", ROOT / "tests" / "data" / "importers" / "vllm-bench-result.json", "--arrangement", "speculative")
    assert "parallelism" not in plain.json()["runs"][0]["source"]
