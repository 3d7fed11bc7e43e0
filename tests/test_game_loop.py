"""The game loop written once: the batch loop, the driver and the environments pick the
deciding seat and the built-ins' moves through one compiled step (sim.play.step), so the
same seed plays the same games in every front end, under every team policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import sim.env
from sim.engine.rules import Rules
from sim.env.policy import NumpyPolicy, choose
from sim.env.vector import VectorEnv, random_actions
from sim.play.driver import play_games
from sim.records.log import read_log
from tests.test_env import _layers

THREE = Rules.preset("three-handed")
MC = "mc:samples=16"
KEYS = ("game", "hand", "deal", "dealer", "moves", "result", "scores", "game_winner")


def _policy_env_log(rules: Rules, opponents: Any, games: int, seed: int,
                    path: Path) -> list[dict[str, Any]]:
    """Games ``0..games-1`` of ``seed`` in SingleAgentEnv, seat 0 a fixed policy: the log."""
    layers = _layers(0)
    env = sim.env.SingleAgentEnv(rules=rules, opponents=opponents, seat=0, log_path=path)
    for game in range(games):
        obs, info = env.reset(seed=seed if game == 0 else None)
        term = False
        while not term:
            obs, _, term, _, info = env.step(int(choose(layers, obs, info["action_mask"])))
    env.close()
    return [{k: r[k] for k in KEYS} for r in read_log(path)]


def _policy_driver_log(rules: Rules, opponents: list[Any], games: int,
                       seed: int) -> list[dict[str, Any]]:
    played = play_games([NumpyPolicy(layers=_layers(0)), *opponents], rules=rules,
                        games=games, seed=seed, log=True).log
    assert played is not None
    return [{k: r[k] for k in KEYS} for r in played]


@pytest.mark.parametrize("policy", ["captain", "consensus"])
def test_the_driver_and_the_single_agent_env_play_the_same_games(policy: str,
                                                                 tmp_path: Path) -> None:
    """Seat 0 a fixed policy, two mc: move for move the same hands in both front ends."""
    rules = THREE.replace(team_policy=policy)
    in_env = _policy_env_log(rules, MC, 3, 11, tmp_path / "env.jsonl")
    by_driver = _policy_driver_log(rules, [MC, MC], 3, 11)
    assert len(in_env) == len(by_driver) == {"captain": 11, "consensus": 15}[policy]
    assert in_env == by_driver


def _vector_observations(rules: Rules, steps: int) -> list[np.ndarray]:
    env = VectorEnv(4, rules=rules, opponents=MC)
    rng = np.random.default_rng(0)
    obs, infos = env.reset(seed=11)
    out = [obs]
    for _ in range(steps):
        obs, _, _, _, infos = env.step(random_actions(infos["action_mask"], rng))
        out.append(obs)
    return out


def test_the_vector_env_plays_consensus_not_captain() -> None:
    consensus = _vector_observations(THREE.replace(team_policy="consensus"), 300)
    captain = _vector_observations(THREE, 300)
    same = [np.array_equal(a, b) for a, b in zip(consensus, captain, strict=True)]
    assert not all(same)
