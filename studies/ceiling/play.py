"""The clairvoyant seat: ``mc``'s own search whose every world is the true deal, and the
compiled game loop that plays it against built-in strategies.

Why a loop of its own: a strategy sees only its view, so no strategy can be clairvoyant; the
loop holds the true hand state and hands it to the search at each of the seat's decisions.
Everything else is the engine's and the strategies': :func:`sim.play.step.seat_move` plays
the other seats (and fills the clairvoyant seat's view), and the search is ``mc``'s
(:func:`strategies.mc.shortlist`, :func:`strategies.mc.score`,
:func:`strategies.mc_choice.choose`) with :func:`strategies.mc_worlds.load_truth` putting the
true deal where a sampled world would go.
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
from sim.engine.hand import DEC_OVER, HS_HAND, HS_TO_MOVE, OK, advance, apply_move
from sim.engine.jit import allocating, kernel
from sim.engine.rng import next_u64, stream_seed
from sim.engine.view import V_LEN, V_OPP_TOOK, V_ROLE
from sim.play.step import CALLER, new_tables, seat_move
from strategies.builtin import MEM_LEN
from strategies.mc import P_TRUST, S_CAND, S_COUNT, score, shortlist
from strategies.mc_choice import choose
from strategies.mc_worlds import load_truth

N_COUNTS = 3
"""The loop's counts of the clairvoyant seat's decisions: all of them, those with more than
one candidate (searched), and those where it played another move than its base move."""
C_DECISIONS, C_SEARCHED, C_OVERRIDDEN = range(N_COUNTS)


SEES_ALL, SEES_HAND = 0, 1
"""What the clairvoyant seat sees: the whole deal (the opponent's hand and the stock order),
or the opponent's hand alone (the stock order still sampled, world by world, as ``mc``
does)."""


@kernel
def clairvoyant_move(net: np.ndarray, decision: int, params: np.ndarray, view: np.ndarray,
                     after: np.ndarray, mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray,
                     hs: np.ndarray, pile: np.ndarray, deck: np.ndarray, sees: int,
                     seen: np.ndarray) -> int:
    """``mc``'s move (``params``, searching with the network ``net`` where they ask for it)
    with the true hand ``hs``, ``pile``, ``deck`` before it: the same candidates, rollouts,
    scoring and decision rule. With ``SEES_ALL`` its one world is the truth: the rollouts
    draw no randomness, so that one world decides as any number of copies of it would, and
    ``rng`` is not read. With ``SEES_HAND`` the worlds are sampled as ``mc`` samples them
    from a view (copied to ``seen``) that counts the opponent's whole hand as cards he is
    known to hold, so every world deals him his true hand and only the stock is shuffled."""
    n_cand = shortlist(net, decision, params, view, after, mem, rng, scratch)
    best = 0
    if n_cand > 1:
        if sees == SEES_ALL:
            load_truth(scratch, hs, pile, deck)  # after the shortlist, which uses scratch
            worlds = score(net, decision, params, view, scratch, n_cand, np.uint64(0), True)
        else:
            for j in range(V_LEN):
                seen[j] = view[j]
            seen[V_OPP_TOOK] |= hs[HS_HAND + 1 - view[V_ROLE]]
            worlds = score(net, decision, params, seen, scratch, n_cand, next_u64(rng))
        best = choose(scratch, n_cand, worlds, max(0, params[P_TRUST]) / 10.0)
    return scratch[S_CAND + best]


@allocating
def play_clairvoyant(rules: np.ndarray, ids: np.ndarray, params: np.ndarray,
                     mc_params: np.ndarray, net: np.ndarray, seat: int, deck_base: np.uint64,
                     strategy_base: np.uint64, first_game: int, sees: int, out: np.ndarray,
                     counts: np.ndarray) -> None:
    """Play games ``first_game .. first_game + len(out) - 1`` with the clairvoyant ``mc``
    (``mc_params``, ``net``, seeing ``sees``) in ``seat`` and the built-ins ``ids``/``params``
    in the others, seated by the rotation; each game's statistics row to ``out`` (as the
    batch loop's, with ``GO_ERROR`` set and the game abandoned on an illegal move); add the
    seat's decisions to ``counts`` (``C_*``). Game ``g`` deals from stream ``g`` of
    ``deck_base`` and the strategies draw from stream ``g`` of ``strategy_base``, as in every
    ginbox run, so its deals are those of any other lineup on the same seed."""
    gs, hs, pile, deck, after, moves, view, game_info, mem, scratch, rng = new_tables(1, 0)
    gs, hs, pile, deck, after = gs[0], hs[0], pile[0], deck[0], after[0]
    moves, view, game_info, mem, rng = moves[0], view[0], game_info[0], mem[0], rng[0]
    controlled = 1 << seat
    seen = np.zeros(V_LEN, np.int64)
    for i in range(out.shape[0]):
        g = first_game + i
        rng[0] = stream_seed(deck_base, g)
        rng[1] = stream_seed(strategy_base, g)
        row = out[i]
        for j in range(GO_LEN):
            row[j] = 0
        game_init(gs, rules, rng[0:1], g)
        while not gs[GS_OVER] and not row[GO_ERROR]:
            start_hand(gs, hs, pile, deck, rules, rng[0:1], game_info)
            for j in range(MEM_LEN):
                mem[0, j] = 0
                mem[1, j] = 0
            while True:
                decision = advance(hs, pile, deck, after, moves)
                if decision == DEC_OVER:
                    break
                _, move = seat_move(decision, rules, ids, params, controlled, gs, hs, pile,
                                    game_info, view, after, mem, rng[1:2], scratch)
                if move == CALLER:
                    move = clairvoyant_move(net, decision, mc_params, view, after,
                                            mem[hs[HS_TO_MOVE]], rng[1:2], scratch, hs, pile,
                                            deck, sees, seen)
                    counts[C_DECISIONS] += 1
                    if scratch[S_COUNT] > 1:
                        counts[C_SEARCHED] += 1
                    if move != scratch[S_CAND]:
                        counts[C_OVERRIDDEN] += 1
                if apply_move(hs, pile, deck, after, moves, move) != OK:
                    row[GO_ERROR] = 1
                    break
            if row[GO_ERROR]:
                break
            record_hand(row, gs, hs)
            end_hand(gs, hs, rules)
        record_game(row, gs)
