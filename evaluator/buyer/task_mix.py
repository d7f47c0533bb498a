"""The buyer's traffic mix (profile task_mix) set against an offer's per-task speedups (record 1.3
runs[].per_task): the speedup of the buyer's own traffic, weighted by its task shares.

The shares are of output tokens, so the time the mix takes with speculation against without is
sum(w) / sum(w / s): a weighted harmonic mean of the task speedups. Its range is the same mean over
each task's interval ends; each task's interval is 95 %, so the range holds the mix's speedup with at
least 1 - 0.05 x tasks (Bonferroni), which the message states.

A run measured on one task alone (sdeval measure --per-task-windows: its workload names the one task
of its per_task block) is judged together with the other such runs of its configuration at its load,
one per task; any other run is judged on its own per_task block.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..engine.record import Run
from ..engine.wording import num
from ..rules import requirements as fit_rules
from .across_loads import offered_runs
from .evidence import OfferEvidence, gated_cell
from .profile import RequirementsProfile
from .results import Cell, Requirement


@dataclass(frozen=True)
class MixSpeedup:
    run: str
    speedup: float
    low: float
    high: float


def weighted(shares: dict[str, float], speedups: dict[str, float]) -> float:
    """sum(w) / sum(w / s): the speedup of a mix whose output tokens are shared so."""
    return round(sum(shares.values()) / sum(w / speedups[t] for t, w in shares.items()), 9)  # no float noise in a one-task mix


def _one_task(run: Run) -> bool:
    """Whether the run was measured on one task alone: its per_task block holds the task its workload names."""
    tasks = run.per_task.tasks if run.per_task is not None else []
    return len(tasks) == 1 and (run.workload.task or "").strip().lower() == tasks[0].task.strip().lower()


def judged_together(runs: Sequence[Run]) -> list[list[Run]]:
    """The runs a mix is weighted over: each run alone, but the one-task runs of one configuration at
    one load together (one run per task, each measured in its own windows)."""
    sets: dict[object, list[Run]] = {}
    for r in runs:
        sets.setdefault((r.configuration, r.load.concurrency, r.load.request_rate) if _one_task(r) else r.id, []).append(r)
    return list(sets.values())


def mix_speedup(runs: Sequence[Run], mix: dict[str, float]) -> MixSpeedup | None:
    """The speedup over the mix of a run (or of one-task runs judged together), or None when a task
    of the mix has no speedup interval."""
    if all(run.per_task is None for run in runs):
        return None
    wanted = {t.strip().lower(): w for t, w in mix.items()}
    found = {t.task.strip().lower(): t.speedup for run in runs if run.per_task is not None for t in run.per_task.tasks if t.speedup is not None}
    figures = {t: found.get(t) for t in wanted}
    if any(s is None or s.low is None or s.high is None or min(s.median, s.low) <= 0 for s in figures.values()):
        return None
    medians = {t: s.median for t, s in figures.items() if s is not None}
    lows = {t: s.low for t, s in figures.items() if s is not None and s.low is not None}
    highs = {t: s.high for t, s in figures.items() if s is not None and s.high is not None}
    return MixSpeedup(" + ".join(run.id for run in runs), weighted(wanted, medians), weighted(wanted, lows), weighted(wanted, highs))


def mix_text(profile: RequirementsProfile) -> str:
    total = sum(profile.task_mix.values())
    return ", ".join(f"{t} {num(w / total)}" for t, w in profile.task_mix.items())


def _required(profile: RequirementsProfile, concurrency: int | None) -> bool:
    """Whether the buyer runs this load (every load, when the profile names none)."""
    loads = profile.loads
    if not loads.concurrency and not loads.concurrency_bands:
        return True
    return concurrency is not None and (
        concurrency in loads.concurrency or any(b.min_concurrency <= concurrency <= b.max_concurrency for b in loads.concurrency_bands)
    )


def task_mix_cell(profile: RequirementsProfile, req: Requirement, offer: OfferEvidence) -> Cell:
    runs = [r for r in offered_runs(offer.context) if r.arrangement == "speculative" and _required(profile, r.load.concurrency)]
    found = [(group, mix_speedup(group, profile.task_mix)) for group in judged_together(runs)]
    missing = [r.id for group, m in found if m is None for r in group]
    if not runs or missing:
        which = f"run{'s' * (len(missing) > 1)} {', '.join(missing)} give" if missing else "no speculative run at your loads gives"
        return gated_cell(
            req,
            offer,
            "not-established",
            (fit_rules.TASK_MIX_UNCOVERED.code,),
            f"{which} no per-task speedup with an interval for every task of your mix",
        )
    tasks = len(profile.task_mix)
    confidence = f"each task 95 %, together at least {num(max(0.0, 1 - 0.05 * tasks) * 100)} %"
    parts = [f"run {m.run}: {num(m.speedup, 'x')} [{num(m.low)}, {num(m.high)}]" for _, m in found if m is not None]
    message = f"speedup weighted by your mix ({mix_text(profile)}): " + "; ".join(parts) + f" ({confidence})"
    if all(m is not None and m.low > 1 for _, m in found):
        return gated_cell(req, offer, "met", (), message)
    return gated_cell(req, offer, "not-met", (fit_rules.TASK_MIX_NO_SPEEDUP.code,), message + ": the range reaches 1.0 or below")
