"""The rule catalog: one registry, one module per family of rules.

Importing this package registers every rule, in the order the catalog lists them.
"""

# Registration order is the catalog's order, so these are not sorted.
from . import structure, claims, load, baseline, interval, counts, identity, quality, conditions, spread, tasks, requirements, references  # noqa: F401  # isort: skip
from .registry import REGISTRY, RULE_CATALOG_VERSION, Rule, Violation, lookup

__all__ = ["RULE_CATALOG_VERSION", "REGISTRY", "Rule", "Violation", "catalog_document", "lookup"]


def catalog_document(selected: list[Rule] | None = None) -> dict:
    """The catalog as `sdeval rules --format json` prints it and the browser form embeds it: the
    rules, and how each claim kind is recomputed by what it counts (figures.CLAIM_FORMULAS)."""
    from ..engine.claim_figures import CLAIM_FORMS, CLAIM_FORMULAS

    return {
        "rule_catalog_version": RULE_CATALOG_VERSION,
        "rules": [r.as_dict() for r in (REGISTRY.values() if selected is None else selected)],
        "claim_formulas": [{"kind": k, "counted": c, "formula": f} for (k, c), f in CLAIM_FORMULAS.items()],
        "claim_forms": [{"form": form, "formula": f} for form, f in CLAIM_FORMS.items()],
    }
