"""The built-in strategies, compiled so that whole games run inside one compiled call.

Each strategy answers the four decisions of the protocol from a view array (``sim.view``),
the public discard pile, the deadwood left by each legal discard (``after``, filled by the rules
whenever the mover holds 11 cards), a per-hand memory row and the game's strategy random stream.
They never see the hand state. :func:`decide` dispatches on the strategy id.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.cards import CARD_VALUE, N_CODES
from sim.hand import (
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
    search_after,
)
from sim.melds import (
    CARD_MELD_COUNT,
    CARD_MELDS,
    NO_CARD,
    SEARCH_MELD_VALUES,
    SEARCH_MELDS,
    max_meld_value,
)
from sim.rng import below
from sim.view import V_DEADWOOD, V_DRAWN, V_HAND, V_KNOCK_LIMIT, V_KNOCKED, V_TOP

RANDOM = 0
SIMPLE = 1
GREEDY_KNOCK = 2
N_PARAMS = 8  # parameter slots per strategy
MEM_LEN = 256  # per-hand memory slots per player


@njit(cache=True)
def legal_discards(view: np.ndarray, after: np.ndarray, out: np.ndarray) -> int:
    """Write the cards the mover may discard now to ``out``; return how many.

    ``after`` already excludes a card that may not be discarded; after a knock only discards
    leaving deadwood within the knock limit are legal.
    """
    hand = view[V_HAND]
    limit = view[V_KNOCK_LIMIT] if view[V_KNOCKED] else NO_CARD - 1
    n = 0
    for c in range(N_CODES):
        if (hand >> c) & 1 and after[c] <= limit:
            out[n] = c
            n += 1
    return n


@njit(cache=True)
def deadwood_if_taken(hand: int, card: int, after: np.ndarray) -> int:
    """Least deadwood after taking ``card`` and discarding something else.

    Uses the rules' memoised search into ``after`` (free to use before the draw), so when the
    card is taken the rules' own check after the draw costs nothing.
    """
    search_after(hand | (1 << card), after)
    best = NO_CARD
    for c in range(N_CODES):
        if c != card and after[c] < best:
            best = after[c]
    return best


@njit(cache=True)
def in_some_best_meld(hand: int, card: int) -> bool:
    """Does ``card`` lie in a meld of some least-deadwood arrangement of ``hand | card``?"""
    h = hand | (1 << card)
    best = max_meld_value(h)
    if best == 0:
        return False
    for k in range(CARD_MELD_COUNT[card]):
        m = SEARCH_MELDS[CARD_MELDS[card, k]]
        if m & h == m:
            if SEARCH_MELD_VALUES[CARD_MELDS[card, k]] + max_meld_value(h & ~m) == best:
                return True
    return False


# ------------------------------------------------------------------------------------ random


@njit(cache=True)
def random_decide(decision: int, view: np.ndarray, after: np.ndarray, rng: np.ndarray,
                  scratch: np.ndarray) -> int:
    """Uniform over the legal choices at every decision, knock included."""
    if decision == DEC_OFFER:
        return MOVE_DRAW_DISCARD if below(rng, 2) else MOVE_PASS
    if decision == DEC_DRAW:
        return MOVE_DRAW_DISCARD if below(rng, 2) else MOVE_DRAW_STOCK
    if decision == DEC_KNOCK:
        return MOVE_KNOCK if below(rng, 2) else MOVE_NO_KNOCK
    n = legal_discards(view, after, scratch)
    return scratch[below(rng, n)]


# ------------------------------------------------------------------------------------ simple


@njit(cache=True)
def simple_decide(decision: int, view: np.ndarray, after: np.ndarray, mem: np.ndarray,
                  rng: np.ndarray, scratch: np.ndarray) -> int:
    """The EAAI challenge's reference player.

    Takes the upcard or discard only if it then lies in a meld of some least-deadwood
    arrangement; knocks as soon as it may; discards uniformly at random among the cards that
    leave least deadwood, never the card just taken, never the same (drawn card, discard) pair
    twice in one hand (``mem[0]`` counts the pairs, ``mem[1:]`` holds them).
    """
    if decision == DEC_OFFER or decision == DEC_DRAW:
        take = in_some_best_meld(view[V_HAND], view[V_TOP])
        if take:
            return MOVE_DRAW_DISCARD
        return MOVE_PASS if decision == DEC_OFFER else MOVE_DRAW_STOCK
    if decision == DEC_KNOCK:
        return MOVE_KNOCK
    n = legal_discards(view, after, scratch)
    drawn = view[V_DRAWN]
    best = NO_CARD
    n_best = 0
    for i in range(n):
        c = scratch[i]
        pair = drawn * 64 + c
        used = False
        for j in range(mem[0]):
            if mem[1 + j] == pair:
                used = True
                break
        if used:
            continue
        if after[c] < best:
            best = after[c]
            n_best = 0
        if after[c] == best:
            scratch[N_CODES + n_best] = c
            n_best += 1
    if n_best == 0:  # every legal discard repeats a pair: fall back to any least-deadwood one
        for i in range(n):
            c = scratch[i]
            if after[c] < best:
                best = after[c]
                n_best = 0
            if after[c] == best:
                scratch[N_CODES + n_best] = c
                n_best += 1
    pick = scratch[N_CODES + below(rng, n_best)]
    if mem[0] < mem.shape[0] - 1:
        mem[1 + mem[0]] = drawn * 64 + pick
        mem[0] += 1
    return pick


# ------------------------------------------------------------------------------ greedy-knock


@njit(cache=True)
def greedy_discard(view: np.ndarray, after: np.ndarray, scratch: np.ndarray) -> int:
    """Least deadwood; ties to the highest-value card, then the highest card code."""
    n = legal_discards(view, after, scratch)
    pick = scratch[0]
    for i in range(1, n):
        c = scratch[i]
        if after[c] < after[pick] or (
            after[c] == after[pick] and CARD_VALUE[c] >= CARD_VALUE[pick]
        ):
            pick = c
    return pick


@njit(cache=True)
def greedy_decide(decision: int, params: np.ndarray, view: np.ndarray, after: np.ndarray,
                  scratch: np.ndarray) -> int:
    """Take a card only when it lowers least deadwood; knock at ``knock_at`` (params[0]).

    ``params[0] < 0`` means the rules' knock limit.
    """
    hand = view[V_HAND]
    if decision == DEC_OFFER or decision == DEC_DRAW:
        top = view[V_TOP]
        if deadwood_if_taken(hand, top, after) < view[V_DEADWOOD]:
            return MOVE_DRAW_DISCARD
        return MOVE_PASS if decision == DEC_OFFER else MOVE_DRAW_STOCK
    if decision == DEC_KNOCK:
        knock_at = params[0] if params[0] >= 0 else view[V_KNOCK_LIMIT]
        best = NO_CARD
        for c in range(N_CODES):
            if after[c] < best:
                best = after[c]
        return MOVE_KNOCK if best <= knock_at else MOVE_NO_KNOCK
    return greedy_discard(view, after, scratch)


# ---------------------------------------------------------------------------------- dispatch


@njit(cache=True)
def decide(strategy_id: int, params: np.ndarray, decision: int, view: np.ndarray,
           pile: np.ndarray, after: np.ndarray, mem: np.ndarray, rng: np.ndarray,
           scratch: np.ndarray) -> int:
    """The move of built-in strategy ``strategy_id`` for this decision."""
    if strategy_id == SIMPLE:
        return simple_decide(decision, view, after, mem, rng, scratch)
    if strategy_id == GREEDY_KNOCK:
        return greedy_decide(decision, params, view, after, scratch)
    return random_decide(decision, view, after, rng, scratch)


SCRATCH_LEN = 2 * N_CODES
