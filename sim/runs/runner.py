"""Running experiments: chunks of games in parallel, streamed to parquet, resumable.

:func:`run_experiment` splits every arm of an :class:`~sim.runs.experiment.ExperimentSpec` into
chunks of ``chunk_size`` games (chunk ``c`` of an arm holds games ``c * chunk_size ..``), plays
the chunks in parallel (loky processes through joblib by default, or a Dask cluster, one task
per chunk: :mod:`sim.runs.cluster`) and writes each finished chunk as it arrives, so memory
stays flat however many games are played.

Reproducibility. Every arm plays with ``Seeds.from_seed(seed)``: game ``g`` of every arm
starts from the same shuffled decks and draws its strategies' random choices from the same
stream (common random numbers: arm differences are measured paired). Game ``g``'s streams
derive from the seed and ``g`` only, so a chunk's result depends on nothing but (seed, arm,
its games): results are identical for any number of workers, either backend, any chunk order
and any interruption.

This module is the orchestration: planning chunks, playing them, refusing what would mix
results, the manifest's content. The results directory itself (its layout, the chunk files
and their parquet columns, the manifest file, the lock, reading a run back as a
:class:`RunResult`) is :mod:`sim.runs.storage`, whose public names this module re-exports.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import socket
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Generator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
from joblib import Parallel, delayed

from sim import __version__
from sim.engine.game import GAME_COLUMNS
from sim.engine.rules import Rules
from sim.play.driver import Seeds, iter_games
from sim.records.log import write_log
from sim.records.schema import HandRecord
from sim.runs.cluster import ClusterLost, check_workers, dask_client, play_on_cluster
from sim.runs.experiment import ExperimentSpec, load_experiment
from sim.runs.pool import active, loky_config, parallel_args
from sim.runs.progress import ChunkBoard, Progress, count_played
from sim.runs.storage import (
    COLUMNS,
    FORMAT,
    LOCK,
    MANIFEST,
    SCHEMA,
    Chunk,
    Lock,
    RunResult,
    check_lock,
    chunk_table,
    clean_temporaries,
    encode_table,
    finished_chunks,
    foreign_files,
    has_chunks,
    load_results,
    lock,
    read_chunk,
    read_manifest,
    sha256,
    wipe,
    write_chunk,
    write_manifest,
)
from sim.runs.workers import usable_cpus

BACKENDS: tuple[str, ...] = ("loky", "dask")
#: What a run does when its Dask cluster is lost: stop (resume later), or go on on this machine.
IF_CLUSTER_LOST: tuple[str, ...] = ("stop", "local")
_MANIFEST_EVERY_S = 2.0  # progress writes of the manifest at most this often



def plan_chunks(spec: ExperimentSpec) -> list[Chunk]:
    """Every chunk of the experiment, arm by arm, in game order."""
    size = spec.chunk_size
    return [Chunk(arm, c, c * size, min(size, spec.games - c * size))
            for arm in range(len(spec.arms)) for c in range(spec.chunks_per_arm)]


#: Steps in which a chunk counts its games on the progress board (a game is the same game
#: whatever the batching, so this changes nothing but how often the bar moves).
PROGRESS_STEPS = 20


def play_chunk(rules: Rules, strategies: tuple[str, ...], deck_seed: int, strategy_seed: int,
               rotate: bool, chunk: Chunk, log: bool = False,
               board: tuple[str, int] | None = None,
               ) -> tuple[Chunk, np.ndarray, float, list[HandRecord]]:
    """Play one chunk in a worker: (chunk, ``GAME_COLUMNS`` rows, seconds, hand records).

    Hand records (the hand-log lines) only with ``log``: that plays through the Python driver,
    the same games much more slowly. ``board``: the progress board's file and this chunk's
    counter, where the games played are counted as they go (:class:`ChunkBoard`).
    """
    start = time.perf_counter()
    seeds = Seeds(np.uint64(deck_seed), np.uint64(strategy_seed))
    parts = []
    records: list[HandRecord] = []
    batch = chunk.games if board is None else -(-chunk.games // PROGRESS_STEPS)
    for rows, recs in iter_games(rules, strategies, chunk.games, seeds,
                                 first_game=chunk.first_game, batch=batch,
                                 rotate=rotate, log=log):
        parts.append(rows)
        records.extend(recs)
        count_played(board, sum(len(p) for p in parts))
    rows = np.concatenate(parts) if len(parts) > 1 else parts[0]
    return chunk, rows, time.perf_counter() - start, records


def play_chunk_parquet(spec: ExperimentSpec, chunk: Chunk, deck_seed: int, strategy_seed: int,
                       log: bool = False, board: tuple[str, int] | None = None,
                       ) -> tuple[Chunk, bytes, float, list[HandRecord]]:
    """Play one chunk in a worker and encode it: (chunk, parquet file bytes, seconds, records).

    The worker encodes, so the process writing the files only writes bytes: 0.5 MB a chunk of
    20,000 games crosses between processes instead of 11 MB of rows, and the writer takes
    less of the cores the workers play on. Workers still need no shared file system. Top-level
    so that loky and Dask pickle it by reference; the spec it carries is a few hundred bytes.
    """
    arm = spec.arms[chunk.arm]
    chunk, rows, seconds, records = play_chunk(arm.resolved_rules, arm.strategies, deck_seed,
                                               strategy_seed, arm.rotate, chunk, log, board)
    return chunk, encode_table(chunk_table(spec, chunk, rows)), seconds, records


def play_chunk_file(spec: ExperimentSpec, chunk: Chunk, deck_seed: int, strategy_seed: int,
                    log: bool = False, board: tuple[str, int] | None = None,
                    ) -> tuple[Chunk, bytes, str, float, list[HandRecord]]:
    """:func:`play_chunk_parquet` with the file's sha256 (chunk, bytes, sha256, seconds,
    records): the worker hashes, so the process writing the files does nothing per chunk but
    write them and note them in the manifest."""
    chunk, data, seconds, records = play_chunk_parquet(spec, chunk, deck_seed, strategy_seed, log,
                                                       board)
    return chunk, data, sha256(data), seconds, records


# ------------------------------------------------------------------------------- running


def check_run_options(jobs: int | None, backend: str, scheduler: Any,
                      if_cluster_lost: str = "stop") -> None:
    """Refuse, in one line, parallel options no run could use (shared by the runner, the tuner
    and the league, which check them before they write anything)."""
    if if_cluster_lost not in IF_CLUSTER_LOST:
        raise ValueError(f"if_cluster_lost={if_cluster_lost!r} is not valid: expected one of "
                         + ", ".join(IF_CLUSTER_LOST))
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r} is not valid: expected one of "
                         + ", ".join(BACKENDS))
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ValueError(f"jobs={jobs!r} is not valid: expected an integer >= 1 (default: all "
                         "cores)")
    if scheduler is not None and backend != "dask":
        raise ValueError("scheduler is only used with backend='dask' (--backend dask)")


def run_experiment(spec_or_path: ExperimentSpec | str | Path | dict[str, Any], *,
                   games: int | None = None, seed: int | None = None, jobs: int | None = None,
                   backend: str = "loky", scheduler: Any = None, out: str | Path | None = None,
                   resume: bool = False, force: bool = False, quiet: bool = False,
                   log: bool = False, break_lock: bool = False,
                   if_cluster_lost: str = "stop") -> RunResult:
    """Run an experiment (a spec, a TOML path or a dict) and return its results.

    ``games`` and ``seed`` override the spec's. ``jobs``: worker processes (default: all usable
    cores; 1 plays in this process). ``backend``: ``"loky"`` or ``"dask"``; with Dask,
    ``scheduler`` is an address (``"tcp://host:8786"``), a ``distributed.Client`` or a cluster
    object (its workers decide the parallelism and need ginbox installed), and without one a
    local cluster of ``jobs`` single-threaded worker processes is started (Dask spawns them, so
    a script calling this must guard its entry point with ``if __name__ == "__main__":``; the
    ``ginbox`` command does). Workers send each chunk back as the bytes of its parquet file and
    this process writes the files, so a remote cluster needs no shared file system. ``out``: the
    results directory (default ``results/<name>``). A directory that already holds results is
    refused unless ``resume`` (finish the missing chunks of the same experiment) or ``force``
    (delete the old results and rerun); a directory that is neither empty nor a ginbox run is
    refused, so a user's files are never overwritten. ``break_lock`` takes over the lock of a
    run on another host that is gone (this machine cannot check it); a gone holder on this
    host is taken over anyway, a live one never (:func:`sim.runs.storage.lock`). A session
    killed outright is closed by the resume (``interrupted``). ``quiet`` hides the
    progress (a bar on a terminal's stderr, else a plain line every half minute).
    ``log`` also writes the full hand log of every chunk, ``arm=<i>/chunk-<c>.jsonl`` (the
    format of ``ginbox play --log``), playing through the Python driver: the same games, far
    slower, so meant for small runs. A run and its resumption must agree on ``log``.

    On a Dask cluster (:mod:`sim.runs.cluster`), a lost worker costs only its chunk, which
    another worker plays; a lost scheduler, or no worker left, raises
    :class:`~sim.runs.cluster.ClusterLost` (one line) with the manifest marked interrupted, so
    ``resume`` finishes the run later, unless ``if_cluster_lost="local"``: then the remaining
    chunks are played on this machine (``jobs`` processes), said on stderr and in the manifest.

    Bad input raises ``ValueError`` with one line, before anything is written (Dask set-up
    included: the cluster is reached, and its workers checked for this ginbox and the run's
    strategies, before the results directory is created).
    """
    spec = load_experiment(spec_or_path)
    if games is not None:
        spec = spec.replace(games=games)
    if seed is not None:
        spec = spec.replace(seed=seed)
    check_run_options(jobs, backend, scheduler, if_cluster_lost)
    if resume and force:
        raise ValueError("resume and force exclude each other: resume finishes a run, force "
                         "deletes it and starts over")
    out = Path(out) if out is not None else Path("results") / spec.name
    plan = plan_chunks(spec)
    old = _check_directory(out, spec, resume, force, break_lock)
    if resume and old is not None and bool(old.get("hand_logs", False)) != log:
        raise ValueError(f"cannot resume {out}: it was run with hand logs "
                         f"{'on' if old.get('hand_logs') else 'off'}; resume it the same way")
    pool = active() if backend == "loky" else None
    jobs = jobs or (pool.jobs if pool else usable_cpus())
    with contextlib.ExitStack() as stack:
        client = (stack.enter_context(dask_client(scheduler, jobs)) if backend == "dask"
                  else None)
        if client is not None:
            check_workers(client, [s for arm in spec.arms for s in arm.strategies])
        out.mkdir(parents=True, exist_ok=True)
        with lock(out, break_lock) as held:
            if force:
                wipe(out, old)
            clean_temporaries(out)
            recorded = {} if force or old is None else {
                (c["arm"], c["chunk"]): c.get("sha256") for c in old.get("chunks", [])}
            done = finished_chunks(out, plan, recorded)
            if done:
                _check_engine_reproduces(out, spec, set(done), old)
            manifest = _new_manifest(spec, plan, old if resume else None)
            manifest["hand_logs"] = log
            # an existing Dask cluster's workers decide the parallelism, not jobs
            used = None if backend == "dask" and scheduler is not None else jobs
            runner = _Session(out, spec, plan, manifest, done, jobs=used, backend=backend,
                              quiet=quiet, log=log)
            runner.lock = held
            runner.run(client, if_cluster_lost, jobs)
    return RunResult(out, manifest)


class _Session:
    """One invocation of the runner over a directory: plays the pending chunks."""

    def __init__(self, out: Path, spec: ExperimentSpec, plan: list[Chunk],
                 manifest: dict[str, Any], done: dict[Chunk, str], *, jobs: int | None,
                 backend: str, quiet: bool, log: bool = False) -> None:
        self.out, self.spec, self.plan, self.manifest = out, spec, plan, manifest
        self.log = log
        self.done, self.jobs, self.backend, self.quiet = done, jobs, backend, quiet
        self.entries = {(c["arm"], c["chunk"]): c for c in manifest["chunks"]}
        for chunk in plan:
            entry = self.entries[(chunk.arm, chunk.index)]
            entry["status"] = "done" if chunk in done else "pending"
            entry["sha256"] = done.get(chunk)
        self.last_save = 0.0
        self.under_way: Callable[[], int] = lambda: 0  # games of the chunks being played
        self.lock: Lock | None = None  # the directory's lock, checked before every write
        self.session: dict[str, Any] = {}

    def run(self, client: Any, if_cluster_lost: str = "stop", local_jobs: int = 1) -> None:
        pending = [c for c in self.plan if c not in self.done]
        session: dict[str, Any] = {"started": _now(), "finished": None, "status": "running",
                   "backend": self.backend, "jobs": self.jobs, "chunks": len(pending),
                   "games": sum(c.games for c in pending), "wall_seconds": None,
                   "games_per_s": None}
        if client is not None:  # Dask: the cluster's workers, of which there are
            session["workers"] = len(client.scheduler_info().get("workers", {}))
        self._note_lock_taken_over(session)
        self.session = session
        self.manifest["sessions"].append(session)
        self.manifest["status"] = "running"
        self.save()
        start = time.perf_counter()
        self.bar = Progress(self.spec.name, self.spec.total_games,
                            sum(c.games for c in self.done), self.quiet)
        status = "failed"
        try:
            if client is None:
                self._play_here(pending)
            else:
                self._on_cluster(client, pending, session, if_cluster_lost, local_jobs)
            status = "complete"
        except ClusterLost as exc:
            status = "interrupted"
            session["stopped"] = str(exc)
            raise
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        finally:
            self.bar.close()
            wall = time.perf_counter() - start
            session.update(finished=_now(), status=status, wall_seconds=round(wall, 3),
                           games_per_s=round(session["games"] / wall, 1)
                           if status == "complete" and wall > 0 else None)
            self.manifest["status"] = ("complete" if len(self.done) == len(self.plan)
                                       else status)
            timings = self.manifest["timings"]
            timings["wall_seconds"] = round(sum(s["wall_seconds"] or 0.0
                                                for s in self.manifest["sessions"]), 3)
            timings["chunk_seconds"] = round(sum(c.get("seconds") or 0.0
                                                 for c in self.manifest["chunks"]), 3)
            if self.manifest["status"] == "complete":
                timings["finished"] = session["finished"]
            self.save()

    def _on_cluster(self, client: Any, pending: list[Chunk], session: dict[str, Any],
                    if_cluster_lost: str, local_jobs: int) -> None:
        """Play on the Dask cluster; when it is lost, stop, or (asked for) finish here."""
        try:
            chunks = [(c, *self._seeds(c.arm)) for c in pending]
            self._write_all(play_on_cluster(client, play_chunk_file, self.spec, chunks,
                                            self.log))
        except ClusterLost as exc:
            rest = [c for c in pending if c not in self.done]
            if not exc.lost or if_cluster_lost != "local":
                raise ClusterLost(f"{exc}: the run stopped with {len(self.done)} of "
                                  f"{len(self.plan)} chunks written; resume it to finish",
                                  exc.lost, str(exc)) from None
            session["fallback"] = {"reason": str(exc), "chunks": len(rest), "jobs": local_jobs}
            print(f"ginbox: warning: {exc}: playing the remaining {len(rest)} chunks on this "
                  f"machine ({local_jobs} processes), as --if-cluster-lost local asks",
                  file=sys.stderr)
            self.save()
            self._play_here(rest, local_jobs)

    def _play_here(self, chunks: list[Chunk], jobs: int | None = None) -> None:
        """Play ``chunks`` on this machine (loky workers, or this process for one job); the
        bar, when shown, counts their games as they are played (:class:`ChunkBoard`)."""
        jobs, slot = jobs or self.jobs or 1, {chunk: i for i, chunk in enumerate(self.plan)}
        with tempfile.TemporaryDirectory(prefix="ginbox-progress-") as folder:
            board = ChunkBoard(Path(folder) / "board", len(self.plan))
            def pending() -> list[int]:
                return [slot[c] for c in chunks if c not in self.done]
            watching = not self.bar.quiet
            self.under_way = (lambda: board.played(pending())) if watching else (lambda: 0)
            stop = board.watch(self.bar, pending) if watching else (lambda: None)
            results = _parallel(self._tasks(chunks, str(board.path) if watching else None,
                                            slot), jobs)
            try:
                self._write_all(results)
            finally:  # closed here, on an error too: the rest is cancelled before it is told
                results.close()
                stop()
                self.under_way = lambda: 0

    def _tasks(self, chunks: list[Chunk], board: str | None = None,
               slot: dict[Chunk, int] | None = None) -> list[Any]:
        return [delayed(play_chunk_file)(self.spec, chunk, *self._seeds(chunk.arm), self.log,
                                         None if board is None or slot is None
                                         else (board, slot[chunk]))
                for chunk in chunks]

    def _write_all(self, results: Iterator[tuple[Any, ...]]) -> None:
        """Write each chunk as it arrives, once, after checking its bytes against the hash
        the worker computed (a cluster's result crossed a network)."""
        for chunk, data, digest, seconds, records, *where in results:
            if chunk in self.done:
                continue  # a chunk played twice (a worker lost after it finished) is kept once
            if sha256(data) != digest:
                raise RuntimeError(f"arm {chunk.arm} chunk {chunk.index} arrived damaged from "
                                   f"{where[0] if where else 'a worker'} (its sha256 differs "
                                   "from the worker's); resume the run to play it again")
            if self.lock is not None:
                self.lock.check()
            if self.log:  # before the parquet file, whose presence marks the chunk done
                (self.out / chunk.log_file).parent.mkdir(parents=True, exist_ok=True)
                write_log(self.out / chunk.log_file, records)
            write_chunk(self.out, chunk, data)
            entry = self.entries[(chunk.arm, chunk.index)]
            entry.update(status="done", seconds=round(seconds, 4), sha256=digest)
            if where:
                entry["worker"] = where[0]
            self.done[chunk] = digest
            self.bar.update(chunk.games, self.under_way())
            if time.perf_counter() - self.last_save > _MANIFEST_EVERY_S:
                self.save()

    def _seeds(self, arm: int) -> tuple[int, int]:
        seeds = self.manifest["arms"][arm]["seeds"]
        return seeds["deck"], seeds["strategy"]

    def _note_lock_taken_over(self, session: dict[str, Any]) -> None:
        """Say on stderr and in the session whose lock on another host ``--break-lock`` took
        over (a gone holder on this host is taken over without a word)."""
        gone = self.lock.replaced if self.lock is not None else None
        if gone and gone.get("host") != socket.gethostname():
            session["lock_taken_over"] = {k: gone.get(k) for k in ("host", "pid", "since")}
            print(f"ginbox: warning: took over the lock of the run on host {gone.get('host')!r} "
                  f"(pid {gone.get('pid')}), as --break-lock asks", file=sys.stderr)

    def save(self) -> None:
        """Write the manifest, unless another run has taken the lock over (then LockLost)."""
        if self.lock is not None:
            self.lock.check()
        self.session["last_saved"] = _now()
        write_manifest(self.out, self.manifest)
        self.last_save = time.perf_counter()


def _parallel(tasks: list[Any], jobs: int,
              ) -> Generator[tuple[Chunk, bytes, str, float, list[HandRecord]], None, None]:
    """Results as local workers finish them (any order): the caller writes each one at once.

    Loky processes that exit when this process dies (even by ``kill -9``), so no orphan keeps
    playing or holds this command's output open; inside a :func:`sim.runs.pool.worker_pool`,
    its warm workers. (A Dask cluster plays through :func:`sim.runs.cluster.play_on_cluster`.)
    """
    if not tasks:
        return
    with loky_config():
        results = Parallel(return_as="generator_unordered",
                           **parallel_args(jobs, len(tasks)))(tasks)
        try:  # a loop, not ``yield from``, which would pass a close on to joblib
            for result in results:  # noqa: UP028
                yield result
        finally:  # stopped early (an error, Ctrl-C): cancel the rest now, without joblib's
            with warnings.catch_warnings():  # warning that it did, printed after the error
                warnings.filterwarnings("ignore", "[0-9]+ tasks (have been|which were)",
                                        UserWarning)
                results.close()


# ------------------------------------------------------------------ directory bookkeeping


def _check_directory(out: Path, spec: ExperimentSpec, resume: bool, force: bool,
                     break_lock: bool = False) -> dict[str, Any] | None:
    """Refuse what would mix results or touch files ginbox did not write, before writing
    anything; returns the old manifest."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"out={str(out)!r} is a file: expected a directory for the results")
    if not out.exists():
        if resume:
            raise ValueError(f"cannot resume {out}: there is no such directory (to start the "
                             "run, leave out resume, --resume)")
        return None
    check_lock(out, break_lock)
    old = read_manifest(out)
    if old is None:
        foreign = foreign_files(out)
        if not foreign:
            return None  # empty, or a run killed before it wrote its manifest
        if (out / MANIFEST).exists() or has_chunks(out):
            raise ValueError(f"{out} holds chunk files or a {MANIFEST} that ginbox cannot read "
                             "(missing, damaged or of another version), so it cannot tell "
                             "which files it wrote and will not touch them: move them away "
                             "or choose another --out")
        shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
        raise ValueError(f"{out} is not empty ({shown}) and holds no ginbox run: ginbox writes "
                         "only into a new or empty folder or one of its own runs, so it never "
                         "overwrites your files; choose another --out")
    if force:
        return old
    if not resume:
        what = "a run"
        if old is not None:
            plan_size = len(old.get("chunks", []))
            done = sum((out / c["file"]).exists() for c in old.get("chunks", []))
            what = f"a run of {old['spec']['name']!r} ({done} of {plan_size} chunks done)"
        raise ValueError(f"{out} already holds {what}: use resume (--resume) to finish it or "
                         "force (--force) to delete it and start over")
    differences = _spec_differences(old["spec"], _jsonable(spec.to_dict()))
    if differences:
        raise ValueError(f"cannot resume {out}: it holds a different experiment ("
                         + "; ".join(differences) + "); use force (--force) to start over or "
                         "another --out")
    return old


def _spec_differences(old: dict[str, Any], new: dict[str, Any], shown: int = 3) -> list[str]:
    """What differs between two specs in ways that change results (not the description),
    field by field (``arms[1].rules: 'three-handed-20' there, 'three-handed' now``)."""
    out = []
    for key in sorted((set(old) | set(new)) - {"description"}):
        if old.get(key) == new.get(key):
            continue
        if key != "arms":
            out.append(f"{key}: {old.get(key)!r} there, {new.get(key)!r} now")
            continue
        then, now = old.get("arms") or [], new.get("arms") or []
        if len(then) != len(now):
            out.append(f"arms: {len(then)} there, {len(now)} now")
        for i, (a, b) in enumerate(zip(then, now, strict=False)):
            for field in sorted(set(a) | set(b)):
                if a.get(field) != b.get(field):
                    out.append(f"arms[{i}].{field}: {a.get(field)!r} there, "
                               f"{b.get(field)!r} now")
    if len(out) > shown:
        out = [*out[:shown], f"{len(out) - shown} more"]
    return out




def check_stored_games(out: str | Path) -> None:
    """Refuse a run folder (finished or not) whose stored games this engine and these
    strategies no longer play: the check a resume makes, for callers that reuse finished runs
    without resuming them (a league's finished rounds, whose tables are not played again)."""
    out = Path(out)
    manifest = read_manifest(out)
    if manifest is None:
        return
    spec = load_experiment(manifest["spec"])
    recorded = {(c["arm"], c["chunk"]): c.get("sha256") for c in manifest.get("chunks", [])}
    done = finished_chunks(out, plan_chunks(spec), recorded)
    if done:
        _check_engine_reproduces(out, spec, set(done), manifest)


def _check_engine_reproduces(out: Path, spec: ExperimentSpec, done: set[Chunk],
                             old: dict[str, Any] | None, games: int = 3) -> None:
    """Replay the first games of one finished chunk per arm: refuse to mix engine versions.

    A resume must produce what an uninterrupted run would have; if the engine changed since
    the stored chunks were written (an upgrade, a local edit), the old and new chunks would
    disagree, so the run is refused rather than silently mixed.
    """
    for arm_index, arm in enumerate(spec.arms):
        finished = sorted((c for c in done if c.arm == arm_index), key=lambda c: c.index)
        if not finished:
            continue
        first = finished[0]
        sample = Chunk(arm_index, first.index, first.first_game, min(games, first.games))
        seeds = Seeds.from_seed(spec.seed)
        _, rows, _, _ = play_chunk(arm.resolved_rules, arm.strategies, int(seeds.deck),
                                int(seeds.strategy), arm.rotate, sample)
        stored = read_chunk(out / first.file, GAME_COLUMNS).slice(0, sample.games)
        if not np.array_equal(np.column_stack([c.to_numpy() for c in stored.columns]), rows):
            then = (old or {}).get("ginbox_version", "unknown")
            raise ValueError(
                f"cannot resume {out}: this engine does not reproduce its stored games (arm "
                f"{arm_index}, game {first.first_game}; written by ginbox {then}, this is "
                f"{__version__}); use force (--force) to start over"
            )



def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _machine() -> dict[str, Any]:
    """Where the run ran: enough to interpret timings, without personal data."""
    import joblib
    import numba

    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "cpu_count": os.cpu_count(),
        "usable_cpus": usable_cpus(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "pandas": pd.__version__,
        "pyarrow": pa.__version__,
        "joblib": joblib.__version__,
    }


def _new_manifest(spec: ExperimentSpec, plan: list[Chunk],
                  old: dict[str, Any] | None) -> dict[str, Any]:
    """The manifest of this run; a resumed run keeps the old sessions and chunk timings."""
    arms = []
    for i, arm in enumerate(spec.arms):
        seeds = Seeds.from_seed(spec.seed)
        arms.append({
            "index": i,
            "name": arm.name,
            "strategies": list(arm.strategies),
            "seating": arm.to_dict()["seating"],
            "rules": arm.resolved_rules.to_dict(),
            "seeds": {"deck": int(seeds.deck), "strategy": int(seeds.strategy)},
        })
    old_chunks = {(c["arm"], c["chunk"]): c for c in (old or {}).get("chunks", [])}
    chunks = []
    for c in plan:
        entry = {"arm": c.arm, "chunk": c.index, "first_game": c.first_game, "games": c.games,
                 "file": c.file, "status": "pending", "seconds": None}
        previous = old_chunks.get((c.arm, c.index))
        if previous is not None:
            entry["seconds"] = previous.get("seconds")
        chunks.append(entry)
    return {
        "format": FORMAT,
        "ginbox_version": __version__,
        "spec": _jsonable(spec.to_dict()),
        "seed": spec.seed,
        "seed_derivation": "every arm plays Seeds.from_seed(seed): decks and strategy "
                           "choices from the seed alone (shared by arms); game g's streams "
                           "derive from those and g",
        "games_per_arm": spec.games,
        "chunk_size": spec.chunk_size,
        "total_games": spec.total_games,
        "columns": COLUMNS,
        "arms": arms,
        "chunks": chunks,
        "status": "running",
        "timings": {
            "created": (old or {}).get("timings", {}).get("created", _now()),
            "finished": None,
            "wall_seconds": None,
            "chunk_seconds": None,
        },
        "sessions": _closed_sessions((old or {}).get("sessions", [])),
        "machine": _machine(),
    }


def _closed_sessions(sessions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The earlier sessions of a run being resumed. One still "running" was killed (``kill
    -9``, a lost machine: the lock says its holder is gone, or it would not be resumed): it is
    marked interrupted, ended at its last manifest save, whose time also gives its wall time
    (a lower bound: it may have played on a little after)."""
    closed = []
    for old in sessions:
        session = dict(old)
        if session.get("status") == "running":
            last = session.get("last_saved")
            session.update(status="interrupted", finished=last,
                           stopped="ended without recording its end (killed); closed by "
                                   "the next session")
            if last and session.get("started"):
                seconds = (datetime.fromisoformat(last)
                           - datetime.fromisoformat(session["started"])).total_seconds()
                session["wall_seconds"] = round(max(seconds, 0.0), 3)
        closed.append(session)
    return closed


__all__ = ["BACKENDS", "COLUMNS", "FORMAT", "LOCK", "MANIFEST", "SCHEMA", "Chunk", "RunResult",
           "chunk_table", "encode_table", "load_results", "plan_chunks", "play_chunk",
           "play_chunk_file", "play_chunk_parquet", "run_experiment"]
