"""The knock_at sweep: recognising one in a run's arms, and ranking its thresholds.

A study section of its own: it needs to know which strategies take a ``knock_at`` (asked of
the play layer, :func:`sim.runs.experiment.default_knock_at`, so the analysis does not read
the strategy registry), then compares each threshold paired with the best.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.analysis.comparisons import paired_verdict, run_paired
from sim.analysis.formatting import fmt_diff, fmt_pct
from sim.analysis.runs import Arm, arm_frames, arms_of, open_run
from sim.analysis.statistics import Paired, wilson
from sim.runs.experiment import canonical_strategy, default_knock_at
from sim.runs.storage import RunResult

_KNOCK_AT_RE = re.compile(r"(?:^|[:,])\s*knock_at\s*=\s*(\d+)")
_NAME_KNOCK_AT_RE = re.compile(r"knock_at\s*=\s*(\d+)")


def _knock_at(text: str, arm: Arm) -> int | None:
    """knock_at of a strategy text; a built-in's default is the knock limit; else the arm name."""
    match = _KNOCK_AT_RE.search(text)
    if match:
        return int(match.group(1))
    default = default_knock_at(text, int(arm.rules["knock_limit"]))
    if default is not None:
        return default
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
    arms = arms_of(open_run(result))
    if len(arms) < 2:
        return None
    first = arms[0]
    if any(a.players != first.players or a.rules_key != first.rules_key
           or json.dumps(a.seating) != json.dumps(first.seating) for a in arms):
        return None
    varying = [s for s in range(first.players)
               if len({canonical_strategy(a.strategies[s]) for a in arms}) > 1]
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
    result = open_run(result)
    design = sweep_design(result)
    if design is None:
        raise ValueError(f"the arms of {result.manifest['spec']['name']!r} do not sweep "
                         "knock_at: expected arms that differ only in one seat's knock_at")
    arms = arms_of(result)
    seat = design.seat
    games = np.zeros(len(arms), np.int64)
    wins = np.zeros(len(arms), np.int64)
    for a, frame in arm_frames(result, ["winner"]):
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

    accs = run_paired(result, best, others, ["winner"], extract)
    diffs, lows, highs, verdicts = [], [], [], []
    for arm in arms:
        if arm.index == best.index:
            diffs.append(0.0)
            lows.append(0.0)
            highs.append(0.0)
            verdicts.append("best")
            continue
        acc = accs.get((arm.index, "win"), Paired())
        diff, low, high = acc.estimate()
        diffs.append(diff)
        lows.append(low)
        highs.append(high)
        verdict = paired_verdict(low, high, acc.discordant)
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
    text = (f"best knock_at = {best.knock_at}: win rate {fmt_pct(best.win_rate)} "
            f"({fmt_pct(best.ci_low)} - {fmt_pct(best.ci_high)}, n = {best.games:,})")
    if len(ranked) < 2:
        return text
    second = ranked.iloc[1]
    significant = second.verdict == "best is significantly better"
    diff, ci = fmt_diff(-second.diff_vs_best, -second.diff_ci_high, -second.diff_ci_low, True)
    return (text + f"; runner-up knock_at = {second.knock_at} ({fmt_pct(second.win_rate)}): the "
            f"best is {'' if significant else 'not '}significantly better (paired difference "
            f"{diff}, 95% CI {ci})")


__all__ = ["SweepDesign", "knock_sweep", "knock_sweep_summary", "sweep_design"]
