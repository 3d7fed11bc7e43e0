"""A synthetic objective standing in for games in the tuning tests: known optimum, noisy,
deterministic, common random numbers (game g's uniform is shared by every candidate)."""

from __future__ import annotations

import time

import numpy as np

from sim.tune import Evaluator

OPTIMUM = (7, 13, 2)  # discard-tracking: knock_at 0..10, slack 0..20, caution 0..10
SPEC = {"name": "synthetic", "seed": 5, "strategy": "discard-tracking:knock_at=1,slack=3,caution=9",
        "field": ["simple"], "rules": "eaai", "generations": 25, "games_per_candidate": 4000,
        "holdout_games": 4000, "population": 10, "sigma0": 0.3}


class Synthetic(Evaluator):
    """Win probability falls with the distance from OPTIMUM (per range); ``delay`` slows each
    evaluation down, so a test can kill a tune mid-way."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.calls = 0

    def outcomes(self, values, first_game, games):  # type: ignore[no-untyped-def]
        values = values if values is not None else (1, 3, 9)
        ranges = np.array([10.0, 20.0, 10.0])
        d = (np.asarray(values, float) - np.asarray(OPTIMUM, float)) / ranges
        p = 0.75 - 0.6 * float(d @ d)
        u = np.random.default_rng([first_game, 99]).random(games)
        return u < p

    def wins(self, candidates, first_game, games):  # type: ignore[no-untyped-def]
        self.calls += 1
        if self.delay:
            time.sleep(self.delay)
        return super().wins(candidates, first_game, games)
