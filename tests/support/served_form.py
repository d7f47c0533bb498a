"""`sdeval serve` started as a user starts it (the console script, port 0) and the page it serves
opened in Debian's Chromium: shared by tests/serve's files."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

SDEVAL = str(Path(sys.executable).with_name("sdeval"))


class Server:
    def __init__(self, *args: str, cwd: Path):
        self.proc = subprocess.Popen([SDEVAL, "serve", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
        self.url = self.proc.stdout.readline().strip()
        if not self.url:
            self.stop()
            raise AssertionError(f"sdeval serve printed no address: {self.proc.stderr.read()}")
        self.base, _, self.token = self.url.partition("/?token=")
        self.port = int(self.base.rsplit(":", 1)[1])

    def assess(self, body: bytes, **headers):
        import httpx

        return httpx.post(f"{self.base}/assess", content=body, headers={"X-Sdeval-Token": self.token, **headers}, timeout=60)

    def stop(self) -> str:
        """Ctrl-C, as a user stops it; returns what it wrote on standard error."""
        if self.proc.poll() is None:
            self.proc.send_signal(2)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.stderr.read()


# The page's Content-Security-Policy forbids eval, which Playwright's wait_for_function uses
# in the page; these poll from outside instead (page.evaluate is not subject to it), so the
# page is tested under the policy a user's browser enforces.
def until(page, expression: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {seconds:.0f} s: {expression}")
        page.wait_for_timeout(50)


def open_page(browser, url: str):
    """(context, page, errors): the page opened, its script running; errors collects what the page
    threw or logged as an error."""
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(url)
    until(page, "window.sdevalForm !== undefined")
    return context, page, errors


def settled(page) -> dict:
    """sdeval's answer for the record the page holds now, once it has come."""
    until(page, "window.sdevalForm.settled()")
    return page.evaluate("window.sdevalForm.verdict()")
