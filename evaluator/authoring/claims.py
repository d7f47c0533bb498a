"""`sdeval claim`: a claim written from the runs' own counts, so a vendor never types a figure.

The value is what the rules recompute for the claim (figures.claimed_figure), rounded the way a
person writes it (3 significant figures; whole tokens/s from 100 up), which stays well inside
claim-mismatch's tolerance. Load, scope and task are taken from the run. Anything that would
make the claim fail its own rules is refused in one line before anything is written: a run
without the counts the figure needs or without a stated load, and a baseline not measured on
equal terms (the fields baseline-mismatch compares).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..importers.common import ImportProblem
from ..rules.baseline import MATCHED_BY_DESIGN

KINDS = ("output-throughput", "speedup", "latency", "acceptance-rate", "acceptance-length")
# What each kind counts, as the record says it (claim.counted).
_COUNTED = {
    "output-throughput": "emitted-output",
    "speedup": "emitted-output",
    "latency": "response-time",
    "acceptance-rate": "acceptance-rate",
    "acceptance-length": "acceptance-length",
}
_UNIT = {"output-throughput": "tokens/s", "speedup": "x", "latency": "ms", "acceptance-rate": "fraction", "acceptance-length": "tokens/step"}


@dataclass(frozen=True)
class ClaimForm:
    """Record 1.3's forms a claim can be written in: total tokens ((I + E) / T), per accelerator, and a
    per-user comparison at matched output throughput per accelerator over each side's sweep."""

    total_tokens: bool = False
    per_accelerator: bool = False
    at_accelerator_throughput: float | None = None
    sweep: tuple[str, ...] = ()
    baseline_sweep: tuple[str, ...] = ()

    def check(self, kind: str) -> None:
        """One line for a form the claim's kind cannot take."""
        speed = kind in ("output-throughput", "speedup")
        if (self.total_tokens or self.per_accelerator or self.at_accelerator_throughput is not None) and not speed:
            raise ImportProblem("--total-tokens, --per-accelerator and --at-accelerator-throughput apply to an output-throughput or a speedup")
        if self.at_accelerator_throughput is not None and (self.total_tokens or self.per_accelerator):
            raise ImportProblem("--at-accelerator-throughput compares tokens/s per user; it takes neither --total-tokens nor --per-accelerator")
        if self.at_accelerator_throughput is not None and not 0 < self.at_accelerator_throughput <= 10**9:
            raise ImportProblem(f"--at-accelerator-throughput {self.at_accelerator_throughput:g}: a throughput above 0 tokens/s per accelerator")
        if (self.sweep or self.baseline_sweep) and self.at_accelerator_throughput is None:
            raise ImportProblem("--sweep and --baseline-sweep are the runs a matched point is chosen from: give --at-accelerator-throughput")

    def counted(self, kind: str) -> str:
        if self.total_tokens:
            return "total-tokens"
        return "per-user-output" if self.at_accelerator_throughput is not None else _COUNTED[kind]

    def text(self, kind: str, value: float, run, baseline_id: str | None) -> str | None:
        """The claim's wording in this form; None for the plain form."""
        shown, per = _shown(value, kind), " per accelerator" if self.per_accelerator else ""
        against = f" against {baseline_id}" if kind == "speedup" else ""
        if self.at_accelerator_throughput is not None:
            what = f"{shown}x tokens/s per user" if kind == "speedup" else f"{shown} tokens/s per user"
            return f"{what}{against} at {self.at_accelerator_throughput:g} output tokens/s per accelerator or more"
        if self.total_tokens:
            what = f"{shown}x total-token throughput{per}" if kind == "speedup" else f"{shown} total (prompt and output) tokens/s{per}"
            return f"{what}{against} at {_load_words(run)}"
        if self.per_accelerator:
            what = f"{shown}x output throughput per accelerator" if kind == "speedup" else f"{shown} output tokens/s per accelerator"
            return f"{what}{against} at {_load_words(run)}"
        return None


def as_written(value: float, kind: str) -> float:
    """The figure as a person writes it: whole tokens/s from 100 up, else 3 significant figures."""
    if kind == "output-throughput" and value >= 100:
        return float(round(value))
    if value == 0:
        return 0.0
    digits = 3 - 1 - math.floor(math.log10(abs(value)))
    return round(value, digits)


def _shown(value: float, kind: str) -> str:
    """The value in the claim's text, with the trailing zeros it was rounded to (1.90x, not 1.9x)."""
    if kind == "output-throughput" and value >= 100:
        return f"{value:,.0f}"
    digits = max(0, 3 - 1 - math.floor(math.log10(abs(value)))) if value else 0
    return f"{value:.{digits}f}"


def _load_words(run) -> str:
    if run.load.concurrency is not None:
        c = run.load.concurrency
        return f"{c} concurrent request{'s' * (c != 1)}"
    return f"{run.load.request_rate:g} requests/s"


def _text(kind: str, value: float, run, baseline_id: str | None, metric: str | None, percentile: str | None) -> str:
    from ..engine.wording import LATENCY_WORDS

    shown = _shown(value, kind)
    where = f"at {_load_words(run)}" + (f" ({run.workload.task})" if run.workload.task else "")
    if kind == "speedup":
        return f"{shown}x output throughput against {baseline_id} {where}"
    if kind == "output-throughput":
        return f"{shown} output tokens/s {where}"
    if kind == "latency":
        assert metric is not None  # make_claim refuses a latency claim without one
        return f"{percentile} {LATENCY_WORDS[metric]} {shown} ms {where}"
    if kind == "acceptance-rate":
        return f"draft acceptance rate {shown} {where}"
    return f"mean acceptance length {shown} tokens per step {where}"


def build_claim(
    data: dict[str, Any],
    *,
    record_name: str,
    run_id: str,
    baseline_id: str | None,
    kind: str,
    latency_metric: str | None = None,
    percentile: str | None = None,
    task: str | None = None,
    claim_id: str | None = None,
    text: str | None = None,
    conservative: bool = False,
    form: ClaimForm = ClaimForm(),
) -> dict[str, Any]:
    """The claim, as the record's `claims` entry, computed from the record `data`; ImportProblem
    (one line, naming the record) for anything that would not be established by its own counts.
    With `conservative`, the figure is the measured interval's safe end (conservative.py)."""
    from pydantic import ValidationError

    from ..engine.baselines import comparison_fields
    from ..engine.claim_figures import claimed_figure
    from ..engine.context import Context
    from ..engine.record import Claim, EvidenceRecord

    if kind not in KINDS:
        raise ImportProblem(f"--kind {kind!r}: one of {', '.join(KINDS)}")
    form.check(kind)
    matched = form.at_accelerator_throughput is not None
    if kind == "speedup" and baseline_id is None:
        raise ImportProblem("a speedup needs --baseline RUN, the run it is compared with")
    # A speedup of response time (baseline latency / run latency) when a latency is named.
    response_time = kind == "speedup" and (latency_metric is not None or percentile is not None)
    if (kind == "latency" or response_time) and (latency_metric is None or percentile is None):
        what = "a latency claim" if kind == "latency" else "a response-time speedup"
        raise ImportProblem(f"{what} needs --latency-metric (ttft, tpot, itl, e2e) and --percentile (mean, p50, p90, p95, p99)")
    # The record as it stands may lack claims (a vendor's first one): check it with a placeholder.
    probe = {**data, "claims": [*(data.get("claims") or []), {"id": "probe", "text": "probe", "kind": "lossless", "run": run_id}]}
    try:
        record = EvidenceRecord.model_validate(probe)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = "/".join(str(x) for x in first["loc"])
        raise ImportProblem(
            f"{record_name}: not a valid evidence record at {where}: {first['msg']} (`sdeval validate` lists every problem)"
        ) from None
    ctx = Context(record)
    run = ctx.run(run_id)
    if run is None:
        raise ImportProblem(f"{record_name}: has no run {run_id!r} (it has: {', '.join(r.id for r in record.runs)})")
    base = None
    if baseline_id is not None:
        base = ctx.run(baseline_id)
        if base is None:
            raise ImportProblem(f"{record_name}: has no run {baseline_id!r} to use as the baseline")
        if base is run:
            raise ImportProblem(f"run {run_id} cannot be its own baseline")
        ours, theirs = comparison_fields(ctx, run), comparison_fields(ctx, base)
        for name in MATCHED_BY_DESIGN if matched else ():  # each side's point is taken at its own load
            ours.pop(name, None), theirs.pop(name, None)
        differing = [n for n in ours if n in theirs and ours[n] != theirs[n]]
        if differing:
            raise ImportProblem(
                f"baseline {base.id} is not measured on equal terms with run {run.id}: "
                + "; ".join(f"{n} {_value(ours[n])} vs {_value(theirs[n])}" for n in differing)
                + _lost_requests_words(differing, run, base)
            )
    if run.load.concurrency is None and run.load.request_rate is None:
        raise ImportProblem(f"run {run.id} states no concurrency or request rate; a claim holds only at the load it was measured at")
    for swept in (*form.sweep, *form.baseline_sweep):
        if ctx.run(swept) is None:
            raise ImportProblem(f"{record_name}: has no run {swept!r} to sweep over")
    if task is not None and (run.workload.task or "").strip().lower() != task.strip().lower():
        raise ImportProblem(f'run {run.id} measured {json.dumps(run.workload.task) if run.workload.task else "no stated task"}, not "{task}"')
    fields: dict[str, Any] = {
        "id": "pending",
        "text": "pending",
        "kind": kind,
        "counted": "response-time" if response_time else form.counted(kind),
        "run": run.id,
        "baseline": base.id if base is not None else None,
        # At matched throughput the claim is stated at a throughput per accelerator, not at a load.
        "concurrency": None if matched else run.load.concurrency,
        "request_rate": run.load.request_rate if run.load.concurrency is None and not matched else None,
        "throughput_per": "accelerator" if form.per_accelerator else None,
        "at_accelerator_throughput": form.at_accelerator_throughput,
        "sweep": list(form.sweep),
        "baseline_sweep": list(form.baseline_sweep),
        "scope": run.interval.scope,
        "task": run.workload.task,
        "latency_metric": latency_metric if kind == "latency" or response_time else None,
        "percentile": percentile if kind == "latency" or response_time else None,
    }
    figure = claimed_figure(ctx, Claim.model_validate(fields))
    if figure is None or figure.value is None:
        needs = (
            ", ".join(field if who in (None, run.id) else f"{who}: {field}" for who, field in figure.needs)
            if figure is not None and figure.needs
            else "the figure's counts"
        )
        raise ImportProblem(
            f"{figure.name if figure else kind} cannot be computed: {needs.replace('baseline', 'a baseline')} missing (run {run.id}{f', baseline {base.id}' if base else ''})"
        )
    value = as_written(figure.value, kind)
    generated = None
    if conservative:
        from .conservative import conservative as safe_end

        end = safe_end(run, kind, fields["baseline"], latency_metric, percentile)
        value, fields["bound"] = end.value, end.bound
        written = _text(kind, value, run, fields["baseline"], latency_metric, percentile)
        shown = f" {_shown(value, kind)} ms" if kind == "latency" else None
        written = written.replace(shown, f" at most{shown}", 1) if shown else f"at least {written}"
        generated = f"{written}: {end.said}"
    taken = {c.id for c in record.claims}
    if claim_id is None:
        claim_id = _free_id(f"{kind}-{run.id}"[:60], taken)
    elif claim_id in taken:
        raise ImportProblem(f"{record_name}: already has a claim {claim_id!r}; choose another with --id")
    generated = (
        generated or form.text(kind, value, run, fields["baseline"]) or _text(kind, value, run, fields["baseline"], latency_metric, percentile)
    )
    fields.update(id=claim_id, text=text or generated, value=value, unit=_UNIT[kind])
    if response_time and text is None:
        assert latency_metric is not None  # refused above when missing
        fields["text"] = fields["text"].replace("output throughput", f"faster {percentile} {_latency_words(latency_metric)}")
    try:
        claim = Claim.model_validate(fields)
    except ValidationError as exc:  # what the command line gave (--text, --id), in the schema's words
        from ..engine.schema_wording import schema_message

        first = exc.errors(include_url=False)[0]
        option = {"text": "--text", "id": "--id", "task": "--task"}.get(str(first["loc"][0]), str(first["loc"][0]))
        raise ImportProblem(f"{option}: {schema_message(first)}") from None
    return claim.model_dump(mode="json", exclude_none=True, exclude_defaults=True)


def _lost_requests_words(differing: list[str], run, base) -> str:
    """The failed or missing requests behind an unequal population, named: a request that failed
    leaves num_requests and every per-request mean different, and the cause is the request."""
    from ..rules.load import lost_requests

    if not any(n.startswith("workload.") for n in differing):
        return ""
    named = []
    for role, r in (("run", run), ("baseline", base)):
        if (lost := lost_requests(r)) is not None:
            failed, sent = lost
            named.append(f"{role} {r.id}: {failed} of {'an unknown number' if sent is None else sent} requests sent failed or did not complete")
    if not named:
        return ""
    return "; because " + " and ".join(named) + " (measure again until every request completes)"


def _latency_words(metric: str) -> str:
    from ..engine.wording import LATENCY_WORDS

    return LATENCY_WORDS[metric]


def _value(v: Any) -> str:
    if isinstance(v, (set, frozenset)):
        v = sorted(v)
    return "not stated" if v is None else json.dumps(v)


def _free_id(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name = f"{base}-{n}"
        n += 1
    return name


def execute(
    record_path: str,
    *,
    run_id: str,
    baseline_id: str | None,
    kind: str,
    latency_metric: str | None,
    percentile: str | None,
    task: str | None,
    claim_id: str | None,
    text: str | None,
    output: Path | None,
    in_place: bool,
    force: bool,
    conservative: bool = False,
    form: ClaimForm = ClaimForm(),
) -> tuple[str, list[str]]:
    """Returns (what to print on standard output, messages for standard error)."""
    from ..importers.merge import read_record, write_merged

    record = read_record(record_path)
    claim = build_claim(
        record.data,
        record_name=record_path,
        run_id=run_id,
        baseline_id=baseline_id,
        kind=kind,
        latency_metric=latency_metric,
        percentile=percentile,
        task=task,
        claim_id=claim_id,
        text=text,
        conservative=conservative,
        form=form,
    )
    standing = standing_of(record, claim)
    if output is None and not in_place:
        return json.dumps({"claims": [claim]}, indent=2, ensure_ascii=False) + "\n", standing
    target, warnings = write_merged(record, [claim], output, in_place=in_place, force=force, key="claims")
    return "", [*warnings, f"added claim {claim['id']} ({claim['text']}) to {target}", *standing]


def standing_of(record, claim: dict[str, Any], shown_at_most: int = 5) -> list[str]:
    """The new claim judged as `sdeval assess` judges the record with it: its verdict and, when not
    established, each error that stands in its way (the first few, then how many more)."""
    from ..importers.merge import merged_text
    from ..pipeline import reassess

    text = merged_text(record, [claim], as_yaml=False, key="claims")
    result = reassess([(str(record.path), text.encode("utf-8"))]).results[0]
    judged = next(c for c in result.claims if c.id == claim["id"])
    if judged.verdict == "established":
        return [f"claim {judged.id}: {judged.unfavourable or 'established'}"]
    errors = [f for f in judged.findings if f.severity == "error"]
    lines = [f"claim {judged.id}: NOT ESTABLISHED; {len(errors)} error{'s' * (len(errors) != 1)} stand{'s' * (len(errors) == 1)} in its way:"]
    lines += [f"  {f.code} at {f.pointer or '/'}: {f.message}" for f in errors[:shown_at_most]]
    if len(errors) > shown_at_most:
        lines.append(f"  and {len(errors) - shown_at_most} more (`sdeval assess` lists them all)")
    return lines
