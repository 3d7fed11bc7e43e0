"""A run on disk: the results directory's layout, its files, and reading them back.

Kept apart from :mod:`sim.play.runner` (which decides what to play and plays it) so that the
format of a results directory is defined in one place, and so that the analysis can open a run
(:func:`load_results`, :class:`RunResult`) without loading the engine or the parallel machinery.

Layout of a results directory (``results/<name>/`` unless ``out`` is given)::

    manifest.json              spec, resolved rules and seeds per arm, chunk list and status,
                               ginbox version, timings, machine (written atomically)
    arm=<i>/chunk-<c>.parquet  one row per game of chunk c of arm i (c zero-padded to 5 digits)
    .lock                      pid and host of the run writing the directory, while it runs

A chunk file is written to a hidden temporary name and renamed into place
(:mod:`sim.records.files`), so a file exists only when complete: after any interruption,
``kill -9`` included, a resumed run plays the missing chunks only and the final data equal an
uninterrupted run's. Parquet columns:

================  =========================================================================
column            meaning
================  =========================================================================
``arm``           arm number (int64), the position in the expanded spec
``arm_name``      the arm's name
``game``          game number within the arm (int64); game g of every arm shares its decks
``strategy_<s>``  the strategy text in seat s = 0, 1, 2 (``strategy_2`` null for two players)
the rest          every column of :data:`sim.engine.game.GAME_COLUMNS` (int64), in that order
================  =========================================================================
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sim.engine.game import GAME_COLUMNS
from sim.engine.rules import Rules
from sim.play.experiment import ExperimentSpec, load_experiment
from sim.records.files import TEMP_GLOB, atomic_write_bytes, atomic_write_text

MANIFEST = "manifest.json"
LOCK = ".lock"
FORMAT = 1
#: Columns of every chunk file, in order.
COLUMNS: list[str] = (["arm", "arm_name", "game", "strategy_0", "strategy_1", "strategy_2"]
                      + GAME_COLUMNS)
SCHEMA = pa.schema(
    [("arm", pa.int64()), ("arm_name", pa.string()), ("game", pa.int64())]
    + [(f"strategy_{s}", pa.string()) for s in range(3)]
    + [(c, pa.int64()) for c in GAME_COLUMNS]
)
PARQUET_COMPRESSION = "zstd"  # of every chunk file


@dataclass(frozen=True)
class Chunk:
    """One unit of work: games ``first_game .. first_game + games - 1`` of one arm."""

    arm: int
    index: int
    first_game: int
    games: int

    @property
    def file(self) -> str:
        """Path of the chunk's parquet file relative to the results directory."""
        return f"arm={self.arm}/chunk-{self.index:05d}.parquet"

    @property
    def log_file(self) -> str:
        """Path of the chunk's hand log (runs with ``log``), written before its parquet file."""
        return f"arm={self.arm}/chunk-{self.index:05d}.jsonl"


def encode_table(table: pa.Table) -> bytes:
    """A table as the bytes of a parquet file, as every chunk is stored."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression=PARQUET_COMPRESSION)
    return sink.getvalue().to_pybytes()


def chunk_table(spec: ExperimentSpec, chunk: Chunk, rows: np.ndarray) -> pa.Table:
    """The parquet table of one chunk (layout in the module docstring)."""
    arm = spec.arms[chunk.arm]
    n = rows.shape[0]
    if rows.shape != (chunk.games, len(GAME_COLUMNS)):
        raise RuntimeError(f"chunk {chunk} returned rows of shape {rows.shape}")
    texts = list(arm.strategies) + [None] * (3 - len(arm.strategies))
    columns = np.ascontiguousarray(rows.T)
    arrays = (
        [pa.array(np.full(n, chunk.arm, np.int64)),
         pa.repeat(pa.scalar(arm.name, pa.string()), n),
         pa.array(np.arange(chunk.first_game, chunk.first_game + n, dtype=np.int64))]
        + [pa.repeat(pa.scalar(t, pa.string()), n) for t in texts]
        + [pa.array(col) for col in columns]
    )
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


# ------------------------------------------------------------------------------ results


@dataclass
class RunResult:
    """A run on disk: its directory, manifest, and the games read back on demand.

    ``games`` is read lazily (and cached): running an experiment never needs all games in
    memory, and :meth:`iter_chunks` lets reports aggregate chunk by chunk.
    """

    out: Path
    manifest: dict[str, Any]

    @property
    def spec(self) -> ExperimentSpec:
        """The experiment as run (games and seed after any command-line override)."""
        return load_experiment(self.manifest["spec"])

    @property
    def arm_names(self) -> list[str]:
        """Arm names by arm number."""
        return [a["name"] for a in self.manifest["arms"]]

    def rules(self, arm: int | str) -> Rules:
        """The resolved rules of an arm, by number or name."""
        index = self.arm_names.index(arm) if isinstance(arm, str) else arm
        return Rules.from_dict(self.manifest["arms"][index]["rules"])

    def chunk_files(self) -> list[Path]:
        """Existing chunk files in (arm, chunk) order."""
        files = [self.out / c["file"] for c in self.manifest["chunks"]]
        return [f for f in files if f.exists()]

    @property
    def complete(self) -> bool:
        """True when every chunk of the plan is on disk."""
        return len(self.chunk_files()) == len(self.manifest["chunks"])

    def iter_chunks(self, columns: list[str] | None = None) -> Iterator[pd.DataFrame]:
        """Each finished chunk as a DataFrame, in (arm, game) order: flat-memory aggregation."""
        for path in self.chunk_files():
            yield pq.read_table(path, columns=columns).to_pandas()

    def read_games(self, columns: list[str] | None = None) -> pd.DataFrame:
        """All finished games (optionally only some columns), sorted by arm then game."""
        files = self.chunk_files()
        if not files:
            schema = SCHEMA if columns is None else pa.schema([SCHEMA.field(c) for c in columns])
            return schema.empty_table().to_pandas()
        table = pa.concat_tables(pq.read_table(f, columns=columns) for f in files)
        return table.to_pandas()

    @cached_property
    def games(self) -> pd.DataFrame:
        """One row per game, every column, sorted by arm then game (read once, then cached)."""
        return self.read_games()

    def __repr__(self) -> str:
        m = self.manifest
        return (f"RunResult({str(self.out)!r}, experiment={m['spec']['name']!r}, "
                f"arms={len(m['arms'])}, games_per_arm={m['spec']['games']}, "
                f"status={m['status']!r})")


def load_results(out: str | Path, allow_partial: bool = False) -> RunResult:
    """Open a finished run's directory (``allow_partial`` also opens an interrupted one)."""
    out = Path(out)
    manifest = read_manifest(out)
    if manifest is None:
        raise ValueError(f"{out} is not a ginbox results directory: no readable {MANIFEST}")
    result = RunResult(out, manifest)
    if not allow_partial and not result.complete:
        done, total = len(result.chunk_files()), len(manifest["chunks"])
        raise ValueError(f"the run in {out} is incomplete ({done} of {total} chunks): finish it "
                         f"with 'ginbox run FILE --out {out} --resume' (from Python: "
                         "run_experiment(..., resume=True))")
    return result


# ------------------------------------------------------------------ directory bookkeeping


def read_manifest(out: Path) -> dict[str, Any] | None:
    """The manifest of ``out``, or None when it is missing, unreadable or of another format."""
    try:
        data = json.loads((out / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    return data if all(k in data for k in ("spec", "arms", "chunks", "sessions")) else None


def has_chunks(out: Path) -> bool:
    """True when ``out`` holds any chunk file (whether or not a manifest describes it)."""
    return any(out.glob("arm=*/chunk-*.parquet"))


def check_lock(out: Path) -> None:
    """Refuse to write where another live run is writing."""
    try:
        info = json.loads((out / LOCK).read_text())
    except (OSError, ValueError):
        return
    pid, host = info.get("pid"), info.get("host")
    if host != socket.gethostname():
        raise ValueError(f"{out} is locked by a run on host {host!r} (pid {pid}): if no run is "
                         f"active there, delete {out / LOCK}")
    if isinstance(pid, int) and _alive(pid):
        raise ValueError(f"{out} is in use by another ginbox run (pid {pid}): wait for it to "
                         f"finish or stop it (delete {out / LOCK} if no run is active)")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def lock(out: Path) -> Iterator[None]:
    """Hold ``out/.lock`` (pid and host) while running; a dead holder's lock is stale."""
    path = out / LOCK
    text = json.dumps({"pid": os.getpid(), "host": socket.gethostname()})
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            check_lock(out)
            path.unlink(missing_ok=True)  # stale: its process is gone
            continue
        with os.fdopen(fd, "w") as f:
            f.write(text)
        break
    else:
        raise ValueError(f"cannot lock {out}: another run keeps taking it")
    try:
        yield
    finally:
        path.unlink(missing_ok=True)


def wipe(out: Path) -> None:
    """Delete what runs write (manifest, chunk directories, temporaries), nothing else."""
    (out / MANIFEST).unlink(missing_ok=True)
    for arm_dir in out.glob("arm=*"):
        if arm_dir.is_dir():
            shutil.rmtree(arm_dir)


def clean_temporaries(out: Path) -> None:
    """Remove temporary files left by a killed run (they are never complete results)."""
    for tmp in [*out.glob(TEMP_GLOB), *out.glob(f"arm=*/{TEMP_GLOB}")]:
        tmp.unlink(missing_ok=True)


def finished_chunks(out: Path, plan: list[Chunk]) -> set[Chunk]:
    """Chunks whose file is on disk with the right number of rows (others are replayed)."""
    done = set()
    for chunk in plan:
        path = out / chunk.file
        if not path.exists():
            continue
        try:
            ok = pq.read_metadata(path).num_rows == chunk.games
        except (OSError, pa.ArrowException):
            ok = False
        if ok:
            done.add(chunk)
        else:
            path.unlink()
    return done



def write_chunk(out: Path, chunk: Chunk, data: bytes) -> None:
    """Store a chunk's parquet bytes (atomically: the file exists only when complete)."""
    atomic_write_bytes(out / chunk.file, data, mkdir=True)


def write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    """Store the manifest (atomically: a reader never sees half of it)."""
    atomic_write_text(out / MANIFEST, json.dumps(manifest, indent=1), mkdir=True)


__all__ = ["COLUMNS", "FORMAT", "LOCK", "MANIFEST", "SCHEMA", "Chunk", "RunResult",
           "chunk_table", "encode_table", "load_results", "read_manifest", "write_chunk",
           "write_manifest"]
