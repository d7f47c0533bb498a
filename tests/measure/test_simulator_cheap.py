"""The simulator's cheap ways of answering, for client benches (bench/measure_overhead.py): several
chunks a write and one answer for every prompt. The bytes a client reads are those of the plain
way, and `sdeval measure` still reads, checks and counts every chunk."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from support.measure_servers import serve  # noqa: E402

from evaluator.measure.cli import main as measure  # noqa: E402
from evaluator.measure.simulator import Simulator  # noqa: E402


@pytest.mark.parametrize("text", ["", " w1a", 'say "hi" \\ now', "é\u2028", "a\ud800", "\x00\x1b[2J"])
@pytest.mark.parametrize("model", ["sim-target", 'odd "model"\\'])
def test_a_content_chunk_is_the_bytes_its_whole_object_encodes_to(text, model):
    sim = Simulator(model=model)
    whole = {**Simulator._chat_object({"content": text}, None), "model": model}
    assert sim._chunk({"content": text}) == b"data: " + json.dumps(whole).encode() + b"\n\n"


def _writes(sim: Simulator, prompt: str, max_tokens: int) -> list[bytes]:
    steps, counts = sim._generate(prompt, max_tokens)
    usage = {"prompt_tokens": len(prompt), "prompt_tokens_details": {"cached_tokens": 0}}

    async def drain() -> list[bytes]:
        return [piece async for piece in sim._stream(steps, counts, usage, True, "none")]

    return asyncio.run(drain())


@pytest.mark.parametrize("speculative", [False, True])
def test_chunks_per_write_sends_the_same_bytes_in_fewer_writes(speculative):
    one = _writes(Simulator(speculative=speculative, step_delay_s=0.0), "a prompt", 200)
    grouped = _writes(Simulator(speculative=speculative, step_delay_s=0.0, chunks_per_write=64), "a prompt", 200)
    assert b"".join(grouped) == b"".join(one)
    steps = len(Simulator(speculative=speculative)._generate("a prompt", 200)[0])
    assert len(one) == 1 + steps + 1  # the role chunk, a write per step, then usage and [DONE] together
    assert len(grouped) == 1 + steps // 64 + 1  # the role chunk, each full group of 64, the rest with usage and [DONE]


def test_chunks_per_write_below_one_is_refused():
    with pytest.raises(ValueError, match="chunks_per_write"):
        Simulator(chunks_per_write=0)


def test_one_answer_for_every_prompt_is_read_checked_and_counted_by_measure(tmp_path, capsys):
    sim = Simulator(step_delay_s=0.0, chunks_per_write=64, same_answer=True)
    with serve(sim) as url:
        out = tmp_path / "r.json"
        code = measure(
            ["--arm", f"target-only={url}", "--metrics", f"{url}/metrics", "--concurrency", "2", "--repetitions", "1"]
            + ["--warmup", "1", "--requests", "8", "--max-tokens", "150", "--quiet", "-o", str(out)]
        )
    err = capsys.readouterr().err
    assert code in (0, 1) and out.exists() and ": request " not in err, err  # (a busy machine may add the client's own findings)
    lines = [json.loads(line) for line in (tmp_path / "r.json.capture" / "capture.jsonl").read_text().splitlines()]
    sent = [e for e in lines if e["kind"] == "request"]
    words = " ".join(w for step in Simulator()._generate("", 150)[0] for w in step)  # what the plain simulator answers ""
    assert len(sent) == 9 and len({e["prompt"] for e in sent}) > 1
    assert all(e["outcome"] == "completed" and e["text"] == words for e in sent)
    assert all(e["chunks"] == 1 + 150 + 1 and e["completion_tokens"] == 150 for e in sent)  # role, 150 steps, usage
    (run,) = json.loads(out.read_text())["runs"]
    checks = run["counts"]["population_check"]  # the client's counts against the server's counters
    assert checks and all(c["benchmark"] == c["server"] for c in checks) and run["counts"]["population"] == "benchmark-requests"
    assert sim.finished == 9 and sim.counters.predicted == 9 * 150  # the server counted every request it answered
