"""``ginbox train`` and sim.learn: the recorded self-play, the training file's checks, a
seeded and resumable training, and a whole tiny run through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sim.cli import main
from sim.engine.hand import AFTER_LEN, forget_after
from sim.engine.rules import Rules
from sim.engine.view import V_DECISION, V_HAND, V_PLAYERS, legal_moves
from sim.learn.selfplay import (
    M_CANDIDATES,
    M_DECISION,
    M_GAME,
    M_GAME_WON,
    M_HAND_RESULT,
    M_MOVE,
    M_OWNER,
    M_POINTS,
    Shard,
    record_games,
)
from sim.learn.spec import load_training
from sim.play.driver import Seeds
from strategies.net import read_only
from strategies.registry import parse_strategy

torch = pytest.importorskip("torch", reason="the learn extra (PyTorch) is part of make test")

TINY = {"name": "tiny", "seed": 3, "rounds": 1, "tables": ["eaai"], "games": 4,
        "chunk_size": 2, "holdout": 2, "expert": "mc:samples=4", "hidden": [6, 5],
        "epochs": 2, "batch": 32, "evaluate_games": 1}


def _shard(table: str = "eaai", games: int = 2, first: int = 0) -> Shard:
    from strategies.net import NET_WEIGHTS

    seeds = Seeds.from_seed(11)
    views, meta, cands, values, kept = record_games(
        Rules.preset(table).to_array(), parse_strategy("mc:samples=4").params_array(),
        read_only(NET_WEIGHTS), seeds.deck, seeds.strategy, first, games)
    return Shard(table, views, meta, cands, values, kept)


def test_records_are_the_movers_decisions_with_their_outcomes() -> None:
    shard = _shard()
    assert shard.games == 2 and len(shard.views) > 100
    meta = shard.meta
    assert set(meta[:, M_GAME]) == {0, 1}
    after = np.zeros(AFTER_LEN, np.int64)
    moves = np.zeros(16, np.int64)
    for view, row, cands in zip(shard.views, meta, shard.candidates, strict=True):
        forget_after(after)
        n = legal_moves(view, after, moves)
        assert n > 1  # only decisions with a choice are kept
        assert row[M_MOVE] in moves[:n]
        assert row[M_MOVE] in cands[:max(1, row[M_CANDIDATES])]
        assert view[V_DECISION] == row[M_DECISION] and view[V_PLAYERS] == 2
        assert bin(int(view[V_HAND])).count("1") in (10, 11)
    # outcomes: a hand's rows agree on its winner, signed points, one game winner a game
    for game in (0, 1):
        rows = meta[meta[:, M_GAME] == game]
        owners = {int(r[M_OWNER]) for r in rows if r[M_GAME_WON] == 1}
        assert len(owners) == 1
        won = rows[rows[:, M_HAND_RESULT] == 1]
        assert (won[:, M_POINTS] > 0).all()
        assert (rows[rows[:, M_HAND_RESULT] == 0][:, M_POINTS] < 0).all()


def test_records_do_not_depend_on_how_games_are_chunked() -> None:
    whole = _shard(games=2)
    second = _shard(games=1, first=1)
    rows = whole.meta[:, M_GAME] == 1
    assert np.array_equal(whole.views[rows], second.views)
    assert np.array_equal(whole.meta[rows], second.meta)
    assert np.array_equal(whole.values[rows], second.values)


def test_shard_round_trips(tmp_path: Path) -> None:
    shard = _shard(games=1)
    path = tmp_path / "s.npz"
    path.write_bytes(shard.to_bytes())
    again = Shard.read(str(path))
    assert again.table == "eaai" and again.games == 1
    for name in ("views", "meta", "candidates", "values"):
        assert np.array_equal(getattr(again, name), getattr(shard, name))


@pytest.mark.parametrize("change, message", [
    ({"tables": ["eaai", "eaai"]}, "tables="),
    ({"tables": ["pinochle"]}, "tables="),
    ({"games": 0}, "games=0 is out of range"),
    ({"hidden": [600, 4]}, "hidden="),
    ({"expert": "tuned"}, "expected mc"),
    ({"expert": "mc:net=1"}, "the rounds set net"),
    ({"uses": 16}, "uses=16"),
    ({"evaluate_seed": 3}, "is the training seed"),
    ({"games": 1_000_000, "keep_rounds": 3, "rounds": 3}, "at most 8,000,000"),
    ({"opponents": {"eaai": ["human"]}}, "human"),
    ({"colour": "blue"}, "unknown key"),
    ({"learning_rate": 0}, "learning_rate=0"),
])
def test_bad_training_files_are_refused(change: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_training({**TINY, **change})


def test_the_command_refuses_bad_files_and_writes_nothing(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nseed = 1\nrounds = 1\ntables = ["eaai"]\ngames = -4\n')
    out = tmp_path / "out"
    assert main(["train", str(bad), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "games=-4 is out of range" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def _positions():
    from sim.learn.data import positions

    return positions(_shard(games=2))


def test_training_is_seeded_and_resumes_to_the_same_weights(tmp_path: Path) -> None:
    from sim.learn.model import to_flat
    from sim.learn.train import Schedule, train

    data = _positions()
    half = len(data) // 2
    from sim.learn.data import Positions

    fields = Positions.__dataclass_fields__
    first = Positions(**{k: getattr(data, k)[:half] for k in fields})
    rest = Positions(**{k: getattr(data, k)[half:] for k in fields})
    schedule = Schedule(hidden=(6, 5), epochs=3, batch=64, seed=5)
    model, curve = train(first, rest, schedule)
    again, _ = train(first, rest, schedule)
    assert np.array_equal(to_flat(model), to_flat(again))
    assert [row["epoch"] for row in curve] == [1, 2, 3]
    # interrupted in its second epoch, then resumed from the checkpoint: the same weights
    checkpoint = tmp_path / "c.pt"
    seen = [0]

    def stop_in_epoch_two(rows: int) -> None:
        seen[0] += rows
        if seen[0] > len(first) + 10:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(first, rest, schedule, checkpoint, progress=stop_in_epoch_two)
    assert torch.load(checkpoint, weights_only=False)["epoch"] == 1
    resumed, resumed_curve = train(first, rest, schedule, checkpoint)
    assert np.array_equal(to_flat(resumed), to_flat(model))
    assert resumed_curve == curve


def test_a_tiny_training_end_to_end(tmp_path: Path, capsys) -> None:
    from sim.learn.loop import round_dir

    spec = tmp_path / "tiny.toml"
    spec.write_text("\n".join(f"{k} = {json.dumps(v)}" for k, v in TINY.items()) + "\n")
    out = tmp_path / "out"
    assert main(["train", str(spec), "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "## Strength by round" in printed and "net:weights=" in printed
    weights = round_dir(out, 1) / "net.npz"
    from strategies.net import load_net

    net, meta = load_net(weights)
    assert meta["round"] == 1 and meta["expert"] == "mc:samples=4" and meta["seed"] == 3
    assert len(list((round_dir(out, 1) / "data").glob("eaai-*.npz"))) == 2
    table = (out / "strength.csv").read_text().splitlines()
    assert table[0].startswith("round,player,table,opponent,games,win_rate")
    assert len(table) == 1 + 2 + 4  # round 0: the expert; round 1: apprentice and expert
    # a finished training resumes to nothing new; without --resume it is refused
    assert main(["train", str(spec), "--out", str(out), "--jobs", "1", "--quiet",
                 "--resume"]) == 0
    capsys.readouterr()
    assert np.array_equal(load_net(weights)[0], net)
    assert main(["train", str(spec), "--out", str(out), "--jobs", "1", "--quiet"]) == 2
    assert "use --resume" in capsys.readouterr().err


ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("path", sorted((ROOT / "experiments").glob("train_*.toml")),
                         ids=lambda p: p.stem)
def test_the_shipped_training_files_load(path: Path, monkeypatch) -> None:
    from sim.learn.spec import load_any_training

    monkeypatch.chdir(ROOT)  # an init path is relative to the checkout, as the commands run
    spec = load_any_training(path)
    assert spec.name and spec.games >= spec.chunk_size * spec.holdout


def test_the_training_from_the_belief_expert_searches_with_the_network_from_round_one(
        monkeypatch) -> None:
    """docs/lab/2026-12-07-net-from-belief.md names these experts: with init, round 1's
    expert already orders its shortlist with the shipped network."""
    monkeypatch.chdir(ROOT)
    spec = load_training("experiments/train_net_belief.toml")
    assert (spec.seed, spec.evaluate_seed, spec.rounds, spec.hidden) == (2029, 90210, 2,
                                                                         (256, 128))
    assert spec.expert_for(1, spec.init) == ("mc:belief=1,develop=3,opp_model=1,net=2,"
                                             "weights=strategies/net_v1.npz")
    assert spec.expert_for(2, "r1.npz") == "mc:belief=1,develop=3,opp_model=1,net=2,weights=r1.npz"
