"""``python -m benchmarks.variant_speed``: games a second under standard and Hollywood scoring.

The rules variants' hooks sit on the engine's hot path (one branch a hand and a decision under
standard scoring, kernels on their own blocks under Hollywood), so a change to them is checked
here: ``greedy-knock`` against ``simple``, ``--games`` games a run in one process (a warm-up
first compiles or loads the engine), ``--runs`` runs of each rules in turn. It prints, per
rules, each run's games a second and their mean with a 95% interval (t over the runs), and a
digest of the games' statistics, so two checkouts can be seen to play the same games. Run it
from each checkout in turn, e.g. ``PYTHONPATH=<checkout> python benchmarks/variant_speed.py``.

    python -m benchmarks.variant_speed --games 4000 --runs 10
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import statistics
import time

from sim.play.driver import play_games

#: Two-sided 95% t quantiles by degrees of freedom (runs - 1), 1..30.
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
RULES = ("three-handed", "three-handed-hollywood", "hollywood")
LINEUP = {"three-handed": "greedy-knock,simple,simple",
          "three-handed-hollywood": "greedy-knock,simple,simple",
          "hollywood": "greedy-knock,simple"}


def measure(games: int, runs: int) -> dict[str, dict[str, object]]:
    """Per rules: the runs' games a second, their mean and 95% interval, and the digest."""
    out: dict[str, dict[str, object]] = {}
    for rules in RULES:
        play_games(LINEUP[rules], rules=rules, games=200, seed=1)  # compile or load
    rates: dict[str, list[float]] = {r: [] for r in RULES}
    digests: dict[str, str] = {}
    for run in range(runs):
        for rules in RULES:
            start = time.perf_counter()
            result = play_games(LINEUP[rules], rules=rules, games=games, seed=run)
            rates[rules].append(games / (time.perf_counter() - start))
            if run == 0 and result.games is not None:
                digests[rules] = hashlib.sha256(result.games.to_csv().encode()).hexdigest()[:16]
    for rules, xs in rates.items():
        mean = statistics.fmean(xs)
        half = _T95[min(len(xs) - 2, len(_T95) - 1)] * statistics.stdev(xs) / math.sqrt(
            len(xs)) if len(xs) > 1 else float("nan")
        out[rules] = {"games_per_s": [round(x) for x in xs], "mean": round(mean),
                      "ci95": [round(mean - half), round(mean + half)],
                      "digest": digests.get(rules)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    print(json.dumps(measure(args.games, max(args.runs, 2)), indent=1))


if __name__ == "__main__":
    main()
