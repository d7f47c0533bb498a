"""The action log: every init, add, refusal, verify and rejudge, each entry chained to the one before.

An entry is {seq, time, user, action, detail, prev_hash, hash}; `hash` is the SHA-256 of the
canonical JSON of the other fields, and `prev_hash` is the previous entry's hash (64 zeros for
the first). Editing an entry changes its hash; re-computing that hash breaks the next entry's
`prev_hash`; removing one leaves a gap in `seq` or a broken link. Removing the newest entries
leaves a shorter chain that still holds, so every report row also names the log entry of its
admission (a report whose entry is gone is found), and the log is kept twice: in the index and,
line by line, in `log.jsonl` in the archive folder (written in the same step, under the folder's
lock, see location.Archive.writing). A restored older index or a removed tail of the index's log
then differs from the file; `archive rebuild` re-creates a lost index from the file and objects/.
Whoever can rewrite both (and holds the signing key) can still rewrite all: every writing
command prints the head (last entry and hash) for the auditor to write down elsewhere.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any

from .store import read_kept

GENESIS = "0" * 64


def current_user() -> str:
    """The OS account running the command, from the real user id (not LOGNAME or USER, which
    anyone can set)."""
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:  # no name for this uid (a container): the number still identifies it
        return f"uid {os.getuid()}"


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def entry_hash(seq: int, time: str, user: str, action: str, detail: str, prev_hash: str) -> str:
    """`detail` is the stored JSON text, hashed as stored: the hash covers exactly what is kept."""
    body = canonical({"seq": seq, "time": time, "user": user, "action": action, "detail": detail, "prev_hash": prev_hash})
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Entry:
    seq: int
    time: str
    user: str
    action: str
    detail: str  # canonical JSON
    prev_hash: str
    hash: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "time": self.time,
            "user": self.user,
            "action": self.action,
            "detail": json.loads(self.detail) if self.detail else None,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }

    def text(self) -> str:
        try:
            detail = json.loads(self.detail)
        except ValueError:
            detail = self.detail
        summary = detail.get("summary") if isinstance(detail, dict) else None
        return f"{self.seq:>6}  {self.time}  {self.user:<10}  {self.action:<8}  {summary if summary is not None else detail}"


def line_of(e: Entry) -> bytes:
    """One line of log.jsonl: the entry as stored in the index (detail as its stored text)."""
    return (
        canonical({"seq": e.seq, "time": e.time, "user": e.user, "action": e.action, "detail": e.detail, "prev_hash": e.prev_hash, "hash": e.hash})
        + "\n"
    ).encode("utf-8")


class LogFileProblem(Exception):
    """log.jsonl cannot be read (one line naming the file and the line)."""


def read_file(path) -> list[Entry]:
    """Every entry of log.jsonl. A last line without its newline is a write a killed command never
    finished (its transaction did not commit either): it is left out."""
    try:
        data = read_kept(path)
    except FileNotFoundError:
        raise LogFileProblem(f"{path}: missing (the archive's copy of its log)") from None
    except OSError as exc:
        raise LogFileProblem(f"{path}: cannot read ({exc.strerror or exc})") from None
    return parse(data, path)


def parse(data: bytes, path) -> list[Entry]:
    """The entries in log.jsonl's bytes (the part after the last newline left out, as above)."""
    entries = []
    lines = data.split(b"\n")
    for number, raw in enumerate(lines[:-1], 1):  # the part after the last newline is unfinished
        try:
            d = json.loads(raw)
            entries.append(
                Entry(int(d["seq"]), str(d["time"]), str(d["user"]), str(d["action"]), str(d["detail"]), str(d["prev_hash"]), str(d["hash"]))
            )
        except (ValueError, KeyError, TypeError):
            raise LogFileProblem(f"{path}: line {number} is not a log entry") from None
    return entries


def compare(indexed: list[Entry], kept: list[Entry], file_name: str) -> list[str]:
    """Where the index's log and the folder's copy part; [] when they are the same."""
    problems = []
    by_seq = {e.seq: e for e in kept}
    for e in indexed:
        other = by_seq.get(e.seq)
        if other is not None and other.hash != e.hash:
            problems.append(f"entry {e.seq} differs: the index has hash {e.hash}, {file_name} has {other.hash}")
            break
    last_index = indexed[-1].seq if indexed else 0
    last_file = kept[-1].seq if kept else 0
    if last_file > last_index:
        gone = f"entry {last_file}" if last_file == last_index + 1 else f"entries {last_index + 1}-{last_file}"
        problems.append(
            f"the index's log ends at entry {last_index}, {file_name} at entry {last_file} (hash {kept[-1].hash}): "
            f"{gone} missing from the index (an older copy of the index restored, or its newest entries removed)"
        )
    elif last_index > last_file:
        extra = f"entry {last_index}" if last_index == last_file + 1 else f"entries {last_file + 1}-{last_index}"
        problems.append(
            f"{file_name} ends at entry {last_file}, the index's log at entry {last_index} (hash {indexed[-1].hash}): "
            f"{extra} not in {file_name} (written outside sdeval, or {file_name} cut short)"
        )
    return problems


def check_chain(entries: list[Entry], admitted_at: dict[int, int] | None = None) -> list[str]:
    """Every break in the chain, naming the entry by its sequence number; [] when it holds.
    `admitted_at` maps report ids to the log entry that admitted them."""
    problems = []
    expected_seq, prev = 1, GENESIS
    seen = set()
    for e in entries:
        seen.add(e.seq)
        if e.seq > expected_seq:
            gone = f"entry {expected_seq}" if e.seq == expected_seq + 1 else f"entries {expected_seq}-{e.seq - 1}"
            problems.append(f"{gone} {'is' if e.seq == expected_seq + 1 else 'are'} missing: removed from the log")
        if entry_hash(e.seq, e.time, e.user, e.action, e.detail, e.prev_hash) != e.hash:
            problems.append(f"entry {e.seq} was edited: its content does not match its hash")
        elif e.prev_hash != prev and e.seq == expected_seq:
            problems.append(f"entry {e.seq} does not follow entry {e.seq - 1}: entry {e.seq - 1} was edited or replaced")
        expected_seq, prev = e.seq + 1, e.hash
    for report, seq in sorted((admitted_at or {}).items()):
        if seq not in seen:
            problems.append(f"entry {seq}, which admitted report {report}, is missing: removed from the log")
    return problems
