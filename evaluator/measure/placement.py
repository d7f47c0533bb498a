"""Where `sdeval measure` runs its client: in its own process, in worker processes (--workers,
workers.py) or as actors on a Ray cluster (--ray, ray_workers.py); and how the parts of a
measurement made that way become its one capture (merge.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

from .capture import Capture, MeasureProblem
from .merge import PART, merge
from .workers import WorkerPool, worker_count


def workers_of(given: str | None, ray: str | None, parts: Path, continuing: bool) -> int:
    """How many workers: --workers N (with --ray, auto is the cluster's CPUs, counted once joined);
    a capture continued in parts keeps the number it was measured with."""
    workers = 0 if ray is not None and given == "auto" else worker_count(given or "1")
    if continuing and (parts / "driver").is_dir():
        measured = next((e.get("workers") for e in Capture(parts / "driver").entries() if e.get("kind") == PART), None)
        if given is not None and workers not in (0, measured):
            raise MeasureProblem(f"{parts}: was measured by {measured} workers; continue it with --workers {measured}")
        worker = Capture(parts / "worker-0")
        by_ray = worker.log.is_file() and any(e.get("placement") == "ray" for e in worker.entries() if e.get("kind") == PART)
        if by_ray != (ray is not None):
            raise MeasureProblem(
                f"{parts}: was measured {'on a Ray cluster: continue it with --ray' if by_ray else 'by worker processes: continue it without --ray'}"
            )
        return measured or workers
    if continuing and (workers > 1 or ray is not None):
        raise MeasureProblem(f"{parts}: no workers' captures there; this capture was measured in one process: continue it without --workers or --ray")
    if not continuing and (workers > 1 or ray is not None) and parts.exists():
        raise MeasureProblem(f"{parts}: already there; choose another -o")
    return workers


def merge_parts(parts: Path, workers: int, directory: Path) -> tuple[Capture, list[str]]:
    """The parts merged into RECORD.capture; a continued measurement's earlier merge is replaced
    only once the new one is whole (it is made from the parts, which keep everything)."""
    dirs = [parts / "driver", *(parts / f"worker-{k}" for k in range(workers))]
    if not directory.exists():
        return merge(dirs, directory)
    fresh = directory.with_name(directory.name + ".merging")
    shutil.rmtree(fresh, ignore_errors=True)  # what an interrupted merge left: made from the parts again
    made, findings = merge(dirs, fresh)
    made.unlock()
    old = directory.with_name(directory.name + ".replaced")
    shutil.rmtree(old, ignore_errors=True)
    directory.rename(old)
    fresh.rename(directory)
    shutil.rmtree(old)
    return Capture(directory), findings


class Placement:
    """Where the client runs: in this process (workers 1, no Ray), in worker processes, or as Ray
    actors (workers 0 until the cluster is joined: auto, one per CPU)."""

    def __init__(self, workers: int, ray: str | None, prompts) -> None:
        self.workers, self.ray, self.prompts = workers, ray, prompts

    def join(self) -> None:
        """Joins the Ray cluster (--ray), before anything is measured."""
        if self.ray is None:
            return
        try:
            from . import ray_workers
        except ImportError:
            raise MeasureProblem("--ray needs the ray package: pip install 'sdeval[distributed]'") from None
        ray_workers.connect(self.ray)
        self.workers = self.workers or ray_workers.cluster_cpus()

    def pool(self, parts: Path, session: dict, arm_lines: list[dict], call: dict, arms, settings, resume: bool):
        if self.ray is None:
            return WorkerPool(self.workers, parts, session, arm_lines, call, arms, settings, self.prompts, resume)
        from .ray_workers import RayPool

        return RayPool(self.workers, parts, session, arm_lines, call, arms, settings, self.prompts, resume)

    @property
    def in_parts(self) -> bool:
        return self.workers != 1 or self.ray is not None
