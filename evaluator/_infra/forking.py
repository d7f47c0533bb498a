"""Work handed to a forked process, where one core is not enough for the job:

- `sdeval import vllm-responses` sums a large file's byte ranges in one process per core;
- `sdeval render` imports WeasyPrint (about 0.6 s) in a writer process while this one loads and
  assesses the inputs, and with a key, reads the key and imports pyHanko (about 0.5 s) in a
  signing process while the pages are laid out.

Decoding JSON, laying out pages and importing modules all hold the GIL, so threads would not
overlap them; processes do. fork (not spawn) because the child must start at once, with what
this process has already imported and read.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Sequence
from typing import Any, Self, TypeVar


def fork_is_safe() -> bool:
    """fork copies only the calling thread: with other threads running (a test runner, an
    application embedding sdeval), a lock one of them holds would never be released in the
    child. Such callers do the work in their own process instead."""
    return threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()


def context():
    return multiprocessing.get_context("fork")


class ProcessEnded(Exception):
    """The forked process ended without its result (killed, or out of memory)."""


class _Raised:
    """An exception raised in the child, sent as a value and raised again here."""

    def __init__(self, exception: BaseException) -> None:
        self.exception = exception


class Forked:
    """`function(connection, *args)` run in a forked process. It may exchange messages with this
    process through `connection`; its return value, or the exception it raised, is its last message."""

    def __init__(self, function: Callable[..., Any], *args: Any, role: str) -> None:
        self.role = role  # names the process in errors: "the signing process ended ..."
        self.connection, child_end = context().Pipe()
        self.process = context().Process(target=_child, args=(child_end, function, args), daemon=True)
        self.process.start()
        child_end.close()

    def send(self, message: Any) -> None:
        try:
            self.connection.send(message)
        except (BrokenPipeError, ConnectionResetError):  # the child is gone
            raise self._ended() from None

    def receive(self, waiting: Callable[[], None] | None = None) -> Any:
        """The child's next message; `waiting` is called every 0.1 s until it comes."""
        while not self.connection.poll(0.1):
            if waiting is not None:
                waiting()
            if not self.process.is_alive() and not self.connection.poll():
                raise self._ended()
        try:
            message = self.connection.recv()
        except EOFError:  # the child closed its end without a result: it is exiting
            raise self._ended() from None
        if isinstance(message, _Raised):
            raise message.exception
        return message

    def _ended(self) -> ProcessEnded:
        self.process.join(5)
        return ProcessEnded(f"the {self.role} process ended without its result (exit code {self.process.exitcode})")

    def stop(self) -> None:
        """End the child if it is still at work (its result is no longer wanted) and wait for it."""
        if self.process.is_alive():
            self.process.terminate()
        self.process.join()
        self.connection.close()


class ForkedOrHere:
    """Base of work done in a `Forked` process where `fork_is_safe()`, in this process otherwise;
    `_forked` is that process or None. The `with` block it opens is what guarantees the process
    never outlives the command."""

    _forked: Forked | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._forked is not None:
            self._forked.stop()


def _child(connection, function: Callable[..., Any], args: tuple) -> None:
    # Ctrl-C reaches the whole process group; the parent decides, and stops its children (SIGTERM)
    # on the way out, so a child neither dies with a traceback of its own nor outlives it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        outcome: Any = function(connection, *args)
    except Exception as exc:
        outcome = _Raised(exc)
    try:
        connection.send(outcome)
    except (BrokenPipeError, EOFError):  # the parent stopped waiting
        pass
    connection.close()


# Work on many items at once (verify FOLDER, archive verify/rejudge): CPU-bound Python (pyHanko,
# pypdf, the rule catalog) queues on the GIL in threads; forked processes start at once with what
# this process has imported. Where forking is unsafe, the work stays here.
T = TypeVar("T")


def map_across_cores(function: Callable[..., T], items: Sequence[Any], *, workers: int | None = None, label: str | None = None) -> list[T]:
    """[function(item) for item in items], in order; `function` must be a module-level function.
    With `label`, a progress bar counts the items done, where the command line allows one."""
    from . import progress

    workers = min(workers or os.cpu_count() or 1, len(items))
    with progress.bar(label or "", len(items) if label else 0) as shown:
        if workers < 2 or not fork_is_safe():
            out = []
            for item in items:
                out.append(function(item))
                shown.advance()
            return out
        from concurrent.futures import ProcessPoolExecutor

        # Small chunks keep both cores busy to the end; a few per chunk save round trips.
        chunk = max(1, min(8, len(items) // (workers * 8)))
        with ProcessPoolExecutor(max_workers=workers, mp_context=context()) as pool:
            out = []
            for result in pool.map(function, items, chunksize=chunk):  # every item is sent before the first result
                out.append(result)
                shown.advance()
            return out
