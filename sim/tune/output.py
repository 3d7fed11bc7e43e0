"""What a tune leaves behind: the learning curve (CSV, PNG), the tuned name, the summary.

Every file is written atomically (:mod:`sim.io.files`), so a reader sees the old file or
the new one. The headline the command prints says the **held-out** figures (games never used
in the search), never the training ones, which are biased upwards by the selection. A tune
against a mix of fields reports the objective (their weighted mean) and every field's own
figures beside it: a gain against one field bought with a loss against another shows.
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
from sim.io.files import atomic_write, atomic_write_text
from sim.tune.evaluate import PairCounts
from sim.tune.spec import HOLDOUT_FIRST_GAME, TuneSpec

FILES: tuple[str, ...] = ("learning_curve.csv", "learning_curve.png", "tuned.txt",
                          "summary.json")
CURVE_COLUMNS: tuple[str, ...] = (
    "generation", "first_game", "games", "candidates", "distinct", "best", "best_wins",
    "best_win_rate", "best_low", "best_high", "mean_win_rate", "mean_low", "mean_high",
    "incumbent", "incumbent_wins", "incumbent_win_rate", "incumbent_low", "incumbent_high",
    "sigma", "seconds",
)
FIELD_COLORS: tuple[str, ...] = ("tab:orange", "tab:purple", "tab:brown", "tab:pink",
                                 "tab:olive", "tab:cyan")


def field_columns(fields: int) -> list[str]:
    """The learning curve's extra columns for a mix: per field ``i`` (from 1), the best
    candidate's, the population's and the incumbent's wins, win rate and Wilson interval."""
    return [f"field{i}_{who}_{what}" for i in range(1, fields + 1)
            for who in ("best", "mean", "incumbent")
            for what in ("wins", "win_rate", "low", "high")]


def field_label(field: tuple[str, ...] | list[str]) -> str:
    """A field as text: its strategies joined by ``+``."""
    return " + ".join(field)


def _difference_half(counts: PairCounts) -> float:
    """Half the 95% normal interval of the paired difference, from per-game differences."""
    n = counts.games
    sd, sdd = counts.a_only - counts.b_only, counts.a_only + counts.b_only
    var = max(sdd - sd * sd / n, 0.0) / (n - 1) if n > 1 else math.nan
    return Z95 * math.sqrt(var / n) if n > 1 else math.nan


def holdout_summary(counts: PairCounts, first_game: int) -> dict[str, Any]:
    """Held-out win rates of the tuned strategy (a) and the baseline (b), Wilson intervals,
    and the paired difference a - b with its normal interval from per-game differences."""
    n = counts.games
    tuned_low, tuned_high = wilson(counts.a_wins, n)
    base_low, base_high = wilson(counts.b_wins, n)
    diff = (counts.a_wins - counts.b_wins) / n
    half = _difference_half(counts)
    return {"games": n, "first_game": first_game, "tuned_wins": counts.a_wins,
            "tuned_win_rate": counts.a_wins / n, "tuned_low": tuned_low,
            "tuned_high": tuned_high, "baseline_wins": counts.b_wins,
            "baseline_win_rate": counts.b_wins / n, "baseline_low": base_low,
            "baseline_high": base_high, "difference": diff, "difference_low": diff - half,
            "difference_high": diff + half, "tuned_only": counts.a_only,
            "baseline_only": counts.b_only}


def mixed_holdout(spec: TuneSpec, counts: list[PairCounts]) -> dict[str, Any]:
    """The held-out check of a mix: every field's :func:`holdout_summary` (with the field and
    its weight) under ``fields``, and the objective's figures (weighted means) at the top.
    The fields' deals are independent, so the objective's intervals combine theirs as
    independent errors (Wilson intervals for the rates, paired ones for the difference)."""
    parts = [{"field": list(f), "weight": w, **holdout_summary(c, HOLDOUT_FIRST_GAME)}
             for f, w, c in zip(spec.fields, spec.weights, counts, strict=True)]
    shares = [w / sum(spec.weights) for w in spec.weights]
    n = spec.holdout_games
    out: dict[str, Any] = {"games": n, "first_game": HOLDOUT_FIRST_GAME}
    for who, key in (("tuned", "a_wins"), ("baseline", "b_wins")):
        wins = [getattr(c, key) for c in counts]
        rate = float(spec.objective(wins, n))
        if len(parts) == 1:  # one field: its own (Wilson) interval
            out.update({k: parts[0][k] for k in (f"{who}_win_rate", f"{who}_low",
                                                 f"{who}_high")})
            continue
        half = Z95 * math.sqrt(sum((s * (p[f"{who}_high"] - p[f"{who}_low"]) / (2 * Z95)) ** 2
                                   for s, p in zip(shares, parts, strict=True)))
        out.update({f"{who}_win_rate": rate, f"{who}_low": max(rate - half, 0.0),
                    f"{who}_high": min(rate + half, 1.0)})
    diff = float(spec.objective([c.a_wins for c in counts], n)
                 - spec.objective([c.b_wins for c in counts], n))
    half = (_difference_half(counts[0]) if len(counts) == 1 else
            math.sqrt(sum((s * _difference_half(c)) ** 2
                          for s, c in zip(shares, counts, strict=True))))
    out.update({"difference": diff, "difference_low": diff - half,
                "difference_high": diff + half, "fields": parts})
    return out


def best_measured(history: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The best strategy the search measured: the candidate or incumbent with the highest
    training objective in any generation (the first on a tie), with its generation (from 1),
    win rate and Wilson interval. Biased upwards by the selection: the held-out check says
    what it is worth."""
    best: dict[str, Any] | None = None
    for row in history:
        for who in ("best", "incumbent"):
            rate = float(row[f"{who}_win_rate"])
            if best is None or rate > best["win_rate"]:
                best = {"strategy": row[who], "values": [int(v) for v in row[f"{who}_values"]],
                        "generation": int(row["generation"]) + 1, "win_rate": rate,
                        "low": float(row[f"{who}_low"]), "high": float(row[f"{who}_high"])}
    return best


@dataclass
class TuneResult:
    """A finished tune: the spec, the learning curve rows, the tuned values and the held-out
    check (None when ``holdout_games`` is 0). ``mean`` is the search distribution's mean
    after the last generation, ``best`` the best strategy it measured
    (:func:`best_measured`); the tuned values are the better of the two on the held-out
    games (the mean without them)."""

    out: Path
    spec: TuneSpec
    history: list[dict[str, Any]]
    values: tuple[int, ...]
    holdout: dict[str, Any] | None
    seconds: float
    mean: tuple[int, ...] | None = None
    best: dict[str, Any] | None = None

    @property
    def tuned(self) -> str:
        """The tuned strategy, ready to use: ``discard-tracking:knock_at=3,slack=2``."""
        return self.spec.strategy_text(self.values)

    @property
    def params(self) -> dict[str, int]:
        return {p.name: v for p, v in zip(self.spec.infos, self.values, strict=True)}

    @property
    def kept(self) -> str:
        """Which strategy the result is: ``"mean"`` or ``"best measured"``."""
        return str((self.holdout or {}).get("kept", "mean"))

    @property
    def warnings(self) -> list[str]:
        """One line per reason not to adopt the result: it did worse than the strategy as
        written on the held-out games (significantly or not); or, with no held-out games to
        compare them, the search measured a strategy clearly better (Wilson intervals apart)
        than its distribution mean's last measurement."""
        out = []
        h = self.holdout
        if h is not None and h["difference"] < 0:
            how = ("worse than" if h["difference_high"] < 0
                   else "not better than (the interval includes no difference)")
            out.append(f"WARNING: the tuned strategy is {how} the strategy as written on the "
                       f"held-out games ({h['difference']:+.1%}, 95% CI "
                       f"{h['difference_low']:+.1%} .. {h['difference_high']:+.1%}): keep "
                       f"{self.spec.baseline}")
        best, last = self.best, self.history[-1] if self.history else None
        if h is None and best is not None and last is not None and \
                best["strategy"] != self.tuned and best["low"] > last["incumbent_high"]:
            out.append(f"WARNING: the result is unchecked (holdout_games = 0) and the search "
                       f"measured a better strategy: {best['strategy']}, "
                       f"{_interval(best)} in generation {best['generation']}, against "
                       f"{_interval(last, 'incumbent_')} for the distribution's mean in the "
                       "last generation; set holdout_games to compare them on games the "
                       "search never saw")
        return out

    @property
    def warning(self) -> str | None:
        """:attr:`warnings` as one text (None when there is none)."""
        return "\n".join(self.warnings) or None

    def result_note(self) -> str:
        """Which strategy the result is and why: the search distribution's mean after the last
        generation (cma's estimate of the best under noise) or the best strategy the search
        measured, whichever did better on the held-out games; the other one is named."""
        mean = self.spec.strategy_text(self.mean) if self.mean is not None else self.tuned
        best = self.best
        found = (f"{best['strategy']}: {_interval(best)} in generation {best['generation']}"
                 if best is not None else None)
        if self.kept == "best measured" and best is not None:
            return (f"the result: the best strategy the search measured, "
                    f"{_interval(best)} in generation {best['generation']}; on the held-out "
                    "games it did better than the search distribution's mean after the last "
                    f"generation, {mean}")
        note = ("the result: the search distribution's mean after the last generation (cma's "
                "estimate of the best under noise)")
        last = self.history[-1]["incumbent"] if self.history else None
        if last is not None and last != self.tuned:
            note += f"; the last progress line's incumbent, {last}, is the mean before it"
        if best is not None and best["strategy"] == self.tuned:
            note += "; it is also the best strategy the search measured"
        elif found is not None:
            checked = ("on the held-out games it did better than the best strategy the search "
                       if self.holdout is not None else "unchecked against the best the search ")
            note += f"; {checked}measured, {found}"
        return note

    def curve(self) -> pd.DataFrame:
        """The learning curve, one row per generation. Against a mix the rates are the
        objective's (``*_wins`` summed over the fields), followed by every field's own columns
        (:func:`field_columns`)."""
        columns = list(CURVE_COLUMNS)
        rows = [{k: row.get(k) for k in CURVE_COLUMNS} for row in self.history]
        if self.spec.mixed:
            columns += field_columns(len(self.spec.fields))
            for out, row in zip(rows, self.history, strict=True):
                for i in range(len(self.spec.fields)):
                    for who in ("best", "mean", "incumbent"):
                        k = row[f"{who}_field_wins"][i]
                        n = row["games"] * (row["candidates"] if who == "mean" else 1)
                        low, high = wilson(k, n)
                        out.update({f"field{i + 1}_{who}_wins": k,
                                    f"field{i + 1}_{who}_win_rate": k / n,
                                    f"field{i + 1}_{who}_low": low,
                                    f"field{i + 1}_{who}_high": high})
        return pd.DataFrame(rows, columns=columns)

    def summary(self) -> dict[str, Any]:
        spec = self.spec
        against: dict[str, Any] = (
            {"fields": [list(f) for f in spec.fields], "weights": list(spec.weights)}
            if spec.mixed else {"field": list(spec.field)})
        return {"name": spec.name, "spec": spec.to_dict(), "tuned": self.tuned,
                "params": self.params, "kept": self.kept,
                "mean": spec.strategy_text(self.mean) if self.mean is not None else None,
                "best_measured": self.best, "baseline": spec.baseline,
                "start": spec.strategy_text(spec.start()), **against,
                "rules": spec.resolved_rules.to_dict(), "generations": len(self.history),
                "training_games": sum(r["games"] * r["distinct"] for r in self.history)
                * len(spec.fields),
                "result": self.result_note(), "holdout": self.holdout,
                "warning": self.warning, "warnings": self.warnings, "seconds": self.seconds}

    def headline(self) -> str:
        """The text the command prints: the tuned name and the held-out comparison (for a mix,
        the objective's and every field's)."""
        spec = self.spec
        players = len(spec.fields[0]) + 1
        against = (f"a mix of {len(spec.fields)} fields" if spec.mixed
                   else ", ".join(spec.field))
        lines = [f"{spec.name}: {spec.strategy} against {against} "
                 f"({spec.rules}, {players} players, seats rotated), "
                 f"{len(self.history)} generations of {self.history[-1]['candidates']} "
                 f"candidates x {spec.games_per_candidate:,} games"
                 + (" per field" if spec.mixed else "")]
        if spec.mixed:
            lines += [f"  field {i + 1}: {field_label(f)}  (weight {w:g})"
                      for i, (f, w) in enumerate(zip(spec.fields, spec.weights, strict=True))]
        lines += ["", f"tuned: {self.tuned}", f"  ({self.result_note()})"]
        h = self.holdout
        if h is None:
            lines.append("no held-out games (holdout_games = 0): the result is unconfirmed")
            return "\n".join([*lines, *([""] if self.warnings else []), *self.warnings])
        width = max(len(self.tuned), len(spec.baseline))
        lines += [
            "",
            f"held-out games (never used in the search): {h['games']:,}"
            + (" per field" if spec.mixed else "") + f", fair share {1 / players:.1%}",
        ]
        if spec.mixed:
            lines.append("objective (weighted mean win rate):")
        other = h.get("not_kept")
        if other is not None:
            width = max(width, len(other["strategy"]))
        lines += [
            f"  tuned     {self.tuned:<{width}}  {_rate(h, 'tuned')}",
            f"  baseline  {spec.baseline:<{width}}  {_rate(h, 'baseline')}",
            _difference(h),
        ]
        if other is not None:
            what = "the distribution's mean" if self.kept != "mean" else "the best measured"
            lines += [f"  not kept  {other['strategy']:<{width}}  {_rate(other, 'tuned')}  "
                      f"({what})",
                      f"  tuned minus not kept (paired)  {other['kept_minus']:+.1%}  95% CI "
                      f"{other['kept_minus_low']:+.1%} .. {other['kept_minus_high']:+.1%}"]
        for i, part in enumerate(h.get("fields", [])):
            lines += [f"field {i + 1}: {field_label(part['field'])}",
                      f"  tuned     {_rate(part, 'tuned')}",
                      f"  baseline  {_rate(part, 'baseline')}",
                      _difference(part)]
        if self.warnings:
            lines += ["", *self.warnings]
        return "\n".join(lines)


def _difference(h: dict[str, Any]) -> str:
    return (f"  difference (paired)  {h['difference']:+.1%}  95% CI "
            f"{h['difference_low']:+.1%} .. {h['difference_high']:+.1%}"
            + ("  (better)" if h["difference_low"] > 0 else
               "  (worse)" if h["difference_high"] < 0 else "  (not distinguishable)"))


def _interval(h: dict[str, Any], prefix: str = "") -> str:
    """``63.0% (61.5% - 64.5%)``: a training win rate and its Wilson interval."""
    return (f"{h[prefix + 'win_rate']:.1%} ({h[prefix + 'low']:.1%} - "
            f"{h[prefix + 'high']:.1%})")


def _rate(h: dict[str, Any], who: str) -> str:
    return (f"{h[who + '_win_rate']:6.1%}  95% CI {h[who + '_low']:.1%} - "
            f"{h[who + '_high']:.1%}")


def plot_curve(result: TuneResult) -> Any:
    """Win rate by generation: best candidate, population mean and incumbent, with their
    Wilson intervals, the best strategy measured (a star), the fair share, and the held-out
    results at the end (the strategy not kept, when one was, as an open diamond)."""
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
    if result.spec.mixed:
        for i, f in enumerate(result.spec.fields):
            ax.plot(g, curve[f"field{i + 1}_incumbent_win_rate"], ls="--", lw=1,
                    color=FIELD_COLORS[i % len(FIELD_COLORS)],
                    label=f"incumbent against {field_label(f)}")
    if result.best is not None:
        ax.plot([result.best["generation"]], [result.best["win_rate"]], marker="*", ms=11,
                color="tab:green", ls="none", label="best measured")
    players = len(result.spec.fields[0]) + 1
    ax.axhline(1 / players, color="black", lw=0.8, ls=":", label="fair share")
    h = result.holdout
    if h is not None:
        x = g[-1] + 1 if len(g) else 1
        for who, color, marker in (("tuned", "tab:red", "D"), ("baseline", "black", "s")):
            v = h[f"{who}_win_rate"]
            ax.errorbar([x], [v], yerr=[[v - h[f"{who}_low"]], [h[f"{who}_high"] - v]],
                        color=color, marker=marker, capsize=3,
                        label=f"held-out: {who}")
        other = h.get("not_kept")
        if other is not None:
            v = other["tuned_win_rate"]
            ax.errorbar([x - 0.15], [v], yerr=[[v - other["tuned_low"]], [other["tuned_high"] - v]],
                        color="tab:gray", marker="D", mfc="white", capsize=3,
                        label="held-out: the other, not kept")
        for i, part in enumerate(h.get("fields", [])):
            color = FIELD_COLORS[i % len(FIELD_COLORS)]
            for who, marker in (("tuned", "D"), ("baseline", "s")):
                v = part[f"{who}_win_rate"]
                first = i == 0 and who == "tuned"
                ax.errorbar([x + 0.15 * (i + 1)], [v], color=color, marker=marker, capsize=2,
                            yerr=[[v - part[f"{who}_low"]], [part[f"{who}_high"] - v]],
                            mfc=color if who == "tuned" else "white", ms=4,
                            label="held-out per field: tuned (filled), baseline (open)"
                            if first else None)
    ax.set_xlabel("generation (held-out check after the last)")
    ax.set_ylabel("objective: weighted mean win rate" if result.spec.mixed
                  else "game win rate")
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_title(f"{result.spec.name}: tuning {result.spec.base.name}", fontsize=10)
    ax.legend(fontsize=7, loc="best")
    ax.grid(alpha=0.3)
    return fig


def write_outputs(result: TuneResult) -> list[Path]:
    """Write the learning curve (CSV, PNG), ``tuned.txt`` and ``summary.json`` into the
    tune's folder, each atomically. ``tuned.txt`` is the tuned strategy's name on one line,
    followed by a ``#`` line for each warning (:attr:`TuneResult.warnings`)."""
    out = result.out
    atomic_write(out / "learning_curve.csv",
                 lambda tmp: result.curve().to_csv(tmp, index=False, float_format="%.6g"))
    save(plot_curve(result), out / "learning_curve.png")
    warnings = "".join(f"# {w}\n" for w in result.warnings)
    atomic_write_text(out / "tuned.txt", result.tuned + "\n" + warnings)
    atomic_write_text(out / "summary.json",
                      json.dumps(result.summary(), indent=2, default=_plain) + "\n")
    return [out / name for name in FILES]


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    return str(value)


__all__ = ["CURVE_COLUMNS", "FILES", "TuneResult", "best_measured", "field_columns",
           "field_label",
           "holdout_summary", "mixed_holdout", "plot_curve", "write_outputs"]
