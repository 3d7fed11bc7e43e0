"""Does Hollywood scoring change which strategy is best, or the best knock threshold?

Run after ``ginbox run studies/hollywood/hollywood_strategies.toml`` and
``ginbox run studies/hollywood/hollywood_knock.toml``:
``python -m studies.hollywood [--strategies DIR] [--knock DIR]`` (defaults
``results/hollywood_strategies`` and ``results/hollywood_knock``). Prints markdown tables:

* each strategy's mean win rate over its three head-to-head pairings, per scoring, and each
  pairing's win rate under both with the paired difference (hollywood minus classic);
* per scoring and opponent, greedy-knock's win rate by ``knock_at``, the best threshold, and
  each threshold's paired difference from the best (95% intervals; every arm plays the same
  decks, so all differences are paired game by game).
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

from sim.analysis.comparisons import paired_verdict, run_paired
from sim.analysis.formatting import fmt_diff, fmt_interval, fmt_pct, md_table
from sim.analysis.report import paired_difference, win_rates
from sim.analysis.runs import Arm, arms_of, open_run
from sim.analysis.statistics import Paired

_ARM = re.compile(r"^(?P<rules>\w+): (?P<rest>.+)$")
_KNOCK = re.compile(r"^knock_at=(?P<k>\d+) vs (?P<opponent>.+)$")


def _scoring(arm_name: str) -> tuple[str, str]:
    """(rules preset, the rest of the name) of an arm named ``"<rules>: <rest>"``."""
    match = _ARM.match(arm_name)
    if match is None:
        raise ValueError(f"arm {arm_name!r} is not named '<rules>: ...'")
    return match["rules"], match["rest"]


def strategies_section(directory: Path) -> str:
    """Pairings under both scorings, and each strategy's mean win rate per scoring."""
    run = open_run(directory)
    rates = win_rates(run)
    arms = {a.name: a for a in arms_of(run)}
    lines = ["Head to head (seat win rate of the first strategy named), paired by deal:", ""]
    rows = []
    mean: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in rates.itertuples():
        mean[(_scoring(r.arm_name)[0], r.strategy)].append(r.win_rate)
    for name, arm in arms.items():
        rules, pairing = _scoring(name)
        if rules != "classic":
            continue
        other = arms[f"hollywood: {pairing}"]
        first = arm.strategies[0]
        diff = paired_difference(run, arm.index, other.index, "win_rate")
        d = diff[diff["strategy"] == first].iloc[0]
        a = rates[(rates["arm"] == arm.index) & (rates["strategy"] == first)].iloc[0]
        b = rates[(rates["arm"] == other.index) & (rates["strategy"] == first)].iloc[0]
        change, ci = fmt_diff(d["diff"], d["ci_low"], d["ci_high"], True)
        rows.append([pairing, f"{fmt_pct(a.win_rate)} ({fmt_interval(a.ci_low, a.ci_high)})",
                     f"{fmt_pct(b.win_rate)} ({fmt_interval(b.ci_low, b.ci_high)})",
                     change, ci, d["verdict"]])
    lines.append(md_table(rows, ["pairing", "classic", "hollywood", "hollywood - classic",
                                 "95% CI (paired)", "verdict"], {1, 2, 3, 4}))
    lines += ["", "Mean win rate over each strategy's three pairings:", ""]
    strategies = sorted({s for _, s in mean}, key=lambda s: -sum(mean[("classic", s)]))
    lines.append(md_table(
        [[s, fmt_pct(sum(mean[("classic", s)]) / 3), fmt_pct(sum(mean[("hollywood", s)]) / 3)]
         for s in strategies], ["strategy", "classic", "hollywood"], {1, 2}))
    return "\n".join(lines)


def knock_section(directory: Path) -> str:
    """Per scoring and opponent: win rate by knock_at and the paired gap to the group's best."""
    run = open_run(directory)
    rates = win_rates(run)
    rates = rates[rates["strategy"].str.startswith("greedy-knock:knock_at=")]
    groups: dict[tuple[str, str], list[tuple[int, int, object]]] = defaultdict(list)
    for r in rates.itertuples():
        rules, rest = _scoring(r.arm_name)
        match = _KNOCK.match(rest)
        if match is None:
            raise ValueError(f"arm {r.arm_name!r} is not named '<rules>: knock_at=K vs OPP'")
        groups[(rules, match["opponent"])].append((int(match["k"]), r.arm, r))
    arms = arms_of(run)

    def seat0_wins(frame: pd.DataFrame, arm: Arm) -> dict[str, tuple[np.ndarray, None]]:
        return {"win": ((frame["winner"].to_numpy() == 0).astype(np.int64), None)}

    out = []
    for (rules, opponent), members in sorted(groups.items()):
        best_k, best_arm, best = max(members, key=lambda m: (m[2].win_rate, -m[0]))
        others = [arms[arm] for _, arm, _ in members if arm != best_arm]
        paired = run_paired(run, arms[best_arm], others, ["winner"], seat0_wins)
        rows = []
        for k, arm, r in sorted(members, key=lambda m: m[0]):
            if arm == best_arm:
                gap, ci, verdict = "", "", "best"
            else:
                acc = paired.get((arm, "win"), Paired())
                diff, low, high = acc.estimate()
                gap, ci = fmt_diff(diff, low, high, True)
                verdict = ("best is significantly better"
                           if paired_verdict(low, high, acc.discordant) == "significant"
                           else "not significantly different")
            rows.append([str(k), fmt_pct(r.win_rate), fmt_interval(r.ci_low, r.ci_high), gap,
                         ci, verdict])
        out += [f"**{rules}, greedy-knock vs {opponent}**: best knock_at = {best_k} "
                f"({fmt_pct(best.win_rate)}, {fmt_interval(best.ci_low, best.ci_high)}, "
                f"n = {best.games:,})", "",
                md_table(rows, ["knock_at", "win rate", "95% CI", "vs best", "95% CI (paired)",
                                "verdict"], {0, 1, 2, 3, 4}), ""]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m studies.hollywood",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--strategies", type=Path, default=Path("results/hollywood_strategies"))
    parser.add_argument("--knock", type=Path, default=Path("results/hollywood_knock"))
    args = parser.parse_args()
    pd.set_option("display.width", 200)
    print(strategies_section(args.strategies))
    print()
    print(knock_section(args.knock))

