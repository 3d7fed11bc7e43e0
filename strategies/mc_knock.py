"""``mc``'s learned model of when the opponent knocks (``mc:opp_model=3``).

Why: ``mc``'s rollouts play the opponent with one fast policy, and the policy's knock decides
most of a rollout's value: a rollout opponent who knocks at 10 where the real one waits for
gin makes ``mc`` hurry, and the reverse lets it be undercut. What the opponent has shown says
how he knocks: how he ended the game's earlier hands (knocks, gins, the most deadwood he
knocked with), whether he has let a knock pass this hand, the scores and the stock. This model
gives, from those facts and his deadwood in a world, the chance that he knocks; the rollouts
knock for him when it is at least one half.

The model: the facts (:data:`FACT_NAMES`, integers) are encoded as :data:`INPUT_NAMES` by
:func:`encode_facts`, one ReLU hidden layer, one logit. ``sim.learn.knock`` trains it with
PyTorch on the knock decisions of self-play among a population (the label: did the player
knock); the forward pass here is the same arithmetic, compiled, and a test checks it equals
PyTorch's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from sim.engine.jit import allocating, kernel
from sim.engine.view import (
    V_KNOCK_LIMIT,
    V_OPP_GINS,
    V_OPP_KNOCK_DEADWOOD,
    V_OPP_KNOCKS,
    V_PLAYERS,
    V_SCORE_OPP,
    V_SCORE_SELF,
    V_TARGET,
)
from strategies.mc_belief import read_weights

KNOCK_VERSION = 1
"""The input encoding's version: a weights file of another encoding is refused."""
FACT_NAMES = ("deadwood", "stock", "passed", "knocks", "gins", "knock_deadwood", "own_score",
              "other_score", "target", "players", "limit")
"""What the model reads of a knock decision, as integers: the knocker's least deadwood after
his discard, the stock left, whether he let a knock pass earlier this hand, his knocks (gins
apart), gins and most deadwood knocked with in the game's earlier hands, his score, his
opponent's, the target, the number of players and the hand's knock limit."""
N_FACTS = len(FACT_NAMES)
(F_DEADWOOD, F_STOCK, F_PASSED, F_KNOCKS, F_GINS, F_KNOCK_DEADWOOD, F_OWN_SCORE,
 F_OTHER_SCORE, F_TARGET, F_PLAYERS, F_LIMIT) = range(N_FACTS)
INPUT_NAMES = tuple(f"deadwood_{d}" for d in range(11)) + (
    "stock", "passed", "knocks", "gins", "knock_deadwood", "no_endings", "own_score",
    "other_score", "three_handed", "limit")
N_INPUTS = len(INPUT_NAMES)
N_MOVING = 13
"""Inputs ``0 .. N_MOVING - 1`` (the deadwood, the stock, a knock let pass) change within a
rollout; the others stay the same within a hand."""
MAX_KNOCK_HIDDEN = 64
KNOCK_WORK_LEN = N_INPUTS + MAX_KNOCK_HIDDEN
"""Floats the forward pass works in: the inputs, then each hidden unit's sum."""
HEADER_LEN = 4
H_FORMAT, H_INPUTS, H_HIDDEN = range(3)
WEIGHT_DTYPE = np.float32


@kernel
def encode_moves(facts: np.ndarray, x: np.ndarray) -> None:
    """The inputs that change within a rollout (``x[:N_MOVING]``): the deadwood (one-hot),
    the stock, a knock let pass."""
    for i in range(11):
        x[i] = 0.0
    x[min(max(facts[F_DEADWOOD], 0), 10)] = 1.0
    x[11] = facts[F_STOCK] / 31.0
    x[12] = 1.0 if facts[F_PASSED] else 0.0


@kernel
def encode_facts(facts: np.ndarray, x: np.ndarray) -> None:
    """The model's inputs (``N_INPUTS`` floats in ``x``) from the facts (``FACT_NAMES``): those
    of :func:`encode_moves`, then his style, the scores, the players and the knock limit."""
    encode_moves(facts, x)
    x[13] = min(facts[F_KNOCKS], 6) / 6.0
    x[14] = min(facts[F_GINS], 6) / 6.0
    x[15] = facts[F_KNOCK_DEADWOOD] / 10.0
    x[16] = 1.0 if facts[F_KNOCKS] + facts[F_GINS] == 0 else 0.0
    target = max(facts[F_TARGET], 1)
    x[17] = min(facts[F_OWN_SCORE], target) / target
    x[18] = min(facts[F_OTHER_SCORE], target) / target
    x[19] = 1.0 if facts[F_PLAYERS] == 3 else 0.0
    x[20] = facts[F_LIMIT] / 10.0


@kernel
def style_sums(weights: np.ndarray, facts: np.ndarray, work: np.ndarray) -> None:
    """Encode the facts into ``work[:N_INPUTS]`` and put each hidden unit's bias plus the
    weighted sum of the inputs that stay the same within a hand (``N_MOVING`` on) after them:
    what :func:`logit_from_sums` completes, once per decision in ``mc``."""
    x = work[:N_INPUTS]
    encode_facts(facts, x)
    hidden = int(weights[H_HIDDEN])
    b1 = HEADER_LEN + N_INPUTS * hidden
    for j in range(hidden):
        a = float(weights[b1 + j])
        for i in range(N_MOVING, N_INPUTS):
            if x[i] != 0.0:
                a += x[i] * weights[HEADER_LEN + i * hidden + j]
        work[N_INPUTS + j] = a


@kernel
def logit_from_sums(weights: np.ndarray, work: np.ndarray) -> float:
    """The logit from :func:`style_sums`' sums and the moving inputs in ``work``."""
    hidden = int(weights[H_HIDDEN])
    w2 = HEADER_LEN + N_INPUTS * hidden + hidden
    logit = float(weights[w2 + hidden])
    for j in range(hidden):
        a = work[N_INPUTS + j]
        for i in range(N_MOVING):
            if work[i] != 0.0:
                a += work[i] * weights[HEADER_LEN + i * hidden + j]
        if a > 0.0:
            logit += a * weights[w2 + j]
    return logit


@kernel
def knock_logit(weights: np.ndarray, facts: np.ndarray, work: np.ndarray) -> float:
    """The log-odds that a player with these facts knocks (``work``: ``KNOCK_WORK_LEN``
    floats)."""
    style_sums(weights, facts, work)
    return logit_from_sums(weights, work)


@kernel
def opponent_style(view: np.ndarray, facts: np.ndarray) -> None:
    """The facts of the mover's opponent that stay the same within the hand, from the view:
    how he ended the game's earlier hands, the scores (his first), the target, the players and
    the knock limit."""
    facts[F_KNOCKS] = view[V_OPP_KNOCKS]
    facts[F_GINS] = view[V_OPP_GINS]
    facts[F_KNOCK_DEADWOOD] = view[V_OPP_KNOCK_DEADWOOD]
    facts[F_OWN_SCORE] = view[V_SCORE_OPP]
    facts[F_OTHER_SCORE] = view[V_SCORE_SELF]
    facts[F_TARGET] = view[V_TARGET]
    facts[F_PLAYERS] = view[V_PLAYERS]
    facts[F_LIMIT] = view[V_KNOCK_LIMIT]


@kernel
def model_knocks(weights: np.ndarray, facts: np.ndarray, work: np.ndarray, deadwood: int,
                 stock: int, passed: bool) -> bool:
    """Whether the opponent knocks (a chance of at least one half), his style's sums already
    in ``work`` (:func:`opponent_style`, then :func:`style_sums`)."""
    facts[F_DEADWOOD] = deadwood
    facts[F_STOCK] = stock
    facts[F_PASSED] = 1 if passed else 0
    encode_moves(facts, work)
    return logit_from_sums(weights, work) >= 0.0


@allocating
def logits_of(weights: np.ndarray, facts: np.ndarray) -> np.ndarray:
    """The compiled model's logit for each row of ``facts`` (int64 rows of ``N_FACTS``)."""
    work = np.zeros(KNOCK_WORK_LEN, np.float64)
    out = np.zeros(facts.shape[0], np.float64)
    for r in range(facts.shape[0]):
        out[r] = knock_logit(weights, facts[r], work)
    return out


@allocating
def encode_rows(facts: np.ndarray) -> np.ndarray:
    """The inputs of each row of ``facts`` (int64 rows of ``N_FACTS``), for training."""
    out = np.zeros((facts.shape[0], N_INPUTS), np.float64)
    for r in range(facts.shape[0]):
        encode_facts(facts[r], out[r])
    return out


def flat_length(hidden: int) -> int:
    """Length of the flat weight array of a model with ``hidden`` units."""
    return HEADER_LEN + N_INPUTS * hidden + 2 * hidden + 1


def pack(w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: float) -> np.ndarray:
    """The flat weight array: the header, ``w1`` (inputs x hidden, row-major), ``b1``, ``w2``
    (hidden) and ``b2``."""
    hidden = len(b1)
    if np.shape(w1) != (N_INPUTS, hidden) or np.shape(w2) != (hidden,):
        raise ValueError(f"knock weights of shapes {np.shape(w1)}, {np.shape(w2)}: expected "
                         f"({N_INPUTS}, {hidden}) and ({hidden},)")
    header = np.zeros(HEADER_LEN, WEIGHT_DTYPE)
    header[:3] = (KNOCK_VERSION, N_INPUTS, hidden)
    parts = [header, np.ravel(w1), np.ravel(b1), np.ravel(w2), np.array([b2])]
    return np.ascontiguousarray(np.concatenate([np.asarray(p, WEIGHT_DTYPE) for p in parts]))


def check_knock(weights: Any, where: str = "the knock weights") -> np.ndarray:
    """``weights`` as a read-only float32 flat array, or a ValueError saying what is wrong."""
    weights = np.array(weights, WEIGHT_DTYPE, copy=True)
    if weights.ndim != 1 or len(weights) < HEADER_LEN:
        raise ValueError(f"{where}: not a flat weight array")
    version, inputs, hidden = (int(v) for v in weights[:3])
    if version != KNOCK_VERSION or inputs != N_INPUTS:
        raise ValueError(f"{where}: encoding {version} with {inputs} inputs does not match this "
                         f"ginbox's knock encoding {KNOCK_VERSION} ({N_INPUTS} inputs)")
    if not 1 <= hidden <= MAX_KNOCK_HIDDEN or len(weights) != flat_length(hidden):
        raise ValueError(f"{where}: {len(weights)} values do not fit hidden size {hidden} "
                         f"(1..{MAX_KNOCK_HIDDEN})")
    if not np.isfinite(weights).all():
        raise ValueError(f"{where}: holds values that are not finite")
    weights.setflags(write=False)
    return weights


def load_knock(path: str | Path) -> tuple[np.ndarray, dict[str, Any]]:
    """The flat weights and metadata of a knock model file (``.npz`` with ``knock`` and
    ``meta``), checked; a ValueError naming the file when it cannot be read."""
    return read_weights(path, "knock", check_knock)


KNOCK_FILE = Path(__file__).with_name("knock_v1.npz")
"""The shipped knock model (``ginbox train`` with ``model = "knock"`` writes such a file)."""


def _shipped() -> tuple[np.ndarray, dict[str, Any]]:
    """The shipped model, or one that knocks whenever he may (a logit of 1) when the file is
    missing."""
    try:
        return load_knock(KNOCK_FILE)
    except ValueError:
        blank = pack(np.zeros((N_INPUTS, 1)), np.zeros(1), np.zeros(1), 1.0)
        blank.setflags(write=False)
        return blank, {}


KNOCK_WEIGHTS, KNOCK_META = _shipped()
