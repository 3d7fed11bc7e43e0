"""A league's leaderboard as text, markdown, CSV and a PNG plot with the 95% intervals."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from sim.analysis.formatting import md_table, plural, text_table
from sim.io.files import atomic_paths
from sim.league.ratings import ANCHOR_RATING
from sim.league.spec import LeagueSpec
from strategies.registry import canonical_strategy

HEADER = ["rank", "strategy", "rating", "95% CI", "games", "win rate"]
FILES = ("leaderboard.csv", "leaderboard.md", "ratings.png")


#: How a bounded rating reads: its sign, and why it is only a bound.
BOUND_TEXT = {"upper": ("≤", "bound: beat none"), "lower": ("≥", "bound: lost to none")}
#: Characters of a strategy's name the plot shows (longer ones are cut in the middle).
PLOT_LABEL = 36


def leaderboard_rows(board: pd.DataFrame, anchor: str) -> list[list[str]]:
    """The leaderboard's cells as text, one row per strategy (:data:`HEADER`): intervals
    read ``low to high``, a bounded rating ``≤ 995`` with why it is only a bound."""
    rows = []
    for r in board.itertuples():
        side = getattr(r, "bound", "")
        if side in BOUND_TEXT:
            sign, interval = BOUND_TEXT[side]
            rating = f"{sign} {r.rating:.0f}"
        else:
            rating = f"{r.rating:.0f}"
            interval = ("anchor" if _same_strategy(r.strategy, anchor)
                        else "n/a" if math.isnan(r.ci_low)
                        else f"{r.ci_low:.0f} to {r.ci_high:.0f}")
        rows.append([str(r.rank), r.strategy, rating, interval, f"{r.games:,}",
                     f"{100 * r.win_rate:.1f}%"])
    return rows


def _same_strategy(a: str, b: str) -> bool:
    """``a`` and ``b`` name one strategy (``Simple`` is ``simple``); names no registry knows
    (a table of results from elsewhere) only when equal."""
    try:
        return a == b or canonical_strategy(a) == canonical_strategy(b)
    except ValueError:
        return False


def describe(spec: LeagueSpec) -> str:
    """One line: the league, its rules and size."""
    tables = len(spec.tables())
    kind = "two-player" if spec.players == 2 else "three-handed"
    kind = "" if kind in spec.rules else f" ({kind})"
    return (f"{spec.name}: {spec.rules} rules{kind}, {len(spec.strategies)} strategies, "
            f"{plural(tables, 'table')} x {plural(spec.games, 'game')} "
            f"({plural(tables * spec.games, 'game')}), "
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
    table = text_table(leaderboard_rows(board, spec.anchor), HEADER, {0, 2, 4, 5})
    return f"{describe(spec)}\n\n{table}\n\n{method(spec)}"


def leaderboard_markdown(spec: LeagueSpec, board: pd.DataFrame) -> str:
    """The leaderboard as a markdown table with its description (for docs)."""
    table = md_table(leaderboard_rows(board, spec.anchor), HEADER, {0, 2, 4, 5})
    return f"{describe(spec)}\n\n{table}\n\n{method(spec)}\n"


def _plot_label(name: str) -> str:
    """A strategy's name short enough for the plot (an import path with its file can be
    long enough to squeeze the axes to nothing)."""
    if len(name) <= PLOT_LABEL:
        return name
    half = (PLOT_LABEL - 1) // 2
    return name[:half] + "…" + name[-half:]


def _x_range(board: pd.DataFrame) -> tuple[float, float]:
    """The ratings axis: every measured rating and interval, and the anchor; a bound far
    off is drawn at the edge instead of stretching the axis."""
    measured = board[board["bound"].fillna("") == ""] if "bound" in board else board
    values = np.concatenate([measured[c].to_numpy(float) for c in ("rating", "ci_low",
                                                                   "ci_high")])
    values = values[np.isfinite(values)]
    low, high = float(min(values.min(), ANCHOR_RATING)), float(max(values.max(),
                                                                    ANCHOR_RATING))
    pad = max(0.08 * (high - low), 25.0)
    return low - pad, high + pad


def ratings_plot(spec: LeagueSpec, board: pd.DataFrame) -> Figure:
    """Ratings with their 95% bootstrap intervals, best at the top, the anchor's line; a
    bounded rating (a strategy that beat none, or lost to none) as an arrow from its bound,
    at the axis' edge when it lies beyond the measured ones."""
    fig = Figure(figsize=(8.0, 1.6 + 0.38 * len(board)), dpi=120, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    y = np.arange(len(board))[::-1]
    lo_x, hi_x = _x_range(board)
    bounded = (board["bound"].fillna("") != "").to_numpy() if "bound" in board else \
        np.zeros(len(board), bool)
    rating = board["rating"].to_numpy(float)
    low = np.nan_to_num(rating - board["ci_low"].to_numpy(float), nan=0.0)
    high = np.nan_to_num(board["ci_high"].to_numpy(float) - rating, nan=0.0)
    m = ~bounded
    ax.errorbar(rating[m], y[m], xerr=np.vstack([np.maximum(low[m], 0),
                                                 np.maximum(high[m], 0)]),
                fmt="o", color="#2166ac", capsize=3, elinewidth=1.5, markersize=5)
    step = 0.08 * (hi_x - lo_x)  # the arrow of a bound beyond the axis
    for r, row, side in zip(rating[bounded], y[bounded], board["bound"][bounded], strict=True):
        edge, toward = (lo_x, 1.0) if side == "upper" else (hi_x, -1.0)
        inside = lo_x <= r <= hi_x
        start = r if inside else edge + toward * step
        ax.annotate("", xy=(edge, row), xytext=(start, row),
                    arrowprops={"arrowstyle": "->", "color": "#b2182b", "lw": 1.5})
        if inside:
            ax.plot([r], [row], marker="|", color="#b2182b", markersize=10)
        ax.annotate(f"{BOUND_TEXT[side][0]} {r:.0f}", (start, row), textcoords="offset points",
                    xytext=(3 * toward, 5), fontsize="small", color="#b2182b",
                    ha="left" if side == "upper" else "right")
    ax.set_xlim(lo_x, hi_x)
    ax.axvline(ANCHOR_RATING, color="0.5", linestyle="--", linewidth=1,
               label=f"{spec.anchor} = {ANCHOR_RATING:.0f}")
    ax.set_yticks(y, [_plot_label(s) for s in board["strategy"]])
    ax.set_ylim(-0.6, len(board) - 0.4)
    ax.set_xlabel(("rating (Elo scale), 95% bootstrap interval" if spec.bootstrap > 0
                   else "rating (Elo scale), no intervals (bootstrap = 0)")
                  + ("; arrows: one-sided 95% bounds" if bounded.any() else ""))
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
