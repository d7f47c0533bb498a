"""Running the sdeval command the way a user's terminal does: on a pseudo-terminal of a given width."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the project (tests/support/ is two folders down)
SDEVAL = str(Path(sys.executable).with_name("sdeval"))


def on_a_terminal(columns: int, *args: str) -> str:
    """The command's standard output on a pseudo-terminal `columns` wide."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("SDEVAL_TEXT_WIDTH", "COLUMNS")}
    proc = subprocess.Popen([SDEVAL, *args], stdout=follower, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the follower closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode().replace("\r\n", "\n")
