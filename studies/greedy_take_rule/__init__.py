"""Why `simple` beats `greedy-knock`: isolate greedy's take rule (docs/lab, the round robin).

Plays `greedy-knock`'s Python twin, and a variant whose only change is simple's take rule
(a discard is taken only when it then lies in a meld of a best arrangement), each alone against
two compiled `greedy-knock` players. Run: ``python -m studies.greedy_take_rule [--games N]
[--seed S]``
"""

from __future__ import annotations

import argparse

import numpy as np

from sim.analysis.report import wilson
from sim.engine.view import View
from sim.play.driver import play_games
from strategies.builtin import in_some_best_meld
from strategies.examples import GreedyKnockPy


class GreedyMeldTaker(GreedyKnockPy):
    """greedy-knock with simple's take rule."""

    name = "greedy-meld-taker"

    def _lowers_deadwood(self, view: View) -> bool:
        return bool(in_some_best_meld(view.hand_mask, view.top))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m studies.greedy_take_rule",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    games, seed = args.games, args.seed
    for lone in (GreedyKnockPy(), GreedyMeldTaker()):
        result = play_games([lone, "greedy-knock", "greedy-knock"], games=games, seed=seed)
        wins = int((result.games["winner"] == 0).sum())
        low, high = wilson(np.array([wins]), np.array([games]))
        print(f"{lone.name:20s} alone vs 2x greedy-knock: {wins / games:.1%} "
              f"({float(low[0]):.1%} - {float(high[0]):.1%}), {games} games, seed {seed}")

