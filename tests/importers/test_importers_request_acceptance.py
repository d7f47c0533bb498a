"""Per-request speculation from every responses format into record 1.3 `runs[].request_acceptance`
(one builder, evaluator/engine/request_acceptance.py), and the formats added for it: TensorRT-LLM's
per-choice `speculative_decoding`, OpenAI's Predicted Outputs usage, SGLang's per-request counts
with its own acceptance length kept apart, and guidellm 0.8's `response_metrics`.

Files: llama.cpp's are a real llama-server's responses (tests/data/importers/llamacpp-responses.jsonl);
the others are built here to the shapes the tools' sources write (named at each helper), since no
published file of them exists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.guidellm_benchmarks import benchmarks
from support.tool_outputs import runs_of

DATA = Path(__file__).resolve().parents[1] / "data" / "importers"
VLLM_SOURCE = "vLLM's per-request metrics.speculative_decoding (num_draft_tokens, num_accepted_draft_tokens, num_spec_steps)"


def write_lines(tmp_path: Path, items: list, name: str = "responses.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(item) + "\n" for item in items))
    return path


def vllm(h: list[int], k: int = 3, tokens: int = 20) -> dict:
    """A response as vLLM writes it with --per-request-spec-decode-metrics summary (vllm PR #48915)."""
    steps, accepted = sum(h), sum(j * n for j, n in enumerate(h))
    return {
        "id": "cmpl-1",
        "object": "chat.completion",
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "x"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": tokens, "total_tokens": 10 + tokens},
        "metrics": {
            "speculative_decoding": {
                "acceptance_histogram": h,
                "num_spec_steps": steps,
                "num_accepted_draft_tokens": accepted,
                "num_draft_tokens": k * steps,
                "num_spec_tokens": k,
            }
        },
    }


# ------------------------------------------------------------------------------------------- vLLM


def test_vllm_responses_give_each_requests_own_acceptance(sdeval, tmp_path):
    """Before: the run kept only the sums, so a bimodal run looked like its mean."""
    path = write_lines(tmp_path, [vllm([1, 0, 0, 2]), vllm([4, 1, 0, 0])])
    [run] = runs_of(sdeval("import", "vllm-responses", path))
    # request 1: A 6 of P 9 (0.67, entry 6), 1 + A / S = 3.0 (entry 4); request 2: A 1 of P 15 (0.07, entry 0), 1.2 (entry 0)
    assert run["request_acceptance"] == {
        "source": VLLM_SOURCE,
        "requests": 2,
        "requests_without_proposals": 0,
        "proposed_drafts": 24,
        "accepted_drafts": 7,
        "verification_steps": 8,
        "rate_histogram": [1, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        "length_histogram": [1, 0, 0, 0, 1],
    }
    assert (run["counts"]["proposed_drafts"], run["counts"]["accepted_drafts"]) == (24, 7)


def test_a_vllm_request_accepting_more_than_it_was_proposed_names_its_line(sdeval, tmp_path):
    bad = vllm([1, 0, 0, 2])
    bad["metrics"]["speculative_decoding"]["num_draft_tokens"] = 5
    result = sdeval("import", "vllm-responses", write_lines(tmp_path, [vllm([1, 0, 0, 2]), bad]))
    assert result.exit_code == 2
    assert "line 2: metrics.speculative_decoding accepted 6 drafts of 5 proposed" in result.stderr


def test_real_llama_server_responses_give_the_requests_acceptance_without_steps(sdeval):
    """The real llama-server file: covered requests (P, A) = (57, 54), (24, 17), (17, 10), (26, 26),
    (19, 19), (12, 12), the streamed n = 2 request (38, 38) and (1, 1); llama.cpp gives no steps."""
    [run] = runs_of(sdeval("import", "llamacpp-responses", DATA / "llamacpp-responses.jsonl"))
    assert run["request_acceptance"] == {
        "source": "llama.cpp's timings.draft_n and draft_n_accepted (no per-request steps)",
        "requests": 8,
        "requests_without_proposals": 0,
        "proposed_drafts": 194,
        "accepted_drafts": 177,
        # 10/17 = 0.59 (entry 5), 17/24 = 0.71 (entry 7), the other six at 0.95 or 1.0 (entry 9)
        "rate_histogram": [0, 0, 0, 0, 0, 1, 0, 1, 0, 6],
    }


# ---------------------------------------------------------------------------------- TensorRT-LLM


def trt_block(h: list[int], k: int = 3) -> dict:
    """TensorRT-LLM's per-choice block, in the shape of its PR #19311 (as AIPerf's adapter, PR #1433, reads it)."""
    steps, accepted = sum(h), sum(j * n for j, n in enumerate(h))
    return {
        "acceptance_rate": accepted / (k * steps),
        "total_accepted_draft_tokens": accepted,
        "total_draft_tokens": k * steps,
        "num_spec_steps": steps,
        "acceptance_histogram": h,
        "num_spec_tokens": k,
    }


def trt(rid: str, blocks: list[dict | None], tokens: int) -> dict:
    return {
        "id": rid,
        "object": "chat.completion",
        "model": "nvidia/Llama-3.3-70B-Instruct-FP8",
        "choices": [
            {"index": i, "message": {"role": "assistant", "content": "x"}, "finish_reason": "stop", "avg_decoded_tokens_per_iter": 2.5}
            | ({"speculative_decoding": b} if b is not None else {})
            for i, b in enumerate(blocks)
        ],
        "usage": {"prompt_tokens": 30, "completion_tokens": tokens, "total_tokens": 30 + tokens},
    }


def trt_file(tmp_path: Path) -> Path:
    return write_lines(
        tmp_path,
        [
            trt("chatcmpl-1", [trt_block([8, 0, 6, 6])], 50),  # the PR's example: 30 of 60 accepted in 20 steps
            trt("chatcmpl-2", [trt_block([2, 1, 0, 0]), trt_block([2, 1, 0, 0])], 12),  # n = 2: one request
            trt("chatcmpl-3", [None], 9),  # no block (the TRT backend writes none)
        ],
    )


def test_trtllm_per_choice_blocks_are_summed_per_request(sdeval, tmp_path):
    [run] = runs_of(sdeval("import", "trtllm-responses", trt_file(tmp_path)))
    assert run["arrangement"] == "speculative"
    assert run["counts"] == {
        "population": "benchmark-requests",
        "requests_with_metrics": 2,
        "requests_without_metrics": 1,
        "missing_metrics_as": "excluded",
        "verification_steps": 20 + 6,
        "proposed_drafts": 60 + 18,
        "accepted_drafts": 30 + 2,
        "accepted_length_histogram": [12, 2, 6, 6],
        "emitted_tokens": 50 + 12,
    }
    # request 1: 30 / 60 (entry 5), 1 + 30 / 20 = 2.5 (entry 3); request 2: 2 / 18 (entry 1), 1 + 2 / 6 (entry 0)
    assert run["request_acceptance"] == {
        "source": "TensorRT-LLM's per-choice speculative_decoding (total_draft_tokens, total_accepted_draft_tokens, num_spec_steps)",
        "requests": 2,
        "requests_without_proposals": 0,
        "proposed_drafts": 78,
        "accepted_drafts": 32,
        "verification_steps": 26,
        "rate_histogram": [0, 1, 0, 0, 0, 1, 0, 0, 0, 0],
        "length_histogram": [1, 0, 0, 1],
    }
    assert run["source"]["format"] == "trtllm-responses"
    assert "1 of 3 responses have a choice without speculative_decoding" in run["notes"]
    assert "tested on files built to that shape only" in run["notes"]


def test_streamed_trtllm_choices_are_joined_by_id(sdeval, tmp_path):
    def chunk(choices: list, usage: int | None = None) -> dict:
        line = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "model": "m", "choices": choices}
        if usage is not None:
            line["usage"] = {"prompt_tokens": 30, "completion_tokens": usage, "total_tokens": 30 + usage}
        return line

    path = write_lines(
        tmp_path,
        [
            chunk([{"index": 0, "delta": {"content": "a"}, "finish_reason": None}]),
            chunk([{"index": 0, "delta": {"content": "b"}, "finish_reason": "stop", "speculative_decoding": trt_block([8, 0, 6, 6])}]),
            chunk([], usage=50),
        ],
    )
    [run] = runs_of(sdeval("import", "trtllm-responses", path))
    assert run["workload"] == {"num_requests": 1}
    assert (run["counts"]["requests_with_metrics"], run["counts"]["accepted_drafts"], run["counts"]["emitted_tokens"]) == (1, 30, 50)


def test_a_trtllm_histogram_against_its_counts_names_the_line(sdeval, tmp_path):
    bad = trt("chatcmpl-2", [trt_block([8, 0, 6, 6])], 50)
    bad["choices"][0]["speculative_decoding"]["num_spec_steps"] = 21
    result = sdeval("import", "trtllm-responses", write_lines(tmp_path, [trt("chatcmpl-1", [trt_block([1, 1])], 5), bad]))
    assert result.exit_code == 2
    assert "line 2: a choice's acceptance_histogram [8, 0, 6, 6] adds up to 20 steps and 30 accepted drafts, not num_spec_steps 21" in result.stderr


def test_a_trtllm_file_is_sniffed_and_named_under_vllm_responses(sdeval, tmp_path):
    from evaluator.importers import sniff

    path = trt_file(tmp_path)
    assert sniff(path) == "trtllm-responses"
    result = sdeval("import", "vllm-responses", path)
    assert result.exit_code == 2
    assert "it looks like trtllm-responses output (try `sdeval import trtllm-responses responses.jsonl`)" in result.stderr


# ------------------------------------------------------------------------------ Predicted Outputs


def openai(tokens: int, accepted: int | None = None, rejected: int | None = None) -> dict:
    """An OpenAI chat.completion; usage.completion_tokens_details as OpenAI documents it for Predicted Outputs."""
    details: dict = {"reasoning_tokens": 0}
    if accepted is not None:
        details.update(accepted_prediction_tokens=accepted, rejected_prediction_tokens=rejected)
    return {
        "id": "chatcmpl-p",
        "object": "chat.completion",
        "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "x"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 300, "completion_tokens": tokens, "total_tokens": 300 + tokens, "completion_tokens_details": details},
    }


def test_prediction_tokens_are_not_drafts_and_rejected_ones_are_not_output(sdeval, tmp_path):
    path = write_lines(tmp_path, [openai(100, accepted=60, rejected=15), openai(40)])
    assert __import__("evaluator.importers", fromlist=["sniff"]).sniff(path) == "openai-responses"
    [run] = runs_of(sdeval("import", "openai-responses", path, "--arrangement", "speculative", "--configuration", "predicted"))
    # 100 - 15 rejected (billed, never emitted) + 40; no P, A or S, no request_acceptance
    assert run["counts"] == {
        "population": "benchmark-requests",
        "requests_with_metrics": 0,
        "requests_without_metrics": 2,
        "missing_metrics_as": "excluded",
        "emitted_tokens": 125,
    }
    assert "request_acceptance" not in run
    assert (
        "1 request used Predicted Outputs: 60 tokens of the supplied predictions appeared in the completions (accepted_prediction_tokens) "
        "and 15 did not (rejected_prediction_tokens). These count the prediction the client sent, not drafts a drafter proposed"
    ) in run["notes"]
    assert run["source"]["format"] == "openai-responses"


def test_more_rejected_prediction_tokens_than_completion_tokens_names_the_line(sdeval, tmp_path):
    result = sdeval("import", "openai-responses", write_lines(tmp_path, [openai(10, accepted=0, rejected=11)]))
    assert result.exit_code == 2
    assert "line 1: usage.completion_tokens_details.rejected_prediction_tokens 11 is more than completion_tokens 10" in result.stderr


# ----------------------------------------------------------------------------------------- SGLang


def test_sglang_requests_own_counts_and_its_accept_length_kept_apart(sdeval, tmp_path):
    """sglext_spec (SGLang PR #33518) as its review quoted one request: 63 of 215 accepted in 43 steps."""
    line = {
        "id": "chatcmpl-g",
        "object": "chat.completion",
        "model": "deepseek-ai/DeepSeek-V4-Flash",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "x"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 106, "total_tokens": 118},
        "sglext": {
            "spec_tokens_details": {
                "spec_accept_rate": 0.2930232558139535,
                "spec_accept_length": 2.4651162790697674,
                "spec_num_correct_drafts": 63,
                "spec_num_proposed_drafts": 215,
                "spec_verify_ct": 43,
                "spec_correct_drafts_histogram": [11, 14, 11, 4, 0, 3],
            }
        },
    }
    [run] = runs_of(sdeval("import", "sglang-responses", write_lines(tmp_path, [line])))
    assert run["request_acceptance"] == {
        "source": "SGLang's per-request meta_info / sglext.spec_tokens_details (spec_num_proposed_drafts, spec_num_correct_drafts, spec_verify_ct)",
        "requests": 1,
        "requests_without_proposals": 0,
        "proposed_drafts": 215,
        "accepted_drafts": 63,
        "verification_steps": 43,
        "rate_histogram": [0, 0, 1, 0, 0, 0, 0, 0, 0, 0],  # 0.29
        "length_histogram": [0, 0, 1],  # 1 + 63 / 43 = 2.47
    }
    assert "SGLang's own spec_accept_length is completion_tokens / spec_verify_ct" in run["notes"]
    assert "reported" not in run  # spec_accept_length is never the record's acceptance length


# --------------------------------------------------------------------------------------- guidellm


SD = [[1, 0, 0, 2], [4, 1, 0, 0], [0, 0, 3, 1], [2, 2, 0, 0], [0, 0, 0, 4], [5, 0, 0, 0]]


def with_response_metrics(data: dict, blocks: list) -> dict:
    """guidellm 0.8.1's GenerativeRequestStats.response_metrics: the response's `metrics` object as received."""
    for request, h in zip(data["benchmarks"][0]["requests"]["successful"], blocks):
        if h is not None:
            request["response_metrics"] = {"speculative_decoding": vllm(h)["metrics"]["speculative_decoding"]}
    return data


def test_guidellm_response_metrics_give_the_runs_counts_and_request_acceptance(sdeval, tmp_path):
    path = tmp_path / "benchmarks.json"
    path.write_text(json.dumps(with_response_metrics(benchmarks(), SD)))
    [run] = runs_of(sdeval("import", "guidellm", path, "--arrangement", "speculative", "--configuration", "spec"))
    steps = sum(sum(h) for h in SD)
    accepted = sum(sum(j * n for j, n in enumerate(h)) for h in SD)
    assert run["counts"] == {
        "emitted_tokens": 288,
        "population": "benchmark-requests",
        "verification_steps": steps,
        "proposed_drafts": 3 * steps,
        "accepted_drafts": accepted,
        "requests_with_metrics": 6,
        "requests_without_metrics": 0,
        "missing_metrics_as": "excluded",
        "accepted_length_histogram": [12, 3, 3, 7],
    }
    ra = run["request_acceptance"]
    # A / P: 6/9, 1/15, 9/12, 2/12, 12/12, 0/15
    assert ra["rate_histogram"] == [2, 1, 0, 0, 0, 0, 1, 1, 0, 1]
    assert (ra["requests"], ra["verification_steps"], ra["accepted_drafts"]) == (6, steps, accepted)


def test_guidellm_requests_partly_without_response_metrics_keep_no_sums(sdeval, tmp_path):
    path = tmp_path / "benchmarks.json"
    path.write_text(json.dumps(with_response_metrics(benchmarks(), SD[:5] + [None])))
    [run] = runs_of(sdeval("import", "guidellm", path, "--arrangement", "speculative", "--configuration", "spec"))
    assert run["counts"] == {"emitted_tokens": 288, "population": "benchmark-requests"}
    assert run["request_acceptance"]["requests"] == 5
    assert "1 of the 6 requests guidellm counted carry no speculative_decoding in response_metrics" in run["notes"]


@pytest.mark.parametrize("change, why", [("num_draft_tokens", "accepted 6 drafts of 0 proposed"), ("num_spec_steps", "adds up to 3 steps")])
def test_a_bad_guidellm_block_names_its_request(sdeval, tmp_path, change, why):
    data = with_response_metrics(benchmarks(), SD)
    data["benchmarks"][0]["requests"]["successful"][0]["response_metrics"]["speculative_decoding"][change] = 0
    path = tmp_path / "benchmarks.json"
    path.write_text(json.dumps(data))
    result = sdeval("import", "guidellm", path)
    assert result.exit_code == 2
    assert "benchmarks[0]: requests.successful[0].response_metrics.speculative_decoding:" in result.stderr
    assert why in result.stderr


# ------------------------------------------------------------------------------------ DuckDB engine


def test_the_duckdb_engine_tallies_the_same_requests_and_sends_back_what_it_cannot_check(tmp_path):
    pytest.importorskip("duckdb")
    from evaluator.importers import responses_duckdb, responses_sum, vllm_responses

    def duckdb(items: list) -> dict | None:
        path = write_lines(tmp_path, items)
        return responses_duckdb.read(path, lambda line: responses_sum.first_totals(path, line, "vllm-responses"))

    items = [vllm([1, 0, 0, 2]), vllm([4, 1, 0, 0]), vllm([1, 0, 0, 2]), openai(30)]
    summed = duckdb(items)
    default = vllm_responses.read(write_lines(tmp_path, items), processes=1)
    assert summed is not None and summed["per_request"] == default.per_request == {(9, 6, 3): 2, (15, 1, 5): 1}
    # prediction counts change E, and A > P is a bad line: both only the default reader handles
    bad = vllm([1, 0, 0, 2])
    bad["metrics"]["speculative_decoding"]["num_draft_tokens"] = 5
    assert duckdb([vllm([1, 0, 0, 2]), bad]) is None
    assert duckdb([vllm([1, 0, 0, 2]), openai(30, accepted=10, rejected=5)]) is None
