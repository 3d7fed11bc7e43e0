"""ginbox: a fast headless self-play simulator for three-handed Gin Rummy.

Importing :mod:`sim` points numba's on-disk cache at a directory named after a hash of the
engine's source. Numba only checks the modification time of the file that defines a cached
function, not of the modules it calls, so after an edit (or an upgrade) a cached kernel could
silently run stale code inlined from another module. One directory per source version rules
that out; older directories are pruned. ``NUMBA_CACHE_DIR`` set by the user wins.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

__version__ = "0.1.0"

_PACKAGES = ("sim", "strategies")
# Modules without compiled functions whose constants compiled code reads.
_CONSTANT_MODULES = ("cards.py", "rules.py", "jit.py")
# Decorators that mark a module as holding compiled code (sim.jit's, and numba's own).
_COMPILED_MARKS = (b"@njit", b"@kernel", b"@allocating")


def _stamped_files(root: Path) -> list[Path]:
    """Every module, in every subpackage, holding compiled code or constants compiled code
    reads: the engine's whole package, and any other module with a compile decorator."""
    files = []
    for package in _PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            text = path.read_bytes()
            if (any(mark in text for mark in _COMPILED_MARKS) or path.name in _CONSTANT_MODULES
                    or "engine" in path.relative_to(root).parts):
                files.append(path)
    return files


def _source_stamp() -> str:
    """Hash of the files :func:`_stamped_files` names, with their paths."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(__version__.encode())
    for path in _stamped_files(root):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _configure_jit_cache(keep: int = 3) -> str | None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ginbox"
    target = base / f"numba-{_source_stamp()}"
    try:
        target.mkdir(parents=True, exist_ok=True)
        old = sorted((p for p in base.glob("numba-*") if p != target),
                     key=lambda p: p.stat().st_mtime, reverse=True)
        for stale in old[keep - 1:]:
            shutil.rmtree(stale, ignore_errors=True)
    except OSError:
        return None  # read-only home: numba falls back to its default locations
    import numba

    numba.config.CACHE_DIR = str(target)
    return str(target)


JIT_CACHE_DIR = _configure_jit_cache()


def __getattr__(name: str) -> object:
    """Lazy top-level API (``sim.run_experiment``, ``sim.play_games``, ...): importing
    :mod:`sim` alone stays cheap and does not load numba-compiled code."""
    lazy = {
        "run_experiment": ("sim.runner", "run_experiment"),
        "load_results": ("sim.runner", "load_results"),
        "play_games": ("sim.driver", "play_games"),
        "Rules": ("sim.rules", "Rules"),
        "settle": ("sim.showdown", "settle"),
    }
    if name in lazy:
        import importlib

        module, attr = lazy[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
