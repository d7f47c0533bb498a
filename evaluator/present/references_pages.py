"""The PDF's "Independent results for the same key": per claim, the rows at its key and the partial
ones, from the embedded assessment's `references` (so verify's reproduction check covers them)."""

from __future__ import annotations

from typing import Any

from ..engine.wording import column, num
from .references_text import OUTCOME_WORDS

FIELD_NAMES = {
    "model": "model",
    "accelerator": "accelerator",
    "accelerators": "accelerators",
    "precision": "precision",
    "framework": "framework",
    "spec_method": "speculative method",
    "k": "K",
    "acceptance": "acceptance",
    "workload": "lengths or dataset",
    "load": "load",
}


def _rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A claim's independent rows; the Figure and the Ratio column each with one precision (wording.column)."""
    figures = column([None if r["figure"] is None else r["figure"]["value"] for r in rows])
    ratios = column([r["ratio"] for r in rows], "x")
    return [_row(r, figure, ratio) for r, figure, ratio in zip(rows, figures, ratios)]


def _row(row: dict[str, Any], figure_text: str, ratio_text: str) -> dict[str, Any]:
    figure = row["figure"]
    return {
        "match": "same key" if row["match"] == "same-key" else "partial",
        "row": f"{row['references']} {row['row']}",
        "figure": figure_text,
        "unit": "" if figure is None else figure["unit"],
        "definition": "" if figure is None else figure["definition"],
        "ratio": ratio_text,
        "differs": row["differs"],
        "unpublished": ", ".join(row["unpublished"]),
        "source": row["source"],
        "date": row["date"] or "",
        "url": row["url"] or "",
    }


def independent_context(document: dict[str, Any], file: str) -> dict[str, Any] | None:
    """The section for one file's claims, or None when the report was rendered without references."""
    refs = document.get("references")
    if not refs:
        return None
    claims = []
    for c in refs["claims"]:
        if c["file"] != file:
            continue
        key = "; ".join(f"{FIELD_NAMES[name]} {'not stated' if value is None else value}" for name, value in c["key"].items())
        claims.append(
            {
                "claim": c["claim"],
                "kind": c["kind"],
                "claimed": None if c["claimed"] is None else num(c["claimed"], c["basis_words"] or c["unit"] or ""),
                "basis": c["basis_words"],
                "not_compared": c["not_compared"],
                "outcome": OUTCOME_WORDS.get(c["outcome"]),
                "key": key,
                "rows": _rows(c["rows"]),
            }
        )
    sources = [
        f"{f['file']} (SHA-256 {f['sha256']}): "
        + "; ".join(f"{s['format']} {s['source']}, retrieved {s['retrieved_at']}, SHA-256 {s['sha256']}" for s in f["sources"])
        for f in refs["files"]
    ]
    return {"claims": claims, "sources": sources, "tables_version": refs["tables_version"]}
