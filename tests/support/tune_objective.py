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


#: A mix of two synthetic fields: field 0 is the one above, field 1 prefers other values.
MIX_OPTIMA = (OPTIMUM, (3, 5, 8))
MIX_SPEC = {**{k: v for k, v in SPEC.items() if k != "field"},
            "name": "synthetic-mix", "fields": [["simple"], ["discard-tracking"]],
            "weights": [3, 1], "generations": 6, "games_per_candidate": 2000,
            "holdout_games": 3000}


class SyntheticMix(Synthetic):
    """Two synthetic fields with different optima (``MIX_OPTIMA``), each with its own
    uniforms (the field's own deals); records the fields it was asked about."""

    def __init__(self, delay: float = 0.0) -> None:
        super().__init__(delay)
        self.fields: list[int] = []

    def outcomes(self, values, first_game, games, field=0):  # type: ignore[no-untyped-def]
        values = values if values is not None else (1, 3, 9)
        ranges = np.array([10.0, 20.0, 10.0])
        d = (np.asarray(values, float) - np.asarray(MIX_OPTIMA[field], float)) / ranges
        p = (0.75 if field == 0 else 0.55) - 0.6 * float(d @ d)
        u = np.random.default_rng([first_game, 99, field]).random(games)
        return u < p

    def wins(self, candidates, first_game, games, field=0):  # type: ignore[no-untyped-def]
        self.fields.append(field)
        self.calls += 1
        if self.delay:
            time.sleep(self.delay)
        return Evaluator.wins(self, candidates, first_game, games, field=field)
