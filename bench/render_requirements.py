"""What `--requirements` adds to `sdeval render` and `sdeval verify` on two offers.

Prints medians over N fresh processes (imports included, as a user pays them), wall clock
and CPU seconds, for:
  render            render examples/complete-offer.yaml examples/quiet-load-offer.yaml (the peer)
  render+req        the same with --requirements examples/requirements.yaml
  verify / verify+req   verify of each report (re-assessing, and re-judging the profile)
and each "+req" figure's ratio to its peer measured in the same run.

Usage: .venv/bin/python bench/render_requirements.py [N]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from render_sign import whole_process  # bench/ is this script's own import path

OFFERS = ["examples/complete-offer.yaml", "examples/quiet-load-offer.yaml"]
PROFILE = ["--requirements", "examples/requirements.yaml"]


def timed(args: list[str], n: int) -> tuple[float, float]:
    """Median wall-clock and CPU (user + system) seconds of n fresh processes."""
    walls, cpus = whole_process(args, n)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print(f"load average before: {os.getloadavg()[0]:.2f}; {n} runs each")
    with tempfile.TemporaryDirectory() as tmp:
        plain, fit = Path(tmp) / "plain.pdf", Path(tmp) / "fit.pdf"
        figures = {
            "render": timed(["render", *OFFERS, "-o", str(plain), "--force"], n),
            "render+req": timed(["render", *OFFERS, *PROFILE, "-o", str(fit), "--force"], n),
            "verify": timed(["verify", str(plain)], n),
            "verify+req": timed(["verify", str(fit)], n),
        }
        pages = {p: subprocess.run(["pdfinfo", str(p)], capture_output=True, text=True).stdout for p in (plain, fit)}
    for name, (wall, cpu) in figures.items():
        peer = figures[name.removesuffix("+req")]
        ratio = f"  x{wall / peer[0]:.2f} wall, x{cpu / peer[1]:.2f} CPU vs {name.removesuffix('+req')}" if name.endswith("+req") else ""
        print(f"{name:<11} median {wall:.2f} s wall, {cpu:.2f} s CPU{ratio}")
    for path, info in pages.items():
        count = next((line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")), "?")
        print(f"{path.name}: {count} pages")


if __name__ == "__main__":
    main()
