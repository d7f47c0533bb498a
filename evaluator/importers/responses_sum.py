"""One byte range of a responses file summed into its Totals (vllm_responses' hot loop), with the
checks that refuse a line: malformed JSON, counts that contradict each other, the `detailed` arrays
against the request's own counts, and line 1 of another tool's output. The lines whose histogram
contradicts their own counts are looked for here too, when the file's totals disagree."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from . import responses_trtllm
from .common import ImportProblem, histogram
from .responses_lines import BLOCK, FORMAT, UNREADABLE, SpecDecoding, blocks, decode_line, decode_response
from .responses_llama import LlamaRequests
from .responses_totals import Totals, add_columns, bad_line_problem


class _Refused(Exception):
    """A bad line ends the range (without --skip-bad-lines)."""


def sum_range(
    path: Path, span: tuple[int, int], skip_bad_lines: bool, advance: Callable[[int], None] | None, fmt: str = FORMAT, hasher=None
) -> Totals:
    t = Totals()
    start, end = span

    def refuse(number: int, why: str) -> None:
        """A bad line: skipped and counted, or the end of the range."""
        if not skip_bad_lines:
            t.bad_line = (number, why)
            raise _Refused
        t.skipped += 1
        t.first_skipped = t.first_skipped or number

    llama = LlamaRequests(t, refuse)
    trt = responses_trtllm.Requests(refuse) if fmt == responses_trtllm.FORMAT else None
    tally = t.per_request
    # The hot loop of a million-line import: every name it touches is a local, the rare cases
    # sit in branches, and histograms are added up a block at a time.
    steps = drafts = accepted = emitted = plain = 0
    with_metrics = without_metrics = 0
    usage_complete = plain_complete = True
    hist: list[int] | None = []
    add_k = t.k_values.add
    decode = decode_line
    sd = last = None
    number = 0
    try:
        with open(path, "rb", buffering=BLOCK) as fh:
            for lines in blocks(fh, start, end, advance, hasher):
                histograms: list[list[int] | None] = []  # a None only once hist is None, which stays None
                keep = histograms.append
                counted: list[tuple[int, int, int]] = []  # the block's (P, A, S), tallied at once (in C)
                count_request = counted.append
                for number, line in enumerate(lines, number + 1):  # noqa: B020 (enumerate took its start before the loop rebinds it)
                    try:
                        response = decode(line)
                    except UNREADABLE:
                        if not line.strip():
                            continue
                        if number == 1 and start == 0:
                            _refuse_other_format(path, fmt)
                        refuse(number, f"not a valid response ({_why_not(line)})")
                        continue
                    if number == 1 and start == 0:
                        _first_line(path, line, t)
                    metrics = response.metrics
                    if metrics is None or (sd := metrics.speculative_decoding) is None:
                        if number == 1 and start == 0:
                            _refuse_if_not_a_response(path, line, fmt)
                        if response.timings is not None:
                            llama.line(number, line, response)
                        elif trt is not None:
                            trt.line(number, line)
                        elif response.stop is False or (response.usage is None and (response.object or "").endswith(".chunk")):
                            t.content_chunks += 1  # a streamed content chunk, not a finished request
                        else:
                            without_metrics += 1
                            usage = response.usage
                            if usage is not None and (tokens := usage.completion_tokens) is not None:
                                if usage.completion_tokens_details is not None:
                                    tokens = t.predictions.take(usage.completion_tokens_details, tokens, number, refuse)
                                plain += tokens
                            else:
                                plain_complete = False
                            if responses_trtllm.KEY in line:
                                t.trt_seen += 1
                        continue
                    s, p, a, h = sd.num_spec_steps, sd.num_draft_tokens, sd.num_accepted_draft_tokens, sd.acceptance_histogram
                    if s is None or p is None or a is None:
                        refuse(number, "metrics.speculative_decoding lacks num_spec_steps, num_draft_tokens or num_accepted_draft_tokens")
                        continue
                    if a > p:
                        refuse(
                            number, f"metrics.speculative_decoding accepted {a} drafts of {p} proposed (num_accepted_draft_tokens > num_draft_tokens)"
                        )
                        continue
                    if h.__class__ is not list:
                        if h is None:
                            hist = None  # one request without a histogram: a partial sum would mislead
                        else:
                            try:
                                h = histogram(h, "")
                            except ImportProblem:
                                refuse(number, "acceptance_histogram keys must be numbers of accepted drafts")
                                continue
                    # (both per-step arrays are None or neither: one test for the two)
                    if sd.per_step_accepted is not sd.per_step_drafted or sd.acceptance_histogram_by_draft_length is not None:
                        why = _detailed(sd, s, p, a, t)
                        if why is not None:
                            refuse(number, why)
                            continue
                    with_metrics += 1
                    steps += s
                    drafts += p
                    accepted += a
                    add_k(sd.num_spec_tokens)  # type: ignore[arg-type]  # None included: dropped at the end
                    keep(h)
                    count_request((p, a, s))
                    usage = response.usage
                    if usage is not None and (tokens := usage.completion_tokens) is not None:
                        emitted += tokens
                    else:
                        usage_complete = False
                    last = sd
                tally.update(counted)
                if hist is not None:
                    hist = add_columns(hist, histograms)  # type: ignore[arg-type]  # no None row while hist is a list
        llama.finish()
        if trt is not None:
            t.trt = trt.totals()
            t.k_values |= trt.k_values
    except _Refused:
        pass
    t.hist = hist
    t.steps, t.drafts, t.accepted = steps, drafts, accepted
    t.requests_with, t.requests_without = with_metrics, without_metrics + llama.without
    t.emitted = emitted if usage_complete else None
    t.plain_emitted = None if not plain_complete or t.plain_emitted is None else plain + t.plain_emitted
    t.k_values.discard(None)
    t.last = last
    t.lines = number
    return t


def _histogram_mismatch(h: list[int], s: int, a: int) -> str:
    return (
        f"its acceptance_histogram {h} adds up to {sum(h)} steps and {sum(j * n for j, n in enumerate(h))} accepted drafts, "
        f"not num_spec_steps {s} and num_accepted_draft_tokens {a}"
    )


def _detailed(sd: SpecDecoding, s: int, p: int, a: int, t: Totals) -> str | None:
    """The `detailed` arrays against the request's own counts, as vLLM's e2e test checks them; the
    draft lengths they and acceptance_histogram_by_draft_length show go to t.draft_lengths."""
    acc, dra, rows = sd.per_step_accepted, sd.per_step_drafted, sd.acceptance_histogram_by_draft_length
    if (acc is None) != (dra is None):
        return "metrics.speculative_decoding has one of per_step_accepted and per_step_drafted without the other"
    if acc is not None and dra is not None:
        if len(acc) != s or len(dra) != s:
            return f"per_step_accepted and per_step_drafted hold {len(acc)} and {len(dra)} steps, not num_spec_steps {s}"
        if sum(acc) != a or sum(dra) != p:
            return (
                f"per_step_accepted adds up to {sum(acc)} and per_step_drafted to {sum(dra)}, "
                f"not num_accepted_draft_tokens {a} and num_draft_tokens {p}"
            )
        if any(x > y for x, y in zip(acc, dra)):
            return "a step of per_step_accepted accepted more drafts than per_step_drafted proposed"
        t.draft_lengths.update(dra)
        t.detailed += 1
    if rows is not None:
        for key, row in rows.items():
            if not key.isdigit() or len(row) > int(key) + 1:
                return f"acceptance_histogram_by_draft_length row {key!r} is not a draft length with at most length + 1 entries"
            if sum(row):
                t.draft_lengths.add(int(key))
    return None


def _first_line(path: Path, line: bytes, t: Totals) -> None:
    """What served the file, as its first response names it."""
    try:
        first = decode_response(line)
    except UNREADABLE:
        return
    t.first_model, t.fingerprint = first.model, first.system_fingerprint


def first_totals(path: Path, line: bytes, fmt: str) -> Totals:
    """Line 1 as sum_range checks it, for the DuckDB engine: msgspec.DecodeError or ImportProblem
    when it is not a plain vLLM response (the default reader then reads the file and says why)."""
    t = Totals()
    response = decode_line(line)
    _first_line(path, line, t)
    if response.metrics is None or response.metrics.speculative_decoding is None:
        _refuse_if_not_a_response(path, line, fmt)
    return t


def _why_not(line: bytes) -> str:
    """msgspec's reason, for the line as the user sees it (without the newline readlines keeps)."""
    if line.startswith(b"\xef\xbb\xbf"):  # msgspec's words would be "invalid character (byte 0)"
        return "it starts with a UTF-8 byte-order mark; save the file as UTF-8 without BOM"
    try:
        decode_line(line.rstrip(b"\r\n"))
    except UNREADABLE as exc:
        return str(exc)
    return "not JSON"  # not reached: the line failed with its newline, so it fails without


def _refuse_if_not_a_response(path: Path, line: bytes, fmt: str = FORMAT) -> None:
    """Line 1 with none of a response's fields is another tool's output."""
    try:
        response = decode_response(line)
    except UNREADABLE:
        return  # decodes as a line: a response whose model or fingerprint is not a string
    if all(
        v is None
        for v in (response.object, response.choices, response.usage, response.metrics, response.timings, response.stop, response.tokens_predicted)
    ):
        _refuse_other_format(path, fmt, "has no choices, usage or metrics", always=True)


def _refuse_other_format(path: Path, fmt: str = FORMAT, why: str = "is not a JSON response", always: bool = False) -> None:
    """Line 1 of another tool's file: say which. A response file whose first line is merely
    malformed goes on to the bad-line handling."""
    from .sniff import describe_guess

    guess = describe_guess(path, fmt)
    if guess or always:
        raise ImportProblem(f"{path}: line 1 {why}, so this is not {fmt} output{guess}")


def _contradictions(path: Path) -> Iterator[tuple[int, str, SpecDecoding, list[int], int | None]]:
    """The lines whose accepted-length histogram disagrees with their own S or A (vLLM's e2e test
    asserts sum h = S and sum j h[j] = A). Looked for only when the file's totals disagree, so the
    common case pays nothing for it."""
    with open(path, "rb") as fh:
        for number, line in enumerate(fh, 1):
            try:
                response = decode_line(line)
            except UNREADABLE:
                continue
            sd = response.metrics.speculative_decoding if response.metrics is not None else None
            if sd is None or sd.acceptance_histogram is None or sd.num_spec_steps is None or sd.num_accepted_draft_tokens is None:
                continue
            try:
                h = histogram(sd.acceptance_histogram, "")
            except ImportProblem:
                continue
            assert h is not None  # there is a histogram: checked above
            if sum(h) != sd.num_spec_steps or sum(j * n for j, n in enumerate(h)) != sd.num_accepted_draft_tokens:
                tokens = response.usage.completion_tokens if response.usage is not None else None
                yield number, _histogram_mismatch(h, sd.num_spec_steps, sd.num_accepted_draft_tokens), sd, h, tokens


def drop_contradictions(path: Path, t: Totals, skip_bad_lines: bool) -> None:
    h = t.hist
    if h is None or not t.requests_with or (sum(h) == t.steps and sum(j * n for j, n in enumerate(h)) == t.accepted):
        return
    for number, why, sd, row, tokens in _contradictions(path):
        if not skip_bad_lines:
            raise bad_line_problem(path, number, why)
        t.requests_with -= 1
        t.steps -= sd.num_spec_steps or 0
        t.drafts -= sd.num_draft_tokens or 0
        t.accepted -= sd.num_accepted_draft_tokens or 0
        t.hist = h = [a - b for a, b in zip(h, row + [0] * (len(h) - len(row)))]
        t.per_request[(sd.num_draft_tokens, sd.num_accepted_draft_tokens, sd.num_spec_steps)] -= 1
        t.emitted = None if t.emitted is None or tokens is None else t.emitted - tokens
        t.skipped += 1
        t.first_skipped = number if t.first_skipped is None else min(t.first_skipped, number)
