"""sim.engine.jit and the compile cache: the hot path stays free of reference counting, kernels
             refuse
to allocate, and every compiled module is covered by the cache's source stamp."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numba
import numpy as np
import pytest
from numba.core.caching import FunctionCache
from numba.core.errors import TypingError
from numba.core.registry import CPUDispatcher

import sim
import strategies

ROOT = Path(__file__).resolve().parent.parent


def _modules() -> list[ModuleType]:
    names = [m.name for pkg in (sim, strategies)
             for m in pkgutil.walk_packages(pkg.__path__, prefix=pkg.__name__ + ".")]
    return [importlib.import_module(n) for n in names if not n.endswith("__main__")]


def _dispatchers() -> dict[str, CPUDispatcher]:
    """Every compiled function of the engine, by qualified name, where it is defined."""
    found = {}
    for module in _modules():
        for name, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == module.__name__:
                found[f"{module.__name__}.{name}"] = obj
    return found


# The compiled functions allowed to create arrays: batch entry points and evaluators.
ALLOCATING = {
    "sim.play.batch.play_batch_kernel",
    "sim.play.step.new_tables",
    "sim.engine.melds.best_discard_batch",
    "sim.engine.melds.deadwood_after_discards",
    "sim.engine.melds.min_deadwood_batch",
    "sim.engine.melds._gin_masks_of_size",
    # mc's game-value tables, built once per process: self-play hands and the DP
    "strategies.game_value._play_hands",
    "strategies.game_value.two_player_table",
    "strategies.game_value.three_player_table",
    # the network's inputs for training, and the recorded self-play of ginbox train
    "strategies.net.encode_batch",
    "sim.learn.selfplay.record_games",
    # mc's belief: its inputs and logits for a batch of positions (training and scoring), the
    # recorded games of its training, and develop's marginals it is scored against
    "strategies.mc_belief.encode_batch",
    "strategies.mc_belief.logits_batch",
    "sim.learn.belief_data.record_beliefs",
    "sim.learn.belief.develop_marginals",
    # mc's knock model: its logits and inputs for a batch of facts (training and scoring),
    # and the recorded knock decisions of its training
    "strategies.mc_knock.logits_of",
    "strategies.mc_knock.encode_rows",
    "sim.learn.knock.record_knocks",
    # mc's keep model: its scores and inputs for batches (training and scoring), and the
    # games its training records
    "strategies.mc_keep.card_scores_of",
    "strategies.mc_keep.take_logits_of",
    "strategies.mc_keep.encode_card_rows",
    "strategies.mc_keep.encode_take_rows",
    "strategies.mc_keep.encode_style_rows",
    "sim.learn.keep._play",
}


def test_hot_path_compiles_without_reference_counting() -> None:
    """Every compiled function but the few that allocate is a ``kernel`` (NRT off): reference
    counting took 38% of the engine's time."""
    found = _dispatchers()
    assert ALLOCATING <= set(found)
    for name in ("sim.engine.hand.apply_move", "sim.engine.hand.advance",
                 "sim.engine.view.fill_view",
                 "strategies._dispatch.decide", "sim.engine.melds._best_discard_from",
                 "sim.engine.showdown.settle_kernel", "sim.play.loop.play_game",
                 "sim.play.loop.play_hand"):
        assert name in found
    for name, dispatcher in found.items():
        nrt = dispatcher.targetoptions.get("_nrt", True)
        assert nrt is (name in ALLOCATING), name
        assert isinstance(dispatcher._cache, FunctionCache), name  # cached on disk


def test_kernel_refuses_to_allocate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What docs/strategies.md tells strategy writers: a kernel may not create an array (numba's
    message below), and one that creates none compiles and runs."""
    source = (
        "import numpy as np\n"
        "from sim.engine.jit import allocating, kernel\n\n"
        "@kernel\ndef reads(a):\n    return a[0] + a[-1]\n\n"
        "@kernel\ndef allocates(a):\n    b = np.zeros(3, np.int64)\n    return a[0] + b[0]\n\n"
        "@allocating\ndef allowed(n):\n    return np.arange(n).sum()\n"
    )
    (tmp_path / "user_kernels.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "cache"))
    module = importlib.import_module("user_kernels")
    try:
        assert module.reads(np.array([4, 5, 6], np.int64)) == 10
        assert module.allowed(5) == 10
        with pytest.raises(TypingError, match="Only accept returning of array"):
            module.allocates(np.array([1, 2], np.int64))
    finally:
        sys.modules.pop("user_kernels", None)


def test_cache_stamp_covers_every_compiled_module() -> None:
    """``import sim`` names the numba cache after a hash of the modules holding compiled code;
    a compiled module left out of it could run stale cached code after an edit."""
    stamped = set(sim._stamped_files(ROOT))
    modules = {d.py_func.__module__ for d in _dispatchers().values()}
    assert len(modules) >= 7  # melds to game, and the built-in strategies
    for module in modules:
        assert ROOT / (module.replace(".", "/") + ".py") in stamped, module
    assert ROOT / "strategies" / "mc_eval_v1.npz" in stamped  # weights compiled code freezes


def test_cache_stamp_reaches_into_subpackages(tmp_path: Path) -> None:
    """A compiled module in a nested subpackage changes the stamp's file list."""
    nested = tmp_path / "sim" / "engine" / "deep"
    nested.mkdir(parents=True)
    (nested / "kernels.py").write_text("@kernel\ndef f():\n    return 1\n")
    (nested / "plain.py").write_text("X = 1\n")  # engine package: constants count too
    (tmp_path / "sim" / "cli.py").write_text("print('no compiled code')\n")
    (tmp_path / "strategies").mkdir()
    (tmp_path / "strategies" / "bots.py").write_text("@kernel\ndef g():\n    return 2\n")
    names = {p.relative_to(tmp_path).as_posix() for p in sim._stamped_files(tmp_path)}
    assert names == {"sim/engine/deep/kernels.py", "sim/engine/deep/plain.py",
                     "strategies/bots.py"}


def test_cache_pruning_spares_caches_in_recent_use(tmp_path: Path, monkeypatch: Any) -> None:
    """Another checkout or version may be compiling into its cache right now: only caches
    beyond the newest ``keep`` and idle for ``idle_days`` are removed."""
    import os
    import time

    base = tmp_path / "ginbox"
    now = time.time()
    for name, age_days in (("numba-a", 0.1), ("numba-b", 1), ("numba-c", 2), ("numba-d", 30),
                           ("numba-e", 40)):
        (base / name).mkdir(parents=True)
        os.utime(base / name, (now - age_days * 86400,) * 2)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    saved = numba.config.CACHE_DIR
    try:
        target = Path(sim._configure_jit_cache(keep=2, idle_days=7))
    finally:
        numba.config.CACHE_DIR = saved
    assert target.parent == base and target.name == f"numba-{sim._source_stamp()}"
    assert sorted(p.name for p in base.iterdir()) == sorted(
        ["numba-a", "numba-b", "numba-c", target.name])


def test_a_users_numba_cache_dir_holds_one_directory_per_source_version(
        tmp_path: Path, monkeypatch: Any) -> None:
    """A ``NUMBA_CACHE_DIR`` kept across versions must not serve one version's kernels to the
    next (numba checks only the defining file's time): ginbox compiles into a stamped
    directory under it and prunes only its own old ``numba-*`` directories."""
    (tmp_path / "someone-elses").mkdir()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    saved = numba.config.CACHE_DIR
    try:
        target = Path(sim._configure_jit_cache(keep=1, idle_days=0))
    finally:
        numba.config.CACHE_DIR = saved
    assert target == tmp_path / f"numba-{sim._source_stamp()}" and target.is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["someone-elses", target.name])
