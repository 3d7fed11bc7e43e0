"""The compiled batch loop: whole games with built-in strategies inside one compiled call.

It lives in the play layer, not the engine, because it is where the engine meets the
strategies: the loop asks the dispatcher :func:`strategies._dispatch.decide` (generated from the
strategy registry) for every decision and plays it
through the engine's own :func:`sim.engine.hand.advance` and :func:`sim.engine.hand.apply_move`.
"""

from __future__ import annotations

import numpy as np

from sim.engine.game import (
    GO_ERROR,
    GO_LEN,
    GS_OVER,
    end_hand,
    game_init,
    record_game,
    record_hand,
    start_hand,
)
from sim.engine.hand import DEC_OVER, OK, advance, apply_move
from sim.engine.jit import allocating, kernel
from sim.engine.rng import stream_seed
from sim.play.step import CALLER, clear_memory, new_tables, seat_move


@allocating
def play_batch_kernel(rules: np.ndarray, strategy_ids: np.ndarray, params: np.ndarray,
                      deck_base: np.uint64, strategy_base: np.uint64, first_game: int,
                      rotate: bool, out: np.ndarray) -> None:
    """Play games ``first_game .. first_game + len(out) - 1`` with built-in strategies.

    Game ``g`` draws its decks from stream ``g`` of ``deck_base`` and its strategy choices from
    stream ``g`` of ``strategy_base``, so results do not depend on how games are batched.
    ``rotate`` seats game ``g`` by the rotation (see :func:`game_init`). Allocates the buffers
    once (one table of :func:`sim.play.step.new_tables`, no move log), then plays in
    :func:`play_batch_into`.
    """
    gs, hs, pile, deck, after, moves, view, game_info, mem, scratch, rng = new_tables(1, 0)
    play_batch_into(rules, strategy_ids, params, deck_base, strategy_base, first_game, rotate,
                    out, gs[0], hs[0], pile[0], deck[0], after[0], moves[0], view[0],
                    game_info[0], mem[0], scratch, rng[0])


@kernel
def play_batch_into(rules: np.ndarray, strategy_ids: np.ndarray, params: np.ndarray,
                    deck_base: np.uint64, strategy_base: np.uint64, first_game: int,
                    rotate: bool, out: np.ndarray, gs: np.ndarray, hs: np.ndarray,
                    pile: np.ndarray, deck: np.ndarray, after: np.ndarray, moves: np.ndarray,
                    view: np.ndarray, game_info: np.ndarray, mem: np.ndarray,
                    scratch: np.ndarray, rng_states: np.ndarray) -> None:
    """The loop of :func:`play_batch_kernel`, in buffers it allocated (``after`` fresh)."""
    deck_rng = rng_states[0:1]
    strategy_rng = rng_states[1:2]
    for i in range(out.shape[0]):
        g = first_game + i
        deck_rng[0] = stream_seed(deck_base, g)
        strategy_rng[0] = stream_seed(strategy_base, g)
        row = out[i]
        for j in range(GO_LEN):
            row[j] = 0
        game_init(gs, rules, deck_rng, g if rotate else -1)
        while not gs[GS_OVER]:
            start_hand(gs, hs, pile, deck, rules, deck_rng, game_info)
            clear_memory(mem)
            while True:
                decision = advance(hs, pile, deck, after, moves)
                if decision == DEC_OVER:
                    break
                _, move = seat_move(decision, rules, strategy_ids, params, 0, gs, hs, pile,
                                    game_info, view, after, mem, strategy_rng, scratch)
                if move == CALLER or apply_move(hs, pile, deck, after, moves, move) != OK:
                    row[GO_ERROR] = 1
                    return
            record_hand(row, gs, hs)
            end_hand(gs, hs, rules)
        record_game(row, gs)
