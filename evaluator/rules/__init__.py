"""The rule catalog: one registry, one module per family of rules.

Importing this package registers every rule, in the order the catalog lists them.
"""

from . import structure, claims, load, baseline, interval, counts, identity, quality, requirements  # noqa: F401  (registration)
from .registry import RULE_CATALOG_VERSION, REGISTRY, Rule, Violation, lookup

__all__ = ["RULE_CATALOG_VERSION", "REGISTRY", "Rule", "Violation", "lookup"]
