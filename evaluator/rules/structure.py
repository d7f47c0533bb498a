"""Rules about the record as a document: it parses, fits the schema, and its ids resolve."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..engine.context import Context
from .registry import Rule, Violation, register, rule

PARSE = register(
    Rule(
        code="parse",
        severity="error",
        title="The file is not a readable JSON or YAML record",
        rationale=(
            "A record must mean the same thing to every reader. Files with duplicate keys, NaN or "
            "Infinity, a byte-order mark, invalid UTF-8, YAML tags or YAML 1.1 surprises (`no` read as "
            "false) are refused rather than guessed at."
        ),
        failing_example='{"offer": {...}, "offer": {...}} (the key "offer" appears twice)',
        passing_example="A JSON object, or YAML holding plain data only, with each key once.",
        reference="RFC 8259 section 4, names should be unique, https://www.rfc-editor.org/rfc/rfc8259#section-4; YAML 1.2 core schema, https://yaml.org/spec/1.2.2/#1032-core-schema",
        ask="Please send the evidence again as a readable JSON or YAML file: {problem}.",
    )
)

SCHEMA = register(
    Rule(
        code="schema",
        severity="error",
        title="The record breaks the evidence-record schema",
        rationale=(
            "Negative counts, text where a number belongs, misspelt or missing fields: the tool cannot "
            "judge evidence it cannot read exactly. The schema is published as "
            "schemas/evidence-record.schema.json."
        ),
        failing_example='"accepted_drafts": -3, or "emitted_tokens": "15"',
        passing_example='"accepted_drafts": 10, "emitted_tokens": 15',
        reference="schemas/evidence-record.schema.json (JSON Schema 2020-12)",
        ask="Please correct the evidence record at {where}: {problem}.",
    )
)


@rule(
    "reference-broken",
    "error",
    "An id is used twice, or a claim or run names something that is not in the record",
    rationale="""A claim rests on the run it names. If that run is missing, or two runs share an id,
    nobody can tell which measurement the claim refers to.""",
    failing='A claim with "run": "spec-c1" when no run has that id.',
    passing="Every claim's run and baseline, and every run's configuration, exist exactly once.",
    reference="schemas/evidence-record.schema.json (sdeval evidence-record format 1.0); docs/record.md, The evidence record",
    ask="Please correct the evidence so that {fix}.",
)
def reference_broken(ctx: Context) -> Iterator[Violation]:
    record = ctx.record
    sections: tuple[tuple[str, list[Any]], ...] = (("configurations", record.configurations), ("runs", record.runs), ("claims", record.claims))
    for section, items in sections:  # each item has an id
        seen: set[str] = set()
        for i, item in enumerate(items):
            if item.id in seen:
                yield Violation(
                    f'{section[:-1]} id "{item.id}" is used more than once',
                    (section, i, "id"),
                    ask={"fix": f'each {section[:-1]} has an id of its own ("{item.id}" is used more than once)'},
                )
            seen.add(item.id)
    for i, run in enumerate(record.runs):
        if run.configuration not in ctx.config_index:
            yield Violation(
                f'run "{run.id}" names configuration "{run.configuration}", which is not in the record',
                ("runs", i, "configuration"),
                run=run.id,
                ask={"fix": f'run "{run.id}" names a configuration in the record (there is no "{run.configuration}")'},
            )
    scope = {item.id for item in record.installation_scope.items} if record.installation_scope else set()
    for i, claim in enumerate(record.claims):
        if claim.run is not None and claim.run not in ctx.run_index:
            yield Violation(
                f'claim "{claim.id}" rests on run "{claim.run}", which is not in the record',
                ("claims", i, "run"),
                claim=claim.id,
                ask={"fix": f'claim "{claim.id}" rests on a run in the record (there is no run "{claim.run}")'},
            )
        if claim.baseline is not None and claim.baseline not in ctx.run_index:
            yield Violation(
                f'claim "{claim.id}" names baseline run "{claim.baseline}", which is not in the record',
                ("claims", i, "baseline"),
                claim=claim.id,
                ask={"fix": f'claim "{claim.id}" names a baseline run in the record (there is no run "{claim.baseline}")'},
            )
        for field in ("sweep", "baseline_sweep"):
            for j, run_id in enumerate(getattr(claim, field)):
                if run_id not in ctx.run_index:
                    yield Violation(
                        f'claim "{claim.id}" lists run "{run_id}" in its {field.replace("_", " ")}, which is not in the record',
                        ("claims", i, field, j),
                        claim=claim.id,
                        ask={
                            "fix": f'claim "{claim.id}" lists only runs in the record in its {field.replace("_", " ")} (there is no run "{run_id}")'
                        },
                    )
        for j, item in enumerate(claim.installation_items):
            if item not in scope:
                yield Violation(
                    f'claim "{claim.id}" names installation item "{item}", which is not in the installation scope',
                    ("claims", i, "installation_items", j),
                    claim=claim.id,
                    ask={"fix": f'claim "{claim.id}" names only installation items in the installation scope (there is no "{item}")'},
                )


@rule(
    "evidence-missing",
    "error",
    "A claim was sent with no run behind it: no evidence attached",
    rationale="""A figure in an e-mail or on a slide is a claim, not evidence. Recorded as stated, it
    is kept, and judged once the vendor sends the run it rests on: the tool's output, or the counts
    and the interval, at the load it was measured at.""",
    failing='"3x faster" recorded from an e-mail with no "run".',
    passing='The claim names the run it rests on ("run": "spec-c1"), and that run is in the record.',
    reference="docs/record.md, The evidence record",
    ask="Please send the measurement behind {value}: the benchmark tool's output (or the counts and the measured interval) and the load it was measured at{baseline}.",
)
def evidence_missing(ctx: Context) -> Iterator[Violation]:
    from ..engine.claim_figures import claimed_text

    for i, claim in enumerate(ctx.record.claims):
        if claim.run is None:
            value = f"the claimed {claimed_text(claim)}" if claim.value is not None else f'"{claim.text}"'
            baseline = ", and the target-only baseline measured the same way" if claim.kind == "speedup" else ""
            yield Violation(
                f'claim "{claim.id}" ({value}) rests on no run: no evidence attached',
                ("claims", i, "run"),
                claim=claim.id,
                ask={"value": value, "baseline": baseline},
            )
