"""Tool outputs the importer tests write and read: a `vllm bench serve --save-result` file of the
documented keys, and the runs an import printed. Shared by tests/importers/ and tests/buyer/."""

from __future__ import annotations

MODEL = "meta-llama/Llama-3.3-70B-Instruct"


def runs_of(result) -> list[dict]:
    """The runs of the record an `sdeval import` printed (which must have succeeded)."""
    assert result.exit_code == 0, result.stderr
    return result.json()["runs"]


def bench_result(completed: int, tokens: int, duration: float, concurrency: int, spec) -> dict:
    """A `vllm bench serve --save-result` JSON (keys of vllm/benchmarks/serve.py)."""
    result = {
        "date": "20261120-101500",
        "endpoint_type": "openai-chat",
        "backend": "openai-chat",
        "label": None,
        "model_id": MODEL,
        "tokenizer_id": MODEL,
        "num_prompts": completed,
        "request_rate": "inf",
        "burstiness": 1.0,
        "max_concurrency": concurrency,
        "duration": duration,
        "completed": completed,
        "failed": 0,
        "total_input_tokens": completed * 1024,
        "total_output_tokens": tokens,
        "request_throughput": completed / duration,
        "request_goodput": None,
        "output_throughput": tokens / duration,
        "total_token_throughput": (completed * 1024 + tokens) / duration,
        "max_output_tokens_per_s": 900.0,
        "max_concurrent_requests": concurrency,
        "rtfx": 0.0,
        "mean_ttft_ms": 80.0,
        "median_ttft_ms": 75.0,
        "std_ttft_ms": 10.0,
        "p99_ttft_ms": 120.0,
        "mean_tpot_ms": 12.0,
        "median_tpot_ms": 11.5,
        "std_tpot_ms": 1.0,
        "p99_tpot_ms": 15.0,
        "mean_itl_ms": 30.0,
        "median_itl_ms": 28.0,
        "std_itl_ms": 5.0,
        "p99_itl_ms": 45.0,
    }
    if spec:
        S, P, A, per_pos = spec
        result.update(
            spec_decode_acceptance_rate=A / P * 100,
            spec_decode_acceptance_length=1 + A / S,
            spec_decode_num_drafts=S,
            spec_decode_draft_tokens=P,
            spec_decode_accepted_tokens=A,
            spec_decode_per_position_acceptance_rates=[n / S for n in per_pos],
        )
    return result
