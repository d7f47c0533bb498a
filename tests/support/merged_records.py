"""Comparing a record merged from workers' captures with the one-process record of the same requests:
what only the capture's line order changes set aside, and the verdicts of a claim on it."""

from __future__ import annotations

import re


def without_order(run: dict) -> dict:
    """A run with what only the capture's line order or bytes change set aside: the capture's hash,
    the per-request latency lists (kept in capture order; their percentiles are compared) and the
    notes' sentence on the workers (checked on its own)."""
    notes = re.sub(r" Sent by \d+ (?:worker processes|Ray workers) .*?the counters scraped once around it\.", "", run["notes"])
    return {**{k: v for k, v in run.items() if k not in ("source", "request_latencies")}, "notes": notes}


def claim_verdicts(sdeval, record, tmp_path, name: str):
    claimed = tmp_path / f"{name}-claimed.json"
    added = sdeval("claim", record, "--run", "speculative-c3", "--baseline", "target-only-c3", "--kind", "speedup", "-o", claimed)
    assert added.exit_code == 0, added.stderr
    assessed = sdeval("assess", claimed, "--format", "json")
    report = assessed.json()
    return sorted((f["code"], f.get("severity"), f.get("message")) for f in report["findings"]), assessed.exit_code
