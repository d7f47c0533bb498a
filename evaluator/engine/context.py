"""What every rule sees: the validated record, its derived metrics, and lookups by id."""

from __future__ import annotations

from dataclasses import dataclass, field

from .metrics import RunMetrics, record_metrics
from .record import AcceptanceReference, Claim, Configuration, EvidenceRecord, Run

PERFORMANCE_KINDS = ("output-throughput", "speedup", "latency", "capacity", "cost")
ACCEPTANCE_KINDS = ("acceptance-rate", "acceptance-length")


@dataclass
class Context:
    record: EvidenceRecord
    metrics: dict[str, RunMetrics] = field(default_factory=dict)
    # The buyer's view: a buyer may use any run, so the record rules are applied as if a
    # performance claim rested on every one (each needs a complete interval, a duration, ...).
    every_run_timed: bool = False

    def __post_init__(self) -> None:
        if not self.metrics:
            self.metrics = record_metrics(self.record)
        # First occurrence wins; duplicate ids are reported by reference-broken.
        self.run_index: dict[str, int] = {}
        for i, run in enumerate(self.record.runs):
            self.run_index.setdefault(run.id, i)
        self.config_index: dict[str, int] = {}
        for i, cfg in enumerate(self.record.configurations):
            self.config_index.setdefault(cfg.id, i)

    def run(self, run_id: str | None) -> Run | None:
        i = self.run_index.get(run_id) if run_id else None
        return None if i is None else self.record.runs[i]

    def configuration(self, run: Run | None) -> Configuration | None:
        if run is None:
            return None
        i = self.config_index.get(run.configuration)
        return None if i is None else self.record.configurations[i]

    def used_configurations(self) -> list[tuple[int, Configuration]]:
        """Configurations some run uses: one no run uses is not evidence of anything."""
        used = {run.configuration for run in self.record.runs}
        return [(c, cfg) for c, cfg in enumerate(self.record.configurations) if cfg.id in used]

    def claims(self) -> list[tuple[int, Claim]]:
        return list(enumerate(self.record.claims))

    def performance_claims(self) -> list[tuple[int, Claim]]:
        return [(i, c) for i, c in self.claims() if c.kind in PERFORMANCE_KINDS]

    def timed_runs(self) -> list[tuple[int, Run]]:
        """Runs a performance claim rests on (as run or baseline): these need a measured interval.
        A run that only supports acceptance figures needs no clock."""
        if self.every_run_timed:
            return list(enumerate(self.record.runs))
        used = {run_id for _, c in self.performance_claims() for run_id in (c.run, c.baseline, *c.sweep, *c.baseline_sweep)}
        return [(i, run) for i, run in enumerate(self.record.runs) if run.id in used]

    def needs_duration(self, run: Run) -> bool:
        """Whether a claim resting on the run is a figure over its interval (E / T, N / T). A
        latency, a response-time speedup or a stated per-user figure is measured per request: it
        needs the interval's definition, not its length."""
        if self.every_run_timed:
            return True  # a throughput requirement may be judged on any run
        return any(
            run.id in (c.run, c.baseline, *c.sweep, *c.baseline_sweep)
            and not (c.kind == "latency" or c.counted in ("response-time", "per-user-output"))
            for _, c in self.performance_claims()
        )

    def pinning(self, run: Run | None) -> AcceptanceReference | None:
        """The reference the run's acceptance was pinned to (record 1.2), on the run or its configuration."""
        if run is None:
            return None
        cfg = self.configuration(run)
        for forced in (run.simulated_acceptance, cfg.proposer.simulated_acceptance if cfg else None):
            if forced is not None and forced.pinned_to is not None:
                return forced.pinned_to
        return None

    def pinning_judged(self) -> bool:
        """Whether a system claim made at a run's stated pinning may rest on it. A buyer's own traffic
        gets the drafter's real acceptance, never a pinned one, so the buyer's view says no."""
        return not self.every_run_timed

    def effective_k(self, run: Run) -> int | None:
        """K the run drafted with: the fixed K, or the schedule's band for the run's concurrency."""
        cfg = self.configuration(run)
        if cfg is None:
            return None
        proposer = cfg.proposer
        if proposer.k_schedule and run.load.concurrency is not None:
            for band in proposer.k_schedule:
                if band.min_concurrency <= run.load.concurrency <= band.max_concurrency:
                    return band.k
            return None
        return proposer.k


def speculating(ctx: Context, run: Run) -> bool:
    """A speculative run drafts unless its K (fixed or by band) is 0: then it decodes plainly."""
    return run.arrangement == "speculative" and ctx.effective_k(run) != 0
