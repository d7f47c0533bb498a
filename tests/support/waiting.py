"""A command that would wait forever (on a FIFO, say) fails its test instead of hanging the suite."""

from __future__ import annotations

import signal
from contextlib import contextmanager


@contextmanager
def within(seconds: int):
    """Raise AssertionError in this (the main) thread once `seconds` have passed: SIGALRM interrupts
    a blocking open() or read(), and Python runs this handler before retrying the call."""

    def expired(signum, frame):
        raise AssertionError(f"still running after {seconds} s: it waits on something")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
