"""sdeval: decide whether a speculative-decoding offer's claims are backed by evidence."""

__version__ = "0.2.0.dev0"

# The formats this release writes, here rather than beside the models so that `sdeval --version`
# (and anything else that only names them) loads no model. evaluator.engine.record and evaluator.rules
# re-export them; bump them there, in this file.
RECORD_VERSION = "1.1"
# Bumped whenever a rule is added, removed, or changes what it fires on: an archived
# assessment names the catalog version it was made with.
RULE_CATALOG_VERSION = "1.6"
# Each published release and the rule catalog it shipped (development catalogs between releases
# never shipped). verify judges the catalog a report claims by this table; add a row with every
# release (tests/project/test_changelog.py checks it against CHANGELOG.md's release sections).
RELEASES = {
    "0.1.0": "1.2",
}
