"""Rules about configuration identity: what exactly was measured."""

from __future__ import annotations

from collections.abc import Iterator

from ..record import Configuration
from ..context import Context
from .registry import Violation, rule

# Proposers with no model of their own to identify.
_MODEL_FREE_METHODS = ("ngram", "suffix", "none")


def missing_identity(cfg: Configuration) -> list[tuple[str, ...]]:
    """Paths (inside the configuration) of identity fields the configuration does not state."""
    missing: list[tuple[str, ...]] = []
    for name in ("model", "revision", "tokenizer", "tokenizer_revision"):
        if not getattr(cfg.target, name):
            missing.append(("target", name))
    p = cfg.proposer
    if p.method not in _MODEL_FREE_METHODS:
        for name in ("model", "revision"):
            if not getattr(p, name):
                missing.append(("proposer", name))
    if p.method != "none" and p.k is None and not p.k_schedule and not p.adaptive_verification:
        missing.append(("proposer", "k"))
    for name in ("weights", "activations", "kv_cache"):
        if not getattr(cfg.numerics, name):
            missing.append(("numerics", name))
    s = cfg.sampling
    if s.temperature is None:
        missing.append(("sampling", "temperature"))
    elif s.temperature > 0:
        for name in ("top_p", "top_k"):
            if getattr(s, name) is None:
                missing.append(("sampling", name))
    if s.n is None:
        missing.append(("sampling", "n"))
    for name in ("name", "version"):
        if not getattr(cfg.runtime, name):
            missing.append(("runtime", name))
    for name in ("accelerator", "count"):
        if getattr(cfg.hardware, name) in (None, ""):
            missing.append(("hardware", name))
    return missing


@rule(
    "identity-incomplete",
    "error",
    "Target revision, tokenizer, proposer identity, numerics, sampling, runtime version or hardware is missing",
    rationale="""A result belongs to a configuration: the target model and its revision, the tokenizer,
    the proposer and its revision, K, the number formats, the sampling settings, the runtime version and
    the hardware. A changed target or sampling policy is a different comparison even when the acceptance
    figure looks the same; a result whose configuration is not pinned cannot be reproduced or compared.""",
    failing="A configuration naming the target model but not its revision or the vLLM version.",
    passing="Every identity field stated, for example revision 'a1b2c3d', vLLM 0.32.0, bf16 weights.",
    reference="README, The checklist behind the rules, item 5 (configuration identity)",
)
def identity_incomplete(ctx: Context) -> Iterator[Violation]:
    used = {run.configuration for run in ctx.record.runs}
    for c, cfg in enumerate(ctx.record.configurations):
        if cfg.id not in used:
            continue
        missing = missing_identity(cfg)
        if missing:
            yield Violation(
                f"configuration {cfg.id} does not state " + ", ".join(".".join(m) for m in missing),
                ("configurations", c, *missing[0]),
            )
