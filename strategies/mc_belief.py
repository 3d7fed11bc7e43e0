"""``mc``'s belief: the learned chance that each unseen card is in the opponent's hand.

Why: ``mc`` searches on sampled worlds, and the ceiling study showed that knowing the
opponent's hand is most of what separates it from a clairvoyant search. A uniform guess
shaped by ``develop`` ignores what his play tells: what he discarded (he keeps what melds),
what he took, what he let pass. This model reads the mover's view, nothing else, and gives
per unseen card the log-odds that the opponent holds it; ``mc:belief=1`` draws the
opponent's hand of every world from it (:func:`strategies.mc_worlds.sample_world`).

The model: the view's card sets as sparse planes and a few dense facts feed one ReLU hidden
layer (summed weight rows, as the ``net`` strategy's first layer), which gives each card a
logit, plus per-card meld features (cards of the same rank and of the same suit one and two
ranks away, among his discards, his known cards, the cards he let pass and the dead cards)
whose weights the hidden layer gates. ``sim.learn.belief`` trains it with PyTorch on
self-play records whose labels are the true hands; the forward pass here is the same
arithmetic, compiled, and a test checks it equals PyTorch's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from sim.engine.cards import CARD_VALUE, FULL_MASK, N_CODES
from sim.engine.hand import DEC_DISCARD, DEC_DRAW, DEC_KNOCK, DEC_OFFER
from sim.engine.jit import allocating, kernel
from sim.engine.melds import popcount
from sim.engine.view import (
    V_DECISION,
    V_HAND,
    V_KNOCK_LIMIT,
    V_OPP_DECLINED,
    V_OPP_DISCARDED,
    V_OPP_TOOK,
    V_PILE_MASK,
    V_PLAYERS,
    V_ROLE,
    V_SELF_DECLINED,
    V_SELF_DISCARDED,
    V_STOCK,
    V_TOP,
    V_TURN,
)

BELIEF_VERSION = 1
"""The input encoding's version: a weights file of another encoding is refused."""
PLANE_NAMES = ("own", "pile", "opp_took", "opp_discarded", "self_discarded", "opp_declined",
               "self_declined", "top", "opp_known", "unseen")
N_PLANES = len(PLANE_NAMES)
N_CARD_INPUTS = 52 * N_PLANES
DENSE_NAMES = ("offer", "draw", "knock", "discard", "stock", "turn", "knock_limit",
               "nondealer", "three_handed", "need", "unseen")
N_DENSE = len(DENSE_NAMES)
CARD_FEATURE_NAMES = ("rank_discarded", "near1_discarded", "near2_discarded", "rank_known",
                      "near1_known", "near2_known", "rank_passed", "near1_passed", "rank_dead",
                      "near1_dead", "value")
N_CARD_FEATURES = len(CARD_FEATURE_NAMES)
FEATURE_SCALE = np.array([0.5] * 8 + [1 / 3, 0.5, 0.1], np.float64)
"""Each per-card feature's scale: :func:`encode` writes counts (and the card's value), the
model multiplies them by this (so training can store them as small integers)."""
MAX_HIDDEN = 256
HEADER_LEN = 8
H_FORMAT, H_PLANES, H_DENSE, H_HIDDEN, H_FEATURES = range(5)
WEIGHT_DTYPE = np.float32
MAX_ACTIVE = N_CARD_INPUTS


def _peer_masks() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per card code: the other suits' cards of its rank, its suit's cards one rank away and
    two ranks away (the cards it would meld with)."""
    rank_peers = np.zeros(N_CODES, np.int64)
    near1 = np.zeros(N_CODES, np.int64)
    near2 = np.zeros(N_CODES, np.int64)
    for suit in range(4):
        for rank in range(13):
            code = suit * 16 + rank
            rank_peers[code] = sum(1 << (s * 16 + rank) for s in range(4) if s != suit)
            near1[code] = sum(1 << (suit * 16 + r) for r in (rank - 1, rank + 1) if 0 <= r < 13)
            near2[code] = sum(1 << (suit * 16 + r) for r in (rank - 2, rank + 2) if 0 <= r < 13)
    return rank_peers, near1, near2


RANK_PEERS, NEAR1, NEAR2 = _peer_masks()


def weight_sizes(hidden: int) -> list[tuple[str, tuple[int, ...]]]:
    """The weight tensors in file order: names and shapes (the flat array is the header, then
    each tensor row-major)."""
    return [("card_weights", (N_CARD_INPUTS, hidden)), ("dense_weights", (N_DENSE, hidden)),
            ("bias1", (hidden,)), ("out_weights", (52, hidden)), ("out_bias", (52,)),
            ("gate_weights", (N_CARD_FEATURES, hidden)), ("gate_bias", (N_CARD_FEATURES,))]


def flat_length(hidden: int) -> int:
    """Length of the flat weight array of a model with ``hidden`` units."""
    return HEADER_LEN + sum(int(np.prod(shape)) for _, shape in weight_sizes(hidden))


def pack(tensors: dict[str, np.ndarray]) -> np.ndarray:
    """The flat weight array of named tensors (shapes as :func:`weight_sizes`)."""
    hidden = tensors["bias1"].shape[0]
    header = np.zeros(HEADER_LEN, WEIGHT_DTYPE)
    header[:5] = (BELIEF_VERSION, N_PLANES, N_DENSE, hidden, N_CARD_FEATURES)
    out = [header]
    for name, shape in weight_sizes(hidden):
        array = np.asarray(tensors[name], WEIGHT_DTYPE)
        if array.shape != shape:
            raise ValueError(f"belief weights {name!r} have shape {array.shape}: "
                             f"expected {shape}")
        out.append(array.ravel())
    return np.ascontiguousarray(np.concatenate(out))


def check_belief(weights: Any, where: str = "the belief weights") -> np.ndarray:
    """``weights`` as a read-only float32 flat array, or a ValueError saying what is wrong."""
    weights = np.array(weights, WEIGHT_DTYPE, copy=True)
    if weights.ndim != 1 or len(weights) < HEADER_LEN:
        raise ValueError(f"{where}: not a flat weight array")
    header = tuple(int(v) for v in weights[:5])
    if header[H_FORMAT] != BELIEF_VERSION or header[H_PLANES] != N_PLANES or \
            header[H_DENSE] != N_DENSE or header[H_FEATURES] != N_CARD_FEATURES:
        raise ValueError(f"{where}: encoding {header[0]} with sizes {header[1:3]}, "
                         f"{header[4]} does not match this ginbox's belief encoding "
                         f"{BELIEF_VERSION}")
    if not 1 <= header[H_HIDDEN] <= MAX_HIDDEN or len(weights) != flat_length(header[3]):
        raise ValueError(f"{where}: {len(weights)} values do not fit hidden size "
                         f"{header[H_HIDDEN]} (1..{MAX_HIDDEN})")
    if not np.isfinite(weights).all():
        raise ValueError(f"{where}: holds values that are not finite")
    weights.setflags(write=False)
    return weights


def load_belief(path: str | Path) -> tuple[np.ndarray, dict[str, Any]]:
    """The flat weights and metadata of a belief file (``.npz`` with ``belief`` and
    ``meta``), checked; a ValueError naming the file when it cannot be read."""
    return read_weights(path, "belief", check_belief)


def read_weights(path: str | Path, key: str, check: Callable[[Any, str], np.ndarray]
                 ) -> tuple[np.ndarray, dict[str, Any]]:
    """The flat weights stored under ``key`` in a ``.npz`` (checked by ``check``) and its
    ``meta`` (JSON); a ValueError naming the file when it cannot be read."""
    try:
        with np.load(Path(path), allow_pickle=False) as f:
            weights = f[key]
            meta = json.loads(str(f["meta"])) if "meta" in f.files else {}
    except (OSError, KeyError, ValueError, EOFError) as exc:
        raise ValueError(f"cannot read {key} weights {str(path)!r}: {exc}") from None
    return check(weights, f"{key} weights {str(path)!r}"), meta


BELIEF_FILE = Path(__file__).with_name("belief_v1.npz")
"""The shipped belief (``ginbox train`` with ``model = "belief"`` writes such a file; its
``meta`` names the command, seed and commit that made it)."""


def _shipped() -> tuple[np.ndarray, dict[str, Any]]:
    """The shipped belief, or an all-zero one (every unseen card alike: uniform worlds) when
    the file is missing."""
    try:
        return load_belief(BELIEF_FILE)
    except ValueError:
        blank = np.zeros(flat_length(1), WEIGHT_DTYPE)
        blank[:5] = (BELIEF_VERSION, N_PLANES, N_DENSE, 1, N_CARD_FEATURES)
        blank.setflags(write=False)
        return blank, {}


BELIEF_WEIGHTS, BELIEF_META = _shipped()


@kernel(inline="always")
def card_index(code: int) -> int:
    """A card code's column 0..51 (suit-major, ace first)."""
    return (code >> 4) * 13 + (code & 15)


@kernel
def opponent_known(view: np.ndarray) -> int:
    """Cards the opponent surely holds: taken from the pile, neither back in the pile nor in
    the mover's hand."""
    return view[V_OPP_TOOK] & ~view[V_PILE_MASK] & ~view[V_HAND]


@kernel
def unseen_cards(view: np.ndarray) -> int:
    """The cards whose place the mover does not know: the opponent's unknown cards and the
    stock."""
    return FULL_MASK & ~view[V_HAND] & ~view[V_PILE_MASK] & ~opponent_known(view)


@kernel
def encode(view: np.ndarray, active: np.ndarray, dense: np.ndarray,
           features: np.ndarray) -> int:
    """The model's inputs for ``view``: the active card-plane inputs' indices in ``active``
    (returned: how many), the dense inputs in ``dense`` and the per-card features by card
    index in ``features`` (52 x ``N_CARD_FEATURES``, unscaled: see :data:`FEATURE_SCALE`)."""
    known = opponent_known(view)
    unseen = unseen_cards(view)
    opp_declined = view[V_OPP_DECLINED]
    self_declined = view[V_SELF_DECLINED]
    top = view[V_TOP]
    planes = (view[V_HAND], view[V_PILE_MASK], view[V_OPP_TOOK], view[V_OPP_DISCARDED],
              view[V_SELF_DISCARDED], (1 << opp_declined) if opp_declined >= 0 else 0,
              (1 << self_declined) if self_declined >= 0 else 0,
              (1 << top) if top >= 0 else 0, known, unseen)
    n = 0
    for p in range(N_PLANES):
        m = planes[p]
        while m:
            c = trailing_zeros(m)
            m &= m - 1
            active[n] = p * 52 + card_index(c)
            n += 1
    decision = view[V_DECISION]
    n_unseen = popcount(unseen)
    dense[0] = 1.0 if decision == DEC_OFFER else 0.0
    dense[1] = 1.0 if decision == DEC_DRAW else 0.0
    dense[2] = 1.0 if decision == DEC_KNOCK else 0.0
    dense[3] = 1.0 if decision == DEC_DISCARD else 0.0
    dense[4] = view[V_STOCK] / 31.0
    dense[5] = min(view[V_TURN], 80) / 40.0
    dense[6] = view[V_KNOCK_LIMIT] / 10.0
    dense[7] = 1.0 if view[V_ROLE] == 1 else 0.0
    dense[8] = 1.0 if view[V_PLAYERS] == 3 else 0.0
    dense[9] = (10 - popcount(known)) / 10.0
    dense[10] = n_unseen / 41.0
    passed = view[V_SELF_DISCARDED] & ~view[V_OPP_TOOK]
    dead = view[V_HAND] | view[V_PILE_MASK]
    discarded = view[V_OPP_DISCARDED]
    for code in range(N_CODES):
        if not (FULL_MASK >> code) & 1:
            continue
        f = features[card_index(code)]
        f[0] = popcount(RANK_PEERS[code] & discarded)
        f[1] = popcount(NEAR1[code] & discarded)
        f[2] = popcount(NEAR2[code] & discarded)
        f[3] = popcount(RANK_PEERS[code] & known)
        f[4] = popcount(NEAR1[code] & known)
        f[5] = popcount(NEAR2[code] & known)
        f[6] = popcount(RANK_PEERS[code] & passed)
        f[7] = popcount(NEAR1[code] & passed)
        f[8] = popcount(RANK_PEERS[code] & dead)
        f[9] = popcount(NEAR1[code] & dead)
        f[10] = CARD_VALUE[code]
    return n


@kernel
def belief_logits(weights: np.ndarray, view: np.ndarray, active: np.ndarray,
                  dense: np.ndarray, features: np.ndarray, hidden: np.ndarray,
                  gates: np.ndarray, logits: np.ndarray) -> None:
    """The model on ``view``: each card's log-odds of being in the opponent's hand, by card
    index, in ``logits`` (52; meaningful for the unseen cards only). The other arrays are
    workspace: ``hidden`` at least the hidden size, ``gates`` ``N_CARD_FEATURES``."""
    n_active = encode(view, active, dense, features)
    h = int(weights[H_HIDDEN])
    at_dense = HEADER_LEN + N_CARD_INPUTS * h
    at_b1 = at_dense + N_DENSE * h
    at_out = at_b1 + h
    at_ob = at_out + 52 * h
    at_gate = at_ob + 52
    at_gb = at_gate + N_CARD_FEATURES * h
    for j in range(h):
        hidden[j] = weights[at_b1 + j]
    for i in range(n_active):
        row = HEADER_LEN + active[i] * h
        for j in range(h):
            hidden[j] += weights[row + j]
    for k in range(N_DENSE):
        x = dense[k]
        if x != 0.0:
            row = at_dense + k * h
            for j in range(h):
                hidden[j] += x * weights[row + j]
    for j in range(h):
        if hidden[j] < 0.0:
            hidden[j] = 0.0
    for k in range(N_CARD_FEATURES):
        s = weights[at_gb + k]
        row = at_gate + k * h
        for j in range(h):
            s += weights[row + j] * hidden[j]
        gates[k] = s * FEATURE_SCALE[k]
    for c in range(52):
        s = weights[at_ob + c]
        row = at_out + c * h
        for j in range(h):
            s += weights[row + j] * hidden[j]
        for k in range(N_CARD_FEATURES):
            s += gates[k] * features[c, k]
        logits[c] = s


@kernel
def belief_odds(weights: np.ndarray, view: np.ndarray, scratch: np.ndarray,
                odds_at: int, work_at: int) -> None:
    """The odds ``p / (1 - p)`` that the opponent holds each card, by card code, written as
    floats to ``scratch`` (viewed as float64) at ``odds_at`` (64 slots); the forward pass's
    workspace is ``scratch`` from ``work_at`` (:data:`WORK_LEN` slots)."""
    floats = scratch.view(np.float64)
    active = scratch[work_at:work_at + MAX_ACTIVE]
    dense = floats[work_at + MAX_ACTIVE:work_at + MAX_ACTIVE + N_DENSE]
    at = work_at + MAX_ACTIVE + N_DENSE
    features = floats[at:at + 52 * N_CARD_FEATURES].reshape((52, N_CARD_FEATURES))
    at += 52 * N_CARD_FEATURES
    hidden = floats[at:at + MAX_HIDDEN]
    at += MAX_HIDDEN
    gates = floats[at:at + N_CARD_FEATURES]
    at += N_CARD_FEATURES
    logits = floats[at:at + 52]
    belief_logits(weights, view, active, dense, features, hidden, gates, logits)
    for code in range(N_CODES):
        if (FULL_MASK >> code) & 1:
            x = min(max(logits[card_index(code)], -30.0), 30.0)
            floats[odds_at + code] = np.exp(x)
        else:
            floats[odds_at + code] = 0.0


WORK_LEN = MAX_ACTIVE + N_DENSE + 52 * N_CARD_FEATURES + MAX_HIDDEN + N_CARD_FEATURES + 52
"""Scratch slots :func:`belief_odds` works in."""


@allocating
def encode_batch(views: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The inputs of many views (rows of ``V_LEN``), as training reads them: the card-plane
    inputs as a 0/1 matrix (n, ``N_CARD_INPUTS``, uint8), the dense inputs (n, ``N_DENSE``,
    float32) and the unscaled per-card features (n, 52, ``N_CARD_FEATURES``, uint8); the
    same encoder the compiled forward pass runs."""
    n = views.shape[0]
    cards = np.zeros((n, N_CARD_INPUTS), np.uint8)
    dense = np.zeros((n, N_DENSE), np.float32)
    features = np.zeros((n, 52, N_CARD_FEATURES), np.uint8)
    active = np.zeros(MAX_ACTIVE, np.int64)
    d = np.zeros(N_DENSE, np.float64)
    f = np.zeros((52, N_CARD_FEATURES), np.float64)
    for r in range(n):
        k = encode(views[r], active, d, f)
        for i in range(k):
            cards[r, active[i]] = 1
        for j in range(N_DENSE):
            dense[r, j] = d[j]
        for c in range(52):
            for j in range(N_CARD_FEATURES):
                features[r, c, j] = f[c, j]
    return cards, dense, features


@allocating
def logits_batch(weights: np.ndarray, views: np.ndarray) -> np.ndarray:
    """The compiled model's logits (n, 52, by card index) for many views: what the tests
    compare with PyTorch and the belief study scores."""
    n = views.shape[0]
    out = np.zeros((n, 52), np.float64)
    active = np.zeros(MAX_ACTIVE, np.int64)
    dense = np.zeros(N_DENSE, np.float64)
    features = np.zeros((52, N_CARD_FEATURES), np.float64)
    hidden = np.zeros(MAX_HIDDEN, np.float64)
    gates = np.zeros(N_CARD_FEATURES, np.float64)
    logits = np.zeros(52, np.float64)
    for r in range(n):
        belief_logits(weights, views[r], active, dense, features, hidden, gates, logits)
        out[r] = logits
    return out

