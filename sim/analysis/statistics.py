"""Interval estimates, with no knowledge of runs or tables: the statistics every table uses.

Kept apart so that everything printing an interval (the report tables, ``ginbox play``'s
summary, the notebooks) computes it one way, with one constant, :data:`Z95`.

* A proportion (a game win rate, a share of hands) carries its count, its ``n`` and a Wilson 95%
  interval (:func:`wilson`). Hands within a game are not independent; the Wilson interval of a
  per-hand rate treats them as if they were, which understates its width slightly.
* A mean or a ratio of sums over games (points per hand, hands per game, spell length in the
  box) gets a normal 95% interval from the game-to-game variation (:class:`Ratio`, the delta
  method for a ratio ``sum(x) / sum(y)``: each game contributes ``(x - R y) / mean(y)``), games
  being independent.
* A comparison of two arms is paired: all arms of an experiment play game ``g`` from the same
  decks (common random numbers), so the difference is estimated from per-game paired
  differences with the interval ``mean +- 1.96 sd / sqrt(n)`` (:class:`Paired`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: The two-sided 95% normal quantile.
Z95 = 1.959963984540054


def wilson(k: Any, n: Any, z: float = Z95) -> tuple[Any, Any]:
    """Wilson score interval of the proportion ``k / n``, vectorised over numpy arrays.

    Unlike ``p +- z se`` it stays inside [0, 1] and is sensible at ``k = 0`` and ``k = n``,
    which small samples and rare outcomes (turn limits, gins of a weak player) often hit.
    ``n = 0`` gives NaN. Scalars in, floats out; arrays in, arrays out.

    >>> [round(v, 4) for v in wilson(5, 10)]
    [0.2366, 0.7634]
    """
    scalar = np.ndim(k) == 0 and np.ndim(n) == 0
    k_arr = np.asarray(k, dtype=np.float64)
    n_arr = np.asarray(n, dtype=np.float64)
    if np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError("wilson: expected 0 <= k <= n")
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k_arr / n_arr
        z2 = z * z
        denom = 1.0 + z2 / n_arr
        centre = (p + z2 / (2.0 * n_arr)) / denom
        half = z * np.sqrt(p * (1.0 - p) / n_arr + z2 / (4.0 * n_arr * n_arr)) / denom
        low = np.where(k_arr == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
        high = np.where(k_arr == n_arr, 1.0, np.clip(centre + half, 0.0, 1.0))
    empty = n_arr <= 0
    low = np.where(empty, np.nan, low)
    high = np.where(empty, np.nan, high)
    if scalar:
        return float(low), float(high)
    return low, high


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a @ b`` without BLAS (see :meth:`Ratio.add`)."""
    return float(np.multiply(a, b).sum())


class Ratio:
    """Sums over independent games for the estimate ``sum(x) / sum(y)`` and its interval.

    With ``y = 1`` it is the plain mean of ``x`` with ``mean +- z sd / sqrt(n)``; otherwise the
    delta method: each game contributes ``u = (x - R y) / mean(y)`` and the interval is
    ``R +- z sd(u) / sqrt(n)``, which accounts for hands within a game being correlated.
    """

    __slots__ = ("n", "sx", "sy", "sxx", "sxy", "syy")

    def __init__(self) -> None:
        self.n = 0
        self.sx = self.sy = self.sxx = self.sxy = self.syy = 0.0

    def add(self, x: np.ndarray, y: np.ndarray | None = None) -> None:
        # _dot, not ``x @ x``: a BLAS dot on a busy machine waits on its threads (45 ms for
        # 20,000 values seen); on the integer counts of games every order of sum is exact
        x = np.asarray(x, dtype=np.float64)
        y = np.ones_like(x) if y is None else np.asarray(y, dtype=np.float64)
        self.n += len(x)
        self.sx += float(x.sum())
        self.sy += float(y.sum())
        self.sxx += _dot(x, x)
        self.sxy += _dot(x, y)
        self.syy += _dot(y, y)

    def add_sums(self, n: int, sx: float, sy: float, sxx: float, sxy: float,
                 syy: float) -> None:
        """Add the sums of games counted elsewhere (a chunk's stored aggregates)."""
        self.n += int(n)
        self.sx += float(sx)
        self.sy += float(sy)
        self.sxx += float(sxx)
        self.sxy += float(sxy)
        self.syy += float(syy)

    def estimate(self, z: float = Z95) -> tuple[float, float, float]:
        """(ratio, low, high); NaN when nothing was counted, a NaN interval for one game."""
        if self.n == 0 or self.sy == 0:
            return math.nan, math.nan, math.nan
        ratio = self.sx / self.sy
        if self.n < 2:
            return ratio, math.nan, math.nan
        ybar = self.sy / self.n
        ss = self.sxx - 2.0 * ratio * self.sxy + ratio * ratio * self.syy
        var = max(ss, 0.0) / (ybar * ybar) / (self.n - 1)
        half = z * math.sqrt(var / self.n)
        return ratio, ratio - half, ratio + half


class Paired:
    """Two passes over paired games: sums for the two ratios, then the spread of differences."""

    __slots__ = ("n", "sxa", "sya", "sxb", "syb", "sd", "sdd", "discordant")

    def __init__(self) -> None:
        self.n = self.discordant = 0
        self.sxa = self.sya = self.sxb = self.syb = self.sd = self.sdd = 0.0

    @staticmethod
    def _y(x: np.ndarray, y: np.ndarray | None) -> np.ndarray:
        return np.ones(len(x), np.float64) if y is None else y.astype(np.float64)

    def first(self, xa: np.ndarray, ya: np.ndarray | None, xb: np.ndarray,
              yb: np.ndarray | None) -> None:
        self.n += len(xa)
        self.sxa += float(xa.sum())
        self.sya += float(self._y(xa, ya).sum())
        self.sxb += float(xb.sum())
        self.syb += float(self._y(xb, yb).sum())

    def second(self, xa: np.ndarray, ya: np.ndarray | None, xb: np.ndarray,
               yb: np.ndarray | None) -> None:
        ra, rb = self.ratios()
        ma, mb = self.sya / self.n, self.syb / self.n
        d = ((xa - ra * self._y(xa, ya)) / ma) - ((xb - rb * self._y(xb, yb)) / mb)
        self.discordant += int((xa != xb).sum())
        self.sd += float(d.sum())
        self.sdd += _dot(d, d)

    def ratios(self) -> tuple[float, float]:
        ra = self.sxa / self.sya if self.sya else math.nan
        rb = self.sxb / self.syb if self.syb else math.nan
        return ra, rb

    def estimate(self, z: float = Z95) -> tuple[float, float, float]:
        """(value_b - value_a, low, high) from the per-game paired differences."""
        ra, rb = self.ratios()
        diff = rb - ra
        if self.n < 2 or math.isnan(diff):
            return diff, math.nan, math.nan
        var = max(self.sdd - self.sd * self.sd / self.n, 0.0) / (self.n - 1)
        half = z * math.sqrt(var / self.n)
        return diff, diff - half, diff + half


__all__ = ["Z95", "Paired", "Ratio", "wilson"]
