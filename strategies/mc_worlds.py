"""``mc``'s worlds: its search buffers in ``scratch`` and the sampling of the hidden cards.

Why a module of its own: the world a decision is searched on (the opponent's hand and the
stock order, drawn from the view alone, with hand inference) is a piece ``mc``'s search
(:mod:`strategies.mc`), its option values and ``python -m studies.mc_inference`` share; the
search itself reads the layout below.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from sim.engine.cards import FULL_MASK
from sim.engine.hand import (
    AF_TIES,
    AFTER_LEN,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    HS_DECLINED,
    HS_DISCARDED,
    HS_DRAWN,
    HS_FORBID_TAKEN,
    HS_GIN_BONUS,
    HS_HAND,
    HS_KNOCK_LIMIT,
    HS_KNOCKER,
    HS_LEN,
    HS_MAX_TURNS,
    HS_MULTIPLIER,
    HS_PHASE,
    HS_PILE_LEN,
    HS_PILE_MASK,
    HS_STATE_LEN,
    HS_STOCK_TOP,
    HS_TAKEN,
    HS_TO_MOVE,
    HS_TOOK,
    HS_TURNS,
    HS_UNDERCUT_BONUS,
    HS_UPCARD,
    HS_WALL,
    HS_WINNER,
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
    PH_DISCARD,
    PH_DRAW,
    PH_KNOCK,
    PH_KNOCK_DISCARD,
    PH_OFFER_DEALER,
    PH_OFFER_NONDEALER,
    best_legal_after,
    hand_fields,
    stock_count,
)
from sim.engine.jit import kernel
from sim.engine.melds import (
    CARD_MELD_COUNT,
    CARD_MELDS,
    SEARCH_MELDS,
    min_deadwood_mask,
    pick_highest,
    popcount,
)
from sim.engine.rng import GOLDEN, mix64
from sim.engine.view import (
    GI_LEN,
    V_DECISION,
    V_DRAWN,
    V_FORBIDDEN,
    V_GIN_BONUS,
    V_HAND,
    V_KNOCK_LIMIT,
    V_KNOCKED,
    V_LEN,
    V_OPP_DECLINED,
    V_OPP_DISCARDED,
    V_OPP_GINS,
    V_OPP_KNOCKS,
    V_OPP_TOOK,
    V_PILE_LEN,
    V_PILE_MASK,
    V_ROLE,
    V_SELF_DECLINED,
    V_SELF_DISCARDED,
    V_SELF_TOOK,
    V_STOCK,
    V_TAKEN,
    V_TOP,
    V_TURN,
    V_UNDERCUT_BONUS,
    V_UPCARD,
    V_WALL,
    fill_view,
    view_fields,
)
from strategies.builtin import SCRATCH_LEN, in_some_best_meld
from strategies.mc_belief import BELIEF_WEIGHTS, WORK_LEN, belief_odds, opponent_known
from strategies.mc_keep import (
    KEEP_WEIGHTS,
    KEEP_WORK_LEN,
    N_CARD_FACTS,
    N_TAKE_FACTS,
    model_discard,
    model_takes,
    style_weights,
)
from strategies.mc_knock import (
    KNOCK_WEIGHTS,
    KNOCK_WORK_LEN,
    N_FACTS,
    model_knocks,
    opponent_style,
    style_sums,
)
from strategies.tuned import (
    N_TUNED_PARAMS,
    tuned_move,
)

MAX_CANDIDATES = 12
MAX_TURNS = 400  # the rollouts' turn cap (the rules' own cap is not in the view)
MAX_DRAWS = 32  # most opponent hands drawn for one world under inference

# The search buffers, as offsets into ``scratch`` (checked to fit below).
S_HS = 0  # the rolled-out hand state (HS_LEN, with the showdown's workspace)
S_BASE = S_HS + HS_LEN  # the world's state before a candidate (HS_STATE_LEN)
S_PILE = S_BASE + HS_STATE_LEN  # the rolled-out pile
S_BASE_PILE = S_PILE + 52  # the world's pile
S_DECK = S_BASE_PILE + 52  # the world's deck (stock at the end)
S_AFTER = S_DECK + 52  # the rollouts' turn scratch
S_MOVES = S_AFTER + AFTER_LEN  # a 1-row move log the rollouts overwrite
S_CAND = S_MOVES + 2  # the candidates
S_VALUES = S_CAND + MAX_CANDIDATES  # one world's value per candidate
S_SUM = S_VALUES + MAX_CANDIDATES  # each candidate's summed value
S_DIFF = S_SUM + MAX_CANDIDATES  # paired differences: sum, then sum of squares (C x C each)
S_UNSEEN = S_DIFF + 2 * MAX_CANDIDATES * MAX_CANDIDATES  # the unseen cards
S_COUNT = S_UNSEEN + 52  # candidates and worlds of the last search
S_BASE_PARAMS = S_COUNT + 2  # the base heuristic's parameters
S_TEAM = S_BASE_PARAMS + N_TUNED_PARAMS  # the captain's mean values under consensus
S_OWN_SET = S_TEAM + MAX_CANDIDATES  # its own rollouts' tuned parameters
S_OPP_SET = S_OWN_SET + N_TUNED_PARAMS  # the opponent's rollouts' tuned parameters
S_RVIEW = S_OPP_SET + N_TUNED_PARAMS  # the view of the player to move in a rollout
S_RINFO = S_RVIEW + V_LEN  # the game's public facts, for that view
S_RSCRATCH = S_RINFO + GI_LEN  # tuned's scratch in a rollout (the legal discards)
RSCRATCH_LEN = 16  # tuned writes the legal discards there, at most 11
S_FEATURES = S_RSCRATCH + RSCRATCH_LEN  # the leaf evaluator's features (leaf > 0)
FEATURES_LEN = 64
S_BELIEF = S_FEATURES + FEATURES_LEN  # the belief's odds by card code (floats, belief > 0)
S_PASSED_KNOCK = S_BELIEF + 64  # 1: the world's opponent could have knocked last turn
S_KNOCK_FACTS = S_PASSED_KNOCK + 1  # the opponent's facts for the knock model (opp_model 3)
S_KNOCK_WORK = S_KNOCK_FACTS + N_FACTS  # the knock model's inputs and sums (floats)
S_KEEP_WORK = S_KNOCK_WORK + KNOCK_WORK_LEN  # the keep model's weights for him (floats)
S_KEEP_FACTS = S_KEEP_WORK + KEEP_WORK_LEN  # one discard's or take's facts (opp_model 4)
MC_SCRATCH_LEN = S_KEEP_FACTS + max(N_CARD_FACTS, N_TAKE_FACTS)
"""Scratch slots ``mc`` needs; the shared ``SCRATCH_LEN`` must be at least this."""
assert MC_SCRATCH_LEN <= SCRATCH_LEN
BELIEF_WORK_AT = SCRATCH_LEN - WORK_LEN
"""Where the belief's forward pass works: the scratch's tail, which the network's workspace
also uses (the belief runs once before a decision's rollouts, the network only inside them
or before it)."""
assert MC_SCRATCH_LEN <= BELIEF_WORK_AT
VALUE_ONE = 1 << 16
"""Game values are summed as integers on this scale."""


@kernel(inline="always")
def _next(state: np.ndarray, i: int) -> np.uint64:
    """The next 64 random bits of the world stream kept in ``state[i]`` (an int64 slot)."""
    s = np.uint64(state[i]) + GOLDEN
    state[i] = np.int64(s)
    return mix64(s)


@kernel(inline="always")
def _below(state: np.ndarray, i: int, n: int) -> int:
    return int(((_next(state, i) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@kernel
def _meld_fit(card: int, hand: int) -> bool:
    """Would ``card`` complete a meld with two or more cards of ``hand``?"""
    for k in range(CARD_MELD_COUNT[card]):
        m = SEARCH_MELDS[CARD_MELDS[card, k]] & ~(1 << card)
        if m & hand == m:
            return True
    return False


@kernel
def _implausible(view: np.ndarray, opp: int) -> bool:
    """Does the opponent's sampled hand meld a card he discarded or declined?"""
    shed = view[V_OPP_DISCARDED] & ~view[V_OPP_TOOK]
    if view[V_OPP_DECLINED] >= 0:
        shed |= 1 << view[V_OPP_DECLINED]
    while shed:
        c = trailing_zeros(shed)
        shed &= shed - 1
        if _meld_fit(c, opp):
            return True
    return False


@kernel
def knock_bar(view: np.ndarray, knock_at: int) -> int:
    """The deadwood at or under which the opponent, knocking at ``knock_at`` (-1: the hand's
    knock limit), would have knocked on his last turn; -1 when he has had no turn to knock
    on (no discard yet this hand)."""
    if view[V_OPP_DISCARDED] == 0:
        return -1
    limit = view[V_KNOCK_LIMIT]
    return limit if knock_at < 0 else min(knock_at, limit)


@kernel(inline="always")
def opponent_knock_at(knock_at: int, opp_model: int, view: np.ndarray) -> int:
    """The deadwood the opponent's fast rollouts knock at (-1: the knock limit): ``knock_at``
    (``mc``'s ``opp_knock_at``), or with ``opp_model = 2`` gin only (0) once the game's
    earlier hands showed him waiting for it (the view's ``OPP_*`` counts: he has gone gin
    twice and never knocked). With ``opp_model = 3`` the knock model decides instead
    (:func:`load_opponent_style`, :func:`opponent_knocks`)."""
    if opp_model == 2 and view[V_OPP_KNOCKS] == 0 and view[V_OPP_GINS] >= 2:
        return 0
    return knock_at


@kernel
def load_opponent_style(view: np.ndarray, scratch: np.ndarray) -> None:
    """Put what the opponent has shown (:func:`strategies.mc_knock.opponent_style`) and the
    knock model's sums of it where :func:`opponent_knocks` reads them, once per decision."""
    facts = scratch[S_KNOCK_FACTS:S_KNOCK_FACTS + N_FACTS]
    opponent_style(view, facts)
    style_sums(KNOCK_WEIGHTS, facts,
               scratch.view(np.float64)[S_KNOCK_WORK:S_KNOCK_WORK + KNOCK_WORK_LEN])


@kernel
def opponent_knocks(hs: np.ndarray, after: np.ndarray, scratch: np.ndarray,
                    passed: bool) -> bool:
    """Whether the rolled-out opponent, asked to knock, knocks: the learned knock model
    (:mod:`strategies.mc_knock`) on his style, his deadwood in this world, the stock and
    whether he let a knock pass this hand (in the world drawn or in this rollout)."""
    work = scratch.view(np.float64)[S_KNOCK_WORK:S_KNOCK_WORK + KNOCK_WORK_LEN]
    passed = passed or scratch[S_PASSED_KNOCK] == 1
    return model_knocks(KNOCK_WEIGHTS, scratch[S_KNOCK_FACTS:S_KNOCK_FACTS + N_FACTS], work,
                        best_legal_after(hs, after), stock_count(hs), passed)


@kernel
def load_keep_style(scratch: np.ndarray) -> None:
    """The keep model's weights for the opponent's style (loaded by
    :func:`load_opponent_style`), where :func:`opponent_keep_move` reads them, once per
    decision."""
    style_weights(KEEP_WEIGHTS, scratch[S_KNOCK_FACTS:S_KNOCK_FACTS + N_FACTS],
                  scratch.view(np.float64)[S_KEEP_WORK:S_KEEP_WORK + KEEP_WORK_LEN])


@kernel
def opponent_keep_move(decision: int, hs: np.ndarray, pile: np.ndarray, after: np.ndarray,
                       scratch: np.ndarray) -> int:
    """The rolled-out opponent's take or discard by the learned keep model
    (:mod:`strategies.mc_keep`): he takes the top card when the model gives it at least one
    half, and throws his most likely discard; after a knock, the fast rule's discard (the
    rules narrow it to the best ones)."""
    work = scratch.view(np.float64)[S_KEEP_WORK:S_KEEP_WORK + KEEP_WORK_LEN]
    facts = scratch[S_KEEP_FACTS:S_KEEP_FACTS + max(N_CARD_FACTS, N_TAKE_FACTS)]
    if decision == DEC_OFFER or decision == DEC_DRAW:
        stay = MOVE_PASS if decision == DEC_OFFER else MOVE_DRAW_STOCK
        if hs[HS_PILE_LEN] == 0:
            return stay
        return MOVE_DRAW_DISCARD if model_takes(hs, pile, decision, facts, work) else stay
    if hs[HS_PHASE] == PH_KNOCK_DISCARD:
        best_legal_after(hs, after)
        return pick_highest(after[AF_TIES])
    return model_discard(hs, after, facts, work)


@kernel(inline="always")
def _uniform(state: np.ndarray, i: int) -> float:
    """A uniform float in [0, 1) from the world stream in ``state[i]``."""
    return float(_next(state, i) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def load_belief_odds(view: np.ndarray, scratch: np.ndarray) -> None:
    """Put the shipped belief's odds for ``view`` at ``S_BELIEF``, where
    :func:`sample_world` with ``belief > 0`` reads them (once per decision: they depend on
    the view alone)."""
    belief_odds(BELIEF_WEIGHTS, view, scratch, S_BELIEF, BELIEF_WORK_AT)


class Inference(NamedTuple):
    """How :func:`sample_world` draws the opponent's hand: ``mc``'s parameters of the same
    names (made by :func:`inference`, which gives the defaults)."""

    infer: int
    develop: int
    unknocked: int
    knock_at: int
    belief: int
    opp_model: int


@kernel(inline="always")
def inference(infer: int = 0, develop: int = 0, unknocked: int = 0, knock_at: int = -1,
              belief: int = 0, opp_model: int = 0) -> Inference:
    """An :class:`Inference` (from compiled code too; none of it by default: uniform
    draws)."""
    return Inference(infer, develop, unknocked, knock_at, belief, opp_model)


@kernel
def sample_world(view: np.ndarray, scratch: np.ndarray, seed: np.uint64,
                 how: Inference) -> None:
    """Deal one world consistent with the view into the base buffers of ``scratch``: the
    opponent's hand (his known cards plus unseen ones) and the stock order, drawn as ``how``
    says.

    Inference: a hand that melds a card he discarded or declined is redrawn with chance
    ``infer`` percent; a hand he would have knocked with on his last turn, knocking at
    ``knock_at`` (:func:`knock_bar`), with chance ``unknocked`` percent (he did not knock,
    so against a player who knocks as soon as he can his deadwood is above the bar); and the
    hand kept is the one of least deadwood among ``1 + develop * (his turns so far) / 10``
    draws (at most ``MAX_DRAWS``), because by a given turn a player's hand has improved on a
    random one.

    Belief (``belief > 0``, the odds loaded by :func:`load_belief_odds`): his unseen cards
    are drawn one by one, each with chance proportional to the belief's odds among the cards
    left, instead of uniformly; the redraws above still apply.

    ``opp_model > 0``: ``scratch[S_PASSED_KNOCK]`` says whether the world's opponent hand
    would have let him knock on his last turn (at the knock limit): he did not, so in this
    world he is waiting for more (his rollouts then play for gin); else 0."""
    infer, develop, unknocked, knock_at, belief, opp_model = how
    known = opponent_known(view)
    unseen = FULL_MASK & ~view[V_HAND] & ~view[V_PILE_MASK] & ~known
    n = 0
    m = unseen
    while m:
        scratch[S_UNSEEN + n] = trailing_zeros(m)
        m &= m - 1
        n += 1
    need = 10 - popcount(known)
    rng_slot = S_VALUES  # the world stream lives in a value slot until the rollouts start
    scratch[rng_slot] = np.int64(seed)
    draws = min(MAX_DRAWS, 1 + develop * (view[V_TURN] // 2) // 10)
    bar = knock_bar(view, knock_at) if unknocked > 0 else -1
    best = -1
    best_deadwood = 1 << 20
    accepted = 0
    odds = scratch.view(np.float64)[S_BELIEF:S_BELIEF + 64]
    for _ in range(4 * MAX_DRAWS):
        for i in range(need):  # a partial Fisher-Yates: the first `need` are his
            if belief > 0:
                j = _weighted_pick(scratch, rng_slot, odds, i, n)
            else:
                j = i + _below(scratch, rng_slot, n - i)
            t = scratch[S_UNSEEN + i]
            scratch[S_UNSEEN + i] = scratch[S_UNSEEN + j]
            scratch[S_UNSEEN + j] = t
        opp = known
        for i in range(need):
            opp |= 1 << scratch[S_UNSEEN + i]
        if best < 0:
            best = opp  # the fallback if every draw is rejected
        if infer > 0 and _implausible(view, opp) and _below(scratch, rng_slot, 100) < infer:
            continue
        if bar < 0 and draws == 1:
            best = opp
            break
        deadwood = min_deadwood_mask(opp)
        if deadwood <= bar and _below(scratch, rng_slot, 100) < unknocked:
            continue
        accepted += 1
        if draws == 1:
            best = opp
            break
        if deadwood < best_deadwood:
            best_deadwood = deadwood
            best = opp
        if accepted >= draws:
            break
    scratch[S_PASSED_KNOCK] = 0
    if opp_model > 0:
        limit = knock_bar(view, -1)
        if limit >= 0 and min_deadwood_mask(best) <= limit:
            scratch[S_PASSED_KNOCK] = 1
    k = 0  # his unseen cards first, then the stock
    m = best & ~known
    while m:
        scratch[S_UNSEEN + k] = trailing_zeros(m)
        m &= m - 1
        k += 1
    m = unseen & ~best
    while m:
        scratch[S_UNSEEN + k] = trailing_zeros(m)
        m &= m - 1
        k += 1
    for i in range(need, n):  # the rest, shuffled, is the stock
        j = i + _below(scratch, rng_slot, n - i)
        t = scratch[S_UNSEEN + i]
        scratch[S_UNSEEN + i] = scratch[S_UNSEEN + j]
        scratch[S_UNSEEN + j] = t
    _set_world(view, scratch, best, need, n)


@kernel
def _weighted_pick(scratch: np.ndarray, rng_slot: int, odds: np.ndarray, first: int,
                   n: int) -> int:
    """The position among ``scratch[S_UNSEEN + first .. n - 1]`` of a card drawn with chance
    proportional to its odds."""
    total = 0.0
    for i in range(first, n):
        total += odds[scratch[S_UNSEEN + i]]
    target = _uniform(scratch, rng_slot) * total
    for i in range(first, n):
        target -= odds[scratch[S_UNSEEN + i]]
        if target < 0.0:
            return i
    return n - 1


def world_opponent(view: np.ndarray, scratch: np.ndarray) -> int:
    """The opponent's hand (a mask) in the world :func:`sample_world` last dealt into
    ``scratch`` for ``view``: what a study of the sampler compares with the true hand."""
    world = np.zeros(HS_LEN, np.int64)  # the base holds the state proper, a record all of it
    world[:HS_STATE_LEN] = scratch[S_BASE:S_BASE + HS_STATE_LEN]
    return int(hand_fields(world).hand[1 - int(view_fields(view).role)])


@kernel
def load_truth(scratch: np.ndarray, hs: np.ndarray, pile: np.ndarray, deck: np.ndarray) -> None:
    """Put the true hand into the base buffers of ``scratch``, where :func:`sample_world`
    puts a sampled world: the state as it is (the opponent's real hand, the rules' own turn
    cap and multiplier), the pile in its order and the deck with the stock in its true order.

    Why: no strategy can call this (a strategy sees only its view); it is how
    ``python -m studies.ceiling`` measures a clairvoyant ``mc``, the same search whose every
    world is the true deal."""
    for j in range(HS_STATE_LEN):
        scratch[S_BASE + j] = hs[j]
    for j in range(52):
        scratch[S_BASE_PILE + j] = pile[j]
        scratch[S_DECK + j] = deck[j]


@kernel
def _set_world(view: np.ndarray, scratch: np.ndarray, opp: int, first: int, n: int) -> None:
    """The hand state of the world: the view's facts, ``opp`` as the opponent's hand and the
    unseen cards ``first..n-1`` as the stock (the pile's order below its top never matters:
    every card taken from it is replaced by a discard before anyone can draw again)."""
    hs = scratch[S_BASE:S_BASE + HS_STATE_LEN]
    pile = scratch[S_BASE_PILE:S_BASE_PILE + 52]
    deck = scratch[S_DECK:S_DECK + 52]
    for j in range(HS_STATE_LEN):
        hs[j] = 0
    me = view[V_ROLE]
    o = 1 - me
    hs[HS_HAND + me] = view[V_HAND]
    hs[HS_HAND + o] = opp
    stock = view[V_STOCK]
    hs[HS_STOCK_TOP] = 52 - stock
    for i in range(stock):
        deck[52 - stock + i] = scratch[S_UNSEEN + first + i]
    top = view[V_TOP]
    k = 0
    m = view[V_PILE_MASK] & ~(1 << top) if top >= 0 else 0
    while m:
        pile[k] = trailing_zeros(m)
        m &= m - 1
        k += 1
    if top >= 0:
        pile[k] = top
    hs[HS_PILE_LEN] = view[V_PILE_LEN]
    hs[HS_PILE_MASK] = view[V_PILE_MASK]
    decision = view[V_DECISION]
    if decision == DEC_OFFER:
        hs[HS_PHASE] = PH_OFFER_NONDEALER if me == 1 else PH_OFFER_DEALER
    elif decision == DEC_DRAW:
        hs[HS_PHASE] = PH_DRAW
    elif decision == DEC_KNOCK:
        hs[HS_PHASE] = PH_KNOCK
    else:
        hs[HS_PHASE] = PH_KNOCK_DISCARD if view[V_KNOCKED] == 1 else PH_DISCARD
    hs[HS_TO_MOVE] = me
    hs[HS_TAKEN] = view[V_TAKEN]
    hs[HS_DRAWN] = view[V_DRAWN]
    hs[HS_TURNS] = view[V_TURN]
    hs[HS_KNOCK_LIMIT] = view[V_KNOCK_LIMIT]
    hs[HS_MULTIPLIER] = 1  # spade doubling is not in the view
    hs[HS_UPCARD] = view[V_UPCARD]
    hs[HS_TOOK + me] = view[V_SELF_TOOK]
    hs[HS_TOOK + o] = view[V_OPP_TOOK]
    hs[HS_DISCARDED + me] = view[V_SELF_DISCARDED]
    hs[HS_DISCARDED + o] = view[V_OPP_DISCARDED]
    hs[HS_DECLINED + me] = view[V_SELF_DECLINED]
    hs[HS_DECLINED + o] = view[V_OPP_DECLINED]
    hs[HS_KNOCKER] = -1
    hs[HS_WINNER] = -1
    # the rule is visible only on a turn that took from the pile; every preset has it
    hs[HS_FORBID_TAKEN] = 0 if view[V_TAKEN] >= 0 and view[V_FORBIDDEN] < 0 else 1
    hs[HS_WALL] = view[V_WALL]
    hs[HS_MAX_TURNS] = MAX_TURNS
    hs[HS_GIN_BONUS] = view[V_GIN_BONUS]
    hs[HS_UNDERCUT_BONUS] = view[V_UNDERCUT_BONUS]


@kernel
def fast_policy(decision: int, hs: np.ndarray, pile: np.ndarray, after: np.ndarray,
            knock_at: int) -> int:
    """The rollout policy: take a card only into a meld, knock at ``knock_at`` (-1: the
    limit), discard the highest of the best discards."""
    p = hs[HS_TO_MOVE]
    if decision == DEC_OFFER or decision == DEC_DRAW:
        if in_some_best_meld(hs[HS_HAND + p], pile[hs[HS_PILE_LEN] - 1]):
            return MOVE_DRAW_DISCARD
        return MOVE_PASS if decision == DEC_OFFER else MOVE_DRAW_STOCK
    best = best_legal_after(hs, after)
    if decision == DEC_KNOCK:
        limit = knock_at if knock_at >= 0 else hs[HS_KNOCK_LIMIT]
        return MOVE_KNOCK if best <= limit else MOVE_NO_KNOCK
    return pick_highest(after[AF_TIES])


@kernel
def tuned_rollout_move(decision: int, hs: np.ndarray, pile: np.ndarray, after: np.ndarray,
                        scratch: np.ndarray, set_at: int) -> int:
    """The rollout move of the player to move playing ``tuned`` with the parameters at
    ``scratch[set_at:]``, from his own view of the rolled-out hand."""
    rview = scratch[S_RVIEW:S_RVIEW + V_LEN]
    fill_view(rview, hs, pile, scratch[S_RINFO:S_RINFO + GI_LEN], decision)
    return tuned_move(decision, scratch[set_at:set_at + N_TUNED_PARAMS], rview, after,
                      scratch[S_RSCRATCH:S_RSCRATCH + RSCRATCH_LEN])
