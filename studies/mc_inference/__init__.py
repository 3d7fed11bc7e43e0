"""How developed is an opponent's hand by a given turn? Calibrates ``mc``'s ``develop``.

Run: ``python -m studies.mc_inference [--hands N] [--opponent simple] [--seed S]``. Plays
games of ``mc``'s base heuristic (``discard-tracking``, seat 0) against the opponent under
``eaai`` rules with the hand log on (``iter_games``), and, at each of seat 0's draws in the
first ``N`` hands, compares the opponent's true least deadwood with that of the hands ``mc``
samples (``strategies.mc_worlds.sample_world``, one world per decision) from the same view
with each ``develop`` value. The views come from the log (``decision_view``): the decision's
own, and the opponent's at his last discard, which holds his hand. Prints the mean by the
opponent's turns so far; the ``develop`` whose row tracks the truth is the one to use. Seed
2026 unless given.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

import numpy as np

from sim.analysis.explain import decision_view
from sim.engine.cards import parse_card, parse_cards
from sim.engine.hand import HS_HAND
from sim.engine.melds import min_deadwood_mask
from sim.engine.rng import stream_seed
from sim.engine.rules import Rules
from sim.engine.view import V_HAND, V_ROLE, V_TURN
from sim.play.driver import Seeds, iter_games
from strategies.builtin import SCRATCH_LEN
from strategies.mc_worlds import S_BASE, sample_world

DEVELOP = (0, 5, 10, 20, 40)
TURN_BUCKETS = 16  # the opponent's turns so far, the last bucket holding 15 and more
DRAWS = ("draw_stock", "draw_discard")


def _mask(cards: list[str]) -> int:
    mask = 0
    for code in parse_cards(cards):
        mask |= 1 << code
    return mask


def draw_views(record: dict[str, Any], seat: int) -> Iterator[tuple[np.ndarray, int]]:
    """(view, the opponent's true hand mask) at each draw ``seat`` chose in a logged hand.

    The opponent's hand changes only on his own turn, so at ``seat``'s draw it is his hand
    after his last discard (the view of that discard less the card), or the dealt hand."""
    role = "dealer" if int(record["dealer"]) == seat else "nondealer"
    other = "nondealer" if role == "dealer" else "dealer"
    opponent = _mask(record["deal"][other])
    moves = record["moves"]
    for i, move in enumerate(moves):
        if int(move["seat"]) != seat and move["move"] == "discard":
            opponent = int(decision_view(record, i)[0][V_HAND]) & ~(1 << parse_card(move["card"]))
        forced = i >= 2 and moves[i - 1]["move"] == moves[i - 2]["move"] == "pass"
        if int(move["seat"]) == seat and move["move"] in DRAWS and not forced:
            yield decision_view(record, i)[0], opponent


def logged_hands(hands: int, opponent: str, seed: int) -> Iterator[dict[str, Any]]:
    """The first ``hands`` hand records of discard-tracking (seat 0) against ``opponent``."""
    seen = 0
    for _, records in iter_games(Rules.preset("eaai"), ["discard-tracking", opponent],
                                 games=hands, seeds=Seeds.from_seed(seed), log=True, batch=20):
        for record in records:
            yield record
            seen += 1
            if seen == hands:
                return


def measure(hands: int, opponent: str, seed: int = 2026) -> tuple[np.ndarray, np.ndarray]:
    """(sums, counts) by the opponent's turns so far: row 0 his true least deadwood, row
    ``1 + i`` that of the world sampled with ``DEVELOP[i]``."""
    sums = np.zeros((len(DEVELOP) + 1, TURN_BUCKETS))
    counts = np.zeros(TURN_BUCKETS)
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    for h, record in enumerate(logged_hands(hands, opponent, seed)):
        for view, truth in draw_views(record, 0):
            turn = min(TURN_BUCKETS - 1, int(view[V_TURN]) // 2)
            counts[turn] += 1
            sums[0, turn] += min_deadwood_mask(truth)
            for i, develop in enumerate(DEVELOP):
                world_seed = np.uint64(stream_seed(np.uint64(seed + 1), h * 64 + turn))
                sample_world(view, scratch, world_seed, 0, develop)
                his = S_BASE + HS_HAND + 1 - int(view[V_ROLE])  # the world's opponent
                sums[i + 1, turn] += min_deadwood_mask(int(scratch[his]))
    return sums, counts


def print_table(sums: np.ndarray, counts: np.ndarray) -> None:
    shown = counts > 0
    print("opponent turns  " + " ".join(f"{t:5d}" for t in np.flatnonzero(shown)))
    print("decisions       " + " ".join(f"{int(c):5d}" for c in counts[shown]))
    for i, label in enumerate(["true"] + [f"develop={d}" for d in DEVELOP]):
        row = sums[i, shown] / counts[shown]
        print(f"{label:15s} " + " ".join(f"{v:5.1f}" for v in row))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m studies.mc_inference",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--opponent", default="simple")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    print_table(*measure(args.hands, args.opponent, args.seed))
