"""Independent results beside a claim, in words (text report; the PDF section reads the same lines).

Every row shown names its match (same key, or partial with each differing field), its figure with
its definition, the ratio of the claim to it, and where it came from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._infra.safe_text import shown
from ..engine.wording import num

if TYPE_CHECKING:
    from ..references.judge import ReferenceComparison
    from ..references.match import ClaimReferences, RowComparison

OUTCOME_WORDS = {
    "within": "the claim is within 2 % of, or below, an independent result at its key",
    "exceeds-every": "the claim is more than 2 % above every independent result at its key",
    "no-row-at-key": "no independent result at this key",
}


def key_words(found: ClaimReferences) -> str:
    k = found.key.as_dict()
    parts = [f"{name.replace('_', ' ')} {value}" for name, value in k.items() if value is not None]
    missing = [name.replace("_", " ") for name, value in k.items() if value is None]
    return "; ".join(parts) + (f" (not stated: {', '.join(missing)})" if missing else "")


def row_words(found: ClaimReferences, row: RowComparison) -> str:
    figure = row.figure
    value = "no figure on this basis" if figure is None else f"{num(figure['value'], figure['unit'])} ({figure['definition']})"
    ratio = "" if row.ratio is None else f"; the claim is {num(row.ratio, 'x')} of it"
    when = f"; {row.row['date']}" if row.row.get("date") else ""
    where = f"; {row.row['url']}" if row.row.get("url") else ""
    return f"{row.label()}: {value}{ratio}{when}{where}"


def claim_lines(found: ClaimReferences, indent: str = "    ") -> list[str]:
    """The lines a claim's text report gains."""
    if found.basis is None:
        return [f"{indent}independent results: not compared ({shown(found.not_compared)})"]
    out = [f"{indent}independent results ({found.basis_words}) at key: {shown(key_words(found))}"]
    out.append(f"{indent}  {OUTCOME_WORDS[found.outcome]}")
    for row in found.rows:
        label = "same key" if row.match == "same-key" else "PARTIAL "
        out.append(f"{indent}  {label}  {shown(row_words(found, row))}")
        if row.differs:
            out.append(f"{indent}            differs: {shown('; '.join(row.differs))}")
        if row.unpublished:
            out.append(f"{indent}            not published by the source: {', '.join(row.unpublished)}")
    return out


def sources_block(comparison: ReferenceComparison) -> str:
    """Where the independent results came from: each file's sources, retrieval times and SHA-256."""
    out = [f"independent results (normalisation tables of rule catalog {comparison.as_dict()['tables_version']}):"]
    for given in comparison.references:
        out.append(f"  {shown(given.path)} (SHA-256 {given.sha256}, {len(given.rows)} rows)")
        for source in given.doc["sources"]:
            out.append(f"    {source['format']}: {shown(source['source'])}, retrieved {shown(source['retrieved_at'])}, SHA-256 {source['sha256']}")
    return "\n".join(out) + "\n"
