"""How developed is an opponent's hand by a given turn? Calibrates ``mc``'s ``develop``.

Run: ``python -m studies.mc_inference [--hands N] [--opponent simple] [--seed S]``. Plays
games of ``mc``'s base heuristic (``discard-tracking``, seat 0) against the opponent under
``eaai`` rules with the hand log on (``iter_games``), and, at each of seat 0's draws in the
first ``N`` hands, compares the opponent's true least deadwood with that of the hands ``mc``
samples (``strategies.mc_worlds.sample_world``, one world per decision) from the same view
with each ``develop`` value. The views come from the log (``decision_view``): the decision's
own, and the opponent's at his last discard, which holds his hand. Prints the mean by the
opponent's turns so far; the ``develop`` whose row tracks the truth is the one to use. Seed
2026 unless given. ``--belief``: the worlds ``mc:belief=1`` samples (the opponent's unseen
cards drawn by the learned belief, :mod:`strategies.mc_belief`), with ``BELIEF_DEVELOP``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

import numpy as np

from sim.analysis.positions import DecisionPoint, iter_decision_points
from sim.engine.cards import parse_card, parse_cards
from sim.engine.melds import min_deadwood_mask
from sim.engine.rng import stream_seed
from sim.engine.rules import Rules
from sim.play.driver import Seeds, iter_games
from strategies.builtin import SCRATCH_LEN
from strategies.mc_worlds import inference, load_belief_odds, sample_world, world_opponent

DEVELOP = (0, 5, 10, 20, 40)
BELIEF_DEVELOP = (0, 2, 3, 5, 10)
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
    for point, opponent in _draws(record, seat):
        yield point.view, opponent


def _draws(record: dict[str, Any], seat: int) -> Iterator[tuple[DecisionPoint, int]]:
    """:func:`draw_views` with the whole decision point."""
    other = "nondealer" if int(record["dealer"]) == seat else "dealer"
    opponent = _mask(record["deal"][other])
    for point in iter_decision_points(record):
        if point.seat != seat and point.kind == "discard":
            opponent = point.seen.hand_mask & ~(1 << parse_card(point.played))
        if point.seat == seat and point.played in DRAWS:  # a forced draw is no decision
            yield point, opponent


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


def measure(hands: int, opponent: str, seed: int = 2026,
            belief: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(sums, counts) by the opponent's turns so far: row 0 his true least deadwood, row
    ``1 + i`` that of the world sampled with ``DEVELOP[i]`` (with ``belief``: drawn by the
    belief, with ``BELIEF_DEVELOP[i]``)."""
    develops = BELIEF_DEVELOP if belief else DEVELOP
    sums = np.zeros((len(develops) + 1, TURN_BUCKETS))
    counts = np.zeros(TURN_BUCKETS)
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    for h, record in enumerate(logged_hands(hands, opponent, seed)):
        for point, truth in _draws(record, 0):
            view = point.view
            turn = min(TURN_BUCKETS - 1, point.turn // 2)
            counts[turn] += 1
            sums[0, turn] += min_deadwood_mask(truth)
            if belief:
                load_belief_odds(view, scratch)
            for i, develop in enumerate(develops):
                world_seed = np.uint64(stream_seed(np.uint64(seed + 1), h * 64 + turn))
                sample_world(view, scratch, world_seed,
                             inference(develop=develop, belief=int(belief)))
                sums[i + 1, turn] += min_deadwood_mask(world_opponent(view, scratch))
    return sums, counts


def print_table(sums: np.ndarray, counts: np.ndarray, belief: bool = False) -> None:
    shown = counts > 0
    develops = BELIEF_DEVELOP if belief else DEVELOP
    name = "belief, develop" if belief else "develop"
    print("opponent turns  " + " ".join(f"{t:5d}" for t in np.flatnonzero(shown)))
    print("decisions       " + " ".join(f"{int(c):5d}" for c in counts[shown]))
    for i, label in enumerate(["true"] + [f"{name}={d}" for d in develops]):
        row = sums[i, shown] / counts[shown]
        print(f"{label:15s} " + " ".join(f"{v:5.1f}" for v in row))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m studies.mc_inference",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--opponent", default="simple")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--belief", action="store_true",
                        help="sample as mc:belief=1 does (the learned belief)")
    args = parser.parse_args(argv)
    print_table(*measure(args.hands, args.opponent, args.seed, args.belief), args.belief)
