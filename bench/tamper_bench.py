"""What a tampered report costs `sdeval verify`, against an intact one, in one run.

Renders and signs examples/complete-offer.yaml (a tagged report of about 3,500 objects), then makes
tampered copies the way an insider would: an attachment swapped by an incremental update, and a
page's content replaced by one. Each is verified as its own process (`sdeval verify FILE --trust
CERT`), alternating intact and tampered, RUNS times; then a folder of 10 intact copies against a
folder of 10 tampered ones, one `sdeval verify FOLDER` call each. Prints medians and the ratios.
Goal (issue 22.10): every ratio at most 2.

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


def swap_attachment(data: bytes, name: str, forged: bytes) -> bytes:
    from pyhanko.pdf_utils import generic
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

    writer = IncrementalPdfFileWriter(io.BytesIO(data))
    names = writer.root["/Names"]["/EmbeddedFiles"]["/Names"]
    for i in range(0, len(names), 2):
        if names[i] == name:
            spec = names[i + 1]
            stream = generic.StreamObject({generic.NameObject("/Type"): generic.NameObject("/EmbeddedFile")}, stream_data=forged)
            ref = writer.add_object(stream)
            spec[generic.NameObject("/EF")] = generic.DictionaryObject({generic.NameObject("/F"): ref, generic.NameObject("/UF"): ref})
            writer.update_container(spec)
            out = io.BytesIO()
            writer.write(out)
            return out.getvalue()
    raise SystemExit(f"no attachment named {name}")


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


def timed(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, cwd=ROOT, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} before")
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
            print(f"verify, {label:<20} median {medians[label]:.2f} s against intact {base:.2f} s: x{medians[label] / base:.2f}")
        for name, tampered in (("intact", data), ("tampered", cases["attachment swapped"])):
            (folder / name).mkdir()
            for i in range(10):
                (folder / name / f"{i}.pdf").write_bytes(tampered)
        walls = {"intact": [], "tampered": []}
        for _ in range(max(1, args.runs // 2)):
            for name in walls:
                walls[name].append(timed([*SDEVAL, "verify", str(folder / name), "--trust", cert]))
        intact_folder, tampered_folder = statistics.median(walls["intact"]), statistics.median(walls["tampered"])
        print(f"verify FOLDER of 10 tampered {tampered_folder:.2f} s against 10 intact {intact_folder:.2f} s: x{tampered_folder / intact_folder:.2f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
