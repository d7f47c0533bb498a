"""`sdeval render --key --cert` against a bare WeasyPrint render of the same HTML.

The peer is WeasyPrint's own command line writing the HTML that sdeval renders for the shipped
complete offer (made once, beforehand), as PDF/A-3a with the same three attachments: what any
tool that writes such a report from HTML must pay at least. Alternating in one run, N fresh
processes each (imports included, as a user pays them), wall-clock and CPU medians:
  weasyprint     `weasyprint --pdf-variant pdf/a-3a -a ... report.html out.pdf`
  render         `sdeval render` (unsigned draft: load, assess, HTML, PDF)
  render+sign    `sdeval render --key --cert` (the README's main command)
Goal (issue 39): render+sign at most 1.25x the bare WeasyPrint render.

Then, from N fresh processes that time each phase in-process one after another, where the time
goes; the command itself overlaps them in three processes, started by the render command once
its arguments are parsed (evaluator/report/writer.py PdfWriter, evaluator/report/signing.py Signing).

Usage: .venv/bin/python bench/render_sign.py [N]      (default 7)
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OFFER = ROOT / "examples" / "complete-offer.yaml"
BIN = Path(sys.executable).parent
SDEVAL = [str(BIN / "sdeval")]
GOAL = 1.25

HTML_AND_ATTACHMENTS = r"""
import sys
from pathlib import Path
from evaluator.pipeline import assess_paths
from evaluator.report.render import assessed_at, embedded_files, render_html
out = Path(sys.argv[2])
assessed = assess_paths([sys.argv[1]])
when = assessed_at()
embedded = embedded_files(assessed, when)
(out / "report.html").write_text(render_html(assessed, embedded, when=when, signer="sdeval trial assessor"), encoding="utf-8")
for e in embedded:
    (out / e.name).write_bytes(e.data)
print("\n".join(e.name for e in embedded))
"""

PHASES = r"""
import json, sys, time
t0 = time.perf_counter()
from evaluator.pipeline import assess_paths
t1 = time.perf_counter()
import weasyprint
t2 = time.perf_counter()
import pyhanko.sign.signers, pyhanko.pdf_utils.incremental_writer
from evaluator.report.render import render_pdf, render_html, embedded_files, assessed_at
from evaluator.report.signing import load_identity, sign
from pathlib import Path
t3 = time.perf_counter()
assessed = assess_paths([sys.argv[1]])
t4 = time.perf_counter()
when = assessed_at()
html = render_html(assessed, embedded_files(assessed, when), when=when, signer="x")
t5 = time.perf_counter()
pdf = render_pdf(assessed, signer="x", when=when)
t6 = time.perf_counter()
identity = load_identity(key=Path(sys.argv[2]), cert=Path(sys.argv[3]), pkcs12=None, password_file=None)
t7 = time.perf_counter()
signed = sign(pdf, identity)
t8 = time.perf_counter()
print(json.dumps({"sdeval imports": t1 - t0, "weasyprint import": t2 - t1, "pyhanko import": t3 - t2,
                  "assess": t4 - t3, "jinja html": t5 - t4,
                  "weasyprint layout+write": (t6 - t5) - (t5 - t4), "key load": t7 - t6, "pyhanko sign": t8 - t7, "total": t8 - t0}))
"""


def run(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Wall-clock and CPU (user + system) seconds of one run; CPU time stretches far less than
    wall time when other processes share the cores."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed with exit {done.returncode}: {done.stderr.decode()[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    # Other work on a 2-core machine stretches every figure; print the load so a reader can judge.
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        subprocess.run([*SDEVAL, "keygen", str(out / "id")], cwd=ROOT, check=True, capture_output=True)
        key, cert = out / "id" / "key.pem", out / "id" / "cert.pem"
        names = subprocess.run(
            [sys.executable, "-c", HTML_AND_ATTACHMENTS, str(OFFER), str(out)], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout.split()
        attach = [arg for name in names for arg in ("-a", name)]
        commands = {
            "weasyprint": [str(BIN / "weasyprint"), "--pdf-variant", "pdf/a-3a", "-u", f"{ROOT / 'templates'}/", *attach, "report.html", "w.pdf"],
            "render": [*SDEVAL, "render", str(OFFER), "-o", str(out / "u.pdf"), "--force"],
            "render+sign": [*SDEVAL, "render", str(OFFER), "-o", str(out / "s.pdf"), "--force", "--key", str(key), "--cert", str(cert)],
        }
        for cmd in commands.values():  # warm the file cache and the .pyc files once
            run(cmd, out)
        rows: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(n):
            for name, cmd in commands.items():
                rows[name].append(run(cmd, out))
        phases = [
            json.loads(
                subprocess.run(
                    [sys.executable, "-c", PHASES, str(OFFER), str(key), str(cert)], cwd=ROOT, check=True, capture_output=True, text=True
                ).stdout
            )
            for _ in range(n)
        ]
        sizes = {name: (out / f).stat().st_size for name, f in (("weasyprint", "w.pdf"), ("render", "u.pdf"), ("render+sign", "s.pdf"))}
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"{cores} cores; 1-minute load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after")
    print(f"{OFFER.name}, {n} alternating runs each: wall median (min-max), ratio to the bare WeasyPrint render; CPU median")
    peer = statistics.median(w for w, _ in rows["weasyprint"])
    peer_cpu = statistics.median(c for _, c in rows["weasyprint"])
    for name, samples in rows.items():
        walls, cpus = [w for w, _ in samples], [c for _, c in samples]
        median, cpu = statistics.median(walls), statistics.median(cpus)
        print(
            f"  {name:<12} {median:6.2f} s  ({min(walls):.2f}-{max(walls):.2f})  {median / peer:4.2f}x   "
            f"cpu {cpu:5.2f} s  {cpu / peer_cpu:4.2f}x   {sizes[name]:,} bytes"
        )
    print(f"phases of a signed render, in-process one after another (median of {n} fresh processes):")
    medians = {k: statistics.median(p[k] for p in phases) for k in phases[0]}
    for name, value in medians.items():
        print(f"  {name:<24} {value:6.3f} s")
    weasy = medians["weasyprint import"] + medians["weasyprint layout+write"]
    hanko = medians["pyhanko import"] + medians["pyhanko sign"]
    print(f"  share in WeasyPrint: {weasy / medians['total']:.0%}; in pyHanko: {hanko / medians['total']:.0%}")
    ratio = statistics.median(w for w, _ in rows["render+sign"]) / peer
    print(f"ratio render+sign / bare WeasyPrint: {ratio:.2f} (goal <= {GOAL}: {'met' if ratio <= GOAL else 'NOT met'})")


if __name__ == "__main__":
    main()
