"""A stated CPU-time budget for pyHanko's change analysis of the updates after a signature.

A report whose signature covers the entire file costs no analysis. Updates after the signature
that are not of the kinds sdeval adds (validation data, a document timestamp) fail at once,
before any analysis (updates.py: later_change). Updates of those kinds get pyHanko's full
difference analysis, which reads every object of the signed revision (seconds on a tagged
report; pyHanko 0.38 reads an object stream's header again for each object it takes from it).
A file made to make that analysis slow fails when the budget is spent, and never passes.

The budget is processor time, not wall time, so a busy machine does not fail a report an idle
one passes. It is kept with an interval timer (SIGPROF) and so only where signals can be
handled: in the main thread with no event loop running there. Elsewhere (an application
embedding sdeval) the analysis runs to its end, unbounded.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

ANALYSIS_BUDGET_S = 60.0  # processor seconds; a genuine B-LTA report of the shipped examples takes a few


class AnalysisOverBudget(BaseException):
    """The budget ran out. A BaseException, so no `except Exception` inside pyHanko swallows it
    and carries on with a partial analysis."""


def treated_as_modified(seconds: float) -> str:
    return f"an incremental update after signing could not be analysed within {seconds:g} s: treated as modified"


def _can_use_signals() -> bool:
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return True
    return False


@contextmanager
def cpu_budget(seconds: float) -> Iterator[None]:
    """Raise AnalysisOverBudget in the block once it has used `seconds` of processor time."""
    if not _can_use_signals():
        yield
        return

    fired = False

    def spent(signum: int, frame: object) -> None:
        nonlocal fired
        fired = True
        raise AnalysisOverBudget

    previous: Callable | int | None = signal.signal(signal.SIGPROF, spent)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous if previous is not None else signal.SIG_DFL)
    # The handler's exception is lost where the signal lands in a garbage-collector callback or a
    # __del__ (Python prints it as unraisable and goes on): CI saw a report over its budget pass so.
    # A budget once spent fails the block even where the block then ran to its end.
    if fired:
        raise AnalysisOverBudget
