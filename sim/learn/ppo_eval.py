"""A PPO run's held-out evaluation: the greedy policy against fixed opponents, in hands and
in games, with 95% intervals.

* **Hands**: the first hand of ``hands`` held-out games against ``simple`` (a
  :class:`sim.env.VectorEnv` of one-hand episodes, rewarded with the hand's margin), played by
  the PyTorch model greedily: the mean margin per hand (points won minus points lost, normal
  interval) and the share of hands won (Wilson interval).
* **Games**: the weights file played as ``net:weights=PATH`` (compiled, as ``ginbox run``
  plays it) on held-out deals, each deal from every seat (mirrored), so a deal is one
  observation: the share of games won with its interval over deals
  (:func:`sim.learn.report.deal_interval`), and a paired difference between two players on
  the same deals.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.analysis.statistics import Z95, wilson
from sim.engine.rules import Rules
from sim.env.vector import VectorEnv
from sim.learn.loop import strength_chunk
from sim.learn.model import PolicyValueNet
from sim.learn.netpolicy import act
from sim.learn.report import deal_interval


def hand_margins(model: PolicyValueNet, rules: str, hands: int, seed: int,
                 opponent: str = "simple") -> np.ndarray:
    """The greedy policy's margin (points) in the first hand of games 0..hands-1 of
    ``seed``, one row each."""
    env = VectorEnv(hands, rules=rules, opponents=opponent, episode="hand", reward="margin",
                    observation="view")
    views, infos = env.reset(seed=seed)
    masks = infos["action_mask"]
    margin = np.zeros(hands)
    done = np.zeros(hands, np.bool_)
    while not done.all():
        actions, rows, _ = act(model, views, masks, "hand", None)
        full = np.zeros(hands, np.int64)
        full[rows] = actions
        views, rewards, terms, _, infos = env.step(full)
        masks = infos["action_mask"]
        margin += np.where(done, 0.0, rewards)
        done |= terms
    env.close()
    return margin


def hand_result(model: PolicyValueNet, rules: str, hands: int, seed: int) -> dict[str, Any]:
    """Margin per hand and share of hands won against ``simple``, with 95% intervals."""
    margin = hand_margins(model, rules, hands, seed)
    mean = float(margin.mean())
    half = Z95 * float(margin.std(ddof=1)) / math.sqrt(hands) if hands > 1 else math.nan
    won = int((margin > 0).sum())
    low, high = wilson(won, hands)
    return {"hands": hands, "hand_margin": mean, "hand_margin_low": mean - half,
            "hand_margin_high": mean + half, "hands_won": won / hands, "hands_won_low": low,
            "hands_won_high": high}


def deal_wins(weights: str | Path, rules: str, opponent: str, seed: int,
              deals: int) -> np.ndarray:
    """Games won per deal (0..seats) by ``net:weights=weights`` against ``opponent`` in the
    other seats, deals 0..deals-1 of ``seed`` each played from every seat."""
    return np.asarray(strength_chunk(rules, f"net:weights={weights}", opponent, seed, 0,
                                     deals)["wins"], np.int64)


def game_result(weights: str | Path, rules: str, opponent: str, seed: int,
                deals: int) -> dict[str, Any]:
    """Share of games won against ``opponent`` on mirrored deals, with its 95% interval."""
    seats = Rules.preset(rules).players
    rate, low, high = deal_interval(deal_wins(weights, rules, opponent, seed, deals), seats)
    return {"games": deals * seats, "game_win_rate": rate, "game_win_low": max(0.0, low),
            "game_win_high": min(1.0, high)}


def final_table(players: dict[str, Path], rules: str, opponents: tuple[str, ...], seed: int,
                deals: int) -> pd.DataFrame:
    """Each player's share of games against each opponent on the same mirrored deals, and
    each player's paired difference from the first one (deal by deal)."""
    seats = Rules.preset(rules).players
    rows = []
    for opponent in opponents:
        first: np.ndarray | None = None
        for name, weights in players.items():
            wins = deal_wins(weights, rules, opponent, seed, deals)
            rate, low, high = deal_interval(wins, seats)
            row = {"player": name, "opponent": opponent, "games": deals * seats,
                   "win_rate": rate, "low": max(0.0, low), "high": min(1.0, high)}
            if first is None:
                first = wins
            else:
                diff, d_low, d_high = deal_interval(wins - first, seats)
                row.update(vs_first=diff, vs_first_low=d_low, vs_first_high=d_high)
            rows.append(row)
    return pd.DataFrame(rows)
