"""Whom a record's requests address, from who made it (record 1.3 offer.source).

A vendor's record asks the vendor. A record the buyer typed from the vendor's material asks the
buyer to fill in what the form lacks, and the vendor for the evidence itself. A record the buyer
measured (`sdeval measure`) asks for a measurement again, never the vendor. A record a tool wrote
from benchmark output asks to fill in what the tool could not state, and the vendor for the rest.
Every place that shows the requests (terminal, PDF, markdown, serve) takes its words from here.
"""

from __future__ import annotations

from typing import Any

SOURCES = ("vendor", "buyer-transcribed", "buyer-measured", "tool")
# The record's form itself (a field missing or mistyped): whoever typed the record fixes it.
_FORM_CODES = ("schema", "parse", "reference-broken")
# (heading, whom the count of requests goes to) per source.
_HEADINGS = {
    "vendor": ("What to ask the vendor", "to the vendor"),
    "buyer-transcribed": ("What to fill in, or ask the vendor", "to fill in or ask the vendor"),
    "buyer-measured": ("What to measure again", "for the next measurement"),
    "tool": ("What to fill in, or ask the vendor", "to fill in or ask the vendor"),
}


def source_of(data: Any) -> str:
    """offer.source of a record's data as read (also when the record is not valid); vendor when unstated."""
    offer = data.get("offer") if isinstance(data, dict) else None
    source = offer.get("source") if isinstance(offer, dict) else None
    return source if source in SOURCES else "vendor"


def heading(source: str) -> str:
    return _HEADINGS.get(source, _HEADINGS["vendor"])[0]


def to_whom(source: str) -> str:
    return _HEADINGS.get(source, _HEADINGS["vendor"])[1]


def addressed(text: str, code: str, source: str) -> str:
    """A rule's request ("Please ...", written to the vendor), addressed to whoever must act on it."""
    if source == "vendor":
        return text
    if code == "schema":  # "Please correct the evidence record at /offer/vendor: ..." (rules/structure.py)
        return text.replace("Please correct the evidence record at ", "Fill in ", 1)
    if code in _FORM_CODES or source == "buyer-measured":
        # The buyer's own record: an instruction, not a request to someone else.
        body = text.removeprefix("Please ")
        return body[:1].upper() + body[1:]
    return "Ask the vendor: " + text
