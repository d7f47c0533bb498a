"""A claim's key, and the independent rows at it: same key, partial (each differing field named),
or none.

The key a claim is matched on: model (canonical id), accelerator SKU and count, precision,
framework, speculative method, K, pinned or real acceptance, the workload (input/output lengths,
else the dataset) and the load (concurrency or scenario; for a claim at matched interactivity, the
per-user speed; for a claim at matched throughput per accelerator, that throughput). A row matches on a field when both state it and the canonical values agree
(lengths within LENGTH_TOLERANCE). A field the claim does not state is a difference: the claim's
key is not known there. A field the source does not publish (InferenceX publishes no K and no
acceptance) is listed as unpublished beside the match, never taken as agreement silently.

Only rows at the same key count for the rule (claim-above-independent-results); partial rows are
shown, marked partial, with what differs. Rows of another model or accelerator are not shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine.context import Context
from ..engine.record import Claim
from ..engine.unit_figures import highest_at_least
from . import tables

# MLPerf's audit guideline calls a performance difference above 2 % material.
MATERIAL = 0.02
LENGTH_TOLERANCE = 0.05
PARTIAL_SHOWN = 3

FIELDS = ("model", "accelerator", "accelerators", "precision", "framework", "spec_method", "k", "acceptance", "workload", "load")
FIELD_WORDS = {
    "model": "model",
    "accelerator": "accelerator",
    "accelerators": "accelerator count",
    "precision": "precision",
    "framework": "framework",
    "spec_method": "speculative method",
    "k": "K",
    "acceptance": "acceptance (pinned or real)",
    "workload": "input/output lengths or dataset",
    "load": "load",
}
BASIS_WORDS = {
    "tokens_per_s_per_user": "tokens/s per user",
    "output_tokens_per_s_per_accelerator": "output tokens/s per accelerator",
    "output_tokens_per_s": "output tokens/s of the deployment",
}


@dataclass(frozen=True)
class ClaimKey:
    model: str | None
    accelerator: str | None
    accelerators: int | None
    precision: str | None
    framework: str | None
    spec_method: str | None
    k: int | None
    acceptance: str | None
    isl: int | None
    osl: int | None
    dataset: str | None
    concurrency: int | None
    per_user_speed: float | None  # a claim at matched interactivity: the load is this speed
    accelerator_throughput: float | None = None  # record 1.3, a claim at matched throughput per accelerator

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "accelerator": self.accelerator,
            "accelerators": self.accelerators,
            "precision": self.precision,
            "framework": self.framework,
            "spec_method": self.spec_method,
            "k": self.k,
            "acceptance": self.acceptance,
            "workload": workload_words(self.isl, self.osl, self.dataset),
            "load": load_words(self.concurrency, None, self.per_user_speed, self.accelerator_throughput),
        }

    @property
    def matched_load(self) -> bool:
        """The load is a matched point (a per-user speed or a throughput per accelerator), not a concurrency."""
        return self.per_user_speed is not None or self.accelerator_throughput is not None


def workload_words(isl: int | None, osl: int | None, dataset: str | None) -> str | None:
    if isl is not None or osl is not None:
        return f"{'?' if isl is None else isl}/{'?' if osl is None else osl} tokens"
    return None if dataset is None else f"dataset {dataset}"


def load_words(concurrency: int | None, scenario: str | None, speed: float | None = None, per_accelerator: float | None = None) -> str | None:
    if speed is not None:
        return f"at least {speed:g} tokens/s per user"
    if per_accelerator is not None:
        return f"at least {per_accelerator:g} output tokens/s per accelerator"
    if concurrency is not None:
        return f"concurrency {concurrency}"
    return None if scenario is None else f"MLPerf {scenario} scenario"


def claim_key(ctx: Context, claim: Claim) -> ClaimKey:
    run = ctx.run(claim.run)
    cfg = ctx.configuration(run)
    proposer = cfg.proposer if cfg else None
    method = None
    if proposer is not None:
        method = tables.spec_method(proposer.method_name if proposer.method in ("other", "combined") and proposer.method_name else proposer.method)
    pinned = run is not None and (ctx.pinning(run) is not None or claim.at_pinned_acceptance is not None)
    acceptance = None if method in (None, "none") else "pinned" if pinned else "real"
    workload = run.workload if run else None
    return ClaimKey(
        model=tables.model_id(cfg.target.model) if cfg else None,
        accelerator=tables.accelerator_sku(cfg.hardware.accelerator) if cfg else None,
        accelerators=cfg.hardware.count if cfg and cfg.hardware.count else None,
        precision=tables.precision(cfg.numerics.weights) if cfg else None,
        framework=tables.framework(cfg.runtime.name) if cfg else None,
        spec_method=method,
        k=None if run is None or method in (None, "none") else ctx.effective_k(run),
        acceptance=acceptance,
        isl=_rounded(workload.input_tokens_mean if workload else None),
        osl=_rounded(workload.output_tokens_mean if workload else None),
        dataset=workload.dataset if workload else None,
        concurrency=claim.concurrency or (run.load.concurrency if run else None),
        per_user_speed=claim.at_per_user_speed,
        accelerator_throughput=claim.at_accelerator_throughput,
    )


def _rounded(value: float | None) -> int | None:
    return None if value is None else round(value)


def _close(a: int, b: int) -> bool:
    return abs(a - b) <= LENGTH_TOLERANCE * max(a, b)


def compare_key(key: ClaimKey, row: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(differences, fields the source does not publish): each difference names the field and both values."""
    rk = row["key"]
    differs: list[str] = []
    unpublished: list[str] = []

    def field(name: str, ours: Any, theirs: Any) -> None:
        words = FIELD_WORDS[name]
        if theirs is None:
            unpublished.append(words)
        elif ours is None:
            differs.append(f"{words}: not stated in the record, {theirs} in the row")
        elif ours != theirs:
            differs.append(f"{words}: {ours} in the record, {theirs} in the row")

    for name in ("model", "accelerator", "accelerators", "precision", "framework", "spec_method", "k", "acceptance"):
        field(name, getattr(key, name), rk.get(name))
    _workload(key, rk, differs, unpublished)
    if not key.matched_load:
        ours, theirs = load_words(key.concurrency, None), load_words(rk.get("concurrency"), rk.get("scenario"))
        field("load", ours, theirs)
    return differs, unpublished


def _workload(key: ClaimKey, rk: dict[str, Any], differs: list[str], unpublished: list[str]) -> None:
    words = FIELD_WORDS["workload"]
    theirs = workload_words(rk.get("isl"), rk.get("osl"), rk.get("dataset"))
    ours = workload_words(key.isl, key.osl, key.dataset)
    if theirs is None:
        unpublished.append(words)
        return
    if ours is None:
        differs.append(f"{words}: not stated in the record, {theirs} in the row")
        return
    lengths = key.isl is not None and key.osl is not None and rk.get("isl") is not None and rk.get("osl") is not None
    if lengths and _close(key.isl, rk["isl"]) and _close(key.osl, rk["osl"]):  # type: ignore[arg-type]
        return
    if not lengths and ours.lower() == theirs.lower():
        return
    differs.append(f"{words}: {ours} in the record, {theirs} in the row")


def basis(claim: Claim) -> tuple[str | None, str | None]:
    """(the row figure the claim is compared with, None) or (None, why it is not compared)."""
    if claim.value is None:
        return None, "the claim states no figure"
    if claim.relative is not None:
        return None, "a claim written as a change against its baseline; independent rows are single figures"
    if claim.kind != "output-throughput":
        return None, f"a {claim.kind} claim; independent rows are compared with output-throughput claims only"
    if claim.counted == "per-user-output":
        return "tokens_per_s_per_user", None
    if claim.counted not in (None, "emitted-output"):
        return None, f"the claim counts {claim.counted}, not emitted output"
    if claim.throughput_per == "accelerator":
        return "output_tokens_per_s_per_accelerator", None
    return "output_tokens_per_s", None


@dataclass
class RowComparison:
    references: str  # the references file's name
    row: dict[str, Any]
    source: dict[str, Any]
    match: str  # "same-key" or "partial"
    differs: list[str]
    unpublished: list[str]
    figure: dict[str, Any] | None
    ratio: float | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "references": self.references,
            "row": self.row["id"],
            "match": self.match,
            "differs": self.differs,
            "unpublished": self.unpublished,
            "key": self.row["key"],
            "figure": self.figure,
            "ratio": self.ratio,
            "source": self.source["source"],
            "sha256": self.source["sha256"],
            "date": self.row.get("date"),
            "url": self.row.get("url"),
        }

    def label(self) -> str:
        return f"{self.references} row {self.row['id']}"


@dataclass
class ClaimReferences:
    file: str
    claim: str
    index: int
    kind: str
    claimed: float | None
    unit: str | None
    key: ClaimKey
    basis: str | None
    not_compared: str | None
    rows: list[RowComparison] = field(default_factory=list)

    @property
    def basis_words(self) -> str | None:
        return BASIS_WORDS.get(self.basis or "")

    @property
    def same_key(self) -> list[RowComparison]:
        return [r for r in self.rows if r.match == "same-key"]

    @property
    def outcome(self) -> str:
        """not-compared, no-row-at-key, exceeds-every (by more than 2 %), or within."""
        if self.basis is None:
            return "not-compared"
        same = [r for r in self.same_key if r.figure is not None]
        if not same:
            return "no-row-at-key"
        assert self.claimed is not None  # basis() gives none to a claim without a figure
        if all(self.claimed > r.figure["value"] * (1 + MATERIAL) for r in same if r.figure):
            return "exceeds-every"
        return "within"

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "claim": self.claim,
            "kind": self.kind,
            "claimed": self.claimed,
            "unit": self.unit,
            "key": self.key.as_dict(),
            "basis": self.basis,
            "basis_words": self.basis_words,
            "not_compared": self.not_compared,
            "outcome": self.outcome,
            "rows": [r.as_dict() for r in self.rows],
        }


def _figure(row: dict[str, Any], name: str) -> dict[str, Any] | None:
    return row["figures"].get(name)


def compare_claim(file: str, index: int, ctx: Context, claim: Claim, references: list) -> ClaimReferences:
    """Every row of `references` (document.ReferencesInput) at the claim's key, and the closest partial ones."""
    key = claim_key(ctx, claim)
    name, why = basis(claim)
    out = ClaimReferences(file, claim.id, index, claim.kind, claim.value, claim.unit, key, name, why)
    if name is None:
        return out
    same: list[tuple[Any, dict[str, Any], list[str]]] = []
    partial: list[tuple[tuple[int, int], Any, dict[str, Any], list[str], list[str]]] = []
    for given in references:
        for row in given.rows:
            rk = row["key"]
            if rk.get("model") != key.model or rk.get("accelerator") != key.accelerator or key.model is None:
                continue  # another model or accelerator: not a neighbour worth showing
            differs, unpublished = compare_key(key, row)
            if differs:
                if _figure(row, name) is not None:  # a neighbour with no figure on the claim's basis shows nothing
                    partial.append(((len(differs), len(unpublished)), given, row, differs, unpublished))
            else:
                same.append((given, row, unpublished))
    if key.per_user_speed is not None:
        same = _matched_interactivity(same, key.per_user_speed, name)
    elif key.accelerator_throughput is not None:
        same = _matched_throughput(same, key.accelerator_throughput, name)
    for given, row, unpublished in same:
        out.rows.append(_row(given, row, "same-key", [], unpublished, name, claim.value))
    for _, given, row, differs, unpublished in sorted(partial, key=lambda p: p[0])[:PARTIAL_SHOWN]:
        out.rows.append(_row(given, row, "partial", differs, unpublished, name, claim.value))
    return out


def _matched_interactivity(same: list, speed: float, name: str) -> list:
    """At matched interactivity, per source: the row with the highest figure among those at least
    `speed` fast per user (the step function claims use, never interpolated between rows)."""
    return _matched(same, "tokens_per_s_per_user", speed, name)


def _matched_throughput(same: list, throughput: float, name: str) -> list:
    """At matched throughput per accelerator, per source: the row with the highest figure (tokens/s per
    user) among those with at least `throughput` output tokens/s per accelerator (the step function
    the claim's own runs are read with, engine/matched.matched_at_throughput)."""
    return _matched(same, "output_tokens_per_s_per_accelerator", throughput, name)


def _matched(same: list, axis: str, at: float, name: str) -> list:
    """Per source, the row whose `name` figure is highest among those whose `axis` figure is at least `at`."""
    chosen = []
    by_source: dict[tuple[str, int], list] = {}
    for item in same:
        by_source.setdefault((item[0].path, item[1]["source"]), []).append(item)
    for items in by_source.values():
        points = []
        for item in items:
            where, figure = _figure(item[1], axis), _figure(item[1], name)
            points.append((item, None if where is None else where["value"], None if figure is None else figure["value"]))
        best = highest_at_least(points, at)
        if best is not None:
            chosen.append(best)
    return chosen


def _row(given, row: dict[str, Any], match: str, differs: list[str], unpublished: list[str], name: str, claimed: float | None) -> RowComparison:
    figure = _figure(row, name)
    ratio = claimed / figure["value"] if figure is not None and figure["value"] and claimed is not None else None
    return RowComparison(given.path, row, given.source_of(row), match, differs, unpublished, figure, ratio)


def compare_record(file: str, ctx: Context, references: list) -> list[ClaimReferences]:
    return [compare_claim(file, i, ctx, claim, references) for i, claim in enumerate(ctx.record.claims)]
