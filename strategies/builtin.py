"""The built-in strategies, compiled so that whole games run inside one compiled call.

Each strategy answers the four decisions of the protocol from a view array (``sim.engine.view``),
the public discard pile, the deadwood left by each legal discard (``after``, filled by the rules
whenever the mover holds 11 cards), a per-hand memory row and the game's strategy random stream.
They never see the hand state.

Every strategy's decision function has one signature, :data:`SIGNATURE`::

    def name_decide(decision, params, view, after, mem, rng, scratch) -> move

and is declared beside it, with its id, name, parameters and description, by one
:class:`strategies.declare.StrategyInfo` (``RANDOM``, ``SIMPLE``, ...), which
``strategies.registry.BUILTINS`` collects. :func:`decide` (``strategies._dispatch``, generated
from that table by ``python -m strategies.generate``) dispatches on the strategy id.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from sim.engine.cards import CARD_VALUE, FULL_MASK, N_CODES
from sim.engine.hand import (
    AF_TIES,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
    best_discards,
    deadwood_table,
)
from sim.engine.jit import kernel
from sim.engine.melds import (
    CARD_MELD_COUNT,
    CARD_MELDS,
    NO_CARD,
    SEARCH_MELD_VALUES,
    SEARCH_MELDS,
    max_meld_value,
    pick_highest,
    popcount,
)
from sim.engine.rng import below
from sim.engine.view import (
    V_DEADWOOD,
    V_DRAWN,
    V_FORBIDDEN,
    V_HAND,
    V_KNOCK_LIMIT,
    V_KNOCKED,
    V_OPP_DECLINED,
    V_OPP_DISCARDED,
    V_OPP_TOOK,
    V_PILE_MASK,
    V_STOCK,
    V_TOP,
    V_TURN,
    V_WALL,
    legal_moves,
)
from strategies.declare import ParamInfo, Params, StrategyInfo

SIGNATURE = ("decision", "params", "view", "after", "mem", "rng", "scratch")
"""The arguments of every compiled strategy's decision function, in order."""
N_PARAMS = 20  # parameter slots per strategy
MEM_LEN = 256  # per-hand memory slots per player


@kernel(inline="always")
def deadwood_if_taken(hand: int, card: int, after: np.ndarray) -> int:
    """Least deadwood after taking ``card`` and discarding something else.

    Uses the rules' memoised search in ``after`` (free to use before the draw), so when the
    card is taken the rules' own check after the draw costs nothing.
    """
    return best_discards(hand | (1 << card), card, after)


@kernel(inline="always")
def best_ties(view: np.ndarray, after: np.ndarray) -> int:
    """Mask of the legal discards leaving least deadwood (memoised: usually free)."""
    best_discards(view[V_HAND], view[V_FORBIDDEN], after)
    return after[AF_TIES]


@kernel
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


@kernel
def take_into_meld(decision: int, view: np.ndarray) -> int:
    """The draw rule of simple, gin-hunter and discard-tracking: take the top card (or the
    upcard) only when it then lies in a meld of some least-deadwood arrangement."""
    if in_some_best_meld(view[V_HAND], view[V_TOP]):
        return MOVE_DRAW_DISCARD
    return MOVE_PASS if decision == DEC_OFFER else MOVE_DRAW_STOCK


# ------------------------------------------------------------------------------------ random


@kernel
def random_decide(decision: int, params: np.ndarray, view: np.ndarray, after: np.ndarray,
                  mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """Uniform over the legal choices at every decision, knock included."""
    if decision == DEC_OFFER:
        return MOVE_DRAW_DISCARD if below(rng, 2) else MOVE_PASS
    if decision == DEC_DRAW:
        return MOVE_DRAW_DISCARD if below(rng, 2) else MOVE_DRAW_STOCK
    if decision == DEC_KNOCK:
        return MOVE_KNOCK if below(rng, 2) else MOVE_NO_KNOCK
    n = legal_moves(view, after, scratch)
    return scratch[below(rng, n)]


RANDOM = StrategyInfo(name="random", strategy_id=0, decide=random_decide,
                      description="uniform over the legal choices at every decision")


# ------------------------------------------------------------------------------------ simple


@kernel
def simple_decide(decision: int, params: np.ndarray, view: np.ndarray, after: np.ndarray,
                  mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """The EAAI challenge's reference player.

    Takes the upcard or discard only if it then lies in a meld of some least-deadwood
    arrangement; knocks as soon as it may; discards uniformly at random among the cards that
    leave least deadwood, never the card just taken, never the same (drawn card, discard) pair
    twice in one hand (``mem[0]`` counts the pairs, ``mem[1:]`` holds them).
    """
    if decision == DEC_OFFER or decision == DEC_DRAW:
        return take_into_meld(decision, view)
    if decision == DEC_KNOCK:
        return MOVE_KNOCK
    drawn = view[V_DRAWN]
    candidates = _unused_pairs(best_ties(view, after), drawn, mem)
    if candidates == 0:  # every best discard repeats a pair: the best of the others
        n = legal_moves(view, after, scratch)
        deadwood_table(view[V_HAND], view[V_FORBIDDEN], after)
        allowed = 0
        for i in range(n):
            allowed |= 1 << scratch[i]
        rest = _unused_pairs(allowed, drawn, mem)
        if rest == 0:
            rest = allowed
        best = NO_CARD
        m = rest
        while m:
            c = trailing_zeros(m)
            m &= m - 1
            if after[c] < best:
                best = after[c]
                candidates = 0
            if after[c] == best:
                candidates |= 1 << c
    n_best = 0
    m = candidates
    while m:
        scratch[n_best] = trailing_zeros(m)
        m &= m - 1
        n_best += 1
    pick = scratch[below(rng, n_best)]
    if mem[0] < mem.shape[0] - 1:
        mem[1 + mem[0]] = drawn * 64 + pick
        mem[0] += 1
    return pick


SIMPLE = StrategyInfo(name="simple", strategy_id=1, decide=simple_decide,
                      description="the EAAI reference player: takes a card only into a best "
                                  "meld, knocks at once")


@kernel
def _unused_pairs(cards: int, drawn: int, mem: np.ndarray) -> int:
    """``cards`` less those already discarded after drawing ``drawn`` this hand."""
    for j in range(mem[0]):
        if mem[1 + j] // 64 == drawn:
            cards &= ~(1 << (mem[1 + j] % 64))
    return cards


# ------------------------------------------------------------------------------ greedy-knock

GREEDY_PARAMS = Params("GK_", (
    ParamInfo("knock_at", None, 0, 10, "knock at this deadwood or less "
              "(default: the knock limit)"),
))
(GK_KNOCK_AT,) = GREEDY_PARAMS.slots
GREEDY_PARAMS.check(globals())


@kernel(inline="always")
def greedy_decide(decision: int, params: np.ndarray, view: np.ndarray, after: np.ndarray,
                  mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """Take a card only when it lowers least deadwood; knock at ``knock_at``.

    ``knock_at < 0`` means the rules' knock limit. Discards the card leaving least deadwood;
    ties go to the highest-value card, then the highest card code.
    """
    hand = view[V_HAND]
    if decision == DEC_OFFER or decision == DEC_DRAW:
        if deadwood_if_taken(hand, view[V_TOP], after) < view[V_DEADWOOD]:
            return MOVE_DRAW_DISCARD
        return MOVE_PASS if decision == DEC_OFFER else MOVE_DRAW_STOCK
    if decision == DEC_KNOCK:
        knock_at = params[GK_KNOCK_AT] if params[GK_KNOCK_AT] >= 0 else view[V_KNOCK_LIMIT]
        best = best_discards(hand, view[V_FORBIDDEN], after)
        return MOVE_KNOCK if best <= knock_at else MOVE_NO_KNOCK
    return pick_highest(best_ties(view, after))


GREEDY_KNOCK = StrategyInfo(
    name="greedy-knock", strategy_id=2, decide=greedy_decide,
    description="takes a card only when it lowers deadwood; knocks as soon as "
                "deadwood <= knock_at",
    params=GREEDY_PARAMS.params, twin="strategies.examples:GreedyKnockPy")


# ------------------------------------------------------------------------- shared knowledge


def _three_card_melds() -> tuple[np.ndarray, np.ndarray]:
    """For each card, the 3-card melds containing it (masks), -1 padded; and their count."""
    table = np.full((N_CODES, 8), -1, np.int64)
    count = np.zeros(N_CODES, np.int64)
    for m in SEARCH_MELDS:
        if bin(int(m)).count("1") != 3:
            continue
        for c in range(N_CODES):
            if (int(m) >> c) & 1:
                table[c, count[c]] = m
                count[c] += 1
    return table, count


CARD_MELD3, CARD_MELD3_COUNT = _three_card_melds()


@kernel
def opponent_holds(view: np.ndarray) -> int:
    """Cards the opponent is known to hold: taken from the pile and not discarded since."""
    return view[V_OPP_TOOK] & ~view[V_OPP_DISCARDED]


@kernel
def live_cards(view: np.ndarray) -> int:
    """Cards that may still be drawn: not in own hand, not in the pile, not known held."""
    return FULL_MASK & ~view[V_HAND] & ~view[V_PILE_MASK] & ~opponent_holds(view)


@kernel
def meld_potential(card: int, rest: int, live: int) -> int:
    """How much ``card`` is worth keeping with the cards ``rest``.

    10 for each 3-card meld it already completes with ``rest``; 1 for each 3-card meld that
    one more live card would complete. A partial meld whose completing cards are all dead
    counts nothing.
    """
    score = 0
    for k in range(CARD_MELD3_COUNT[card]):
        others = CARD_MELD3[card, k] & ~(1 << card)
        held = others & rest
        if held == others:
            score += 10
        elif held != 0 and (others & ~held & live) != 0:
            score += 1
    return score


@kernel
def feeds_opponent(card: int, opp: int, opp_shed: int) -> int:
    """How well ``card`` fits what the opponent has shown he collects (0 = not at all).

    +2 per known opponent card of the same rank or a suited neighbour, +1 per suited card two
    away; -1 when the opponent has discarded that rank or a suited neighbour himself.
    """
    rank = card % 16
    suit_base = card - rank
    fit = 0
    m = opp
    while m:
        o = trailing_zeros(m)
        m &= m - 1
        if o % 16 == rank:
            fit += 2
        elif o - (o % 16) == suit_base:
            gap = abs(o % 16 - rank)
            if gap == 1:
                fit += 2
            elif gap == 2:
                fit += 1
    m = opp_shed
    while m:
        o = trailing_zeros(m)
        m &= m - 1
        if o % 16 == rank or (o - (o % 16) == suit_base and abs(o % 16 - rank) == 1):
            fit -= 1
            break
    return fit


# --------------------------------------------------------------------------------- gin-hunter

GIN_HUNTER_PARAMS = Params("GH_", (
    ParamInfo("stock_low", 8, 0, 31, "knock short of gin once the stock is this low"),
    ParamInfo("tiny", 2, 0, 10, "knock with this deadwood or less when pressed"),
    ParamInfo("close_pickups", 2, 0, 10,
              "pressed: the opponent holds this many cards from the pile"),
))
GH_STOCK_LOW, GH_TINY, GH_CLOSE_PICKUPS = GIN_HUNTER_PARAMS.slots
GIN_HUNTER_PARAMS.check(globals())


@kernel
def gin_hunter_decide(decision: int, params: np.ndarray, view: np.ndarray, after: np.ndarray,
                      mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """Plays for gin: keeps connected cards, knocks short of gin only late or when pressed.

    params: ``stock_low``: knock short of gin once the stock holds at most this many cards;
    ``tiny``: knock with this much deadwood or less when the opponent looks close;
    ``close_pickups``: the opponent looks close once he holds this many cards from the pile.
    """
    hand = view[V_HAND]
    if decision == DEC_OFFER or decision == DEC_DRAW:
        return take_into_meld(decision, view)
    best = best_discards(hand, view[V_FORBIDDEN], after)
    if decision == DEC_KNOCK:
        if best == 0 or view[V_STOCK] <= params[GH_STOCK_LOW]:
            return MOVE_KNOCK
        pressed = popcount(opponent_holds(view)) >= params[GH_CLOSE_PICKUPS]
        if best <= params[GH_TINY] and pressed:
            return MOVE_KNOCK
        return MOVE_NO_KNOCK
    if view[V_KNOCKED]:
        return pick_highest(after[AF_TIES])
    n = legal_moves(view, after, scratch)
    deadwood_table(hand, view[V_FORBIDDEN], after)
    live = live_cards(view)
    pick = -1
    pick_key = 0
    for i in range(n):
        c = scratch[i]
        # fewest meld chances first, then least deadwood left, then the highest card
        key = (meld_potential(c, hand & ~(1 << c), live) * 3 + after[c]) * 16 - CARD_VALUE[c]
        if pick < 0 or key <= pick_key:
            pick = c
            pick_key = key
    return pick


GIN_HUNTER = StrategyInfo(
    name="gin-hunter", strategy_id=3, decide=gin_hunter_decide,
    description="plays for gin: keeps connected cards, knocks short of gin only late "
                "or pressed",
    params=GIN_HUNTER_PARAMS.params)

# --------------------------------------------------------------------------- discard-tracking

DISCARD_TRACKING_PARAMS = Params("DT_", (
    ParamInfo("knock_at", None, 0, 10, "highest deadwood it knocks with "
              "(default: the knock limit)"),
    ParamInfo("slack", 1, 0, 20, "extra deadwood accepted for a safer discard"),
    ParamInfo("caution", 1, 0, 10, "how fast the knock threshold falls as the "
              "opponent shows melds and the hand gets late"),
))
DT_KNOCK_AT, DT_SLACK, DT_CAUTION = DISCARD_TRACKING_PARAMS.slots
DISCARD_TRACKING_PARAMS.check(globals())


@kernel
def discard_tracking_decide(decision: int, params: np.ndarray, view: np.ndarray,
                            after: np.ndarray, mem: np.ndarray, rng: np.ndarray,
                            scratch: np.ndarray) -> int:
    """Greedy play sharpened by memory of every card seen this hand.

    params: ``knock_at`` (-1: the knock limit); ``slack``: extra deadwood it accepts for a
    safer or more promising discard; ``caution``: how fast its knock threshold falls as the
    opponent shows melds and the hand gets late (undercut risk).
    """
    hand = view[V_HAND]
    if decision == DEC_OFFER or decision == DEC_DRAW:
        return take_into_meld(decision, view)
    best = best_discards(hand, view[V_FORBIDDEN], after)
    if decision == DEC_KNOCK:
        limit = params[DT_KNOCK_AT] if params[DT_KNOCK_AT] >= 0 else view[V_KNOCK_LIMIT]
        shown = popcount(opponent_holds(view))
        late = view[V_TURN] // 10
        threshold = limit - params[DT_CAUTION] * max(0, shown + late - 2)
        if best == 0 or best <= threshold or view[V_STOCK] <= view[V_WALL] + 2:
            return MOVE_KNOCK
        return MOVE_NO_KNOCK
    if view[V_KNOCKED]:
        return pick_highest(after[AF_TIES])
    n = legal_moves(view, after, scratch)
    deadwood_table(hand, view[V_FORBIDDEN], after)
    live = live_cards(view)
    opp = opponent_holds(view)
    shed = view[V_OPP_DISCARDED]  # what he threw away, and an upcard he declined, he lacks
    if view[V_OPP_DECLINED] >= 0:
        shed |= 1 << view[V_OPP_DECLINED]
    pick = -1
    pick_key = 0
    for i in range(n):
        c = scratch[i]
        extra = after[c] - best
        if extra > params[DT_SLACK]:
            continue
        key = 4 * extra + 3 * feeds_opponent(c, opp, shed) + meld_potential(
            c, hand & ~(1 << c), live)
        key = key * 16 - CARD_VALUE[c]
        if pick < 0 or key <= pick_key:
            pick = c
            pick_key = key
    return pick


DISCARD_TRACKING = StrategyInfo(
    name="discard-tracking", strategy_id=4, decide=discard_tracking_decide,
    description="remembers every card seen: live cards, safe discards, undercut-aware "
                "knocking",
    params=DISCARD_TRACKING_PARAMS.params)

SCRATCH_LEN = 6016
"""Scratch slots every compiled strategy may use: mc's search buffers (a rolled-out hand
state with the showdown's workspace, piles, deck, its belief's odds, the knock model's
sums, the keep model's weights) need about 4,500 (strategies.mc_worlds checks), and the
network's workspace takes the last 1,500 (strategies.net; strategies.mc checks that they do
not meet)."""

