"""A pool of warm worker processes kept across many small runs (the tuner, the league).

Starting a loky worker costs about a second and a half of CPU (a fresh Python importing
numpy, pandas, pyarrow, numba and loading the compiled engine), which a million-game run
hardly notices and a generation of a hundred small evaluations would pay again and again.
joblib already reuses loky's executor between ``Parallel`` calls with the same settings, but
it shrinks and regrows it with the number of chunks of each call and stops idle workers
after five minutes; inside :func:`worker_pool`, every :func:`~sim.runs.runner.run_experiment`
(with ``backend="loky"``) uses the same ``jobs`` workers, started and warmed once on entry
and kept however long the evaluations pause, so the worker pids stay the same throughout.
Results do not depend on the pool: a chunk's games depend only on (seed, arm, games).

    with worker_pool(jobs=4):
        for candidate in candidates:
            run_experiment(spec_for(candidate), out=..., quiet=True)

Kept free of the engine so that entering a pool is cheap in the parent.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from joblib import Parallel, delayed, parallel_config

from sim.runs.workers import die_with_parent, usable_cpus, warm

#: loky's idle timeout outside a pool (joblib's default), and inside one.
IDLE_S = 300
POOL_IDLE_S = 3600


@dataclass(frozen=True)
class WorkerPool:
    """The workers of an active :func:`worker_pool`: their number and idle timeout."""

    jobs: int
    idle_seconds: int

    def pids(self) -> set[int]:
        """The pids of the pool's worker processes (this process's alone when ``jobs`` is 1),
        as loky's executor holds them: asking the workers by tasks would depend on which
        workers the scheduler happened to pick on a busy machine."""
        if self.jobs == 1:
            return {os.getpid()}
        from joblib.externals.loky import reusable_executor  # noqa: PLC0415

        executor = reusable_executor._executor
        return set(getattr(executor, "_processes", None) or ())


_ACTIVE: list[WorkerPool] = []


def active() -> WorkerPool | None:
    """The innermost active pool, or None."""
    return _ACTIVE[-1] if _ACTIVE else None


@contextlib.contextmanager
def loky_config(idle_seconds: int | None = None) -> Iterator[None]:
    """The loky settings every ginbox ``Parallel`` call uses: workers that die with this
    process, and the idle timeout of the active pool. The same settings each time, so joblib
    reuses its executor instead of starting new workers."""
    pool = active()
    idle = idle_seconds or (pool.idle_seconds if pool else IDLE_S)
    with parallel_config(backend="loky", initializer=die_with_parent, initargs=(os.getpid(),),
                         idle_worker_timeout=idle):
        yield


@contextlib.contextmanager
def worker_pool(jobs: int | None = None, idle_seconds: int = POOL_IDLE_S,
                ) -> Iterator[WorkerPool]:
    """Keep ``jobs`` warm loky workers (default: all usable cores) for the runs inside.

    On entry the workers start and load the engine, so the first evaluation does not wait for
    them; ``run_experiment`` calls inside use them all (``jobs`` there defaults to the
    pool's). Start the pool from the main thread: a worker dies with the thread that started
    it (``PR_SET_PDEATHSIG``, :mod:`sim.runs.workers`).
    """
    jobs = usable_cpus() if jobs is None else jobs
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs={jobs!r} is not valid: expected an integer >= 1")
    pool = WorkerPool(jobs, int(idle_seconds))
    _ACTIVE.append(pool)
    try:
        if jobs > 1:
            with loky_config():
                Parallel(n_jobs=jobs)(delayed(warm)() for _ in range(jobs))
        yield pool
    finally:
        _ACTIVE.remove(pool)


def parallel_args(jobs: int, tasks: int) -> dict[str, Any]:
    """``Parallel`` arguments for ``tasks`` chunks: a pool's full size (so loky keeps every
    worker), else no more workers than chunks (one chunk plays in this process)."""
    pool = active()
    n_jobs = jobs if pool is not None and jobs > 1 else min(jobs, tasks)
    return {"n_jobs": n_jobs, "pre_dispatch": "2*n_jobs"}


__all__ = ["IDLE_S", "POOL_IDLE_S", "WorkerPool", "active", "loky_config", "parallel_args",
           "worker_pool"]
