"""Words and numbers shown to people: verdict and status words, figures at a precision a
reader can take in, and the names offers go by.

Every reporter (text, PDF, the requirements table), every rule message and the browser form
take their words and figures from here, so "NOT ESTABLISHED" or a tokens/s figure reads the
same wherever it appears. Nothing here decides anything; the JSON output keeps the exact
values and codes.

How figures are shown (docs/claims.md, "How figures are shown"):
- a computed figure to three significant figures, but never fewer than its whole units:
  2.19x, 0.984x, 84.2 tokens/s, 2,226 tokens/s, 0.0775; thousands grouped with commas;
- no invented digits: a figure that is exact with fewer decimals keeps its short form
  (200 tokens/s, 0.5, 1.9x), while a rounded one keeps its trailing zeros (1.90x for 1.9004);
- a column of figures shares one number of decimals, set by its largest figure (`column`);
- what a person wrote (a claim's value, a duration) is shown as written (`as_written`);
- halves round away from zero, on the exact binary value (as JavaScript's toFixed does, so
  the browser form's port in templates/form/form.js gives the same digits).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from decimal import ROUND_HALF_UP, Decimal

# An assessment's outcome and a claim's verdict, in the terminal (quiet when established)...
VERDICT_TEXT = {
    "established": "established",
    "not-established": "NOT ESTABLISHED",
    "invalid": "INVALID RECORD",
    # `sdeval validate` given a buyer's requirements profile
    "valid-profile": "valid requirements profile",
    "invalid-profile": "INVALID REQUIREMENTS PROFILE",
    "valid-configuration": "valid configuration file",
    "invalid-configuration": "INVALID CONFIGURATION FILE",
}
# ...and on the PDF, where the word is a heading.
VERDICT_HEADING = {"established": "ESTABLISHED", "not-established": "NOT ESTABLISHED", "invalid": "INVALID RECORD"}
# One cell of the requirements x offers table.
REQUIREMENT_STATUS = {"met": "met", "not-met": "NOT MET", "not-established": "NOT ESTABLISHED"}
LATENCY_WORDS = {"ttft": "time to first token", "tpot": "time per output token", "itl": "inter-token latency", "e2e": "end-to-end latency"}

SIGNIFICANT = 3  # significant figures of a computed figure (whole units are never rounded away)


def _shortest_decimals(value: float) -> int:
    """Decimals of the shortest text that reads back as `value` (Python's repr, JavaScript's
    String(): the same digits), so 0.7 has one decimal, not the 52 of its binary value."""
    exponent = Decimal(repr(abs(float(value)))).normalize().as_tuple().exponent
    return max(0, -int(exponent))


def _cap(value: float) -> int:
    """Decimals that show `value` to SIGNIFICANT figures, and none from 100 up. The magnitude is
    read after rounding to SIGNIFICANT figures, so 99.96 counts as 100."""
    if value == 0:
        return 0
    magnitude = int(f"{abs(float(value)):.{SIGNIFICANT - 1}e}".split("e")[1])
    return max(0, SIGNIFICANT - 1 - magnitude)


def _fixed(value: float | int, decimals: int) -> str:
    """`value` with exactly `decimals` decimals and thousands grouped, halves away from zero."""
    if isinstance(value, int):
        text = f"{value:,}"
        return text + ("." + "0" * decimals if decimals else "")
    exact = Decimal(float(value)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    if exact == 0:
        exact = abs(exact)  # never "-0"
    return format(exact, ",f")


def _with_unit(text: str, unit: str) -> str:
    if unit == "x":
        return f"{text}x"
    return f"{text} {unit}" if unit else text


def _places(value: float | int, cap: int) -> int:
    return 0 if isinstance(value, int) else min(cap, _shortest_decimals(value))


def num(value: float | int | None, unit: str = "", *, decimals: int | None = None) -> str:
    """A figure as a buyer reads it: three significant figures (whole units from 100 up), no
    float noise, thousands grouped; `decimals` fixes the decimals instead (break-even: 1).
    Unit "x" is written against the number (2.19x), any other after a space."""
    if value is None:
        return "not stated"
    if isinstance(value, bool):
        value = int(value)
    if decimals is None:
        decimals = _places(value, _cap(value))
    return _with_unit(_fixed(value, decimals), unit)


def money(value: float | int | None, currency: str = "") -> str:
    """An amount of money, in cents as prices are written (1.20 USD, 69.37 USD), so a column of
    costs lines up; an amount under a cent keeps three significant figures."""
    if value is None:
        return "not stated"
    if 0 < abs(value) < 0.01:
        return num(value, currency)
    return num(value, currency, decimals=2)


def column(values: Sequence[float | int | None], unit: str = "", *, missing: str = "-") -> list[str]:
    """A column of figures with one number of decimals for every row: the decimals num() gives
    the column's largest figure, or fewer when every figure is exact with fewer. So a
    throughput column reads 38, 84, 553, 2,226 and a speedup column 2.19, 1.90, 1.31, 0.98."""
    present = [v for v in values if v is not None]
    if not present:
        return [missing for _ in values]
    largest = max(present, key=lambda v: abs(float(v)))
    cap = _cap(largest)
    decimals = max(_places(v, cap) for v in present)
    return [missing if v is None else _with_unit(_fixed(v, decimals), unit) for v in values]


def distinct(a: float, b: float, unit: str = "") -> tuple[str, str]:
    """Two figures compared in one sentence ("0.6534 disagrees with 0.6533"), each with as many
    significant figures as it takes to tell them apart, when rounding would make them read alike."""
    first, second = num(a, unit), num(b, unit)
    extra = 0
    while first == second and a != b and extra < 12:
        extra += 1
        first = num(a, unit, decimals=_places(a, _cap(a) + extra))
        second = num(b, unit, decimals=_places(b, _cap(b) + extra))
    return first, second


def disputed(stated: float | int, computed: float | int, unit: str = "") -> tuple[str, str]:
    """A figure someone stated against the one recomputed from the evidence: the stated one with
    every digit it was given (281.69), the recomputed one to at least as many decimals and further
    until the two read apart (281.07, not "282 disagrees with 281", which looks like rounding)."""
    first = unrounded(stated, unit)
    decimals = _places(stated, 99)
    second, extra = "", 0
    while extra < 12:
        second = num(computed, unit, decimals=_places(computed, max(decimals, _cap(computed)) + extra))
        if _visibly_apart(first, second, float(stated), float(computed)):
            break
        extra += 1
    return first, second


def _visibly_apart(first: str, second: str, a: float, b: float) -> bool:
    """Whether two shown figures differ by more than rounding alone could make them: 282 against
    281 may be 281.5 against 281.49, so they are shown further (281.69 against 281.07); figures
    shown with every digit they have are as far apart as they will ever read."""
    if a == b:
        return True
    shown = [Decimal(re.sub(r"[^0-9.+-]", "", text.replace(",", "")) or "0") for text in (first, second)]
    if shown[0] == shown[1]:
        return False
    last_place = Decimal(1).scaleb(max(int(d.as_tuple().exponent) for d in shown))
    full = all(_fixed(v, _shortest_decimals(v)) in text for v, text in ((a, first), (b, second)))
    return full or abs(shown[0] - shown[1]) > last_place


_WRITTEN_NUMBER = re.compile(r"^([-+]?)(\d+)((?:\.\d*)?(?:[eE][-+]?\d+)?)$")


def as_written(text: str | None, unit: str = "", value: float | int | None = None) -> str:
    """A number the way its author wrote it (a claim's 1.90x stays 1.90x), thousands grouped;
    `value` (num()) when the written text is not known."""
    match = _WRITTEN_NUMBER.match(text.strip()) if text else None
    if match is None or "e" in match.group(3).lower():
        return num(value, unit)
    sign, whole, rest = match.groups()
    return _with_unit(f"{'-' if sign == '-' else ''}{int(whole):,}{rest}", unit)


_TEXT_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])\d+(?:\.\d+)?")


def unrounded(value: float | int | None, unit: str = "") -> str:
    """A number someone stated, with every digit it has (2.091x, 281.69): never re-rounded to
    SIGNIFICANT figures, since a quoted claim or a reported figure is what it is."""
    if value is None or isinstance(value, bool) or isinstance(value, int):
        return num(value, unit)
    return num(value, unit, decimals=_shortest_decimals(value))


def claimed(text: str, written: str | None, value: float | int | None, unit: str = "") -> str:
    """A claim's figure as its author wrote it: the number in the claim's own words when it is
    the claimed value ("1.90x output throughput" -> 1.90x), else the value as the record writes it,
    else the value with every digit it has (2.091x, never "2.09x")."""
    target: float | None = None
    try:
        target = float(written) if written is not None else (None if value is None else float(value))
    except ValueError:
        target = None
    if target is not None and text:
        for match in _TEXT_NUMBER.finditer(text):
            if float(match.group(0).replace(",", "")) == target:
                return as_written(match.group(0).replace(",", ""), unit, value)
    if written is not None:
        return as_written(written, unit, value)
    return unrounded(value, unit)


def seconds(value: float | None) -> str:
    return "no duration" if value is None else f"{value:.3f} s"


def loads_text(loads) -> str:
    """A requirements profile's loads in one line: 'concurrency 1, 64, concurrency 32-128, 2 requests/s'."""
    parts = [f"concurrency {', '.join(str(x) for x in loads.concurrency)}"] if loads.concurrency else []
    parts += [f"concurrency {b.min_concurrency}-{b.max_concurrency}" for b in loads.concurrency_bands]
    parts += [f"{num(r)} requests/s" for r in loads.request_rates]
    return ", ".join(parts) or "none stated"


def and_join(items, word: str = "and") -> str:
    """'a', 'a and b', 'a, b and c' (or 'a, b or c'): a list as a sentence reads it."""
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1] if items else ""


# ------------------------------------------------------------------ offers' names


def offer_names(offers: Iterable[tuple[str, str | None, str | None]]) -> list[str]:
    """What each offer is called wherever people read about it: "vendor, offer id" (a file that
    is no record goes by its base name). Where two offers share a name, each adds its file's base
    name, and a number if even those agree. The path typed on the command line is not a name: it
    stays in the JSON document and the report's manifest. `offers`: (path, vendor, offer_id)."""
    entries = list(offers)
    base = [
        f"{vendor}, {offer_id}" if vendor is not None and offer_id is not None else os.path.basename(path) or path
        for path, vendor, offer_id in entries
    ]
    names = list(base)
    for i, (path, vendor, _) in enumerate(entries):
        if base.count(base[i]) > 1 and vendor is not None:
            names[i] = f"{base[i]} ({os.path.basename(path) or path})"
    shared = {name for name in names if names.count(name) > 1}
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in shared:
            seen[name] = seen.get(name, 0) + 1
            names[i] = f"{name} #{seen[name]}"
    return names


def names_of(results) -> list[str]:
    """offer_names() for assessed files (anything with .file and .record.offer)."""
    return offer_names(
        (r.file, r.record.offer.vendor, r.record.offer.offer_id) if getattr(r, "record", None) is not None else (r.file, None, None) for r in results
    )


def interval_text(d: dict) -> str:
    """A claim's measured interval in words: '1.42x over 3 repetitions, 95 % interval 1.30 to 1.55x
    (geometric mean; Student t over the logs of the paired ratios)', or why there is none."""
    unit = d["unit"]
    where = f"{d['figure']}: {num(d['value'], unit)}"
    if "repetitions" in d:
        where += f" over {d['repetitions']} repetitions"
    if d["low"] is None or d["high"] is None:
        return f"{where}, {d['note']}"
    return f"{where}, {round(d['confidence'] * 100)} % interval {num(d['low'])} to {num(d['high'], unit)} ({d['method']})"


def interval_brief(d: dict) -> str:
    """The same for the report's cover, in a few words: '95 % interval 1.85 to 2.78x (3 repetitions)'."""
    if d["low"] is None or d["high"] is None:
        return d["note"]
    over = f" ({d['repetitions']} repetitions)" if "repetitions" in d else ""
    return f"{round(d['confidence'] * 100)} % interval {num(d['low'])} to {num(d['high'], d['unit'])}{over}"
