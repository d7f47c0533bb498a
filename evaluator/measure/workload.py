"""`sdeval measure workload RECORD -o FILE`: the workload a measurement sent, written for another
tool to send again (AIPerf's single_turn JSONL: {"text", "output_length", "extra"} per line), so
that a vendor's AIPerf run and the buyer's measured record can be compared on equal terms.

Each measured request once, in the order measure numbered them (load, repetition, request), its
text behind its salt, with the salt's nonce replaced by a fresh one of the same length: the same
texts and token counts, but none of them in the server's prompt cache from the measurement
(replaying the measured prompts themselves found 497 of 557 prompt tokens cached on llama-server).
`extra` carries the sampling measure sent (temperature, top_p, seed, n), `output_length` its
max_tokens; the endpoint (`--endpoint-type completions` or `chat`) and concurrency are given to
AIPerf on its command line (docs/vendors.md, Comparing AIPerf with sdeval measure)."""

from __future__ import annotations

import json
from pathlib import Path

from .._infra.atomic import OutputRefused, write_atomic
from .capture import Capture, capture_dir
from .problems import MeasureProblem
from .prompts import DEFAULT_SETS, Prompt, load_prompts, new_nonce


def _prompts(session: dict, given: Path | None, record: Path) -> dict[str, Prompt]:
    """The measurement's prompts by id: the shipped set it names, or the file given, which must be the
    very file measured (its sha256)."""
    settings = session["settings"]
    endpoint, dataset, sha = settings["endpoint"], settings["dataset"], settings["dataset_sha256"]
    if given is None:
        if dataset != DEFAULT_SETS[endpoint][1]:
            raise MeasureProblem(f"{record}: measured with the prompts file {dataset}; give it with --prompts")
    prompts, _, got = load_prompts(given, endpoint)
    if got != sha:
        raise MeasureProblem(f"{given or dataset}: sha256 {got[:12]} is not the prompts file {record} measured ({dataset}, sha256 {sha[:12]})")
    return {p.id: p for p in prompts}


def _text(prompt: Prompt, salt: str, endpoint: str) -> str:
    if endpoint == "completions":
        assert prompt.text is not None  # measure sent it to completions, so it is a {"prompt": ...} line
        return f"{salt} {prompt.text}"
    if len(prompt.messages) != 1 or prompt.messages[0]["role"] != "user":
        raise MeasureProblem(f"prompt {prompt.id}: {len(prompt.messages)} messages; AIPerf's single_turn lines hold one user text each")
    return f"{salt} {prompt.messages[0]['content']}"


def lines(record: Path, given: Path | None, concurrency: int | None) -> list[dict]:
    """AIPerf single_turn lines for the measured requests of RECORD (of one load, where given)."""
    try:
        return _lines(record, given, concurrency)
    except (KeyError, TypeError, AttributeError) as exc:  # a capture of another shape (an older measure's, or edited)
        raise MeasureProblem(f"{capture_dir(record)}: not a capture this sdeval measure reads ({type(exc).__name__} {exc})") from None


def _lines(record: Path, given: Path | None, concurrency: int | None) -> list[dict]:
    directory = capture_dir(record)
    if not directory.is_dir():
        raise MeasureProblem(f"{record}: no capture beside it ({directory.name}/); the workload is read from what measure captured")
    entries = Capture(directory).entries()
    session = next((e for e in entries if e["kind"] == "session"), None)
    if session is None:
        raise MeasureProblem(f"{directory}: holds no session line")
    if session.get("settings", {}).get("dataset", "").startswith("random"):
        raise MeasureProblem(f"{record}: measured random-token prompts, which the capture does not keep")
    prompts = _prompts(session, given, record)
    settings, nonce = session["settings"], session["salt"]["nonce"]
    fresh = new_nonce()
    sent: dict[str, dict] = {}  # by salt: every arm sent the same salted prompts; a resent request once
    for e in entries:
        if e["kind"] != "request" or e["warmup"] or (concurrency is not None and e["concurrency"] != concurrency):
            continue
        if e["prompt"] not in prompts:
            raise MeasureProblem(f"{directory}: request {e['salt']} names prompt {e['prompt']!r}, which the prompts file lacks")
        sent.setdefault(e["salt"], e)
    if not sent:
        raise MeasureProblem(f"{record}: no measured request{f' at concurrency {concurrency}' if concurrency is not None else ''}")
    extra = {"temperature": settings["temperature"], "top_p": settings["top_p"], "seed": settings["seed"], "n": 1}
    ordered = sorted(sent.values(), key=lambda e: (e["concurrency"], e["repetition"], e["index"], e["salt"]))
    return [
        {
            "text": _text(prompts[e["prompt"]], e["salt"].replace(nonce, fresh, 1), settings["endpoint"]),
            "output_length": settings["max_tokens"],
            "extra": extra,
        }
        for e in ordered
    ]


def write(record: Path, output: Path, given: Path | None, concurrency: int | None) -> int:
    """Writes the file (never over one that exists); returns how many requests it holds."""
    out = lines(record, given, concurrency)
    try:
        write_atomic(output, "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in out).encode())
    except OutputRefused as exc:
        raise MeasureProblem(str(exc).replace("pass --force to replace it", "choose another -o")) from None
    return len(out)
