"""The Reliability figures of docs/reliability.md, counted from the suite itself.

Runs the hardening test modules once with pytest (JUnit XML for the test cases, Hypothesis's
statistics for the generated examples) and prints, per kind of attack, how many cases the suite
tried and how many passed. Exits 1 if any case failed, so a figure is never printed for a
suite that did not hold.

Usage: .venv/bin/python bench/reliability.py          (about two minutes; Hypothesis seed 0, so the
       generated cases are the same on every run)
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# kind of attack -> the modules that try it (test_pdf_report.py: only its tamper cases, by name)
KINDS = {
    "hostile input files (parse, limits, encodings, YAML, devices, stdin)": ["test_loader.py", "test_hostile_input.py", "test_fuzz_regressions.py"],
    "hostile strings (control, bidi and invisible characters, XMP, scrapes, deep nesting, corrupted index)": ["test_hostile_strings.py"],
    "hostile rendering (markup, url(), file://, long words, RTL, many runs)": ["test_render_hostility.py", "test_pdf_security.py"],
    "generated and mutated records (Hypothesis)": ["test_properties.py"],
    "tampered signed reports": ["test_pdf_tamper.py", "test_hostile_reports.py", "test_pdf_report.py"],
    "hostile archive folders (links, FIFOs, index rows naming other paths)": ["test_archive_hostile_files.py"],
    "secrets (key, password, file modes)": ["test_secrets.py"],
}
REPORT_TAMPER = re.compile(r"fail|truncat|swap|flip|junk")
STATS = re.compile(r"^(tests/\S+)::(\S+):\n(?:.*\n)*?\s+- (\d+) passing, (\d+) failing, and (\d+) invalid", re.M)


def main() -> int:
    modules = sorted({m for ms in KINDS.values() for m in ms})
    paths = {m: str(next(ROOT.glob(f"tests/**/{m}")).relative_to(ROOT)) for m in modules}  # each in its stage's folder
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "junit.xml"
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "--hypothesis-show-statistics",
                "--hypothesis-seed=0",
                f"--junitxml={junit}",
                *paths.values(),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        cases = ET.parse(junit).getroot().iter("testcase")
        outcome: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for case in cases:
            module = case.get("classname", "").split(".")[-1] + ".py"
            name = case.get("name", "")
            if module == "test_pdf_report.py" and not REPORT_TAMPER.search(name):
                continue
            state = (
                "failed"
                if case.find("failure") is not None or case.find("error") is not None
                else ("skipped" if case.find("skipped") is not None else "passed")
            )
            outcome[module].append((name, state))
    examples = {(f, t.split("[")[0]): (int(p), int(f_)) for f, t, p, f_, _ in STATS.findall(run.stdout)}

    print(f"{'kind of attack':<78}{'cases':>7}{'passed':>8}{'failed':>8}{'skipped':>9}")
    total_failed = 0
    for kind, ms in KINDS.items():
        passed = failed = skipped = 0
        for m in ms:
            for name, state in outcome[m]:
                generated = examples.get((paths[m], name.split("[")[0]))
                if generated is not None:  # a Hypothesis test: each example is one case
                    passed, failed = passed + generated[0], failed + generated[1]
                else:
                    passed, failed, skipped = passed + (state == "passed"), failed + (state == "failed"), skipped + (state == "skipped")
        total_failed += failed
        print(f"{kind:<78}{passed + failed + skipped:>7,}{passed:>8,}{failed:>8,}{skipped:>9,}")
    if examples:
        print("\nHypothesis examples per property:")
        for (file, test), (p, f) in sorted(examples.items()):
            print(f"  {Path(file).name}::{test}: {p} passing, {f} failing")
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr.strip()[-300:]
    print(f"\npytest: {summary}")
    return 1 if total_failed or run.returncode != 0 else 0


if __name__ == "__main__":
    raise SystemExit(main())
