"""The game loop written once: the game object (sim.play.state.GameState), the batch loop and
the environments pick the deciding seat and the built-ins' moves through one compiled step
(sim.play.step), so the same seed plays the same games in every front end, under every team
policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import sim.env
from sim.engine.rules import Rules
from sim.env.policy import NumpyPolicy, choose
from sim.env.vector import VectorEnv, random_actions
from sim.play.driver import Seeds, iter_games, play_games
from sim.play.events import Played
from sim.play.state import GameListener, GameState
from sim.records.log import read_log
from strategies.team import team_decide
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
    """Row 0's observations in VectorEnv(4) with random legal actions, and the same actions
    played in SingleAgentEnv, which must see the same at every step."""
    vec = VectorEnv(4, rules=rules, opponents=MC)
    single = sim.env.SingleAgentEnv(rules=rules, opponents=MC)
    rng = np.random.default_rng(0)
    obs, infos = vec.reset(seed=11)
    obs_single, info_single = single.reset(seed=11)
    out = [obs]
    for _ in range(steps):
        assert np.array_equal(obs[0], obs_single)
        assert np.array_equal(infos["action_mask"][0], info_single["action_mask"])
        actions = random_actions(infos["action_mask"], rng)
        obs, rewards, terms, _, infos = vec.step(actions)
        obs_single, reward, term, _, info_single = single.step(int(actions[0]))
        assert (reward, term) == (rewards[0], terms[0])
        out.append(obs)
        if term:  # row 0's next game is game 4, the single env's game 1
            break
    return out


def test_the_vector_env_plays_consensus_as_the_single_agent_env() -> None:
    consensus = _vector_observations(THREE.replace(team_policy="consensus"), 300)
    captain = _vector_observations(THREE, 300)
    same = [np.array_equal(a, b) for a, b in zip(consensus, captain, strict=False)]
    assert same[0] and not all(same)


# ------------------------------------------------------------------ the one loop: GameState


class _TeamCheck(GameListener):
    """At every captain decision of a three-handed game whose captain is a built-in, what its
    strategy alone and the team (``team_decide`` with the sitter's) would play, asked on
    copies; then the move the game played. Rows: (alone, together, played, sitter)."""

    def __init__(self) -> None:
        self.pending: tuple[int, int, int] | None = None
        self.seen: list[tuple[int, int, int, int]] = []

    def deciding(self, state: GameState) -> None:
        captain, sitter = state.roles[1], state.roles[2]
        ids, params = state.lineup.ids, state.lineup.params
        if state.hand_player != 1 or ids[captain] < 0:
            return
        alone = state.ask(captain)
        together = -1
        if ids[sitter] >= 0:
            b = state.bufs
            together = int(team_decide((ids[captain], ids[sitter]), state.decision_code,
                                       (params[captain], params[sitter]),
                                       state.view_array.copy(), state.after.copy(),
                                       state.memory.copy(), b.rng[1:2].copy(),
                                       b.scratch.copy()))
        assert alone is not None
        self.pending = (alone, together, sitter)

    def moved(self, state: GameState, played: Played) -> None:
        if self.pending is not None and played.decision >= 0:
            alone, together, sitter = self.pending
            self.seen.append((alone, together, played.move, sitter))
            self.pending = None


def test_the_game_object_plays_the_batch_game_under_every_team_policy() -> None:
    """A GameState of built-ins plays the batch kernel's game (the same statistics row) and
    writes ginbox play's log; under consensus each captain move is the team's
    (``team_decide`` with the sitter), and differs from the captain's own choice at times."""
    lineup = ["mc:samples=4", "mc:samples=4,develop=0", "mc:samples=6"]
    for policy in ("captain", "advisor", "consensus"):
        rules = THREE.replace(team_policy=policy, target=60)
        check = _TeamCheck()
        state = GameState(rules, lineup, seed=5, listener=check)
        assert state.game_over and state.result is not None
        batch = next(iter_games(rules, lineup, 1, Seeds.from_seed(5)))[0][0]
        assert np.array_equal(state.stats_row, batch)
        assert state.records == play_games(lineup, rules, games=1, seed=5, log=True).log
        alone, together, played, _ = zip(*check.seen, strict=True)
        assert len(played) > 20
        if policy == "consensus":
            assert played == together and played != alone
        elif policy == "captain":
            assert played == alone


def test_a_caller_sitter_leaves_the_captain_alone_under_consensus() -> None:
    """The step's ruling, through the object: the seat the caller plays is the only one it
    stops at; a built-in captain whose sitter is the caller's decides alone (as under
    ``captain``), with a built-in sitter as the team."""
    rules = THREE.replace(team_policy="consensus", target=40)
    cases = set()
    for seat in range(3):
        lineup: list[str | None] = ["mc:samples=4", "mc:samples=4,develop=0", "mc:samples=6"]
        lineup[seat] = None
        check = _TeamCheck()
        state = GameState(rules, lineup, seed=9, listener=check)
        while state.waiting:
            assert state.seat == seat and not state.advised
            state.play(state.legal_moves()[0])
        for alone, together, played, sitter in check.seen:
            cases.add(sitter == seat)
            assert played == (alone if sitter == seat else together)
    assert cases == {True, False}
