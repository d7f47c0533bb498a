"""The rule catalog's machinery: what a rule is, what it yields, and the one registry.

A rule's kebab-case name is its code. Each rule states its severity, a one-line
title, a rationale a buyer can read, a failing and a passing example in words, and
its reference; its `check` is a small generator over the record that yields
Violations. The engine (rules/assess.py) turns those into Findings.
`parse` and `schema` have no check: the loading pipeline raises them.

Every error rule also carries an `ask`: the request a buyer sends the vendor when the rule
fires, a template filled from the Violation's `ask` parameters (assess.py gathers them,
one per offer, into "What to ask the vendor").
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from ..engine.context import Context

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
CODE_PATTERN = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")

# Bumped whenever a rule is added, removed, or changes what it fires on (the number itself lives
# with the package version, so `sdeval --version` names it without loading the rules).
from .. import RULE_CATALOG_VERSION  # noqa: E402,F401

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Violation:
    """What a rule's check yields: where, what, and which claim or run it concerns."""

    message: str
    path: Path
    claim: str | None = None
    run: str | None = None
    # The values the rule's ask template names ({run}, {value}, ...).
    ask: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Rule:
    code: str
    severity: Severity
    title: str
    rationale: str
    failing_example: str
    passing_example: str
    reference: str
    check: Callable[[Context], Iterable[Violation]] | None = None
    aliases: tuple[str, ...] = field(default=())
    # Message templates with {name} placeholders only. Rules that the browser form also
    # checks word their findings through these, and the form is generated with the same
    # templates embedded, so the page and the CLI say the same thing.
    messages: Mapping[str, str] = field(default_factory=dict)
    # What to ask the vendor when the rule fires: one polite, concrete request, a template
    # with {name} placeholders only, filled from each Violation's `ask` parameters.
    ask: str = ""

    def say(self, key: str, **params: object) -> str:
        return self.messages[key].format(**params)

    def request(self, **params: object) -> str:
        """The ask, filled in; a placeholder the check did not supply is a bug in the rule."""
        return self.ask.format(**params)

    def as_dict(self) -> dict:
        return {
            "code": self.code,
            "severity": self.severity,
            "title": self.title,
            "rationale": self.rationale,
            "failing_example": self.failing_example,
            "passing_example": self.passing_example,
            "reference": self.reference,
            "aliases": list(self.aliases),
            "messages": dict(self.messages),
            "ask": self.ask,
        }


REGISTRY: dict[str, Rule] = {}


def _plain_template(template: str) -> bool:
    """Only {identifier} placeholders: no format specs or conversions, so the browser form
    fills a template exactly as str.format does."""
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError:
        return False
    return all(name is None or (name.isidentifier() and not spec and conversion is None) for _, name, spec, conversion in parts)


def register(rule: Rule) -> Rule:
    if not CODE_PATTERN.match(rule.code):
        raise ValueError(f"rule code {rule.code!r} is not kebab-case")
    if rule.severity not in SEVERITIES:
        raise ValueError(f"rule {rule.code}: unknown severity {rule.severity!r}")
    taken = {name for existing in REGISTRY.values() for name in (existing.code, *existing.aliases)}
    for key, template in rule.messages.items():
        if not _plain_template(template):
            raise ValueError(f"rule {rule.code}: message {key!r} may use only {{name}} placeholders")
    if not _plain_template(rule.ask):
        raise ValueError(f"rule {rule.code}: its ask may use only {{name}} placeholders")
    for name in (rule.code, *rule.aliases):
        if name in taken:
            raise ValueError(f"rule code {name!r} is registered twice")
    REGISTRY[rule.code] = rule
    return rule


def rule(
    code: str,
    severity: Severity,
    title: str,
    *,
    rationale: str,
    failing: str,
    passing: str,
    reference: str,
    aliases: tuple[str, ...] = (),
    messages: Mapping[str, str] | None = None,
    ask: str = "",
) -> Callable[[Callable[[Context], Iterator[Violation]]], Callable[[Context], Iterator[Violation]]]:
    """Register the decorated check function as a rule; the function stays importable as is."""

    def decorate(check: Callable[[Context], Iterator[Violation]]) -> Callable[[Context], Iterator[Violation]]:
        register(
            Rule(
                code,
                severity,
                title,
                " ".join(rationale.split()),
                failing,
                passing,
                reference,
                check,
                aliases,
                dict(messages or {}),
                ask,
            )
        )
        return check

    return decorate


def message(code: str, key: str, **params: object) -> str:
    """A registered rule's message template, filled in (see Rule.messages)."""
    return REGISTRY[code].say(key, **params)


def lookup(code: str) -> Rule | None:
    for r in REGISTRY.values():
        if code == r.code or code in r.aliases:
            return r
    return None
