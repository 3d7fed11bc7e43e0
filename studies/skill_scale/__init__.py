"""A skill scale for gin: every built-in's error rate under the same judge, on fixed games.

Run ``python -m studies.skill_scale`` (``--games``, ``--judge``, ``--jobs``, ``--out``). For
each built-in and each table (two-handed ``eaai`` against ``tuned@eaai``, the built-in's seat
alternating; ``three-handed`` alone against two ``tuned``), it plays the same seeded games,
reviews the built-in's decisions with ``ginbox review``'s judge and writes, per built-in and
table, the decisions counted, the error rate (1000 x the mean loss in game-win probability per
counted decision, with its 95% interval by game) and the labels. Those are the scale's anchors
that docs/review.md quotes: a review of anyone's games at the same judge places them on it.
Every figure comes from ``sim.review``'s public API; nothing is tuned on these games.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pandas as pd

from sim.io.files import atomic_write
from sim.play.driver import play_games
from sim.review import review
from sim.review.report import summary

BUILTINS = ("random", "simple", "greedy-knock", "gin-hunter", "discard-tracking", "tuned", "mc")
TABLES = {"eaai": ("eaai", "tuned"), "three-handed": ("three-handed", "tuned")}
SEED = 2026


def _games(rules: str, strategy: str, opponent: str, games: int,
           seed: int) -> list[tuple[list[dict[str, Any]], int]]:
    """The games to review, each part with the built-in's seat: two-handed, seat 0 in the
    first half and seat 1 in the second (the same deals); three-handed, seat 0 of three."""
    if rules == "three-handed":
        log = play_games([strategy, opponent, opponent], rules=rules, games=games, seed=seed,
                         log=True).log
        return [(log, 0)]
    half = games // 2
    first = play_games([strategy, opponent], rules=rules, games=half, seed=seed, log=True).log
    second = play_games([opponent, strategy], rules=rules, games=games - half, seed=seed,
                        log=True).log
    return [(first, 0), (second, 1)]


def scale(games: int, judge: str, jobs: int, seed: int = SEED,
          builtins: tuple[str, ...] = BUILTINS) -> pd.DataFrame:
    """One row per (table, built-in): its reviewed decisions' error rate and labels."""
    rows = []
    for table, (rules, opponent) in TABLES.items():
        for strategy in builtins:
            parts = [review(log, seats=[seat], judge=judge, seed=seed, jobs=jobs,
                            quiet=True).decisions.assign(game=lambda d, k=k: d["game"] + k * games)
                     for k, (log, seat) in enumerate(_games(rules, strategy, opponent, games,
                                                            seed))]
            decisions = pd.concat(parts, ignore_index=True).assign(strategy=strategy)
            s = summary(decisions, ("strategy",)).iloc[0]
            rows.append({"table": table, "strategy": strategy, "games": games,
                         "decisions": int(s["decisions"]), "error_rate": s["error_rate"],
                         "low": s["low"], "high": s["high"],
                         "loss_per_game": s["loss_per_game"], "blunders": s["blunders"],
                         "mistakes": s["mistakes"], "inaccuracies": s["inaccuracies"]})
            print(f"{table} {strategy}: {s['error_rate']:.1f} ({s['low']:.1f} to "
                  f"{s['high']:.1f}) over {int(s['decisions'])} decisions", flush=True)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m studies.skill_scale",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per built-in and table")
    parser.add_argument("--judge", default="mc", help="the judge (default mc)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--out", default="results/skill_scale.csv", help="CSV written")
    parser.add_argument("--only", default=None, help="comma-separated built-ins (default all)")
    args = parser.parse_args(argv)
    builtins = tuple(args.only.split(",")) if args.only else BUILTINS
    table = scale(args.games, args.judge, args.jobs, builtins=builtins)
    atomic_write(Path(args.out), lambda p: table.to_csv(p, index=False), mkdir=True)
    print(table.to_string(index=False))
