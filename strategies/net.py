"""``net``: the policy and value network trained by self-play, evaluated in compiled code.

Why a network: the heuristics answer each decision by a fixed rule and ``mc`` by rolling
options out on sampled worlds; a network trained on ``mc``'s own decisions (expert iteration,
:mod:`sim.learn`) plays its policy at the cost of one small forward pass, and gives ``mc`` a
base move, a shortlist and a leaf value (:mod:`strategies.mc`, parameter ``net``).

**Inputs** (:func:`encode`), from the mover's view and nothing else, so re-dealing the
hidden cards cannot change an output:

* card planes, each a set of cards (one input per card and plane): the hand, the top of the
  pile, the rest of the pile, the cards the opponent took and still holds, the cards he
  discarded, the cards the mover discarded, the upcard the opponent declined, the card taken
  from the pile this turn, the card drawn from the stock this turn, the unseen cards that
  would complete a meld of the hand (its outs), the cards that would complete a meld of the
  opponent's known cards, and the hand's cards that lie in some meld;
* :data:`DENSE_NAMES`: the decision, deadwood now and after the best discard or after taking
  the top card, the stock, the turn, the knock limit, the role, the player count, the scores
  over the target, the bonuses and counts of the planes;
* for each discard, :data:`OPTION_NAMES`: the deadwood it leaves over the least possible, the
  card's value, whether it lies in a meld, whether it would meld with the opponent's known
  cards, and whether it is the card just drawn.

**Network**: the card planes' first layer is a sum of weight rows, one per card held or seen
(chess engines' NNUE trick: a few dozen rows instead of a dense pass over every input), plus
the dense features; two ReLU layers; a policy logit per legal action (a row per action, plus
the option features' weights for a discard) and the value heads (:data:`VALUE_NAMES`): the
log-odds of winning the game, the hand's outcome (won, lost, drawn) and the points of a won
and of a lost hand.

**Weights** are one flat ``float32`` array (PyTorch trains in float32; the kernels add up in
float64) whose header gives its sizes (:func:`check_net`), so a network of other hidden sizes
loads and runs through the same kernels. The shipped file (:data:`NET_FILE`) is read at import
and frozen into the compiled ``net`` and ``mc``: numba freezes an array of at most
:data:`FROZEN_LIMIT` bytes into the code and caches it, while a larger global would make every
function that reaches it (``mc``, the dispatcher) compile afresh in every process. A user's
file plays through :func:`with_weights` (``net:weights=PATH``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from sim.engine.cards import CARD_VALUE, FULL_MASK, N_CODES
from sim.engine.hand import (
    AFTER_LEN,
    DEC_DISCARD,
    DEC_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
    deadwood_table,
    forget_after,
)
from sim.engine.jit import allocating, kernel
from sim.engine.melds import fill_deadwood_after_discards, meld_cover, popcount
from sim.engine.view import (
    V_DEADWOOD,
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
    V_OPP_TOOK,
    V_PILE_LEN,
    V_PILE_MASK,
    V_PLAYERS,
    V_ROLE,
    V_SCORE_OPP,
    V_SCORE_OTHER,
    V_SCORE_SELF,
    V_SELF_DISCARDED,
    V_STOCK,
    V_TAKEN,
    V_TARGET,
    V_TOP,
    V_TURN,
    V_UNDERCUT_BONUS,
    legal_moves,
)
from sim.io.files import read_npz
from strategies.builtin import SCRATCH_LEN, in_some_best_meld
from strategies.declare import StrategyInfo
from strategies.mc_eval import meld_outs

FEATURE_VERSION = 1
"""The input encoding's version, written in every weights file: a file of another version is
refused, since the same weights would read other inputs."""

PLANE_NAMES = ("hand", "top", "pile", "opp_holds", "opp_discarded", "self_discarded",
               "opp_declined", "taken", "drawn", "outs", "opp_outs", "melded")
N_PLANES = len(PLANE_NAMES)
N_CARD_INPUTS = 52 * N_PLANES
DENSE_NAMES = ("offer", "draw", "knock", "discard", "knocked", "deadwood", "best_after",
               "take_deadwood", "within_limit", "stock", "turn", "knock_limit", "nondealer",
               "three_handed", "score_self", "score_opp", "score_other", "gin_bonus",
               "undercut_bonus", "pile_len", "outs", "opp_holds", "opp_discarded",
               "top_melds")
N_DENSE = len(DENSE_NAMES)
OPTION_NAMES = ("extra_deadwood", "value", "melded", "feeds_opponent", "just_drawn")
N_OPTION = len(OPTION_NAMES)
N_ACTIONS = 57
"""Actions: a discard of each of the 52 cards (:func:`card_index`), then pass, take the
discard, draw from the stock, knock and play on (:func:`action_of`)."""
VALUE_NAMES = ("game_win", "hand_won", "hand_lost", "hand_drawn", "points_won", "points_lost")
N_VALUES = len(VALUE_NAMES)
POINTS_SCALE = 25.0
"""The points heads predict points / POINTS_SCALE."""

MAX_HIDDEN = (512, 256)
"""The largest hidden layers the compiled workspace holds."""
MAX_ACTIVE = 256
"""Room for the active card inputs of one position (at most 12 planes of 52 cards)."""
HEADER_LEN = 8
WEIGHT_DTYPE = np.float32
"""The weights' type: what PyTorch trains in, and half the bytes of float64."""
FROZEN_LIMIT = 10**6
"""The most bytes of a global array numba freezes into cached code (``make_constant_array``)."""
H_FORMAT, H_PLANES, H_DENSE, H_HIDDEN1, H_HIDDEN2, H_ACTIONS, H_OPTION, H_VALUES = range(8)

# The network's workspace: a tail of the strategies' shared int64 scratch, viewed as floats.
NET_SCRATCH_LEN = MAX_ACTIVE + 64 + N_DENSE + 64 * N_OPTION + MAX_HIDDEN[0] + MAX_HIDDEN[1] \
    + 64 + N_VALUES
NET_AT = SCRATCH_LEN - NET_SCRATCH_LEN
"""Where the workspace starts in ``scratch``: past every slot ``mc`` uses."""
W_ACTIVE = NET_AT  # active card input indices (ints)
W_TABLE = W_ACTIVE + MAX_ACTIVE  # deadwood after each discard of hand + top (ints, 64)
W_DENSE = W_TABLE + 64  # floats from here on
W_OPTION = W_DENSE + N_DENSE  # option features by card code (64 x N_OPTION)
W_H1 = W_OPTION + 64 * N_OPTION
W_H2 = W_H1 + MAX_HIDDEN[0]
W_LOGITS = W_H2 + MAX_HIDDEN[1]  # logits by action slot of the legal list (at most 64)
W_VALUES = W_LOGITS + 64
assert W_VALUES + N_VALUES == SCRATCH_LEN


def weight_sizes(hidden1: int, hidden2: int) -> list[tuple[str, tuple[int, ...]]]:
    """The weight tensors in file order: their names and shapes (the flat array is the header
    then each tensor's values, row-major)."""
    return [("card_weights", (N_CARD_INPUTS, hidden1)), ("dense_weights", (N_DENSE, hidden1)),
            ("bias1", (hidden1,)), ("weights2", (hidden1, hidden2)), ("bias2", (hidden2,)),
            ("policy_weights", (N_ACTIONS, hidden2)), ("policy_bias", (N_ACTIONS,)),
            ("option_weights", (N_OPTION,)), ("value_weights", (N_VALUES, hidden2)),
            ("value_bias", (N_VALUES,))]


def flat_length(hidden1: int, hidden2: int) -> int:
    """Length of the flat weight array of a network of these hidden sizes."""
    return HEADER_LEN + sum(int(np.prod(shape)) for _, shape in weight_sizes(hidden1, hidden2))


def pack(tensors: dict[str, np.ndarray]) -> np.ndarray:
    """The flat weight array of named tensors (shapes as :func:`weight_sizes`)."""
    hidden1, hidden2 = tensors["weights2"].shape
    out = [np.array([FEATURE_VERSION, N_PLANES, N_DENSE, hidden1, hidden2, N_ACTIONS, N_OPTION,
                     N_VALUES], WEIGHT_DTYPE)]
    for name, shape in weight_sizes(hidden1, hidden2):
        array = np.asarray(tensors[name], WEIGHT_DTYPE)
        if array.shape != shape:
            raise ValueError(f"weights {name!r} have shape {array.shape}: expected {shape}")
        out.append(array.ravel())
    return np.ascontiguousarray(np.concatenate(out))


def unpack(net: np.ndarray) -> dict[str, np.ndarray]:
    """The named tensors of a flat weight array (views into it)."""
    hidden1, hidden2 = int(net[H_HIDDEN1]), int(net[H_HIDDEN2])
    out, at = {}, HEADER_LEN
    for name, shape in weight_sizes(hidden1, hidden2):
        size = int(np.prod(shape))
        out[name] = net[at:at + size].reshape(shape)
        at += size
    return out


def check_net(net: Any, where: str = "the weights") -> np.ndarray:
    """``net`` as a contiguous float32 flat weight array, or a ValueError saying what is
    wrong (another input encoding, sizes beyond the workspace, a length that does not match
    the header, a value that is not finite in float32)."""
    with np.errstate(over="ignore"):
        net = np.ascontiguousarray(net, WEIGHT_DTYPE)
    if net.ndim != 1 or len(net) < HEADER_LEN:
        raise ValueError(f"{where}: not a flat weight array")
    header = tuple(int(v) for v in net[:HEADER_LEN])
    if header[H_FORMAT] != FEATURE_VERSION or header[H_PLANES] != N_PLANES or \
            header[H_DENSE] != N_DENSE or header[H_ACTIONS] != N_ACTIONS or \
            header[H_OPTION] != N_OPTION or header[H_VALUES] != N_VALUES:
        raise ValueError(f"{where}: input encoding {header[H_FORMAT]} with sizes "
                         f"{header[1:3]} does not match this ginbox's encoding "
                         f"{FEATURE_VERSION} ({N_PLANES} planes, {N_DENSE} dense inputs)")
    hidden1, hidden2 = header[H_HIDDEN1], header[H_HIDDEN2]
    if not (1 <= hidden1 <= MAX_HIDDEN[0] and 1 <= hidden2 <= MAX_HIDDEN[1]):
        raise ValueError(f"{where}: hidden sizes {hidden1}, {hidden2} are outside "
                         f"1..{MAX_HIDDEN[0]} and 1..{MAX_HIDDEN[1]}")
    if len(net) != flat_length(hidden1, hidden2):
        raise ValueError(f"{where}: {len(net)} values, expected {flat_length(hidden1, hidden2)}"
                         f" for hidden sizes {hidden1}, {hidden2}")
    if not np.isfinite(net).all():
        raise ValueError(f"{where}: holds values that are not finite")
    return net


def load_net(path: str | Path) -> tuple[np.ndarray, dict[str, Any]]:
    """The flat weights and metadata of a weights file (``.npz`` with ``net`` and ``meta``),
    checked; a ValueError naming the file when it cannot be read or does not fit."""
    path = Path(path)
    try:
        arrays = read_npz(path)
        net = arrays["net"]
        meta = json.loads(str(arrays["meta"])) if "meta" in arrays else {}
    except KeyError:
        raise ValueError(f"cannot read network weights {str(path)!r}: it holds no array "
                         "'net' (ginbox train writes weights files)") from None
    except OSError as exc:
        raise ValueError(f"cannot read network weights {str(path)!r}: "
                         f"{exc.strerror or exc}") from None
    except ValueError as exc:
        raise ValueError(f"cannot read network weights {str(path)!r}: {exc}") from None
    return read_only(check_net(net, f"network weights {str(path)!r}")), meta


def read_only(net: np.ndarray) -> np.ndarray:
    """``net`` marked read-only. Why: the compiled code types the shipped weights (a frozen
    global) as a read-only array, so a user's weights passed read-only run the very same
    compiled functions instead of a second compilation of ``mc``'s search."""
    net = np.array(net, WEIGHT_DTYPE, copy=True)
    net.setflags(write=False)
    return net


NET_FILE = Path(__file__).with_name("net_v1.npz")
"""The shipped weights (``ginbox train`` writes such a file; its ``meta`` names the command,
seed and code version that made them)."""


def _shipped() -> tuple[np.ndarray, dict[str, Any]]:
    """The shipped network, or an all-zero one of the smallest size when the file is missing
    (every legal move then scores alike and ``net`` plays the first)."""
    try:
        return load_net(NET_FILE)
    except ValueError:
        blank = np.zeros(flat_length(1, 1), WEIGHT_DTYPE)
        blank[:HEADER_LEN] = (FEATURE_VERSION, N_PLANES, N_DENSE, 1, 1, N_ACTIONS, N_OPTION,
                              N_VALUES)
        return blank, {}


NET_WEIGHTS, NET_META = _shipped()


@kernel(inline="always")
def card_index(code: int) -> int:
    """A card code's index 0..51 (suit-major, ace first), the column of every card plane."""
    return (code >> 4) * 13 + (code & 15)


@kernel(inline="always")
def action_of(move: int) -> int:
    """A move code's action: a discard's card index, else 52 + (move - MOVE_PASS)."""
    if move < N_CODES:
        return card_index(move)
    return 52 + move - MOVE_PASS


@kernel(inline="always")
def _add_plane(scratch: np.ndarray, n: int, plane: int, mask: int) -> int:
    """Append the inputs of the cards of ``mask`` in ``plane``; return the new count."""
    m = mask & FULL_MASK
    while m and n < MAX_ACTIVE:
        c = trailing_zeros(m)
        m &= m - 1
        scratch[W_ACTIVE + n] = plane * 52 + card_index(c)
        n += 1
    return n


@kernel
def encode(view: np.ndarray, after: np.ndarray, scratch: np.ndarray) -> int:
    """Write the inputs of the position ``view`` to the workspace: the active card inputs
    (returned: how many), the dense features and each card's option features. ``after``:
    the rules' turn scratch, whose deadwood table of the mover's 11 cards it fills at knock
    and discard decisions if the engine has not (memoised: free when it has)."""
    floats = scratch.view(np.float64)
    decision = view[V_DECISION]
    hand = view[V_HAND]
    top = view[V_TOP]
    top_mask = (1 << top) if top >= 0 else 0
    pile = view[V_PILE_MASK] & ~top_mask
    opp_holds = view[V_OPP_TOOK] & ~view[V_OPP_DISCARDED] & ~view[V_PILE_MASK] & ~hand
    unseen = FULL_MASK & ~hand & ~view[V_PILE_MASK] & ~opp_holds
    outs = meld_outs(hand)[0] & unseen
    opp_outs = meld_outs(opp_holds)[0]
    melded = meld_cover(hand)
    taken = view[V_TAKEN]
    drawn = view[V_DRAWN]
    n = _add_plane(scratch, 0, 0, hand)
    n = _add_plane(scratch, n, 1, top_mask)
    n = _add_plane(scratch, n, 2, pile)
    n = _add_plane(scratch, n, 3, opp_holds)
    n = _add_plane(scratch, n, 4, view[V_OPP_DISCARDED])
    n = _add_plane(scratch, n, 5, view[V_SELF_DISCARDED])
    declined = view[V_OPP_DECLINED]
    n = _add_plane(scratch, n, 6, (1 << declined) if declined >= 0 else 0)
    n = _add_plane(scratch, n, 7, (1 << taken) if taken >= 0 else 0)
    n = _add_plane(scratch, n, 8, (1 << drawn) if drawn >= 0 and drawn != taken else 0)
    n = _add_plane(scratch, n, 9, outs)
    n = _add_plane(scratch, n, 10, opp_outs)
    n = _add_plane(scratch, n, 11, melded)
    eleven = decision == DEC_KNOCK or decision == DEC_DISCARD
    best_after = view[V_DEADWOOD]
    take_deadwood = 0
    top_melds = 0
    if eleven:
        best_after = 999
        forbidden = view[V_FORBIDDEN]
        deadwood_table(hand, forbidden, after)
        m = hand
        while m:
            c = trailing_zeros(m)
            m &= m - 1
            if c != forbidden and after[c] < best_after:
                best_after = after[c]
    elif top >= 0:
        table = scratch[W_TABLE:W_TABLE + 64]
        fill_deadwood_after_discards(hand | top_mask, table)
        take_deadwood = 999
        m = hand
        while m:
            c = trailing_zeros(m)
            m &= m - 1
            if table[c] < take_deadwood:
                take_deadwood = table[c]
        top_melds = 1 if in_some_best_meld(hand, top) else 0
    target = max(1, view[V_TARGET])
    d = W_DENSE
    for k in range(4):
        floats[d + k] = 1.0 if decision == k else 0.0
    floats[d + 4] = view[V_KNOCKED]
    floats[d + 5] = view[V_DEADWOOD] / 50.0
    floats[d + 6] = best_after / 50.0
    floats[d + 7] = take_deadwood / 50.0
    floats[d + 8] = 1.0 if best_after <= view[V_KNOCK_LIMIT] else 0.0
    floats[d + 9] = view[V_STOCK] / 32.0
    floats[d + 10] = view[V_TURN] / 32.0
    floats[d + 11] = view[V_KNOCK_LIMIT] / 10.0
    floats[d + 12] = view[V_ROLE]
    floats[d + 13] = 1.0 if view[V_PLAYERS] == 3 else 0.0
    floats[d + 14] = view[V_SCORE_SELF] / target
    floats[d + 15] = view[V_SCORE_OPP] / target
    floats[d + 16] = view[V_SCORE_OTHER] / target
    floats[d + 17] = view[V_GIN_BONUS] / 25.0
    floats[d + 18] = view[V_UNDERCUT_BONUS] / 25.0
    floats[d + 19] = view[V_PILE_LEN] / 32.0
    floats[d + 20] = popcount(outs) / 16.0
    floats[d + 21] = popcount(opp_holds) / 8.0
    floats[d + 22] = popcount(view[V_OPP_DISCARDED]) / 16.0
    floats[d + 23] = top_melds
    if eleven:
        m = hand
        while m:
            c = trailing_zeros(m)
            m &= m - 1
            o = W_OPTION + c * N_OPTION
            extra = after[c] - best_after if after[c] < 999 else 0
            floats[o] = extra / 20.0
            floats[o + 1] = CARD_VALUE[c] / 10.0
            floats[o + 2] = (melded >> c) & 1
            floats[o + 3] = (opp_outs >> c) & 1
            floats[o + 4] = 1.0 if c == drawn else 0.0
    return n


@kernel
def forward(net: np.ndarray, view: np.ndarray, after: np.ndarray, scratch: np.ndarray,
            moves: np.ndarray, n_moves: int) -> None:
    """The network on the position ``view``: the logit of each of the ``n_moves`` moves in
    ``moves`` (move codes) at ``scratch[W_LOGITS + i]`` and the value heads at
    ``scratch[W_VALUES:]`` (as floats of :func:`workspace`), raw (log-odds, points over
    :data:`POINTS_SCALE`)."""
    floats = scratch.view(np.float64)
    n_active = encode(view, after, scratch)
    h1 = int(net[H_HIDDEN1])
    h2 = int(net[H_HIDDEN2])
    at_dense = HEADER_LEN + N_CARD_INPUTS * h1
    at_b1 = at_dense + N_DENSE * h1
    at_w2 = at_b1 + h1
    at_b2 = at_w2 + h1 * h2
    at_pw = at_b2 + h2
    at_pb = at_pw + N_ACTIONS * h2
    at_ow = at_pb + N_ACTIONS
    at_vw = at_ow + N_OPTION
    at_vb = at_vw + N_VALUES * h2
    for j in range(h1):
        floats[W_H1 + j] = net[at_b1 + j]
    for i in range(n_active):
        row = HEADER_LEN + scratch[W_ACTIVE + i] * h1
        for j in range(h1):
            floats[W_H1 + j] += net[row + j]
    for k in range(N_DENSE):
        x = floats[W_DENSE + k]
        if x != 0.0:
            row = at_dense + k * h1
            for j in range(h1):
                floats[W_H1 + j] += x * net[row + j]
    for k in range(h2):
        floats[W_H2 + k] = net[at_b2 + k]
    for j in range(h1):
        x = floats[W_H1 + j]
        if x > 0.0:
            row = at_w2 + j * h2
            for k in range(h2):
                floats[W_H2 + k] += x * net[row + k]
    for k in range(h2):
        if floats[W_H2 + k] < 0.0:
            floats[W_H2 + k] = 0.0
    for i in range(n_moves):
        a = action_of(moves[i])
        s = net[at_pb + a]
        row = at_pw + a * h2
        for k in range(h2):
            s += net[row + k] * floats[W_H2 + k]
        if moves[i] < N_CODES:
            o = W_OPTION + moves[i] * N_OPTION
            for k in range(N_OPTION):
                s += net[at_ow + k] * floats[o + k]
        floats[W_LOGITS + i] = s
    for v in range(N_VALUES):
        s = net[at_vb + v]
        row = at_vw + v * h2
        for k in range(h2):
            s += net[row + k] * floats[W_H2 + k]
        floats[W_VALUES + v] = s


@kernel(inline="always")
def workspace(scratch: np.ndarray) -> np.ndarray:
    """The scratch as floats, where :func:`forward` leaves logits and values."""
    return scratch.view(np.float64)


@kernel
def policy_move(net: np.ndarray, view: np.ndarray, after: np.ndarray, scratch: np.ndarray,
                moves: np.ndarray) -> int:
    """The legal move of highest logit (the earliest among equals): ``net``'s move. ``moves``
    is room for the legal moves (11 slots), which it fills."""
    n = legal_moves(view, after, moves)
    if n == 1:
        return moves[0]
    forward(net, view, after, scratch, moves, n)
    floats = scratch.view(np.float64)
    best = 0
    for i in range(1, n):
        if floats[W_LOGITS + i] > floats[W_LOGITS + best]:
            best = i
    return moves[best]


@kernel
def hand_outcome(net: np.ndarray, view: np.ndarray, after: np.ndarray,
                 scratch: np.ndarray) -> tuple[float, float, float, float, float]:
    """The value heads at ``view`` as (chance of winning the game, of winning the hand, of
    losing it, points of a won hand, points of a lost hand), points at least one."""
    moves = scratch[W_LOGITS:W_LOGITS + 1]  # no policy logits are asked for
    forward(net, view, after, scratch, moves, 0)
    floats = scratch.view(np.float64)
    game = 1.0 / (1.0 + np.exp(-floats[W_VALUES]))
    top = max(floats[W_VALUES + 1], floats[W_VALUES + 2], floats[W_VALUES + 3])
    e_won = np.exp(floats[W_VALUES + 1] - top)
    e_lost = np.exp(floats[W_VALUES + 2] - top)
    total = e_won + e_lost + np.exp(floats[W_VALUES + 3] - top)
    won_points = max(1.0, floats[W_VALUES + 4] * POINTS_SCALE)
    lost_points = max(1.0, floats[W_VALUES + 5] * POINTS_SCALE)
    return game, e_won / total, e_lost / total, won_points, lost_points


@kernel
def net_move(net: np.ndarray, decision: int, params: np.ndarray, view: np.ndarray,
             after: np.ndarray, mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """``net``'s decision with the weights ``net`` (any network :func:`check_net` accepts).
    The legal moves go to ``mem``'s first slots, free for this: ``net`` keeps no memory."""
    return policy_move(net, view, after, scratch, mem[:16])


@kernel
def net_decide(decision: int, params: np.ndarray, view: np.ndarray, after: np.ndarray,
               mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """The shipped network's move: the legal move of highest policy logit."""
    return net_move(NET_WEIGHTS, decision, params, view, after, mem, rng, scratch)


MAX_LEGAL = 11
"""The most legal moves of a decision (a discard from 11 cards)."""


@allocating
def encode_batch(views: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                         np.ndarray, np.ndarray]:
    """The inputs of many positions, for training, by the very :func:`encode` inference
    runs: the active card inputs (``width`` columns, padded with ``N_CARD_INPUTS``), the
    dense features, the legal moves' actions (padded with -1), their option features, and
    how many card inputs each position has (a position with more than ``width`` has its
    count there and its inputs cut: the caller refuses it)."""
    n = views.shape[0]
    cards = np.full((n, width), N_CARD_INPUTS, np.int16)
    dense = np.zeros((n, N_DENSE), np.float32)
    actions = np.full((n, MAX_LEGAL), -1, np.int8)
    options = np.zeros((n, MAX_LEGAL, N_OPTION), np.float32)
    counts = np.zeros(n, np.int32)
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    floats = scratch.view(np.float64)
    after = np.zeros(AFTER_LEN, np.int64)
    moves = np.zeros(16, np.int64)
    for r in range(n):
        forget_after(after)
        k = encode(views[r], after, scratch)
        counts[r] = k
        for i in range(min(k, width)):
            cards[r, i] = scratch[W_ACTIVE + i]
        for i in range(N_DENSE):
            dense[r, i] = floats[W_DENSE + i]
        m = legal_moves(views[r], after, moves)
        for i in range(m):
            actions[r, i] = action_of(moves[i])
            if moves[i] < N_CODES:
                for f in range(N_OPTION):
                    options[r, i, f] = floats[W_OPTION + moves[i] * N_OPTION + f]
    return cards, dense, actions, options, counts


def with_weights(decide_with_net: Any, net: np.ndarray) -> Any:
    """A decision function of the shared signature that runs ``decide_with_net`` (a compiled
    ``(net, decision, params, view, after, mem, rng, scratch) -> move``) with the weights
    ``net``: how ``net:weights=PATH`` and ``mc:weights=PATH`` play a user's network (through
    the Python driver, each decision still compiled)."""
    def decide(decision: int, params: np.ndarray, view: np.ndarray, after: np.ndarray,
               mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
        return decide_with_net(net, decision, params, view, after, mem, rng, scratch)

    decide.net = net  # type: ignore[attr-defined]  # the weights, for whoever needs them
    return decide


assert V_LEN > 0 and MOVE_NO_KNOCK - MOVE_PASS + 53 == N_ACTIONS

NET = StrategyInfo(
    name="net",
    strategy_id=7,
    decide=net_decide,
    description="the policy network trained by self-play (expert iteration with mc): the "
                "legal move of highest logit, one forward pass a decision",
    decide_with_net=net_move,
)
"""``net``'s declaration (collected by :mod:`strategies.registry`)."""
