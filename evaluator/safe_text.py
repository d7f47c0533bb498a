"""Strings from an input, made safe to show: the one place that decides which characters a
terminal, a listing or a metadata field gets escaped, and which characters an identity field
may not hold.

A vendor writes the record, so a vendor string must never move the cursor, erase a line, ring
the bell, reorder the tool's own text (bidi controls) or look like another name (invisible
characters). Everything printable stays as it is; everything else is shown as \\xNN or \\uNNNN.
"""

from __future__ import annotations

import re
import unicodedata

# Bidi embeddings, overrides and isolates: each opens a span that a PDF, a browser or a terminal
# applies to whatever follows, up to its terminator (PDF, U+202C; PDI, U+2069).
_OPENERS = {"\u202a": "\u202c", "\u202b": "\u202c", "\u202d": "\u202c", "\u202e": "\u202c",
            "\u2066": "\u2069", "\u2067": "\u2069", "\u2068": "\u2069"}
_CLOSERS = {"\u202c", "\u2069"}

# Unicode's Default_Ignorable_Code_Point outside general category Cf (which the checks below take
# whole): Hangul fillers, the combining grapheme joiner, Khmer inherent vowels, variation
# selectors, and the ranges Unicode reserves for future ignorables (DerivedCoreProperties.txt).
_IGNORABLE_RANGES = (
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x2065, 0x2065),
    (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0xE0000, 0xE0FFF),
)

# C0 (bar tab and, in multi-line fields, newline), DEL and C1: the published schema says the same.
CONTROL_PATTERN = r"^[^\x00-\x08\x0a-\x1f\x7f-\x9f]*$"
CONTROL_PATTERN_LINES = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*$"


def is_control(ch: str) -> bool:
    return unicodedata.category(ch) == "Cc"


def is_invisible(ch: str) -> bool:
    """Default-ignorable or a format character: drawn as nothing (or only steering other text)."""
    if unicodedata.category(ch) == "Cf" or ch in "\u2028\u2029":
        return True
    code = ord(ch)
    return any(low <= code <= high for low, high in _IGNORABLE_RANGES)


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else (f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")


def shown(text: object, *, lines: bool = False) -> str:
    """`text` with every character a terminal, a listing or a reader could be fooled by escaped:
    control characters (all of C0, DEL and C1, except tab, and newline when `lines`), bidi
    controls and invisible characters. The one function every output of an input string uses."""
    text = str(text)
    if text.isascii() and text.isprintable():  # the common case, at C speed
        return text
    return "".join(
        _escape(ch) if (is_control(ch) and ch != "\t" and not (lines and ch == "\n")) or is_invisible(ch) else ch
        for ch in text
    )


# Bidi classes that can reorder text around them: right-to-left letters and the explicit controls.
_REORDERING = {"R", "AL", "RLE", "RLO", "LRE", "LRO", "RLI", "LRI", "FSI", "PDF", "PDI"}


def isolated(text: str) -> str:
    """`text` inside its own bidi isolate (FSI ... PDI, the plain-text <bdi>) when it holds anything
    that could reorder the text around it: an override left open ends at the PDI, so a vendor's
    string cannot turn the tool's "AO-1" after it into "1-OA". Plain left-to-right text is left as is."""
    if text.isascii() or not any(unicodedata.bidirectional(ch) in _REORDERING for ch in text):
        return text
    return "\u2068" + text + "\u2069"


def xml_safe(text: str) -> str:
    """What XML 1.0 can hold (metadata, XMP): the characters it forbids are shown escaped."""
    return re.sub(r"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\x7f-\x9f]", lambda m: _escape(m.group(0)), text)


def unpaired_bidi(text: str) -> int | None:
    """Index of the first bidi embedding, override or isolate left open (or a terminator that
    closes nothing), or None when every one is paired within `text`."""
    stack: list[tuple[str, int]] = []
    for i, ch in enumerate(text):
        if ch in _OPENERS:
            stack.append((_OPENERS[ch], i))
        elif ch in _CLOSERS:
            if not stack or stack[-1][0] != ch:
                return i
            stack.pop()
    return stack[0][1] if stack else None


def identity_problem(text: str) -> str | None:
    """Why `text` cannot name a vendor, an offer or a model: a bidi control left open reorders
    the text after it; an invisible character makes two names that look alike differ."""
    at = unpaired_bidi(text)
    if at is not None:
        return f"holds an unpaired bidi control {_name(text[at])} at character {at + 1}; close it or remove it"
    for i, ch in enumerate(text):
        if is_invisible(ch) and ch not in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069":
            return (f"holds the invisible character {_name(ch)} at character {i + 1} "
                    f"(shown: {shown(text)[:120]}); a name must look like what it is")
    return None


def control_problem(text: str, *, lines: bool) -> str | None:
    """The first control character a text field may not hold, in words, or None."""
    for i, ch in enumerate(text):
        if is_control(ch) and ch != "\t" and not (lines and ch == "\n"):
            allowed = "tabs and newlines" if lines else "tabs"
            return f"holds the control character {_name(ch)} at character {i + 1}; this field takes printable characters and {allowed}"
    return None


def _name(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" ({name})" if name else "")
