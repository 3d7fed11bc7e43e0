"""Why `simple` beats `greedy-knock`: isolate greedy's take rule (see docs/strategies.md).

Plays `greedy-knock`'s Python twin, and a variant whose only change is simple's take rule
(a discard is taken only when it then lies in a meld of a best arrangement), each alone against
two compiled `greedy-knock` players. Run: python experiments/greedy_take_rule.py [GAMES]
"""

from __future__ import annotations

import sys

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


def main(games: int = 3000, seed: int = 5) -> None:
    for lone in (GreedyKnockPy(), GreedyMeldTaker()):
        result = play_games([lone, "greedy-knock", "greedy-knock"], games=games, seed=seed)
        wins = int((result.games["winner"] == 0).sum())
        low, high = wilson(np.array([wins]), np.array([games]))
        print(f"{lone.name:20s} alone vs 2x greedy-knock: {wins / games:.1%} "
              f"({float(low[0]):.1%} - {float(high[0]):.1%}), {games} games, seed {seed}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
