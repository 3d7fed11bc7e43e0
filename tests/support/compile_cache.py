"""Fill numba's on-disk cache before pytest-xdist's workers start, so that two workers never
compile the same kernels at once (each would otherwise compile the engine for itself).

``python -m support.compile_cache`` (run from ``tests/``) compiles the kernels the suite uses
most by calling them the way it does: the compiled batch loop (every built-in strategy, through
the generated dispatcher), then the Python driver and hand logs, the environments, the review's
judge, the meld and showdown kernels, which load the engine's kernels from the cache the first
step wrote. The conftest runs it in the xdist controller alone. One process, in that order: two
processes compiling at once would each compile the kernels they share (measured on a cold cache,
136 s of CPU in two processes against 74 s in one, for about the same wall time on two idle
cores). A kernel left out is still compiled, by the first worker that calls it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _batch_loop() -> None:
    from sim.play.driver import play_games

    play_games("greedy-knock,simple,tuned", games=1, seed=0)


def _python_paths() -> None:
    import numpy as np

    from sim.engine.melds import best_discard, min_deadwood, min_deadwood_batch
    from sim.engine.showdown import settle
    from sim.env.single import SingleAgentEnv
    from sim.env.vector import VectorEnv
    from sim.play.driver import play_games
    from sim.review import review

    logged = play_games("discard-tracking,gin-hunter", rules="eaai", games=1, seed=0, log=True)
    review(logged.log or [], judge="mc:samples=8", quiet=True)
    play_games("strategies.examples:GreedyKnockPy,simple,random", games=1, seed=0)
    min_deadwood("AS 2S 3S KH KD KC 5C")
    best_discard("4S 7S 4D 6D 7D 6C 7C 5H 6H 7H 8H")
    min_deadwood_batch(np.array([0b1111111111], np.int64))
    settle("AS 2S 3S 4H 5H 6H 7C 7D 7H 2C", "KS KH QD JC 9C 9D 5S 8H 3D 4C")
    vector = VectorEnv(2)
    vector.reset(seed=0)
    single = SingleAgentEnv()
    single.reset(seed=0)


def compile_everything() -> None:
    _batch_loop()
    _python_paths()


def warm(timeout: float = 900) -> None:
    """Compile in a process of its own and wait for it; a failure only leaves the kernels to
    the workers (the tests then say what is wrong)."""
    here = Path(__file__).resolve().parent.parent
    try:
        subprocess.run([sys.executable, "-m", "support.compile_cache"], cwd=here,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        pass


if __name__ == "__main__":
    compile_everything()
