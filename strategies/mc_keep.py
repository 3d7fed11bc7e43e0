"""``mc``'s learned model of what the opponent keeps (``mc:opp_model=4``).

Why: ``mc``'s fast rollouts play the opponent's takes and discards by one rule (take a card
only into a meld, throw the highest of the best discards), so every rolled-out opponent
feeds the searcher the same cards and holds the same ones. Real players differ: some take
cards that only start a meld, some throw low cards late to cut their deadwood, some keep
what the other player collects. This model gives, for the player to move, the chance that
he takes the pile's top card, and the chance of each legal discard; the rollouts take for
him when the first is at least one half and throw his most likely discard.

The model reads three things, each an integer fact computed from the hand state by the
same function in the recorder (``sim.learn.keep``) and in the rollouts:

* **the card**: for each legal discard (:data:`CARD_FACT_NAMES`) what discarding it costs in
  deadwood, its points, the cards of his hand it goes with, the cards gone to the pile,
  whether the other player took or threw cards it goes with, whether he just drew it and
  whether it is the fast rule's discard;
* **the take** (:data:`TAKE_FACT_NAMES`): whether the top card fits a best meld, what it
  goes with in his hand, its points, the stock, his takes and the turn;
* **the player**: his style as the knock model reads it (:func:`strategies.mc_knock.
  opponent_style`: how he ended the game's earlier hands, the scores, the table).

The style goes through one ReLU layer; its units (and a constant) weight the card's inputs
and the take's inputs: a discard's score is ``x_card . (W_card @ [h; 1])``, the take's logit
``x_take . (W_take @ [h; 1])``. The products ``W @ [h; 1]`` are made once per decision
(:func:`style_weights`), so a rollout pays one short dot product per card. ``sim.learn.keep``
trains it with PyTorch (softmax over the legal discards, logistic for the take); a test
checks this compiled pass equals PyTorch's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from sim.engine.cards import CARD_VALUE
from sim.engine.hand import (
    AF_TIES,
    DEC_OFFER,
    HS_DISCARDED,
    HS_DRAWN,
    HS_HAND,
    HS_PILE_LEN,
    HS_PILE_MASK,
    HS_TAKEN,
    HS_TO_MOVE,
    HS_TOOK,
    HS_TURNS,
    best_legal_after,
    deadwood_table,
    forbidden_discard,
    stock_count,
)
from sim.engine.jit import allocating, kernel
from sim.engine.melds import pick_highest, popcount
from strategies.builtin import in_some_best_meld
from strategies.mc_belief import read_weights
from strategies.mc_knock import (
    F_GINS,
    F_KNOCK_DEADWOOD,
    F_KNOCKS,
    F_LIMIT,
    F_OTHER_SCORE,
    F_OWN_SCORE,
    F_PLAYERS,
    F_TARGET,
)

KEEP_VERSION = 1
"""The encoding's version: a weights file of another encoding is refused."""
CARD_FACT_NAMES = ("cost", "points", "pairs", "near1", "near2", "pile_rank", "pile_near",
                   "feeds", "other_threw", "drawn", "fast", "stock")
"""What the model reads of one legal discard: the deadwood it leaves above the least, its
points, the cards of his hand of its rank, of its suit one and two ranks away, the cards of
its rank and of its suit one rank away in the discard pile, the cards it goes with (its rank,
its suit one rank away) that the other player took from the pile or threw, whether he just
drew it from the stock, whether it is the fast rule's discard (the highest of the best), and
the stock left."""
N_CARD_FACTS = len(CARD_FACT_NAMES)
(C_COST, C_POINTS, C_PAIRS, C_NEAR1, C_NEAR2, C_PILE_RANK, C_PILE_NEAR, C_FEEDS,
 C_OTHER_THREW, C_DRAWN, C_FAST, C_STOCK) = range(N_CARD_FACTS)
TAKE_FACT_NAMES = ("meld", "pairs", "near1", "near2", "points", "stock", "took", "turns",
                   "offer", "pile_rank", "other_threw")
"""What the model reads of a take: whether the top card lies in a best meld of his hand
with it (the fast rule's take), the cards of his hand of its rank and of its suit one and two
ranks away, its points, the stock, the cards he has taken from the pile this hand, the turns
played, whether it is the first upcard's offer, the other cards of its rank in the pile, and
the cards it goes with that the other player threw."""
N_TAKE_FACTS = len(TAKE_FACT_NAMES)
(T_MELD, T_PAIRS, T_NEAR1, T_NEAR2, T_POINTS, T_STOCK, T_TOOK, T_TURNS, T_OFFER,
 T_PILE_RANK, T_OTHER_THREW) = range(N_TAKE_FACTS)
STYLE_FACTS = (F_KNOCKS, F_GINS, F_KNOCK_DEADWOOD, F_OWN_SCORE, F_OTHER_SCORE, F_TARGET,
               F_PLAYERS, F_LIMIT)
"""The knock model's facts (:data:`strategies.mc_knock.FACT_NAMES`) the style reads."""
CARD_INPUT_NAMES = ("cost", "best", "points", "pairs", "near1", "near2", "pile_rank",
                    "pile_near", "feeds", "other_threw", "drawn", "fast", "late_points",
                    "late_cost", "late_partial")
N_CARD_INPUTS = len(CARD_INPUT_NAMES)
TAKE_INPUT_NAMES = ("bias", "meld", "pairs", "near1", "near2", "points", "late", "took",
                    "turns", "offer", "pile_rank", "other_threw", "late_points")
N_TAKE_INPUTS = len(TAKE_INPUT_NAMES)
STYLE_INPUT_NAMES = ("knocks", "gins", "knock_deadwood", "no_endings", "own_score",
                     "other_score", "three_handed", "limit")
N_STYLE_INPUTS = len(STYLE_INPUT_NAMES)
MAX_KEEP_HIDDEN = 16
KEEP_WORK_LEN = N_CARD_INPUTS + N_TAKE_INPUTS + N_STYLE_INPUTS + MAX_KEEP_HIDDEN + N_CARD_INPUTS
"""Floats the forward pass works in: the card's and the take's weights made from the style,
the style's inputs, its hidden units, and one card's (or the take's) inputs."""
W_CARD, W_TAKE = 0, N_CARD_INPUTS
W_STYLE = W_TAKE + N_TAKE_INPUTS
W_HIDDEN = W_STYLE + N_STYLE_INPUTS
W_INPUTS = W_HIDDEN + MAX_KEEP_HIDDEN
HEADER_LEN = 6
H_FORMAT, H_CARD, H_TAKE, H_STYLE, H_HIDDEN = range(5)
WEIGHT_DTYPE = np.float32
RANK_BITS = 1 | (1 << 16) | (1 << 32) | (1 << 48)


@kernel(inline="always")
def _same_rank(card: int) -> int:
    """The mask of the four cards of ``card``'s rank (itself too)."""
    return RANK_BITS << (card & 15)


@kernel(inline="always")
def _near(card: int, gap: int) -> int:
    """The mask of the cards of ``card``'s suit ``gap`` ranks above and below it."""
    r = card & 15
    m = 0
    if r >= gap:
        m |= 1 << (card - gap)
    if r + gap <= 12:
        m |= 1 << (card + gap)
    return m


@kernel
def card_facts(hs: np.ndarray, after: np.ndarray, card: int, best: int, fast: int,
               out: np.ndarray) -> None:
    """The facts (:data:`CARD_FACT_NAMES`) of the mover discarding ``card`` from his 11
    cards; ``after`` holds his deadwood table (:func:`sim.engine.hand.deadwood_table`),
    ``best`` the least deadwood a legal discard leaves and ``fast`` the fast rule's discard."""
    p = hs[HS_TO_MOVE]
    o = 1 - p
    h = hs[HS_HAND + p]
    rank = _same_rank(card)
    near1 = _near(card, 1)
    out[C_COST] = min(after[card] - best, 60)
    out[C_POINTS] = CARD_VALUE[card]
    out[C_PAIRS] = popcount(h & rank) - 1
    out[C_NEAR1] = popcount(h & near1)
    out[C_NEAR2] = popcount(h & _near(card, 2))
    out[C_PILE_RANK] = popcount(hs[HS_PILE_MASK] & rank)
    out[C_PILE_NEAR] = popcount(hs[HS_PILE_MASK] & near1)
    out[C_FEEDS] = popcount(hs[HS_TOOK + o] & (rank | near1))
    out[C_OTHER_THREW] = popcount(hs[HS_DISCARDED + o] & (rank | near1))
    out[C_DRAWN] = 1 if card == hs[HS_DRAWN] and hs[HS_TAKEN] < 0 else 0
    out[C_FAST] = 1 if card == fast else 0
    out[C_STOCK] = stock_count(hs)


@kernel
def take_facts(hs: np.ndarray, pile: np.ndarray, decision: int, out: np.ndarray) -> None:
    """The facts (:data:`TAKE_FACT_NAMES`) of the mover's take of the pile's top card (the
    pile is not empty)."""
    p = hs[HS_TO_MOVE]
    h = hs[HS_HAND + p]
    top = pile[hs[HS_PILE_LEN] - 1]
    rank = _same_rank(top)
    near1 = _near(top, 1)
    out[T_MELD] = 1 if in_some_best_meld(h, top) else 0
    out[T_PAIRS] = popcount(h & rank)
    out[T_NEAR1] = popcount(h & near1)
    out[T_NEAR2] = popcount(h & _near(top, 2))
    out[T_POINTS] = CARD_VALUE[top]
    out[T_STOCK] = stock_count(hs)
    out[T_TOOK] = popcount(hs[HS_TOOK + p])
    out[T_TURNS] = hs[HS_TURNS]
    out[T_OFFER] = 1 if decision == DEC_OFFER else 0
    out[T_PILE_RANK] = popcount(hs[HS_PILE_MASK] & rank & ~(1 << top))
    out[T_OTHER_THREW] = popcount(hs[HS_DISCARDED + 1 - p] & (rank | near1))


@kernel
def encode_card(facts: np.ndarray, x: np.ndarray) -> None:
    """One discard's inputs (:data:`CARD_INPUT_NAMES`) from its facts."""
    cost = min(facts[C_COST], 20) / 10.0
    points = facts[C_POINTS] / 10.0
    late = 1.0 - min(facts[C_STOCK], 31) / 31.0
    x[0] = cost
    x[1] = 1.0 if facts[C_COST] == 0 else 0.0
    x[2] = points
    x[3] = facts[C_PAIRS] / 2.0
    x[4] = facts[C_NEAR1] / 2.0
    x[5] = facts[C_NEAR2] / 2.0
    x[6] = facts[C_PILE_RANK] / 3.0
    x[7] = facts[C_PILE_NEAR] / 2.0
    x[8] = min(facts[C_FEEDS], 2) / 2.0
    x[9] = min(facts[C_OTHER_THREW], 2) / 2.0
    x[10] = 1.0 if facts[C_DRAWN] else 0.0
    x[11] = 1.0 if facts[C_FAST] else 0.0
    x[12] = points * late
    x[13] = cost * late
    x[14] = late if facts[C_PAIRS] + facts[C_NEAR1] > 0 else 0.0


@kernel
def encode_take(facts: np.ndarray, x: np.ndarray) -> None:
    """The take's inputs (:data:`TAKE_INPUT_NAMES`) from its facts."""
    late = 1.0 - min(facts[T_STOCK], 31) / 31.0
    x[0] = 1.0
    x[1] = 1.0 if facts[T_MELD] else 0.0
    x[2] = facts[T_PAIRS] / 2.0
    x[3] = facts[T_NEAR1] / 2.0
    x[4] = facts[T_NEAR2] / 2.0
    x[5] = facts[T_POINTS] / 10.0
    x[6] = late
    x[7] = min(facts[T_TOOK], 6) / 3.0
    x[8] = min(facts[T_TURNS], 40) / 20.0
    x[9] = 1.0 if facts[T_OFFER] else 0.0
    x[10] = facts[T_PILE_RANK] / 3.0
    x[11] = min(facts[T_OTHER_THREW], 2) / 2.0
    x[12] = facts[T_POINTS] / 10.0 * late


@kernel
def encode_style(facts: np.ndarray, x: np.ndarray) -> None:
    """The style's inputs (:data:`STYLE_INPUT_NAMES`) from the knock model's facts."""
    target = max(facts[F_TARGET], 1)
    x[0] = min(facts[F_KNOCKS], 6) / 6.0
    x[1] = min(facts[F_GINS], 6) / 6.0
    x[2] = facts[F_KNOCK_DEADWOOD] / 10.0
    x[3] = 1.0 if facts[F_KNOCKS] + facts[F_GINS] == 0 else 0.0
    x[4] = min(facts[F_OWN_SCORE], target) / target
    x[5] = min(facts[F_OTHER_SCORE], target) / target
    x[6] = 1.0 if facts[F_PLAYERS] == 3 else 0.0
    x[7] = facts[F_LIMIT] / 10.0


@kernel
def style_weights(weights: np.ndarray, style: np.ndarray, work: np.ndarray) -> None:
    """The card's and the take's input weights for a player of this style (the knock model's
    facts), in ``work[W_CARD:]`` and ``work[W_TAKE:]``: once per decision."""
    hidden = int(weights[H_HIDDEN])
    s = work[W_STYLE:W_STYLE + N_STYLE_INPUTS]
    encode_style(style, s)
    h = work[W_HIDDEN:W_HIDDEN + hidden]
    at = HEADER_LEN
    for j in range(hidden):
        a = float(weights[at + N_STYLE_INPUTS * hidden + j])
        for i in range(N_STYLE_INPUTS):
            a += s[i] * weights[at + i * hidden + j]
        h[j] = a if a > 0.0 else 0.0
    at += N_STYLE_INPUTS * hidden + hidden
    for k in range(N_CARD_INPUTS + N_TAKE_INPUTS):  # the card's rows, then the take's
        row = at + k * (hidden + 1)
        a = float(weights[row + hidden])
        for j in range(hidden):
            a += h[j] * weights[row + j]
        work[k] = a


@kernel
def card_score(facts: np.ndarray, work: np.ndarray) -> float:
    """A discard's score (its log-odds up to a constant shared by the decision's discards),
    with :func:`style_weights` already in ``work``."""
    x = work[W_INPUTS:W_INPUTS + N_CARD_INPUTS]
    encode_card(facts, x)
    a = 0.0
    for i in range(N_CARD_INPUTS):
        a += x[i] * work[W_CARD + i]
    return a


@kernel
def take_logit(facts: np.ndarray, work: np.ndarray) -> float:
    """The log-odds that he takes the top card, with :func:`style_weights` in ``work``."""
    x = work[W_INPUTS:W_INPUTS + N_TAKE_INPUTS]
    encode_take(facts, x)
    a = 0.0
    for i in range(N_TAKE_INPUTS):
        a += x[i] * work[W_TAKE + i]
    return a


@kernel
def model_takes(hs: np.ndarray, pile: np.ndarray, decision: int, facts: np.ndarray,
                work: np.ndarray) -> bool:
    """Whether the player to move takes the top card (a chance of at least one half)."""
    take_facts(hs, pile, decision, facts)
    return take_logit(facts, work) >= 0.0


@kernel
def model_discard(hs: np.ndarray, after: np.ndarray, facts: np.ndarray,
                  work: np.ndarray) -> int:
    """The legal discard the player to move most likely throws (ties: the fast rule's)."""
    p = hs[HS_TO_MOVE]
    h = hs[HS_HAND + p]
    forbidden = forbidden_discard(hs)
    best = best_legal_after(hs, after)
    fast = pick_highest(after[AF_TIES])
    deadwood_table(h, forbidden, after)
    pick = fast
    card_facts(hs, after, fast, best, fast, facts)
    top = card_score(facts, work)
    m = h
    while m:
        c = trailing_zeros(m)
        m &= m - 1
        if c == forbidden or c == fast:
            continue
        card_facts(hs, after, c, best, fast, facts)
        s = card_score(facts, work)
        if s > top:
            top = s
            pick = c
    return pick


@allocating
def card_scores_of(weights: np.ndarray, style: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """The compiled model's score of each discard (rows of ``cards``: int64 ``N_CARD_FACTS``
    facts) for one style (``style``: the knock model's facts)."""
    work = np.zeros(KEEP_WORK_LEN, np.float64)
    style_weights(weights, style, work)
    out = np.zeros(cards.shape[0], np.float64)
    for r in range(cards.shape[0]):
        out[r] = card_score(cards[r], work)
    return out


@allocating
def take_logits_of(weights: np.ndarray, styles: np.ndarray, takes: np.ndarray) -> np.ndarray:
    """The compiled model's take logit of each row (``styles``: the knock model's facts,
    ``takes``: ``N_TAKE_FACTS`` facts, int64 rows)."""
    work = np.zeros(KEEP_WORK_LEN, np.float64)
    out = np.zeros(takes.shape[0], np.float64)
    for r in range(takes.shape[0]):
        style_weights(weights, styles[r], work)
        out[r] = take_logit(takes[r], work)
    return out


@allocating
def encode_card_rows(cards: np.ndarray) -> np.ndarray:
    """The inputs of discards (int64 array ``(..., N_CARD_FACTS)``), for training."""
    flat = cards.reshape(-1, N_CARD_FACTS)
    out = np.zeros((flat.shape[0], N_CARD_INPUTS), np.float64)
    for r in range(flat.shape[0]):
        encode_card(flat[r], out[r])
    return out


@allocating
def encode_take_rows(takes: np.ndarray) -> np.ndarray:
    """The inputs of takes (int64 rows of ``N_TAKE_FACTS``), for training."""
    out = np.zeros((takes.shape[0], N_TAKE_INPUTS), np.float64)
    for r in range(takes.shape[0]):
        encode_take(takes[r], out[r])
    return out


@allocating
def encode_style_rows(styles: np.ndarray) -> np.ndarray:
    """The style inputs of rows of the knock model's facts, for training."""
    out = np.zeros((styles.shape[0], N_STYLE_INPUTS), np.float64)
    for r in range(styles.shape[0]):
        encode_style(styles[r], out[r])
    return out


def flat_length(hidden: int) -> int:
    """Length of the flat weight array of a model with ``hidden`` style units."""
    return (HEADER_LEN + N_STYLE_INPUTS * hidden + hidden
            + (N_CARD_INPUTS + N_TAKE_INPUTS) * (hidden + 1))


def pack(style_w: np.ndarray, style_b: np.ndarray, card_w: np.ndarray,
         take_w: np.ndarray) -> np.ndarray:
    """The flat weight array: the header, the style layer (inputs x hidden, row-major, then
    its biases), the card's rows and the take's rows (each ``hidden + 1``: a weight per
    hidden unit, then the constant's)."""
    hidden = len(style_b)
    shapes = (np.shape(style_w), np.shape(card_w), np.shape(take_w))
    expected = ((N_STYLE_INPUTS, hidden), (N_CARD_INPUTS, hidden + 1),
                (N_TAKE_INPUTS, hidden + 1))
    if shapes != expected:
        raise ValueError(f"keep weights of shapes {shapes}: expected {expected}")
    header = np.zeros(HEADER_LEN, WEIGHT_DTYPE)
    header[:5] = (KEEP_VERSION, N_CARD_INPUTS, N_TAKE_INPUTS, N_STYLE_INPUTS, hidden)
    parts = [header, np.ravel(style_w), np.ravel(style_b), np.ravel(card_w), np.ravel(take_w)]
    return np.ascontiguousarray(np.concatenate([np.asarray(p, WEIGHT_DTYPE) for p in parts]))


def check_keep(weights: Any, where: str = "the keep weights") -> np.ndarray:
    """``weights`` as a read-only float32 flat array, or a ValueError saying what is wrong."""
    weights = np.array(weights, WEIGHT_DTYPE, copy=True)
    if weights.ndim != 1 or len(weights) < HEADER_LEN:
        raise ValueError(f"{where}: not a flat weight array")
    version, card, take, style, hidden = (int(v) for v in weights[:5])
    if (version, card, take, style) != (KEEP_VERSION, N_CARD_INPUTS, N_TAKE_INPUTS,
                                        N_STYLE_INPUTS):
        raise ValueError(f"{where}: encoding {version} with {card}, {take} and {style} inputs "
                         f"does not match this ginbox's keep encoding {KEEP_VERSION} "
                         f"({N_CARD_INPUTS}, {N_TAKE_INPUTS} and {N_STYLE_INPUTS})")
    if not 1 <= hidden <= MAX_KEEP_HIDDEN or len(weights) != flat_length(hidden):
        raise ValueError(f"{where}: {len(weights)} values do not fit hidden size {hidden} "
                         f"(1..{MAX_KEEP_HIDDEN})")
    if not np.isfinite(weights).all():
        raise ValueError(f"{where}: holds values that are not finite")
    weights.setflags(write=False)
    return weights


def load_keep(path: str | Path) -> tuple[np.ndarray, dict[str, Any]]:
    """The flat weights and metadata of a keep model file (``.npz`` with ``keep`` and
    ``meta``), checked; a ValueError naming the file when it cannot be read."""
    return read_weights(path, "keep", check_keep)


KEEP_FILE = Path(__file__).with_name("keep_v1.npz")
"""The shipped keep model (``ginbox train`` with ``model = "keep"`` writes such a file)."""


def _shipped() -> tuple[np.ndarray, dict[str, Any]]:
    """The shipped model, or one that plays the fast rule (takes into a meld, throws the fast
    rule's discard) when the file is missing."""
    try:
        return load_keep(KEEP_FILE)
    except ValueError:
        card = np.zeros((N_CARD_INPUTS, 2))
        card[CARD_INPUT_NAMES.index("fast"), 1] = 1.0
        take = np.zeros((N_TAKE_INPUTS, 2))
        take[0, 1], take[1, 1] = -1.0, 2.0
        blank = pack(np.zeros((N_STYLE_INPUTS, 1)), np.zeros(1), card, take)
        blank.setflags(write=False)
        return blank, {}


KEEP_WEIGHTS, KEEP_META = _shipped()
