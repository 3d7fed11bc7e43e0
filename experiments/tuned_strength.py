"""Strength of ``tuned`` against the issue's yardsticks, with 95% Wilson intervals.

Run: ``python experiments/tuned_strength.py [--games N] [--seed S] [--tuned SPEC ...]``.
Seats are drawn at random each game by the rules (``play_games``' default), so one ``tuned``
seat meets every role. The hand-set sets were chosen on seeds 11 and 12 and measured on the
default seed 90210, never used while choosing.
"""

from __future__ import annotations

import argparse
import time

from sim.analysis.statistics import wilson
from sim.play.driver import play_games

MATCHES = (
    ("eaai", "{t}@eaai,simple", "vs simple"),
    ("eaai", "{t}@eaai,discard-tracking:knock_at=0", "vs discard-tracking:knock_at=0"),
    ("three-handed", "{t}@three-handed,discard-tracking,discard-tracking",
     "vs 2 discard-tracking"),
    ("three-handed", "{t}@three-handed,simple,simple", "vs 2 simple"),
)


def measure(games: int, seed: int, only: str | None = None) -> None:
    """Print the win rate of seat 0 (``tuned``) in each match."""
    for rules, lineup, label in MATCHES:
        if only and only not in label:
            continue
        start = time.perf_counter()
        result = play_games(lineup.format(t="tuned"), rules=rules, games=games, seed=seed)
        won = int((result.games["winner"] == 0).sum())
        lo, hi = wilson(won, games)
        print(f"{rules:13s} {label:32s} {won / games:6.1%} [{lo:.1%}, {hi:.1%}] "
              f"of {games} games ({time.perf_counter() - start:.0f} s)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=90210)
    parser.add_argument("--only", default=None, help="run the matches whose label has this")
    args = parser.parse_args()
    measure(args.games, args.seed, args.only)


if __name__ == "__main__":
    main()
