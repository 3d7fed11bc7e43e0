"""The game loop written once: the batch loop, the driver and the environments pick the
deciding seat and the built-ins' moves through one compiled step (sim.play.step), so the
same seed plays the same games in every front end, under every team policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import sim.env
from sim.engine.game import (
    GO_LEN,
    GS_OVER,
    GS_ROLE_SEAT,
    SITTER,
    end_hand,
    game_init,
    record_game,
    record_hand,
    start_hand,
)
from sim.engine.hand import DEC_OVER, HS_TO_MOVE, OK, advance, apply_move
from sim.engine.rng import stream_seed
from sim.engine.rules import Rules
from sim.env.policy import NumpyPolicy, choose
from sim.env.vector import VectorEnv, random_actions
from sim.play.driver import Seeds, iter_games, play_games
from sim.play.step import CALLER, TableBuffers, seat_move, table_buffers
from sim.records.log import read_log
from strategies._dispatch import decide
from strategies.registry import parse_strategies
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


# ------------------------------------------------------------------ the step, used directly


def _state(bufs: TableBuffers) -> list[np.ndarray]:
    """What a decision may change besides the view: memo, memory, strategy stream."""
    return [bufs.after.copy(), bufs.mem.copy(), bufs.rng.copy()]


def _restore(bufs: TableBuffers, saved: list[np.ndarray]) -> None:
    bufs.after[:], bufs.mem[:], bufs.rng[:] = saved


def test_seat_move_steps_the_batch_game_and_consensus_needs_two_built_ins() -> None:
    """The module doc's recipe, played with three built-ins under consensus, gives the batch
    loop's game; at every captain decision the step's move is team_decide's, and the
    captain's own decide() once the sitter is controlled or not a built-in; a controlled
    captain is asked (CALLER)."""
    rules = THREE.replace(team_policy="consensus", target=60)
    lineup = ["mc:samples=4", "mc:samples=4,develop=0", "mc:samples=6"]
    specs = parse_strategies(lineup)
    ids = np.array([s.strategy_id for s in specs], np.int64)
    params = np.stack([s.params_array() for s in specs])
    seeds = Seeds.from_seed(5)
    r = rules.to_array()
    bufs = table_buffers(r)
    bufs.rng[0] = stream_seed(seeds.deck, 0)
    bufs.rng[1] = stream_seed(seeds.strategy, 0)
    row = np.zeros(GO_LEN, np.int64)
    game_init(bufs.gs, r, bufs.rng[0:1], -1)
    captain_decisions = differ = 0
    while not bufs.gs[GS_OVER]:
        start_hand(bufs.gs, bufs.hs, bufs.pile, bufs.deck, r, bufs.rng[0:1], bufs.game_info)
        bufs.mem[:] = 0
        while (decision := advance(bufs.hs, bufs.pile, bufs.deck, bufs.after,
                                   bufs.moves)) != DEC_OVER:
            args = (bufs.gs, bufs.hs, bufs.pile, bufs.game_info, bufs.view, bufs.after,
                    bufs.mem, bufs.rng[1:2], bufs.scratch)
            p = int(bufs.hs[HS_TO_MOVE])
            seat, sitter = int(bufs.gs[GS_ROLE_SEAT + p]), int(bufs.gs[GS_ROLE_SEAT + SITTER])
            if p == 1:
                captain_decisions += 1
                saved = _state(bufs)
                assert seat_move(decision, r, ids, params, 1 << seat, *args) == (seat, CALLER)
                _restore(bufs, saved)
                together = team_decide(ids[seat], ids[sitter], decision, params[seat],
                                       params[sitter], bufs.view, bufs.after, bufs.mem[1],
                                       bufs.rng[1:2], bufs.scratch)
                _restore(bufs, saved)
                alone = decide(ids[seat], decision, params[seat], bufs.view, bufs.after,
                               bufs.mem[1], bufs.rng[1:2], bufs.scratch)
                _restore(bufs, saved)
                assert seat_move(decision, r, ids, params, 1 << sitter, *args) == (seat, alone)
                _restore(bufs, saved)
                outside = ids.copy()
                outside[sitter] = -1
                assert seat_move(decision, r, outside, params, 0, *args) == (seat, alone)
                _restore(bufs, saved)
                differ += together != alone
            got_seat, move = seat_move(decision, r, ids, params, 0, *args)
            assert got_seat == seat and move != CALLER
            if p == 1:
                assert move == together
            assert apply_move(bufs.hs, bufs.pile, bufs.deck, bufs.after, bufs.moves,
                              move) == OK
        record_hand(row, bufs.gs, bufs.hs)
        end_hand(bufs.gs, bufs.hs, r)
    record_game(row, bufs.gs)
    batch = next(iter_games(rules, specs, 1, seeds))[0][0]
    assert np.array_equal(row, batch)
    assert captain_decisions > 20 and differ > 0
