"""The ceiling's table: each player's wins, its paired distance to the clairvoyant and its share
of the way from ``random`` up to it, with 95% intervals, and the finish mix.

Why paired: every player of a match played the same deals (the same seed and game numbers,
seat by seat), so differences are read game by game, far tighter than two intervals apart.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.engine.rules import Rules
from studies.ceiling import CLAIRVOYANT, FLOOR, MATCHES, load_table, wins_path

BOOTSTRAP = 2000
"""Resamples of the deals behind the share's interval (seeded: the report is reproducible)."""


def common(a: np.ndarray, b: np.ndarray, seats: int) -> tuple[np.ndarray, np.ndarray]:
    """Two players' game-by-game wins on their common deals: runs of different lengths (one
    played on to more games a seat) are cut to the first games of each seat."""
    if len(a) == len(b):
        return a, b
    n = min(len(a), len(b)) // seats
    return a.reshape(seats, -1)[:, :n].ravel(), b.reshape(seats, -1)[:, :n].ravel()


def paired_difference(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """The mean of ``a - b`` game by game, in points, with its 95% normal interval."""
    d = a.astype(np.float64) - b.astype(np.float64)
    mean = d.mean()
    half = 1.96 * d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else np.nan
    return 100 * mean, 100 * (mean - half), 100 * (mean + half)


def share(player: np.ndarray, floor: np.ndarray, ceiling: np.ndarray,
          seed: int = 0) -> tuple[float, float, float]:
    """``(player - floor) / (ceiling - floor)`` in win rates on the same deals, with a 95%
    interval from a bootstrap of the deals (all three resampled together)."""
    def ratio(p: np.ndarray, f: np.ndarray, c: np.ndarray) -> np.ndarray:
        return (p.mean(-1) - f.mean(-1)) / (c.mean(-1) - f.mean(-1))

    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(player), size=(BOOTSTRAP, len(player)))
    draws = ratio(player[picks], floor[picks], ceiling[picks])
    lo, hi = np.nanpercentile(draws, [2.5, 97.5])
    return float(ratio(player, floor, ceiling)), float(lo), float(hi)


def match_table(frame: pd.DataFrame, label: str, out: str) -> pd.DataFrame:
    """One match's rows with the paired distance to the clairvoyant and the share of the way
    from ``random`` to it (NaN where either was not played)."""
    rows = frame[frame["match"] == label].copy()
    if rows.empty:
        return rows
    seats = Rules.preset(str(rows["rules"].iloc[0])).players
    wins = {p: np.load(wins_path(out, p, label)) for p in rows["player"]}
    ceiling = CLAIRVOYANT if CLAIRVOYANT in wins else next(
        (p for p in wins if p.split(":")[0] == CLAIRVOYANT), None)
    for column in ("vs_ceiling", "vs_ceiling_low", "vs_ceiling_high", "share", "share_low",
                   "share_high"):
        rows[column] = np.nan
    for i, player in zip(rows.index, rows["player"], strict=True):
        if ceiling is None or player == ceiling:
            continue
        a, c = common(wins[player], wins[ceiling], seats)
        rows.loc[i, ["vs_ceiling", "vs_ceiling_low", "vs_ceiling_high"]] = \
            paired_difference(a, c)
        if FLOOR in wins:
            a, f = common(wins[player], wins[FLOOR], seats)
            c, f = common(wins[ceiling], f, seats)
            a, _ = common(a, f, seats)
            rows.loc[i, ["share", "share_low", "share_high"]] = share(a, f, c)
    return rows


def _pct(v: float, lo: float, hi: float) -> str:
    return f"{v:.1%} ({lo:.1%}-{hi:.1%})"


def _points(v: float, lo: float, hi: float) -> str:
    return "" if np.isnan(v) else f"{v:+.1f} ({lo:+.1f} to {hi:+.1f})"


def markdown(out: str) -> str:
    """The saved matches of ``out`` as markdown tables, one per match."""
    frame = load_table(out)
    if frame.empty:
        raise ValueError(f"no saved matches in results/ceiling/{out}.csv (run `matches` first)")
    parts = []
    for _, _, label in MATCHES:
        rows = match_table(frame, label, out)
        if rows.empty:
            continue
        parts += [f"**{label}** (rules `{rows['rules'].iloc[0]}`, seed "
                  f"{int(rows['seed'].iloc[0])})", "",
                  "| player | wins (95%) | games | vs clairvoyant, points | share of random to "
                  "clairvoyant | knocks / gins / undercuts won / undercut per hand | points "
                  "won / conceded per hand | games / CPU s |",
                  "| --- | --- | ---: | --- | --- | --- | --- | ---: |"]
        for _, r in rows.iterrows():
            shared = "" if np.isnan(r["share"]) else _pct(r["share"], r["share_low"],
                                                           r["share_high"])
            parts.append(
                f"| `{r['player']}` | {_pct(r['win_rate'], r['low'], r['high'])} | "
                f"{int(r['games']):,} | "
                f"{_points(r['vs_ceiling'], r['vs_ceiling_low'], r['vs_ceiling_high'])} | "
                f"{shared} | {r['knocks_per_hand']:.3f} / {r['gins_per_hand']:.3f} / "
                f"{r['undercut_wins_per_hand']:.3f} / {r['undercut_per_hand']:.3f} | "
                f"{r['points_per_hand']:.1f} / {r['conceded_per_hand']:.1f} | "
                f"{r['games_per_cpu_s']:.1f} |")
        parts.append("")
    return "\n".join(parts)
