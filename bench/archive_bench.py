"""The auditor's archive at N reports: add, a filtered list, and verifying them all (goal: >= 20
reports/s on 2 cores), again with some tampered with, against a shell loop of single `sdeval
verify` calls, in one run; each rate with the load average before and after it.

Makes N distinct signed reports (default 200): RECORDS copies of examples/sd201-offer-b.json,
each with its own vendor and offer id, rendered once each and signed N / RECORDS times (pyHanko
writes a new document id with every signature, so each signed copy is a distinct file that passes
`sdeval verify`). Then, each as its own process, as a user runs them:
  archive add       all N reports in one command (each verified in full, stored, indexed)
  archive list      --vendor V (a tenth of the reports), median of LIST_RUNS processes; and the
                    query alone, in process
  archive verify    all N (hash check + full verification, one process per core)
  shell loop        `for f in *.pdf; do sdeval verify "$f" --trust cert.pem; done` over the first --loop of them

Usage: .venv/bin/python bench/archive_bench.py [--reports 1000] [--records 10] [--tampered 10] [--runs 3] [--db URL] [--loop 20]
(--db: a PostgreSQL index, e.g. postgresql://user@/dbname?host=/socket/folder, an empty database)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_RATE = 20.0  # archive verify, reports/s on 2 cores (issue 43)
SDEVAL = [sys.executable, "-m", "evaluator"]


def make_reports(folder: Path, count: int, records: int) -> tuple[list[Path], Path]:
    from evaluator.pipeline import assess_paths
    from evaluator.report.render import render_pdf
    from evaluator.report.signing import keygen, load_identity, sign

    key, cert = keygen(folder / "identity", common_name="Bench Assessor", force=False)
    identity = load_identity(key=key, cert=cert, pkcs12=None, password_file=None)
    base = json.loads((ROOT / "examples" / "sd201-offer-b.json").read_text())
    paths = []
    for r in range(records):
        record = json.loads(json.dumps(base))
        record["offer"]["vendor"] = f"Vendor {r:02d}"
        record["offer"]["offer_id"] = f"SD-201-B-{r:02d}"
        source = folder / f"offer-{r:02d}.json"
        source.write_text(json.dumps(record, indent=2))
        unsigned = render_pdf(assess_paths([str(source)], for_report=True), signer="Bench Assessor")
        for copy in range(count // records + (1 if r < count % records else 0)):
            path = folder / "reports" / f"report-{r:02d}-{copy:03d}.pdf"
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(sign(unsigned, identity))
            paths.append(path)
    return paths, cert


def run(args: list[str], **kwargs) -> tuple[float, subprocess.CompletedProcess]:
    global LAST_CPU
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, **kwargs)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    LAST_CPU = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)  # its workers included (waited for)
    return time.perf_counter() - start, done


LAST_CPU = 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=1000)
    parser.add_argument("--records", type=int, default=10, help="distinct records (vendors) the reports come from")
    parser.add_argument("--list-runs", type=int, default=7)
    parser.add_argument("--loop", type=int, default=20, help="time the shell loop on this many reports only (its rate is per report)")
    parser.add_argument("--tampered", type=int, default=10, help="then verify again with this many reports tampered with (0: skip)")
    parser.add_argument("--runs", type=int, default=3, help="archive verify runs per figure (the median is printed, with its range)")
    parser.add_argument("--db", help="PostgreSQL URL of an empty database (default: SQLite in the archive folder)")
    args = parser.parse_args()

    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} before")
    with tempfile.TemporaryDirectory(prefix="sdeval-archive-bench-") as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        paths, cert = make_reports(folder, args.reports, args.records)
        hashes = {__import__("hashlib").sha256(p.read_bytes()).hexdigest() for p in paths}
        assert len(hashes) == len(paths), "the signed reports are not all distinct"
        print(
            f"made {len(paths)} distinct signed reports from {args.records} records in {time.perf_counter() - start:.1f} s "
            f"({sum(p.stat().st_size for p in paths) / len(paths) / 1024:.0f} KiB each)"
        )

        archive = folder / "archive"
        where = ["--archive", str(archive), *(["--db", args.db] if args.db else [])]
        _, done = run([*SDEVAL, "archive", "init", *where, "--trust", str(cert)])
        assert done.returncode == 0, done.stderr

        seconds, done = run([*SDEVAL, "archive", "add", *where, *map(str, paths)])
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr
        assert done.stdout.splitlines()[-1] == f"{len(paths)} admitted, 0 already archived, 0 refused", done.stdout[-500:]
        add_rate = len(paths) / seconds
        print(f"archive add     {len(paths)} reports in one command: {seconds:.1f} s, {add_rate:.1f} reports/s")

        vendor = "Vendor 03"
        listing = [*SDEVAL, "archive", "list", *where, "--vendor", vendor, "--format", "json"]
        run(listing)  # warm the file cache
        walls = []
        for _ in range(args.list_runs):
            seconds, done = run(listing)
            walls.append(seconds)
        found = len(json.loads(done.stdout)["reports"])
        query = _query_alone(archive, args.db, vendor)
        print(
            f"archive list    --vendor '{vendor}' ({found} of {len(paths)}): whole process median {statistics.median(walls) * 1000:.0f} ms "
            f"(min {min(walls) * 1000:.0f}, max {max(walls) * 1000:.0f}); the query alone {query * 1000:.1f} ms"
        )

        expected = f"verified {len(paths)} reports: {len(paths)} passed, 0 failed"
        verify_rate = verify_runs(where, len(paths), args.runs, "", 0, expected)
        if args.tampered:
            tampered = tamper(archive, args.db, args.tampered)
            expected = f"verified {len(paths)} reports: {len(paths) - args.tampered} passed, {args.tampered} failed"
            verify_runs(where, len(paths), args.runs, f", {args.tampered} tampered", 1, expected, tampered)

        loop = 'for f in "$@"; do "$SDEVAL_PY" -m evaluator verify "$f" --trust "$CERT" >/dev/null || exit 1; done'
        looped = paths[: args.loop] if args.loop else paths
        seconds, done = run(["bash", "-c", loop, "loop", *map(str, looped)], env={**os.environ, "SDEVAL_PY": sys.executable, "CERT": str(cert)})
        assert done.returncode == 0, done.stderr
        loop_rate = len(looped) / seconds
        print(f"shell loop      {len(looped)} x `sdeval verify --trust`: {seconds:.1f} s, {loop_rate:.2f} reports/s")
        print(f"archive verify / shell loop: x{verify_rate / loop_rate:.1f} reports/s")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def verify_runs(where: list[str], reports: int, runs: int, what: str, exit_code: int, expected: str, tampered: dict[int, str] | None = None) -> float:
    """`archive verify` run `runs` times: the median rate with its range, the load average before
    and after each run, and the median CPU per report (the rate two idle cores would give).
    `tampered` (report id -> how): each of them, and no other, must fail naming why."""
    rates, cpus, loads = [], [], []
    for n in range(runs):
        before = os.getloadavg()[0]
        seconds, done = run([*SDEVAL, "archive", "verify", *where])
        last = done.stdout.splitlines()[-1] if done.stdout else ""
        assert done.returncode == exit_code and last == expected, done.stdout[-2000:] + done.stderr[-2000:]
        if tampered:
            check_failures(done.stdout, tampered, show=n == 0)
        rates.append(reports / seconds)
        cpus.append(LAST_CPU / reports)
        loads.append(f"{before:.1f}->{os.getloadavg()[0]:.1f}")
    per = statistics.median(cpus)
    print(
        f"archive verify  {reports} reports{what}: median {statistics.median(rates):.2f} reports/s (min {min(rates):.2f}, max {max(rates):.2f}, "
        f"{runs} runs; goal >= {GOAL_RATE:g} on 2 cores) at load average {', '.join(loads)}; median CPU {per * 1000:.0f} ms/report "
        f"(min {min(cpus) * 1000:.0f}, max {max(cpus) * 1000:.0f}), at most {2 / per:.1f} reports/s on 2 idle cores "
        f"(a bound, not a measurement: {'above' if 2 / per >= GOAL_RATE else 'BELOW'} the goal) ({expected})"
    )
    return statistics.median(rates)


# What `archive verify` must say of each kind of tampering (the start of its reason).
WHY = {"file": "changed (SHA-256 ", "index": "the index differs from the report: outcome"}


def check_failures(stdout: str, tampered: dict[int, str], *, show: bool) -> None:
    """Each tampered report, and only those, on a FAIL line whose reason names what was changed."""
    failed = {}
    for line in stdout.splitlines():
        match = re.match(r"FAIL report (\d+) \([^)]*\): (.*)", line)
        if match:
            failed[int(match.group(1))] = match.group(2)
    assert set(failed) == set(tampered), f"failed {sorted(failed)}, tampered {sorted(tampered)}"
    for report_id, how in tampered.items():
        assert failed[report_id].startswith(WHY[how]), f"report {report_id} ({how}): {failed[report_id]}"
    if show:
        for how in sorted(set(tampered.values())):
            first = next(r for r, h in sorted(tampered.items()) if h == how)
            count = sum(h == how for h in tampered.values())
            print(
                f"  {count} with the {'stored file' if how == 'file' else 'index row'} changed fail as, e.g.: FAIL report {first}: {failed[first][:110]}"
            )


def tamper(archive: Path, db: str | None, count: int) -> dict[int, str]:
    """`count` reports tampered with, half each way: a byte of the stored file changed (found by
    its SHA-256), or the index's outcome edited (found only after the full verification).
    Returns how each was tampered with ("file" or "index"), by report id."""
    import sqlalchemy as sa

    url = db.replace("postgresql://", "postgresql+psycopg://") if db else f"sqlite:///{archive / 'index.sqlite'}"
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        rows = conn.execute(sa.text("SELECT id, stored_as FROM reports ORDER BY id")).all()
        step = max(1, len(rows) // count)
        chosen = rows[::step][:count]
        tampered = {}
        for n, (report_id, stored) in enumerate(chosen):
            tampered[report_id] = "file" if n % 2 == 0 else "index"
            if n % 2 == 0:
                path = archive / stored
                path.chmod(0o644)
                data = bytearray(path.read_bytes())
                data[len(data) // 2] ^= 0x01
                path.write_bytes(bytes(data))
            else:
                conn.execute(sa.text("UPDATE reports SET outcome = 'tampered' WHERE id = :i"), {"i": report_id})
    engine.dispose()
    return tampered


def _query_alone(archive: Path, db: str | None, vendor: str) -> float:
    """Median of 21 in-process runs of the filtered query with its offers (no start-up, no printing)."""
    from evaluator.archive.finding import list_reports
    from evaluator.archive.index import Filters
    from evaluator.archive.location import open_archive

    opened = open_archive(archive, db)
    try:
        times = []
        for _ in range(21):
            start = time.perf_counter()
            list_reports(opened, Filters(vendor=vendor))
            times.append(time.perf_counter() - start)
        return statistics.median(times)
    finally:
        opened.close()


if __name__ == "__main__":
    main()
