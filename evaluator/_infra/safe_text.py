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

# What draws as nothing, or only steers the text around it: general category Cf (format
# characters: bidi controls, zero-width characters, the BOM, the soft hyphen, tags) and the rest
# of Unicode's Default_Ignorable_Code_Point (Hangul fillers, the combining grapheme joiner, Khmer
# inherent vowels, variation selectors, the reserved ranges), plus the line and paragraph
# separators. Written out (Unicode 14, tests/present/test_hostile_strings.py checks it against
# unicodedata) so the published schema can carry the same list as a pattern.
INVISIBLE_RANGES = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x2028, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x13438),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def _class(ranges) -> str:
    # BMP as \uXXXX; beyond it the characters themselves (ECMA-262 and JSON Schema readers have no
    # portable escape for them, and every reader of the schema takes them literally).
    def one(code: int) -> str:
        return f"\\u{code:04x}" if code < 0x10000 else chr(code)

    return "".join(one(a) if a == b else f"{one(a)}-{one(b)}" for a, b in ranges)


# C0 (bar tab and, in multi-line fields, newline), DEL and C1: the published schema says the same.
CONTROL_PATTERN = r"^[^\x00-\x08\x0a-\x1f\x7f-\x9f]*$"
CONTROL_PATTERN_LINES = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*$"
# A name (vendor, offer id, model): no control character, no bidi control, nothing invisible.
IDENTITY_PATTERN = r"^[^\x00-\x08\x0a-\x1f\x7f-\x9f" + _class(INVISIBLE_RANGES) + "]*$"
_INVISIBLE = re.compile("[" + _class(INVISIBLE_RANGES) + "]")


def is_control(ch: str) -> bool:
    return unicodedata.category(ch) == "Cc"


def is_invisible(ch: str) -> bool:
    """Drawn as nothing, or only steering other text (INVISIBLE_RANGES)."""
    return _INVISIBLE.match(ch) is not None


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else (f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")


def shown(text: object, *, lines: bool = False) -> str:
    """`text` with every character a terminal, a listing or a reader could be fooled by escaped:
    control characters (all of C0, DEL and C1, except tab, and newline when `lines`), bidi
    controls and invisible characters, and lone UTF-16 surrogates (a JSON escape can make one;
    no output encoding can write it). The one function every output of an input string uses."""
    text = str(text)
    if text.isascii() and text.isprintable():  # the common case, at C speed
        return text
    return "".join(
        _escape(ch) if (is_control(ch) and ch != "\t" and not (lines and ch == "\n")) or is_invisible(ch) or "\ud800" <= ch <= "\udfff" else ch
        for ch in text
    )


def json_shown(text: str) -> str:
    """JSON text (json.dumps with ensure_ascii=False) with every character `shown` would escape
    written as a JSON escape instead (\\u202e, \\u0085): the same data for any JSON reader, and
    nothing a terminal acts on when it is printed. Such characters can only stand inside strings."""
    import json

    if text.isascii():  # json.dumps already escaped C0; DEL is the one ASCII character left
        return text.replace("\x7f", "\\u007f")
    return re.sub(
        "[\x7f-\x9f\ud800-\udfff" + _class(INVISIBLE_RANGES) + "]",
        lambda m: json.dumps(m.group(0))[1:-1],
        text,
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


def identity_problem(text: str) -> str | None:
    """Why `text` cannot name a vendor, an offer or a model, or None: a bidi control reorders the
    text printed after it (a name needs none: right-to-left letters carry their own direction);
    an invisible character makes two names that look alike differ."""
    for i, ch in enumerate(text):
        if ch in BIDI_CONTROLS:
            return (
                f"holds the bidi control {_name(ch)} at character {i + 1}; a name takes none, "
                "since it would reorder the text printed after it (right-to-left letters need no control)"
            )
        if is_invisible(ch):
            return f"holds the invisible character {_name(ch)} at character {i + 1} (shown: {shown(text)[:120]}); a name must look like what it is"
    return None  # (control characters: control_problem)


# A UTF-16 surrogate code point: a JSON or YAML escape (\ud800) can put one alone in a string,
# and no UTF-8 output (a file, a page, a terminal) can then write it.
SURROGATE = re.compile("[\ud800-\udfff]")


def surrogate_problem(text: str) -> str | None:
    """The lone surrogate a text holds, in words, or None."""
    found = SURROGATE.search(text)
    if found is None:
        return None
    return f"holds the UTF-16 surrogate \\u{ord(found.group(0)):04x} on its own at character {found.start() + 1}, which is no character"


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
