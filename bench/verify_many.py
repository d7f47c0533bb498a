"""`sdeval verify FOLDER` against a shell loop of one `sdeval verify REPORT` per report.

Renders and signs the seven shipped examples (a throwaway trial identity), copies them to 12
reports in a folder, then times, alternating in one run so machine noise hits both alike:
  loop     12 separate `sdeval verify REPORT --trust CERT` processes, one after another
           (what an auditor's shell loop does: imports paid 12 times, one core);
  folder   one `sdeval verify FOLDER --trust CERT` (imports once, reports across the cores).
Both must report the same 12 verified reports. Goal (issue 29): folder <= 0.15x the loop.

Usage: .venv/bin/python bench/verify_many.py [RUNS]     (default 3; about 40 s per run pair)
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SDEVAL = str(Path(sys.executable).parent / "sdeval")
EXAMPLES = sorted((ROOT / "examples").glob("*-offer*.*")) + [
    ROOT / "examples" / n for n in ("acceptance-only.json", "unstated-load.json", "vllm-docs-ngram.json")
]
REPORTS = 12
GOAL = 0.15


def sdeval(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([SDEVAL, *args], cwd=ROOT, capture_output=True, text=True)


def make_reports(folder: Path, identity: Path) -> list[Path]:
    made = []
    for example in EXAMPLES:
        target = folder / f"{example.stem}.pdf"
        done = sdeval("render", str(example), "-o", str(target), "--key", str(identity / "key.pem"), "--cert", str(identity / "cert.pem"))
        if done.returncode not in (0, 1):
            raise SystemExit(f"render {example.name} failed: {done.stderr.strip()}")
        made.append(target)
    reports = list(made)
    while len(reports) < REPORTS:
        copy = folder / f"copy-{len(reports):02d}-{made[len(reports) % len(made)].name}"
        shutil.copyfile(made[len(reports) % len(made)], copy)
        reports.append(copy)
    return reports


def timed(commands: list[list[str]]) -> tuple[float, list[int]]:
    start = time.perf_counter()
    codes = [subprocess.run(c, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode for c in commands]
    return time.perf_counter() - start, codes


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        identity, folder = tmp_path / "identity", tmp_path / "reports"
        folder.mkdir()
        if sdeval("keygen", str(identity)).returncode != 0:
            raise SystemExit("keygen failed")
        reports = make_reports(folder, identity)
        trust = ["--trust", str(identity / "cert.pem")]
        listed = json.loads(sdeval("verify", str(folder), *trust, "--format", "json").stdout)
        verified = listed["summary"]["verified"]
        if verified != REPORTS:
            raise SystemExit(f"only {verified} of {REPORTS} reports verify: {listed['summary']}")
        loop_cmds = [[SDEVAL, "verify", str(r), *trust] for r in reports]
        folder_cmd = [[SDEVAL, "verify", str(folder), *trust]]
        timed(loop_cmds[:1] + folder_cmd)  # warm the file cache
        loop, together = [], []
        for _ in range(runs):
            seconds, codes = timed(loop_cmds)
            assert codes == [0] * REPORTS, codes
            loop.append(seconds)
            seconds, codes = timed(folder_cmd)
            assert codes == [0], codes
            together.append(seconds)
    ratio = statistics.median(together) / statistics.median(loop)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(
        f"{REPORTS} signed reports ({len(EXAMPLES)} shipped examples, copies to fill), {runs} alternating runs, "
        f"{cores} cores, load average {os.getloadavg()[0]:.2f}"
    )
    print(
        f"loop of {REPORTS} `sdeval verify REPORT`: median {statistics.median(loop):.2f} s  (min {min(loop):.2f}, max {max(loop):.2f}); "
        f"{statistics.median(loop) / REPORTS:.2f} s a report"
    )
    print(
        f"one `sdeval verify FOLDER`:          median {statistics.median(together):.2f} s  (min {min(together):.2f}, max {max(together):.2f}); "
        f"{statistics.median(together) / REPORTS:.2f} s a report"
    )
    print(f"ratio folder / loop: {ratio:.2f} (goal <= {GOAL}: {'met' if ratio <= GOAL else 'NOT met'})")


if __name__ == "__main__":
    main()
