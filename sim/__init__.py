"""ginbox: a fast headless self-play simulator for three-handed Gin Rummy.

The package is layered, each layer importing only those before it (in this order; the tests
check the imports against it):

* :mod:`sim.io`: general input and output: atomic file writes, reading spec files and the
  checks their loaders share (imports nothing else of ginbox);
* :mod:`sim.engine`: cards, melds, rules, the showdown, one hand, whole games, what a player
  sees (compiled);
* :mod:`strategies` (beside ``sim``): the bots, which see only the engine's view;
* :mod:`sim.records`: hand logs, their rendering and replay;
* :mod:`sim.play`: the game loop: the one seat step, the compiled batch loop, the game object
  every Python front end steps (``GameState``), its lineup and seeds, the Python driver;
* :mod:`sim.runs`: the experiment machinery: experiment files, the parallel resumable runner,
  its workers, pool, storage and Dask cluster, progress lines, the per-game aggregates;
* :mod:`sim.env`: the learning environments (PettingZoo, Gymnasium, a compiled vector
  environment) and trained policies as strategies;
* :mod:`sim.openspiel`: ginbox's games and bots in OpenSpiel (the ``openspiel`` extra);
* :mod:`sim.analysis`: statistics, tables, comparisons, sweeps, plots, the report, and why
  ``mc`` played a move (:mod:`sim.analysis.explain`), every decision of a logged hand as the
  mover saw it (:mod:`sim.analysis.positions`);
* :mod:`sim.review`: the decision review (``ginbox review``): the judge's loss and label for
  every decision of a hand log, error rates, the gap between two strategies by kind;
* :mod:`sim.table`: people at the table: a ``human`` seat in the terminal (``ginbox play``);
* :mod:`sim.tune`: the CMA-ES parameter search (``ginbox tune``), exploitability
  (``ginbox exploit``);
* :mod:`sim.league`: leagues and their ratings (``ginbox league``);
* :mod:`sim.learn`: the network trained by self-play (``ginbox train``: expert iteration with
  ``mc``; the strategy ``net`` plays its weights);
* :mod:`sim.testing`: the conformance harness for strategies;
* :mod:`sim.bench`: the speed measurements (``ginbox bench``);
* :mod:`sim.cli`: the ``ginbox`` command.

Four short modules at the top keep a small public contract: ``sim.cards`` (``parse_cards``,
``card_str``), ``sim.melds`` (``min_deadwood``, ``best_discard``), ``sim.showdown``
(``settle``) and ``sim.rules`` (``Rules``), each re-exporting the engine's one implementation.

Importing :mod:`sim` points numba's on-disk cache at a directory named after a hash of the
engine's source. Numba only checks the modification time of the file that defines a cached
function, not of the modules it calls, so after an edit (or an upgrade) a cached kernel could
silently run stale code inlined from another module. One directory per source version rules
that out; older directories are pruned. The directories live under ``NUMBA_CACHE_DIR`` when the
user sets it (a cluster's shared cache, say), else under ``~/.cache/ginbox``: a cache directory
reused across versions of ginbox would otherwise serve one version's kernels to the next.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import shutil
import time
from pathlib import Path

__version__ = "0.1.0"

_PACKAGES = ("sim", "strategies")
# Modules without compiled functions whose constants compiled code reads.
_CONSTANT_MODULES = ("cards.py", "rules.py", "jit.py")
# Decorators that mark a module as holding compiled code (sim.engine.jit's, and numba's own).
_COMPILED_MARKS = (b"@njit", b"@kernel", b"@allocating")


def _stamped_files(root: Path) -> list[Path]:
    """Every module, in every subpackage, holding compiled code or constants compiled code
    reads: the engine's whole package, any other module with a compile decorator, and the
    shipped weights compiled code reads (so a retrained model is never read stale)."""
    files = []
    for package in _PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            text = path.read_bytes()
            if (any(mark in text for mark in _COMPILED_MARKS) or path.name in _CONSTANT_MODULES
                    or "engine" in path.relative_to(root).parts):
                files.append(path)
    # data compiled code freezes as constants: mc's learned evaluator's, the network's, the
    # belief's, the knock model's and the keep model's
    files += sorted((root / "strategies").glob("mc_eval_v*.npz"))
    files += sorted((root / "strategies").glob("net_v*.npz"))
    files += sorted((root / "strategies").glob("belief_v*.npz"))
    files += sorted((root / "strategies").glob("knock_v*.npz"))
    files += sorted((root / "strategies").glob("keep_v*.npz"))
    return files


def _source_stamp() -> str:
    """Hash of the files :func:`_stamped_files` names, with their paths."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(__version__.encode())
    for path in _stamped_files(root):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _configure_jit_cache(keep: int = 3, idle_days: float = 7.0) -> str | None:
    """Point numba at this source version's cache; prune old versions' caches, but only those
    beyond the ``keep`` newest that nothing has used for ``idle_days`` (another checkout or
    version may be compiling into a recent one right now)."""
    user_dir = os.environ.get("NUMBA_CACHE_DIR")
    base = (Path(user_dir) if user_dir
            else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ginbox")
    target = base / f"numba-{SOURCE_STAMP}"
    try:
        target.mkdir(parents=True, exist_ok=True)
        os.utime(target)  # marks this version's cache as in use
        old = sorted((p for p in base.glob("numba-*") if p != target),
                     key=lambda p: p.stat().st_mtime, reverse=True)
        cutoff = time.time() - idle_days * 86400
        for stale in (p for p in old[keep - 1:] if p.stat().st_mtime < cutoff):
            shutil.rmtree(stale, ignore_errors=True)
    except OSError:
        return None  # read-only home: numba falls back to its default locations
    import numba

    numba.config.CACHE_DIR = str(target)
    return str(target)


#: The compiled engine's source hash (with the version): a Dask task carries the client's, and a
#: worker whose own differs refuses it (:mod:`sim.runs.cluster`), so versions never mix.
SOURCE_STAMP: str = _source_stamp()
JIT_CACHE_DIR = _configure_jit_cache()

def __getattr__(name: str) -> object:
    """Lazy top-level API (``sim.run_experiment``, ``sim.play_games``, ...): importing
    :mod:`sim` alone stays cheap and does not load numba-compiled code."""
    lazy = {
        "run_experiment": ("sim.runs.runner", "run_experiment"),
        "load_results": ("sim.runs.runner", "load_results"),
        "play_games": ("sim.play.driver", "play_games"),
        "Rules": ("sim.engine.rules", "Rules"),
        "settle": ("sim.engine.showdown", "settle"),
    }
    if name in lazy:
        module, attr = lazy[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
