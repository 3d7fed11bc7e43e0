"""Reports: every table of a run, the study sections that apply, as text, markdown, CSV and PNG.

:func:`report` computes all tables of a run (from the per-game rows the runner stored, never
by replaying games) into a :class:`Report`, which prints the headline and writes report.md,
one CSV per table and the plots. The pieces live in modules of one idea each, and this module
re-exports their public names, so ``from sim.analysis.report import win_rates`` keeps working:

* :mod:`sim.analysis.statistics`: :func:`wilson`, :data:`Z95` and the interval estimators;
* :mod:`sim.analysis.runs`: :class:`Arm`, :func:`arms_of`, reading a run chunk by chunk;
* :mod:`sim.analysis.tables`: :func:`win_rates`, :func:`seat_win_rates`,
  :func:`box_retention`, :func:`box_runs`, :func:`hand_outcomes`;
* :mod:`sim.analysis.comparisons`: :data:`METRICS`, :func:`paired_difference`,
  :func:`rule_comparisons`, :func:`gin_bonus_study`;
* :mod:`sim.analysis.sweeps`: :func:`knock_sweep`, :func:`knock_sweep_summary`;
* :mod:`sim.analysis.formatting`: numbers and tables as text.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from sim.analysis.comparisons import (
    HEADLINE_METRICS,
    METRICS,
    MIN_DISCORDANT,
    PAIRED_COLUMNS,
    Metric,
    comparisons_table,
    gin_bonus_study,
    paired_difference,
    paired_verdict,
    rule_comparisons,
)
from sim.analysis.formatting import (
    fmt_diff,
    fmt_interval,
    fmt_num,
    fmt_pct,
    md_table,
    pct_digits,
    plural,
    text_table,
)
from sim.analysis.runs import Arm, arms_of, games_per_arm, open_run
from sim.analysis.statistics import Z95, wilson
from sim.analysis.sweeps import SweepDesign, knock_sweep, knock_sweep_summary, sweep_design
from sim.analysis.tables import (
    ROLES,
    box_retention,
    box_runs,
    forfeits,
    hand_outcomes,
    hollywood_matches,
    pool_box,
    seat_win_rates,
    win_rates,
)
from sim.io.files import MARKER, atomic_paths, written_files
from sim.runs.storage import RunResult

_verdict = paired_verdict  # its name before the split, which the tests use

#: Every file a report may write; of these, those the directory's marker lists as written by
#: an earlier report are removed when their section no longer applies.
REPORT_FILES: tuple[str, ...] = (
    "report.md", "win_rates.csv", "seat_win_rates.csv", "box_retention.csv",
    "box_retention_pooled.csv", "box_runs.csv", "hand_outcomes.csv", "comparisons.csv",
    "knock_sweep.csv", "hollywood.csv",
    "win_rates.png", "box_retention.png", "comparisons.png", "knock_sweep.png",
)



def _write_csv(df: pd.DataFrame, path: Path) -> None:
    """One report table as CSV (the report's writers take the path last)."""
    df.to_csv(path, index=False)

@dataclass
class Report:
    """Every table of a run, the study sections that apply, and their text and plot views.

    Attributes are the DataFrames: ``win_rates``, ``seat_win_rates``, ``box_retention`` (per
    arm),
    ``box_retention_pooled`` (arms with the same rules summed), ``box_runs``,
    ``hand_outcomes``, ``comparisons`` (paired differences between arms that differ only in
    their rules; empty when there are none; the gin bonus study when only gin_bonus differs)
    ``knock_sweep`` (None unless the arms sweep knock_at) and ``hollywood`` (matches won,
    games won and points per match; None unless an arm uses Hollywood scoring).
    """

    result: RunResult
    win_rates: pd.DataFrame
    seat_win_rates: pd.DataFrame
    box_retention: pd.DataFrame
    box_retention_pooled: pd.DataFrame
    box_runs: pd.DataFrame
    hand_outcomes: pd.DataFrame
    comparisons: pd.DataFrame
    knock_sweep: pd.DataFrame | None
    sweep: SweepDesign | None = None
    arms: list[Arm] = field(default_factory=list)
    hollywood: pd.DataFrame | None = None  # arms under Hollywood scoring, else None
    forfeits: pd.DataFrame | None = None  # games a player's fault ended, if any

    # ----------------------------------------------------------------- facts of the run

    @property
    def name(self) -> str:
        """The experiment's name."""
        return str(self.result.manifest["spec"]["name"])

    @property
    def games(self) -> int:
        """Games per arm."""
        return games_per_arm(self.result)

    @property
    def seed(self) -> int:
        """The experiment seed."""
        return int(self.result.manifest["seed"])

    @property
    def what(self) -> str:
        """What was run, for titles: name, games, seed."""
        arms = len(self.arms)
        per = plural(self.games, "game") + (f" per arm x {arms} arms" if arms > 1 else "")
        return f"{self.name}: {per}, seed {self.seed}"

    @property
    def comparison_kind(self) -> str | None:
        """``gin_bonus`` when every compared pair differs only in gin_bonus, ``rules``, None."""
        if self.comparisons.empty:
            return None
        changes = set(self.comparisons["change"])
        return "gin_bonus" if all(c.startswith("gin_bonus ") and ";" not in c
                                  for c in changes) else "rules"

    # ------------------------------------------------------------------------ text views

    def headline(self) -> str:
        """The game win-rate table as text (what ``ginbox run`` and ``ginbox report`` print),
        followed by one line per study section that applies."""
        df = self.win_rates
        many = df["arm"].nunique() > 1
        rows = []
        for r in df.itertuples():
            rows.append(([r.arm_name] if many else []) + [
                r.strategy, str(r.seats), f"{r.games:,}", f"{r.wins:,}",
                fmt_pct(r.win_rate, pct_digits(r.ci_low, r.ci_high)),
                fmt_interval(r.ci_low, r.ci_high),
                fmt_pct(r.fair_share), r.vs_fair_share])
        header = (["arm"] if many else []) + ["strategy", "seats", "games", "wins", "win rate",
                                              "95% CI", "fair share", "vs fair share"]
        off = 1 if many else 0
        lines = [f"{self.what} - game win rates", "",
                 text_table(rows, header, {off + 1, off + 2, off + 3, off + 4, off + 5,
                                           off + 6})]
        if self.forfeits is not None:
            lines += ["", self._forfeits_line()]
        if self.knock_sweep is not None:
            lines += ["", "Knock sweep: " + knock_sweep_summary(self.knock_sweep)]
        if self.hollywood is not None:
            lines += ["", "Hollywood scoring (a game above is a match of three), per match:"]
            lines += ["  " + self._hollywood_line(r) for r in self.hollywood.itertuples()]
        if not self.comparisons.empty:
            kind = "Gin bonus" if self.comparison_kind == "gin_bonus" else "Rule comparison"
            lines += ["", f"{kind}, paired differences (all metrics in comparisons.csv):"]
            rows = self.comparisons[self.comparisons["metric"].isin(HEADLINE_METRICS)]
            for r in rows.itertuples():
                lines.append("  " + self._comparison_line(r))
        return "\n".join(lines)

    def _forfeits_line(self) -> str:
        """The games a player's fault ended, counted apart (they are in the wins above, for
        the side awarded them)."""
        assert self.forfeits is not None
        parts = ", ".join(f"{r.arm_name} seat {r.seat} ({r.strategy}) {r.forfeits:,}"
                          for r in self.forfeits.itertuples())
        return (f"Forfeits: {plural(int(self.forfeits['forfeits'].sum()), 'game')} ended by a "
                f"player's fault, each won by the other side: {parts}. The hand log says why "
                "(ended_by).")

    @staticmethod
    def _comparison_line(r: Any) -> str:
        m = METRICS[r.metric]
        diff, ci = fmt_diff(r.diff, r.ci_low, r.ci_high, m.percent)
        who = "" if r.strategy == "all" else f" of {r.strategy}"
        unit = "" if m.percent or m.unit == m.label else f" {m.unit}"
        return (f"{r.arm_b_name} vs {r.arm_a_name}: {m.label}{who} {diff}{unit} "
                f"(95% CI {ci}, {r.games:,} paired games): {r.verdict}")

    @staticmethod
    def _hollywood_line(r: Any) -> str:
        return (f"{r.arm_name}: {r.strategy} games won {fmt_num(r.games_won_per_match, 3)} of 3 "
                f"({fmt_interval(r.games_won_ci_low, r.games_won_ci_high, percent=False, digits=3)}"
                f"), points {fmt_num(r.points_per_match, 1)} ("
                f"{fmt_interval(r.points_ci_low, r.points_ci_high, percent=False, digits=1)})")

    def tables(self) -> dict[str, pd.DataFrame]:
        """The tables this report holds, by CSV name (study tables only when they apply)."""
        out = {"win_rates": self.win_rates, "seat_win_rates": self.seat_win_rates,
               "box_retention": self.box_retention,
               "box_runs": self.box_runs, "hand_outcomes": self.hand_outcomes}
        if len(self.arms) > 1:
            out["box_retention_pooled"] = self.box_retention_pooled
        if not self.comparisons.empty:
            out["comparisons"] = self.comparisons
        if self.knock_sweep is not None:
            out["knock_sweep"] = self.knock_sweep
        if self.hollywood is not None:
            out["hollywood"] = self.hollywood
        return out

    def figures(self) -> dict[str, Any]:
        """matplotlib Figures of the sections that apply, by PNG name."""
        from sim.analysis import plots  # here, not at the top: matplotlib loads only to draw

        out = {"win_rates": plots.win_rate_plot(self.win_rates, self.what)}
        if not self.box_retention_pooled.empty:
            out["box_retention"] = plots.box_retention_heatmap(self.box_retention_pooled,
                                                               self.what)
        if self.knock_sweep is not None:
            out["knock_sweep"] = plots.knock_sweep_plot(self.knock_sweep, self.what)
        if not self.comparisons.empty:
            out["comparisons"] = plots.paired_difference_plot(self.comparisons, self.what)
        return out

    def _figure_names(self) -> list[str]:
        names = ["win_rates"]
        if not self.box_retention_pooled.empty:
            names.append("box_retention")
        if self.knock_sweep is not None:
            names.append("knock_sweep")
        if not self.comparisons.empty:
            names.append("comparisons")
        return names

    def to_markdown(self) -> str:
        """The whole report as markdown (tables formatted; plots referenced as PNG files)."""
        m = self.result.manifest
        figs = set(self._figure_names())
        out = [f"# {self.name}", ""]
        if m["spec"].get("description"):
            out += [str(m["spec"]["description"]), ""]
        wall = m.get("timings", {}).get("wall_seconds")
        sessions = len(m.get("sessions", []))
        arms = len(self.arms)
        out += [f"{self.what}; {arms} arm{'s' if arms > 1 else ''}, "
                f"{plural(self.games * arms, 'game')} in all"
                + (f", {wall:,.1f} s of wall time" if wall else "")
                + (f" over {sessions} sessions" if wall and sessions > 1 else "")
                + f"; ginbox {m.get('ginbox_version', '?')}; status {m.get('status', '?')}.",
                "", "All arms play game g from the same decks (common random numbers). Rates "
                "carry n and a Wilson 95% interval; means a normal 95% interval over games; "
                "differences between arms are paired by game.", "",
                md_table([[str(a.index), a.name, a.rules_label, ", ".join(a.strategies),
                           a.seating_label] for a in self.arms],
                         ["arm", "name", "rules", "strategies (seat 0, 1, 2)", "seating"],
                         {0}), ""]
        out += ["## Game win rates", "", self._md_win_rates(), ""]
        if self.forfeits is not None:
            out += [self._forfeits_line(), ""]
        if "win_rates" in figs:
            out += ["![game win rate per seat](win_rates.png)", ""]
        shared = [a.index for a in self.arms if len(a.distinct()) < a.players]
        if shared:
            out += ["### Seat control", "", "Arms where a strategy holds several seats: "
                    "those seats should win equally often.", "",
                    self._md_seats(shared), ""]
        if not self.comparisons.empty:
            title = ("Gin bonus: paired differences" if self.comparison_kind == "gin_bonus"
                     else "Rule comparisons: paired differences")
            out += [f"## {title}", "", "Differences are arm b minus arm a over the same "
                    "games; 95% intervals from per-game paired differences. Gin, undercut and "
                    "knock rates are recorded by role, not by seat, so they are given for the "
                    "whole table (strategy 'all').", "", self._md_comparisons(), ""]
            if "comparisons" in figs:
                out += ["![paired differences](comparisons.png)", ""]
        if self.knock_sweep is not None:
            out += ["## Knock sweep", "", f"Seat {self.knock_sweep['seat'].iloc[0]} plays "
                    f"{self.sweep.strategy if self.sweep else 'the swept strategy'} with "
                    "knock_at as below; each threshold is compared paired with the best.", "",
                    knock_sweep_summary(self.knock_sweep) + ".", "", self._md_sweep(), ""]
            if "knock_sweep" in figs:
                out += ["![knock sweep](knock_sweep.png)", ""]
        if self.hollywood is not None:
            out += ["## Hollywood matches", "", "Under Hollywood scoring a game of the tables "
                    "above is a match of three games, won by the highest total over the three. "
                    "Per seat the strategy holds: games of the three won and points (bonuses "
                    "included) per match, with normal 95% intervals over matches.", "",
                    self._md_hollywood(), ""]
        out += ["## Box retention", "", "The chance that the box wins a hand and so keeps the "
                "box, by the strategies of the box and of the captain (hands counted include "
                "drawn ones).", "", self._md_box_pairs(), "", "### Spells in the box", "",
                self._md_box_runs(), ""]
        if "box_retention" in figs:
            out += ["![box retention](box_retention.png)", ""]
        out += ["## Hand outcomes", "", "Rates are shares of all hands of the arm; `any` "
                "counts both roles.", "", self._md_outcomes(), ""]
        return "\n".join(out)

    def _md_win_rates(self) -> str:
        rows = [[r.arm_name, r.strategy, str(r.seats), f"{r.games:,}", f"{r.wins:,}",
                 fmt_pct(r.win_rate, pct_digits(r.ci_low, r.ci_high)),
                 fmt_interval(r.ci_low, r.ci_high),
                 fmt_pct(r.fair_share), r.vs_fair_share,
                 fmt_pct(r.per_seat_rate, pct_digits(r.per_seat_ci_low, r.per_seat_ci_high)),
                 fmt_interval(r.per_seat_ci_low, r.per_seat_ci_high)]
                for r in self.win_rates.itertuples()]
        return md_table(rows, ["arm", "strategy", "seats", "games", "wins", "win rate",
                               "95% CI", "fair share", "vs fair share", "per seat",
                               "per seat 95% CI"], {2, 3, 4, 5, 6, 7, 9, 10})

    def _md_seats(self, arms: list[int]) -> str:
        df = self.seat_win_rates[self.seat_win_rates["arm"].isin(arms)]
        rows = [[r.arm_name, str(r.seat), r.strategy, f"{r.games:,}", f"{r.wins:,}",
                 fmt_pct(r.win_rate, pct_digits(r.ci_low, r.ci_high)),
                 fmt_interval(r.ci_low, r.ci_high),
                 fmt_pct(r.fair_share), r.vs_fair_share] for r in df.itertuples()]
        return md_table(rows, ["arm", "seat", "strategy", "games", "wins", "win rate",
                               "95% CI", "fair share", "vs fair share"], {1, 3, 4, 5, 6, 7})

    def _md_comparisons(self) -> str:
        rows = []
        for r in self.comparisons.itertuples():
            m = METRICS[r.metric]
            digits = pct_digits(r.ci_low, r.ci_high)
            val = functools.partial(fmt_pct, digits=digits) if m.percent else functools.partial(
                fmt_num, digits=3)
            diff, ci = fmt_diff(r.diff, r.ci_low, r.ci_high, m.percent)
            rows.append([f"{r.arm_b_name} - {r.arm_a_name}", r.strategy,
                         m.label + ("" if m.percent or m.unit == m.label else f" ({m.unit})"),
                         f"{r.games:,}",
                         f"{r.discordant:,}", val(r.value_a), val(r.value_b), diff, ci,
                         r.verdict])
        return md_table(rows, ["arms (b - a)", "strategy", "metric", "paired games",
                               "games differing", "arm a", "arm b", "difference", "95% CI",
                               "verdict"], {3, 4, 5, 6, 7})

    def _md_sweep(self) -> str:
        assert self.knock_sweep is not None
        rows = [[str(r.knock_at), r.arm_name, f"{r.games:,}", f"{r.wins:,}",
                 fmt_pct(r.win_rate, pct_digits(r.ci_low, r.ci_high)),
                 fmt_interval(r.ci_low, r.ci_high), str(r.rank),
                 *(["", ""] if r.verdict == "best" else
                   fmt_diff(r.diff_vs_best, r.diff_ci_low, r.diff_ci_high, True)),
                 r.verdict] for r in self.knock_sweep.itertuples()]
        return md_table(rows, ["knock_at", "arm", "games", "wins", "win rate", "95% CI",
                               "rank", "vs best", "95% CI (paired)", "verdict"],
                        {0, 2, 3, 4, 5, 6, 7})

    def _md_hollywood(self) -> str:
        assert self.hollywood is not None
        rows = [[r.arm_name, r.strategy, f"{r.matches:,}", f"{r.match_wins:,}",
                 fmt_pct(r.match_win_rate, pct_digits(r.ci_low, r.ci_high)),
                 fmt_interval(r.ci_low, r.ci_high), fmt_num(r.games_won_per_match, 3),
                 fmt_interval(r.games_won_ci_low, r.games_won_ci_high, percent=False,
                              digits=3),
                 fmt_num(r.points_per_match, 1),
                 fmt_interval(r.points_ci_low, r.points_ci_high, percent=False, digits=1)]
                for r in self.hollywood.itertuples()]
        return md_table(rows, ["arm", "strategy", "matches", "match wins", "match win rate",
                               "95% CI", "games won of 3", "95% CI", "points per match",
                               "95% CI"], {2, 3, 4, 5, 6, 7, 8, 9})

    def _md_box_pairs(self) -> str:
        rows = [[r.arm_name, r.box_strategy, r.captain_strategy, f"{r.hands:,}",
                 f"{r.box_wins:,}", fmt_pct(r.rate, pct_digits(r.ci_low, r.ci_high)),
                 fmt_interval(r.ci_low, r.ci_high)]
                for r in self.box_retention.itertuples()]
        return md_table(rows, ["arm", "box", "captain", "hands", "box wins", "box keeps",
                               "95% CI"], {3, 4, 5, 6})

    def _md_box_runs(self) -> str:
        rows = [[r.arm_name, r.box_strategy, f"{r.hands:,}",
                 fmt_pct(r.rate, pct_digits(r.ci_low, r.ci_high)),
                 fmt_interval(r.ci_low, r.ci_high),
                 f"{r.runs:,}", fmt_num(r.mean_run),
                 fmt_interval(r.mean_run_ci_low, r.mean_run_ci_high, percent=False, digits=2)]
                for r in self.box_runs.itertuples()]
        return md_table(rows, ["arm", "box", "hands in the box", "keeps the box", "95% CI",
                               "spells", "hands per spell", "95% CI"], {2, 3, 4, 5, 6, 7})

    def _md_outcomes(self) -> str:
        rows = []
        for r in self.hand_outcomes.itertuples():
            share = r.ci_method == "wilson"
            rows.append([r.arm_name, r.role, r.outcome, f"{r.count:,}", f"{r.n:,}", r.unit,
                         fmt_pct(r.rate, pct_digits(r.ci_low, r.ci_high)) if share
                         else fmt_num(r.rate, 3),
                         fmt_interval(r.ci_low, r.ci_high, percent=share,
                                      digits=None if share else 3)])
        return md_table(rows, ["arm", "role", "outcome", "count", "n", "unit", "value",
                               "95% CI"], {3, 4, 6, 7})

    # -------------------------------------------------------------------------- files

    def write(self, directory: str | Path | None = None) -> list[Path]:
        """Write report.md, one CSV per table and the PNG plots into ``directory``.

        Default: the run's directory. Every file is rendered to a hidden temporary first and
        all are renamed into place only when all are complete, so an error leaves the old
        report (or none), never a half-written one. ginbox touches only files it wrote: the
        names written are recorded in the directory's marker (``.ginbox-written.json``); an
        existing file of the same name that the marker does not list is refused, and the files
        of sections that no longer apply are removed only if the marker lists them. Returns
        the paths written.
        """
        directory = Path(directory) if directory is not None else self.result.out
        if not directory.is_dir():
            raise ValueError(f"cannot write the report: {directory} is not a directory")
        ours = set(written_files(directory))
        writers: dict[str, Callable[[Path], object]] = {}
        for name, df in self.tables().items():
            writers[f"{name}.csv"] = functools.partial(_write_csv, df)
        from sim.analysis.plots import save

        for name, fig in self.figures().items():
            writers[f"{name}.png"] = functools.partial(save, fig, atomic=False)
        text = self.to_markdown()
        writers["report.md"] = lambda tmp: tmp.write_text(text, encoding="utf-8")
        names = list(writers)
        clash = [n for n in names if n not in ours and (directory / n).exists()]
        if clash:
            raise ValueError(f"cannot write the report into {directory}: {clash[0]} is there "
                             f"and ginbox did not write it (its {MARKER} does not list it), so "
                             "it is left alone: move it away or write the report elsewhere "
                             "(--out)")
        marker = json.dumps({"written_by": "ginbox report", "files": sorted(names)}, indent=1)
        writers[MARKER] = lambda tmp: tmp.write_text(marker, encoding="utf-8")
        with atomic_paths([directory / name for name in writers]) as temps:
            for write, tmp in zip(writers.values(), temps, strict=True):
                write(tmp)
        for stale in sorted(ours - set(names)):
            if stale in REPORT_FILES:
                (directory / stale).unlink(missing_ok=True)
        return [directory / name for name in names]


def report(result_or_dir: RunResult | str | Path) -> Report:
    """All tables of a run and the study sections that apply to it.

    ``result_or_dir``: a :class:`~sim.runs.runner.RunResult` or a results directory. Sections:
    always win rates, box retention and hand outcomes; paired comparisons when arms differ only
    in their rules (the gin bonus study when only in gin_bonus); the knock sweep when the arms
    sweep one seat's knock_at; the Hollywood matches when an arm scores Hollywood. Raises
    ``ValueError`` for a directory that is not a finished run.
    """
    result = open_run(result_or_dir)
    arms = arms_of(result)
    pairs = rule_comparisons(result)
    design = sweep_design(result)
    per_arm = box_retention(result)
    pooled = pool_box(per_arm, arms)
    return Report(
        result=result,
        win_rates=win_rates(result),
        seat_win_rates=seat_win_rates(result),
        box_retention=per_arm,
        box_retention_pooled=pooled,
        box_runs=box_runs(result),
        hand_outcomes=hand_outcomes(result),
        comparisons=comparisons_table(result, pairs),
        knock_sweep=knock_sweep(result) if design is not None else None,
        sweep=design,
        arms=arms,
        hollywood=hollywood_matches(result),
        forfeits=forfeits(result),
    )


__all__ = ["HEADLINE_METRICS", "METRICS", "MIN_DISCORDANT", "PAIRED_COLUMNS", "REPORT_FILES",
           "ROLES", "Arm", "Metric", "Report", "SweepDesign", "Z95", "arms_of", "box_retention",
           "box_runs", "comparisons_table", "gin_bonus_study", "hand_outcomes",
           "hollywood_matches", "knock_sweep", "knock_sweep_summary", "paired_difference",
           "report", "rule_comparisons", "seat_win_rates", "sweep_design", "wilson", "win_rates"]
