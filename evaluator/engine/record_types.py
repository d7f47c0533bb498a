"""The evidence record's scalar types and base model, shared by record.py and the modules that hold
one part of the record each (record_deployment.py), so that none of them imports another."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from .._infra.safe_text import CONTROL_PATTERN, CONTROL_PATTERN_LINES, IDENTITY_PATTERN

# Bounds that keep a count a count: JSON allows 1e999 and 2**200, a record does not.
MAX_COUNT = 10**15


def _integral(value: object) -> object:
    """JSON Schema (2020-12) reads 15.0 as the integer 15, and the published schema is what a
    record is checked against; a number with a fractional part stays a schema error."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Whole = BeforeValidator(_integral)
Count = Annotated[int, Field(ge=0, le=MAX_COUNT), Whole]
# The same with other bounds, as types: a field-level bound cannot reach past the validator.
PositiveCount = Annotated[int, Field(ge=1, le=MAX_COUNT), Whole]
DraftLength = Annotated[int, Field(ge=0, le=64), Whole]
# A microsecond is the shortest interval any serving tool reports; it also keeps E / T finite.
Seconds = Annotated[float, Field(ge=1e-6, le=10**9)]
NonNegFloat = Annotated[float, Field(ge=0, le=10**12)]
SignedFloat = Annotated[float, Field(ge=-(10**12), le=10**12)]
Fraction01 = Annotated[float, Field(ge=0, le=1)]
Ident = Annotated[
    str,
    Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$"),
]
# No control characters (C0 but tab, DEL, C1): they would reach a terminal, a PDF or XMP metadata
# and steer it. Multi-line fields also take newline; none takes CR, which rewrites a line.
Text = Annotated[str, Field(max_length=2000, pattern=CONTROL_PATTERN)]
LinesText = Annotated[str, Field(max_length=2000, pattern=CONTROL_PATTERN_LINES)]
LongText = Annotated[str, Field(max_length=20000, pattern=CONTROL_PATTERN_LINES)]


# A name a reader tells offers and models apart by (vendor, offer id, models): Text without bidi
# controls (they reorder the text printed after it) or invisible characters (two names that look
# alike would differ).
IdentityText = Annotated[str, Field(max_length=2000, pattern=IDENTITY_PATTERN)]


class _Model(BaseModel):
    # extra="forbid": a misspelt field is a schema error, not silently ignored evidence.
    # strict=True: "5" is not 5; we read a record exactly as any JSON Schema validator does.
    # defer_build=True: a model's validator is built when first used, so only EvidenceRecord's is built
    # to validate a record, not one more for each of the models it holds (about 3 % of `validate`'s CPU).
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)
