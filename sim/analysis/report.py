"""Reports: tidy pandas tables with confidence intervals, computed from a run's per-game rows.

Every table is built from the rows the runner stored (one per game,
:data:`sim.play.runner.COLUMNS`),
never by replaying games, and chunk by chunk (:meth:`sim.play.runner.RunResult.iter_chunks`), so
memory stays flat however many games a run holds.

Statistics
----------
* A proportion (a game win rate, a share of hands) carries its count, its ``n`` and a Wilson 95%
  interval (:func:`wilson`). Hands within a game are not independent; the Wilson interval of a
  per-hand rate treats them as if they were, which understates its width slightly.
* A mean or a ratio of sums over games (points per hand, hands per game, spell length in the
  box) gets a normal 95% interval from the game-to-game variation (the delta method for a ratio
  ``sum(x) / sum(y)``: each game contributes ``(x - R y) / mean(y)``), games being independent.
* A comparison of two arms is paired: all arms of an experiment play game ``g`` from the same
  decks (common random numbers), so the difference is estimated from per-game paired differences
  with the interval ``mean +- 1.96 sd / sqrt(n)`` (:func:`paired_difference`).

Entry points: :func:`report` (all tables, the study sections that apply, markdown, CSV and PNG
files) and the table functions :func:`win_rates`, :func:`seat_win_rates`,
:func:`box_retention`, :func:`box_runs`, :func:`hand_outcomes`, :func:`paired_difference`,
:func:`gin_bonus_study`, :func:`knock_sweep`.
"""

from __future__ import annotations

import json
import math
import os
import re
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from sim.play.runner import RunResult, load_results

#: The two-sided 95% normal quantile.
Z95 = 1.959963984540054

ROLES: tuple[str, ...] = ("box", "captain")


# ----------------------------------------------------------------------------- intervals


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


class _Ratio:
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
        x = np.asarray(x, dtype=np.float64)
        y = np.ones_like(x) if y is None else np.asarray(y, dtype=np.float64)
        self.n += len(x)
        self.sx += float(x.sum())
        self.sy += float(y.sum())
        self.sxx += float(x @ x)
        self.sxy += float(x @ y)
        self.syy += float(y @ y)

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


# ---------------------------------------------------------------------------------- arms


@dataclass(frozen=True)
class Arm:
    """One arm of a run as the report needs it: name, seats, rules and seating."""

    index: int
    name: str
    strategies: tuple[str, ...]
    seating: Any  # "rotate", "random" or a list of initial roles
    rules: dict[str, Any]
    overrides: dict[str, Any]

    @property
    def players(self) -> int:
        """Seats at the table (3, or 2 in two-player mode)."""
        return len(self.strategies)

    def distinct(self) -> list[str]:
        """The strategies at the table, each once, in seat order."""
        return list(dict.fromkeys(self.strategies))

    def seats(self, strategy: str) -> list[int]:
        """The seats holding ``strategy``."""
        return [s for s, t in enumerate(self.strategies) if t == strategy]

    @property
    def rules_key(self) -> str:
        """The rules that change play, for comparing arms (no name, no fixed roles)."""
        kept = {k: v for k, v in self.rules.items() if k not in ("name", "initial_roles")}
        return json.dumps(kept, sort_keys=True)

    @property
    def rules_label(self) -> str:
        """The preset and any overrides, e.g. ``three-handed (knock_limit=7)``."""
        extra = ", ".join(f"{k}={v}" for k, v in self.overrides.items())
        return f"{self.rules['name']} ({extra})" if extra else str(self.rules["name"])

    @property
    def seating_label(self) -> str:
        """The seating as text: rotate, random or the fixed initial roles."""
        return self.seating if isinstance(self.seating, str) else str(list(self.seating))


def arms_of(result: RunResult) -> list[Arm]:
    """The arms of a run, from its manifest (resolved rules, seats, seating)."""
    spec_arms = result.manifest["spec"]["arms"]
    return [Arm(index=i, name=a["name"], strategies=tuple(a["strategies"]), seating=a["seating"],
                rules=dict(a["rules"]), overrides=dict(spec_arms[i].get("overrides") or {}))
            for i, a in enumerate(result.manifest["arms"])]


def _arm(arms: list[Arm], which: int | str) -> Arm:
    if isinstance(which, str):
        for arm in arms:
            if arm.name == which:
                return arm
    elif isinstance(which, int | np.integer) and 0 <= which < len(arms):
        return arms[int(which)]
    accepted = ", ".join(f"{a.index} ({a.name!r})" for a in arms)
    raise ValueError(f"arm {which!r} is not in this run: expected one of {accepted}")


def _open(result_or_dir: RunResult | str | Path) -> RunResult:
    if isinstance(result_or_dir, RunResult):
        return result_or_dir
    if not isinstance(result_or_dir, str | Path):
        raise ValueError(f"{result_or_dir!r} is not a run: expected a RunResult or a results "
                         "directory")
    path = Path(result_or_dir)
    if not path.is_dir():
        raise ValueError(f"{path} is not a results directory: expected a directory written by "
                         "'ginbox run' (holding manifest.json)")
    return load_results(path)


def _arm_frames(result: RunResult, columns: list[str]) -> Iterator[tuple[int, pd.DataFrame]]:
    """(arm, rows) for each stored chunk, reading only ``columns``: flat memory."""
    for frame in result.iter_chunks(columns=["arm", *dict.fromkeys(columns)]):
        if not len(frame):
            continue
        arms = frame["arm"].to_numpy()
        if arms[0] == arms[-1] and (arms == arms[0]).all():
            yield int(arms[0]), frame
        else:
            for arm, part in frame.groupby("arm", sort=False):
                yield int(arm), part


def _paired_frames(result: RunResult, base: int, others: Sequence[int],
                   columns: list[str]) -> Iterator[tuple[pd.DataFrame, list[pd.DataFrame]]]:
    """Chunk ``c`` of arm ``base`` with chunk ``c`` of each other arm: the same games, paired."""
    files: dict[tuple[int, int], Path] = {}
    for entry in result.manifest["chunks"]:
        path = result.out / entry["file"]
        if path.exists():
            files[(entry["arm"], entry["chunk"])] = path
    indices = sorted(c for (a, c) in files if a == base)
    cols = ["game", *dict.fromkeys(columns)]
    for c in indices:
        if not all((o, c) in files for o in others):
            continue
        frame = pq.read_table(files[(base, c)], columns=cols).to_pandas()
        partners = []
        for o in others:
            other = pq.read_table(files[(o, c)], columns=cols).to_pandas()
            if not np.array_equal(frame["game"].to_numpy(), other["game"].to_numpy()):
                raise ValueError(f"arms {base} and {o} of {result.out} do not hold the same "
                                 f"games in chunk {c}, so they cannot be compared paired")
            partners.append(other)
        yield frame, partners


def _seat_sum(frame: pd.DataFrame, prefix: str, seats: Sequence[int]) -> np.ndarray:
    total = np.zeros(len(frame), np.int64)
    for s in seats:
        total += frame[f"{prefix}{s}"].to_numpy(np.int64)
    return total


def _games_per_arm(result: RunResult) -> int:
    return int(result.manifest["spec"]["games"])


# ----------------------------------------------------------------------------- win rates


def win_rates(result: RunResult | str | Path) -> pd.DataFrame:
    """Game win rate of each strategy in each arm, with Wilson 95% intervals.

    A strategy may hold several seats (one-vs-two setups): a game counts as won when any seat
    holding it won, and the per-seat rate divides by the seats held, so every row reads against
    the same fair share 1/players.

    Columns:

    - ``arm``, ``arm_name``: the arm (number, name)
    - ``strategy``: strategy text as in the experiment
    - ``seats``: seats it holds at the table
    - ``games``: games played in the arm (``n``)
    - ``wins``: games won by a seat holding it
    - ``win_rate``, ``ci_low``, ``ci_high``: ``wins / games`` and its Wilson 95% interval
    - ``fair_share``: ``seats / players``, the win rate of a strategy no better than the field
    - ``vs_fair_share``: ``above`` / ``below`` when the interval excludes the fair share,
      else ``consistent``
    - ``per_seat_rate``, ``per_seat_ci_low``, ``per_seat_ci_high``: ``wins / (games * seats)``
      and its interval, to read against ``1 / players``
    """
    result = _open(result)
    arms = arms_of(result)
    games = np.zeros(len(arms), np.int64)
    wins: dict[tuple[int, str], int] = {}
    for a, frame in _arm_frames(result, ["winner"]):
        winner = frame["winner"].to_numpy()
        games[a] += len(winner)
        arm = arms[a]
        for strategy in arm.distinct():
            key = (a, strategy)
            wins[key] = wins.get(key, 0) + int(np.isin(winner, arm.seats(strategy)).sum())
    rows = []
    for arm in arms:
        for strategy in arm.distinct():
            seats = len(arm.seats(strategy))
            rows.append({"arm": arm.index, "arm_name": arm.name, "strategy": strategy,
                         "seats": seats, "games": int(games[arm.index]),
                         "wins": wins.get((arm.index, strategy), 0),
                         "fair_share": seats / arm.players})
    df = pd.DataFrame(rows, columns=["arm", "arm_name", "strategy", "seats", "games", "wins",
                                     "fair_share"])
    n, k = df["games"].to_numpy(), df["wins"].to_numpy()
    low, high = wilson(k, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        df["win_rate"] = np.where(n > 0, k / np.maximum(n, 1), np.nan)
    df["ci_low"], df["ci_high"] = low, high
    df["vs_fair_share"] = np.select([df["ci_low"] > df["fair_share"],
                                     df["ci_high"] < df["fair_share"]],
                                    ["above", "below"], "consistent")
    seats = df["seats"].to_numpy()
    df["per_seat_rate"] = df["win_rate"] / seats
    df["per_seat_ci_low"] = df["ci_low"] / seats
    df["per_seat_ci_high"] = df["ci_high"] / seats
    return df[["arm", "arm_name", "strategy", "seats", "games", "wins", "win_rate", "ci_low",
               "ci_high", "fair_share", "vs_fair_share", "per_seat_rate", "per_seat_ci_low",
               "per_seat_ci_high"]]


def seat_win_rates(result: RunResult | str | Path) -> pd.DataFrame:
    """Game win rate of each seat, with Wilson 95% intervals: the control for self-play.

    Seats holding the same strategy should win equally often (with rotated seating every seat
    holds every initial role equally often), so in an arm of one strategy each seat should win
    ``1/players`` of games within its interval.

    Columns: ``arm``, ``arm_name``, ``seat``, ``strategy``, ``games`` (n), ``wins``,
    ``win_rate``, ``ci_low``, ``ci_high`` (Wilson 95%), ``fair_share`` (``1 / players``),
    ``vs_fair_share`` (``above``, ``below`` or ``consistent``).
    """
    result = _open(result)
    arms = arms_of(result)
    games = np.zeros(len(arms), np.int64)
    wins = np.zeros((len(arms), 3), np.int64)
    for a, frame in _arm_frames(result, ["winner"]):
        winner = frame["winner"].to_numpy()
        games[a] += len(winner)
        wins[a] += np.bincount(winner[winner >= 0], minlength=3)[:3]
    rows = [{"arm": arm.index, "arm_name": arm.name, "seat": seat, "strategy": strategy,
             "games": int(games[arm.index]), "wins": int(wins[arm.index, seat]),
             "fair_share": 1.0 / arm.players}
            for arm in arms for seat, strategy in enumerate(arm.strategies)]
    df = pd.DataFrame(rows, columns=["arm", "arm_name", "seat", "strategy", "games", "wins",
                                     "fair_share"])
    df = _with_rate(df, "wins", "games").rename(columns={"rate": "win_rate"})
    df["vs_fair_share"] = np.select([df["ci_low"] > df["fair_share"],
                                     df["ci_high"] < df["fair_share"]],
                                    ["above", "below"], "consistent")
    return df[["arm", "arm_name", "seat", "strategy", "games", "wins", "win_rate", "ci_low",
               "ci_high", "fair_share", "vs_fair_share"]]


# --------------------------------------------------------------------------- box retention


def box_retention(result: RunResult | str | Path, pooled: bool = False) -> pd.DataFrame:
    """How often the box wins a hand (and so keeps the box), by box and captain strategy.

    Counted from the per-game ``pair_hands_<b><c>`` / ``pair_box_wins_<b><c>`` columns (hands
    with seat b in the box and seat c as captain) through each arm's seat -> strategy mapping.
    ``hands`` counts every hand of the pair, drawn ones included (a draw keeps the box but is
    not a win). In two-player mode the box is the dealer. Under ``team_policy = "advisor"`` the
    captain's decisions come from the sitter; ``captain_strategy`` is still the captain seat's.

    Columns (``pooled=False``): ``arm``, ``arm_name``, ``box_strategy``, ``captain_strategy``,
    ``hands`` (n), ``box_wins``, ``rate`` (``box_wins / hands``), ``ci_low``, ``ci_high``
    (Wilson 95%). With ``pooled=True`` arms that play the same rules are summed: ``arm`` and
    ``arm_name`` give way to ``rules`` (the rules label) and ``arms`` (how many arms were pooled):
    the box's chance depends on the two players in the hand, not on the sitter.
    """
    result = _open(result)
    arms = arms_of(result)
    totals: dict[int, np.ndarray] = {}
    cols = [f"pair_{w}_{b}{c}" for w in ("hands", "box_wins") for b in range(3) for c in range(3)]
    for a, frame in _arm_frames(result, cols):
        sums = frame[cols].to_numpy(np.int64).sum(axis=0)
        totals[a] = totals.get(a, 0) + sums
    rows = []
    for arm in arms:
        sums = totals.get(arm.index, np.zeros(len(cols), np.int64))
        hands, box_wins = sums[:9].reshape(3, 3), sums[9:].reshape(3, 3)
        pairs: dict[tuple[str, str], list[int]] = {}
        for b in range(arm.players):
            for c in range(arm.players):
                if b == c:
                    continue
                key = (arm.strategies[b], arm.strategies[c])
                acc = pairs.setdefault(key, [0, 0])
                acc[0] += int(hands[b, c])
                acc[1] += int(box_wins[b, c])
        for (box, captain), (n, k) in pairs.items():
            rows.append({"arm": arm.index, "arm_name": arm.name, "box_strategy": box,
                         "captain_strategy": captain, "hands": n, "box_wins": k})
    df = pd.DataFrame(rows, columns=["arm", "arm_name", "box_strategy", "captain_strategy",
                                     "hands", "box_wins"])
    df = _with_rate(df, "box_wins", "hands")
    return _pool_box(df, arms) if pooled else df


def _pool_box(per_arm: pd.DataFrame, arms: list[Arm]) -> pd.DataFrame:
    """Sum the per-arm box retention over arms that play the same rules."""
    labels = {arm.index: _group_label(arms, arm) for arm in arms}
    df = (per_arm.assign(rules=per_arm["arm"].map(labels))
          .groupby(["rules", "box_strategy", "captain_strategy"], sort=False)
          .agg(arms=("arm", "nunique"), hands=("hands", "sum"), box_wins=("box_wins", "sum"))
          .reset_index())
    return _with_rate(df, "box_wins", "hands")


def _group_label(arms: list[Arm], arm: Arm) -> str:
    """A label for the arms sharing ``arm``'s rules (unique per group)."""
    keys = list(dict.fromkeys(a.rules_key for a in arms))
    first = next(a for a in arms if a.rules_key == arm.rules_key)
    label = first.rules_label
    clash = [k for k in keys if next(a for a in arms if a.rules_key == k).rules_label == label]
    return label if len(clash) == 1 else f"{label} #{clash.index(arm.rules_key) + 1}"


def _with_rate(df: pd.DataFrame, k: str, n: str) -> pd.DataFrame:
    kk, nn = df[k].to_numpy(np.float64), df[n].to_numpy(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        df["rate"] = np.where(nn > 0, kk / nn, np.nan)
    df["ci_low"], df["ci_high"] = wilson(kk, nn)
    return df


def box_runs(result: RunResult | str | Path) -> pd.DataFrame:
    """Hands in the box, the chance to keep it, and how long a spell in the box lasts.

    A spell is a run of consecutive hands with the same seat in the box (a drawn hand continues
    it); ``mean_run`` is hands per spell (``box_hands_s / box_runs_s`` summed over the seats
    holding the strategy), with a normal 95% interval from game-to-game variation. Spells are
    cut short by the end of the game.

    Columns: ``arm``, ``arm_name``, ``box_strategy``, ``hands`` (n: hands it dealt in the box),
    ``box_wins``, ``rate``, ``ci_low``, ``ci_high`` (``box_wins / hands``, Wilson 95%),
    ``runs`` (spells), ``mean_run``, ``mean_run_ci_low``, ``mean_run_ci_high`` (hands per spell).
    """
    result = _open(result)
    arms = arms_of(result)
    cols = [f"box_{w}_{s}" for w in ("hands", "wins", "runs") for s in range(3)]
    ratios: dict[tuple[int, str], _Ratio] = {}
    wins: dict[tuple[int, str], int] = {}
    for a, frame in _arm_frames(result, cols):
        arm = arms[a]
        for strategy in arm.distinct():
            seats = arm.seats(strategy)
            key = (a, strategy)
            ratios.setdefault(key, _Ratio()).add(_seat_sum(frame, "box_hands_", seats),
                                                 _seat_sum(frame, "box_runs_", seats))
            wins[key] = wins.get(key, 0) + int(_seat_sum(frame, "box_wins_", seats).sum())
    rows = []
    for arm in arms:
        for strategy in arm.distinct():
            acc = ratios.get((arm.index, strategy), _Ratio())
            mean, low, high = acc.estimate()
            rows.append({"arm": arm.index, "arm_name": arm.name, "box_strategy": strategy,
                         "hands": int(acc.sx), "box_wins": wins.get((arm.index, strategy), 0),
                         "runs": int(acc.sy), "mean_run": mean, "mean_run_ci_low": low,
                         "mean_run_ci_high": high})
    df = pd.DataFrame(rows, columns=["arm", "arm_name", "box_strategy", "hands", "box_wins",
                                     "runs", "mean_run", "mean_run_ci_low", "mean_run_ci_high"])
    df = _with_rate(df, "box_wins", "hands")
    return df[["arm", "arm_name", "box_strategy", "hands", "box_wins", "rate", "ci_low",
               "ci_high", "runs", "mean_run", "mean_run_ci_low", "mean_run_ci_high"]]


# --------------------------------------------------------------------------- hand outcomes

# (role, outcome, column(s) summed): proportions of hands, Wilson intervals.
_OUTCOMES: list[tuple[str, str, tuple[str, ...]]] = [
    *[(role, outcome, cols)
      for role in ROLES
      for outcome, cols in (
          ("knock_win", (f"{role}_knock_wins",)),
          ("gin", (f"{role}_gins",)),
          ("undercut_win", (f"{role}_undercut_wins",)),
          ("win", (f"{role}_knock_wins", f"{role}_gins", f"{role}_undercut_wins")),
          ("knocked", (f"{role}_knocks",)))],
    ("any", "knock_win", ("knocks",)),
    ("any", "gin", ("gins",)),
    ("any", "undercut_win", ("undercuts",)),
    ("any", "draw", ("draws",)),
    ("any", "turn_limit", ("turn_limits",)),
]
# (role, outcome, numerator columns, denominator column or None for per game, unit).
_MEANS: list[tuple[str, str, tuple[str, ...], str | None, str]] = [
    ("box", "points", ("box_points",), "hands", "points per hand"),
    ("captain", "points", ("captain_points",), "hands", "points per hand"),
    ("any", "points", ("box_points", "captain_points"), "hands", "points per hand"),
    ("any", "hands_per_game", ("hands",), None, "hands per game"),
    ("any", "turns_per_hand", ("turns",), "hands", "turns per hand"),
]


def hand_outcomes(result: RunResult | str | Path) -> pd.DataFrame:
    """How hands end, by role (box, captain), per arm; points per hand; hands per game.

    One row per estimate (tidy). Outcomes, as proportions of all hands of the arm:
    ``knock_win`` (the knocker won without gin), ``gin``, ``undercut_win`` (the defender
    undercut the knocker), ``win`` (the role won the hand, any way), ``knocked`` (the role
    knocked, whatever the result); with role ``any``: every hand of that end, plus ``draw``
    (the wall) and ``turn_limit`` (the safety cap). Means: ``points`` (points the role scored
    per hand played), ``hands_per_game``, ``turns_per_hand``.

    Columns: ``arm``, ``arm_name``, ``role`` (``box``, ``captain`` or ``any``), ``outcome``,
    ``count`` (hands with the outcome, or the total of the measured quantity), ``n`` (hands, or
    games for ``hands_per_game``), ``unit``, ``rate`` (``count / n``), ``ci_low``, ``ci_high``,
    ``ci_method`` (``wilson`` for proportions, ``normal`` for means over games).
    """
    result = _open(result)
    arms = arms_of(result)
    cols = sorted({c for _, _, cs in _OUTCOMES for c in cs}
                  | {c for _, _, cs, _, _ in _MEANS for c in cs} | {"hands"})
    sums: dict[int, pd.Series] = {}
    means: dict[tuple[int, int], _Ratio] = {}
    for a, frame in _arm_frames(result, cols):
        part = frame[cols].sum()
        sums[a] = sums[a] + part if a in sums else part
        for i, (_, _, num, den, _) in enumerate(_MEANS):
            x = frame[list(num)].to_numpy(np.int64).sum(axis=1)
            y = frame[den].to_numpy(np.int64) if den else None
            means.setdefault((a, i), _Ratio()).add(x, y)
    rows = []
    for arm in arms:
        total = sums.get(arm.index, pd.Series(0, index=cols))
        hands = int(total["hands"])
        for role, outcome, num in _OUTCOMES:
            rows.append({"arm": arm.index, "arm_name": arm.name, "role": role,
                         "outcome": outcome, "count": int(sum(total[c] for c in num)),
                         "n": hands, "unit": "share of hands", "ci_method": "wilson"})
        for i, (role, outcome, _, den, unit) in enumerate(_MEANS):
            acc = means.get((arm.index, i), _Ratio())
            value, low, high = acc.estimate()
            rows.append({"arm": arm.index, "arm_name": arm.name, "role": role,
                         "outcome": outcome, "count": int(acc.sx),
                         "n": int(acc.sy) if den else acc.n, "unit": unit, "rate": value,
                         "ci_low": low, "ci_high": high, "ci_method": "normal"})
    df = pd.DataFrame(rows, columns=["arm", "arm_name", "role", "outcome", "count", "n", "unit",
                                     "rate", "ci_low", "ci_high", "ci_method"])
    props = (df["ci_method"] == "wilson").to_numpy()
    k = df.loc[props, "count"].to_numpy(np.float64)
    n = df.loc[props, "n"].to_numpy(np.float64)
    low, high = wilson(k, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        df.loc[props, "rate"] = np.where(n > 0, k / n, np.nan)
    df.loc[props, "ci_low"] = low
    df.loc[props, "ci_high"] = high
    return df.astype({"rate": float, "ci_low": float, "ci_high": float})


# ------------------------------------------------------------------------ paired differences


@dataclass(frozen=True)
class Metric:
    """A per-game quantity ``sum(x) / sum(y)`` compared between arms game by game."""

    name: str
    label: str  # for plots and tables, e.g. "game win rate"
    unit: str  # what the value is, e.g. "share of games"
    per_strategy: bool  # one row per strategy (else one row for the whole table, "all")
    percent: bool  # a proportion, shown in percent (differences in percentage points)
    columns: Callable[[Sequence[int]], list[str]]
    values: Callable[[pd.DataFrame, Sequence[int]], tuple[np.ndarray, np.ndarray | None]]


def _hands(frame: pd.DataFrame) -> np.ndarray:
    return frame["hands"].to_numpy(np.int64)


def _col(name: str) -> Callable[[pd.DataFrame], np.ndarray]:
    return lambda frame: frame[name].to_numpy(np.int64)


def _seats(prefix: str) -> Callable[[Sequence[int]], list[str]]:
    return lambda seats: [f"{prefix}{s}" for s in seats]


#: The metrics :func:`paired_difference` knows, by name. Per-strategy ones use the seats the
#: strategy holds; the game rows record gins, undercuts and knock wins by role, not by seat,
#: so those rates are compared for the whole table (strategy ``all``).
METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("win_rate", "game win rate", "share of games", True, True,
           lambda seats: ["winner"],
           lambda f, seats: (np.isin(f["winner"].to_numpy(), seats).astype(np.int64), None)),
    Metric("hand_win_rate", "hands won", "share of hands", True, True,
           lambda seats: ["hands", *_seats("hands_won_")(seats)],
           lambda f, seats: (_seat_sum(f, "hands_won_", seats), _hands(f))),
    Metric("box_keep_rate", "box keeps the box", "share of its hands in the box", True, True,
           lambda seats: [*_seats("box_wins_")(seats), *_seats("box_hands_")(seats)],
           lambda f, seats: (_seat_sum(f, "box_wins_", seats), _seat_sum(f, "box_hands_", seats))),
    Metric("points_per_hand", "points per hand", "points per hand", True, False,
           lambda seats: ["hands", *_seats("score_")(seats)],
           lambda f, seats: (_seat_sum(f, "score_", seats), _hands(f))),
    Metric("gin_rate", "gin rate", "share of hands", False, True,
           lambda seats: ["gins", "hands"], lambda f, seats: (_col("gins")(f), _hands(f))),
    Metric("undercut_rate", "undercut rate", "share of hands", False, True,
           lambda seats: ["undercuts", "hands"],
           lambda f, seats: (_col("undercuts")(f), _hands(f))),
    Metric("knock_win_rate", "knock wins (no gin)", "share of hands", False, True,
           lambda seats: ["knocks", "hands"], lambda f, seats: (_col("knocks")(f), _hands(f))),
    Metric("draw_rate", "drawn hands", "share of hands", False, True,
           lambda seats: ["draws", "turn_limits", "hands"],
           lambda f, seats: (_col("draws")(f) + _col("turn_limits")(f), _hands(f))),
    Metric("hands_per_game", "game length", "hands per game", False, False,
           lambda seats: ["hands"], lambda f, seats: (_hands(f), None)),
)}


class _Paired:
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
        self.sdd += float(d @ d)

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


Extract = Callable[[pd.DataFrame, Arm], dict[Any, tuple[np.ndarray, np.ndarray | None]]]


def _run_paired(result: RunResult, base: Arm, others: Sequence[Arm], columns: list[str],
                extract: Extract) -> dict[tuple[int, Any], _Paired]:
    """Paired statistics of ``base`` against each arm in ``others``, keyed by (arm, key).

    ``extract(rows, arm)`` gives, per key, the per-game ``(x, y)`` of one chunk (``y`` None
    for per-game metrics). Two passes: the ratios first, then the spread of the differences.
    """
    accs: dict[tuple[int, Any], _Paired] = {}
    idx = [o.index for o in others]
    for step in ("first", "second"):
        if step == "second" and not any(acc.n for acc in accs.values()):
            break
        for frame, partners in _paired_frames(result, base.index, idx, columns):
            va = extract(frame, base)
            for other, pframe in zip(others, partners, strict=True):
                vb = extract(pframe, other)
                for key in va.keys() & vb.keys():
                    acc = accs.setdefault((other.index, key), _Paired())
                    if step == "second" and (not acc.sya or not acc.syb):
                        continue
                    getattr(acc, step)(*va[key], *vb[key])
    return accs


#: The comparisons the headline and the plot show (the tables hold every metric): game win
#: rate per strategy, gin and undercut rates, game length.
HEADLINE_METRICS: tuple[str, ...] = ("win_rate", "gin_rate", "undercut_rate", "hands_per_game")

#: A paired difference is called significant only if at least this many games differ in the
#: counted outcome: with fewer, the normal interval is not trustworthy (a per-hand rate can look
#: "significant" merely because the games got longer while the rare events stayed identical).
MIN_DISCORDANT = 10


def _verdict(low: float, high: float, discordant: int) -> str:
    if math.isnan(low) or math.isnan(high):
        return "not enough games"
    if low > 0 or high < 0:
        return "significant" if discordant >= MIN_DISCORDANT else "not significant"
    return "not significant"


def _metric_names(metric: str | Sequence[str] | None) -> list[str]:
    names = list(METRICS) if metric is None else [metric] if isinstance(metric, str) else \
        list(metric)
    for name in names:
        if name not in METRICS:
            raise ValueError(f"metric={name!r} is not known: expected one of "
                             + ", ".join(METRICS))
    return names


PAIRED_COLUMNS = ["arm_a", "arm_a_name", "arm_b", "arm_b_name", "strategy", "metric", "unit",
                  "games", "discordant", "n_a", "n_b", "value_a", "value_b", "diff", "ci_low",
                  "ci_high", "verdict"]


def paired_difference(result: RunResult | str | Path, arm_a: int | str, arm_b: int | str,
                      metric: str | Sequence[str] | None = None) -> pd.DataFrame:
    """Paired differences between two arms (arm b minus arm a), per strategy and metric.

    All arms of an experiment play game ``g`` from the same decks with the same seating (common
    random numbers), so each game gives a paired difference and the interval comes from their
    spread: ``mean +- 1.96 sd / sqrt(n)`` over games. For a per-hand rate ``sum(x) / sum(y)``
    each game's difference is that of the linearised terms ``(x - R y) / mean(y)`` (the delta
    method), which reduces to the plain difference for per-game metrics. Two arms with
    identical rules and strategies give exactly 0 with a zero-width interval.

    ``metric``: a name of :data:`METRICS` or a list of names (default: all). Per-strategy
    metrics (``win_rate``, ``hand_win_rate``, ``box_keep_rate``, ``points_per_hand``) give one
    row per strategy present in both arms; the others one row with strategy ``all``.

    Columns: ``arm_a``, ``arm_a_name``, ``arm_b``, ``arm_b_name``, ``strategy``, ``metric``,
    ``unit``, ``games`` (paired games, n), ``discordant`` (games whose counted outcome differs
    between the arms), ``n_a``, ``n_b`` (the denominators: games, hands or hands in the box),
    ``value_a``, ``value_b``, ``diff`` (``value_b - value_a``), ``ci_low``, ``ci_high`` (95%),
    ``verdict``: ``significant`` when the interval excludes 0 and at least
    :data:`MIN_DISCORDANT` games differ, else ``not significant``.
    """
    result = _open(result)
    arms = arms_of(result)
    a, b = _arm(arms, arm_a), _arm(arms, arm_b)
    if a.index == b.index:
        raise ValueError(f"arm_a and arm_b are the same arm ({a.index}, {a.name!r}): expected "
                         "two different arms")
    names = _metric_names(metric)
    subjects: list[tuple[str, str]] = []  # (metric, strategy)
    for name in names:
        if METRICS[name].per_strategy:
            subjects += [(name, s) for s in a.distinct() if s in b.strategies]
        else:
            subjects.append((name, "all"))

    def seats(arm: Arm, strategy: str) -> list[int]:
        return list(range(arm.players)) if strategy == "all" else arm.seats(strategy)

    columns = sorted({c for name, s in subjects for arm in (a, b)
                      for c in METRICS[name].columns(seats(arm, s))})

    def extract(frame: pd.DataFrame, arm: Arm) -> dict[Any, tuple[np.ndarray, Any]]:
        return {(name, s): METRICS[name].values(frame, seats(arm, s)) for name, s in subjects}

    accs = _run_paired(result, a, [b], columns, extract)
    rows = []
    for name, strategy in subjects:
        acc = accs.get((b.index, (name, strategy)), _Paired())
        diff, low, high = acc.estimate()
        va, vb = acc.ratios()
        rows.append({"arm_a": a.index, "arm_a_name": a.name, "arm_b": b.index,
                     "arm_b_name": b.name, "strategy": strategy, "metric": name,
                     "unit": METRICS[name].unit, "games": acc.n, "discordant": acc.discordant,
                     "n_a": int(acc.sya), "n_b": int(acc.syb), "value_a": va, "value_b": vb,
                     "diff": diff, "ci_low": low, "ci_high": high,
                     "verdict": _verdict(low, high, acc.discordant)})
    return pd.DataFrame(rows, columns=PAIRED_COLUMNS)


def _rule_differences(a: Arm, b: Arm) -> dict[str, tuple[Any, Any]]:
    ra = {k: v for k, v in a.rules.items() if k not in ("name", "initial_roles")}
    rb = {k: v for k, v in b.rules.items() if k not in ("name", "initial_roles")}
    return {k: (ra.get(k), rb.get(k)) for k in sorted(ra.keys() | rb.keys())
            if ra.get(k) != rb.get(k)}


def rule_comparisons(result: RunResult | str | Path) -> list[tuple[Arm, Arm, dict[str, Any]]]:
    """Pairs of arms that differ only in their rules (same strategies, same seating).

    Each arm is compared with the first arm of its group (the baseline), so a rules sweep of
    k arms gives k - 1 comparisons. Returns (baseline, arm, {field: (baseline value, value)}).
    """
    arms = arms_of(_open(result))
    out = []
    groups: dict[tuple[Any, ...], Arm] = {}
    for arm in arms:
        key = (arm.strategies, json.dumps(arm.seating))
        base = groups.setdefault(key, arm)
        if base is not arm:
            diff = _rule_differences(base, arm)
            if diff:
                out.append((base, arm, diff))
    return out


def gin_bonus_study(result: RunResult | str | Path,
                    metric: str | Sequence[str] | None = None) -> pd.DataFrame:
    """The gin bonus comparison (experiments/gin_bonus.toml): arms differing only in gin_bonus.

    Paired differences (:func:`paired_difference`, arm b minus arm a, a the earlier arm) for
    every such pair, with an added column ``change`` such as ``gin_bonus 25 -> 20``. Raises
    ``ValueError`` when no two arms of the run differ only in ``gin_bonus``.
    """
    result = _open(result)
    pairs = [(a, b, d) for a, b, d in rule_comparisons(result) if list(d) == ["gin_bonus"]]
    if not pairs:
        raise ValueError(f"no two arms of {result.manifest['spec']['name']!r} differ only in "
                         "gin_bonus (with the same strategies and seating)")
    return comparisons_table(result, pairs, metric)


def comparisons_table(result: RunResult, pairs: list[tuple[Arm, Arm, dict[str, Any]]],
                      metric: str | Sequence[str] | None = None) -> pd.DataFrame:
    """:func:`paired_difference` of each pair, stacked, with a ``change`` column."""
    frames = []
    for a, b, diff in pairs:
        df = paired_difference(result, a.index, b.index, metric)
        df.insert(4, "change", "; ".join(f"{k} {va} -> {vb}" for k, (va, vb) in diff.items()))
        frames.append(df)
    if not frames:
        return pd.DataFrame(columns=[*PAIRED_COLUMNS[:4], "change", *PAIRED_COLUMNS[4:]])
    return pd.concat(frames, ignore_index=True)


# ---------------------------------------------------------------------------- knock sweep

_KNOCK_AT_RE = re.compile(r"(?:^|[:,])\s*knock_at\s*=\s*(\d+)")
_NAME_KNOCK_AT_RE = re.compile(r"knock_at\s*=\s*(\d+)")


def _knock_at(text: str, arm: Arm) -> int | None:
    """knock_at of a strategy text; a built-in's default is the knock limit; else the arm name."""
    match = _KNOCK_AT_RE.search(text)
    if match:
        return int(match.group(1))
    from strategies.registry import BUILTINS

    info = BUILTINS.get(text.split(":", 1)[0].strip().lower())
    if info is not None and any(p.name == "knock_at" for p in info.params):
        return int(arm.rules["knock_limit"])
    match = _NAME_KNOCK_AT_RE.search(arm.name)
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class SweepDesign:
    """A knock_at sweep: the swept seat and each arm's threshold."""

    seat: int
    knock_at: dict[int, int]  # arm index -> knock_at
    strategy: str  # the swept strategy's base name, e.g. greedy-knock


def sweep_design(result: RunResult | str | Path) -> SweepDesign | None:
    """The knock_at sweep in a run, if its arms form one; else None.

    A sweep: two or more arms with the same rules and seating whose strategies differ in exactly
    one seat, where each arm's strategy carries a knock_at (explicitly, by default, or in the
    arm's name) and at least two values differ.
    """
    arms = arms_of(_open(result))
    if len(arms) < 2:
        return None
    first = arms[0]
    if any(a.players != first.players or a.rules_key != first.rules_key
           or json.dumps(a.seating) != json.dumps(first.seating) for a in arms):
        return None
    varying = [s for s in range(first.players) if len({a.strategies[s] for a in arms}) > 1]
    if len(varying) != 1:
        return None
    seat = varying[0]
    values = {a.index: _knock_at(a.strategies[seat], a) for a in arms}
    if any(v is None for v in values.values()) or len(set(values.values())) < 2:
        return None
    bases = {a.strategies[seat].split(":", 1)[0] for a in arms}
    return SweepDesign(seat, {k: int(v) for k, v in values.items() if v is not None},
                       "/".join(sorted(bases)))


def knock_sweep(result: RunResult | str | Path) -> pd.DataFrame:
    """Win rate of the swept seat by knock_at, and how each threshold compares with the best.

    The swept seat wins a game when it is the winner; with rotated seating it holds each
    initial role equally often, so a threshold no better than the field wins ``1/players``.
    The best threshold is the highest win rate; every other one is compared with it paired
    (the arms share their decks), so ``verdict`` says whether the best is significantly better
    than each, the runner-up included. Raises ``ValueError`` when the run is not a sweep.

    Columns: ``arm``, ``arm_name``, ``knock_at``, ``seat``, ``strategy``, ``games`` (n),
    ``wins``, ``win_rate``, ``ci_low``, ``ci_high`` (Wilson 95%), ``fair_share``, ``rank``
    (1 = best), ``diff_vs_best`` (this arm's win rate minus the best's), ``diff_ci_low``,
    ``diff_ci_high`` (paired 95%), ``verdict`` (``best``, ``best is significantly better``
    (the interval excludes 0, :data:`MIN_DISCORDANT` or more games differ), ``not significantly
    different from the best``).
    """
    result = _open(result)
    design = sweep_design(result)
    if design is None:
        raise ValueError(f"the arms of {result.manifest['spec']['name']!r} do not sweep "
                         "knock_at: expected arms that differ only in one seat's knock_at")
    arms = arms_of(result)
    seat = design.seat
    games = np.zeros(len(arms), np.int64)
    wins = np.zeros(len(arms), np.int64)
    for a, frame in _arm_frames(result, ["winner"]):
        games[a] += len(frame)
        wins[a] += int((frame["winner"].to_numpy() == seat).sum())
    df = pd.DataFrame({
        "arm": [a.index for a in arms], "arm_name": [a.name for a in arms],
        "knock_at": [design.knock_at[a.index] for a in arms], "seat": seat,
        "strategy": [a.strategies[seat] for a in arms], "games": games, "wins": wins,
    })
    with np.errstate(divide="ignore", invalid="ignore"):
        df["win_rate"] = np.where(games > 0, wins / np.maximum(games, 1), np.nan)
    df["ci_low"], df["ci_high"] = wilson(wins, games)
    df["fair_share"] = 1.0 / arms[0].players
    order = df.sort_values(["win_rate", "knock_at"], ascending=[False, True]).index
    df["rank"] = 0
    df.loc[order, "rank"] = np.arange(1, len(df) + 1)
    best = arms[int(df.loc[order[0], "arm"])]
    others = [a for a in arms if a.index != best.index]

    def extract(frame: pd.DataFrame, arm: Arm) -> dict[Any, tuple[np.ndarray, Any]]:
        return {"win": ((frame["winner"].to_numpy() == seat).astype(np.int64), None)}

    accs = _run_paired(result, best, others, ["winner"], extract)
    diffs, lows, highs, verdicts = [], [], [], []
    for arm in arms:
        if arm.index == best.index:
            diffs.append(0.0)
            lows.append(0.0)
            highs.append(0.0)
            verdicts.append("best")
            continue
        acc = accs.get((arm.index, "win"), _Paired())
        diff, low, high = acc.estimate()
        diffs.append(diff)
        lows.append(low)
        highs.append(high)
        verdict = _verdict(low, high, acc.discordant)
        verdicts.append("best is significantly better" if verdict == "significant" else
                        verdict if verdict == "not enough games" else
                        "not significantly different from the best")
    df["diff_vs_best"], df["diff_ci_low"], df["diff_ci_high"] = diffs, lows, highs
    df["verdict"] = verdicts
    return df.sort_values("knock_at", kind="stable").reset_index(drop=True)


def knock_sweep_summary(sweep: pd.DataFrame) -> str:
    """One sentence: the best threshold and whether it beats the runner-up significantly."""
    if sweep.empty:
        return "no thresholds"
    ranked = sweep.sort_values("rank")
    best = ranked.iloc[0]
    text = (f"best knock_at = {best.knock_at}: win rate {_pct(best.win_rate)} "
            f"({_pct(best.ci_low)} - {_pct(best.ci_high)}, n = {best.games:,})")
    if len(ranked) < 2:
        return text
    second = ranked.iloc[1]
    significant = second.verdict == "best is significantly better"
    diff, ci = _diff_text(-second.diff_vs_best, -second.diff_ci_high, -second.diff_ci_low, True)
    return (text + f"; runner-up knock_at = {second.knock_at} ({_pct(second.win_rate)}): the "
            f"best is {'' if significant else 'not '}significantly better (paired difference "
            f"{diff}, 95% CI {ci})")


# ------------------------------------------------------------------------------ formatting


def _pct(x: float, digits: int = 1) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else \
        f"{100 * x:.{digits}f}%"


def _diff_text(value: float, low: float, high: float, percent: bool) -> tuple[str, str]:
    """A difference and its interval as text, with enough decimals to show the width:
    percentage points for proportions, the metric's own unit otherwise."""
    scale = 100.0 if percent else 1.0
    width = scale * (high - low) if not (math.isnan(low) or math.isnan(high)) else 1.0
    digits = 2 if width >= 0.2 else 3 if width >= 0.02 else 4
    unit = " pts" if percent else ""

    def fmt(x: float) -> str:
        return "n/a" if math.isnan(x) else f"{scale * x:+.{digits}f}{unit}"

    return fmt(value), f"{fmt(low)} to {fmt(high)}"


def _num(x: float, digits: int = 2) -> str:
    return "n/a" if math.isnan(x) else f"{x:.{digits}f}"


def _digits(low: float, high: float) -> int:
    """Decimals (of a percentage) that keep an interval's width visible."""
    width = 100 * (high - low)
    if math.isnan(width) or width >= 0.2:
        return 1
    return 2 if width >= 0.02 else 3


def _interval(low: float, high: float, percent: bool = True, digits: int | None = None) -> str:
    if math.isnan(low) or math.isnan(high):
        return "n/a"
    if digits is None:
        digits = _digits(low, high) if percent else 2
    if percent:
        return f"{100 * low:.{digits}f} - {100 * high:.{digits}f}%"
    return f"{low:.{digits}f} - {high:.{digits}f}"


def _text_table(rows: list[list[str]], header: list[str], right: set[int]) -> str:
    """A plain fixed-width table (no extra dependency)."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def _md_table(rows: list[list[str]], header: list[str], right: set[int]) -> str:
    """A GitHub-flavoured markdown table (pandas' to_markdown needs tabulate; we don't)."""
    def esc(c: str) -> str:
        return c.replace("|", "\\|")

    aligns = ["---:" if i in right else ":---" for i in range(len(header))]
    out = ["| " + " | ".join(map(esc, header)) + " |", "| " + " | ".join(aligns) + " |"]
    out += ["| " + " | ".join(map(esc, r)) + " |" for r in rows]
    return "\n".join(out)


# ---------------------------------------------------------------------------------- report

#: Every file a report may write, so files of sections that no longer apply are removed.
REPORT_FILES: tuple[str, ...] = (
    "report.md", "win_rates.csv", "seat_win_rates.csv", "box_retention.csv",
    "box_retention_pooled.csv", "box_runs.csv", "hand_outcomes.csv", "comparisons.csv",
    "knock_sweep.csv",
    "win_rates.png", "box_retention.png", "comparisons.png", "knock_sweep.png",
)


@dataclass
class Report:
    """Every table of a run, the study sections that apply, and their text and plot views.

    Attributes are the DataFrames: ``win_rates``, ``seat_win_rates``, ``box_retention`` (per
    arm),
    ``box_retention_pooled`` (arms with the same rules summed), ``box_runs``,
    ``hand_outcomes``, ``comparisons`` (paired differences between arms that differ only in
    their rules; empty when there are none; the gin bonus study when only gin_bonus differs)
    and ``knock_sweep`` (None unless the arms sweep knock_at).
    """

    result: RunResult
    win_rates: pd.DataFrame
    seat_win_rates: pd.DataFrame
    box_retention: pd.DataFrame
    box_retention_pooled: pd.DataFrame
    box_runs: pd.DataFrame
    hand_outcomes: pd.DataFrame
    comparisons: pd.DataFrame
    knock_sweep: pd.DataFrame | None
    sweep: SweepDesign | None = None
    arms: list[Arm] = field(default_factory=list)

    # ----------------------------------------------------------------- facts of the run

    @property
    def name(self) -> str:
        """The experiment's name."""
        return str(self.result.manifest["spec"]["name"])

    @property
    def games(self) -> int:
        """Games per arm."""
        return _games_per_arm(self.result)

    @property
    def seed(self) -> int:
        """The experiment seed."""
        return int(self.result.manifest["seed"])

    @property
    def what(self) -> str:
        """What was run, for titles: name, games, seed."""
        arms = len(self.arms)
        per = f"{self.games:,} games" + (f" per arm x {arms} arms" if arms > 1 else "")
        return f"{self.name}: {per}, seed {self.seed}"

    @property
    def comparison_kind(self) -> str | None:
        """``gin_bonus`` when every compared pair differs only in gin_bonus, ``rules``, None."""
        if self.comparisons.empty:
            return None
        changes = set(self.comparisons["change"])
        return "gin_bonus" if all(c.startswith("gin_bonus ") and ";" not in c
                                  for c in changes) else "rules"

    # ------------------------------------------------------------------------ text views

    def headline(self) -> str:
        """The game win-rate table as text (what ``ginbox run`` and ``ginbox report`` print),
        followed by one line per study section that applies."""
        df = self.win_rates
        many = df["arm"].nunique() > 1
        rows = []
        for r in df.itertuples():
            rows.append(([r.arm_name] if many else []) + [
                r.strategy, str(r.seats), f"{r.games:,}", f"{r.wins:,}",
                _pct(r.win_rate, _digits(r.ci_low, r.ci_high)), _interval(r.ci_low, r.ci_high),
                _pct(r.fair_share), r.vs_fair_share])
        header = (["arm"] if many else []) + ["strategy", "seats", "games", "wins", "win rate",
                                              "95% CI", "fair share", "vs fair share"]
        off = 1 if many else 0
        lines = [f"{self.what} - game win rates", "",
                 _text_table(rows, header, {off + 1, off + 2, off + 3, off + 4, off + 5,
                                            off + 6})]
        if self.knock_sweep is not None:
            lines += ["", "Knock sweep: " + knock_sweep_summary(self.knock_sweep)]
        if not self.comparisons.empty:
            kind = "Gin bonus" if self.comparison_kind == "gin_bonus" else "Rule comparison"
            lines += ["", f"{kind}, paired differences (all metrics in comparisons.csv):"]
            rows = self.comparisons[self.comparisons["metric"].isin(HEADLINE_METRICS)]
            for r in rows.itertuples():
                lines.append("  " + self._comparison_line(r))
        return "\n".join(lines)

    @staticmethod
    def _comparison_line(r: Any) -> str:
        m = METRICS[r.metric]
        diff, ci = _diff_text(r.diff, r.ci_low, r.ci_high, m.percent)
        who = "" if r.strategy == "all" else f" of {r.strategy}"
        unit = "" if m.percent or m.unit == m.label else f" {m.unit}"
        return (f"{r.arm_b_name} vs {r.arm_a_name}: {m.label}{who} {diff}{unit} "
                f"(95% CI {ci}, {r.games:,} paired games): {r.verdict}")

    def tables(self) -> dict[str, pd.DataFrame]:
        """The tables this report holds, by CSV name (study tables only when they apply)."""
        out = {"win_rates": self.win_rates, "seat_win_rates": self.seat_win_rates,
               "box_retention": self.box_retention,
               "box_runs": self.box_runs, "hand_outcomes": self.hand_outcomes}
        if len(self.arms) > 1:
            out["box_retention_pooled"] = self.box_retention_pooled
        if not self.comparisons.empty:
            out["comparisons"] = self.comparisons
        if self.knock_sweep is not None:
            out["knock_sweep"] = self.knock_sweep
        return out

    def figures(self) -> dict[str, Any]:
        """matplotlib Figures of the sections that apply, by PNG name."""
        from sim import plots

        out = {"win_rates": plots.win_rate_plot(self.win_rates, self.what)}
        if not self.box_retention_pooled.empty:
            out["box_retention"] = plots.box_retention_heatmap(self.box_retention_pooled,
                                                               self.what)
        if self.knock_sweep is not None:
            out["knock_sweep"] = plots.knock_sweep_plot(self.knock_sweep, self.what)
        if not self.comparisons.empty:
            out["comparisons"] = plots.paired_difference_plot(self.comparisons, self.what)
        return out

    def _figure_names(self) -> list[str]:
        names = ["win_rates"]
        if not self.box_retention_pooled.empty:
            names.append("box_retention")
        if self.knock_sweep is not None:
            names.append("knock_sweep")
        if not self.comparisons.empty:
            names.append("comparisons")
        return names

    def to_markdown(self) -> str:
        """The whole report as markdown (tables formatted; plots referenced as PNG files)."""
        m = self.result.manifest
        figs = set(self._figure_names())
        out = [f"# {self.name}", ""]
        if m["spec"].get("description"):
            out += [str(m["spec"]["description"]), ""]
        wall = m.get("timings", {}).get("wall_seconds")
        arms = len(self.arms)
        out += [f"{self.what}; {arms} arm{'s' if arms > 1 else ''}, "
                f"{self.games * arms:,} games in all"
                + (f", {wall:,.1f} s of wall time" if wall else "")
                + f"; ginbox {m.get('ginbox_version', '?')}; status {m.get('status', '?')}.",
                "", "All arms play game g from the same decks (common random numbers). Rates "
                "carry n and a Wilson 95% interval; means a normal 95% interval over games; "
                "differences between arms are paired by game.", "",
                _md_table([[str(a.index), a.name, a.rules_label, ", ".join(a.strategies),
                            a.seating_label] for a in self.arms],
                          ["arm", "name", "rules", "strategies (seat 0, 1, 2)", "seating"],
                          {0}), ""]
        out += ["## Game win rates", "", self._md_win_rates(), ""]
        if "win_rates" in figs:
            out += ["![game win rate per seat](win_rates.png)", ""]
        shared = [a.index for a in self.arms if len(a.distinct()) < a.players]
        if shared:
            out += ["### Seat control", "", "Arms where a strategy holds several seats: "
                    "those seats should win equally often.", "",
                    self._md_seats(shared), ""]
        if not self.comparisons.empty:
            title = ("Gin bonus: paired differences" if self.comparison_kind == "gin_bonus"
                     else "Rule comparisons: paired differences")
            out += [f"## {title}", "", "Differences are arm b minus arm a over the same "
                    "games; 95% intervals from per-game paired differences. Gin, undercut and "
                    "knock rates are recorded by role, not by seat, so they are given for the "
                    "whole table (strategy 'all').", "", self._md_comparisons(), ""]
            if "comparisons" in figs:
                out += ["![paired differences](comparisons.png)", ""]
        if self.knock_sweep is not None:
            out += ["## Knock sweep", "", f"Seat {self.knock_sweep['seat'].iloc[0]} plays "
                    f"{self.sweep.strategy if self.sweep else 'the swept strategy'} with "
                    "knock_at as below; each threshold is compared paired with the best.", "",
                    knock_sweep_summary(self.knock_sweep) + ".", "", self._md_sweep(), ""]
            if "knock_sweep" in figs:
                out += ["![knock sweep](knock_sweep.png)", ""]
        out += ["## Box retention", "", "The chance that the box wins a hand and so keeps the "
                "box, by the strategies of the box and of the captain (hands counted include "
                "drawn ones).", "", self._md_box_pairs(), "", "### Spells in the box", "",
                self._md_box_runs(), ""]
        if "box_retention" in figs:
            out += ["![box retention](box_retention.png)", ""]
        out += ["## Hand outcomes", "", "Rates are shares of all hands of the arm; `any` "
                "counts both roles.", "", self._md_outcomes(), ""]
        return "\n".join(out)

    def _md_win_rates(self) -> str:
        rows = [[r.arm_name, r.strategy, str(r.seats), f"{r.games:,}", f"{r.wins:,}",
                 _pct(r.win_rate, _digits(r.ci_low, r.ci_high)), _interval(r.ci_low, r.ci_high),
                 _pct(r.fair_share), r.vs_fair_share,
                 _pct(r.per_seat_rate, _digits(r.per_seat_ci_low, r.per_seat_ci_high)),
                 _interval(r.per_seat_ci_low, r.per_seat_ci_high)]
                for r in self.win_rates.itertuples()]
        return _md_table(rows, ["arm", "strategy", "seats", "games", "wins", "win rate",
                                "95% CI", "fair share", "vs fair share", "per seat",
                                "per seat 95% CI"], {2, 3, 4, 5, 6, 7, 9, 10})

    def _md_seats(self, arms: list[int]) -> str:
        df = self.seat_win_rates[self.seat_win_rates["arm"].isin(arms)]
        rows = [[r.arm_name, str(r.seat), r.strategy, f"{r.games:,}", f"{r.wins:,}",
                 _pct(r.win_rate, _digits(r.ci_low, r.ci_high)), _interval(r.ci_low, r.ci_high),
                 _pct(r.fair_share), r.vs_fair_share] for r in df.itertuples()]
        return _md_table(rows, ["arm", "seat", "strategy", "games", "wins", "win rate",
                                "95% CI", "fair share", "vs fair share"], {1, 3, 4, 5, 6, 7})

    def _md_comparisons(self) -> str:
        rows = []
        for r in self.comparisons.itertuples():
            m = METRICS[r.metric]
            digits = _digits(r.ci_low, r.ci_high)
            val = (lambda x, d=digits: _pct(x, d)) if m.percent else (lambda x: _num(x, 3))
            diff, ci = _diff_text(r.diff, r.ci_low, r.ci_high, m.percent)
            rows.append([f"{r.arm_b_name} - {r.arm_a_name}", r.strategy,
                         m.label + ("" if m.percent or m.unit == m.label else f" ({m.unit})"),
                         f"{r.games:,}",
                         f"{r.discordant:,}", val(r.value_a), val(r.value_b), diff, ci,
                         r.verdict])
        return _md_table(rows, ["arms (b - a)", "strategy", "metric", "paired games",
                                "games differing", "arm a", "arm b", "difference", "95% CI",
                                "verdict"], {3, 4, 5, 6, 7})

    def _md_sweep(self) -> str:
        assert self.knock_sweep is not None
        rows = [[str(r.knock_at), r.arm_name, f"{r.games:,}", f"{r.wins:,}",
                 _pct(r.win_rate, _digits(r.ci_low, r.ci_high)),
                 _interval(r.ci_low, r.ci_high), str(r.rank),
                 *(["", ""] if r.verdict == "best" else
                   _diff_text(r.diff_vs_best, r.diff_ci_low, r.diff_ci_high, True)),
                 r.verdict] for r in self.knock_sweep.itertuples()]
        return _md_table(rows, ["knock_at", "arm", "games", "wins", "win rate", "95% CI",
                                "rank", "vs best", "95% CI (paired)", "verdict"],
                         {0, 2, 3, 4, 5, 6, 7})

    def _md_box_pairs(self) -> str:
        rows = [[r.arm_name, r.box_strategy, r.captain_strategy, f"{r.hands:,}",
                 f"{r.box_wins:,}", _pct(r.rate, _digits(r.ci_low, r.ci_high)),
                 _interval(r.ci_low, r.ci_high)]
                for r in self.box_retention.itertuples()]
        return _md_table(rows, ["arm", "box", "captain", "hands", "box wins", "box keeps",
                                "95% CI"], {3, 4, 5, 6})

    def _md_box_runs(self) -> str:
        rows = [[r.arm_name, r.box_strategy, f"{r.hands:,}",
                 _pct(r.rate, _digits(r.ci_low, r.ci_high)), _interval(r.ci_low, r.ci_high),
                 f"{r.runs:,}", _num(r.mean_run),
                 _interval(r.mean_run_ci_low, r.mean_run_ci_high, percent=False, digits=2)]
                for r in self.box_runs.itertuples()]
        return _md_table(rows, ["arm", "box", "hands in the box", "keeps the box", "95% CI",
                                "spells", "hands per spell", "95% CI"], {2, 3, 4, 5, 6, 7})

    def _md_outcomes(self) -> str:
        rows = []
        for r in self.hand_outcomes.itertuples():
            share = r.ci_method == "wilson"
            rows.append([r.arm_name, r.role, r.outcome, f"{r.count:,}", f"{r.n:,}", r.unit,
                         _pct(r.rate, _digits(r.ci_low, r.ci_high)) if share
                         else _num(r.rate, 3),
                         _interval(r.ci_low, r.ci_high, percent=share,
                                   digits=None if share else 3)])
        return _md_table(rows, ["arm", "role", "outcome", "count", "n", "unit", "value",
                                "95% CI"], {3, 4, 6, 7})

    # -------------------------------------------------------------------------- files

    def write(self, directory: str | Path | None = None) -> list[Path]:
        """Write report.md, one CSV per table and the PNG plots into ``directory``.

        Default: the run's directory. Every file is rendered to a hidden temporary first and
        all are renamed into place only when all are complete, so an error leaves the old
        report (or none), never a half-written one. Report files of sections that no longer
        apply are removed. Returns the paths written.
        """
        directory = Path(directory) if directory is not None else self.result.out
        if not directory.is_dir():
            raise ValueError(f"cannot write the report: {directory} is not a directory")
        writers: dict[str, Callable[[Path], None]] = {}
        for name, df in self.tables().items():
            writers[f"{name}.csv"] = lambda tmp, df=df: df.to_csv(tmp, index=False)
        from sim.analysis.plots import save

        for name, fig in self.figures().items():
            writers[f"{name}.png"] = lambda tmp, fig=fig: save(fig, tmp, atomic=False)
        text = self.to_markdown()
        writers["report.md"] = lambda tmp: tmp.write_text(text, encoding="utf-8")
        temps: dict[str, Path] = {}
        try:
            for name, write in writers.items():
                tmp = directory / f".{name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"
                temps[name] = tmp
                write(tmp)
            for name, tmp in temps.items():
                os.replace(tmp, directory / name)
        finally:
            for tmp in temps.values():
                tmp.unlink(missing_ok=True)
        for stale in REPORT_FILES:
            if stale not in writers:
                (directory / stale).unlink(missing_ok=True)
        return [directory / name for name in writers]


def report(result_or_dir: RunResult | str | Path) -> Report:
    """All tables of a run and the study sections that apply to it.

    ``result_or_dir``: a :class:`~sim.play.runner.RunResult` or a results directory. Sections:
    always win rates, box retention and hand outcomes; paired comparisons when arms differ only
    in their rules (the gin bonus study when only in gin_bonus); the knock sweep when the arms
    sweep one seat's knock_at. Raises ``ValueError`` for a directory that is not a finished run.
    """
    result = _open(result_or_dir)
    arms = arms_of(result)
    pairs = rule_comparisons(result)
    design = sweep_design(result)
    per_arm = box_retention(result)
    pooled = _pool_box(per_arm, arms)
    return Report(
        result=result,
        win_rates=win_rates(result),
        seat_win_rates=seat_win_rates(result),
        box_retention=per_arm,
        box_retention_pooled=pooled,
        box_runs=box_runs(result),
        hand_outcomes=hand_outcomes(result),
        comparisons=comparisons_table(result, pairs),
        knock_sweep=knock_sweep(result) if design is not None else None,
        sweep=design,
        arms=arms,
    )


__all__ = ["HEADLINE_METRICS", "METRICS", "MIN_DISCORDANT", "Arm", "Metric", "Report",
           "SweepDesign", "Z95", "arms_of", "box_retention", "box_runs", "comparisons_table",
           "gin_bonus_study", "hand_outcomes", "knock_sweep", "knock_sweep_summary",
           "paired_difference", "report", "rule_comparisons", "seat_win_rates", "sweep_design",
           "wilson", "win_rates"]
