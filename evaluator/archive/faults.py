"""Named step boundaries of the archive's writing commands, where the tests stop or kill them.

With SDEVAL_ARCHIVE_TEST_KILL_AT=STEP the command sends itself SIGKILL on reaching STEP (no
`finally`, no atexit: exactly what a power cut or an OOM kill leaves); with
SDEVAL_ARCHIVE_TEST_PAUSE_AT=STEP it says so on standard error and waits there until the test
kills it (tests/archive/test_archive_crash.py, test_archive_kill.py). Unset, a step costs one
environment lookup.

The steps, in the order a command reaches them (STEPS lists them per command):
  staged, verified      add: the report copied into tmp/ and fsynced; verification done
  stored                add: the file renamed to objects/, before its index row
  log-written           any write: the entries appended to log.jsonl, the index not yet committed
  committed             any write: the index committed, the command not yet finished
  indexed               add: a report's row committed and its lock file about to go
  anchor-requested      the authority's token received, not yet stored
  rebuild-verified      rebuild: the stored reports verified, no index table written yet
  rebuild-initialized   rebuild: the new index's tables made inside its one transaction, not committed
"""

from __future__ import annotations

import os
import signal
import sys

KILL_ENV = "SDEVAL_ARCHIVE_TEST_KILL_AT"
PAUSE_ENV = "SDEVAL_ARCHIVE_TEST_PAUSE_AT"

STEPS = {
    "add": ["staged", "verified", "stored", "log-written", "committed", "indexed"],
    "withdraw": ["log-written", "committed"],
    "rebuild": ["rebuild-verified", "rebuild-initialized", "log-written", "committed"],
}


def step(name: str) -> None:
    """A step boundary: killed or paused here when a test asks for it."""
    if os.environ.get(KILL_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)
    if os.environ.get(PAUSE_ENV) == name:
        sys.stderr.write(f"paused at {name}\n")
        sys.stderr.flush()
        while True:
            signal.pause()
