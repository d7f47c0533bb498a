"""AIPerf's metric blocks: the units they are in, the tags they go by in each layout AIPerf has
written (top-level blocks, records keyed by tag or by display name), and the reading of run totals,
latencies and durations from them. Shared by the summary, sweep and per-request readers."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from .common import count, number, percentiles

FORMAT = "aiperf"
# The AIPerf release the tests run against the real engine (tests/importers/test_tools_live.py).
TESTED = (0, 13)
# The statistics a metric block may hold (JsonMetricResult, export_models.py at 896729cf).
BLOCK_KEYS = ("unit", "avg", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "min", "max", "std", "count", "sum")
# Exact factors, so 52,000,000 ns is 52 ms and not 52.00000000000001.
TO_SECONDS = {
    "s": Fraction(1),
    "sec": Fraction(1),
    "secs": Fraction(1),
    "seconds": Fraction(1),
    "ms": Fraction(1, 10**3),
    "us": Fraction(1, 10**6),
    "ns": Fraction(1, 10**9),
}
TO_MS = {unit: factor * 1000 for unit, factor in TO_SECONDS.items()}


def convert(value: Any, factor: Fraction) -> float | None:
    v = number(value)
    return None if v is None else v if factor == 1 else float(Fraction(v) * factor)


# Earlier names of today's tags (display names are turned into tags by _tag first).
ALIASES = {
    "ttft": "time_to_first_token",
    "ttst": "time_to_second_token",
    "total_output_sequence_length": "total_osl",
    "total_input_sequence_length": "total_isl",
}
# The three layouts, as named in notes and refusals.
TOP_LEVEL, BY_TAG, BY_NAME = (
    "top-level metric blocks",
    "records keyed by tag (July to October 2025)",
    "records keyed by display name (June 2025 pre-release)",
)


def _tag(key: str, block: dict) -> str:
    """A block's metric tag: its `tag`, else its key or display name as a tag ("Time to First Token" -> time_to_first_token)."""
    raw = tag if isinstance(tag := block.get("tag"), str) else name if isinstance(name := block.get("name"), str) else key
    tag = re.sub(r"[^a-z0-9]+", "_", raw.lower()).strip("_")
    return ALIASES.get(tag, tag)


def _is_block(value: Any) -> bool:
    return isinstance(value, dict) and "unit" in value and "avg" in value


def metric_blocks(data: Any) -> tuple[dict[str, dict], str] | None:
    """The metric blocks by tag and the layout they came in, or None when the file holds none."""
    if not isinstance(data, dict):
        return None
    records = data.get("records")
    if isinstance(records, dict):
        blocks = {_tag(k, v): v for k, v in records.items() if _is_block(v)}
        by_name = any(isinstance(v, dict) and "name" in v and "tag" not in v for v in records.values())
        return (blocks, BY_NAME if by_name else BY_TAG) if blocks else None
    blocks = {_tag(k, v): v for k, v in data.items() if _is_block(v)}
    if not blocks:
        return None
    by_name = any(" " in k for k, v in data.items() if _is_block(v))
    return blocks, BY_NAME if by_name else TOP_LEVEL


class Metrics:
    def __init__(self, blocks: dict[str, dict]):
        self.blocks = blocks

    def block(self, tag: str) -> dict:
        return self.blocks.get(tag, {})

    def total(self, *tags: str) -> int | None:
        """The first of these run totals the file has (aggregate metrics carry the value as `avg`)."""
        for tag in tags:
            value = count(self.block(tag).get("avg"))
            if value is not None:
                return value
        return None

    def spec_total(self, total_tag: str, per_request_tag: str) -> int | None:
        value = self.total(total_tag)
        return value if value is not None else count(self.block(per_request_tag).get("sum"))

    def latency(self, *tags: str) -> dict | None:
        for tag in tags:
            b = self.block(tag)
            scale = TO_MS.get(str(b.get("unit", "ms")).lower())
            if b and scale is not None:
                return percentiles(*(convert(b.get(k), scale) for k in ("avg", "p50", "p90", "p95", "p99")))
        return None

    def seconds(self, tag: str) -> float | None:
        b = self.block(tag)
        factor = TO_SECONDS.get(str(b.get("unit", "")).lower())
        return convert(b.get("avg"), factor) or None if factor is not None else None

    def emitted(self) -> tuple[int | None, int | None, str | None]:
        """(E, reasoning tokens of E, where E came from)."""
        reasoning = self.total("total_reasoning_tokens")
        for tag in ("total_osl", "benchmark_token_count"):
            value = self.total(tag)
            if value is not None:
                return value, reasoning, tag
        output = self.total("total_output_tokens")
        if output is not None:
            return output + (reasoning or 0), reasoning, "total_output_tokens + total_reasoning_tokens" if reasoning else "total_output_tokens"
        return None, reasoning, None


def as_dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}
