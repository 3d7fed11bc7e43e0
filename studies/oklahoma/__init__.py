"""How hands end under Oklahoma, by the knock limit the upcard set (the Oklahoma study).

Run: ``python -m studies.oklahoma [--games N] [--seed S]``.
The batch runner records outcomes per game, not per hand's upcard, so this plays through the
hand log (``play_games(..., log=True)``, the Python driver: one to two minutes per line for
the default 3,000 games on one shared core) and groups the hands by the knock limit of oklahoma
(the upcard's value, 0 for an ace: gin only). Each line is one play in all three seats: the set
``tuned@oklahoma``, the defaults it was tuned from (``STUDY_DEFAULTS``), and those again under the
fixed limit 10 with spades still doubling, the control that shows how the same upcards play
without the variable limit. Columns: hands, and per hand the shares that end in a knock won
(no gin), a gin, an undercut and a draw at the wall, the mean deadwood of the knocks that were
not gin, turns per hand and points per hand. docs/lab/2026-12-01-oklahoma.md has the figures.
"""

from __future__ import annotations

import argparse
from typing import Any

import pandas as pd

from sim.engine.cards import card_value, parse_card
from sim.engine.rules import Rules
from sim.play.driver import play_games
from sim.records.frame import log_to_frame
from sim.runs.progress import Progress

OKLAHOMA = Rules.preset("oklahoma")
#: ``tuned``'s defaults when the study ran and ``tuned@oklahoma`` was tuned from them (the
#: three-handed set before ``gain``), spelled out so the study replays the same.
STUDY_DEFAULTS = ("tuned:take_drop=8,slack=16,look=21,look_fade=8,danger=3,safe=8,pair=0,"
                  "knock_box=10,knock_captain=10,early=99,late_at=10,stock_low=2,pressed=0,"
                  "caution=0,endgame=0,reach=4,gain=0")
LINES = (
    ("tuned@oklahoma at oklahoma", "tuned@oklahoma", OKLAHOMA),
    ("tuned at oklahoma", STUDY_DEFAULTS, OKLAHOMA),
    ("tuned at fixed limit 10", STUDY_DEFAULTS, OKLAHOMA.replace(oklahoma=False)),
)
COLUMNS = ["upcard", "end", "knocker_deadwood", "turns", "points"]


def hands_by_limit(strategy: str, rules: Rules, games: int, seed: int, name: str) -> pd.DataFrame:
    """Play ``games`` games of ``strategy`` in every seat; one row per knock limit of oklahoma."""
    frames: list[pd.DataFrame] = []
    bar = Progress(name, games)

    def keep(records: list[dict[str, Any]]) -> None:
        # only the columns needed, so memory holds a few numbers per hand, not whole records
        frames.append(log_to_frame(records)[COLUMNS])
        bar.update(len({r["game"] for r in records if r.get("game_over")}))

    play_games(",".join([strategy] * rules.players), rules, games=games, seed=seed, log=True,
               on_records=keep, keep_games=False)
    bar.close()
    hands = pd.concat(frames, ignore_index=True)
    hands["limit"] = [OKLAHOMA.hand_knock_limit(card_value(parse_card(c)))
                      for c in hands["upcard"]]
    ends = pd.crosstab(hands["limit"], hands["end"], normalize="index")
    knocks = hands[hands["end"] == "knock"].groupby("limit")["knocker_deadwood"].mean()
    table = pd.DataFrame({"hands": hands.groupby("limit").size()})
    for end in ("knock", "gin", "undercut", "draw"):
        table[end] = ends[end] if end in ends else 0.0
    table["knock_deadwood"] = knocks
    table["turns"] = hands.groupby("limit")["turns"].mean()
    table["points"] = hands.groupby("limit")["points"].mean()
    table.loc["all"] = [len(hands), *(float((hands["end"] == e).mean())
                                      for e in ("knock", "gin", "undercut", "draw")),
                        hands.loc[hands["end"] == "knock", "knocker_deadwood"].mean(),
                        hands["turns"].mean(), hands["points"].mean()]
    return table


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m studies.oklahoma", description=__doc__)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1318)
    args = parser.parse_args()
    pd.set_option("display.width", 160)
    for name, strategy, rules in LINES:
        table = hands_by_limit(strategy, rules, args.games, args.seed, name)
        print(f"\n{name}: {args.games:,} games, seed {args.seed}, hands by the oklahoma limit")
        print(table.to_string(float_format=lambda x: f"{x:.3f}"), flush=True)

