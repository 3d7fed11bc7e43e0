"""Playing a run's chunks on a Dask cluster of separate processes, and what its faults do.

The runner hands a Dask cluster one task per chunk (``client.submit``, not joblib's Dask
backend, so that it sees each fault as it happens) and writes each result as it arrives,
exactly as it does for local workers: the worker encodes and hashes the chunk's parquet bytes,
this process checks the hash, writes the file atomically and notes it in the manifest. So a
cluster needs no shared file system, and a resume verifies every chunk as a local run does.

What each fault does:

* A worker dies (SIGKILL, out of memory, preemption): the scheduler runs its tasks on another
  worker. A task that kills workers over and over (Dask's ``allowed-failures``) stops the run.
  Nothing is written twice: each chunk's result is written once, the first time it arrives.
* Every worker gone for :data:`NO_WORKERS_GRACE_S` seconds, or the scheduler lost: the run
  stops with one line (:class:`ClusterLost`) and the manifest says ``interrupted``; the chunks
  already written are kept and ``--resume`` (against the same or a new scheduler) plays the
  rest. Only with ``if_cluster_lost="local"`` (``--if-cluster-lost local``) does the run go on
  on this machine instead, saying so in one line and in the manifest.
* A worker of another ginbox (another engine source, :data:`sim.SOURCE_STAMP`, which every
  task carries) or one that cannot import a strategy of the run: refused before anything is
  written, in one line naming the worker (:func:`check_workers`); a worker that joins later
  refuses the task itself (:class:`WorkerRefused`), so its results are never mixed in.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError
from typing import Any

import sim
from sim import __version__
from sim.records.schema import HandRecord
from sim.runs.experiment import ExperimentSpec
from sim.runs.storage import Chunk

#: Seconds a run waits for the scheduler to answer (at start and after a lost connection).
SCHEDULER_TIMEOUT_S = 15.0
#: Seconds a cluster may have no worker at all (at start, or all of them lost) before the run
#: stops: long enough for a restarted worker to come back, short enough to be told.
NO_WORKERS_GRACE_S = 60.0
_FETCH_S = 2.0  # a result not fetched by then is asked for again (its worker may be gone)
_POLL_S = 0.5  # how often the run looks at the cluster's health while it waits for results

ChunkResult = tuple[Chunk, bytes, str, float, list[HandRecord], str]


class ClusterLost(RuntimeError):
    """The cluster can no longer play the run (scheduler lost, no workers, a task that kills
    workers, a worker that refuses): one line saying what and where; the chunks already
    written are kept, so the run resumes."""

    def __init__(self, message: str, lost: bool = True, reason: str | None = None) -> None:
        super().__init__(message)
        self.lost = lost  # True: the scheduler or every worker is gone (local fallback applies)
        self.reason = reason or message  # what happened, without what the run kept


class WorkerRefused(RuntimeError):
    """Raised in a worker that must not play a task: another engine, a missing strategy."""


def worker_name() -> str:
    """This Dask worker's address (``tcp://host:port``), or ``"this process"`` outside one."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return "this process"


def worker_problem(stamp: str, strategies: Sequence[str], where: str | None = None,
                   ) -> str | None:
    """Why this process (``where``: its name) must not play for a client whose engine hash
    is ``stamp`` and whose run plays ``strategies`` (None: it may). Runs in every worker,
    before the run and with each task."""
    from strategies.registry import parse_strategy

    where = where or worker_name()
    if sim.SOURCE_STAMP != stamp:
        return (f"worker {where} runs another ginbox (engine source {sim.SOURCE_STAMP}, ginbox "
                f"{__version__}; the client's engine source is {stamp}): install the same "
                "ginbox on every worker")
    for text in dict.fromkeys(strategies):
        try:
            parse_strategy(text)
        except ValueError as exc:
            module = text.partition(":")[0].strip()
            return (f"worker {where} cannot import the strategy module {module!r} ({exc}): "
                    "install it on every worker or put it on their PYTHONPATH")
    return None


def cluster_chunk(stamp: str, play: Callable[..., tuple[Any, ...]], spec: ExperimentSpec,
                  chunk: Chunk, deck_seed: int, strategy_seed: int, log: bool = False,
                  ) -> ChunkResult:
    """One chunk, played on a Dask worker that first checks it runs the client's engine:
    ``play``'s result (:func:`sim.runs.runner.play_chunk_file`) and the worker's address."""
    problem = worker_problem(stamp, [s for arm in spec.arms for s in arm.strategies])
    if problem is not None:
        raise WorkerRefused(problem)
    return (*play(spec, chunk, deck_seed, strategy_seed, log), worker_name())


@contextlib.contextmanager
def dask_client(scheduler: Any, jobs: int) -> Iterator[Any]:
    """A Dask client: the given one, one connected to an address, or a new local cluster."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ValueError("backend='dask' needs the distributed package: pip install "
                         "'ginbox[dask]'") from None
    if isinstance(scheduler, Client):
        yield scheduler
        return
    if scheduler is None:
        with LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                          dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
                Client(cluster) as client:
            yield client
        return
    if isinstance(scheduler, str):
        failure = ""
        try:
            client = Client(scheduler, timeout=f"{SCHEDULER_TIMEOUT_S}s")
        except (OSError, TimeoutError, ValueError) as exc:
            failure = " ".join(str(exc).split()) or type(exc).__name__
        if failure:
            # The half-made Client's finaliser stops its event-loop thread: run it now, not
            # whenever the collector next runs (inside another Dask loop's start, it deadlocks).
            gc.collect()
            raise ValueError(f"cannot connect to the Dask scheduler {scheduler!r}: {failure}"
                             " (expected an address such as tcp://host:8786)")
    elif hasattr(scheduler, "scheduler_address"):
        client = Client(scheduler)
    else:
        raise ValueError(f"scheduler={scheduler!r} is not valid: expected an address such as "
                         "'tcp://host:8786', a distributed.Client or a cluster")
    try:
        yield client
    finally:
        with _quiet_client(), contextlib.suppress(Exception):
            client.close(timeout=5)


def check_workers(client: Any, strategies: Sequence[str]) -> int:
    """Refuse, before anything is written, a cluster with no worker (after waiting
    :data:`NO_WORKERS_GRACE_S`), with a worker of another ginbox, or with one that cannot
    import a strategy of the run (``ValueError``, one line naming the worker); returns the
    number of workers."""
    address = client.scheduler.address
    try:
        client.wait_for_workers(1, timeout=NO_WORKERS_GRACE_S)
    except (TimeoutError, OSError):
        raise ValueError(f"the Dask scheduler {address} has no worker (waited "
                         f"{NO_WORKERS_GRACE_S:g} s): start some with: dask worker {address} "
                         "--nthreads 1") from None
    answers = client.run(_worker_answer, sim.SOURCE_STAMP, list(strategies), on_error="return")
    for worker, answer in sorted(answers.items()):
        if isinstance(answer, BaseException):
            raise ValueError(f"worker {worker} cannot check its ginbox: "
                             f"{type(answer).__name__}: {answer}")
        if answer is not None:
            raise ValueError(answer)
    return len(answers)


def _worker_answer(stamp: str, strategies: list[str], dask_worker: Any = None) -> str | None:
    """:func:`worker_problem` through ``client.run``, which passes the worker itself."""
    return worker_problem(stamp, strategies, getattr(dask_worker, "address", None))


def play_on_cluster(client: Any, play: Callable[..., tuple[Any, ...]], spec: ExperimentSpec,
                    chunks: Sequence[tuple[Chunk, int, int]], log: bool) -> Iterator[ChunkResult]:
    """Each chunk's result as the cluster finishes it (any order): ``play`` (top level, so it
    pickles by reference) plays each of ``chunks``, ``(chunk, deck seed, strategy seed)``.
    Raises :class:`ClusterLost` when the cluster cannot finish (the results already yielded
    stand)."""
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    address = client.scheduler.address
    stamp = time.time_ns()
    futures = {client.submit(cluster_chunk, sim.SOURCE_STAMP, play, spec, chunk, deck, strategy,
                             log, key=f"ginbox-{spec.name}-{chunk.arm}-{chunk.index}-{stamp}",
                             pure=False): chunk
               for chunk, deck, strategy in chunks}
    pending = set(futures)
    arrivals = as_completed(list(futures), loop=client.loop)  # not the default client's loop
    without_workers: float | None = None
    checked = time.monotonic()
    try:
        with _quiet_client():
            while pending:
                done = arrivals.next_batch(block=False)
                for future in done:
                    pending.discard(future)
                    chunk = futures[future]
                    if future.status == "pending":  # lost with its worker: played again
                        pending.add(future)
                        arrivals.add(future)
                        continue
                    if future.status == "cancelled":
                        raise ClusterLost(f"lost the Dask scheduler {address}")
                    if future.status == "error":
                        error = future.exception()
                        if isinstance(error, WorkerRefused):
                            raise ClusterLost(str(error), lost=False)
                        if isinstance(error, KilledWorker):
                            raise ClusterLost(
                                f"arm {chunk.arm} chunk {chunk.index} killed every Dask worker "
                                f"that played it (the last {error.last_worker.address}; out of "
                                "memory?)", lost=False)
                    try:  # a result held by a worker that died since is played again
                        result = future.result(timeout=_FETCH_S)
                    except CancelledError:
                        raise ClusterLost(f"lost the Dask scheduler {address}") from None
                    except (TimeoutError, OSError):  # OSError: the connection closed
                        pending.add(future)
                        arrivals.add(future)
                        continue
                    future.release()
                    yield result
                if client.status != "running":
                    raise ClusterLost(f"lost the Dask scheduler {address}")
                if done or time.monotonic() - checked < _POLL_S:
                    time.sleep(0 if done else 0.02)
                    continue
                checked = time.monotonic()
                workers = _workers(client)
                if workers is None:
                    raise ClusterLost(f"lost the Dask scheduler {address}")
                if workers:
                    without_workers = None
                elif without_workers is None:
                    without_workers = checked
                elif checked - without_workers > NO_WORKERS_GRACE_S:
                    raise ClusterLost(f"the Dask scheduler {address} has had no worker for "
                                      f"{NO_WORKERS_GRACE_S:g} s")
    finally:
        if pending and client.status == "running":
            with contextlib.suppress(Exception):
                client.cancel(list(pending))


def _workers(client: Any) -> int | None:
    """The number of workers the scheduler knows (None: the scheduler does not answer)."""
    try:
        info = client.sync(client.scheduler.identity, n_workers=-1,
                           callback_timeout=SCHEDULER_TIMEOUT_S)
    except Exception:
        return None
    return len(info.get("workers", {}))


@contextlib.contextmanager
def _quiet_client() -> Iterator[None]:
    """Dask's own log lines about a lost scheduler off: the run says what happened, once."""
    loggers = [logging.getLogger(n) for n in ("distributed.client", "distributed.core",
                                              "distributed.comm", "distributed.batched")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


__all__ = ["NO_WORKERS_GRACE_S", "SCHEDULER_TIMEOUT_S", "ClusterLost", "WorkerRefused",
           "check_workers", "cluster_chunk", "dask_client", "play_on_cluster", "worker_problem"]
