"""What the report shows, gathered from the assessment: the template only lays it out.

Verdicts and findings come from the assessed result (evaluator/pipeline.py); each run's K, paired
baseline and speedup from the embedded assessment JSON (so verify's reproduction covers them);
nothing here judges a claim or pairs runs again. Every value handed to the template is plain data (str, numbers,
lists, dicts) and is escaped there, except the SVG charts, whose labels charts.py escapes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from .._infra.safe_text import isolated, xml_safe
from ..engine.record import MODEL_FREE_METHODS
from ..engine.wording import VERDICT_HEADING as OUTCOME_WORDS
from ..engine.wording import column, interval_brief, interval_text, num, offer_names
from ..rules import lookup
from ..rules.addressee import to_whom
from .buyer_pages import RuleOf, fit_context
from .charts import Series, bar_chart, line_chart
from .run_columns import run_columns
from .task_pages import task_section

if TYPE_CHECKING:
    from ..engine.metrics import RunMetrics
    from ..engine.record import EvidenceRecord, Run
    from ..pipeline import Assessed
    from ..rules.results import FileAssessment, Finding


@dataclass(frozen=True)
class Embedded:
    """One file attached to the PDF: its name inside the PDF, what it is, and its exact bytes."""

    name: str
    role: str
    source: str  # the path as given on the command line (or the generated file's name)
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def report_context(assessed: Assessed, document: dict[str, Any], embedded: list[Embedded], *, assessed_at: str, signer: str | None) -> dict[str, Any]:
    results = assessed.results
    # Vendor and offer id each in its own bidi isolate: the footer and the title join them.
    names = offer_names(
        (r.file, isolated(r.record.offer.vendor), isolated(r.record.offer.offer_id)) if r.record is not None else (r.file, None, None)
        for r in results
    )
    fit = None
    if assessed.comparison is not None:
        fit = fit_context(assessed.comparison, lookup, {e.source: e.name for e in embedded})
    files = [_file(r, name, lookup, entry) for r, name, entry in zip(results, names, document["files"])]
    from .references_pages import independent_context

    for page, r in zip(files, results):  # render --references: each file's claims beside the independent rows
        page["independent"] = independent_context(document, r.file)
    # One record: the cover speaks of that record (INVALID RECORD when it could not be read).
    outcome = results[0].outcome if len(results) == 1 else document["outcome"]
    return {
        "fit": fit,
        "outcome": outcome,
        "outcome_words": OUTCOME_WORDS[outcome],
        "outcome_explain": _outcome_explain(outcome, len(results)),
        "summary": document["summary"],
        "tool": document["tool"],
        "assessed_at": assessed_at,
        "signer": signer,
        # Each input as the report names it (its file name alone: run.report_names).
        "embedded": [{"name": e.name, "role": e.role, "sha256": e.sha256} for e in embedded],
        # The figures the pages print beside each run (K, the paired baseline, the speedup) are the
        # embedded assessment's, so verify's reproduction check covers them.
        "files": files,
        "footer": _footer(results, names),
        # The document title becomes XMP metadata, XML that cannot hold most control characters.
        "title": xml_safe(_footer(results, names)),
    }


def _outcome_explain(outcome: str, files: int) -> str:
    if outcome == "established":
        return "Every claim below is backed by its evidence record." if files > 1 else "Every claim below is backed by the evidence record."
    if outcome == "invalid":
        return "The record could not be read as an evidence record, so no claim can be judged; its errors are listed below."
    if files > 1:
        return "At least one offer has a claim its evidence does not back, or a record that could not be read; see each offer below."
    return "At least one claim is not backed by the evidence record; see the verdicts below."


FOOTER_CHARS = 90  # one line in the page's bottom-left margin box, beside "Page n of m"


def _footer(results: list[FileAssessment], names: list[str]) -> str:
    """The running footer (and document title): shortened, since a margin box cannot grow; the
    cover prints the vendor and offer in full."""
    if len(results) == 1:
        text = names[0]
        return text if len(text) <= FOOTER_CHARS else text[: FOOTER_CHARS - 1] + "\u2026"
    return f"{len(results)} evidence records"


def _finding(
    f: Finding, rule_of: RuleOf, explained: set[str] | None = None, shown: dict[int, str] | None = None, claim: str | None = None
) -> dict[str, Any]:
    """A finding with its rule's title and rationale; the rationale only the first time a
    rule appears in `explained`'s section. A finding already shown under an earlier claim
    (`shown`: finding -> claim id) is given as a one-line reference to it."""
    rule = rule_of(f.code)
    first = explained is None or f.code not in explained
    if explained is not None:
        explained.add(f.code)
    repeat_of = None
    if shown is not None:
        repeat_of = shown.get(id(f))
        if repeat_of is None and claim is not None:
            shown[id(f)] = claim
    return {
        "code": f.code,
        "severity": f.severity,
        "where": f.pointer or "/",
        "line": f.line,
        "message": f.message,
        "title": rule.title if rule else f.code,
        "rationale": rule.rationale if rule and first else "",
        "repeat_of": repeat_of,
    }


def _shared_note(f: Finding, claim_id: str) -> bool:
    """A warning or note about what a claim rests on (its configuration, its run) rather than
    about the claim itself: listed once for the record, not under every claim it touches."""
    return f.severity != "error" and f.claim != claim_id


def _file(r: FileAssessment, name: str, rule_of: RuleOf, entry: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "file": r.file,
        "name": name,
        "sha256": r.sha256,
        "outcome": r.outcome,
        "outcome_words": OUTCOME_WORDS[r.outcome],
        "counts": {"error": r.count("error"), "warning": r.count("warning"), "info": r.count("info")},
        "offer": None,
        "claims": [],
        "other_findings": [],
        "notes_everywhere": [],
        "installation": None,
        # The buyer's next step: every error finding as a request to the vendor (FileAssessment.asks).
        "asks": [{"code": a.code, "text": a.text, "claims": list(a.claims)} for a in r.asks],
        "asks_heading": r.asks_heading,
        "asks_to": to_whom(r.source),
    }
    if r.record is None:
        out["other_findings"] = [_finding(f, rule_of) for f in r.findings]
        return out
    rec = r.record
    out["offer"] = rec.offer.model_dump()
    explained: set[str] = set()
    shown: dict[int, str] = {}
    # A note behind every claim (a K band nobody measured, say) is said once, not under each claim.
    everywhere = {id(f) for f in r.findings if r.claims and all(any(f is g and _shared_note(g, c.id) for g in c.findings) for c in r.claims)}
    out["claims"] = [
        {
            "id": c.id,
            "kind": c.kind,
            "text": c.text,
            "verdict": c.verdict,
            "verdict_words": OUTCOME_WORDS[c.verdict],
            "run": c.run,
            "baseline": c.baseline,
            # As the vendor stated it: a range or a bound as stated ("up to 4x"), a figure as written ("1.90x").
            "claimed": c.as_stated(),
            "computed": _figure(c.computed),
            "output": _figure(c.output) if c.output != c.computed else None,
            # The cover's column: the figure users receive (E / T, or the output-throughput speedup),
            # and one line why the verdict is what it is.
            "receives": _brief_figure(c.output) or ("-" if c.kind == "lossless" else _cannot_compute(r, c)),
            "reason": c.unfavourable_brief or _reason(c),
            # The claimed figure's measured 95 % interval (record 1.3), in full and for the cover.
            "measured": interval_text(c.interval) if c.interval is not None else None,
            "measured_brief": interval_brief(c.interval) if c.interval is not None else None,
            "findings": [_finding(f, rule_of, explained, shown, c.id) for f in c.findings if not _shared_note(f, c.id)],
            # Notes about what only some claims rest on are pointed to from those claims.
            "notes": sorted({f.code for f in c.findings if _shared_note(f, c.id) and id(f) not in everywhere}),
        }
        for c in r.claims
    ]
    out["notes_everywhere"] = sorted({f.code for f in r.findings if id(f) in everywhere})
    in_claims = {f for c in r.claims for f in c.findings if not _shared_note(f, c.id)}
    out["other_findings"] = [_finding(f, rule_of, explained) for f in r.findings if f not in in_claims]
    measured = [run for run in rec.runs if run.id in r.metrics]
    # One precision per figure across the runs (run_columns): T reads 640.000, 291.888 s on every run's table.
    figures = run_columns([r.metrics[run.id] for run in measured], fine=True)
    out["accounting"] = [_accounting(run, r.metrics[run.id], cells) for run, cells in zip(measured, figures)]
    runs = {run["run"]: run for run in entry.get("runs", [])}
    out["throughput"] = _throughput(rec, r, runs)
    out["histograms"] = _histograms(rec, runs)
    out["tasks"] = task_section(r)
    out["configurations"] = [_configuration(cfg) for cfg in rec.configurations]
    out["intervals"] = _intervals(rec)
    out["quality"] = _quality(rec)
    out["quality_missing"] = [run.id for run in rec.runs if not run.quality]
    scope = rec.installation_scope
    out["installation"] = (
        {"items": [i.model_dump() for i in scope.items], "notes": scope.notes} if scope is not None and (scope.items or scope.notes) else None
    )
    return out


def _cannot_compute(r: FileAssessment, c) -> str:
    if c.run is None:
        return "cannot be computed: no evidence attached"
    m = r.metrics.get(c.run)
    if m is None or m.emitted_tokens is None:
        return "cannot be computed: no token counts"
    if m.duration_s is None:
        return "cannot be computed: no measured interval"
    return "cannot be computed from the record"


def _reason(c) -> str | None:
    """Why a claim is not established, in a few words for the cover: the first error's code (the
    claim's findings below explain each)."""
    errors = list(dict.fromkeys(f.code for f in c.findings if f.severity == "error"))
    if not errors:
        return None
    return errors[0] + (f" and {len(errors) - 1} more" if len(errors) > 1 else "")


def _brief_figure(d: dict | None) -> str | None:
    """A claim's output figure in a few words: its formula where the name gives one ("E / T =
    150 tokens/s"), else the name."""
    if d is None or d["value"] is None:
        return None
    name = d["figure"]
    if d.get("as_written"):  # a claim written as a change: its figure in the same form ("55.0 % lower, 2.22x")
        return f"{d['as_written']}, {num(d['value'], 'x')}"
    if d["unit"] == "x":
        return f"{num(d['value'], 'x')} the baseline's {'output throughput' if 'output' in name else name.removesuffix(' against the baseline')}"
    formula = name[name.rindex("(") + 1 : -1] if name.endswith(")") and "(" in name else name
    return f"{formula} = {num(d['value'], '' if d['unit'] == 'fraction' else d['unit'])}"


def _figure(d: dict | None) -> str | None:
    if d is None or d["value"] is None:
        return None
    # A claim written as a change ('40 % lower') also gets its figure in that form.
    written = f" ({d['as_written']})" if d.get("as_written") else ""
    return f"{d['figure']} = {num(d['value'], '' if d['unit'] == 'fraction' else d['unit'])}{written}"


QUALITY_COLUMNS = (("task", "Task"), ("metric", "Metric"), ("baseline_score", "Baseline score"), ("method", "Method"))


def _quality(rec: EvidenceRecord) -> dict[str, Any] | None:
    """Quality results per run. What every row shares (the task, the metric, the method, often the
    baseline score) is said once above the table, so no column repeats one text down the page."""
    rows = [{"run": run.id, **q.model_dump()} for run in rec.runs for q in run.quality]
    if not rows:
        return None
    shared = [(label, _text(rows[0][key])) for key, label in QUALITY_COLUMNS if len(rows) > 1 and len({_text(r[key]) for r in rows}) == 1]
    columns = [(key, label) for key, label in QUALITY_COLUMNS if label not in dict(shared)]
    scores = column([r["score"] for r in rows])
    return {
        "shared": shared,
        "columns": [label for _, label in columns],
        "rows": [
            {
                "run": r["run"],
                "score": scores[k],
                "cells": [_text(r[key]) if key != "baseline_score" or r[key] is None else num(r[key]) for key, _ in columns],
            }
            for k, r in enumerate(rows)
        ],
    }


def _rate(numerator: str, denominator: str, value: float | None, written: str, unit: str = "") -> tuple[str, str]:
    """(the division as written, its result as its column writes it): on two lines so neither wraps mid-figure."""
    if value is None:
        return "", "cannot be computed"
    return f"{numerator} / {denominator}", f"= {written}" + (f" {unit}" if unit else "")


def _accounting(run: Run, m: RunMetrics, cells: dict[str, str]) -> dict[str, Any]:
    """SD-201's layout: the five counts, then each rate over its own denominator; every figure as
    its kind is written for every run of the record (`cells`, present/run_columns.py)."""

    def stated(name: str) -> str:
        return "not stated" if getattr(m, name) is None else cells[name]

    s, p, a, e = (stated(name) for name in ("verification_steps", "proposed_drafts", "accepted_drafts", "emitted_tokens"))
    t = "not stated" if m.duration_s is None else f"{cells['duration_s']} s"
    counts = [
        ("S", "verification steps", s),
        ("P", "proposed draft tokens", p),
        ("A", "accepted draft tokens", a),
        ("B", "bonus / correction tokens", stated("bonus_tokens")),
        ("E", "emitted output tokens", e),
        ("T", "measured interval", t),
    ]
    rates = [
        ("draft acceptance rate", "per proposed token", *_rate(a, p, m.acceptance_rate, cells["acceptance_rate"]), False),
        ("mean acceptance length", "per verification step", *_rate(a, s, m.mean_acceptance_length, cells["mean_acceptance_length"]), False),
        ("output throughput", "per second (the only speed)", *_rate(e, t, m.emitted_tokens_per_s, cells["emitted_tokens_per_s"], "tokens/s"), True),
        (
            "accepted draft tokens/s",
            "per second, not output",
            *_rate(a, t, m.accepted_tokens_per_s, cells["accepted_tokens_per_s"], "tokens/s"),
            False,
        ),
        (
            "proposed draft tokens/s",
            "per second, not output",
            *_rate(p, t, m.proposed_tokens_per_s, cells["proposed_tokens_per_s"], "tokens/s"),
            False,
        ),
    ]
    name, per, division, result, output = rates[1]
    rates[1] = (name, per, f"1 + {division}" if division else "", result, output)
    note = None
    drafts = (m.verification_steps, m.proposed_drafts, m.accepted_drafts, m.bonus_tokens)
    if run.arrangement == "target-only" and all(x is None for x in drafts):
        # Plain decoding has no drafts: rows of "not stated" would read as missing evidence.
        counts, rates = counts[4:], rates[2:3]
        note = "Target-only decoding: nothing is drafted, so S, P, A and B do not apply."
    spread = None
    if m.spread is not None:
        sp = m.spread
        low, high = column([sp.minimum, sp.maximum])
        spread = f"{sp.repetitions} repetitions: median {num(sp.median, 'tokens/s')}, range {low} to {high}" + (
            "" if sp.relative_range is None else f" ({100 * sp.relative_range:.1f} % of the median)"
        )
    return {
        "run": run.id,
        "arrangement": run.arrangement,
        "configuration": run.configuration,
        "concurrency": run.load.concurrency,
        "request_rate": run.load.request_rate,
        "counts": counts,
        "rates": rates,
        "note": note,
        "spread": spread,
    }


def _throughput(rec: EvidenceRecord, r: FileAssessment, runs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    rows = []
    figures: list[tuple[float | None, float | None, float | None]] = []
    for run in rec.runs:
        if run.arrangement != "speculative":
            continue
        shown = runs[run.id]
        base = shown.get("baseline_run")
        paired = runs.get(base) if base is not None else None
        figures.append((shown["emitted_tokens_per_s"], paired["emitted_tokens_per_s"] if paired else None, shown.get("speedup")))
        rows.append(
            {
                "concurrency": "not stated" if run.load.concurrency is None else num(run.load.concurrency),
                "k": shown.get("k"),
                "run": run.id,
                # A target-only run at this load that was refused is said as refused, with why (the chart still plots it).
                "baseline": base if base is not None else r.refused.get(run.id, "none"),
            }
        )
    # Each column of figures with one number of decimals (wording.column); the unit is in the heading.
    for key, values in zip(("tps", "baseline_tps", "speedup"), zip(*figures) if figures else ()):
        for row, cell in zip(rows, column(list(values))):
            row[key] = cell + ("x" if key == "speedup" and cell != "-" else "")
    # One line per configuration and arrangement: a baseline with drafting switched off per request
    # (record 1.2) runs on the speculative configuration itself.
    by_config: dict[tuple[str, str], list[tuple[float, float]]] = {}
    labels: dict[tuple[str, str], str] = {}
    unplotted = []
    for run in rec.runs:
        m = r.metrics[run.id]
        if run.load.concurrency is None or m.emitted_tokens_per_s is None:
            unplotted.append(run.id)
            continue
        line = (run.configuration, run.arrangement)
        by_config.setdefault(line, []).append((float(run.load.concurrency), m.emitted_tokens_per_s))
        per_request = " with drafting off per request" if run.drafting_off == "per-request" else ""
        labels[line] = f"{run.configuration} ({'speculative' if run.arrangement == 'speculative' else 'baseline' + per_request})"
    # Speculative configurations first so they get the solid line.
    order = sorted(by_config, key=lambda c: (not labels[c].endswith("(speculative)"), c))
    chart = line_chart(
        [Series(labels[c], by_config[c]) for c in order],
        title="Output throughput by concurrency",
        x_label="concurrent requests (closed loop, log scale)",
        y_label="output tokens/s (E / T, log scale)",
    )
    return {"rows": rows, "chart": Markup(chart) if chart else None, "unplotted": unplotted}


def _histograms(rec: EvidenceRecord, runs: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for run in rec.runs:
        h = run.counts.accepted_length_histogram
        if not h:
            continue
        svg = bar_chart(
            list(h),
            title=f"{run.id}: accepted drafts per step",
            x_label="drafts accepted in a step (j)",
            y_label="verification steps",
            width=200,
            height=170,
        )
        out.append({"run": run.id, "k": runs[run.id].get("k"), "chart": Markup(svg), "counts": [num(x) for x in h]})
    return out


def _text(value: Any) -> str:
    return "not stated" if value is None else str(value)


def _configuration(cfg) -> dict[str, Any]:
    p = cfg.proposer
    if p.k_schedule:
        k = "; ".join(f"concurrency {b.min_concurrency}-{b.max_concurrency}: K = {b.k}" for b in p.k_schedule)
    else:
        k = _text(p.k)
    # A model-free method (n-gram, suffix, lookahead) has no drafter model to state: not "not stated".
    proposer = p.method if p.method in MODEL_FREE_METHODS and p.model is None else f"{p.method}: {_text(p.model)} @ {_text(p.revision)}"
    extras = []
    if p.adaptive_verification:
        extras.append("adaptive verification")
    if p.online_adapted:
        extras.append("online-adapted drafter")
    if p.relaxed_acceptance is not None and p.relaxed_acceptance.enabled:
        extras.append("RELAXED (lossy) acceptance")
    s = cfg.sampling
    rows = [
        ("target model", f"{_text(cfg.target.model)} @ {_text(cfg.target.revision)}"),
        ("tokenizer", f"{_text(cfg.target.tokenizer)} @ {_text(cfg.target.tokenizer_revision)}"),
        ("proposer", proposer + (f" ({', '.join(extras)})" if extras else "")),
        ("draft length K", k if p.method != "none" else "not applicable"),
        (
            "numerics",
            f"weights {_text(cfg.numerics.weights)}; activations {_text(cfg.numerics.activations)}; KV cache {_text(cfg.numerics.kv_cache)}",
        ),
        ("sampling", f"temperature {_text(s.temperature)}, top-p {_text(s.top_p)}, top-k {_text(s.top_k)}, seed {_text(s.seed)}, n {_text(s.n)}"),
        ("runtime", f"{_text(cfg.runtime.name)} {_text(cfg.runtime.version)}"),
        (
            "hardware",
            f"{_text(cfg.hardware.count)} x {_text(cfg.hardware.accelerator)}; {_text(cfg.hardware.interconnect)}; host {_text(cfg.hardware.host)}",
        ),
    ]
    return {"id": cfg.id, "rows": rows, "flags": cfg.runtime.flags}


def _intervals(rec: EvidenceRecord) -> list[dict[str, Any]]:
    """Runs sharing one interval definition are listed together; durations stay per run."""
    groups: dict[tuple, dict[str, Any]] = {}
    for run in rec.runs:
        i = run.interval
        key = (i.start_event, i.end_event, tuple(i.stages_included), tuple(i.stages_excluded), i.scope, i.measurement)
        group = groups.setdefault(
            key,
            {
                "runs": [],
                "start": _text(i.start_event),
                "end": _text(i.end_event),
                "included": ", ".join(i.stages_included) or "none stated",
                "excluded": ", ".join(i.stages_excluded) or "none stated",
                "scope": _text(i.scope),
                "measurement": _text(i.measurement),
            },
        )
        group["runs"].append(f"{run.id} ({'not stated' if i.duration_s is None else f'{i.duration_s:g} s'})")
    return list(groups.values())
