"""The learning environments' observation and action space, compiled and shared by all three.

Every environment of :mod:`sim.env` (the PettingZoo ``raw_env``, the Gymnasium
``SingleAgentEnv`` and the compiled ``VectorEnv``) encodes what the player to move sees with
:func:`encode_observation` from the engine's own view array (``sim.engine.view.fill_view``),
and lists the legal actions with :func:`fill_action_mask`, which asks the engine's
``legal_moves`` kernel: there is no second copy of the rules here, only a translation between
the engine's moves and one flat discrete action space.

Actions (``N_ACTIONS`` = 108):

======================  ===========================================================
action                  meaning
======================  ===========================================================
0 ``PASS``              decline the first upcard (the offer)
1 ``TAKE_UPCARD``       take the first upcard (the offer)
2 ``DRAW_STOCK``        draw the top card of the stock
3 ``DRAW_PILE``         draw the top card of the discard pile
4 + i ``DISCARD``       discard card i (i = suit * 13 + rank, suits S H D C, ace 0)
56 + i ``KNOCK``        knock and discard card i (only when that leaves deadwood within
                        the hand's knock limit)
======================  ===========================================================

The engine asks "knock or not?" as a separate question after a draw; here the answer and the
discard are one action, so every step is one of three decisions: the offer, the draw, the
discard. The observation layout is declared once in ``OBS_LAYOUT`` (docs/environments.md has
the table).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from sim.engine.cards import DECK, N_CODES, card_str
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
)
from sim.engine.jit import kernel
from sim.engine.layout import Layout, Record
from sim.engine.variants import VARIANTS
from sim.engine.view import (
    DECISION_NAMES,
    V_DECISION,
    V_HAND,
    V_KNOCK_LIMIT,
    V_KNOCKED,
    V_LEN,
    V_OPP_DISCARDED,
    V_OPP_TOOK,
    V_PILE_MASK,
    V_ROLE,
    V_SCORE_OPP,
    V_SCORE_OTHER,
    V_SCORE_SELF,
    V_STOCK,
    V_TARGET,
    V_TOP,
    VIEW_BLOCKS,
    View,
    legal_moves,
    view_fields,
)

N_CARDS = 52
STOCK_SIZE = 31  # cards in the stock after the deal (the stock count is scaled by it)
MAX_KNOCK_LIMIT = 10
#: Bound of the score / target slots: a score is below target + 2 * (1000 + 98) * 2 points
#: (bonus and deadwood limits, spade doubling) and the target is at least 1.
MAX_SCORE_RATIO = 1e4

# The action space.
A_PASS = 0
A_TAKE_UPCARD = 1
A_DRAW_STOCK = 2
A_DRAW_PILE = 3
A_DISCARD = 4  # + card index
A_KNOCK = A_DISCARD + N_CARDS  # + card index
N_ACTIONS = A_KNOCK + N_CARDS
#: Names of the first four actions (the rest are "discard XX" and "knock XX").
ACTION_NAMES = ("pass", "take_upcard", "draw_stock", "draw_pile")

#: Card index (0..51, suit * 13 + rank) -> engine card code, and back (-1: not a card).
CARD_OF_INDEX = DECK.copy()
INDEX_OF_CARD = np.full(N_CODES, -1, np.int64)
INDEX_OF_CARD[DECK] = np.arange(N_CARDS)

# The observation: six planes over the 52 cards, then scalars. Declared once (offsets by Layout).
OBS_LAYOUT = Layout("O_", [
    ("HAND", N_CARDS),  # own cards
    ("TOP", N_CARDS),  # the top card of the discard pile
    ("PILE", N_CARDS),  # the rest of the discard pile
    ("OPP_HOLDS", N_CARDS),  # cards the opponent took from the pile and still holds
    ("OPP_DISCARDED", N_CARDS),  # cards the opponent discarded this hand
    ("UNSEEN", N_CARDS),  # cards in the stock or the opponent's hand, not known to be there
    ("ROLE", 1),  # 1 the non-dealer (the captain), 0 the dealer (the box)
    ("SCORE_SELF", 1),  # own score / target
    ("SCORE_OPP", 1),  # the opponent's score / target
    ("SCORE_OTHER", 1),  # the sitter's score / target (three-handed), else 0
    ("STOCK", 1),  # cards left in the stock / 31
    ("DECISION", 4),  # one-hot: offer, draw, discard, discard where knocking is legal
    ("KNOCK_LIMIT", 1),  # the hand's knock limit / 10
], np.float32)
(O_HAND, O_TOP, O_PILE, O_OPP_HOLDS, O_OPP_DISCARDED, O_UNSEEN, O_ROLE, O_SCORE_SELF,
 O_SCORE_OPP, O_SCORE_OTHER, O_STOCK, O_DECISION, O_KNOCK_LIMIT) = OBS_LAYOUT.offsets
OBS_LAYOUT.check(globals())
OBS_LEN = OBS_LAYOUT.length


def observation_fields(obs: np.ndarray) -> Record:
    """An observation (float32, ``OBS_LEN``) by name (``seen.hand[card]``, ``seen.stock``), or
    a 2-D batch by column: how Python code reads it without ``O_*`` offsets."""
    return OBS_LAYOUT.record(obs)
N_PLANES = 6
#: Index of the one-hot DECISION slot for each engine decision (offer, draw, knock, discard).
DECISION_SLOT = np.array([0, 1, 3, 2], np.int64)
FULL52 = np.int64(sum(1 << int(c) for c in DECK))


@kernel(inline="always")
def _plane(obs: np.ndarray, at: int, mask: int) -> None:
    m = mask
    while m:
        c = trailing_zeros(m)
        m &= m - 1
        obs[at + INDEX_OF_CARD[c]] = 1.0


@kernel
def encode_observation(view: np.ndarray, obs: np.ndarray, hide_hand: bool) -> None:
    """Write the observation of the player whose engine view ``view`` is into ``obs``.

    ``view[V_DECISION]`` may be DEC_OVER (no decision: the one-hot is all zero).
    ``hide_hand``: leave the own-hand plane empty (the public view a sitter gets).
    """
    for j in range(OBS_LEN):  # explicit loop: numba's slice fill is slower on small arrays
        obs[j] = 0.0
    hand = 0 if hide_hand else view[V_HAND]
    pile = view[V_PILE_MASK]
    top = view[V_TOP]
    rest = pile & ~(1 << top) if top >= 0 else pile
    # a card the opponent took is in its hand unless it is back in the pile or in ours
    holds = view[V_OPP_TOOK] & ~pile & ~view[V_HAND]
    _plane(obs, O_HAND, hand)
    if top >= 0:
        obs[O_TOP + INDEX_OF_CARD[top]] = 1.0
    _plane(obs, O_PILE, rest)
    _plane(obs, O_OPP_HOLDS, holds)
    _plane(obs, O_OPP_DISCARDED, view[V_OPP_DISCARDED])
    _plane(obs, O_UNSEEN, FULL52 & ~(hand | pile | holds))
    obs[O_ROLE] = view[V_ROLE]
    target = max(view[V_TARGET], 1)
    obs[O_SCORE_SELF] = view[V_SCORE_SELF] / target
    obs[O_SCORE_OPP] = view[V_SCORE_OPP] / target
    obs[O_SCORE_OTHER] = view[V_SCORE_OTHER] / target
    obs[O_STOCK] = view[V_STOCK] / STOCK_SIZE
    decision = view[V_DECISION]
    if 0 <= decision <= DEC_DISCARD:
        obs[O_DECISION + DECISION_SLOT[decision]] = 1.0
    obs[O_KNOCK_LIMIT] = view[V_KNOCK_LIMIT] / MAX_KNOCK_LIMIT


@kernel(inline="always")
def _discard_mask(view: np.ndarray, after: np.ndarray, buf: np.ndarray, mask: np.ndarray,
                  knocked: int, base: int) -> int:
    """Mark ``base + index`` for every card the engine's legal_moves allows at a discard;
    return how many."""
    view[V_DECISION] = DEC_DISCARD
    view[V_KNOCKED] = knocked
    n = legal_moves(view, after, buf)
    for k in range(n):
        mask[base + INDEX_OF_CARD[buf[k]]] = 1
    return n


@kernel
def fill_action_mask(view: np.ndarray, after: np.ndarray, buf: np.ndarray,
                     mask: np.ndarray) -> int:
    """Mark the legal actions of the view's decision in ``mask`` (int8); return how many.

    Every answer comes from the engine's ``legal_moves``: at the knock question, the plain
    discards are its discards without a knock and the knock actions its discards after one.
    ``buf`` needs room for 11 entries; ``view`` is restored before returning.
    """
    for j in range(N_ACTIONS):
        mask[j] = 0
    decision = view[V_DECISION]
    count = 0
    if decision == DEC_OFFER or decision == DEC_DRAW:
        count = legal_moves(view, after, buf)
        for k in range(count):
            move = buf[k]
            if move == MOVE_PASS:
                mask[A_PASS] = 1
            elif move == MOVE_DRAW_STOCK:
                mask[A_DRAW_STOCK] = 1
            elif move == MOVE_DRAW_DISCARD:
                mask[A_TAKE_UPCARD if decision == DEC_OFFER else A_DRAW_PILE] = 1
    elif decision == DEC_KNOCK:
        knocked = view[V_KNOCKED]
        count = _discard_mask(view, after, buf, mask, 0, A_DISCARD)
        count += _discard_mask(view, after, buf, mask, 1, A_KNOCK)
        view[V_DECISION] = DEC_KNOCK
        view[V_KNOCKED] = knocked
    elif decision == DEC_DISCARD:
        count = _discard_mask(view, after, buf, mask, view[V_KNOCKED], A_DISCARD)
    return count


@kernel(inline="always")
def first_move(decision: int, action: int) -> int:
    """The engine move an action starts with at ``decision``; -1 if it does not answer it.

    A discard or knock action at the knock question is two engine moves: MOVE_NO_KNOCK or
    MOVE_KNOCK, then the card (:func:`card_of_action`).
    """
    if decision == DEC_OFFER:
        if action == A_PASS:
            return MOVE_PASS
        if action == A_TAKE_UPCARD:
            return MOVE_DRAW_DISCARD
        return -1
    if decision == DEC_DRAW:
        if action == A_DRAW_STOCK:
            return MOVE_DRAW_STOCK
        if action == A_DRAW_PILE:
            return MOVE_DRAW_DISCARD
        return -1
    if decision == DEC_KNOCK:
        if A_DISCARD <= action < A_KNOCK:
            return MOVE_NO_KNOCK
        if A_KNOCK <= action < N_ACTIONS:
            return MOVE_KNOCK
        return -1
    if decision == DEC_DISCARD and A_DISCARD <= action < A_KNOCK:
        return CARD_OF_INDEX[action - A_DISCARD]
    return -1


@kernel(inline="always")
def card_of_action(action: int) -> int:
    """The card code a discard or knock action discards (-1 for the other actions)."""
    if A_DISCARD <= action < A_KNOCK:
        return CARD_OF_INDEX[action - A_DISCARD]
    if A_KNOCK <= action < N_ACTIONS:
        return CARD_OF_INDEX[action - A_KNOCK]
    return -1


def view_array(view: View) -> np.ndarray:
    """The engine's view array of a plain-Python :class:`~sim.engine.view.View`: the inverse of
    ``View.from_arrays``, so a plain-Python strategy can encode the observation a learning
    environment gives (tests/test_env.py checks it gives back every slot)."""
    def opt(x: int | None) -> int:
        return -1 if x is None else int(x)

    def mask(cards: Iterable[int]) -> int:
        m = 0
        for c in cards:
            m |= 1 << int(c)
        return m

    seen = view_fields(np.zeros(V_LEN, np.int64))
    seen.hand = view.hand_mask
    seen.role = 0 if view.role == "dealer" else 1
    seen.decision = DECISION_NAMES.index(view.decision)
    seen.stock = view.stock_count
    seen.turn = view.turn
    seen.pile_len = len(view.discard_pile)
    seen.top = opt(view.top)
    seen.opp_took = mask(view.opponent_took)
    seen.opp_discarded = mask(view.opponent_discarded)
    seen.opp_declined = opt(view.opponent_declined)
    seen.self_declined = opt(view.self_declined)
    seen.self_took = mask(view.self_took)
    seen.drawn = opt(view.drawn)
    seen.taken = opt(view.taken)
    seen.knock_limit = view.knock_limit
    seen.upcard = view.upcard
    seen.score_self = view.score
    seen.score_opp = view.opponent_score
    seen.score_other = view.other_score
    seen.target = view.target
    seen.wall = view.wall
    seen.gin_bonus = view.gin_bonus
    seen.undercut_bonus = view.undercut_bonus
    seen.self_discarded = mask(view.self_discarded)
    seen.knocked = int(view.knocked)
    seen.deadwood = view.deadwood
    seen.forbidden = opt(view.forbidden)
    seen.pile_mask = mask(view.discard_pile)
    seen.players = view.players
    for variant in VARIANTS:  # each variant's block, as the engine fills it
        if variant.view_array is not None:
            variant.view_array(view, seen.buffer[VIEW_BLOCKS[variant.name]])
    return seen.buffer


def observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of every observation slot: planes and one-hots 0..1; scores over the
    target may pass 1 (a game ends on the hand that reaches it), up to MAX_SCORE_RATIO."""
    low = np.zeros(OBS_LEN, np.float32)
    high = np.ones(OBS_LEN, np.float32)
    bounds = observation_fields(high)
    bounds.score_self = bounds.score_opp = bounds.score_other = MAX_SCORE_RATIO
    return low, high


def action_name(action: int) -> str:
    """A readable name: ``pass``, ``take_upcard``, ``draw_stock``, ``draw_pile``,
    ``discard KD`` or ``knock KD``."""
    action = int(action)
    if not 0 <= action < N_ACTIONS:
        raise ValueError(f"action {action} is out of range: expected 0..{N_ACTIONS - 1}")
    if action < A_DISCARD:
        return ACTION_NAMES[action]
    kind = "discard" if action < A_KNOCK else "knock"
    return f"{kind} {card_str(int(card_of_action(action)))}"
