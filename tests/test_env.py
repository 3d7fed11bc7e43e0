"""The learning environments of sim.env: PettingZoo's and Gymnasium's own checks, legal games
(their hand logs replay through the rules), rewards that add up to the game's outcome, masks
that allow exactly what the engine accepts, and the same episodes for the same seed."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import sim.env
from sim.cli import main as cli_main
from sim.engine.cards import card_str, mask_cards
from sim.engine.hand import DEC_OVER, HS_HAND, HS_TO_MOVE
from sim.engine.view import V_DEADWOOD, V_DECISION, V_DRAWN, V_HAND, V_LEN, View
from sim.env.core import ERR_MASKED, ES_DECISION, ES_PLAYER, EnvBuffers, act
from sim.env.encoding import (
    A_DISCARD,
    A_KNOCK,
    CARD_OF_INDEX,
    N_ACTIONS,
    O_HAND,
    O_OPP_HOLDS,
    O_UNSEEN,
    OBS_LAYOUT,
    OBS_LEN,
    action_name,
    encode_observation,
    view_array,
)
from sim.env.policy import NumpyPolicy, choose, load_policy, save_policy
from sim.env.vector import VectorEnv, random_actions
from sim.play.driver import play_games
from sim.play.step import GameBuffers
from sim.records.log import read_log
from sim.records.replay import replay_log

PRESETS = ("eaai", "three-handed")


def _random_aec(env: Any, seed: int, rng: np.random.Generator,
                max_steps: int = 100_000) -> dict[str, float]:
    """Play one episode with uniformly random legal actions; each agent's summed rewards."""
    env.reset(seed=seed)
    total = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(max_steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        for a, r in env.rewards.items():
            total[a] += r
    return total


@pytest.mark.parametrize("rules", PRESETS)
def test_pettingzoo_api_and_seed_tests(rules: str) -> None:
    api_test(sim.env.env(rules=rules), num_cycles=200)
    api_test(sim.env.raw_env(rules=rules, episode="hand", reward="points"), num_cycles=200)
    seed_test(lambda: sim.env.env(rules=rules), num_cycles=200)


def test_advisor_team_policy_gives_the_sitter_the_captains_moves() -> None:
    env = sim.env.raw_env(rules={"preset": "three-handed", "team_policy": "advisor"},
                          episode="hand")
    api_test(env, num_cycles=100)
    env.reset(seed=4)
    table = env._table
    roles = [int(r) for r in table.env.es[6:9]]
    movers = set()
    for agent in env.agent_iter():
        obs, _, term, _, _ = env.last()
        if term:
            env.step(None)
            continue
        movers.add(env.possible_agents.index(agent))
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert movers == {roles[0], roles[2]}  # the box and the advisor; the captain never


def test_gymnasium_check_env_passes() -> None:
    check_env(sim.env.SingleAgentEnv(rules="three-handed", opponents="simple"))
    check_env(sim.env.SingleAgentEnv(rules="eaai", opponents="strategies.examples:GreedyKnockPy",
                                     episode="hand", reward="points"))


@pytest.mark.parametrize("rules", PRESETS)
def test_aec_games_are_legal_and_rewards_sum_to_the_outcome(rules: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    for reward in ("game", "points"):
        log = tmp_path / f"{reward}.jsonl"
        env = sim.env.env(rules=rules, reward=reward, log_path=log)
        totals = [_random_aec(env, seed, rng) for seed in (3, 4)]
        env.close()
        records = read_log(log)
        assert [c.ok for c in replay_log(records)] == [True] * len(records)
        ends = [r for r in records if r["game_over"]]
        assert len(ends) == 2
        for total, end in zip(totals, ends, strict=True):
            seats = range(len(end["scores"]))
            if reward == "game":
                expected = [1.0 if s == end["game_winner"] else -1.0 for s in seats]
            else:
                expected = [float(x) for x in end["final_scores"]]
            assert [total[f"seat_{s}"] for s in seats] == expected
    assert cli_main(["replay", str(log), "--all"]) == 0


def test_a_seeded_game_deals_the_cards_of_ginbox_play(tmp_path: Path) -> None:
    env = sim.env.env(rules="eaai", log_path=tmp_path / "env.jsonl")
    _random_aec(env, 11, np.random.default_rng(0))
    env.close()
    env_first = read_log(tmp_path / "env.jsonl")[0]
    play_first = play_games("random,random", rules="eaai", games=1, seed=11, log=True).log[0]
    assert env_first["deal"] == play_first["deal"]
    assert (env_first["dealer"], env_first["env_seed"], env_first["env_game"]) == (
        play_first["dealer"], 11, 0)
    assert env_first["seats"] == ["agent", "agent"]


def _copies(table: Any, mask: np.ndarray) -> tuple[GameBuffers, EnvBuffers]:
    """Copies of an environment's table and env buffers, with the action mask ``mask``."""
    env = table.env
    return (GameBuffers(*(a.copy() for a in table.bufs)),
            EnvBuffers(env.opts, env.es.copy(), env.rewards.copy(), mask, env.buf.copy()))


@pytest.mark.parametrize("rules", PRESETS)
def test_masks_allow_exactly_the_actions_the_engine_accepts(rules: str) -> None:
    """At every decision of random games, each of the 108 actions is offered to the engine's
    apply_move (on a copy of the state, with nothing masked): it accepts exactly the masked
    ones."""
    env = sim.env.raw_env(rules=rules, episode="hand")
    rng = np.random.default_rng(5)
    everything = np.ones(N_ACTIONS, np.int8)
    decisions = set()
    for seed in range(60):  # random play knocks seldom: go on until a knock was offered
        if seed >= 4 and decisions == {0, 1, 2, 3}:
            break
        env.reset(seed=seed)
        table = env._table
        while not all(env.terminations.values()):
            mask = env.observe(env.agent_selection)["action_mask"]
            decisions.add(int(table.env.es[ES_DECISION]))
            accepted = np.zeros(N_ACTIONS, np.int8)
            for a in range(N_ACTIONS):
                accepted[a] = act(a, *_copies(table, everything)) == 0
            assert np.array_equal(accepted, mask), [action_name(a) for a in
                                                    np.flatnonzero(accepted != mask)]
            assert act(int(np.flatnonzero(mask == 0)[0]), *_copies(table, mask)) == ERR_MASKED
            env.step(int(rng.choice(np.flatnonzero(mask))))
    assert decisions == {0, 1, 2, 3}  # offer, draw, knock question, discard were all met


def test_observation_shows_own_cards_and_never_the_opponents_hidden_ones() -> None:
    env = sim.env.raw_env(rules="eaai")
    env.reset(seed=8)
    table = env._table
    rng = np.random.default_rng(2)
    for _ in range(300):
        obs = env.observe(env.agent_selection)["observation"]
        assert obs.shape == (OBS_LEN,) and obs.dtype == np.float32
        p = int(table.env.es[ES_PLAYER])
        assert int(table.bufs.hs[HS_TO_MOVE]) == p
        own = {card_str(c) for c in mask_cards(int(table.bufs.hs[HS_HAND + p]))}
        other = {card_str(c) for c in mask_cards(int(table.bufs.hs[HS_HAND + 1 - p]))}
        cards = np.array([card_str(int(c)) for c in CARD_OF_INDEX])
        assert set(cards[obs[O_HAND:O_HAND + 52] == 1]) == own
        holds = set(cards[obs[O_OPP_HOLDS:O_OPP_HOLDS + 52] == 1])
        assert holds <= other
        unseen = set(cards[obs[O_UNSEEN:O_UNSEEN + 52] == 1])
        assert other - holds <= unseen and not unseen & own
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)
                                                ["action_mask"]))))
        if all(env.terminations.values()):
            break


def _single_episode(env: Any, seed: int | None, rng: np.random.Generator
                    ) -> tuple[list[Any], float]:
    """(observations, actions and rewards in order; the summed reward) of one episode."""
    obs, info = env.reset(seed=seed)
    trace = [obs.copy()]
    total = 0.0
    while True:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, term, trunc, info = env.step(action)
        trace += [action, reward, obs.copy()]
        total += reward
        if term or trunc:
            return trace, total


def test_single_agent_env_games_are_legal_and_repeat_for_a_seed(tmp_path: Path) -> None:
    opponents = ["simple", "strategies.examples:LowCardHoarder"]
    traces = []
    for run in range(2):
        env = sim.env.SingleAgentEnv(rules="three-handed", opponents=opponents, seat=1,
                                     reward="points", log_path=tmp_path / f"{run}.jsonl")
        rng = np.random.default_rng(9)
        (trace_1, total_1), (trace_2, total_2) = (_single_episode(env, 21, rng),
                                                  _single_episode(env, None, rng))
        env.close()
        traces.append(trace_1 + trace_2)
    a, b = traces
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert (tmp_path / "0.jsonl").read_bytes() == (tmp_path / "1.jsonl").read_bytes()
    records = read_log(tmp_path / "0.jsonl")
    assert all(c.ok for c in replay_log(records))
    assert records[0]["seats"] == ["simple", "agent", "strategies.examples:LowCardHoarder"]
    ends = [r for r in records if r["game_over"]]
    assert [r["env_game"] for r in ends] == [0, 1]
    assert (total_1, total_2) == (ends[0]["final_scores"][1], ends[1]["final_scores"][1])


def test_single_agent_env_ends_the_episode_on_an_illegal_action() -> None:
    env = sim.env.SingleAgentEnv(rules="eaai", opponents="random")
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, term, _, info = env.step(illegal)
    assert (reward, term, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(ValueError, match="the episode is over: call reset"):
        env.step(illegal)
    _, info = env.reset()
    assert info["game"] == 1 and info["action_mask"].any()


def test_single_agent_env_renders_the_scores_and_the_learners_seat() -> None:
    env = sim.env.SingleAgentEnv(rules="eaai", opponents="random")
    env.reset(seed=0)
    assert env.render() == f"game 0: scores [0, 0], learner seat {env.seat}"


def _vector_run(n: int, steps: int, seed: int, **options: Any) -> list[np.ndarray]:
    env = VectorEnv(n, **options)
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    out = [obs, infos["action_mask"]]
    for _ in range(steps):
        obs, rew, term, trunc, infos = env.step(random_actions(infos["action_mask"], rng))
        out += [obs, rew, term, trunc, infos["action_mask"]]
    env.close()
    return out


@pytest.mark.parametrize("rules", PRESETS)
def test_vector_env_games_are_legal_repeat_and_sum_to_the_outcome(rules: str,
                                                                  tmp_path: Path) -> None:
    options = {"rules": rules, "opponents": "simple", "reward": "points"}
    log = tmp_path / "vec.jsonl"
    first = _vector_run(6, 400, 5, log_path=log, **options)
    second = _vector_run(6, 400, 5, **options)
    assert all(np.array_equal(x, y) for x, y in zip(first, second, strict=True))
    records = read_log(log)
    checks = replay_log(records)
    assert checks and all(c.ok for c in checks)
    finished = [r for r in records if r["game_over"]]
    assert finished, "no game finished"
    rewards = np.sum([x for x in first[3::5]], axis=0)  # per row, over every step
    learner_points = {}
    for r in records:  # hand points of seat 0 (the learner), by row: game g is row g % 6
        row = r["env_game"] % 6
        if r["result"]["winner"] == 0:
            learner_points[row] = learner_points.get(row, 0) + r["result"]["points"]
    assert [float(learner_points.get(row, 0)) for row in range(6)] == rewards.tolist()


def test_vector_env_row_zero_plays_the_single_agent_envs_game() -> None:
    vec = VectorEnv(3, rules="three-handed", opponents="greedy-knock")
    single = sim.env.SingleAgentEnv(rules="three-handed", opponents="greedy-knock")
    obs_v, info_v = vec.reset(seed=13)
    obs_s, info_s = single.reset(seed=13)
    rng = np.random.default_rng(0)
    for _ in range(300):
        assert np.array_equal(obs_v[0], obs_s)
        assert np.array_equal(info_v["action_mask"][0], info_s["action_mask"])
        actions = random_actions(info_v["action_mask"], rng)
        obs_v, rew_v, term_v, _, info_v = vec.step(actions)
        obs_s, rew_s, term_s, _, info_s = single.step(int(actions[0]))
        assert (rew_v[0], term_v[0]) == (rew_s, term_s)
        if term_s:
            break


def test_random_actions_are_legal_and_uniform() -> None:
    masks = np.zeros((3, N_ACTIONS), np.int8)
    masks[0, [A_DISCARD, A_KNOCK + 5]] = 1
    masks[2, 2] = 1
    rng = np.random.default_rng(0)
    draws = np.array([random_actions(masks, rng) for _ in range(4000)])
    assert set(draws[:, 0]) == {A_DISCARD, A_KNOCK + 5}
    assert abs((draws[:, 0] == A_DISCARD).mean() - 0.5) < 0.05
    assert set(draws[:, 1]) == {0} and set(draws[:, 2]) == {2}


def test_bad_options_are_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="episode='round' is not valid"):
        sim.env.raw_env(episode="round")
    with pytest.raises(ValueError, match="reward='win' is not valid"):
        sim.env.SingleAgentEnv(reward="win")
    with pytest.raises(ValueError, match="unknown rules preset"):
        VectorEnv(2, rules="gin-2000")
    with pytest.raises(ValueError, match="built-in strategies only"):
        VectorEnv(2, rules="eaai", opponents="strategies.examples:LowCardHoarder")
    env = sim.env.raw_env(rules="eaai")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="is not legal now: legal actions are pass, "
                                         "take_upcard"):
        env.step(A_DISCARD)
    assert json.dumps(action_name(A_KNOCK)) == '"knock AS"'


def test_unknown_options_and_unwritable_logs_are_refused_when_built(tmp_path: Path) -> None:
    """At construction, in one line, as ``ginbox play --log`` refuses a log it cannot write
    before playing (not at the first hand end, many steps later); nothing is left behind."""
    with pytest.raises(ValueError, match=r"^foo=1 is not an option of sim.env.env: expected "
                                         r"rules, episode, reward, log_path, render_mode$"):
        sim.env.env(foo=1)
    missing = "log_path='/nonexistent/x.jsonl' cannot be written: No such file or directory"
    for make in (lambda: sim.env.SingleAgentEnv(rules="eaai", log_path="/nonexistent/x.jsonl"),
                 lambda: sim.env.env(rules="eaai", log_path="/nonexistent/x.jsonl"),
                 lambda: VectorEnv(2, rules="eaai", log_path="/nonexistent/x.jsonl")):
        with pytest.raises(ValueError, match=f"^{re.escape(missing)}$"):
            make()
    with pytest.raises(ValueError, match=r"cannot be written: Is a directory$"):
        sim.env.SingleAgentEnv(log_path=tmp_path)
    with pytest.raises(ValueError, match=r"^log_path='' is not valid: expected a file name"):
        VectorEnv(2, log_path="")
    assert list(tmp_path.iterdir()) == []  # the probe's temporary is gone
    env = sim.env.SingleAgentEnv(rules="eaai", log_path=tmp_path / "ok.jsonl")
    env.close()
    assert list(tmp_path.iterdir()) == []  # no hand played: no log yet


@pytest.mark.parametrize(("rules", "opponents", "message"), [
    ("eaai", ["simple", "simple"], "eaai rules seat 2 players: expected 1 opponent, got 2"),
    ("three-handed", ["simple"] * 3, "three-handed rules seat 3 players: expected 1 opponent "
                                     "(for every other seat) or 2, got 3"),
])
def test_a_wrong_number_of_opponents_is_named_for_the_table(rules: str, opponents: list[str],
                                                            message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        sim.env.SingleAgentEnv(rules=rules, opponents=opponents)


# ----------------------------------------------------------------------- a policy as a strategy


def _layers(seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [(rng.normal(0, 0.3, (OBS_LEN, 16)), rng.normal(0, 0.3, 16)),
            (rng.normal(0, 0.3, (16, N_ACTIONS)), rng.normal(0, 0.3, N_ACTIONS))]


@pytest.mark.parametrize("rules", PRESETS)
def test_view_array_gives_back_the_engines_view(rules: str) -> None:
    env = sim.env.raw_env(rules=rules)
    env.reset(seed=2)
    table = env._table
    rng = np.random.default_rng(3)
    for _ in range(400):
        rebuilt = view_array(View.from_arrays(table.bufs.player_view, table.bufs.pile))
        assert np.array_equal(rebuilt, table.bufs.player_view)
        env.step(int(rng.choice(np.flatnonzero(table.env.mask))))
        if all(env.terminations.values()):
            break


def test_a_policy_plays_the_same_game_as_a_strategy_and_in_the_environment(
        tmp_path: Path) -> None:
    layers = _layers(0)
    env = sim.env.SingleAgentEnv(rules="eaai", opponents="simple", seat=0,
                                 log_path=tmp_path / "env.jsonl")
    obs, info = env.reset(seed=3)
    term = False
    while not term:
        obs, _, term, _, info = env.step(int(choose(layers, obs, info["action_mask"])))
    env.close()
    played = play_games([NumpyPolicy(layers=layers), "simple"], rules="eaai", games=1, seed=3,
                        log=True).log
    in_env = read_log(tmp_path / "env.jsonl")
    keys = ("deal", "dealer", "moves", "result", "scores", "game_winner")
    assert [{k: r[k] for k in keys} for r in in_env] == [{k: r[k] for k in keys}
                                                         for r in played]


def test_a_saved_policy_plays_from_the_command_line(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "policy.npz"
    save_policy(path, _layers(1))
    loaded = load_policy(path)
    assert all(np.array_equal(a, b) for la, lb in zip(loaded, _layers(1), strict=True)
               for a, b in zip(la, lb, strict=True))
    code = cli_main(["play", "--strategies", f"sim.env.policy:NumpyPolicy:path={path},random",
                     "--rules", "eaai", "--games", "3", "--seed", "1"])
    assert code == 0 and "sim.env.policy:NumpyPolicy" in capsys.readouterr().out
    (tmp_path / "bad.npz").write_bytes(b"not a policy")
    with pytest.raises(ValueError, match="cannot read the policy"):
        load_policy(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="expected one per action"):
        save_policy(path, [(np.zeros((OBS_LEN, 3)), np.zeros(3))])


# ----------------------------------------------------------------------------------- the docs

DOC = Path(__file__).resolve().parent.parent / "docs" / "environments.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)


def test_environments_md_examples_print_what_they_show(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Every python block runs, in order, in one namespace; a text block right after one is
    exactly what it prints."""
    monkeypatch.chdir(tmp_path)
    blocks = FENCE.findall(DOC.read_text(encoding="utf-8"))
    namespace: dict[str, Any] = {}
    ran = 0
    for (lang, body), nxt in zip(blocks, [*blocks[1:], ("", "")], strict=True):
        if lang != "python":
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(body, str(DOC), "exec"), namespace)
        ran += 1
        if nxt[0] == "text":
            assert out.getvalue() == nxt[1], body
    assert ran >= 4 and (tmp_path / "policy.npz").is_file()
    commands = [line[2:] for lang, body in blocks if lang == "console"
                for line in body.splitlines() if line.startswith("$ ginbox ")]
    assert commands
    for command in commands:  # they use the policy saved above
        assert cli_main(shlex.split(command)[1:]) == 0, command


def test_environments_md_tables_match_the_encoding() -> None:
    text = DOC.read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+)(?:-(\d+))? \| `(\w+)` \|", text, re.M)
    documented = [(name, int(lo), int(hi or lo)) for lo, hi, name in rows]
    actual = [(name, OBS_LAYOUT.offset(name), OBS_LAYOUT.offset(name) + size - 1)
              for name, size in OBS_LAYOUT.pieces]
    assert documented == actual
    assert f"A float32 vector of {OBS_LEN} numbers" in text
    assert f"{N_ACTIONS} actions" in text and f"| {A_KNOCK} + i |" in text


def test_the_card_planes_cover_each_card_once() -> None:
    env = sim.env.raw_env(rules="three-handed")
    env.reset(seed=6)
    rng = np.random.default_rng(6)
    for _ in range(200):
        for agent in env.possible_agents:
            obs = env.observe(agent)["observation"]
            planes = obs[:6 * 52].reshape(6, 52)
            assert np.array_equal(planes[[0, 1, 2, 3, 5]].sum(axis=0), np.ones(52))
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)
                                                ["action_mask"]))))
        if all(env.terminations.values()):
            break


def test_a_saved_policy_plays_in_a_league(tmp_path: Path) -> None:
    from sim.league import run_league

    path = tmp_path / "policy.npz"
    save_policy(path, _layers(2))
    policy = f"sim.env.policy:NumpyPolicy:path={path}"
    result = run_league({"name": "policy_league", "seed": 1, "games": 2, "rules": "eaai",
                         "strategies": [policy, "random", "simple"]}, jobs=1,
                        out=tmp_path / "league", quiet=True)
    board = result.leaderboard
    assert set(board["strategy"]) == {policy, "random", "simple"}
    assert int(board["games"].sum()) == 2 * 2 * 6  # 6 ordered pairings, 2 games, 2 seats


def test_a_saved_policy_passes_the_strategy_conformance_harness(tmp_path: Path) -> None:
    from sim.testing import check_strategy

    path = tmp_path / "policy.npz"
    layers = _layers(3)
    layers[-1][1][A_KNOCK:] += 20.0  # knocks when it may, so self-play games end soon
    save_policy(path, layers)
    report = check_strategy(f"sim.env.policy:NumpyPolicy:path={path}",
                            presets=("eaai",), games=1)
    assert report.games > 0 and report.hands > 0


def _paired_vector_runs(rules: str, steps: int = 300, **options: Any
                        ) -> list[tuple[np.ndarray, ...]]:
    """The same games stepped with the same actions through the encoded observations and
    through ``observation="view"``: (planes, views, masks, rewards, terms) of every step."""
    planes = VectorEnv(5, rules=rules, opponents="simple", **options)
    views = VectorEnv(5, rules=rules, opponents="simple", observation="view", **options)
    (obs, info), (raw, info_raw) = planes.reset(seed=8), views.reset(seed=8)
    rng = np.random.default_rng(8)
    out = [(obs, raw, info["action_mask"], info_raw["action_mask"], np.zeros(5), np.zeros(5),
            np.zeros(5, bool), np.zeros(5, bool))]
    for _ in range(steps):
        actions = random_actions(info["action_mask"], rng)
        obs, rew, term, _, info = planes.step(actions)
        raw, rew_raw, term_raw, _, info_raw = views.step(actions)
        out.append((obs, raw, info["action_mask"], info_raw["action_mask"], rew, rew_raw, term,
                    term_raw))
    return out


@pytest.mark.parametrize("rules", PRESETS)
def test_vector_env_view_observations_are_the_engine_views_of_the_same_games(rules: str) -> None:
    """``observation="view"`` changes the observations only: the same masks, rewards and
    terminations, and each view encodes to the observation the default gives (a seat outside
    the hand at the end gets its view without the hand's private slots)."""
    env = VectorEnv(2, rules=rules, observation="view")
    assert env.observation_space.shape == (2, V_LEN) and env.observation_space.dtype == np.int64
    encoded = np.zeros(OBS_LEN, np.float32)
    hidden = 0
    for obs, raw, mask, mask_raw, rew, rew_raw, term, term_raw in _paired_vector_runs(rules):
        assert raw.shape == (5, V_LEN) and raw.dtype == np.int64
        assert np.array_equal(mask, mask_raw) and np.array_equal(rew, rew_raw)
        assert np.array_equal(term, term_raw)
        for i in range(5):
            outside = not obs[i, O_HAND:O_HAND + 52].any()
            if outside:  # the learner sat out the hand its episode ended in
                hidden += 1
                assert term[i] and (raw[i, V_HAND], raw[i, V_DEADWOOD], raw[i, V_DRAWN]) == (
                    0, 0, -1)
                continue
            encode_observation(raw[i], encoded, False)
            assert np.array_equal(encoded, obs[i])
            assert not term[i] or raw[i, V_DECISION] == DEC_OVER
    assert rules == "eaai" or hidden > 0, "no episode ended in a hand the learner sat out"


@pytest.mark.parametrize("rules", PRESETS)
def test_margin_rewards_are_the_hand_points_won_minus_lost(rules: str, tmp_path: Path) -> None:
    """``reward="margin"``: the hand's points to its winner and minus them to the other player
    of the hand (the seat sitting out gets nothing), by the hand log."""
    log = tmp_path / "margin.jsonl"
    opponents = "random" if rules == "eaai" else "simple"  # hands won, lost and sat out
    runs = _vector_run(6, 400, 5, rules=rules, opponents=opponents, reward="margin",
                       log_path=log)
    rewards = np.sum([x for x in runs[3::5]], axis=0)
    margin, outcomes = np.zeros(6), set()
    for r in read_log(log):
        winner, points = r["result"]["winner"], r["result"]["points"]
        if winner == 0:
            margin[r["env_game"] % 6] += points
            outcomes.add("won")
        elif winner is not None and 0 in (r["dealer"], r["nondealer"]):
            margin[r["env_game"] % 6] -= points
            outcomes.add("lost")
        elif winner is not None:
            outcomes.add("sat out")
    assert rewards.tolist() == margin.tolist()
    assert outcomes >= ({"won", "lost"} if rules == "eaai" else {"lost", "sat out"})


def test_observation_and_reward_options_are_checked() -> None:
    with pytest.raises(ValueError, match=r"^observation='pixels' is not valid: expected one "
                                         r"of 'planes', 'view'$"):
        VectorEnv(2, observation="pixels")
    with pytest.raises(ValueError, match=r"^reward='net' is not valid: expected one of 'game', "
                                         r"'points', 'margin'$"):
        VectorEnv(2, reward="net")


@pytest.mark.parametrize("make", [lambda: sim.env.SingleAgentEnv(opponents="human"),
                                  lambda: sim.env.VectorEnv(2, opponents="human")])
def test_a_person_is_no_environment_opponent(make: Any) -> None:
    """An environment steps its opponents in this process, where no person can answer (its
    standard input is not a terminal under pytest): refused in one line naming the seat."""
    with pytest.raises(ValueError, match=r"^strategies\[0\]='human': human is the seat of a "
                                         r"person .* name a bot for that seat"):
        make()

