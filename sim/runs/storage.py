"""A run on disk: the results directory's layout, its files, and reading them back.

Kept apart from :mod:`sim.runs.runner` (which decides what to play and plays it) so that the
format of a results directory is defined in one place, and so that the analysis can open a run
(:func:`load_results`, :class:`RunResult`) without loading the engine or the parallel machinery.

Layout of a results directory (``results/<name>/`` unless ``out`` is given)::

    manifest.json              spec, resolved rules and seeds per arm, chunk list and status,
                               ginbox version, timings, machine (written atomically)
    arm=<i>/chunk-<c>.parquet  one row per game of chunk c of arm i (c zero-padded to 5 digits)
    .lock                      the run writing the directory, while it runs (see below)

The manifest records each chunk file's sha256 when it is written: a resumed run and a report
verify every chunk by content, so a damaged or replaced file is named (and replayed by
``--resume``) instead of read. ginbox writes only into a new or empty directory or one holding
its own manifest, and deletes only files it can prove it wrote: the chunk files and hand logs
the manifest lists, the report files listed in ``.ginbox-written.json``, and temporaries named
as :func:`sim.io.files.temp_path` names them.

The lock (:func:`lock`) records the holder's pid, host, process identity (boot id and start
time, where the system tells them), since when and a random token. A run finding a lock takes
it over when its holder is gone: a dead pid, or a live pid that is another process. A live
holder on this host is refused, ``--break-lock`` or not. A holder on another host cannot be
checked from here: it is refused unless ``--break-lock`` says that run is gone. A run removes
the lock on exit only while it is still its own, and stops (:class:`LockLost`) rather than
write on when another run has taken it over.

A chunk file is written to a hidden temporary name and renamed into place
(:mod:`sim.io.files`), so a file exists only when complete: after any interruption,
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
import errno
import hashlib
import json
import os
import re
import socket
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sim.engine.game import GAME_COLUMNS
from sim.engine.rules import Rules
from sim.io.files import (
    MARKER,
    TEMP_GLOB,
    atomic_write_bytes,
    atomic_write_text,
    is_temp,
    temp_path,
    written_files,
)
from sim.runs.aggregates import with_aggregates
from sim.runs.experiment import ExperimentSpec, load_experiment

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
_CHUNK_NAME = re.compile(r"chunk-[0-9]{5}\.(parquet|jsonl)")
_HELD: set[Path] = set()  # directories this process holds the lock of


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
    pq.write_table(table, sink, compression=PARQUET_COMPRESSION, write_page_checksum=True)
    return sink.getvalue().to_pybytes()


def sha256(data: bytes) -> str:
    """The checksum the manifest records for a chunk file's bytes."""
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> str:
    """The checksum of a file on disk, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def read_chunk(path: Path, columns: list[str] | None = None) -> pa.Table:
    """A chunk file's table; a damaged file is a one-line ``ValueError`` naming it."""
    try:
        return pq.read_table(path, columns=columns, page_checksum_verification=True)
    except (OSError, pa.ArrowException) as exc:
        raise ValueError(f"cannot read the chunk file {path}: {_one_line(exc)}") from None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]


def chunk_table(spec: ExperimentSpec, chunk: Chunk, rows: np.ndarray) -> pa.Table:
    """The parquet table of one chunk (layout in the module docstring), carrying its sums
    (:mod:`sim.runs.aggregates`) in its metadata."""
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
    return with_aggregates(pa.Table.from_arrays(arrays, schema=SCHEMA), rows)


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
            yield read_chunk(path, columns).to_pandas()

    def verify(self) -> None:
        """Refuse, naming the file, a chunk file that is not the one the manifest lists.

        The row count must match, and the sha256 recorded when the chunk was written (runs
        before checksums were recorded are checked by count only), so a damaged chunk or one
        copied from another run is never counted as this run's games.
        """
        for entry in self.manifest["chunks"]:
            path = self.out / entry["file"]
            if not path.exists():
                continue
            problem = chunk_problem(path, entry)
            if problem:
                raise ValueError(f"{path} does not match the manifest of {self.out}: {problem}; "
                                 "replay it with 'ginbox run FILE --out "
                                 f"{self.out} --resume' (FILE: the run's experiment)")

    def read_games(self, columns: list[str] | None = None) -> pd.DataFrame:
        """All finished games (optionally only some columns), sorted by arm then game."""
        files = self.chunk_files()
        if not files:
            schema = SCHEMA if columns is None else pa.schema([SCHEMA.field(c) for c in columns])
            return schema.empty_table().to_pandas()
        table = pa.concat_tables(read_chunk(f, columns) for f in files)
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
    result.verify()
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


def foreign_files(out: Path) -> list[str]:
    """Entries of ``out`` that no ginbox run can have left before writing its manifest.

    A run writes its lock, then its manifest, and only then chunks; so besides a stale lock
    and ginbox temporaries, anything in a directory without a manifest is someone else's.
    """
    return sorted(p.name for p in out.iterdir() if p.name != LOCK and not is_temp(p))


def check_lock(out: Path, break_lock: bool = False) -> dict[str, Any] | None:
    """Refuse, in one line, to write where another run holds the lock and may be alive;
    return the lock of a holder that is gone (or, with ``break_lock``, on another host),
    which may be taken over, or None when there is no lock (see :func:`lock`)."""
    info = _read_lock(out)
    if info is None:
        return None
    pid, host, since = info.get("pid"), info.get("host"), _since(info)
    if host != socket.gethostname():
        if break_lock:
            return info
        raise ValueError(f"{out} is locked by a run on host {host!r} (pid {pid}{since}), which "
                         "this machine cannot check: if no run is active there (a lost "
                         "machine), take the lock over with --break-lock")
    if pid == os.getpid():  # our own pid: a lock we hold, or one left by an earlier life of
        if out.resolve() in _HELD:  # this pid (ginbox as PID 1 in a restarted container)
            raise ValueError(f"{out} is in use by a run in this process")
        return info
    if not (isinstance(pid, int) and _alive(pid)):
        return info
    recorded, now = info.get("process"), _process_identity(pid)
    if recorded is not None and now is not None and recorded != now:
        return info  # the pid is alive but is another process: the holder is gone
    unsure = ("" if recorded is not None and now is not None else
              f"; this system cannot tell a reused pid: if pid {pid} is no ginbox run, delete "
              f"{out / LOCK}")
    raise ValueError(f"{out} is in use by another ginbox run (pid {pid} on this host{since}): "
                     f"wait for it to finish or stop it; --break-lock takes over only the lock "
                     f"of a run that is gone{unsure}")


def _read_lock(out: Path) -> dict[str, Any] | None:
    """The lock's content; None when there is none, ``{}`` when it cannot be read (damaged:
    a lock is created whole, so it is never seen half-written)."""
    try:
        text = (out / LOCK).read_text()
    except FileNotFoundError:
        return None
    except OSError:
        return {}
    try:
        info = json.loads(text)
    except ValueError:
        return {}
    return info if isinstance(info, dict) else {}


def _since(info: dict[str, Any]) -> str:
    return f", since {info['since']}" if isinstance(info.get("since"), str) else ""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _process_identity(pid: int) -> str | None:
    """Which life of process ``pid`` this is: the kernel's boot id and the process's start
    time (Linux's /proc), so a pid reused by another program is told from the lock's holder;
    None where the system does not say."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError):
        return None
    fields = stat[stat.rfind(")") + 2:].split()  # after the command, which may hold spaces
    return f"{boot}/{fields[19]}" if len(fields) > 19 else None  # field 22: start time


@dataclass
class Lock:
    """A held ``.lock``: its ``token``, and the lock of a gone holder it replaced
    (``replaced``), for the caller to report."""

    out: Path
    token: str
    replaced: dict[str, Any] | None = None

    def held(self) -> bool:
        """True while the lock on disk is still this one (another host's run may take it
        over with ``--break-lock``)."""
        return (_read_lock(self.out) or {}).get("token") == self.token

    def check(self) -> None:
        """Raise ``LockLost`` (one line) when another run has taken the lock over."""
        if not self.held():
            holder = _read_lock(self.out) or {}
            raise LockLost(f"the lock of {self.out} was taken over by another run (pid "
                           f"{holder.get('pid')} on host {holder.get('host')!r}): this run "
                           "stopped without writing more; the chunks it wrote are valid")


class LockLost(ValueError):
    """Another run took over the lock of a directory this run was writing."""


@contextlib.contextmanager
def lock(out: Path, break_lock: bool = False) -> Iterator[Lock]:
    """Hold ``out/.lock`` while running: pid, host, the process's identity (start time),
    since when, and a token. A lock whose holder is gone (a dead pid, or one reused by another
    program) is taken over; a live holder on this host is refused whatever ``break_lock``
    says; a holder on another host, which this machine cannot check, only with
    ``break_lock``. On exit the lock is removed if it is still this one."""
    path = out / LOCK
    token = uuid.uuid4().hex
    text = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                       "process": _process_identity(os.getpid()),
                       "since": datetime.now(UTC).isoformat(timespec="seconds"),
                       "token": token})
    replaced = None
    for _ in range(3):
        try:
            _create(path, text)
        except FileExistsError:
            replaced = check_lock(out, break_lock)
            if _read_lock(out) == replaced:  # still the lock judged gone (not a new one)
                path.unlink(missing_ok=True)
            continue
        break
    else:
        raise ValueError(f"cannot lock {out}: another run keeps taking it")
    held = out.resolve()
    _HELD.add(held)
    try:
        yield Lock(out, token, replaced)
    finally:
        _HELD.discard(held)
        if (_read_lock(out) or {}).get("token") == token:
            path.unlink(missing_ok=True)


def _create(path: Path, text: str) -> None:
    """Create ``path`` holding ``text`` whole, or raise FileExistsError: the text goes to a
    temporary that is hard-linked to ``path`` (atomic), so no reader sees it half-written."""
    tmp = temp_path(path)
    tmp.write_text(text)
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: create exclusively, then write
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        with os.fdopen(fd, "w") as f:
            f.write(text)
    finally:
        tmp.unlink(missing_ok=True)


def wipe(out: Path, manifest: dict[str, Any] | None) -> None:
    """Delete what the run of ``manifest`` and ginbox reports wrote in ``out``, nothing else:
    its manifest, the chunk files and hand logs it lists, the report files of the marker."""
    chunks = (manifest or {}).get("chunks", [])
    for entry in chunks:
        path = out / entry["file"]
        path.unlink(missing_ok=True)
        path.with_suffix(".jsonl").unlink(missing_ok=True)
    for arm_dir in {(out / e["file"]).parent for e in chunks}:
        with contextlib.suppress(OSError):
            arm_dir.rmdir()  # only when empty: a user's files in it stay
    for name in written_files(out):
        (out / name).unlink(missing_ok=True)
    (out / MARKER).unlink(missing_ok=True)
    (out / MANIFEST).unlink(missing_ok=True)


def clean_temporaries(out: Path) -> None:
    """Remove temporaries left by a killed run or report: only files named as ginbox names
    its temporaries (a user's ``.notes.tmp`` stays)."""
    for tmp in out.glob(TEMP_GLOB):
        if is_temp(tmp):
            tmp.unlink(missing_ok=True)
    for tmp in out.glob(f"arm=*/{TEMP_GLOB}"):
        if is_temp(tmp, _CHUNK_NAME):
            tmp.unlink(missing_ok=True)


def chunk_problem(path: Path, entry: dict[str, Any]) -> str | None:
    """Why the file at ``path`` is not the chunk the manifest ``entry`` lists, or None."""
    want = entry.get("sha256")
    if want and file_sha256(path) == want:
        return None
    try:
        rows = pq.read_metadata(path).num_rows
    except (OSError, pa.ArrowException):
        rows = None
    if rows is not None and rows != entry["games"]:
        return f"it holds {rows:,} games where the manifest lists {entry['games']:,}"
    if want:
        return "its sha256 differs from the one recorded when it was written (damaged or replaced)"
    return "it is not a readable parquet file" if rows is None else None


def _chunk_is_sound(path: Path, chunk: Chunk) -> bool:
    """A chunk written after the manifest's last save (no checksum yet): decode every page
    (page checksums) and check its arm and game numbers."""
    try:
        table = pq.read_table(path, columns=["arm", "game"], page_checksum_verification=True)
        pq.read_table(path, page_checksum_verification=True)
    except (OSError, pa.ArrowException):
        return False
    games = np.arange(chunk.first_game, chunk.first_game + chunk.games, dtype=np.int64)
    return (table.num_rows == chunk.games
            and np.array_equal(table.column("game").to_numpy(), games)
            and bool((table.column("arm").to_numpy() == chunk.arm).all()))


def finished_chunks(out: Path, plan: list[Chunk],
                    recorded: dict[tuple[int, int], str | None]) -> dict[Chunk, str]:
    """Chunks whose file on disk is verified, with their sha256 (others are replayed).

    A chunk with a recorded checksum must match it; one without (written after the
    manifest's last save, before a crash) must decode and hold its arm's games.
    """
    done: dict[Chunk, str] = {}
    for chunk in plan:
        path = out / chunk.file
        if not path.is_file():
            continue
        digest = file_sha256(path)
        want = recorded.get((chunk.arm, chunk.index))
        if (digest == want) if want else _chunk_is_sound(path, chunk):
            done[chunk] = digest
        else:
            path.unlink()  # listed by this run's manifest: replayed
    return done


def write_chunk(out: Path, chunk: Chunk, data: bytes) -> None:
    """Store a chunk's parquet bytes (atomically: the file exists only when complete)."""
    atomic_write_bytes(out / chunk.file, data, mkdir=True)


def write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    """Store the manifest (atomically: a reader never sees half of it). On a full disk, which
    has no room for the atomic write's temporary, the manifest is rewritten in place instead,
    compact, within the blocks the old one holds: a run stopped by the full disk still says
    so rather than ``running``."""
    path = out / MANIFEST
    try:
        atomic_write_text(path, json.dumps(manifest, indent=1), mkdir=True)
    except OSError as exc:
        compact = json.dumps(manifest, separators=(",", ":")).encode()
        if exc.errno != errno.ENOSPC or not path.is_file() or \
                len(compact) > path.stat().st_size:
            raise
        with open(path, "r+b") as stream:
            stream.write(compact)
            stream.truncate()


__all__ = ["COLUMNS", "FORMAT", "LOCK", "MANIFEST", "SCHEMA", "Chunk", "Lock", "LockLost",
           "RunResult",
           "chunk_table", "encode_table", "load_results", "read_manifest", "write_chunk",
           "write_manifest"]
