"""Comparing arms game by game: the metrics, paired differences and rule comparisons.

All arms of an experiment play game ``g`` from the same decks (common random numbers), so a
difference between two arms is estimated from per-game paired differences. This module holds
what is compared (:data:`METRICS`, :data:`HEADLINE_METRICS`; the plots import them from here),
how (:func:`paired_difference`) and which arms are compared (:func:`rule_comparisons`, the gin
bonus study).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.analysis.runs import Arm, arms_of, find_arm, open_run, paired_frames, seat_sum
from sim.analysis.statistics import Paired
from sim.runs.experiment import canonical_strategy
from sim.runs.storage import RunResult


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
           lambda f, seats: (seat_sum(f, "hands_won_", seats), _hands(f))),
    Metric("box_keep_rate", "box keeps the box", "share of its hands in the box", True, True,
           lambda seats: [*_seats("box_wins_")(seats), *_seats("box_hands_")(seats)],
           lambda f, seats: (seat_sum(f, "box_wins_", seats), seat_sum(f, "box_hands_", seats))),
    Metric("points_per_hand", "points per hand", "points per hand", True, False,
           lambda seats: ["hands", *_seats("score_")(seats)],
           lambda f, seats: (seat_sum(f, "score_", seats), _hands(f))),
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



Extract = Callable[[pd.DataFrame, Arm], dict[Any, tuple[np.ndarray, np.ndarray | None]]]


def run_paired(result: RunResult, base: Arm, others: Sequence[Arm], columns: list[str],
               extract: Extract) -> dict[tuple[int, Any], Paired]:
    """Paired statistics of ``base`` against each arm in ``others``, keyed by (arm, key).

    ``extract(rows, arm)`` gives, per key, the per-game ``(x, y)`` of one chunk (``y`` None
    for per-game metrics). Two passes: the ratios first, then the spread of the differences.
    """
    accs: dict[tuple[int, Any], Paired] = {}
    idx = [o.index for o in others]
    for step in ("first", "second"):
        if step == "second" and not any(acc.n for acc in accs.values()):
            break
        for frame, partners in paired_frames(result, base.index, idx, columns):
            va = extract(frame, base)
            for other, pframe in zip(others, partners, strict=True):
                vb = extract(pframe, other)
                for key in va.keys() & vb.keys():
                    acc = accs.setdefault((other.index, key), Paired())
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


def paired_verdict(low: float, high: float, discordant: int) -> str:
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
    row per strategy present in both arms (matched by canonical spec, named as arm a spells
    it); the others one row with strategy ``all``.

    Columns: ``arm_a``, ``arm_a_name``, ``arm_b``, ``arm_b_name``, ``strategy``, ``metric``,
    ``unit``, ``games`` (paired games, n), ``discordant`` (games whose counted outcome differs
    between the arms), ``n_a``, ``n_b`` (the denominators: games, hands or hands in the box),
    ``value_a``, ``value_b``, ``diff`` (``value_b - value_a``), ``ci_low``, ``ci_high`` (95%),
    ``verdict``: ``significant`` when the interval excludes 0 and at least
    :data:`MIN_DISCORDANT` games differ, else ``not significant``.
    """
    result = open_run(result)
    arms = arms_of(result)
    a, b = find_arm(arms, arm_a), find_arm(arms, arm_b)
    if a.index == b.index:
        raise ValueError(f"arm_a and arm_b are the same arm ({a.index}, {a.name!r}): expected "
                         "two different arms")
    names = _metric_names(metric)
    subjects: list[tuple[str, str]] = []  # (metric, strategy as arm a spells it)
    shared = [s for s in a.distinct() if canonical_seats(b, s)]
    for name in names:
        if METRICS[name].per_strategy:
            subjects += [(name, s) for s in shared]
        else:
            subjects.append((name, "all"))

    def seats(arm: Arm, strategy: str) -> list[int]:
        return list(range(arm.players)) if strategy == "all" else canonical_seats(arm, strategy)

    columns = sorted({c for name, s in subjects for arm in (a, b)
                      for c in METRICS[name].columns(seats(arm, s))})

    def extract(frame: pd.DataFrame, arm: Arm) -> dict[Any, tuple[np.ndarray, Any]]:
        return {(name, s): METRICS[name].values(frame, seats(arm, s)) for name, s in subjects}

    accs = run_paired(result, a, [b], columns, extract)
    rows = []
    for name, strategy in subjects:
        acc = accs.get((b.index, (name, strategy)), Paired())
        diff, low, high = acc.estimate()
        va, vb = acc.ratios()
        rows.append({"arm_a": a.index, "arm_a_name": a.name, "arm_b": b.index,
                     "arm_b_name": b.name, "strategy": strategy, "metric": name,
                     "unit": METRICS[name].unit, "games": acc.n, "discordant": acc.discordant,
                     "n_a": int(acc.sya), "n_b": int(acc.syb), "value_a": va, "value_b": vb,
                     "diff": diff, "ci_low": low, "ci_high": high,
                     "verdict": paired_verdict(low, high, acc.discordant)})
    return pd.DataFrame(rows, columns=PAIRED_COLUMNS)


def canonical_strategies(arm: Arm) -> tuple[str, ...]:
    """The arm's strategies seat by seat as canonical specs (``greedy`` -> ``greedy-knock``):
    arms are compared by these, never by the names as given."""
    return tuple(canonical_strategy(s) for s in arm.strategies)


def canonical_seats(arm: Arm, strategy: str) -> list[int]:
    """The seats of ``arm`` holding ``strategy`` under any spelling of it."""
    key = canonical_strategy(strategy)
    return [seat for seat, s in enumerate(canonical_strategies(arm)) if s == key]


def _rule_differences(a: Arm, b: Arm) -> dict[str, tuple[Any, Any]]:
    ra = {k: v for k, v in a.rules.items() if k not in ("name", "initial_roles")}
    rb = {k: v for k, v in b.rules.items() if k not in ("name", "initial_roles")}
    return {k: (ra.get(k), rb.get(k)) for k in sorted(ra.keys() | rb.keys())
            if ra.get(k) != rb.get(k)}


def rule_comparisons(result: RunResult | str | Path) -> list[tuple[Arm, Arm, dict[str, Any]]]:
    """Pairs of arms that differ only in their rules (same strategies, same seating).

    Strategies are the same when their canonical specs are (:func:`canonical_strategies`), so
    an alias or another spelling in one arm still pairs it. Each arm is compared with the first
    arm of its group (the baseline), so a rules sweep of k arms gives k - 1 comparisons.
    Returns (baseline, arm, {field: (baseline value, value)}).
    """
    arms = arms_of(open_run(result))
    out = []
    groups: dict[tuple[Any, ...], Arm] = {}
    for arm in arms:
        key = (canonical_strategies(arm), json.dumps(arm.seating))
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
    result = open_run(result)
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


__all__ = ["HEADLINE_METRICS", "METRICS", "MIN_DISCORDANT", "PAIRED_COLUMNS", "Extract", "Metric",
           "canonical_seats", "canonical_strategies", "comparisons_table", "gin_bonus_study",
           "paired_difference", "paired_verdict", "rule_comparisons", "run_paired"]
