"""Atomic file writes: a reader sees the old file or the new one, never half of one.

The runner (chunk files, the manifest), the report (its CSVs, markdown and plots, renamed into
place together) and the plots all need the same thing, so it is written once, here: render to
a hidden temporary beside the target (same directory, so the rename stays on one file system),
flush it to disk, then :func:`os.replace` it over the target. On any error, interruption
included, the temporaries are removed and the targets are left as they were.

Temporaries are named ``.<name>.<pid>.<random>.tmp`` (:data:`TEMP_GLOB` matches them), so a
process killed mid-write leaves only files that can be recognised and deleted.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

#: Matches the temporaries :func:`temp_path` names (and nothing a run or report keeps).
TEMP_GLOB = ".*.tmp"


def temp_path(path: Path) -> Path:
    """A fresh hidden temporary name beside ``path``."""
    return path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")


def _fsync(path: Path) -> None:
    """Flush a written file's data to disk (best effort: not every file system allows it)."""
    try:
        fd = os.open(path, os.O_RDONLY)
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
            _fsync(tmp)
        for tmp, target in zip(temps, targets, strict=True):
            os.replace(tmp, target)
    finally:
        for tmp in temps:
            tmp.unlink(missing_ok=True)


def atomic_write(path: str | Path, write: Callable[[Path], object], mkdir: bool = False) -> Path:
    """Write ``path`` atomically: ``write(tmp)`` renders the file, which then replaces it."""
    with atomic_paths([path], mkdir=mkdir) as (tmp,):
        write(tmp)
    return Path(path)


def atomic_write_bytes(path: str | Path, data: bytes, mkdir: bool = False) -> Path:
    """Replace ``path`` with ``data`` atomically."""
    return atomic_write(path, lambda tmp: tmp.write_bytes(data), mkdir=mkdir)


def atomic_write_text(path: str | Path, text: str, encoding: str | None = None,
                      mkdir: bool = False) -> Path:
    """Replace ``path`` with ``text`` atomically (``encoding`` as for :meth:`Path.write_text`)."""
    return atomic_write(path, lambda tmp: tmp.write_text(text, encoding=encoding), mkdir=mkdir)


__all__ = ["TEMP_GLOB", "atomic_paths", "atomic_write", "atomic_write_bytes",
           "atomic_write_text", "temp_path"]
