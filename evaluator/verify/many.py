"""`sdeval verify REPORT_OR_FOLDER...`: many archived reports in one process, across the cores.

pyHanko, pypdf and sdeval's rules are imported once, here, and the reports are then shared among
forked processes (one per core), each verifying every n-th report; the results come back in the
order given. Where forking is not safe (other threads running, or no fork on this platform) they
are verified one after another in this process, with the same results.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .._infra.exit_codes import EXIT_CANNOT_RUN, EXIT_FINDINGS, EXIT_OK
from .one import NotAReport, Outcome, TrustAnchors, not_a_report, verify_report

JSON_SCHEMA_VERSION = "1.0"
COLUMNS = ("file", "vendor", "offer", "outcome", "signer", "fingerprint", "timestamp", "result")


class NoReports(Exception):
    """A folder given holds no *.pdf file (exit 2)."""


def report_paths(arguments: Iterable[str | os.PathLike]) -> list[Path]:
    """Files as given; folders searched (recursively) for *.pdf, in name order: every entry so
    named but a folder, so a FIFO, a socket or a link to nothing is named as no report rather
    than passed over (an auditor counting verified reports must not miss one)."""
    out: list[Path] = []
    for raw in arguments:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.suffix.lower() == ".pdf" and not p.is_dir())
            if not found:
                raise NoReports(f"{path}: no *.pdf file in the folder")
            out += found
        else:
            out.append(path)
    return out


def verify_one(path: Path, *, trust: TrustAnchors | None, strict: bool, now: dt.datetime | None = None) -> Outcome:
    """verify_report, with a file that is not a report turned into a failing outcome."""
    try:
        return verify_report(path, trust=trust, strict=strict, now=now)
    except NotAReport as exc:
        return not_a_report(path, str(exc))


def warm_up() -> None:
    """Import what verifying needs before forking, so each process does not pay for it again."""
    import pyhanko.sign.diff_analysis  # noqa: F401
    import pyhanko.sign.validation  # noqa: F401
    import pyhanko_certvalidator  # noqa: F401
    import pypdf  # noqa: F401

    from ..pipeline import preload
    from . import signature as signature_checks  # noqa: F401

    preload()


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def verify_many(
    paths: Iterable[str | os.PathLike],
    *,
    trust: TrustAnchors | None,
    strict: bool,
    workers: int | None = None,
    now: dt.datetime | None = None,
) -> list[Outcome]:
    """One Outcome per path, in the order given (a non-report is a failing Outcome with `problem` set).
    Where the command line allows it, a progress bar on a terminal counts the reports done."""
    from .._infra import forking, progress

    reports = [Path(p) for p in paths]
    workers = max(1, min(workers or cores(), len(reports)))
    warm_up()
    if workers == 1 or not forking.fork_is_safe():
        with progress.bar("verifying", len(reports)) as shown:
            outcomes = []
            for p in reports:
                outcomes.append(verify_one(p, trust=trust, strict=strict, now=now))
                shown.advance()
            return outcomes
    # This process takes the first share itself; each forked one takes every n-th report after it,
    # and counts the reports it has done in its slot of `done` (the bar is drawn here, from them).
    shares = [reports[i::workers] for i in range(workers)]
    done = forking.context().RawArray("q", workers)
    children = [forking.Forked(_verify_share, share, trust, strict, now, done, i, role="verifying") for i, share in enumerate(shares[1:], 1)]
    try:
        with progress.bar("verifying", len(reports)) as shown:
            results = [_verify_share(None, shares[0], trust, strict, now, done, 0, lambda: shown.update(sum(done)))]
            results += [child.receive(lambda: shown.update(sum(done))) for child in children]
    finally:
        for child in children:
            child.stop()
    ordered: list[Outcome] = [None] * len(reports)  # type: ignore[list-item]  # every slot is filled below
    for share_index, outcomes in enumerate(results):
        for k, outcome in enumerate(outcomes):
            ordered[share_index + k * workers] = outcome
    return ordered


def _verify_share(connection, share: list[Path], trust: TrustAnchors | None, strict: bool, now, done, slot: int, counted=None) -> list[Outcome]:
    outcomes = []
    for path in share:
        outcomes.append(verify_one(path, trust=trust, strict=strict, now=now))
        done[slot] += 1
        if counted is not None:
            counted()
    return outcomes


# ---------------------------------------------------------------------------- output


def summary_row(outcome: Outcome) -> list[str]:
    offers = outcome.offers()
    joined = lambda key: "; ".join(str(o[key]) for o in offers if o.get(key)) or "-"  # noqa: E731
    signer = outcome.signer
    stamp = outcome.timestamp
    return [
        str(outcome.path),
        joined("vendor"),
        joined("offer_id"),
        outcome.outcome or "-",
        (signer.common_name or signer.subject) if signer else "-",
        signer.fingerprint_sha256 if signer else "-",
        f"{stamp.time.astimezone(dt.timezone.utc).isoformat().replace('+00:00', 'Z')} {stamp.kind}" if stamp else "none",
        outcome.first_reason(),
    ]


def summary_text(outcomes: list[Outcome]) -> str:
    """A header, one tab-separated line per report, and the total."""
    lines = ["\t".join(COLUMNS)]
    lines += ["\t".join(_clean(v) for v in summary_row(o)) for o in outcomes]
    lines.append(total_line(outcomes))
    return "\n".join(lines) + "\n"


def total_line(outcomes: list[Outcome]) -> str:
    verified = sum(o.passed for o in outcomes)
    not_reports = sum(o.problem is not None for o in outcomes)
    failed = len(outcomes) - verified - not_reports
    text = f"{len(outcomes)} report{'s' * (len(outcomes) != 1)}: {verified} verified, {failed} not verified"
    return text + (f", {not_reports} not a report" if not_reports else "")


def as_json(outcomes: list[Outcome]) -> dict[str, Any]:
    return {
        "schema_version": JSON_SCHEMA_VERSION,
        "reports": [o.as_dict() for o in outcomes],
        "summary": {
            "reports": len(outcomes),
            "verified": sum(o.passed for o in outcomes),
            "not_verified": sum(not o.passed and o.problem is None for o in outcomes),
            "not_a_report": sum(o.problem is not None for o in outcomes),
        },
    }


def exit_code(outcomes: list[Outcome]) -> int:
    """0 every report verifies; 1 a check fails or trust is not established; 2 a file is not a report."""
    if any(o.problem is not None for o in outcomes):
        return EXIT_CANNOT_RUN
    return EXIT_OK if all(o.passed for o in outcomes) else EXIT_FINDINGS


def _clean(value: str) -> str:
    # A vendor's name could hold a tab or a line break; the row must stay one line of 8 fields,
    # and a control character in it must not reach the terminal.
    from .._infra.safe_text import shown

    return shown(" ".join(value.split()))
