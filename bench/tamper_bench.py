"""What a tampered report costs `sdeval verify`, against an intact one, in one run.

Renders and signs examples/complete-offer.yaml (a tagged report of about 1,700 objects), then makes
tampered copies the way an insider would: an attachment swapped by an incremental update, and a
page's content replaced by one. Neither update is of the kinds sdeval adds after a signature
(validation data, a document timestamp), so each fails before pyHanko's change analysis. Each is
verified as its own process (`sdeval verify FILE --trust CERT`), alternating intact and tampered,
RUNS times; then a folder of 10 intact copies against a folder of 10 tampered ones, one `sdeval
verify FOLDER` call each. Goal (issue 39): a tampered report's verify at most 2x an intact one's.

Last, the updates of the known kinds, which get pyHanko's full change analysis (within its budget,
evaluator/verify/budget.py): validation data added after the signature (passes) against the same
with a text field added on the cover (fails), and the first against the intact report: what the
full analysis costs, stated, not a goal.

Usage: .venv/bin/python bench/tamper_bench.py [--runs 5]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SDEVAL = [sys.executable, "-m", "evaluator"]
sys.path.insert(0, str(ROOT / "tests"))  # the tampering the tests do, done the same way here
from support.pdf_helpers import swap_attachment, with_validation_data  # noqa: E402


def replace_cover(data: bytes) -> bytes:
    """The cover page's content stream replaced by another (the verdict rewritten)."""
    from pyhanko.pdf_utils import generic
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

    writer = IncrementalPdfFileWriter(io.BytesIO(data))
    page_ref = writer.root["/Pages"]["/Kids"][0]
    page = page_ref.get_object()
    stream = generic.StreamObject({}, stream_data=b"BT /F1 24 Tf 72 720 Td (ESTABLISHED) Tj ET")
    page[generic.NameObject("/Contents")] = writer.add_object(stream)
    writer.update_container(page)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


GOAL = 2.0


def timed(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, cwd=ROOT, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, 1-minute load average {os.getloadavg()[0]:.2f} before")
    with tempfile.TemporaryDirectory(prefix="sdeval-tamper-bench-") as tmp:
        folder = Path(tmp)
        subprocess.run([*SDEVAL, "keygen", str(folder / "id")], check=True, capture_output=True)
        intact = folder / "intact.pdf"
        subprocess.run(
            [
                *SDEVAL,
                "render",
                "examples/complete-offer.yaml",
                "-o",
                str(intact),
                "--key",
                str(folder / "id" / "key.pem"),
                "--cert",
                str(folder / "id" / "cert.pem"),
            ],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        cert = str(folder / "id" / "cert.pem")
        data = intact.read_bytes()
        cases = {
            "attachment swapped": swap_attachment(data, "complete-offer.yaml", b"forged: true\n"),
            "cover replaced": replace_cover(data),
        }
        medians = {}
        for label, tampered in cases.items():
            path = folder / f"{label.replace(' ', '-')}.pdf"
            path.write_bytes(tampered)
            walls: dict[str, list[float]] = {"intact": [], label: []}
            for _ in range(args.runs):
                walls["intact"].append(timed([*SDEVAL, "verify", str(intact), "--trust", cert]))
                walls[label].append(timed([*SDEVAL, "verify", str(path), "--trust", cert]))
            medians[label] = statistics.median(walls[label])
            base = statistics.median(walls["intact"])
            ratio = medians[label] / base
            print(
                f"verify, {label:<20} median {medians[label]:.2f} s against intact {base:.2f} s: x{ratio:.2f}"
                f" (goal <= {GOAL}: {'met' if ratio <= GOAL else 'NOT met'})"
            )
        for name, tampered in (("intact", data), ("tampered", cases["attachment swapped"])):
            (folder / name).mkdir()
            for i in range(10):
                (folder / name / f"{i}.pdf").write_bytes(tampered)
        walls = {"intact": [], "tampered": []}
        for _ in range(max(1, args.runs // 2)):
            for name in walls:
                walls[name].append(timed([*SDEVAL, "verify", str(folder / name), "--trust", cert]))
        intact_folder, tampered_folder = statistics.median(walls["intact"]), statistics.median(walls["tampered"])
        ratio = tampered_folder / intact_folder
        print(
            f"verify FOLDER of 10 tampered {tampered_folder:.2f} s against 10 intact {intact_folder:.2f} s: x{ratio:.2f}"
            f" (goal <= {GOAL}: {'met' if ratio <= GOAL else 'NOT met'})"
        )
        known = {"intact": intact, "validation data": folder / "dss.pdf", "validation data + text field": folder / "field.pdf"}
        known["validation data"].write_bytes(with_validation_data(data))
        known["validation data + text field"].write_bytes(with_validation_data(data, text_field=True))
        walls = {name: [] for name in known}
        for _ in range(max(1, args.runs // 2)):
            for name, path in known.items():
                walls[name].append(timed([*SDEVAL, "verify", str(path), "--trust", cert]))
        m = {name: statistics.median(w) for name, w in walls.items()}
        print(
            f"full change analysis (stated, no goal): validation data {m['validation data']:.2f} s (x{m['validation data'] / m['intact']:.1f} intact); "
            f"+ text field {m['validation data + text field']:.2f} s (x{m['validation data + text field'] / m['validation data']:.2f} the validation data alone)"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
