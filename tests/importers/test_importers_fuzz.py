"""Mutation fuzzing of every importer: each sample file of every tool (tests/data/importers, files
built by the tests' support modules, and the public outputs in ../shared/real-outputs when that
folder is present) is changed one way at a time (support/import_mutations.py) and imported through
the command line, in this process. Every mutant must import to runs that fit the record with no
negative, NaN, infinite or boolean figure, or be refused in one line `sdeval: FILE: ...` (exit 2);
never an internal error, and never a raw control character on the terminal.

Deterministic: a fixed seed per sample, MUTANTS_PER_SAMPLE mutants each (about 800 in all with the
public outputs, 30 to 40 s on one core). A failure names the sample, the mutation and what went
wrong; test_importers_hostile.py pins each input this found.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.import_mutations import NOT_A_FIGURE, Seed, mutants, problem

from evaluator.importers import sniff

DATA = Path(__file__).resolve().parents[1] / "data" / "importers"
REAL = Path(__file__).resolve().parents[3] / "shared" / "real-outputs"
MUTANTS_PER_SAMPLE = 16
RNG_SEED = 20261204

# Samples the format guesser does not name (a layout it cannot tell from its first bytes).
FORMAT_OF = {"aiperf-names-2025-06.json": "aiperf"}
# Each BEFORE scrape and its AFTER; both are mutated in turn.
SCRAPE_PAIRS = {"-before.prom": "-after.prom", "-idle.prom": "-loaded.prom"}


def _samples(folder: Path) -> list[Seed]:
    out: list[Seed] = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.suffix not in (".json", ".jsonl", ".yaml", ".prom") or "references" in path.relative_to(folder).parts:
            continue
        fmt = FORMAT_OF.get(path.name) or sniff(path)
        assert fmt is not None, f"{path}: no format for this sample"
        if path.suffix == ".prom":
            later = next((path.with_name(path.name.replace(a, b)) for a, b in SCRAPE_PAIRS.items() if path.name.endswith(a)), None)
            if later is not None:
                out += [Seed(fmt, (path, later), 0), Seed(fmt, (path, later), 1)]
            continue
        out.append(Seed(fmt, (path,)))
    return out


def _built(folder: Path) -> list[Seed]:
    """Samples of the formats no data file holds, as the support modules build them."""
    from support.aiperf_exports import aiperf_013
    from support.guidellm_benchmarks import benchmarks
    from support.mlperf_endpoints import endpoints_summary

    out = []
    for name, fmt, data in (
        ("profile_export_aiperf.json", "aiperf", aiperf_013()),
        ("benchmarks.json", "guidellm", benchmarks()),
        ("result_summary.json", "mlperf-endpoints", endpoints_summary()),
    ):
        path = folder / name
        path.write_text(json.dumps(data, indent=2))
        out.append(Seed(fmt, (path,)))
    return out


SAMPLES = [pytest.param(s, id=f"{s.fmt}:{s.name}") for s in _samples(DATA)]
REAL_SAMPLES = [pytest.param(s, id=f"real:{s.fmt}:{s.name}") for s in _samples(REAL)] if REAL.is_dir() else []


# Formats whose figures a run rests on are refused when present but no figure (common.core),
# never dropped: a mutant that sets a number to no figure (NOT_A_FIGURE) and imports keeps every
# one the sample gave.
CORE_KEPT = {"vllm-bench", "sglang-bench", "sglang-responses", "llmperf"}
CORE = ("emitted_tokens", "verification_steps", "proposed_drafts", "accepted_drafts")


def _core_figures(result) -> list[set[str]] | None:
    if result.exit_code != 0:
        return None
    runs = result.json()["runs"]
    return [{k for k in CORE if k in r.get("counts", {})} | ({"duration_s"} if "duration_s" in r.get("interval", {}) else set()) for r in runs]


def _fuzz(sdeval, seed: Seed, folder: Path) -> list[str]:
    failures = []
    before = _core_figures(sdeval("import", seed.fmt, *seed.files, "--arrangement", "speculative")) if seed.fmt in CORE_KEPT else None
    for mutant in mutants(seed, MUTANTS_PER_SAMPLE, RNG_SEED):
        files = list(seed.files)
        files[seed.mutated] = folder / seed.name  # the same name: messages and run ids read alike
        files[seed.mutated].write_bytes(mutant.data)
        result = sdeval("import", seed.fmt, *files, "--arrangement", "speculative")
        wrong = problem(result, files)
        after = _core_figures(result) if before is not None and mutant.what.endswith(tuple(f" set to {n}" for n in NOT_A_FIGURE)) else None
        if not wrong and after is not None and len(after) == len(before) and any(b - a for b, a in zip(before, after)):
            wrong = f"a figure the sample gave was dropped in silence: {[sorted(b - a) for b, a in zip(before, after)]}"
        if wrong:
            failures.append(f"{seed.name}: {mutant.what}: {wrong}")
    return failures


def _check(sdeval, seed: Seed, tmp_path: Path) -> None:
    # The sample itself is answered rightly (a mutation that changed nothing must be too).
    assert problem(sdeval("import", seed.fmt, *seed.files, "--arrangement", "speculative"), list(seed.files)) is None
    folder = tmp_path / "mutants"
    folder.mkdir()
    failures = _fuzz(sdeval, seed, folder)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("seed", SAMPLES)
def test_mutants_of_each_sample_import_or_are_refused_in_one_line(sdeval, tmp_path, seed):
    _check(sdeval, seed, tmp_path)


@pytest.mark.parametrize("seed", REAL_SAMPLES or [pytest.param(None, marks=pytest.mark.skip(reason=f"{REAL} is absent"))])
def test_mutants_of_each_public_output_import_or_are_refused_in_one_line(sdeval, tmp_path, seed):
    _check(sdeval, seed, tmp_path)


def test_mutants_of_built_samples_import_or_are_refused_in_one_line(sdeval, tmp_path):
    failures = []
    for seed in _built(tmp_path):
        folder = tmp_path / seed.fmt
        folder.mkdir()
        failures += _fuzz(sdeval, seed, folder)
    assert not failures, "\n".join(failures)


def test_the_mutants_are_the_same_every_run():
    seed = Seed("vllm-bench", (DATA / "vllm-bench-result.json",))
    first = [(m.what, m.data) for m in mutants(seed, MUTANTS_PER_SAMPLE, RNG_SEED)]
    assert first == [(m.what, m.data) for m in mutants(seed, MUTANTS_PER_SAMPLE, RNG_SEED)]
    assert len({data for _, data in first}) > MUTANTS_PER_SAMPLE // 2  # and they differ from one another
