"""PPO on the vector environment (sim.learn.ppo, sim.learn.netpolicy): the policy plays only
what the environment's mask allows and, greedily, exactly ``net``'s moves; GAE on a hand-built
example; a tiny seeded run is deterministic and resumes to the same weights; its weights play
through ``net:weights=``; bad settings are refused in one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim.engine.hand import (
    AFTER_LEN,
    DEC_DISCARD,
    DEC_KNOCK,
    MOVE_KNOCK,
    MOVE_PASS,
    forget_after,
)
from sim.engine.view import V_DECISION, V_KNOCKED
from sim.env.encoding import INDEX_OF_CARD, N_ACTIONS
from sim.env.vector import VectorEnv
from sim.play.driver import play_games
from strategies.builtin import SCRATCH_LEN
from strategies.net import load_net, policy_move

torch = pytest.importorskip("torch", reason="the learn extra (PyTorch) is part of make test")

from sim.learn import ppo  # noqa: E402
from sim.learn.model import PolicyValueNet, to_flat  # noqa: E402
from sim.learn.netpolicy import (  # noqa: E402
    ENV_ACTION,
    Decisions,
    act,
    encode,
    evaluate,
    forward,
    state_value,
)

TINY = dict(num_envs=5, horizon=6, steps=60, eval_every=1, eval_hands=4, eval_deals=2,
            final_deals=2, final_opponents=("simple",), seed=3)


def _model(seed: int = 0) -> PolicyValueNet:
    torch.manual_seed(seed)
    model = PolicyValueNet(24, 16)
    with torch.no_grad():  # a policy with opinions: random rows where training would put them
        for p in model.parameters():
            p.normal_(0, 0.3)
    return model


def _compiled_action(net: np.ndarray, view: np.ndarray) -> int:
    """``net``'s move at ``view`` (compiled, two engine decisions at "knock?"), as an action
    of the environment."""
    after, scratch, moves = np.zeros(AFTER_LEN, np.int64), np.zeros(SCRATCH_LEN, np.int64), \
        np.zeros(16, np.int64)
    forget_after(after)
    move = int(policy_move(net, view.copy(), after, scratch, moves))
    if view[V_DECISION] != DEC_KNOCK:
        kind = view[V_DECISION]
    else:
        later = view.copy()
        later[V_DECISION], later[V_KNOCKED] = DEC_DISCARD, move == MOVE_KNOCK
        kind = 4 if move == MOVE_KNOCK else DEC_DISCARD
        forget_after(after)
        move = int(policy_move(net, later, after, scratch, moves))
    action = 52 + move - MOVE_PASS if move >= MOVE_PASS else int(INDEX_OF_CARD[move])
    return int(ENV_ACTION[kind, action])


@pytest.mark.parametrize("rules", ["eaai", "three-handed"])
def test_the_policy_plays_what_the_mask_allows_and_greedily_nets_move(rules: str) -> None:
    model = _model()
    net = load_net_array(model)
    env = VectorEnv(6, rules=rules, opponents="simple", observation="view")
    views, infos = env.reset(seed=4)
    rng = np.random.default_rng(0)
    checked = set()
    for _ in range(120):
        masks = infos["action_mask"]
        actions, rows, decisions = act(model, views, masks, "hand", rng)
        assert masks[rows, actions].all()
        greedy, _, _ = act(model, views, masks, "hand", None)
        for r, a in zip(rows, greedy, strict=True):
            assert a == _compiled_action(net, views[r])
            checked.add(int(views[r, V_DECISION]))
        allowed = np.zeros_like(masks)  # every option of both stages, as env actions
        first = decisions.first
        assert np.array_equal(first.legal, first.actions >= 0)  # the mask removed nothing
        for j, r in enumerate(rows):
            legal = first.env[j][first.legal[j]]
            allowed[r, legal[legal < N_ACTIONS]] = 1
        for branch in (0, 1):
            knock = np.flatnonzero(views[rows, V_DECISION] == DEC_KNOCK)
            later = views[rows[knock]].copy()
            later[:, V_DECISION], later[:, V_KNOCKED] = DEC_DISCARD, branch
            second = encode(later, masks[rows[knock]], np.full(len(knock), 4 if branch
                                                               else DEC_DISCARD))
            assert np.array_equal(second.legal, second.actions >= 0)
            for j, r in enumerate(rows[knock]):
                allowed[r, second.env[j][second.legal[j]]] = 1
        assert np.array_equal(allowed[rows], masks[rows])  # the network's options: the mask's
        full = np.zeros(len(views), np.int64)
        full[rows] = actions
        views, _, _, _, infos = env.step(full)
    assert checked == {0, 1, 2, 3}


def load_net_array(model: PolicyValueNet) -> np.ndarray:
    flat = to_flat(model)
    flat.setflags(write=False)
    return flat


def test_the_update_scores_the_actions_as_they_were_played() -> None:
    """PPO's ratio starts at 1: ``evaluate`` gives the log probabilities (both stages) and
    values ``act`` recorded, for any subset of the decisions."""
    model = _model(1)
    env = VectorEnv(8, rules="eaai", opponents="random", observation="view")  # long hands
    views, infos = env.reset(seed=9)
    rng = np.random.default_rng(2)
    parts = []
    for _ in range(100):
        actions, rows, decisions = act(model, views, infos["action_mask"], "hand", rng)
        parts.append(decisions)
        full = np.zeros(8, np.int64)
        full[rows] = actions
        views, _, _, _, infos = env.step(full)
    batch = Decisions.concat(parts)
    assert len(batch.parent) > 0  # some knock decisions, in two stages
    rows = np.sort(np.random.default_rng(3).choice(len(batch.value), 100, replace=False))
    with torch.no_grad():
        log_prob, entropy, value = evaluate(model, batch, rows, "hand")
    assert log_prob.numpy() == pytest.approx(batch.log_prob[rows], abs=1e-5)
    assert value.numpy() == pytest.approx(batch.value[rows], abs=1e-6)
    assert (entropy.numpy() >= 0).all()


def test_the_critic_trains_the_shared_trunk() -> None:
    """PPO's value loss reaches the trunk through the hand's heads (supervised training
    keeps them off it), and the values are the same either way."""
    model = _model(2)
    env = VectorEnv(4, rules="eaai", opponents="simple", observation="view")
    views, infos = env.reset(seed=1)
    _, _, decisions = act(model, views, infos["action_mask"], "hand", None)
    first = decisions.first
    _, values = forward(model, first)
    state_value(values, "hand").sum().backward()
    assert model.layer2.weight.grad.abs().sum() > 0
    width = int(first.counts.max())
    with torch.no_grad():
        plain = model(torch.from_numpy(first.cards[:, :width].astype(np.int64)),
                      torch.from_numpy(first.dense),
                      torch.from_numpy(first.actions.astype(np.int64)),
                      torch.from_numpy(first.options))[1]
    assert torch.equal(plain, values.detach())


def test_an_option_the_mask_rules_out_is_never_chosen() -> None:
    model = _model()
    env = VectorEnv(4, rules="eaai", opponents="simple", observation="view")
    views, infos = env.reset(seed=2)
    for _ in range(3):  # on to discards
        actions, rows, _ = act(model, views, infos["action_mask"], "hand", None)
        full = np.zeros(4, np.int64)
        full[rows] = actions
        views, _, _, _, infos = env.step(full)
    masks = infos["action_mask"].copy()
    greedy, rows, _ = act(model, views, masks, "hand", None)
    masks[rows, greedy] = 0  # forbid what the policy likes best
    rng = np.random.default_rng(1)
    for _ in range(50):
        chosen, rows2, _ = act(model, views, masks, "hand", rng)
        assert masks[rows2, chosen].all()


def test_gae_on_a_hand_built_example() -> None:
    # row 0: an episode ends at step 1; step 2 is the reset (no decision, value 0, a reward
    # from before the new episode's first decision); step 3 bootstraps from 0.4.
    # row 1: one episode, ending at step 3 (its bootstrap 5.0 is never read).
    rewards = np.array([[0.0, 0.0], [1.0, 0.0], [0.25, 0.0], [0.0, 2.0]])
    values = np.array([[0.5, 0.1], [0.2, 0.2], [0.0, 0.3], [0.3, 0.4]])
    terms = np.array([[0, 0], [1, 0], [0, 0], [0, 1]], bool)
    got = ppo.advantages(rewards, values, terms, np.array([0.4, 5.0]), gamma=1.0, lam=0.5)
    # delta_t = r_t + V_{t+1} (1 - term_t) - V_t; A_t = delta_t + lam (1 - term_t) A_{t+1}
    expected = np.array([[-0.3 + 0.5 * 0.8, 0.1 + 0.5 * 0.55],
                         [1.0 - 0.2, 0.1 + 0.5 * 0.9],
                         [0.25 + 0.3 + 0.5 * 0.1, 0.1 + 0.5 * 1.6],
                         [0.4 - 0.3, 2.0 - 0.4]])
    assert got == pytest.approx(expected, abs=1e-12)
    # gamma < 1, lam = 1: the discounted return minus the value
    got = ppo.advantages(np.array([[1.0], [1.0]]), np.zeros((2, 1)), np.array([[0], [1]], bool),
                         np.zeros(1), gamma=0.5, lam=1.0)
    assert got[:, 0].tolist() == [1.5, 1.0]


def test_a_tiny_run_is_deterministic_resumes_and_its_weights_play(tmp_path: Path,
                                                                  monkeypatch) -> None:
    settings = ppo.Settings(**TINY)
    assert settings.updates == 2
    first = ppo.run(settings, tmp_path / "a", quiet=True)
    ppo.run(settings, tmp_path / "b", quiet=True)
    weights = [load_net(tmp_path / run / "net.npz")[0] for run in ("a", "b")]
    assert np.array_equal(*weights) and not np.array_equal(
        weights[0], load_net(tmp_path / "a" / "checkpoints" / "net-00000.npz")[0])
    assert first["update"].tolist() == [0, 1, 2] and first["games"].tolist() == [4, 4, 4]
    real = ppo.ppo_update
    calls = []

    def stop_at_the_second(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(ppo, "ppo_update", stop_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        ppo.run(settings, tmp_path / "c", quiet=True)
    monkeypatch.setattr(ppo, "ppo_update", real)
    assert not (tmp_path / "c" / "net.npz").exists()
    ppo.run(settings, tmp_path / "c", resume=True, quiet=True)
    assert np.array_equal(load_net(tmp_path / "c" / "net.npz")[0], weights[0])
    played = play_games(f"net:weights={tmp_path / 'a' / 'net.npz'},random", rules="eaai",
                        games=3, seed=1)
    assert len(played.games) == 3


def test_fine_tuning_starts_from_the_file(tmp_path: Path) -> None:
    start = tmp_path / "start.npz"
    from sim.learn.loop import write_net

    write_net(start, to_flat(_model()), {})
    ppo.run(ppo.Settings(**{**TINY, "init": str(start), "final_deals": 0}), tmp_path / "ft",
            quiet=True)
    assert np.array_equal(load_net(tmp_path / "ft" / "checkpoints" / "net-00000.npz")[0],
                          load_net(start)[0])


@pytest.mark.parametrize(("argv", "message"), [
    (["--steps", "0"], "steps=0 is out of range: expected an integer 1..1,000,000,000,000"),
    (["--objective", "win"], "objective='win' is not valid: expected 'hand' or 'game'"),
    (["--opponents", "strategies.examples:LowCardHoarder"], "opponents: "
     "'strategies.examples:LowCardHoarder' is not a built-in strategy"),
    (["--init", "missing.npz"], "cannot read network weights 'missing.npz'"),
    (["--rules", "gin-2000"], "rules='gin-2000' is not valid"),
    (["--num-envs", "3"], "num_envs=3 is not valid: expected at least one row per opponent"),
])
def test_bad_settings_are_refused_in_one_line(argv: list[str], message: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert ppo.main([*argv, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert not (tmp_path / "run").exists()


def test_a_folder_holding_a_run_is_not_overwritten(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "notes.txt").write_text("mine")
    argv = ["--steps", "30", "--num-envs", "5", "--out", str(tmp_path / "run")]
    assert ppo.main(argv) == 2
    assert "is not empty: use --force" in capsys.readouterr().err
    assert (tmp_path / "run" / "notes.txt").read_text() == "mine"
