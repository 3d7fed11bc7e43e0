"""Atomic file writes: a reader sees the old file or the new one, never half of one.

The runner (chunk files, the manifest), the report (its CSVs, markdown and plots, renamed into
place together), the plots, tunes, leagues and the strategies' cached tables all need the same
thing, so it is written once, here, in the lowest layer that every other may use: render to
a hidden temporary beside the target (same directory, so the rename stays on one file system),
flush it to disk, then :func:`os.replace` it over the target. On any error, interruption
included, the temporaries are removed and the targets are left as they were.

Temporaries are named ``.<name>.ginbox-<pid>.<8 hex digits>.tmp`` (:func:`is_temp` recognises
exactly that form), so a process killed mid-write leaves only files that can be recognised and
deleted, and a user's own ``.notes.tmp`` is never mistaken for one.

A directory ginbox writes reports into also gets :data:`MARKER`, the list of the files the last
report wrote there: ginbox overwrites or deletes a file only when it can prove it wrote it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

#: Matches the temporaries :func:`temp_path` names (and nothing a run or report keeps); a
#: glob is looser than the naming, so check each match with :func:`is_temp` before deleting.
TEMP_GLOB = ".*.tmp"
_TEMP_RE = re.compile(r"\.(?P<target>.+)\.ginbox-(?P<pid>[0-9]+)\.[0-9a-f]{8}\.tmp")
#: The list of files ginbox wrote into a directory (report files), as JSON.
MARKER = ".ginbox-written.json"


def temp_path(path: Path) -> Path:
    """A fresh hidden temporary name beside ``path``: ``.<name>.ginbox-<pid>.<8 hex>.tmp``,
    so that ginbox can tell its own temporaries, and whose process left them, from any file."""
    return path.with_name(f".{path.name}.ginbox-{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")


def is_temp(path: str | Path, targets: re.Pattern[str] | None = None) -> bool:
    """True when ``path`` is named as :func:`temp_path` names temporaries (of a target whose
    name matches ``targets``, when given): the only temporaries ginbox may delete."""
    match = _TEMP_RE.fullmatch(Path(path).name)
    return match is not None and (targets is None or bool(targets.fullmatch(match["target"])))


def _pid_alive(pid: int) -> bool:
    """Whether a process with this id runs on this machine (unknown counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it runs, as another user
        return True
    return True


def clean_stale_temps(path: str | os.PathLike[str]) -> list[Path]:
    """Delete the temporaries of ``path`` that ginbox processes no longer running left behind
    (killed mid-write, kill -9 included); return what was deleted. A temporary of a running
    process, or any file :func:`temp_path` did not name, is left alone."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    removed: list[Path] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMP_RE.fullmatch(entry.name)
        if (match and match["target"] == target.name and entry.is_file(follow_symlinks=False)
                and not _pid_alive(int(match["pid"]))):
            Path(entry.path).unlink(missing_ok=True)
            removed.append(Path(entry.path))
    return removed


def written_files(directory: Path) -> list[str]:
    """Names of the files ginbox recorded in ``directory``'s :data:`MARKER` (none if absent)."""
    try:
        data = json.loads((directory / MARKER).read_text())
    except (OSError, ValueError):
        return []
    files = data.get("files") if isinstance(data, dict) else None
    return [f for f in files if isinstance(f, str) and "/" not in f and f not in ("", ".", "..")
            ] if isinstance(files, list) else []


def fsync_path(path: Path) -> None:
    """Flush a written file, or a directory after a rename, to disk (best effort: not every
    file system or platform allows it)."""
    try:
        fd = os.open(path if str(path) else ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_paths(paths: Sequence[str | Path], mkdir: bool = False) -> Iterator[list[Path]]:
    """Temporaries for ``paths``, renamed onto them together when the block ends cleanly.

    The caller writes each temporary (any writer that takes a path: ``DataFrame.to_csv``,
    ``Figure.savefig``, ...); only when all are written are they flushed and renamed into
    place, so either every target is new or, on error, none has changed. ``mkdir`` creates
    missing parent directories first.
    """
    targets = [Path(p) for p in paths]
    if mkdir:
        for target in targets:
            target.parent.mkdir(parents=True, exist_ok=True)
    temps = [temp_path(t) for t in targets]
    try:
        yield temps
        for tmp in temps:
            fsync_path(tmp)
        for tmp, target in zip(temps, targets, strict=True):
            os.replace(tmp, target)
    finally:
        for tmp in temps:
            tmp.unlink(missing_ok=True)


def atomic_write(path: str | Path, write: Callable[[Path], object], mkdir: bool = False) -> Path:
    """Write ``path`` atomically: ``write(tmp)`` renders the file, which then replaces it.
    An OSError names ``path`` (a failed ``write`` names no file, and the temporary's name
    would mean nothing to the user: "No space left on device" alone does not say where)."""
    try:
        with atomic_paths([path], mkdir=mkdir) as (tmp,):
            write(tmp)
    except OSError as exc:
        if exc.filename is not None and not is_temp(exc.filename):
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
    return Path(path)


def atomic_write_bytes(path: str | Path, data: bytes, mkdir: bool = False) -> Path:
    """Replace ``path`` with ``data`` atomically."""
    return atomic_write(path, lambda tmp: tmp.write_bytes(data), mkdir=mkdir)


def atomic_write_text(path: str | Path, text: str, encoding: str | None = None,
                      mkdir: bool = False) -> Path:
    """Replace ``path`` with ``text`` atomically (``encoding`` as for :meth:`Path.write_text`)."""
    return atomic_write(path, lambda tmp: tmp.write_text(text, encoding=encoding), mkdir=mkdir)


#: How every ``.npz`` archive starts (a zip file's local header, or an empty zip's end record).
_NPZ_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def read_npz(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Every array of a numpy ``.npz`` archive, read whole and never unpickled; a one-line
    ValueError saying what is wrong (not numpy's advice to load the file unsafely) for a file
    that is not one, is truncated or damaged, or holds Python objects. OSError (a missing or
    unreadable file) is the caller's to name."""
    import zipfile
    import zlib

    import numpy as np

    with open(path, "rb") as stream:
        head = stream.read(4)
    if head not in _NPZ_MAGIC:
        raise ValueError("not a numpy .npz archive")
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except (zipfile.BadZipFile, EOFError, zlib.error, KeyError) as exc:
        raise ValueError(f"the archive is truncated or damaged ({type(exc).__name__})"
                         ) from None
    except ValueError as exc:
        if "pickle" in str(exc):
            raise ValueError("it holds Python objects, which ginbox never loads") from None
        raise ValueError(f"the archive is truncated or damaged ({exc})") from None


__all__ = ["MARKER", "TEMP_GLOB", "atomic_paths", "atomic_write", "atomic_write_bytes",
           "atomic_write_text", "is_temp", "read_npz", "temp_path", "written_files"]

