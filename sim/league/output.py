"""A league's leaderboard as text, markdown, CSV and a PNG plot with the 95% intervals."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from sim.analysis.formatting import md_table, text_table
from sim.io.files import atomic_paths
from sim.league.ratings import ANCHOR_RATING
from sim.league.spec import LeagueSpec

HEADER = ["rank", "strategy", "rating", "95% CI", "games", "win rate"]
FILES = ("leaderboard.csv", "leaderboard.md", "ratings.png")


def _rows(board: pd.DataFrame, anchor: str) -> list[list[str]]:
    rows = []
    for r in board.itertuples():
        interval = ("anchor" if r.strategy == anchor else "n/a" if math.isnan(r.ci_low)
                    else f"{r.ci_low:.0f} - {r.ci_high:.0f}")
        rows.append([str(r.rank), r.strategy, f"{r.rating:.0f}", interval, f"{r.games:,}",
                     f"{100 * r.win_rate:.1f}%"])
    return rows


def describe(spec: LeagueSpec) -> str:
    """One line: the league, its rules and size."""
    tables = len(spec.tables())
    kind = "two-player" if spec.players == 2 else "three-handed"
    kind = "" if kind in spec.rules else f" ({kind})"
    return (f"{spec.name}: {spec.rules} rules{kind}, {len(spec.strategies)} strategies, "
            f"{tables} tables x {spec.games:,} games ({tables * spec.games:,} games), "
            f"seed {spec.seed}")


def method(spec: LeagueSpec) -> str:
    """One line: how the ratings were fitted."""
    model = ("Bradley-Terry" if spec.players == 2
             else "Plackett-Luce by pairwise rank-breaking (winner first, then by score)")
    intervals = (f"95% CI from {spec.bootstrap:,} bootstrap resamples of deals (seed "
                 f"{spec.seed})" if spec.bootstrap > 0
                 else "no intervals (bootstrap = 0: no resamples)")
    return (f"ratings: {model}, fitted with choix; Elo scale (400/ln 10 per unit of "
            f"log-strength), {spec.anchor} = {ANCHOR_RATING:.0f}; {intervals}")


def leaderboard_text(spec: LeagueSpec, board: pd.DataFrame) -> str:
    """The leaderboard ``ginbox league`` prints."""
    table = text_table(_rows(board, spec.anchor), HEADER, {0, 2, 4, 5})
    return f"{describe(spec)}\n\n{table}\n\n{method(spec)}"


def leaderboard_markdown(spec: LeagueSpec, board: pd.DataFrame) -> str:
    """The leaderboard as a markdown table with its description (for docs)."""
    table = md_table(_rows(board, spec.anchor), HEADER, {0, 2, 4, 5})
    return f"{describe(spec)}\n\n{table}\n\n{method(spec)}\n"


def ratings_plot(spec: LeagueSpec, board: pd.DataFrame) -> Figure:
    """Ratings with their 95% bootstrap intervals, best at the top, the anchor's line."""
    fig = Figure(figsize=(8.0, 1.6 + 0.38 * len(board)), dpi=120, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    y = np.arange(len(board))[::-1]
    rating = board["rating"].to_numpy(float)
    low = np.nan_to_num(rating - board["ci_low"].to_numpy(float), nan=0.0)
    high = np.nan_to_num(board["ci_high"].to_numpy(float) - rating, nan=0.0)
    ax.errorbar(rating, y, xerr=np.vstack([np.maximum(low, 0), np.maximum(high, 0)]), fmt="o",
                color="#2166ac", capsize=3, elinewidth=1.5, markersize=5)
    ax.axvline(ANCHOR_RATING, color="0.5", linestyle="--", linewidth=1,
               label=f"{spec.anchor} = {ANCHOR_RATING:.0f}")
    ax.set_yticks(y, list(board["strategy"]))
    ax.set_ylim(-0.6, len(board) - 0.4)
    ax.set_xlabel("rating (Elo scale), 95% bootstrap interval" if spec.bootstrap > 0
                  else "rating (Elo scale), no intervals (bootstrap = 0)")
    ax.set_ylabel("strategy")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    fig.suptitle(f"League {spec.name}: {spec.rules}, {len(spec.tables())} tables x "
                 f"{spec.games:,} games, seed {spec.seed}")
    return fig


def write(spec: LeagueSpec, board: pd.DataFrame, out: Path) -> list[Path]:
    """Write ``leaderboard.csv``, ``leaderboard.md`` and ``ratings.png`` into ``out``
    together (atomically: all new or none changed)."""
    paths = [out / name for name in FILES]
    fig = ratings_plot(spec, board)
    with atomic_paths(paths) as (csv, md, png):
        board.to_csv(csv, index=False)
        md.write_text(leaderboard_markdown(spec, board))
        fig.savefig(png, format="png", dpi=120)
    return paths
