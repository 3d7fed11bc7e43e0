"""How ``mc`` reads its paired sums: the candidate to play and when to stop sampling; and the
order its discard candidates are listed in.

Why apart from :mod:`strategies.mc`: these are the search's statistics (the paired
differences :func:`strategies.mc.score` sums per world), read the same way by the decision
(:func:`choose`) and by both early stops; the search module keeps the worlds and rollouts.
"""

from __future__ import annotations

import numpy as np

from sim.engine.cards import CARD_VALUE
from sim.engine.jit import kernel
from strategies.mc_worlds import MAX_CANDIDATES, S_DIFF, S_SUM, VALUE_ONE


@kernel
def choose(scratch: np.ndarray, n_cand: int, n: int, z: float) -> int:
    """The candidate to play: the heuristic's (candidate 0) unless others beat it by more
    than ``z`` standard errors of the paired difference; then the best of those by mean.
    Why: a difference the worlds cannot resolve is noise, and noise would pick worse moves
    more often than the heuristic does."""
    best = 0
    for i in range(1, n_cand):
        mean, var, _ = _paired(scratch, i, 0, n)
        if mean > 0 and mean * mean * n > z * z * var:
            if best == 0 or scratch[S_SUM + i] > scratch[S_SUM + best]:
                best = i
    return best


@kernel(inline="always")
def _paired(scratch: np.ndarray, i: int, j: int, n: int) -> tuple[float, float, bool]:
    """Candidate ``i`` against ``j`` over the first ``n`` worlds: the mean and variance of
    the per-world difference in game value, and whether they were equal on every world (the
    sums :func:`score` keeps)."""
    s1 = scratch[S_DIFF + i * MAX_CANDIDATES + j] / VALUE_ONE
    s2 = scratch[S_DIFF + MAX_CANDIDATES * MAX_CANDIDATES + i * MAX_CANDIDATES + j] / (
        VALUE_ONE * VALUE_ONE)
    mean = s1 / n
    return mean, max(0.0, s2 / n - mean * mean), s2 == 0.0


@kernel(inline="always")
def _leader(scratch: np.ndarray, n_cand: int) -> int:
    """The candidate of highest summed value, the earliest among equals."""
    best = 0
    for i in range(1, n_cand):
        if scratch[S_SUM + i] > scratch[S_SUM + best]:
            best = i
    return best


@kernel
def _clearly_best(scratch: np.ndarray, n_cand: int, n: int, z: float) -> bool:
    """Does the leading candidate beat every other by more than ``z`` standard errors of the
    paired difference (or exactly tie it on every world)?"""
    best = _leader(scratch, n_cand)
    for j in range(n_cand):
        if j == best:
            continue
        mean, var, identical = _paired(scratch, best, j, n)
        if identical:
            continue  # identical on every world: either will do
        if mean * mean * n <= z * z * var or mean <= 0:
            return False
    return True


@kernel
def _base_holds(scratch: np.ndarray, n_cand: int, n: int, z: float) -> bool:
    """Is every other candidate below ``z`` standard errors of the paired difference
    ahead of the base move (candidate 0), or exactly level with it on every world? Why: a
    candidate far below the bar :func:`choose` sets would need many more worlds to pass it,
    and the base move is played anyway unless one does, so those worlds are better spent on
    close decisions (a larger ``samples`` at the same speed)."""
    for i in range(1, n_cand):
        mean, var, identical = _paired(scratch, i, 0, n)
        if identical:
            continue  # identical on every world: it cannot pass the bar
        if mean >= z * np.sqrt(var / n):
            return False
    return True


@kernel(inline="always")
def discard_before(after: np.ndarray, a: int, b: int) -> bool:
    """Card ``a`` is a better discard than ``b``: less deadwood left, then higher value,
    then higher code."""
    if after[a] != after[b]:
        return after[a] < after[b]
    if CARD_VALUE[a] != CARD_VALUE[b]:
        return CARD_VALUE[a] > CARD_VALUE[b]
    return a > b
