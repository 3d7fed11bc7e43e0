"""The clairvoyant seat: ``mc``'s own search whose every world is the true deal, played
against built-in strategies by the one game loop.

Why a hook of the game loop: a strategy sees only its view, so no strategy can be
clairvoyant; the loop (:func:`sim.play.loop.play_game`) holds the true hand state, and the
hook hands it to the search at each of the seat's decisions. Everything else is the engine's
and the strategies': the seat step plays the other seats (and fills the clairvoyant seat's
view), and the search is ``mc``'s
(:func:`strategies.mc.shortlist`, :func:`strategies.mc.score`,
:func:`strategies.mc_choice.choose`) with :func:`strategies.mc_worlds.load_truth` putting the
true deal where a sampled world would go.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.engine.hand import HS_HAND, HS_TO_MOVE
from sim.engine.jit import allocating, kernel
from sim.engine.rng import next_u64
from sim.engine.view import V_LEN, V_OPP_TOOK, V_ROLE
from sim.play.loop import play_game, register_hooks
from sim.play.step import CALLER, GameBuffers, Seating, Streams, new_tables, table_row
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


class Clairvoyant(NamedTuple):
    """The clairvoyant seat as hooks of the one game loop (:mod:`sim.play.loop`): ``mc``'s
    parameters and network, what it sees (``SEES_*``), a view workspace and its decision
    counts (``C_*``)."""

    params: np.ndarray
    net: np.ndarray
    sees: int
    seen: np.ndarray
    counts: np.ndarray


@kernel
def _clairvoyant_decides(seer: Clairvoyant, seating: Seating, table: GameBuffers, decision: int,
                         seat: int, move: int) -> int:
    """The clairvoyant's move at its own decisions (the caller's, to the seat step), the
    built-ins' moves as they chose them."""
    if move != CALLER:
        return move
    scratch = table.scratch
    move = clairvoyant_move(seer.net, decision, seer.params, table.player_view, table.after,
                            table.mem[table.hs[HS_TO_MOVE]], table.rng[1:2], scratch, table.hs,
                            table.pile, table.deck, seer.sees, seer.seen)
    seer.counts[C_DECISIONS] += 1
    if scratch[S_COUNT] > 1:
        seer.counts[C_SEARCHED] += 1
    if move != scratch[S_CAND]:
        seer.counts[C_OVERRIDDEN] += 1
    return move


register_hooks(Clairvoyant, on_decision=_clairvoyant_decides)


@allocating
def play_clairvoyant(seating: Seating, seer: Clairvoyant, streams: Streams, first_game: int,
                     out: np.ndarray) -> None:
    """Play games ``first_game .. first_game + len(out) - 1`` with the clairvoyant ``seer``
    in the seats ``seating`` leaves to the caller and its built-ins in the others, seated as
    ``streams`` says; each game's statistics row to ``out`` (as the batch loop's, with
    ``GO_ERROR`` set and the game abandoned on an illegal move); the seat's decisions added
    to ``seer.counts`` (``C_*``). The games are the one game loop's
    (:func:`sim.play.loop.play_game`), so their deals are those of any other lineup on the
    same seeds."""
    table = table_row(new_tables(1, 0), 0)
    for i in range(out.shape[0]):
        play_game(seating, table, seer, streams, first_game + i, out[i])
