"""How often the EAAI framework's showdown scores a knock differently from the exact one.

Run: ``python -m studies.eaai_scoring [--games N] [--hand-games N] [--seed S]``.
Two parts, both ``simple`` against ``tuned`` (``tuned@eaai``) under the ``eaai`` preset:

* The same hands scored both ways. ``--hand-games`` games are played with the exact showdown
  and logged; each knock's two final hands are rebuilt from the log (the deal, then every draw
  and discard) and settled by ``settle`` under ``showdown = "exact"`` and ``"eaai"``. Counted:
  knocks whose points or winner differ, knocks whose winner differs, gins apart, and the mean
  change of the knocker's net score (his points, or minus the defender's on an undercut) with
  a 95% interval. Each knock that differs is put down to the first of: the exact knocker laid
  out other melds than his least-deadwood ones (to deny a layoff), the exact defender's melds
  differ from his declared ones (he broke a meld to lay off), or neither (the greedy order
  alone: a card laid onto the wrong meld).
* Whole games under each showdown (``--games`` each, the compiled batch loop, the same seeds):
  ``tuned``'s win rate and the share of hands ending in an undercut, with Wilson intervals, and
  the change of the win rate paired by game (game g is dealt the same until a knock scores
  differently).

docs/lab/2026-12-07-eaai-scoring.md has the figures.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

import numpy as np

from sim.analysis.statistics import wilson
from sim.engine.rules import Rules
from sim.engine.showdown import Showdown, settle
from sim.play.driver import play_games

EXACT = Rules.preset("eaai")
FRAMEWORK = EXACT.replace(showdown="eaai")
LINEUP = "simple,tuned"


def final_hands(record: dict[str, Any]) -> dict[int, list[str]]:
    """Each seat's ten cards when the hand ended, from a hand-log record (its deal and moves)."""
    deal = record["deal"]
    hands = {record["dealer"]: list(deal["dealer"]), record["nondealer"]: list(deal["nondealer"])}
    pile = [deal["upcard"]]
    stock = iter(deal["stock"])
    for move in record["moves"]:
        seat, kind = move["seat"], move["move"]
        if kind == "draw_stock":
            hands[seat].append(next(stock))
        elif kind == "draw_discard":
            hands[seat].append(pile.pop())
        elif kind == "discard":
            hands[seat].remove(move["card"])
            pile.append(move["card"])
    return hands


def knocker_net(s: Showdown) -> int:
    """The knocker's score of a settled knock: his points, or minus the defender's."""
    return -s.points if s.winner == "defender" else s.points


def cause(exact: Showdown, framework: Showdown) -> str:
    """Why a knock scores differently: whose melds differ between the two showdowns, else the
    greedy layoffs' order."""
    def melds(m: list[list[str]]) -> list[list[str]]:
        return sorted(sorted(meld) for meld in m)

    if melds(exact.knocker_melds) != melds(framework.knocker_melds):
        return "knocker's melds"
    if melds(exact.defender_melds) != melds(framework.defender_melds):
        return "defender's melds"
    return "greedy order"


def same_hands(games: int, seed: int) -> dict[str, Any]:
    """Every knock of ``games`` logged games settled both ways."""
    knocks = gins = differ = winner_differs = 0
    changes: list[int] = []
    causes = {"knocker's melds": 0, "defender's melds": 0, "greedy order": 0}

    def keep(records: list[dict[str, Any]]) -> None:
        nonlocal knocks, gins, differ, winner_differs
        for record in records:
            result = record["result"]
            if result["knocker"] is None:
                continue
            hands = final_hands(record)
            knocker = result["knocker"]
            defender = next(seat for seat in hands if seat != knocker)
            exact = settle(hands[knocker], hands[defender], EXACT)
            assert (exact.points, exact.end) == (result["points"], result["end"]), record["game"]
            framework = settle(hands[knocker], hands[defender], FRAMEWORK)
            knocks += 1
            gins += exact.gin
            changed = knocker_net(framework) - knocker_net(exact)
            changes.append(changed)
            differs = changed != 0 or framework.winner != exact.winner
            differ += differs
            winner_differs += framework.winner != exact.winner
            if differs:
                causes[cause(exact, framework)] += 1

    play_games(LINEUP, EXACT, games=games, seed=seed, log=True, on_records=keep,
               keep_games=False)
    mean = float(np.mean(changes))
    half = 1.96 * float(np.std(changes, ddof=1)) / math.sqrt(len(changes))
    return {"knocks": knocks, "gins": gins, "differ": differ, "winner_differs": winner_differs,
            "causes": causes,
            "mean_change": mean, "mean_change_half": half,
            "mean_change_when_differ": float(np.mean([c for c in changes if c])) if any(
                changes) else 0.0}


def whole_games(rules: Rules, games: int, seed: int) -> dict[str, Any]:
    """``tuned``'s wins (seat 1) and the hands' ends over ``games`` games."""
    result = play_games(LINEUP, rules, games=games, seed=seed)
    won = (result.games["winner"] == 1).to_numpy()
    return {"wins": int(won.sum()), "won": won, "games": games, "outcomes": result.outcomes()}


def _share(k: int, n: int) -> str:
    low, high = wilson(k, n)
    return f"{k / n:.2%} ({low:.2%} - {high:.2%})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m studies.eaai_scoring",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--hand-games", type=int, default=2000)
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    s = same_hands(args.hand_games, args.seed)
    n = s["knocks"]
    print(f"same hands: {args.hand_games:,} games of {LINEUP} under eaai, seed {args.seed}: "
          f"{n:,} knocks ({s['gins']:,} gins)")
    print(f"  score differs:  {_share(s['differ'], n)} of knocks, "
          f"{_share(s['differ'], n - s['gins'])} of knocks that are not gin")
    print(f"  winner differs: {_share(s['winner_differs'], n)} of knocks")
    print("  why, of the knocks that differ: " + ", ".join(
        f"{name} {k} ({k / max(s['differ'], 1):.0%})" for name, k in s["causes"].items()))
    print(f"  knocker's net, framework minus exact: {s['mean_change']:+.3f} "
          f"(+- {s['mean_change_half']:.3f}) a knock, {s['mean_change_when_differ']:+.2f} "
          "where they differ")
    won = []
    for name, rules in (("exact", EXACT), ("eaai", FRAMEWORK)):
        g = whole_games(rules, args.games, args.seed)
        won.append(g["won"])
        print(f"whole games, showdown={name}: {args.games:,} games, seed {args.seed}: tuned wins "
              f"{_share(g['wins'], g['games'])}")
        o = g["outcomes"]
        print(f"  {o['hands']:,} hands: undercuts {_share(o['undercut'], o['hands'])}, "
              f"gins {_share(o['gin'], o['hands'])}", flush=True)
    paired = won[1].astype(float) - won[0].astype(float)  # game g has the same seeds in both
    half = 1.96 * float(paired.std(ddof=1)) / math.sqrt(len(paired))
    print(f"tuned's win rate, eaai minus exact (paired by game): {paired.mean():+.2%} "
          f"(+- {half:.2%}); games whose winner differs: {int((paired != 0).sum()):,}")
