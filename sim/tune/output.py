"""What a tune leaves behind: the learning curve (CSV, PNG), the tuned name, the summary.

Every file is written atomically (:mod:`sim.records.files`), so a reader sees the old file or
the new one. The headline the command prints says the **held-out** figures (games never used
in the search), never the training ones, which are biased upwards by the selection.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from sim.analysis.plots import save
from sim.analysis.statistics import Z95, wilson
from sim.records.files import atomic_write, atomic_write_text
from sim.tune.evaluate import PairCounts
from sim.tune.spec import TuneSpec

FILES: tuple[str, ...] = ("learning_curve.csv", "learning_curve.png", "tuned.txt",
                          "summary.json")
CURVE_COLUMNS: tuple[str, ...] = (
    "generation", "first_game", "games", "candidates", "distinct", "best", "best_wins",
    "best_win_rate", "best_low", "best_high", "mean_win_rate", "mean_low", "mean_high",
    "incumbent", "incumbent_wins", "incumbent_win_rate", "incumbent_low", "incumbent_high",
    "sigma", "seconds",
)


def holdout_summary(counts: PairCounts, first_game: int) -> dict[str, Any]:
    """Held-out win rates of the tuned strategy (a) and the baseline (b), Wilson intervals,
    and the paired difference a - b with its normal interval from per-game differences."""
    n = counts.games
    tuned_low, tuned_high = wilson(counts.a_wins, n)
    base_low, base_high = wilson(counts.b_wins, n)
    diff = (counts.a_wins - counts.b_wins) / n
    sd, sdd = counts.a_only - counts.b_only, counts.a_only + counts.b_only
    var = max(sdd - sd * sd / n, 0.0) / (n - 1) if n > 1 else math.nan
    half = Z95 * math.sqrt(var / n) if n > 1 else math.nan
    return {"games": n, "first_game": first_game, "tuned_wins": counts.a_wins,
            "tuned_win_rate": counts.a_wins / n, "tuned_low": tuned_low,
            "tuned_high": tuned_high, "baseline_wins": counts.b_wins,
            "baseline_win_rate": counts.b_wins / n, "baseline_low": base_low,
            "baseline_high": base_high, "difference": diff, "difference_low": diff - half,
            "difference_high": diff + half, "tuned_only": counts.a_only,
            "baseline_only": counts.b_only}


@dataclass
class TuneResult:
    """A finished tune: the spec, the learning curve rows, the tuned values and the held-out
    check (None when ``holdout_games`` is 0)."""

    out: Path
    spec: TuneSpec
    history: list[dict[str, Any]]
    values: tuple[int, ...]
    holdout: dict[str, Any] | None
    seconds: float

    @property
    def tuned(self) -> str:
        """The tuned strategy, ready to use: ``discard-tracking:knock_at=3,slack=2``."""
        return self.spec.strategy_text(self.values)

    @property
    def params(self) -> dict[str, int]:
        return {p.name: v for p, v in zip(self.spec.infos, self.values, strict=True)}

    def curve(self) -> pd.DataFrame:
        """The learning curve, one row per generation."""
        return pd.DataFrame([{k: row.get(k) for k in CURVE_COLUMNS} for row in self.history],
                            columns=list(CURVE_COLUMNS))

    def summary(self) -> dict[str, Any]:
        spec = self.spec
        return {"name": spec.name, "spec": spec.to_dict(), "tuned": self.tuned,
                "params": self.params, "baseline": spec.baseline,
                "start": spec.strategy_text(spec.start()), "field": list(spec.field),
                "rules": spec.resolved_rules.to_dict(), "generations": len(self.history),
                "training_games": sum(r["games"] * r["distinct"] for r in self.history),
                "holdout": self.holdout, "seconds": self.seconds}

    def headline(self) -> str:
        """The text the command prints: the tuned name and the held-out comparison."""
        spec = self.spec
        players = len(spec.field) + 1
        lines = [f"{spec.name}: {spec.strategy} against {', '.join(spec.field)} "
                 f"({spec.rules}, {players} players, seats rotated), "
                 f"{len(self.history)} generations of {self.history[-1]['candidates']} "
                 f"candidates x {spec.games_per_candidate:,} games",
                 "", f"tuned: {self.tuned}"]
        h = self.holdout
        if h is None:
            lines.append("no held-out games (holdout_games = 0): the result is unconfirmed")
            return "\n".join(lines)
        width = max(len(self.tuned), len(spec.baseline))
        lines += [
            "",
            f"held-out games (never used in the search): {h['games']:,}, fair share "
            f"{1 / players:.1%}",
            f"  tuned     {self.tuned:<{width}}  {_rate(h, 'tuned')}",
            f"  baseline  {spec.baseline:<{width}}  {_rate(h, 'baseline')}",
            f"  difference (paired)  {h['difference']:+.1%}  95% CI "
            f"{h['difference_low']:+.1%} .. {h['difference_high']:+.1%}"
            + ("  (better)" if h["difference_low"] > 0 else
               "  (worse)" if h["difference_high"] < 0 else "  (not distinguishable)"),
        ]
        return "\n".join(lines)


def _rate(h: dict[str, Any], who: str) -> str:
    return (f"{h[who + '_win_rate']:6.1%}  95% CI {h[who + '_low']:.1%} - "
            f"{h[who + '_high']:.1%}")


def plot_curve(result: TuneResult) -> Any:
    """Win rate by generation: best candidate, population mean and incumbent, with their
    Wilson intervals, the fair share, and the held-out result at the end."""
    curve = result.curve()
    fig = Figure(figsize=(7.5, 4.2), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    g = curve["generation"].to_numpy() + 1
    for key, label, color in (("best", "best candidate", "tab:green"),
                              ("mean", "population mean", "tab:grey"),
                              ("incumbent", "incumbent (distribution mean)", "tab:blue")):
        ax.plot(g, curve[f"{key}_win_rate"], marker="o", ms=3, color=color, label=label)
        ax.fill_between(g, curve[f"{key}_low"].astype(float),
                        curve[f"{key}_high"].astype(float), color=color, alpha=0.15, lw=0)
    players = len(result.spec.field) + 1
    ax.axhline(1 / players, color="black", lw=0.8, ls=":", label="fair share")
    h = result.holdout
    if h is not None:
        x = g[-1] + 1 if len(g) else 1
        for who, color, marker in (("tuned", "tab:red", "D"), ("baseline", "black", "s")):
            v = h[f"{who}_win_rate"]
            ax.errorbar([x], [v], yerr=[[v - h[f"{who}_low"]], [h[f"{who}_high"] - v]],
                        color=color, marker=marker, capsize=3,
                        label=f"held-out: {who}")
    ax.set_xlabel("generation (held-out check after the last)")
    ax.set_ylabel("game win rate")
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_title(f"{result.spec.name}: tuning {result.spec.base.name}", fontsize=10)
    ax.legend(fontsize=7, loc="best")
    ax.grid(alpha=0.3)
    return fig


def write_outputs(result: TuneResult) -> list[Path]:
    """Write the learning curve (CSV, PNG), ``tuned.txt`` and ``summary.json`` into the
    tune's folder, each atomically."""
    out = result.out
    atomic_write(out / "learning_curve.csv",
                 lambda tmp: result.curve().to_csv(tmp, index=False, float_format="%.6g"))
    save(plot_curve(result), out / "learning_curve.png")
    atomic_write_text(out / "tuned.txt", result.tuned + "\n")
    atomic_write_text(out / "summary.json",
                      json.dumps(result.summary(), indent=2, default=_plain) + "\n")
    return [out / name for name in FILES]


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    return str(value)


__all__ = ["CURVE_COLUMNS", "FILES", "TuneResult", "holdout_summary", "plot_curve",
           "write_outputs"]
