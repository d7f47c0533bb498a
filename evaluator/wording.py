"""Words and numbers shown to people: verdict and status words, and figures as a buyer reads them.

Every reporter (text, PDF, the requirements table) and every rule message takes its words
from here, so "NOT ESTABLISHED" or a tokens/s figure reads the same wherever it appears.
Nothing here decides anything; the JSON output keeps the exact values and codes.
"""

from __future__ import annotations

# An assessment's outcome and a claim's verdict, in the terminal (quiet when established)...
VERDICT_TEXT = {"established": "established", "not-established": "NOT ESTABLISHED", "invalid": "INVALID RECORD"}
# ...and on the PDF, where the word is a heading.
VERDICT_HEADING = {"established": "ESTABLISHED", "not-established": "NOT ESTABLISHED", "invalid": "INVALID RECORD"}
# One cell of the requirements x offers table.
REQUIREMENT_STATUS = {"met": "met", "not-met": "NOT MET", "not-established": "NOT ESTABLISHED"}
LATENCY_WORDS = {"ttft": "time to first token", "tpot": "time per output token", "itl": "inter-token latency", "e2e": "end-to-end latency"}


def num(value: float | int | None, unit: str = "") -> str:
    """A figure as a buyer reads it: no float noise, no Python repr."""
    if value is None:
        return "not stated"
    if unit == "x":
        return f"{num(value)}x"
    if isinstance(value, float) and value != int(value):
        text = f"{value:.4f}".rstrip("0").rstrip(".") if abs(value) < 1000 else f"{value:,.1f}".rstrip("0").rstrip(".")
    else:
        text = f"{int(value):,}"
    return f"{text} {unit}".rstrip() if unit else text


def seconds(value: float | None) -> str:
    return "no duration" if value is None else f"{value:.3f} s"


def loads_text(loads) -> str:
    """A requirements profile's loads in one line: 'concurrency 1, 64, concurrency 32-128, 2 requests/s'."""
    parts = [f"concurrency {', '.join(str(x) for x in loads.concurrency)}"] if loads.concurrency else []
    parts += [f"concurrency {b.min_concurrency}-{b.max_concurrency}" for b in loads.concurrency_bands]
    parts += [f"{num(r)} requests/s" for r in loads.request_rates]
    return ", ".join(parts) or "none stated"


def and_join(items) -> str:
    """'a', 'a and b', 'a, b and c': a list as a sentence reads it."""
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""
