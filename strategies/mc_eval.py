"""``mc``'s learned leaf evaluation: a hand's likely outcome from the mover's view alone.

Why: ``mc`` scores a candidate by rolling the sampled world out to the end of the hand with
fast policies, which are weaker than the base heuristic they judge and cost most of the
search's time. With ``leaf > 0`` a rollout stops at the mover's ``leaf``-th next draw and
this module estimates the rest of the hand: the chance that the mover wins it, that his
opponent does, and the points each would score, from logistic and linear models learned on
``tuned`` self-play (``python -m studies.mc_eval``, which writes the shipped
:data:`MODEL_FILE`).

The features (:func:`eval_features`) read only the view: its deadwood, stock, turn, the
cards that would complete a meld and are still unseen, what the opponent took and threw,
the knock limit and the bonuses, so re-dealing the hidden cards cannot change the value.
:func:`leaf_value` turns the estimate into a game value with
:func:`strategies.game_value.game_value`: ``p_win * value(win, points) + p_loss *
value(loss, points) + p_draw * value(draw)``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from sim.engine.cards import CARD_VALUE, FULL_MASK, N_CODES, N_RANKS, SUIT_STRIDE
from sim.engine.jit import kernel
from sim.engine.melds import SUIT_BITS, min_deadwood_mask, popcount
from sim.engine.view import (
    V_DEADWOOD,
    V_GIN_BONUS,
    V_HAND,
    V_KNOCK_LIMIT,
    V_OPP_DISCARDED,
    V_OPP_TOOK,
    V_PILE_MASK,
    V_PLAYERS,
    V_ROLE,
    V_SELF_DISCARDED,
    V_SELF_TOOK,
    V_STOCK,
    V_TOP,
    V_TURN,
    V_UNDERCUT_BONUS,
)
from strategies.game_value import game_value

MODEL_FILE = Path(__file__).with_name("mc_eval_v1.npz")
"""The shipped weights (``studies.mc_eval`` writes them; their ``meta`` names the command)."""
DEADWOOD_BINS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 30, 45)
"""One-hot deadwood features: ``deadwood <= bin`` for the first bin it fits (else the last
feature, more than 45)."""
N_DEADWOOD_BINS = len(DEADWOOD_BINS) + 1
FEATURE_NAMES = (
    ["bias"] + [f"deadwood<={b}" for b in DEADWOOD_BINS] + ["deadwood>45"]
    + ["deadwood", "stock", "turn", "deadwood*stock", "outs", "outs*stock", "set_outs",
       "top_is_out", "opp_holds", "opp_took", "opp_discarded", "self_discarded",
       "opp_discard_value", "deadwood-knock_limit", "under_limit", "knock_limit", "role",
       "three_handed", "gin_bonus", "undercut_bonus"]
    + [f"opp_deadwood<={b}" for b in DEADWOOD_BINS] + ["opp_deadwood>45"]
    + ["opp_deadwood", "opp_deadwood*stock", "opp_outs", "opp_outs*stock", "opp_under_limit",
       "deadwood-opp_deadwood"])
N_FEATURES = len(FEATURE_NAMES)
MODELS = ("win", "loss", "points_win", "points_loss")
"""The four models, each on the features' weighted sum: the chance the mover wins the hand
and that his opponent does (logistic), and the points of each such win (linear, trained on
the hands that player won)."""


def _load() -> tuple[np.ndarray, dict[str, object]]:
    """The shipped weights, ``[table, model, feature]`` (table 0 two players, 1 three; models
    in :data:`MODELS` order), and their metadata (zero weights and empty metadata if the file
    is missing: every leaf is then worth an even hand)."""
    try:
        with np.load(MODEL_FILE) as f:
            weights = np.ascontiguousarray(f["weights"], np.float64)
            meta = json.loads(str(f["meta"]))
        if weights.shape == (2, len(MODELS), N_FEATURES):
            return weights, meta
    except (OSError, KeyError, ValueError):
        pass
    return np.zeros((2, len(MODELS), N_FEATURES)), {}


WEIGHTS, META = _load()


@kernel(inline="always")
def _shift_suits(mask: int, up: int) -> int:
    """Shift every suit of ``mask`` by ``up`` ranks (negative: down), keeping 13 bits each."""
    out = 0
    for s in range(4):
        bits = (mask >> (s * SUIT_STRIDE)) & SUIT_BITS
        bits = ((bits << up) if up >= 0 else (bits >> -up)) & SUIT_BITS
        out |= bits << (s * SUIT_STRIDE)
    return out


@kernel
def meld_outs(hand: int) -> tuple[int, int]:
    """The cards that would make a meld with two cards of ``hand``: (run or set completers,
    set completers alone), as masks."""
    sets = 0
    for r in range(N_RANKS):
        n = 0
        for s in range(4):
            n += (hand >> (s * SUIT_STRIDE + r)) & 1
        if n >= 2:
            for s in range(4):
                sets |= 1 << (s * SUIT_STRIDE + r)
    pairs = hand & _shift_suits(hand, -1)  # bit i: ranks i and i + 1 held
    gaps = hand & _shift_suits(hand, -2)  # bit i: ranks i and i + 2 held
    runs = _shift_suits(pairs, 2) | _shift_suits(pairs, -1) | _shift_suits(gaps, 1)
    return (sets | runs) & ~hand & FULL_MASK, sets & ~hand & FULL_MASK


@kernel(inline="always")
def _deadwood_bin(d: int) -> int:
    """The one-hot slot of deadwood ``d`` among :data:`DEADWOOD_BINS`."""
    for b in range(len(DEADWOOD_BINS)):
        if d <= DEADWOOD_BINS[b]:
            return b
    return N_DEADWOOD_BINS - 1


@kernel
def eval_features(view: np.ndarray, opp_hand: int, out: np.ndarray) -> None:
    """The evaluator's features of a draw decision, as integers in ``out`` (the order of
    :data:`FEATURE_NAMES`): from the mover's view (his hand and deadwood, the public pile
    and counts, the cards the opponent took or threw) and the opponent's hand ``opp_hand``
    in the world searched (its deadwood, and the cards that would complete its melds among
    those he has not seen). Nothing else: the stock's order is never read."""
    for i in range(N_FEATURES):
        out[i] = 0
    out[0] = 1
    d = view[V_DEADWOOD]
    out[1 + _deadwood_bin(d)] = 1
    i = 1 + N_DEADWOOD_BINS
    hand = view[V_HAND]
    stock = view[V_STOCK]
    opp_holds = view[V_OPP_TOOK] & ~view[V_OPP_DISCARDED] & ~view[V_PILE_MASK]
    unseen = FULL_MASK & ~hand & ~view[V_PILE_MASK] & ~opp_holds
    outs_mask, set_mask = meld_outs(hand)
    outs = popcount(outs_mask & unseen)
    top = view[V_TOP]
    discard_value = 0
    thrown = view[V_OPP_DISCARDED]
    for c in range(N_CODES):
        if (thrown >> c) & 1:
            discard_value += CARD_VALUE[c]
    limit = view[V_KNOCK_LIMIT]
    out[i] = d
    out[i + 1] = stock
    out[i + 2] = view[V_TURN]
    out[i + 3] = d * stock
    out[i + 4] = outs
    out[i + 5] = outs * stock
    out[i + 6] = popcount(set_mask & unseen)
    out[i + 7] = 1 if top >= 0 and (outs_mask >> top) & 1 else 0
    out[i + 8] = popcount(opp_holds)
    out[i + 9] = popcount(view[V_OPP_TOOK])
    out[i + 10] = popcount(view[V_OPP_DISCARDED])
    out[i + 11] = popcount(view[V_SELF_DISCARDED])
    out[i + 12] = discard_value
    out[i + 13] = d - limit
    out[i + 14] = 1 if d <= limit else 0
    out[i + 15] = limit
    out[i + 16] = view[V_ROLE]
    out[i + 17] = 1 if view[V_PLAYERS] == 3 else 0
    out[i + 18] = view[V_GIN_BONUS]
    out[i + 19] = view[V_UNDERCUT_BONUS]
    i += 20
    od = min_deadwood_mask(opp_hand)
    out[i + _deadwood_bin(od)] = 1
    i += N_DEADWOOD_BINS
    known_to_him = view[V_SELF_TOOK] & ~view[V_SELF_DISCARDED] & ~view[V_PILE_MASK]
    his_unseen = FULL_MASK & ~opp_hand & ~view[V_PILE_MASK] & ~known_to_him
    opp_outs = popcount(meld_outs(opp_hand)[0] & his_unseen)
    out[i] = od
    out[i + 1] = od * stock
    out[i + 2] = opp_outs
    out[i + 3] = opp_outs * stock
    out[i + 4] = 1 if od <= limit else 0
    out[i + 5] = d - od


@kernel
def hand_estimate(features: np.ndarray, players: int) -> tuple[float, float, float, float]:
    """The four models of the table of ``players`` on ``features``: (chance the mover wins
    the hand, chance his opponent does, points of the mover's win, points of the opponent's
    win); the chances are logistic, the second capped so that they add up to at most one,
    the points linear and at least one."""
    w = 0.0
    lo = 0.0
    pw = 0.0
    pl = 0.0
    t = 1 if players == 3 else 0
    for f in range(N_FEATURES):
        x = features[f]
        w += WEIGHTS[t, 0, f] * x
        lo += WEIGHTS[t, 1, f] * x
        pw += WEIGHTS[t, 2, f] * x
        pl += WEIGHTS[t, 3, f] * x
    w = 1.0 / (1.0 + np.exp(-w))
    lo = min(1.0 - w, 1.0 / (1.0 + np.exp(-lo)))
    return w, lo, max(1.0, pw), max(1.0, pl)


@kernel
def leaf_value(view: np.ndarray, opp_hand: int, features: np.ndarray) -> float:
    """The mover's game value at a draw decision of the world searched, from his view and
    his opponent's hand there: the models' hand outcome (:func:`hand_estimate`) through
    :func:`game_value`. ``features``: a buffer of :data:`N_FEATURES` slots (overwritten)."""
    eval_features(view, opp_hand, features)
    w, lo, pw, pl = hand_estimate(features, view[V_PLAYERS])
    value = w * game_value(view, 1, int(pw + 0.5))
    value += lo * game_value(view, 0, int(pl + 0.5))
    return value + (1.0 - w - lo) * game_value(view, -1, 0)
