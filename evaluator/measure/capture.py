"""The raw capture: one JSON line per request, per scrape and per finished window, written (and
flushed) as it arrives, in RECORD.capture/ beside the record. Ctrl-C or a server crash keeps
everything measured so far; `--resume` continues after the last finished window, and the record is
always built from the capture, so nothing the record says is lost if it is rewritten.

One writer per capture: a run holds an exclusive lock on RECORD.capture/lock from before it reads
the capture until it ends (a fresh run, --append and --resume alike), so two runs never measure
the same windows into one capture. The lock is the kernel's (flock): it goes with the process,
also when the process is killed."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
from pathlib import Path
from typing import Any, TextIO

from .problems import MeasureProblem

LOG = "capture.jsonl"
LOCK = "lock"


def capture_dir(record: Path) -> Path:
    return record.with_name(record.name + ".capture")


class Capture:
    def __init__(self, directory: Path, secrets: tuple[str, ...] = ()) -> None:
        self.dir = directory
        self.log = directory / LOG
        self._fh: TextIO | None = None
        self._lock: int | None = None
        from .credentials import Scrubber

        self.scrub = Scrubber(secrets)

    def lock(self) -> None:
        """Take the capture's lock (once), or refuse in one line while another run holds it."""
        if self._lock is not None:
            return
        try:
            fd = os.open(self.dir / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise MeasureProblem(f"{self.dir}: cannot open its lock ({exc.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise MeasureProblem(f"{self.dir}: cannot lock ({exc.strerror})") from None
            raise MeasureProblem(
                f"{self.dir}: another sdeval measure{' (process ' + holder + ')' if holder.isdigit() else ''} is writing this capture; "
                "wait for it to end, then --resume"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock = fd

    def unlock(self) -> None:
        if self._lock is not None:
            os.close(self._lock)  # closing the descriptor releases the flock
            self._lock = None

    def open(self, *, new: bool) -> None:
        if new:
            try:
                self.dir.mkdir()
            except FileExistsError:
                raise MeasureProblem(f"{self.dir}: a capture is already there; pass --resume to continue it, or choose another -o") from None
            except OSError as exc:
                raise MeasureProblem(f"{self.dir}: cannot create ({exc.strerror})") from None
            self.lock()
        else:
            if not self.dir.is_dir():
                raise MeasureProblem(f"{self.log}: no capture to continue")
            self.lock()
            if not self.log.is_file():
                raise MeasureProblem(f"{self.log}: no capture to continue")
            self._drop_cut_line()
        self._fh = open(self.log, "a", encoding="utf-8")

    def _drop_cut_line(self) -> None:
        """A crash can leave the last line half written; continuing after it would bury it mid-file."""
        with open(self.log, "rb+") as fh:
            data = fh.read()
            if data and not data.endswith(b"\n"):
                fh.truncate(data.rfind(b"\n") + 1)

    def write(self, entry: dict[str, Any]) -> None:
        """One line, whatever a server sent: text with a lone surrogate (which UTF-8 cannot carry)
        is written with JSON's \\u escapes, which read back to the same string; the API keys are
        scrubbed out of it."""
        assert self._fh is not None, "Capture.write before open"
        entry = self.scrub.value(entry)
        line = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:
            line = json.dumps(entry, ensure_ascii=True, separators=(",", ":"))
        self._fh.write(line + "\n")
        self._fh.flush()  # on disk as it arrives: a crash loses at most the line being written

    def save_scrape(self, name: str, text: bytes) -> str:
        text = self.scrub.raw(text)
        path = self.dir / name
        with open(path, "wb") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        return hashlib.sha256(text).hexdigest()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            self._fh = None  # the lock is kept until unlock(): the record is built from this capture next

    def entries(self) -> list[dict[str, Any]]:
        """Every whole line; a line cut short by a crash is the last one and is left out."""
        out = []
        try:
            lines = self.log.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise MeasureProblem(f"{self.log}: cannot read ({exc.strerror})") from None
        for number, line in enumerate(lines, 1):
            try:
                out.append(json.loads(line))
            except ValueError:
                if number != len(lines):
                    raise MeasureProblem(f"{self.log}: line {number} is not JSON; the capture was edited") from None
        return out
