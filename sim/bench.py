"""``ginbox bench``: the project's own speed measurements.

Every figure is single-core unless its name says otherwise, measured after JIT warm-up, on
fresh random inputs from a fixed seed. Speed goals are checked here, never by timed tests.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

from sim.engine.cards import DECK

WARM_START_SNIPPET = (
    "import time; t = time.perf_counter();"
    "from sim.play.driver import play_games;"
    "play_games('greedy-knock,greedy-knock,greedy-knock', games=1, seed=0);"
    "print(time.perf_counter() - t)"
)


def random_masks(n: int, cards: int, seed: int = 12345) -> np.ndarray:
    """``n`` random hands of ``cards`` cards as masks."""
    rng = np.random.default_rng(seed)
    keys = rng.random((n, 52)).argsort(axis=1)[:, :cards]
    codes = DECK[keys]
    return np.bitwise_or.reduce(np.left_shift(np.int64(1), codes), axis=1)


def best_rate(fn: Any, n: int, repeat: int = 3) -> float:
    """Best-of-``repeat`` items per second of ``fn()`` processing ``n`` items."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return n / best


def bench_deadwood(n: int = 400_000) -> dict[str, float]:
    """Least deadwood of random 10-card hands and best discard of random 11-card hands."""
    from sim.engine.melds import best_discard_batch, min_deadwood_batch

    m10 = random_masks(n, 10)
    m11 = random_masks(n, 11, seed=54321)
    min_deadwood_batch(m10[:10])
    best_discard_batch(m11[:10])
    return {
        "deadwood_evals_per_s": best_rate(lambda: min_deadwood_batch(m10), n),
        "best_discard_evals_per_s": best_rate(lambda: best_discard_batch(m11), n),
    }


def bench_games(strategies: str, games: int, rules: str = "three-handed",
                repeat: int = 1) -> dict[str, float]:
    """Hands and games per second on one core through the compiled batch kernel.

    With ``repeat`` > 1 the same games are played that many times and the fastest run counts,
    which filters out moments when something else had the core.
    """
    from sim.play.driver import play_games

    play_games(strategies, rules=rules, games=2, seed=1)  # warm-up (compile or cache load)
    dt = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        result = play_games(strategies, rules=rules, games=games, seed=7)
        dt = min(dt, time.perf_counter() - t)
    assert result.games is not None, "play_games keeps the games by default"
    hands = int(result.games["hands"].sum())
    return {"hands_per_s": hands / dt, "games_per_s": games / dt, "hands": hands,
            "games": games, "seconds": dt}


def bench_mc(games: int = 40, strategy: str = "mc") -> float:
    """Whole two-player ``eaai`` games per CPU second of ``strategy`` (``mc`` at its defaults:
    the speed yardstick of the search) against ``simple``. CPU time
    (``time.process_time``), not wall time: the search is single-threaded, and CPU time is
    what other work on a shared machine disturbs least."""
    from sim.play.driver import play_games

    lineup = f"{strategy},simple"
    play_games(lineup, rules="eaai", games=2, seed=1)  # warm-up (compile or cache load)
    t = time.process_time()
    play_games(lineup, rules="eaai", games=games, seed=7)
    return games / (time.process_time() - t)


def bench_python_strategy(games: int = 20) -> float:
    """Hands per second with a plain-Python strategy in one seat (the slow, open path)."""
    from sim.play.driver import play_games
    from strategies.base import BaseStrategy

    play_games([BaseStrategy(), "simple", "simple"], games=1, seed=1)
    t = time.perf_counter()
    result = play_games([BaseStrategy(), "simple", "simple"], games=games, seed=3)
    assert result.games is not None, "play_games keeps the games by default"
    return int(result.games["hands"].sum()) / (time.perf_counter() - t)


def bench_all_cores(games: int) -> dict[str, float]:
    """Games per second on every core through the experiment runner (``ginbox run``).

    Measured on a second run, so worker start-up and cache loading are paid once before it
    (the first run has a chunk for every worker, so that every worker starts); the figure
    includes writing the parquet chunks.
    """
    from sim.runs.runner import run_experiment

    jobs = os.cpu_count() or 1
    spec = {"name": "bench", "seed": 3, "games": games,
            "chunk_size": max(1000, games // (4 * jobs)),
            "arms": [{"name": "greedy x3", "strategies": ["greedy-knock"] * 3}]}
    with tempfile.TemporaryDirectory() as out:
        run_experiment(dict(spec, games=2 * jobs, chunk_size=2), out=out, jobs=jobs, quiet=True,
                       force=True)
        t = time.perf_counter()
        run_experiment(spec, out=out, jobs=jobs, quiet=True, force=True)
        dt = time.perf_counter() - t
    return {"games_per_s_all_cores": games / dt, "workers": jobs}


def bench_warm_start(cold: bool = False) -> dict[str, float]:
    """Seconds from a new interpreter to the first game: warm cache, and cold if asked."""
    out = {"jit_warm_start_s": _time_subprocess(None)}
    if cold:
        with tempfile.TemporaryDirectory() as cache:
            out["jit_cold_compile_s"] = _time_subprocess(cache)
    return out


def _time_subprocess(cache_dir: str | None) -> float:
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    done = subprocess.run([sys.executable, "-c", WARM_START_SNIPPET], env=env, check=True,
                          capture_output=True, text=True)
    return float(done.stdout.strip().splitlines()[-1])


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    import numba

    return {"platform": platform.platform(), "processor": platform.machine(),
            "cpu_count": os.cpu_count(), "python": platform.python_version(),
            "numpy": np.__version__, "numba": numba.__version__}


def run(games: int = 20_000, cold: bool = False) -> dict[str, Any]:
    """Every benchmark figure, as one flat dictionary (the ``--json`` output)."""
    from strategies.registry import BUILTINS

    result: dict[str, Any] = {}
    result.update(bench_deadwood())
    greedy = bench_games("greedy-knock,greedy-knock,greedy-knock", games, repeat=3)
    result["hands_per_s"] = greedy["hands_per_s"]
    result["games_per_s"] = greedy["games_per_s"]
    for name in BUILTINS:
        if name == "mc":  # a search: measured on its own below, on fewer games
            continue
        n = games // 10 if name == "random" else games // 2
        r = bench_games(f"{name},greedy-knock,greedy-knock", n)
        result[f"hands_per_s_{name}_vs_greedy"] = r["hands_per_s"]
    result["hands_per_s_simple_vs_simple"] = bench_games("simple,simple,simple",
                                                         games // 2)["hands_per_s"]
    result["hands_per_s_python_strategy"] = bench_python_strategy()
    result["mc_games_per_s"] = bench_mc(max(20, games // 500))
    result["net_games_per_s"] = bench_mc(max(200, games // 10), "net")
    result.update(bench_all_cores(games * 5))
    result.update(bench_warm_start(cold))
    result["machine"] = machine()
    return result


def main(json_output: bool = False, games: int = 20_000, cold: bool = False) -> int:
    """Print the benchmark (a table, or one JSON object with ``json_output``)."""
    result = run(games=games, cold=cold)
    if json_output:
        print(json.dumps(result))
        return 0
    for key, value in result.items():
        if isinstance(value, float):
            print(f"{key:40s} {value:>16,.1f}")
        elif isinstance(value, dict):
            for k, v in value.items():
                print(f"{key + '.' + k:40s} {v!s:>16}")
        else:
            print(f"{key:40s} {value!s:>16}")
    return 0


if __name__ == "__main__":
    sys.exit(main(json_output="--json" in sys.argv, cold="--cold" in sys.argv))
