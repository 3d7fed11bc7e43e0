"""A synthetic objective standing in for games in the tuning tests: known optimum, noisy,
deterministic, common random numbers (game g's uniform is shared by every candidate)."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from sim.tune import CHECKPOINT, Evaluator

ROOT = Path(__file__).resolve().parents[2]

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


def kill_mid_tune(evaluator: str, spec: str, out: Path) -> int:
    """Start ``tune(spec, out=out, evaluator=evaluator)`` (Python text naming this module's
    objects) in a child process, ``kill -9`` it once a generation is checkpointed, and return
    how many generations the checkpoint holds."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from support.tune_objective import "
            "SPEC, MIX_SPEC, Synthetic, SyntheticMix; from sim.tune import tune; "
            f"tune({spec}, out=sys.argv[2], evaluator={evaluator}, quiet=True)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", code, str(ROOT / "tests"), str(out)],
                            env=env)
    try:
        deadline = time.monotonic() + 60
        while not (out / CHECKPOINT).exists():
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.5)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    return len(pickle.loads((out / CHECKPOINT).read_bytes())["history"])
