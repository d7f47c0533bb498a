"""Where an API key goes, and that it goes nowhere else.

A key is read from the environment variable the user named (never from the command line, so it is
in no shell history and no record), and sent only to the origin it was given for: the scheme,
host and port of the arm's URL for `--api-key-env`, of the metrics URL for
`--metrics-api-key-env`. A metrics URL on another origin than its arm gets no key unless it is
given one of its own. A server may echo the key back (in an error body, an error event, a
scrape): every string written to the capture or printed passes through a Scrubber first.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .problems import MeasureProblem

REDACTED = "[API key removed]"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) as browsers compare origins: scheme and host case-insensitive, the
    default port filled in, so http://H and http://h:80/ are one origin."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:  # a port that is not a number, or out of range: no origin it could match
        port = None
    return scheme, (parts.hostname or "").lower(), port if port is not None else _DEFAULT_PORTS.get(scheme, -1)


@dataclass(frozen=True)
class Credential:
    """A key read from `variable`, for requests to its `origins` only."""

    flag: str  # the option that named the variable, for messages
    variable: str
    key: str
    origins: frozenset[tuple[str, str, int]]

    def header(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


def read_key(flag: str, variable: str, *urls: str) -> Credential:
    """The key in `variable`, for the origins of `urls`; one line naming the variable when it is not
    set, empty, or holds what an HTTP header cannot carry (the key itself is never shown)."""
    key = os.environ.get(variable)
    if not key:
        raise MeasureProblem(f"{flag} {variable}: the variable is {'empty' if key == '' else 'not set'}")
    for i, ch in enumerate(key):
        if not "\x21" <= ch <= "\x7e":
            raise MeasureProblem(
                f"{flag} {variable}: the key holds a character an HTTP header cannot carry (at character {i + 1}); "
                "an API key is printable ASCII without spaces"
            )
    return Credential(flag, variable, key, frozenset(origin(url) for url in urls))


class Keys:
    """An arm's credentials: its own key (for its URL's origin) and, when given, the key of its
    metrics URL (for that origin only)."""

    def __init__(self, arm: Credential | None = None, metrics: Credential | None = None) -> None:
        self.arm, self.metrics = arm, metrics

    @property
    def secrets(self) -> tuple[str, ...]:
        return tuple(c.key for c in (self.arm, self.metrics) if c is not None)

    def for_arm(self, url: str) -> dict[str, str]:
        """What a request to the arm's API (/v1/models, /props, completions) carries."""
        return self.arm.header() if self.arm is not None and origin(url) in self.arm.origins else {}

    def for_metrics(self, url: str) -> dict[str, str]:
        """What a scrape carries: the metrics key, else the arm's when the scrape is on its origin."""
        if self.metrics is not None and origin(url) in self.metrics.origins:
            return self.metrics.header()
        return self.for_arm(url)


def arm_keys(url: str, api_key_env: str | None, metrics: list[str], metrics_api_key_env: str | None) -> Keys:
    """Read an arm's keys from the variables the user named (one line naming a variable that is not set)."""
    arm = read_key("--api-key-env", api_key_env, url) if api_key_env else None
    if metrics_api_key_env and not metrics:
        raise MeasureProblem(f"--metrics-api-key-env {metrics_api_key_env}: the arm has no --metrics URL to send it to")
    scrape = read_key("--metrics-api-key-env", metrics_api_key_env, *metrics) if metrics_api_key_env else None
    return Keys(arm, scrape)


class Scrubber:
    """Removes the keys from what a server sent before it is written or printed."""

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        # Longest first, so a key that holds another is removed whole.
        self.secrets = tuple(sorted({s for s in secrets if s}, key=len, reverse=True))

    def text(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def raw(self, data: bytes) -> bytes:
        for secret in self.secrets:
            data = data.replace(secret.encode(), REDACTED.encode())
        return data

    def value(self, value: Any) -> Any:
        """A copy of a JSON value with every string (keys too) scrubbed; walked without recursion,
        so any depth a server sent is safe."""
        if not self.secrets:
            return value
        root: list[Any] = [None]
        stack: list[tuple[Any, Any, Any]] = [(value, root, 0)]
        while stack:
            item, parent, slot = stack.pop()
            if isinstance(item, str):
                parent[slot] = self.text(item)
            elif isinstance(item, dict):
                copy: dict[str, Any] = {}
                parent[slot] = copy
                for k, v in item.items():
                    key = self.text(k) if isinstance(k, str) else k
                    copy[key] = None
                    stack.append((v, copy, key))
            elif isinstance(item, list):
                items: list[Any] = [None] * len(item)
                parent[slot] = items
                stack.extend((v, items, i) for i, v in enumerate(item))
            else:
                parent[slot] = item
        return root[0]
