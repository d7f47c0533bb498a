"""The accounting's figures per run, each written with the one precision of its column.

A reader compares a figure down the runs (T of one run against another's), so every run's
figure of a kind has one number of decimals across the record, never 640, 291.888 and 27.2517.
The terminal's table is compact (wording.column: the decimals of the column's largest figure:
640, 292, 169 s); the PDF, where each rate is shown as its division, keeps what the division
needs (`fine`): T to the decimals it was stated with, up to milliseconds (640.000, 291.888 s),
and every rate to the decimals its smallest figure needs for three significant figures (38.4,
291.0 tokens/s), so the printed operands give the printed result. The JSON keeps every figure exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING

from ..engine.wording import column, num

if TYPE_CHECKING:
    from ..engine.metrics import RunMetrics  # only read here: present/ computes no figure

# RunMetrics fields shown in the accounting, in the terminal table's column order.
FIELDS = (
    "verification_steps",
    "proposed_drafts",
    "accepted_drafts",
    "bonus_tokens",
    "emitted_tokens",
    "duration_s",
    "acceptance_rate",
    "mean_acceptance_length",
    "emitted_tokens_per_s",
    "accepted_tokens_per_s",
    "proposed_tokens_per_s",
)
MILLISECONDS = 3


def run_columns(metrics: Sequence["RunMetrics"], *, fine: bool = False) -> list[dict[str, str]]:
    """Per run (in the order given), each field's figure as its column writes it; "-" where the run has none."""
    columns = {}
    for name in FIELDS:
        values = [getattr(m, name) for m in metrics]
        columns[name] = _fine(values, name == "duration_s") if fine else column(values)
    return [{name: cells[k] for name, cells in columns.items()} for k in range(len(metrics))]


def _stated_decimals(value: float | int) -> int:
    """The decimals a figure was written with (291.888: 3, 640: 0), from its shortest form."""
    exponent = Decimal(repr(value)).as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _fine(values: Sequence[float | int | None], duration: bool) -> list[str]:
    present = [v for v in values if v is not None]
    if not present or all(isinstance(v, int) for v in present):
        decimals = 0
    elif duration:
        decimals = max(min(MILLISECONDS, _stated_decimals(v)) for v in present)
    else:
        decimals = max(len(num(v).partition(".")[2]) for v in present)
    return ["-" if v is None else num(v, decimals=decimals) for v in values]
