"""mc's belief: the records' labels, the compiled pass against PyTorch's, belief-drawn worlds,
the training file's checks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.engine.cards import FULL_MASK
from sim.engine.melds import min_deadwood_mask, popcount
from sim.engine.rng import stream_seed
from sim.engine.view import V_HAND, V_PILE_MASK
from sim.learn.belief_data import M_OPPONENT, chunk_lineup, play_chunk
from sim.learn.spec import load_any_training
from strategies.builtin import SCRATCH_LEN
from strategies.mc_belief import BELIEF_FILE, BELIEF_META, BELIEF_WEIGHTS, logits_batch
from strategies.mc_worlds import (
    S_BELIEF,
    S_PASSED_KNOCK,
    inference,
    knock_bar,
    sample_world,
    world_opponent,
)
from strategies.mc_worlds import opponent_known as known_of

POPULATION = ("simple", "greedy-knock:knock_at=0")


@pytest.fixture(scope="module")
def shard():  # type: ignore[no-untyped-def]
    return play_chunk(5, "eaai", 0, 0, 2, POPULATION, 2)


def test_records_label_the_true_hand_from_the_movers_view(shard) -> None:  # type: ignore[no-untyped-def]
    assert shard.games == 2 and len(shard.views) > 20
    for view, hand in zip(shard.views, shard.hands, strict=True):
        assert popcount(int(hand)) == 10
        assert hand & view[V_HAND] == 0 and hand & view[V_PILE_MASK] == 0
        known = int(known_of(view))
        assert known & int(hand) == known  # what he took and still holds is in his hand
    assert set(shard.meta[:, M_OPPONENT]) <= set(range(len(POPULATION)))


def test_a_chunk_is_the_same_whoever_plays_it(shard) -> None:  # type: ignore[no-untyped-def]
    again = play_chunk(5, "eaai", 0, 0, 2, POPULATION, 2)
    assert np.array_equal(again.views, shard.views) and np.array_equal(again.hands, shard.hands)
    assert shard.lineup == tuple(chunk_lineup(5, 0, 0, POPULATION, 2))


def test_compiled_logits_equal_pytorch(shard) -> None:  # type: ignore[no-untyped-def]
    torch = pytest.importorskip("torch")
    from sim.learn.belief_model import BeliefNet, batch_tensors, belief_data, to_flat

    torch.manual_seed(3)
    model = BeliefNet(16)
    with torch.no_grad():  # give every tensor weight so each path counts
        for p in model.parameters():
            p.normal_(0.0, 0.3)
    data = belief_data([shard], ["eaai"])
    rows = np.arange(len(data))
    cards, dense, features, _, _ = batch_tensors(data, rows)
    expected = model(cards, dense, features).detach().double().numpy()
    got = logits_batch(to_flat(model), data.views)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def _odds(scratch: np.ndarray, card_odds: dict[int, float], rest: float) -> None:
    floats = scratch.view(np.float64)
    for code in range(64):
        floats[S_BELIEF + code] = card_odds.get(code, rest) if (FULL_MASK >> code) & 1 else 0.0


def test_belief_worlds_follow_the_odds_and_the_facts(shard) -> None:  # type: ignore[no-untyped-def]
    view = shard.views[len(shard.views) // 2]
    known = int(known_of(view))
    unseen = FULL_MASK & ~int(view[V_HAND]) & ~int(view[V_PILE_MASK]) & ~known
    cards = [c for c in range(64) if (unseen >> c) & 1]
    sure, never = cards[0], cards[1]
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    _odds(scratch, {sure: 1e12, never: 0.0}, 1.0)
    for k in range(50):
        sample_world(view, scratch, np.uint64(stream_seed(np.uint64(9), k)), inference(belief=1))
        opp = world_opponent(view, scratch)
        assert popcount(opp) == 10 and opp & known == known
        assert opp & (int(view[V_HAND]) | int(view[V_PILE_MASK])) == 0
        assert (opp >> sure) & 1 and not (opp >> never) & 1


def test_a_world_says_whether_its_opponent_passed_a_knock(shard) -> None:  # type: ignore[no-untyped-def]
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    seen = set()
    for r, view in enumerate(shard.views):
        limit = int(knock_bar(view, -1))
        for k in range(3):
            sample_world(view, scratch, np.uint64(stream_seed(np.uint64(4), 8 * r + k)),
                         inference(develop=40, opp_model=1))
            passed = limit >= 0 and min_deadwood_mask(world_opponent(view, scratch)) <= limit
            assert scratch[S_PASSED_KNOCK] == int(passed)
            seen.add(bool(passed))
    assert seen == {False, True}


def test_the_shipped_belief_names_what_made_it() -> None:
    assert BELIEF_FILE.exists() and BELIEF_WEIGHTS.flags.writeable is False
    assert BELIEF_META["command"] == "ginbox train" and BELIEF_META["seed"] == 2027
    import sim
    assert BELIEF_FILE in sim._stamped_files(Path(sim.__file__).resolve().parent.parent)


def test_mc_with_the_belief_and_the_opponent_model_plays_legal_games() -> None:
    from sim.testing import check_strategy

    report = check_strategy("mc:belief=1,develop=3,opp_model=1,samples=8",
                            presets=["eaai", "three-handed"], games=1)
    assert report.hands > 0 and report.checks  # it raises on an illegal move


@pytest.mark.parametrize(("change", "message"), [
    ({"model": "tree"}, "model='tree' is not valid"),
    ({"population": {"eaai": ["simple", "tests.strategies:Anything"]}}, "population.eaai"),
    ({"population": {"eaai": ["simple"]}}, "at least two"),
    ({"every": 0}, "every=0 is out of range"),
    ({"games": 20}, "expected at least holdout=10"),
    ({"hidden": 4096}, "hidden=4096 is not valid"),
    ({"rounds": 2}, "rounds"),
])
def test_bad_belief_files_are_refused_in_one_line(change: dict, message: str) -> None:
    data = {"name": "b", "model": "belief", "seed": 1, "tables": ["eaai"], "games": 500}
    data.update(change)
    with pytest.raises(ValueError, match=message) as err:
        load_any_training(data)
    assert "\n" not in str(err.value)


def test_the_cli_refuses_a_bad_belief_file_with_status_2(tmp_path: Path) -> None:
    path = tmp_path / "b.toml"
    path.write_text('name = "b"\nmodel = "belief"\nseed = 1\ntables = ["eaai"]\ngames = 5\n')
    run = subprocess.run([sys.executable, "-m", "sim", "train", str(path)],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "holdout" in run.stderr
