"""Ratings from finishing orders: Bradley-Terry / pairwise Plackett-Luce, fitted with ``choix``.

Input: one row per (table, deal) with the strategy and finishing place of every seat
(:func:`finishing_places` derives the places from a league's games). Every pair of seats held
by *different* strategies is one comparison: the better place wins it, an equal place counts
half a win each way, and two seats of the same strategy compare nothing.

* Two players: this is exactly the Bradley-Terry model, P(i beats j) = w_i / (w_i + w_j).
* Three players: the comparisons are the *full rank-breaking* of the finishing order. Under a
  Plackett-Luce model of finishing orders (an exponential race with rates w), the chance that i
  finishes above j is w_i / (w_i + w_j) whatever the third seat, so the Bradley-Terry fit of the
  broken comparisons estimates the Plackett-Luce strengths consistently (a composite
  likelihood). The three comparisons of one game are not independent, which is why the
  intervals come from the bootstrap, never from the likelihood.

The fit is ``choix.ilsr_pairwise_dense`` on the matrix of (fractional) wins, with
:data:`PRIOR` virtual wins added each way for every pair of strategies: a strategy that never
wins (``random``) would otherwise have a rating of minus infinity. Log-strengths become ratings
on the Elo scale, ``1500 + (400 / ln 10) * (theta - theta_anchor)``, so a 400-point gap means
10:1 odds, as in Elo tables.

Bounds: a strategy that beat no other in any comparison (``random``, two-handed) has no
finite maximum-likelihood rating; its fitted rating is set by the prior and its bootstrap
interval, every replicate set the same way, is no measurement. Its row says so (``bound``
``"upper"``) and gives a one-sided 95% bound instead: the rating at which it would win, against
the strategies it met, a share of its comparisons equal to the exact (Clopper-Pearson) 95%
upper limit for 0 successes in the games it played, ``1 - 0.05 ** (1 / games)`` (games, not
comparisons: a game's comparisons are dependent, so this is the wider bound). A strategy that
lost no comparison gets the lower bound the same way (``"lower"``).

Intervals: a cluster bootstrap over deals. Game ``g`` of every table in a league is dealt from
the same decks, so a deal (all tables' game ``g``) is the independent unit: each replicate
resamples deals with replacement (a fixed seed), refits, and the 2.5% and 97.5% quantiles of a
strategy's rating are its 95% interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import choix
import numpy as np
import pandas as pd

#: Elo points per unit of log-strength: a 400-point gap is odds of 10 to 1.
ELO_PER_UNIT = 400.0 / math.log(10.0)
#: The anchor strategy's rating.
ANCHOR_RATING = 1500.0
#: Virtual wins added each way for every pair of strategies (keeps every rating finite).
PRIOR = 0.5
#: Bootstrap replicates by default.
BOOTSTRAP = 200
SEATS = 3
_PAIRS = ((0, 1), (0, 2), (1, 2))


def place_columns() -> list[str]:
    """The columns :func:`ratings` reads: ``deal``, ``strategy_<s>`` and ``place_<s>``."""
    return ["deal", *[f"strategy_{s}" for s in range(SEATS)],
            *[f"place_{s}" for s in range(SEATS)]]


def finishing_places(winner: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Finishing place (1 = first) of every seat: the winner first, then by final score.

    ``scores`` is (games, seats); seats beyond the table's players are passed as NaN and get
    place NaN. Losers with equal scores share a place.
    """
    scores = np.asarray(scores, dtype=np.float64)
    games, seats = scores.shape
    keyed = scores.copy()
    keyed[np.arange(games), winner] = np.inf  # the winner is first whatever its score
    places = np.full((games, seats), np.nan)
    for s in range(seats):
        better = (keyed > keyed[:, [s]]).sum(axis=1)
        places[:, s] = np.where(np.isnan(keyed[:, s]), np.nan, better + 1)
    return places


def comparison_tensor(results: pd.DataFrame, strategies: Sequence[str]
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Per-deal win matrices: (deals, n, n) with ``[d, i, j]`` i's wins over j in deal d.

    Returns the tensor and the deal labels in its order. Rows whose strategies are not all in
    ``strategies`` are refused (the caller filters).
    """
    index = {s: k for k, s in enumerate(strategies)}
    n = len(strategies)
    deals, deal_code = np.unique(results["deal"].to_numpy(), return_inverse=True)
    flat = np.zeros(len(deals) * n * n)
    for a, b in _PAIRS:
        sa, sb = results[f"strategy_{a}"], results[f"strategy_{b}"]
        pa_, pb = results[f"place_{a}"].to_numpy(float), results[f"place_{b}"].to_numpy(float)
        seated = sa.notna().to_numpy() & sb.notna().to_numpy() & ~np.isnan(pa_) & ~np.isnan(pb)
        if not seated.any():
            continue
        try:
            i = sa[seated].map(index).to_numpy(dtype=np.int64)
            j = sb[seated].map(index).to_numpy(dtype=np.int64)
        except (ValueError, TypeError):
            unknown = sorted((set(sa[seated]) | set(sb[seated])) - set(index))
            raise ValueError(f"results name strategies not in the league: {unknown}") from None
        d = deal_code[seated]
        differ = i != j
        win_a = np.where(pa_[seated] < pb[seated], 1.0,
                         np.where(pa_[seated] == pb[seated], 0.5, 0.0))
        d, i, j, win_a = d[differ], i[differ], j[differ], win_a[differ]
        np.add.at(flat, (d * n + i) * n + j, win_a)
        np.add.at(flat, (d * n + j) * n + i, 1.0 - win_a)
    return flat.reshape(len(deals), n, n), deals


def fit(wins: np.ndarray, anchor: int, prior: float = PRIOR) -> np.ndarray:
    """Elo-scale ratings from a win matrix (``wins[i, j]``: i's wins over j), anchor at 1500.

    Pairs that never met get no virtual wins, so a league whose comparison graph is not
    connected is refused rather than rated on an arbitrary relative scale.
    """
    n = wins.shape[0]
    met = (wins + wins.T) > 0
    np.fill_diagonal(met, False)
    if n > 1 and not _connected(met):
        raise ValueError("the results do not connect every strategy to every other through "
                         "games played: ratings are not defined")
    matrix = wins + prior * met
    theta = choix.ilsr_pairwise_dense(matrix, max_iter=10_000, tol=1e-10)
    return ANCHOR_RATING + ELO_PER_UNIT * (theta - theta[anchor])


def _connected(met: np.ndarray) -> bool:
    seen, todo = {0}, [0]
    while todo:
        k = todo.pop()
        for m in np.flatnonzero(met[k]):
            if int(m) not in seen:
                seen.add(int(m))
                todo.append(int(m))
    return len(seen) == met.shape[0]


def ratings(results: pd.DataFrame, strategies: Sequence[str] | None = None,
            anchor: str = "simple", bootstrap: int = BOOTSTRAP, seed: int = 0,
            prior: float = PRIOR) -> pd.DataFrame:
    """The leaderboard of finishing-order results: rating, bootstrap 95% interval, games, wins.

    ``results`` has the columns of :func:`place_columns` (``strategy_2``/``place_2`` may be
    missing or null for two players). ``strategies`` fixes the order (default: as they appear);
    ``anchor`` must be one of them and is rated exactly 1500. ``bootstrap`` replicates resample
    deals with ``numpy.random.default_rng(seed)``: the same inputs give the same table.
    Columns: ``rank``, ``strategy``, ``rating``, ``ci_low``, ``ci_high``, ``bound`` (``""``,
    or ``"upper"``/``"lower"`` for a strategy that beat none or lost to none: its ``rating``
    is then the one-sided 95% bound, with the interval ``(-inf, bound]`` or ``[bound, inf)``;
    its rank stays the fit's), ``games`` (seats played: a game with two seats of it counts
    twice), ``wins`` (games won by one of its seats), ``win_rate`` (wins per seat played) and
    ``comparisons``.
    """
    results = _complete(results)
    if strategies is None:
        seen = pd.unique(pd.concat([results[f"strategy_{s}"] for s in range(SEATS)]).dropna())
        strategies = [str(s) for s in seen]
    strategies = list(strategies)
    if anchor not in strategies:
        raise ValueError(f"anchor={anchor!r} is not one of the strategies rated: "
                         + ", ".join(strategies))
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 0:
        raise ValueError(f"bootstrap={bootstrap!r} is not valid: expected an integer >= 0")
    if results.empty:
        raise ValueError("no games to rate")
    k = strategies.index(anchor)
    tensor, _ = comparison_tensor(results, strategies)
    total = tensor.sum(axis=0)
    point = fit(total, k, prior)
    low = high = np.full(len(strategies), np.nan)
    if bootstrap > 0:
        rng = np.random.default_rng(seed)
        deals = tensor.shape[0]
        reps = np.empty((bootstrap, len(strategies)))
        for b in range(bootstrap):
            weights = rng.multinomial(deals, np.full(deals, 1.0 / deals)).astype(np.float64)
            reps[b] = fit(np.tensordot(weights, tensor, axes=1), k, prior)
        low, high = np.quantile(reps, [0.025, 0.975], axis=0)
        low[k] = high[k] = ANCHOR_RATING
    games, wins = _seat_counts(results, strategies)
    order = point.copy()  # the rank: the fit's order, the prior's place for a bounded one
    rating, low, high = point.copy(), np.array(low, float), np.array(high, float)
    bound = np.full(len(strategies), "", dtype=object)
    for i, side in _unbeaten(total, k):
        bound[i] = side
        rating[i] = one_sided_bound(total, i, k, side, int(games[i]), prior)
        low[i], high[i] = (-np.inf, rating[i]) if side == "upper" else (rating[i], np.inf)
    table = pd.DataFrame({
        "strategy": strategies, "rating": rating, "ci_low": low, "ci_high": high,
        "bound": bound, "games": games, "wins": wins,
        "win_rate": np.divide(wins, games, out=np.full(len(games), np.nan), where=games > 0),
        "comparisons": total.sum(axis=1) + total.sum(axis=0), "_order": order,
    })
    table = table.sort_values(["_order", "strategy"], ascending=[False, True],
                              kind="stable").drop(columns="_order").reset_index(drop=True)
    table.insert(0, "rank", np.arange(1, len(table) + 1))
    return table


def _unbeaten(total: np.ndarray, anchor: int) -> list[tuple[int, str]]:
    """The strategies (not the anchor) that won no comparison (``"upper"``: only an upper
    bound on the rating exists) or lost none (``"lower"``)."""
    won, lost = total.sum(axis=1), total.sum(axis=0)
    return [(i, "upper" if won[i] == 0 else "lower") for i in range(len(won))
            if i != anchor and (won[i] == 0) != (lost[i] == 0)]


def one_sided_bound(total: np.ndarray, i: int, anchor: int, side: str, games: int,
                    prior: float = PRIOR) -> float:
    """The one-sided 95% bound on strategy ``i``'s rating when it won no comparison
    (``side="upper"``) or lost none (``"lower"``): the fit in which it wins (or loses) the
    Clopper-Pearson limit ``1 - 0.05 ** (1 / games)`` of its comparisons with every
    strategy it met (module docstring)."""
    share = 1.0 - 0.05 ** (1.0 / max(games, 1))
    matrix = total.astype(float).copy()
    if side == "upper":
        matrix[i, :] = total[:, i] * share / (1.0 - share)
    else:
        matrix[:, i] = total[i, :] * share / (1.0 - share)
    return float(fit(matrix, anchor, prior)[i])


def _complete(results: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in ("deal", "strategy_0", "strategy_1", "place_0", "place_1")
               if c not in results.columns]
    if missing:
        raise ValueError(f"results lack the column(s) {', '.join(missing)}: expected "
                         + ", ".join(place_columns()))
    results = results.copy()
    for s in range(SEATS):
        if f"strategy_{s}" not in results.columns:
            results[f"strategy_{s}"] = None
        if f"place_{s}" not in results.columns:
            results[f"place_{s}"] = np.nan
    return results


def _seat_counts(results: pd.DataFrame, strategies: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Seats played per strategy and games won by one of its seats."""
    games = np.zeros(len(strategies), dtype=np.int64)
    wins = np.zeros(len(strategies), dtype=np.int64)
    for k, name in enumerate(strategies):
        held = np.column_stack([(results[f"strategy_{s}"] == name).to_numpy()
                                for s in range(SEATS)])
        won = np.column_stack([(results[f"place_{s}"] == 1).to_numpy() for s in range(SEATS)])
        games[k] = int(held.sum())
        wins[k] = int((held & won).any(axis=1).sum())
    return games, wins
