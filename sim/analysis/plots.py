"""Plots of the report tables: matplotlib Figures on the Agg canvas, never a GUI window.

Each function takes a table of :mod:`sim.analysis.report` and a ``what`` string saying what was run
(experiment, games, seed: :attr:`sim.analysis.report.Report.what`) and returns a
:class:`matplotlib.figure.Figure`; :func:`save` writes one to a file atomically.

Figures are built with the object API and attached to an Agg canvas explicitly instead of going
through ``pyplot``: no backend is chosen globally and no window can open, so this works on a
headless server, in a worker process and in a notebook alike (Jupyter displays a returned
Figure inline) without changing the user's backend. Every plot has labelled axes with units,
95% interval bars and a title naming the run.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from sim.analysis.comparisons import HEADLINE_METRICS, METRICS
from sim.io.files import atomic_write

DPI = 120
SIGNIFICANT = "#b2182b"
NOT_SIGNIFICANT = "#4d4d4d"
BEST = "#1a9850"


def _figure(width: float, height: float, nrows: int = 1, ncols: int = 1) -> tuple[Figure, Any]:
    """A Figure with its own Agg canvas and a grid of axes (always 2-D)."""
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes


def _bars(ax: Any, x: np.ndarray, y: np.ndarray, err: np.ndarray, colors: list[str],
          horizontal: bool = True) -> None:
    """Points with interval bars, coloured per point (errorbar takes one colour per call)."""
    for color in dict.fromkeys(colors):
        sel = np.array([c == color for c in colors])
        kwargs = {"xerr": err[:, sel]} if horizontal else {"yerr": err[:, sel]}
        ax.errorbar(x[sel], y[sel], fmt="o", color=color, ecolor=color, elinewidth=1.5,
                    capsize=3, markersize=5, **kwargs)


def _errors(value: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Asymmetric error bars (below, above) from an interval; NaN intervals draw nothing."""
    below = np.nan_to_num(value - low, nan=0.0)
    above = np.nan_to_num(high - value, nan=0.0)
    return np.vstack([np.maximum(below, 0.0), np.maximum(above, 0.0)])


def _natural(text: str) -> list[Any]:
    """Sort key putting knock_at=2 before knock_at=10."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", text)]


def win_rate_plot(win_rates: pd.DataFrame, what: str) -> Figure:
    """Game win rate per seat held, by arm and strategy, with 95% Wilson bars.

    The per-seat rate (wins / (games x seats)) puts every strategy on the same scale, so one
    line marks the fair share 1/players for all rows (one per row if the arms differ in it).
    """
    df = win_rates.reset_index(drop=True)
    many = df["arm"].nunique() > 1
    labels = [(f"{r.arm_name}: " if many else "") + r.strategy
              + (f" (x{r.seats} seats)" if r.seats > 1 else "") for r in df.itertuples()]
    width = max(8.0, 4.8 + 0.085 * max((len(t) for t in labels), default=0))
    fig, axes = _figure(width, 1.8 + 0.32 * len(df))
    ax = axes[0, 0]
    y = np.arange(len(df))[::-1]
    rate = df["per_seat_rate"].to_numpy(float) * 100
    err = _errors(rate, df["per_seat_ci_low"].to_numpy(float) * 100,
                  df["per_seat_ci_high"].to_numpy(float) * 100)
    fair = (df["fair_share"] / df["seats"]).to_numpy(float) * 100
    colors = [SIGNIFICANT if v == "above" else "#2166ac" if v == "below" else NOT_SIGNIFICANT
              for v in df["vs_fair_share"]]
    _bars(ax, rate, y, err, colors)
    ax.set_ylim(-0.6, len(df) - 0.4)
    if np.allclose(fair, fair[0]):
        ax.axvline(fair[0], color="0.5", linestyle="--", linewidth=1,
                   label=f"fair share {fair[0]:.1f}%")
    else:
        ax.scatter(fair, y, marker="|", color="0.5", s=150, label="fair share")
    ax.set_yticks(y, labels)
    ax.set_xlabel("game win rate per seat held (% of games), 95% Wilson interval")
    ax.set_ylabel("arm: strategy" if many else "strategy")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    fig.suptitle(f"Game win rate by strategy\n{what}")
    return fig


def box_retention_heatmap(pooled: pd.DataFrame, what: str) -> Figure:
    """Box keeps the box (% of hands) by box strategy (rows) and captain strategy (columns).

    One panel per rules group; each cell is annotated with the rate, its Wilson 95% interval
    and the number of hands; pairs that never met are left blank.
    """
    groups = list(dict.fromkeys(pooled["rules"]))
    strategies = sorted(set(pooled["box_strategy"]) | set(pooled["captain_strategy"]),
                        key=_natural)
    k = len(strategies)
    cell = 1.15 if k <= 4 else 0.9 if k <= 8 else 0.75
    side = 2.2 + cell * k
    fig, axes = _figure(side * len(groups) + 1.2, side + 0.6, 1, len(groups))
    index = {s: i for i, s in enumerate(strategies)}
    valid = pooled["rate"].dropna()
    vmin = float(valid.min()) * 100 if len(valid) else 0.0
    vmax = float(valid.max()) * 100 if len(valid) else 100.0
    if vmax - vmin < 1:
        vmin, vmax = vmin - 1, vmax + 1
    font = 8 if k <= 4 else 6.5 if k <= 8 else 5
    image = None
    for g, group in enumerate(groups):
        ax = axes[0, g]
        grid = np.full((k, k), np.nan)
        notes: dict[tuple[int, int], str] = {}
        for r in pooled[pooled["rules"] == group].itertuples():
            i, j = index[r.box_strategy], index[r.captain_strategy]
            grid[i, j] = r.rate * 100 if r.hands else np.nan
            if r.hands:
                notes[(i, j)] = (f"{100 * r.rate:.1f}%\n{100 * r.ci_low:.1f}-"
                                 f"{100 * r.ci_high:.1f}\nn={r.hands:,}")
        image = ax.imshow(np.ma.masked_invalid(grid), cmap="viridis", vmin=vmin, vmax=vmax,
                          aspect="equal")
        for (i, j), text in notes.items():
            shade = (grid[i, j] - vmin) / (vmax - vmin)
            ax.text(j, i, text, ha="center", va="center", fontsize=font,
                    color="black" if shade > 0.6 else "white")
        ax.set_xticks(range(k), strategies, rotation=35, ha="right")
        ax.set_yticks(range(k), strategies)
        ax.set_xlabel("captain strategy (non-dealer)")
        ax.set_ylabel("box strategy (dealer)")
        ax.set_title(group if len(groups) > 1 else "rules: " + group, fontsize="medium")
    if image is not None:
        fig.colorbar(image, ax=axes[0, :].tolist(), shrink=0.8,
                     label="box wins the hand (% of hands), 95% Wilson interval in cells")
    fig.suptitle(f"Box retention: chance the box keeps the box\n{what}")
    return fig


def knock_sweep_plot(sweep: pd.DataFrame, what: str) -> Figure:
    """Win rate of the swept seat by knock_at with 95% Wilson bars; the best one marked."""
    df = sweep.sort_values("knock_at")
    fig, axes = _figure(7.5, 4.6)
    ax = axes[0, 0]
    x = df["knock_at"].to_numpy(int)
    rate = df["win_rate"].to_numpy(float) * 100
    err = _errors(rate, df["ci_low"].to_numpy(float) * 100, df["ci_high"].to_numpy(float) * 100)
    ax.errorbar(x, rate, yerr=err, fmt="o-", color="#2166ac", ecolor="#2166ac", capsize=3,
                label="win rate, 95% Wilson interval")
    best = df[df["rank"] == 1]
    if len(best):
        ax.scatter(best["knock_at"], best["win_rate"] * 100, s=160, marker="*", color=BEST,
                   zorder=4, label=f"best: knock_at={int(best['knock_at'].iloc[0])}")
    tied = df[df["verdict"] == "not significantly different from the best"]
    if len(tied):
        ax.scatter(tied["knock_at"], tied["win_rate"] * 100, s=70, facecolors="none",
                   edgecolors=BEST, zorder=4, label="not significantly below the best (paired)")
    fair = float(df["fair_share"].iloc[0]) * 100 if len(df) else 100 / 3
    ax.axhline(fair, color="0.5", linestyle="--", linewidth=1, label=f"fair share {fair:.1f}%")
    ax.set_xticks(x)
    ax.set_xlabel("knock_at: the swept seat knocks with deadwood at or below (points)")
    ax.set_ylabel("game win rate of the swept seat (% of games)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="best")
    strategy = str(df["strategy"].iloc[0]).split(":", 1)[0] if len(df) else "strategy"
    seat = int(df["seat"].iloc[0]) if len(df) else 0
    ax.set_title(f"Knock sweep: {strategy} in seat {seat} by knock_at\n{what}")
    return fig


def _panels(pairs: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """Rows grouped into panels: one per per-strategy metric; whole-table rates in one panel
    (they share the unit, percentage points); other whole-table metrics one panel each."""
    panels: dict[str, list[int]] = {}
    for i, metric in enumerate(pairs["metric"]):
        m = METRICS[metric]
        key = metric if m.per_strategy or not m.percent else "table rates"
        panels.setdefault(key, []).append(i)
    return [(key, pairs.iloc[rows].reset_index(drop=True)) for key, rows in panels.items()]


def paired_difference_plot(pairs: pd.DataFrame, what: str,
                           metrics: tuple[str, ...] | None = HEADLINE_METRICS) -> Figure:
    """Paired differences (arm b minus arm a) with 95% bars, one panel per metric.

    Proportions are shown in percentage points, other metrics in their own unit; red bars are
    significant at 95% (the interval excludes 0). ``metrics`` selects what is drawn (None: all
    rows of the table; default: :data:`sim.analysis.comparisons.HEADLINE_METRICS`).
    """
    if metrics is not None and pairs["metric"].isin(metrics).any():
        pairs = pairs[pairs["metric"].isin(metrics)]
    pairs = pairs.reset_index(drop=True)
    panels = _panels(pairs)
    longest = max((len(t) for t in pairs["strategy"]), default=0) + (
        len(f"{pairs['arm_b_name'].iloc[0]} - {pairs['arm_a_name'].iloc[0]}: ") if len(pairs)
        else 0)
    fig, axes = _figure(max(8.0, 4.8 + 0.085 * longest),
                        1.4 + sum(1.1 + 0.3 * len(df) for _, df in panels), len(panels), 1)
    many_pairs = pairs[["arm_a", "arm_b"]].drop_duplicates().shape[0] > 1
    for ax, (key, df) in zip(axes[:, 0], panels, strict=True):
        ms = [METRICS[name] for name in df["metric"]]
        scale = np.array([100.0 if m.percent else 1.0 for m in ms])
        diff = df["diff"].to_numpy(float) * scale
        err = _errors(diff, df["ci_low"].to_numpy(float) * scale,
                      df["ci_high"].to_numpy(float) * scale)
        colors = [SIGNIFICANT if v == "significant" else NOT_SIGNIFICANT for v in df["verdict"]]
        y = np.arange(len(df))[::-1]
        _bars(ax, diff, y, err, colors)
        ax.set_ylim(-0.6, len(df) - 0.4)
        ax.axvline(0, color="0.5", linewidth=1)
        combined = key == "table rates"
        labels = [(f"{r.arm_b_name} - {r.arm_a_name}: " if many_pairs else "")
                  + (m.label if combined else r.strategy)
                  for r, m in zip(df.itertuples(), ms, strict=True)]
        ax.set_yticks(y, labels)
        m = ms[0]
        if combined:
            ax.set_xlabel("change in the share of all hands (percentage points), 95% paired "
                          "interval")
            ax.set_ylabel("hand outcome")
        else:
            unit = "percentage points" if m.percent else m.unit
            ax.set_xlabel(f"change in {m.label} ({unit}), 95% paired interval")
            ax.set_ylabel("strategy" if m.per_strategy else "")
        ax.grid(axis="x", alpha=0.3)
    first = pairs.iloc[0]
    change = f" ({first['change']})" if "change" in pairs.columns and not many_pairs else ""
    heading = ("Paired differences" if many_pairs else
               f"Paired differences: {first['arm_b_name']} minus {first['arm_a_name']}{change}")
    fig.suptitle(f"{heading}\n{what}; red = significant at 95%")
    return fig


def save(fig: Figure, path: str | Path, atomic: bool = True) -> Path:
    """Write a figure as PNG (the format follows the suffix unless it is a temporary name).

    With ``atomic`` the file is written to a hidden temporary beside it and renamed into
    place, so a reader never sees half a file.
    """
    path = Path(path)
    fmt = path.suffix[1:].lower() if path.suffix.lower() in (".png", ".svg", ".pdf") else "png"
    if not atomic:
        fig.savefig(path, format=fmt, dpi=DPI)
        return path
    atomic_write(path, lambda tmp: fig.savefig(tmp, format=fmt, dpi=DPI))
    return path


__all__ = ["box_retention_heatmap", "knock_sweep_plot", "paired_difference_plot",
           "save", "win_rate_plot"]
