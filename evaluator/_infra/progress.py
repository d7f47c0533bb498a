"""A progress bar on standard error for long work, where a person is watching.

A bar is drawn only when all hold:
- the command line allows it (`allowed()`: sdeval's commands do, except where they print JSON;
  a program calling sdeval's functions gets none);
- standard error is a terminal (piped or captured output stays exactly as without a bar);
- the work is long: several items (`total` at least `least`, 2 unless said), and still running
  after `after` seconds (0 unless said: an import of bytes waits a little).

rich draws it, imported only then. The bar is transient (it leaves no line behind) unless asked to
stay, and it is redrawn from the work's own thread, when the work advances or `tick()` is called
while waiting: no thread of its own runs beside the work, so processes forked meanwhile start
from a state no other thread holds (forking.fork_is_safe). `keep_time=True` lets rich redraw on
its own thread instead (the elapsed time then runs on between advances), for work that forks
nothing while the bar is up.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

_allowed = False
REDRAW_EVERY = 0.1  # seconds between two redraws, at most ten a second


@contextmanager
def allowed(on: bool = True) -> Iterator[None]:
    """Let the work inside show bars (the command line's choice: not when it prints JSON)."""
    global _allowed
    before, _allowed = _allowed, on
    try:
        yield
    finally:
        _allowed = before


class Bar:
    """advance(n), update(done), tick() and close(); each does nothing while no bar is drawn.
    Made by `bar()`, or directly for work that does not fit one `with` block (close it then)."""

    def __init__(
        self,
        label: str,
        total: int,
        *,
        unit: str = "items",
        after: float = 0.0,
        least: int = 2,
        transient: bool = True,
        keep_time: bool = False,
    ) -> None:
        self.label, self.total, self.unit, self.after = label, total, unit, after
        self.transient, self.keep_time = transient, keep_time
        self.done = 0
        self._started = time.monotonic()
        self._drawn = 0.0
        self._progress: Progress | None = None
        self._task: TaskID  # set with _progress, by _start
        self._closed = False
        self.shown = _allowed and total >= max(1, least) and sys.stderr.isatty()
        self.tick()  # drawn at once, unless it waits `after` seconds

    def advance(self, n: int = 1) -> None:
        self.update(self.done + n)

    def update(self, done: int) -> None:
        self.done = done
        self.tick()

    def tick(self) -> None:
        if not self.shown or self._closed:
            return
        now = time.monotonic()
        progress = self._progress
        if progress is None:
            if now - self._started < self.after:
                return
            progress = self._start()
        elif now - self._drawn < REDRAW_EVERY and self.done < self.total:
            return
        self._drawn = now
        progress.update(self._task, completed=self.done, refresh=not self.keep_time)

    def _start(self) -> Progress:
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        count = DownloadColumn() if self.unit == "bytes" else MofNCompleteColumn()
        self._progress = progress = Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            count,
            TimeElapsedColumn() if self.keep_time else TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=self.transient,
            auto_refresh=self.keep_time,
            # The command's own output and messages are never routed through the bar (a forked
            # process would inherit the redirection).
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._task = progress.add_task(self.label, total=self.total)
        progress.start()
        return progress

    def close(self) -> None:
        if self._progress is not None and not self._closed:
            self._progress.update(self._task, completed=self.done, refresh=True)
            self._progress.stop()
        self._closed = True


@contextmanager
def bar(label: str, total: int, **options) -> Iterator[Bar]:
    """A bar for `total` items (or bytes, with unit="bytes"), drawn where and when bars are wanted
    (see the module's docstring); `options` are Bar's."""
    shown = Bar(label, total, **options)
    try:
        yield shown
    finally:
        shown.close()
