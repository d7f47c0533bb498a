"""Work on many archived reports at once: one forked process per core.

Verifying or re-assessing a report is CPU-bound Python (pyHanko, pypdf, the rule catalog), so
threads would queue on the GIL; processes do not. Forked, so each starts at once with what this
process has imported; where forking is unsafe (other threads running), the work stays here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def map_across_cores(function: Callable[..., T], items: Sequence[Any], *, workers: int | None = None) -> list[T]:
    """[function(item) for item in items], in order; `function` must be a module-level function."""
    from ..forking import context, fork_is_safe

    workers = min(workers or os.cpu_count() or 1, len(items))
    if workers < 2 or not fork_is_safe():
        return [function(item) for item in items]
    from concurrent.futures import ProcessPoolExecutor

    # Small chunks keep both cores busy to the end; a few per chunk save round trips.
    chunk = max(1, min(8, len(items) // (workers * 8)))
    with ProcessPoolExecutor(max_workers=workers, mp_context=context()) as pool:
        return list(pool.map(function, items, chunksize=chunk))
