"""The raw capture: one JSON line per request, per scrape and per finished window, written (and
flushed) as it arrives, in RECORD.capture/ beside the record. Ctrl-C or a server crash keeps
everything measured so far; `--resume` continues after the last finished window, and the record is
always built from the capture, so nothing the record says is lost if it is rewritten."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, TextIO

LOG = "capture.jsonl"


class MeasureProblem(Exception):
    """measure cannot run: one line naming the file, URL or flag (exit 2)."""


def capture_dir(record: Path) -> Path:
    return record.with_name(record.name + ".capture")


class Capture:
    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.log = directory / LOG
        self._fh: TextIO | None = None

    def open(self, *, new: bool) -> None:
        if new:
            try:
                self.dir.mkdir()
            except FileExistsError:
                raise MeasureProblem(f"{self.dir}: a capture is already there; pass --resume to continue it, or choose another -o") from None
            except OSError as exc:
                raise MeasureProblem(f"{self.dir}: cannot create ({exc.strerror})") from None
        elif not self.log.is_file():
            raise MeasureProblem(f"{self.log}: no capture to continue")
        else:
            self._drop_cut_line()
        self._fh = open(self.log, "a", encoding="utf-8")

    def _drop_cut_line(self) -> None:
        """A crash can leave the last line half written; continuing after it would bury it mid-file."""
        with open(self.log, "rb+") as fh:
            data = fh.read()
            if data and not data.endswith(b"\n"):
                fh.truncate(data.rfind(b"\n") + 1)

    def write(self, entry: dict[str, Any]) -> None:
        assert self._fh is not None, "Capture.write before open"
        self._fh.write(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._fh.flush()  # on disk as it arrives: a crash loses at most the line being written

    def save_scrape(self, name: str, text: bytes) -> str:
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
            self._fh = None

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
