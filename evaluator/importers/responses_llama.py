"""llama.cpp's per-request path of vllm_responses (llamacpp-responses): its lines that carry
`timings`, decoded once more to tell a final response (and its choices) from a running chunk, the
streamed choices of one request joined by id, and the run built from their sums."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from . import provenance
from .common import Imported, request_acceptance, source
from .responses_lines import UNREADABLE, Line, NonNeg
from .responses_totals import Totals, skipped_lines

LLAMA_SOURCE = "llama.cpp's timings.draft_n and draft_n_accepted (no per-request steps)"


class Choice(msgspec.Struct, gc=False):
    finish_reason: str | None = None


class LlamaLine(msgspec.Struct, gc=False):
    """A line carrying llama.cpp timings, decoded again for what tells a final response (and its
    choices) from a running chunk."""

    id: str | None = None
    choices: list[Choice] | None = None
    tokens_predicted: NonNeg | None = None


_decode_llama = msgspec.json.Decoder(LlamaLine).decode


class LlamaRequests:
    """llama.cpp's requests, from the lines that carry `timings` (a rare path: decoded once more)."""

    def __init__(self, t: Totals, refuse: Callable[[int, str], None]):
        self.t, self.refuse = t, refuse
        self.without = 0
        self.streamed: dict[str, list] = {}  # id -> [covered, P, A, E] of a streamed request's choices so far

    def line(self, number: int, line: bytes, response: Line) -> None:
        t, tm = self.t, response.timings
        assert tm is not None  # called only for a response with timings
        t.timings_seen += 1
        try:
            extra = _decode_llama(line)
        except UNREADABLE as exc:
            self.refuse(number, f"not a valid llama.cpp response ({exc})")
            return
        chunk = (response.object or "").endswith(".chunk")
        choices = extra.choices or []
        if chunk:
            final = response.usage is not None or any(c.finish_reason is not None for c in choices)
        elif response.stop is not None:  # native /completion
            final = response.stop
        else:
            final = True
        if not final:
            t.content_chunks += 1  # a running chunk (timings_per_token)
            return
        usage = response.usage
        tokens = usage.completion_tokens if usage is not None else None
        if tokens is None:
            tokens = extra.tokens_predicted if extra.tokens_predicted is not None else tm.predicted_n
        covered = tm.draft_n is not None
        if covered and tm.draft_n_accepted is None:
            self.refuse(number, "timings has draft_n without draft_n_accepted")
            return
        if covered and tm.draft_n_accepted > tm.draft_n:  # type: ignore[operator]  # both set: checked above
            self.refuse(number, f"timings accepted {tm.draft_n_accepted} drafts of {tm.draft_n} (draft_n_accepted > draft_n)")
            return
        if not chunk and len(choices) > 1:
            t.multi_choice += 1  # one choice's timings and usage for all of them: not this request's figures
            covered = False
        figures = [covered, tm.draft_n or 0, tm.draft_n_accepted or 0, tokens]
        rid = extra.id if chunk else None
        seen = self.streamed.get(rid) if rid is not None else None
        if seen is None:
            if rid is not None:
                self.streamed[rid] = figures  # its request's counts are known at the end of the file
            elif covered:
                t.per_request[(figures[1], figures[2], None)] += 1
            self._count(figures, +1)
            return
        # Another choice of a streamed n > 1 request: one request, covered only if every choice is.
        t.merged_choices += 1
        if seen[0] and covered:
            self._add(figures, +1)
            seen[1] += figures[1]
            seen[2] += figures[2]
            seen[3] = None if seen[3] is None or tokens is None else seen[3] + tokens
            return
        if seen[0]:  # covered so far, not this choice: the request leaves the covered ones
            self._count(seen, -1)
            seen[0] = False
            self._count(seen, +1)
        self._plain(tokens)

    def finish(self) -> None:
        """The streamed requests' counts, now that all their choices are in."""
        for covered, proposed, accepted, _ in self.streamed.values():
            if covered:
                self.t.per_request[(proposed, accepted, None)] += 1

    def _count(self, figures: list, sign: int) -> None:
        if figures[0]:
            self.t.llama_with += sign
            self._add(figures, sign)
        else:
            self.without += sign
            if sign > 0:
                self._plain(figures[3])

    def _add(self, figures: list, sign: int) -> None:
        t = self.t
        t.llama_drafts += sign * figures[1]
        t.llama_accepted += sign * figures[2]
        t.llama_emitted = None if t.llama_emitted is None or figures[3] is None else t.llama_emitted + sign * figures[3]

    def _plain(self, tokens: int | None) -> None:
        t = self.t
        t.plain_emitted = None if t.plain_emitted is None or tokens is None else t.plain_emitted + tokens


def llama_run(path: Path, t: Totals) -> Imported:
    covered, without = t.llama_with, t.requests_without
    counts: dict[str, Any] = {"population": "benchmark-requests"}
    notes, warnings = skipped_lines(path, t)
    if covered:
        counts.update(
            proposed_drafts=t.llama_drafts,
            accepted_drafts=t.llama_accepted,
            requests_with_metrics=covered,
            requests_without_metrics=without,
            missing_metrics_as="excluded",
        )
        if t.llama_emitted is not None:
            counts["emitted_tokens"] = t.llama_emitted
            notes.append("emitted_tokens sums the completion tokens of the requests with timings.draft_n.")
        notes.append(
            "llama.cpp reports no verification steps per request (timings has draft_n and draft_n_accepted only): S and the histogram are missing."
        )
        if without - t.multi_choice > 0:
            notes.append(
                f"{without - t.multi_choice} of {covered + without} requests have no timings.draft_n (llama.cpp writes it only when the "
                "request drafted, so speculation was off or proposed nothing for them) and are not in the counts."
            )
    elif t.plain_emitted is not None:
        counts["emitted_tokens"] = t.plain_emitted
    if t.multi_choice:
        one = t.multi_choice == 1
        notes.append(
            f"{t.multi_choice} response{'' if one else 's'} with several choices (n > 1 or several prompts) "
            f"{'carries' if one else 'carry'} one choice's timings and usage for all of them, so {'it is' if one else 'they are'} not covered."
        )
    if t.merged_choices:
        one = t.merged_choices == 1
        notes.append(
            f"{t.merged_choices} further choice{'' if one else 's'} of streamed n > 1 requests, each with its own timings, "
            f"{'was' if one else 'were'} added to {'its' if one else 'their'} request."
        )
    if t.content_chunks:
        notes.append(f"{t.content_chunks} streamed content chunk{'s' if t.content_chunks != 1 else ''} passed over.")
    version = t.fingerprint
    served = provenance.note(
        "llama.cpp server" + (f" {version}" if version else ""), model=t.first_model, model_from="as the first response names it"
    )
    if served:
        notes.append(served)
    if version:
        notes.append(f"The tool version is the responses' system_fingerprint {version} (llama.cpp's build number and commit).")
    notes.extend(t.predictions.notes())
    fields: dict[str, Any] = {"workload": {"num_requests": covered + without}, "counts": counts}
    if covered:
        fields["request_acceptance"] = request_acceptance(t.per_request, LLAMA_SOURCE)
    if notes:
        fields["notes"] = " ".join(notes)
    return Imported(fields=fields, source=source("llamacpp-responses", path, t.sha256, version), speculative=covered > 0, warnings=warnings)
