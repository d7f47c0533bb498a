"""Which rule catalog each sdeval release shipped, so that a report's claimed catalog can be judged.

An archived report names the sdeval version and rule catalog that made it. Reproduction trusts
that claim only as far as this table does: a catalog no release shipped, or a release named with
another release's catalog, is a report nobody should believe. Add a row with every release (the
changelog test checks the table against CHANGELOG.md's release sections).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import RULE_CATALOG_VERSION, __version__

# release -> the rule catalog it shipped (development catalogs between releases never shipped)
RELEASES: dict[str, str] = {
    "0.1.0": "1.2",
}

CURRENT, OLDER, NEWER, UNKNOWN = "current", "older", "newer", "unknown"


@dataclass(frozen=True)
class ClaimedCatalog:
    standing: str  # CURRENT, OLDER (a release shipped it), NEWER (than this release's) or UNKNOWN
    words: str  # why, in a clause, for UNKNOWN; the release that has it, for OLDER and NEWER


def _key(version: str) -> tuple[int, ...] | None:
    try:
        return tuple(int(part) for part in version.split("."))
    except (AttributeError, ValueError):
        return None


def judge_claimed_catalog(tool_version: object, catalog: object) -> ClaimedCatalog:
    """What the (tool version, rule catalog) a report claims is worth to this release."""
    known = {**RELEASES, __version__: RULE_CATALOG_VERSION}
    if not isinstance(catalog, str) or not catalog:
        return ClaimedCatalog(UNKNOWN, "the report names no rule catalog")
    if isinstance(tool_version, str) and tool_version in known and known[tool_version] != catalog:
        return ClaimedCatalog(UNKNOWN, f"the report claims sdeval {tool_version} with rule catalog {catalog}, "
                                       f"but sdeval {tool_version} has rule catalog {known[tool_version]}")
    if catalog == RULE_CATALOG_VERSION:
        return ClaimedCatalog(CURRENT, f"sdeval {__version__}")
    shipped = [release for release, shipped_catalog in RELEASES.items() if shipped_catalog == catalog]
    if shipped:
        return ClaimedCatalog(OLDER, f"sdeval {shipped[-1]}")
    ours, theirs = _key(RULE_CATALOG_VERSION), _key(catalog)
    if ours is not None and theirs is not None and theirs > ours:
        return ClaimedCatalog(NEWER, "a release newer than this one")
    released = ", ".join(f"{c} (sdeval {r})" for r, c in RELEASES.items())
    return ClaimedCatalog(UNKNOWN, f"the report claims rule catalog {catalog}, which no sdeval release has "
                                   f"(released: {released}; this sdeval {__version__}: {RULE_CATALOG_VERSION})")
