"""OpenAI's Predicted Outputs counts in a response's usage, read under every responses format.

`usage.completion_tokens_details.accepted_prediction_tokens` is, as OpenAI's API reference defines
it, "the number of tokens in the prediction that appeared in the completion";
`rejected_prediction_tokens` the number "that did not appear in the completion", which "like
reasoning tokens ... are still counted in the total completion tokens for purposes of billing,
output, and context window limits". Both count the prediction the client sent (its own guess of
the output), compared with the completion, not drafts a drafter proposed and the target verified
step by step: they are never P or A and give no request_acceptance. The rejected ones were never
emitted, so a request's output tokens are completion_tokens less them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

import msgspec

FORMAT = "openai-responses"  # any OpenAI-compatible server's responses, without per-request speculation counts
NonNeg = Annotated[int, msgspec.Meta(ge=0)]


class TokenDetails(msgspec.Struct, gc=False):
    """usage.completion_tokens_details (only the prediction counts)."""

    accepted_prediction_tokens: NonNeg | None = None
    rejected_prediction_tokens: NonNeg | None = None


@dataclass
class Predictions:
    """The requests that carry prediction counts, and their sums."""

    requests: int = 0
    accepted: int = 0
    rejected: int = 0

    def take(self, details: TokenDetails, tokens: int, number: int, refuse: Callable[[int, str], None]) -> int:
        """The request's emitted tokens: completion_tokens without its rejected prediction tokens."""
        accepted, rejected = details.accepted_prediction_tokens, details.rejected_prediction_tokens
        if accepted is None and rejected is None:
            return tokens
        if (rejected or 0) > tokens:
            refuse(
                number,
                f"usage.completion_tokens_details.rejected_prediction_tokens {rejected} is more than completion_tokens {tokens}, which counts them",
            )
            return tokens
        self.requests += 1
        self.accepted += accepted or 0
        self.rejected += rejected or 0
        return tokens - (rejected or 0)

    def add(self, other: Predictions) -> None:
        self.requests += other.requests
        self.accepted += other.accepted
        self.rejected += other.rejected

    def notes(self) -> list[str]:
        if not self.requests:
            return []
        return [
            f"{self.requests} request{'s' if self.requests != 1 else ''} used Predicted Outputs: {self.accepted} tokens of the "
            f"supplied predictions appeared in the completions (accepted_prediction_tokens) and {self.rejected} did not "
            "(rejected_prediction_tokens). These count the prediction the client sent, not drafts a drafter proposed and the "
            "target verified step by step, so they are not proposed or accepted drafts here; the rejected ones, which "
            "completion_tokens includes for billing, are taken out of emitted_tokens."
        ]
