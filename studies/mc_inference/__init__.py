"""How developed is an opponent's hand by a given turn? Calibrates ``mc``'s ``develop``.

Run: ``python -m studies.mc_inference [--hands N] [--opponent simple]``. Plays hands of
``mc``'s base heuristic (``discard-tracking``) against the opponent through the engine and, at
each of the first player's draws, compares the opponent's true least deadwood with that of the
hands ``mc`` samples from the same view with each ``develop`` value (one world per decision).
Prints the mean by the opponent's turns so far; the ``develop`` whose row tracks the truth
is the one to use. Seed fixed (2026).
"""

from __future__ import annotations

import argparse

import numpy as np

from sim.engine.game import shuffle_deck
from sim.engine.hand import (
    DEC_DRAW,
    DEC_OVER,
    HS_HAND,
    HS_TO_MOVE,
    OK,
    advance,
    apply_move,
    deal,
    new_hand_buffers,
)
from sim.engine.melds import min_deadwood_mask
from sim.engine.rng import stream_seed
from sim.engine.rules import Rules
from sim.engine.view import GI_LEN, GI_PLAYERS, GI_TARGET, V_LEN, V_TURN, fill_view
from strategies._dispatch import decide
from strategies.builtin import MEM_LEN, SCRATCH_LEN
from strategies.mc_worlds import S_BASE, sample_world
from strategies.registry import parse_strategy

DEVELOP = (0, 5, 10, 20, 40)


def measure(hands: int, opponent: str, seed: int = 2026) -> None:
    rules = Rules.preset("eaai").to_array()
    me = parse_strategy("discard-tracking")
    opp = parse_strategy(opponent)
    ids = (me.strategy_id, opp.strategy_id)
    params = (me.params_array(), opp.params_array())
    sums = np.zeros((len(DEVELOP) + 1, 16))
    counts = np.zeros(16)
    rng = np.array([seed], np.uint64)
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    for h in range(hands):
        hs, pile, after, moves = new_hand_buffers(0)
        deck = np.zeros(52, np.int64)
        shuffle_deck(deck, np.array([stream_seed(np.uint64(seed), h)], np.uint64))
        deal(hs, pile, deck, rules)
        view = np.zeros(V_LEN, np.int64)
        info = np.zeros(GI_LEN, np.int64)
        info[GI_TARGET], info[GI_PLAYERS] = 100, 2
        mem = np.zeros((2, MEM_LEN), np.int64)
        while (decision := advance(hs, pile, deck, after, moves)) != DEC_OVER:
            p = hs[HS_TO_MOVE]
            fill_view(view, hs, pile, info, decision)
            if p == 0 and decision == DEC_DRAW:
                turn = min(15, int(view[V_TURN]) // 2)
                counts[turn] += 1
                sums[0, turn] += min_deadwood_mask(int(hs[HS_HAND + 1]))
                for i, d in enumerate(DEVELOP):
                    sample_world(view, scratch,
                                 np.uint64(stream_seed(np.uint64(seed + 1), h * 64 + turn)),
                                 0, d)
                    sums[i + 1, turn] += min_deadwood_mask(int(scratch[S_BASE + HS_HAND + 1]))
            move = decide(ids[p], decision, params[p], view, after, mem[p], rng, scratch)
            assert apply_move(hs, pile, deck, after, moves, move) == OK
    shown = counts > 0
    print("opponent turns  " + " ".join(f"{t:5d}" for t in np.flatnonzero(shown)))
    print("decisions       " + " ".join(f"{int(c):5d}" for c in counts[shown]))
    for i, label in enumerate(["true"] + [f"develop={d}" for d in DEVELOP]):
        row = sums[i, shown] / counts[shown]
        print(f"{label:15s} " + " ".join(f"{v:5.1f}" for v in row))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m studies.mc_inference", description=__doc__)
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--opponent", default="simple")
    args = parser.parse_args()
    measure(args.hands, args.opponent)

