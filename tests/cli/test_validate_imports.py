"""`sdeval validate` of a record loads neither the PDF writer (logging, multiprocessing: 25 ms) nor
the buyer's profile models: imports inside the commands that need them keep its start-up short."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_validate_of_a_record_loads_no_writer_and_no_profile_models():
    code = (
        "import sys; from evaluator.cli import main; sys.argv=['sdeval','validate','examples/complete-offer.yaml'];\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('LOADED', [m for m in ('evaluator.report.writer', 'evaluator.buyer.profile', 'multiprocessing') if m in sys.modules])"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert "LOADED []" in result.stdout, result.stdout + result.stderr
