"""Strength of ``tuned``'s named sets against the reference opponents, with the finish mix.

Run: ``python -m studies.tuned_sets [--games N] [--seed S] [--only TEXT] [--tuned SPEC]``.
Seats are rotated (``--games`` a multiple of 6 balances every initial role exactly), so one
``tuned`` seat meets every role equally often. Each line gives ``tuned``'s game win rate with
its 95% Wilson interval, and beside it the finish mix per hand: the share of hands ``tuned``
won, and of all hands those it ended by knocking (gin included), by gin, by undercutting a
knocker, and its points per hand against the opponents'. The shipped sets came from
``ginbox tune`` on seeds 1311-1331 (the tune_tuned_*.toml files beside this module); the
default seed 20261201 was never used in tuning or choosing them.
"""

from __future__ import annotations

import argparse
import time

from sim.analysis.statistics import wilson
from sim.engine.game import GAME_COLUMNS
from sim.engine.rules import Rules
from sim.play.driver import GameTally, Seeds, iter_games
from sim.runs.progress import Progress
from strategies.registry import parse_strategies

MATCHES = (
    ("eaai", "{t}@eaai,simple", "vs simple"),
    ("eaai", "{t}@eaai,discard-tracking:knock_at=0", "vs discard-tracking:knock_at=0"),
    ("eaai", "{t}@eaai,discard-tracking", "vs discard-tracking"),
    ("three-handed", "{t}@three-handed,discard-tracking,discard-tracking",
     "vs 2 discard-tracking"),
    ("three-handed", "{t}@three-handed,simple,simple", "vs 2 simple"),
    ("three-handed-20", "{t}@three-handed-20,discard-tracking,discard-tracking",
     "vs 2 discard-tracking"),
    ("oklahoma", "{t}@oklahoma,discard-tracking,discard-tracking", "vs 2 discard-tracking"),
)


def measure_one(rules_name: str, lineup: str, games: int, seed: int) -> dict[str, float]:
    """Seat 0's win rate, interval and finish mix over ``games`` rotated games."""
    rules = Rules.preset(rules_name)
    specs = parse_strategies(lineup)
    tally = GameTally(rules.players)
    sums = dict.fromkeys(("knocks_0", "gins_0", "undercut_wins_0", "hands", "score_0",
                          "score_1", "score_2", "hands_won_0"), 0)
    cols = {k: GAME_COLUMNS.index(k) for k in sums}
    bar = Progress(f"{rules_name} {lineup}", games)
    for rows, _ in iter_games(rules, specs, games, Seeds.from_seed(seed), rotate=True):
        tally.add(rows)
        for k, c in cols.items():
            sums[k] += int(rows[:, c].sum())
        bar.update(len(rows))
    bar.close()
    won = tally.wins[0]
    lo, hi = wilson(won, games)
    hands = sums["hands"]
    return {"win": won / games, "lo": lo, "hi": hi, "hands_won": sums["hands_won_0"] / hands,
            "knock": sums["knocks_0"] / hands, "gin": sums["gins_0"] / hands,
            "undercut": sums["undercut_wins_0"] / hands, "points": sums["score_0"] / hands,
            "opp_points": (sums["score_1"] + sums["score_2"]) / hands}


def measure(games: int, seed: int, only: str | None = None, tuned: str = "tuned") -> None:
    """Print one line per match: win rate, interval, games, finish mix."""
    for rules, lineup, label in MATCHES:
        if only and only not in f"{rules} {label}":
            continue
        start = time.perf_counter()
        r = measure_one(rules, lineup.format(t=tuned), games, seed)
        print(f"{rules:15s} {label:31s} {r['win']:6.1%} [{r['lo']:.1%}, {r['hi']:.1%}] of "
              f"{games} games | hands won {r['hands_won']:.1%}, knock {r['knock']:.1%}, "
              f"gin {r['gin']:.1%}, undercut {r['undercut']:.1%}, points/hand "
              f"{r['points']:.1f} vs {r['opp_points']:.1f} "
              f"({time.perf_counter() - start:.0f} s)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m studies.tuned_sets", description=__doc__)
    parser.add_argument("--games", type=int, default=20004)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--only", default=None, help="run the matches whose label has this")
    parser.add_argument("--tuned", default="tuned", help="the strategy whose sets are measured")
    args = parser.parse_args()
    measure(args.games, args.seed, args.only, args.tuned)

