"""The tables and report of a training folder: the learning curve and the strength by round.

The strength table has a row per round, player (the round's apprentice, ``net`` with its
weights, and the next round's expert; round 0 is the first expert), table and opponent: the
share of games won with a 95% interval over deals (each deal is played with the player in
every seat, so a deal is one observation), the finish mix, and the paired difference from
round 0's expert on the same deals. A loop is judged by this table, not by its loss curve.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.io.files import atomic_write, atomic_write_text

Z95 = 1.959963984540054


def deal_interval(wins: np.ndarray, seats: int) -> tuple[float, float, float]:
    """The mean per game and its 95% interval, from a sum per deal over ``seats`` games (wins
    0..seats, or a paired difference of wins): a normal interval over deals, whose games
    are played together (mirrored) and so not independent."""
    deals = len(wins)
    mean = float(wins.mean()) / seats if deals else math.nan
    half = Z95 * float(wins.std(ddof=1)) / math.sqrt(deals) / seats if deals > 1 else math.nan
    return mean, mean - half, mean + half


def strength_table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The strength table of the saved per-deal results (module docstring)."""
    start = {(r["table"], r["opponent"]): np.asarray(r["wins"]) for r in rows
             if r["round"] == 0}
    out = []
    for r in rows:
        wins = np.asarray(r["wins"], np.int64)
        rate, low, high = deal_interval(wins, r["seats"])
        low, high = max(0.0, low), min(1.0, high)
        row = {"round": r["round"], "player": r["player"], "table": r["table"],
               "opponent": r["opponent"], "games": len(wins) * r["seats"],
               "win_rate": rate, "low": low, "high": high,
               "knocks_per_hand": r["knocks"] / max(1, r["hands"]),
               "gins_per_hand": r["gins"] / max(1, r["hands"]), "strategy": r["strategy"]}
        base = start.get((r["table"], r["opponent"]))
        if base is not None and r["round"] > 0 and len(base) == len(wins):
            diff, low, high = deal_interval(wins - base, r["seats"])
            row.update(vs_start=diff, vs_start_low=low, vs_start_high=high)
        out.append(row)
    return pd.DataFrame(out)


def write_report(out: Path) -> Any:
    """Collect every round's curve and strength into ``curve.csv``, ``strength.csv``,
    ``curve.png`` and ``report.md`` (atomically); return the
    :class:`sim.learn.loop.TrainingResult`."""
    from sim.learn.loop import SPEC_FILE, TrainingResult, round_dir
    from sim.learn.spec import load_training

    spec = load_training(json.loads((out / SPEC_FILE).read_text()))
    curves, rows = [], []
    for r in range(0, spec.rounds + 1):
        folder = round_dir(out, r)
        if (folder / "curve.csv").is_file():
            curves.append(pd.read_csv(folder / "curve.csv"))
        if (folder / "strength.json").is_file():
            rows.extend(json.loads((folder / "strength.json").read_text()))
    curve = pd.concat(curves, ignore_index=True) if curves else pd.DataFrame()
    strength = strength_table(rows) if rows else pd.DataFrame()
    atomic_write_text(out / "curve.csv", curve.to_csv(index=False))
    atomic_write_text(out / "strength.csv", strength.to_csv(index=False))
    if len(curve):
        _plot(curve, out / "curve.png")
    atomic_write_text(out / "report.md", _markdown(spec, curve, strength))
    return TrainingResult(out, spec, curve, strength)


def _plot(curve: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5), layout="constrained")
    x = np.arange(1, len(curve) + 1)
    axes[0].plot(x, curve["train_loss"], label="training loss")
    axes[0].plot(x, curve["valid_total"], label="held-out loss")
    axes[1].plot(x, curve["valid_agreement"], label="agrees with the expert (held out)")
    for ax in axes:
        ax.set_xlabel("epoch (all rounds)")
        ax.legend()
    atomic_write(path, lambda p: fig.savefig(p, format="png", dpi=110))
    plt.close(fig)


def _markdown(spec: Any, curve: pd.DataFrame, strength: pd.DataFrame) -> str:
    lines = [f"# Training {spec.name}", "", f"{spec.rounds} rounds of {spec.games:,} self-play "
             f"games per table ({', '.join(spec.tables)}), seed {spec.seed}; strength on "
             f"{spec.evaluate_games:,} held-out deals of seed {spec.evaluate_seed}, mirrored.",
             "", "## Strength by round", ""]
    if len(strength):
        lines += ["| round | player | table | opponent | games | won (95% interval) | "
                  "vs round 0 | knocks/hand | gins/hand |", "|---|---|---|---|---|---|---|---|---|"]
        for _, r in strength.iterrows():
            vs = "" if pd.isna(r.get("vs_start", np.nan)) else (
                f"{r['vs_start']:+.1%} ({r['vs_start_low']:+.1%} to {r['vs_start_high']:+.1%})")
            lines.append(f"| {r['round']} | {r['player']} | {r['table']} | {r['opponent']} | "
                         f"{r['games']:,} | {r['win_rate']:.1%} ({r['low']:.1%} to "
                         f"{r['high']:.1%}) | {vs} | {r['knocks_per_hand']:.3f} | "
                         f"{r['gins_per_hand']:.3f} |")
    lines += ["", "## Learning curve (held-out positions)", ""]
    if len(curve):
        lines += ["| round | epoch | training loss | held-out loss | agrees with the expert | "
                  "game Brier |", "|---|---|---|---|---|---|"]
        for _, r in curve.iterrows():
            lines.append(f"| {int(r['round'])} | {int(r['epoch'])} | {r['train_loss']:.4f} | "
                         f"{r['valid_total']:.4f} | {r['valid_agreement']:.1%} | "
                         f"{r['valid_game_brier']:.4f} |")
    return "\n".join(lines) + "\n"
