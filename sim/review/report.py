"""What a review's table says: error per decision by seat and kind, the gap between two
strategies by kind of decision, the costliest decisions as positions, and each seat's chance
of winning through a game.

The **error rate** of a set of decisions is 1000 times their mean loss: thousandths of a game
given away per counted decision (GNU Backgammon's "mEMG" per move, in game-win probability).
Its 95% interval treats each game's decisions of a seat as one cluster (they share the cards),
by the ratio estimator's linearised variance.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from sim.analysis.formatting import md_table, plural
from sim.analysis.plots import _figure
from sim.analysis.statistics import Z95
from sim.engine.cards import parse_cards
from sim.review.judge import COUNTED_LABELS, THRESHOLDS
from strategies.human import melds_text

LABELS = ("blunder", "mistake", "inaccuracy")
PLURALS = {"blunder": "blunders", "mistake": "mistakes", "inaccuracy": "inaccuracies"}
KIND_ORDER = ("take", "draw", "knock", "discard")


def error_rate(table: pd.DataFrame) -> tuple[float, float, float, int]:
    """``(rate, low, high, decisions)`` of a table's counted decisions: 1000 times the mean
    loss with its 95% interval, clustered by (game, seat)."""
    counted = table[table["counted"]]
    n = len(counted)
    if n == 0:
        return float("nan"), float("nan"), float("nan"), 0
    per = counted.groupby(["game", "seat"])["loss"].agg(["sum", "count"])
    y, m = per["sum"].to_numpy(float), per["count"].to_numpy(float)
    rate = y.sum() / m.sum()
    clusters = len(per)
    if clusters < 2:
        return 1000 * rate, float("nan"), float("nan"), n
    u = y - rate * m
    se = np.sqrt(clusters / (clusters - 1) * np.sum(u * u)) / m.sum()
    return 1000 * rate, 1000 * (rate - Z95 * se), 1000 * (rate + Z95 * se), n


def summary(table: pd.DataFrame, by: tuple[str, ...] = ("seat", "strategy")) -> pd.DataFrame:
    """One row per group: decisions counted, error rate with its interval, the loss given
    away per game, and the counts of each label."""
    rows = []
    for key, part in table.groupby(list(by), sort=True):
        rate, low, high, n = error_rate(part)
        games = part["game"].nunique()
        row = dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))
        row.update(decisions=n, error_rate=rate, low=low, high=high,
                   loss_per_game=part.loc[part["counted"], "loss"].sum() / max(games, 1),
                   games=games)
        for label in LABELS:
            row[PLURALS[label]] = int((part["label"] == label).sum())
        rows.append(row)
    return pd.DataFrame(rows)


def compare(table: pd.DataFrame, first: str, second: str, by: str = "kind") -> pd.DataFrame:
    """Where two strategies' games differ: for each value of ``by`` (``kind``, ``role``,
    ``stage``), each strategy's loss per game it sat in (its seats' counted losses summed per
    game, averaged over games), the gap ``first - second`` with a 95% interval (the two sets of
    games independent) and the gap's share of the whole gap."""
    names = set(table["strategy"])
    for name in (first, second):
        if name not in names:
            raise ValueError(f"no decisions of {name!r} in this review: it has "
                             f"{', '.join(sorted(names))}")
    counted = table[table["counted"]]
    out = []
    for level in _ordered(counted[by].unique(), by):
        means, variances = [], []
        for name in (first, second):
            played = table[table["strategy"] == name][["game", "seat"]].drop_duplicates()
            part = counted[(counted["strategy"] == name) & (counted[by] == level)]
            per = part.groupby(["game", "seat"])["loss"].sum()
            losses = per.reindex(pd.MultiIndex.from_frame(played), fill_value=0.0).to_numpy()
            means.append(losses.mean())
            variances.append(losses.var(ddof=1) / len(losses) if len(losses) > 1 else np.nan)
        gap = means[0] - means[1]
        half = Z95 * float(np.sqrt(variances[0] + variances[1]))
        out.append({by: level, first: means[0], second: means[1], "gap": gap,
                    "low": gap - half, "high": gap + half})
    result = pd.DataFrame(out)
    total = result["gap"].sum()
    result["share"] = result["gap"] / total if total else np.nan
    return result


def _ordered(levels: Any, by: str) -> list[Any]:
    order = {"kind": KIND_ORDER, "stage": ("early", "middle", "late"),
             "role": ("dealer", "non-dealer", "box", "captain", "advisor")}.get(by, ())
    return sorted(levels, key=lambda v: (order.index(v) if v in order else len(order), str(v)))


def position_text(row: pd.Series | dict[str, Any]) -> str:
    """One costly decision as a player would look at it: the hand in its best melds with its
    deadwood, shown as the terminal and the web table show it
    (:func:`strategies.human.melds_text`), what was played, the judge's best and every
    option's value."""
    hand, deadwood = melds_text(parse_cards(str(row["cards"])))
    values = json.loads(row["values"])
    options = ", ".join(f"{k} {v:.3f}" for k, v in sorted(values.items(), key=lambda kv: -kv[1]))
    return (f"game {row['game']} hand {row['hand']} move {row['move']}: seat {row['seat']} "
            f"({row['strategy']}, {row['role']}), {row['kind']} with {row['stock_left']} in the "
            f"stock, score {row['score']}, pile top {row['top'] or '-'}\n"
            f"    hand: {hand} (deadwood {deadwood})\n"
            f"    played {row['chosen']} ({row['value_chosen']:.3f}), best {row['best']} "
            f"({row['value_best']:.3f}): loss {row['loss']:.3f}, {row['label']}\n"
            f"    options: {options}")


def _fmt_rate(rate: float, low: float, high: float) -> str:
    if np.isnan(rate):
        return "-"
    if np.isnan(low):
        return f"{rate:.1f}"
    return f"{rate:.1f} ({low:.1f} to {high:.1f})"


def _summary_table(table: pd.DataFrame, by: tuple[str, ...]) -> str:
    s = summary(table, by)
    rows = [[*(str(r[k]) for k in by), str(r["decisions"]),
             _fmt_rate(r["error_rate"], r["low"], r["high"]), f"{r['loss_per_game']:.3f}",
             *(str(r[PLURALS[label]]) for label in LABELS)] for _, r in s.iterrows()]
    header = [*by, "decisions", "error rate (95%)", "loss/game", *(PLURALS[x] for x in LABELS)]
    return md_table(rows, header, set(range(len(by), len(header))))


def _compare_table(gaps: pd.DataFrame, by: str, names: list[str]) -> str:
    rows = [[str(r[by]), f"{r[names[0]]:.3f}", f"{r[names[1]]:.3f}",
             f"{r['gap']:+.3f} ({r['low']:+.3f} to {r['high']:+.3f})",
             "-" if np.isnan(r["share"]) else f"{r['share']:.0%}"] for _, r in gaps.iterrows()]
    return md_table(rows, [by, *names, "gap (95%)", "share"], {1, 2, 3, 4})


def markdown(table: pd.DataFrame, judge: str, seed: int, source: str = "",
             costliest: int = 5) -> str:
    """The review as a Markdown report: per seat, per seat and kind, per game, and the
    costliest decisions rendered as positions."""
    bars = ", ".join(f"{name} from {least:.2f}" for name, least in reversed(THRESHOLDS))
    counted = table[table["counted"]]
    lines = [f"# Decision review{' of ' + source if source else ''}", "",
             f"Judge `{judge}`, seed {seed}: {plural(table['game'].nunique(), 'game')}, "
             f"{plural(len(table), 'decision')} of which {len(counted)} counted (the others "
             "forced or equal). "
             "Loss in game-win probability; error rate = 1000 x mean loss per counted decision "
             f"(95% interval by game); labels: {bars}.", "",
             "## By seat", "", _summary_table(table, ("seat", "strategy")), "",
             "## By seat and kind of decision", "",
             _summary_table(table, ("seat", "strategy", "kind")), ""]
    if table["game"].nunique() > 1:
        lines += ["## By game", "", _summary_table(table, ("game", "seat", "strategy")), ""]
    names = sorted(set(table["strategy"]))
    if len(names) == 2 and len(counted):
        lines += [f"## {names[0]} against {names[1]}, by kind, role and stage", "",
                  "Loss per game each strategy sat in, and the gap (first minus second) with "
                  "its 95% interval and its share of the whole gap.", ""]
        for by in ("kind", "role", "stage"):
            lines += [_compare_table(compare(table, names[0], names[1], by), by, names), ""]
    worst = counted.sort_values(["loss", "game", "hand", "move"],
                                ascending=[False, True, True, True]).head(costliest)
    if len(worst):
        lines += ["## The costliest decisions", "", "```"]
        lines += [position_text(r) for _, r in worst.iterrows()]
        lines += ["```", ""]
    return "\n".join(lines)


def win_probability_plot(table: pd.DataFrame, game: int) -> Figure:
    """Each reviewed seat's chance of winning game ``game`` after each of its decisions, as
    the judge measured it, with the hands marked."""
    part = table[table["game"] == game].reset_index(drop=True)
    if part.empty:
        raise ValueError(f"game {game} is not in this review")
    fig, axes = _figure(7.5, 3.2)
    ax = axes[0][0]
    judged = part[part["label"] != "forced"]
    for (seat, name), rows in judged.groupby(["seat", "strategy"]):
        ax.step(rows.index, rows["value_chosen"], where="post", label=f"seat {seat} ({name})")
    for start in part.index[part["hand"].diff().fillna(0) != 0]:
        ax.axvline(start - 0.5, color="#bbbbbb", linewidth=0.8)
    ax.set_ylim(0, 1)
    ax.set_xlabel("decision of the game (grey lines: a new hand)")
    ax.set_ylabel("chance of winning the game")
    ax.set_title(f"game {game}: each seat's chance after its move, by the judge")
    ax.legend(loc="best", fontsize=8)
    return fig


__all__ = ["COUNTED_LABELS", "compare", "error_rate", "markdown", "position_text", "summary",
           "win_probability_plot"]
