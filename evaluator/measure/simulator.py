"""An OpenAI-compatible streaming server with real speculative decoding over a toy model, for
rehearsing `sdeval measure` and testing it against every fault peers' tools mishandle.

The "target model" continues a prompt with a deterministic word sequence (a hash chain over the
prompt, so temperature 0 gives the same text in both arms). The speculative arm drafts K words with a
toy drafter that guesses the target's next word right with a fixed probability, verifies them against
the target, keeps the matching prefix and adds the target's own next word: one stream chunk per
verification step, several tokens in it. As in llama.cpp, the first token comes from the prompt pass
(outside any verification step), and counters (llama.cpp names) move when a request finishes.
A prompt's tokens are its UTF-8 bytes (the finest tokenizer there is); a prefix cache over the last
prompts reports the bytes a new prompt shares with one of them (usage.prompt_tokens_details).
Both /v1/chat/completions and /v1/completions (text to continue) are served. For client benches
(bench/measure_overhead.py) it can cost its machine little per chunk: several chunks a write
(chunks_per_write) and one answer for every prompt, encoded once (same_answer).

Run it yourself: python -m evaluator.measure.simulator --port 8001 [--speculative]
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass, field

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

# Every fault the harness must catch; each names a bug peers' tools have.
FAULTS = (
    "none",
    "no-role-chunk",  # no empty role-only first chunk (most servers send one; the default sends it)
    "slow-usage",  # the trailing usage-only chunk comes late (stretches a naive end-to-end latency)
    "no-usage",  # the stream carries no usage at all
    "wrong-usage",  # usage.completion_tokens is one short of what was streamed
    "error-event",  # an error event inside a 200 stream, then [DONE]
    "truncated",  # the stream stops mid-answer, without finish_reason or [DONE]
    "stall",  # the stream stops sending and holds the connection open
    "http-500",  # the request is refused with an HTTP error
    "not-openai",  # /v1/models (and completions) answer an HTML page
    "metrics-without-spec",  # /metrics has no spec-decode counters at all
    "sglang-gauges",  # /metrics as SGLang writes it: acceptance gauges, no counters
    "buffered",  # a buffering gateway: every chunk arrives at once, at the end
    "warm-cache",  # reports every prompt as served whole from its cache (a cache the salt did not defeat)
    "preempting",  # /metrics counts a preemption (vLLM's vllm:num_preemptions_total) for every finished request
    # Hostile and broken servers (issue 36): what a server sends must never crash measure.
    "escape-error",  # an error event whose message holds ESC sequences, an OSC title, BEL and CR
    "escape-http",  # an HTTP 500 whose body holds the same
    "echo-key",  # an HTTP 401 whose body echoes the Authorization header it was sent
    "counter-reset",  # the counters restart from zero when scrape number `counter_fault_from` is served
    "counter-nan",  # from scrape number `counter_fault_from` on, the generated-token counter is NaN
    "counter-inf",  # ... or +Inf
    "metrics-500",  # from scrape number `counter_fault_from` on, /metrics answers HTTP 500
    "null-choice",  # mid-stream, an event whose choices hold null
    "string-delta",  # ... whose delta is a string
    "deep-event",  # ... that is JSON nested 200,000 deep
    "model-switch",  # ... that names another model
    "surrogate-content",  # a chunk's content holds a lone surrogate (a legal JSON escape)
    "usage-above-max",  # usage reports 10^15 output tokens, far over max_tokens
    "deep-models",  # /v1/models answers JSON nested 200,000 deep
    "control-model",  # /v1/models lists a model id holding an OSC title sequence and BEL
)
# The event each mid-stream fault sends in the middle of the answer (the stream goes on after it).
BROKEN_EVENTS = {
    "null-choice": b'{"model": "sim-target", "choices": [null]}',
    "string-delta": b'{"model": "sim-target", "choices": [{"index": 0, "delta": "hi"}]}',
    "deep-event": b"[" * 200_000 + b"]" * 200_000,
    "model-switch": b'{"model": "another-model", "choices": [{"index": 0, "delta": {"content": " x"}}]}',
}
CACHED_PROMPTS = 64  # the prefix cache holds this many recent prompts
# What a terminal must never receive raw from a server: a colour change, a window-title change
# (OSC), a screen clear, a bell and a carriage return that would overwrite the line.
HOSTILE_TEXT = "\x1b[31mred\x1b]0;pwned\x07\x1b[2J\rgone"


@dataclass
class Counters:
    drafts: int = 0
    draft_tokens: int = 0
    accepted: int = 0
    per_position: dict[int, int] = field(default_factory=dict)
    predicted: int = 0
    prompt_tokens: int = 0
    processing: int = 0


def _word(seed: bytes, i: int) -> str:
    digest = hashlib.blake2b(seed + i.to_bytes(4, "little"), digest_size=4).digest()
    return "w" + format(int.from_bytes(digest, "little") % 5000, "x")


def _draft_right(seed: bytes, i: int, accept_probability: float) -> bool:
    digest = hashlib.blake2b(b"draft" + seed + i.to_bytes(4, "little"), digest_size=4).digest()
    return int.from_bytes(digest, "little") / 2**32 < accept_probability


class Simulator:
    def __init__(
        self,
        *,
        speculative: bool = False,
        k: int = 4,
        accept_probability: float = 0.7,
        accept_by_text: tuple[tuple[str, float], ...] = (),
        model: str = "sim-target",
        fault: str = "none",
        fault_every: int = 1,
        step_delay_s: float = 0.005,  # per generation step: a request outlasts the client's turnaround
        prefill_s: float = 0.0,
        stall_s: float = 30.0,
        api_key: str | None = None,
        counter_fault_from: int = 3,
        timings: bool = True,  # llama.cpp's per-request timings (predicted_n, draft_n, draft_n_accepted) on the usage chunk
        chunks_per_write: int = 1,  # 1: each chunk its own write, as servers stream; K: K chunks a write (see _stream)
        same_answer: bool = False,  # every prompt continued with the same words, made and encoded once (benches; see _answer)
    ) -> None:
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}")
        self.speculative, self.k, self.p = speculative, k, accept_probability
        # (text, probability): a prompt holding the text is drafted with that probability (the first
        # that matches), so one prompt set can hold tasks a drafter predicts differently
        self.accept_by_text = accept_by_text
        self.model, self.fault, self.fault_every = model, fault, fault_every
        self.step_delay_s, self.prefill_s, self.stall_s = step_delay_s, prefill_s, stall_s
        # a server whose counters will restart has served work before the measurement, so the
        # restart shows as a drop even in the first window (whose scrapes now span its warm-up)
        self.counters = Counters(drafts=50, draft_tokens=200, accepted=100, predicted=500) if fault == "counter-reset" else Counters()
        self.requests = 0
        self.scrapes = 0
        # The first scrape is measure's start check, then one before and one after each window:
        # from the third on, a counter fault falls inside the first window.
        self.counter_fault_from = counter_fault_from
        self.timings = timings
        if chunks_per_write < 1:
            raise ValueError("chunks_per_write must be at least 1")
        self.chunks_per_write = chunks_per_write
        self.same_answer = same_answer
        self._answers: dict[tuple[int, bool], tuple[list[list[str]], Counters, list[bytes]]] = {}
        # A chat chunk of content alone, the most common one, pre-encoded around its text: the same
        # bytes json.dumps makes of the whole object (checked by a test), at a fraction of the cost.
        head, tail = json.dumps(self._chat_object({"content": "\0"}, None) | {"model": model}).encode().split(b'"\\u0000"', 1)
        self._content_chunk = (b"data: " + head, tail + b"\n\n")
        self.api_key = api_key  # when set, /v1/ answers 401 without "Authorization: Bearer KEY"
        self.authorizations: list[str | None] = []  # what each /v1/ request presented
        self.recent: list[bytes] = []  # the prefix cache: recent prompts, newest last
        self.finished = 0  # requests streamed to their end
        self.app = Starlette(
            routes=[
                Route("/health", lambda r: JSONResponse({"status": "ok"})),
                Route("/v1/models", self.models),
                Route("/v1/chat/completions", self.complete, methods=["POST"]),
                Route("/v1/completions", self.complete, methods=["POST"]),
                Route("/metrics", self.metrics),
            ]
        )

    # ------------------------------------------------------------------ endpoints

    def _refused(self, request: Request) -> Response | None:
        given = request.headers.get("authorization")
        self.authorizations.append(given)
        if self.api_key is not None and given != f"Bearer {self.api_key}":
            return JSONResponse({"error": {"message": "invalid API key", "type": "authentication_error"}}, status_code=401)
        return None

    async def models(self, request: Request) -> Response:
        if (refused := self._refused(request)) is not None:
            return refused
        if self.fault == "not-openai":
            return Response("<html><body>Welcome to nginx</body></html>", media_type="text/html")
        if self.fault == "deep-models":
            return Response(BROKEN_EVENTS["deep-event"], media_type="application/json")
        model = self.model + ("\x1b]0;pwned\x07" if self.fault == "control-model" else "")
        return JSONResponse({"object": "list", "data": [{"id": model, "object": "model", "owned_by": "sdeval-simulator"}]})

    async def metrics(self, request: Request) -> Response:
        self.scrapes += 1
        if self.fault == "counter-reset" and self.scrapes == self.counter_fault_from:
            self.counters = Counters(processing=self.counters.processing)  # an engine restart
        c = self.counters
        if self.fault == "metrics-500" and self.scrapes >= self.counter_fault_from:
            return PlainTextResponse("exporter down", status_code=500)
        if self.fault == "metrics-without-spec":
            return PlainTextResponse("# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1.5\n")
        if self.fault == "sglang-gauges":
            return PlainTextResponse(
                '# TYPE sglang:spec_accept_length gauge\nsglang:spec_accept_length{model_name="m"} 2.9\n'
                '# TYPE sglang:spec_accept_rate gauge\nsglang:spec_accept_rate{model_name="m"} 0.63\n'
            )
        lines: list[tuple[str, str, int | str]] = [
            ("llamacpp:prompt_tokens_total", "counter", c.prompt_tokens),
            ("llamacpp:tokens_predicted_total", "counter", c.predicted),
            ("llamacpp:spec_decode_num_drafts_total", "counter", c.drafts),
            ("llamacpp:spec_decode_num_draft_tokens_total", "counter", c.draft_tokens),
            ("llamacpp:spec_decode_num_accepted_tokens_total", "counter", c.accepted),
            ("llamacpp:requests_processing", "gauge", c.processing),
            ("llamacpp:requests_deferred", "gauge", 0),
        ]
        if self.fault in ("counter-nan", "counter-inf") and self.scrapes >= self.counter_fault_from:
            broken = "NaN" if self.fault == "counter-nan" else "+Inf"
            lines = [(n, t, broken if n == "llamacpp:tokens_predicted_total" else v) for n, t, v in lines]
        if self.fault == "preempting":
            lines.append(("vllm:num_preemptions_total", "counter", self.finished))
        text = "".join(f"# TYPE {n} {t}\n{n} {v}\n" for n, t, v in lines)
        if c.per_position:
            name = "llamacpp:spec_decode_num_accepted_tokens_per_pos_total"
            text += f"# TYPE {name} counter\n" + "".join(f'{name}{{position="{p}"}} {n}\n' for p, n in sorted(c.per_position.items()))
        return PlainTextResponse(text)

    async def complete(self, request: Request) -> Response:
        if (refused := self._refused(request)) is not None:
            return refused
        self.requests += 1
        faulty = self.fault != "none" and self.requests % self.fault_every == 0
        fault = self.fault if faulty else "none"
        if fault == "not-openai":
            return Response("<html>not an API</html>", media_type="text/html")
        if fault == "http-500":
            return JSONResponse({"error": {"message": "simulated overload", "type": "server_error"}}, status_code=500)
        if fault == "escape-http":
            return PlainTextResponse(f"overloaded {HOSTILE_TEXT}", status_code=500)
        if fault == "echo-key":
            return PlainTextResponse(f"refused: Authorization: {request.headers.get('authorization')}", status_code=401)
        body = await request.json()
        chat = request.url.path.endswith("/chat/completions")
        prompt = " ".join(m.get("content", "") for m in body.get("messages", [])) if chat else str(body.get("prompt", ""))
        max_tokens = int(body.get("max_tokens") or 16)
        usage_wanted = bool((body.get("stream_options") or {}).get("include_usage"))
        steps, counts, encoded = self._answer(max_tokens, chat) if self.same_answer else (*self._generate(prompt, max_tokens), None)
        tokens = prompt.encode()
        cached = len(tokens) if fault == "warm-cache" else self._cached(tokens)
        usage = {"prompt_tokens": len(tokens), "prompt_tokens_details": {"cached_tokens": cached}}
        return StreamingResponse(self._stream(steps, counts, usage, usage_wanted, fault, chat, encoded), media_type="text/event-stream")

    def _cached(self, tokens: bytes) -> int:
        """The longest prefix `tokens` shares with a recent prompt; then it joins them."""
        best = 0
        for earlier in self.recent:
            n = 0
            for a, b in zip(earlier, tokens):
                if a != b:
                    break
                n += 1
            best = max(best, n)
        self.recent = [*self.recent[-(CACHED_PROMPTS - 1) :], tokens]
        return best

    # ------------------------------------------------------------------ generation

    def _generate(self, prompt: str, max_tokens: int) -> tuple[list[list[str]], Counters]:
        """The words of each chunk, and what this request adds to the counters."""
        seed = hashlib.sha256(prompt.encode()).digest()
        p = next((q for text, q in self.accept_by_text if text in prompt), self.p)
        c = Counters()
        steps = [[_word(seed, 0)]]  # the prompt pass emits the first token, outside any verification step
        n = 1
        while n < max_tokens:
            if not self.speculative:
                steps.append([_word(seed, n)])
                n += 1
                continue
            k = min(self.k, max_tokens - n - 1)
            if k <= 0:  # no room for a draft: a plain decode step, outside verification too
                steps.append([_word(seed, n)])
                n += 1
                continue
            accepted = 0
            while accepted < k and _draft_right(seed, n + accepted, p):
                accepted += 1
            c.drafts += 1
            c.draft_tokens += k
            c.accepted += accepted
            for pos in range(accepted):
                c.per_position[pos] = c.per_position.get(pos, 0) + 1
            # the accepted drafts and the target's own token (a correction, or the bonus after a full block)
            steps.append([_word(seed, n + j) for j in range(accepted + 1)])
            n += accepted + 1
        c.predicted = n
        return steps, c

    def _answer(self, max_tokens: int, chat: bool) -> tuple[list[list[str]], Counters, list[bytes]]:
        """same_answer: the words the empty prompt gets, and every chunk but the last (whose timings
        count the request's own prompt) encoded, made once per max_tokens and endpoint. A server
        answering from a cache: it costs the machine it shares with a client bench almost nothing
        per chunk, while the client still reads and checks every chunk."""
        if (max_tokens, chat) not in self._answers:
            steps, counts = self._generate("", max_tokens)
            encoded = [self._chunk({"content": (" " if i else "") + " ".join(words)}, None, chat) for i, words in enumerate(steps[:-1])]
            self._answers[max_tokens, chat] = steps, counts, encoded
        return self._answers[max_tokens, chat]

    @staticmethod
    def _timings(c: Counters, prompt_tokens: int) -> dict[str, int]:
        """The request's own counts as llama.cpp's final chunk carries them: draft_n and
        draft_n_accepted only when the request drafted."""
        timings = {"prompt_n": prompt_tokens, "predicted_n": c.predicted}
        if c.draft_tokens:
            timings.update(draft_n=c.draft_tokens, draft_n_accepted=c.accepted)
        return timings

    @staticmethod
    def _chat_object(delta: dict, finish: str | None) -> dict:
        return {"id": "chatcmpl-sim", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    def _chunk(self, delta: dict, finish: str | None = None, chat: bool = True, timings: dict | None = None) -> bytes:
        if chat and finish is None and timings is None and delta.keys() == {"content"}:
            head, tail = self._content_chunk
            return head + json.dumps(delta["content"]).encode() + tail
        if chat:
            obj = self._chat_object(delta, finish)
        else:  # a completions chunk carries its text beside the choice, and no role
            obj = {
                "id": "cmpl-sim",
                "object": "text_completion",
                "choices": [{"index": 0, "text": delta.get("content", ""), "finish_reason": finish}],
            }
        extra = {"timings": timings} if timings is not None else {}
        return b"data: " + json.dumps({**obj, **extra, "model": self.model}).encode() + b"\n\n"

    async def _stream(self, steps, counts: Counters, prompt_usage: dict, usage_wanted: bool, fault: str, chat: bool = True, encoded=None):
        """The answer's events; `encoded`: its chunks but the last, already encoded (same_answer)."""
        prompt_tokens = prompt_usage["prompt_tokens"]
        self.counters.processing += 1
        finished = False
        try:
            out: list[bytes] = []
            if fault != "no-role-chunk" and chat:  # sent at once, as servers do, before the prompt pass
                yield self._chunk({"role": "assistant", "content": ""})
            await asyncio.sleep(self.prefill_s)
            for i, words in enumerate(steps):
                if fault == "truncated" and i == len(steps) // 2:
                    break
                if fault in ("error-event", "escape-error") and i == len(steps) // 2:
                    message = "simulated failure in generation" + (f" {HOSTILE_TEXT}" if fault == "escape-error" else "")
                    out.append(b"data: " + json.dumps({"error": {"message": message, "code": 500}}).encode() + b"\n\n")
                    break
                if fault == "stall" and i == len(steps) // 2:
                    for piece in out:
                        yield piece
                    out = []
                    await asyncio.sleep(self.stall_s)
                    break
                if fault in BROKEN_EVENTS and i == len(steps) // 2:
                    out.append(b"data: " + BROKEN_EVENTS[fault] + b"\n\n")
                last = i == len(steps) - 1
                if encoded is not None and not last and fault == "none":
                    out.append(encoded[i])
                else:
                    text = (" " if i else "") + " ".join(words) + ("\ud800" if fault == "surrogate-content" and i == len(steps) // 2 else "")
                    out.append(
                        self._chunk(
                            {"content": text},
                            "length" if last else None,
                            chat,
                            self._timings(counts, prompt_tokens) if last and self.timings else None,
                        )
                    )
                if fault != "buffered" and len(out) >= self.chunks_per_write:
                    if self.chunks_per_write == 1:
                        for piece in out:
                            yield piece
                    else:  # a server (or a proxy) writing several chunks at once: the client still reads each
                        yield b"".join(out)
                    out = []
                if fault != "buffered" and (not out or self.step_delay_s):
                    await asyncio.sleep(self.step_delay_s)
            else:
                finished = True
            if finished and usage_wanted and fault != "no-usage":
                reported = 10**15 if fault == "usage-above-max" else counts.predicted - (1 if fault == "wrong-usage" else 0)
                usage = {
                    "id": "chatcmpl-sim",
                    "object": "chat.completion.chunk",
                    "model": self.model,
                    "choices": [],
                    "usage": {**prompt_usage, "completion_tokens": reported, "total_tokens": prompt_tokens + reported},
                }
                if self.timings:  # on the usage chunk too: a client may read either
                    usage["timings"] = self._timings(counts, prompt_tokens)
                if fault == "slow-usage":
                    for piece in out:
                        yield piece
                    out = []
                    await asyncio.sleep(0.3)
                out.append(b"data: " + json.dumps(usage).encode() + b"\n\n")
            if finished or fault in ("error-event", "escape-error"):
                out.append(b"data: [DONE]\n\n")
            if out:  # one write: a buffering gateway hands on everything at once
                yield b"".join(out)
        finally:
            self.counters.processing -= 1
            if finished:  # llama.cpp counts a request's tokens when it finishes
                self.finished += 1
                self._add(counts, prompt_tokens)

    def _add(self, c: Counters, prompt_tokens: int) -> None:
        t = self.counters
        t.drafts += c.drafts
        t.draft_tokens += c.draft_tokens
        t.accepted += c.accepted
        t.predicted += c.predicted
        t.prompt_tokens += prompt_tokens
        for pos, n in c.per_position.items():
            t.per_position[pos] = t.per_position.get(pos, 0) + n


def main() -> None:
    import argparse

    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--speculative", action="store_true")
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--fault", choices=FAULTS, default="none")
    parser.add_argument("--step-delay", type=float, default=0.005, help="seconds per generation step")
    parser.add_argument("--chunks-per-write", type=int, default=1, help="stream chunks sent in one write (default 1: each its own)")
    parser.add_argument("--same-answer", action="store_true", help="every prompt gets the same words, encoded once (for client benches)")
    args = parser.parse_args()
    sim = Simulator(
        speculative=args.speculative,
        k=args.k,
        fault=args.fault,
        step_delay_s=args.step_delay,
        chunks_per_write=args.chunks_per_write,
        same_answer=args.same_answer,
    )
    uvicorn.run(sim.app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
