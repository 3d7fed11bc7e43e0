"""mc's knock model: the records' labels and facts, the compiled pass against PyTorch's, what
the shipped model learned, the rollouts reading it, the training file's checks."""

from __future__ import annotations

import numpy as np
import pytest

from sim.engine.view import (
    V_KNOCK_LIMIT,
    V_LEN,
    V_OPP_GINS,
    V_OPP_KNOCK_DEADWOOD,
    V_OPP_KNOCKS,
    V_PLAYERS,
    V_SCORE_OPP,
    V_SCORE_SELF,
    V_TARGET,
)
from sim.learn.belief_spec import build_belief
from sim.learn.knock import M_GAME, M_HAND, M_PLAYER, play_chunk
from sim.learn.spec import load_any_training
from strategies.builtin import SCRATCH_LEN
from strategies.mc_knock import (
    F_DEADWOOD,
    F_GINS,
    F_KNOCK_DEADWOOD,
    F_KNOCKS,
    F_LIMIT,
    F_OTHER_SCORE,
    F_OWN_SCORE,
    F_PASSED,
    F_PLAYERS,
    F_STOCK,
    F_TARGET,
    KNOCK_FILE,
    KNOCK_META,
    KNOCK_WEIGHTS,
    KNOCK_WORK_LEN,
    N_FACTS,
    check_knock,
    logit_from_sums,
    logits_of,
    model_knocks,
    pack,
)
from strategies.mc_worlds import S_KNOCK_FACTS, S_KNOCK_WORK, load_opponent_style

POPULATION = ("greedy-knock:knock_at=10", "greedy-knock:knock_at=0")
"""One player who knocks whenever he may, one who knocks only for gin."""


@pytest.fixture(scope="module")
def shard():  # type: ignore[no-untyped-def]
    spec = build_belief({"name": "k", "model": "knock", "seed": 5, "tables": ["eaai"],
                         "games": 40, "chunk_size": 4, "holdout": 2,
                         "population": {"eaai": list(POPULATION)}})
    return play_chunk(spec, "eaai", 0, 1)


def test_records_label_each_knock_decision_by_the_rule_that_made_it(shard) -> None:  # type: ignore[no-untyped-def]
    assert shard.games == 4 and len(shard.knocked) > 30
    facts, knocked, player = shard.facts, shard.knocked, shard.meta[:, M_PLAYER]
    assert set(player) == {0, 1}
    assert (facts[:, F_DEADWOOD] <= facts[:, F_LIMIT]).all()  # asked only when he may knock
    assert (facts[:, F_LIMIT] == 10).all() and (facts[:, F_TARGET] == 100).all()
    assert (facts[:, F_PLAYERS] == 2).all()
    assert (knocked[player == 0] == 1).all()  # knocks whenever he may
    assert np.array_equal(knocked[player == 1], (facts[player == 1, F_DEADWOOD] == 0))
    assert (facts[player == 0, F_PASSED] == 0).all()  # he never lets a knock pass
    # the gin waiter: his first decision of a hand has passed nothing, each later one has
    waiter = np.flatnonzero(player == 1)
    key = shard.meta[waiter, M_GAME] * 100 + shard.meta[waiter, M_HAND]
    first = np.r_[True, key[1:] != key[:-1]]
    assert np.array_equal(facts[waiter, F_PASSED], (~first).astype(np.int64))
    # how he ended the game's earlier hands: the waiter never knocks with deadwood
    assert (facts[waiter, F_KNOCKS] == 0).all() and (facts[waiter, F_KNOCK_DEADWOOD] == 0).all()
    # the knocker ends a hand at each of his decisions (he knocks at once): his counts are
    # those of his earlier records in the same game, exactly
    knocker = np.flatnonzero(player == 0)
    for i, row in enumerate(knocker):
        earlier = knocker[:i][shard.meta[knocker[:i], M_GAME] == shard.meta[row, M_GAME]]
        deadwood = facts[earlier, F_DEADWOOD]
        assert facts[row, F_GINS] == (deadwood == 0).sum()
        assert facts[row, F_KNOCKS] == (deadwood > 0).sum()
        assert facts[row, F_KNOCK_DEADWOOD] == deadwood.max(initial=0)
    assert facts[knocker, F_KNOCKS].max() > 0
    assert ((0 <= facts[:, F_STOCK]) & (facts[:, F_STOCK] <= 31)).all()
    assert (facts[:, F_OWN_SCORE] < 100).all() and (facts[:, F_OTHER_SCORE] < 100).all()


def test_a_chunk_is_the_same_whoever_plays_it(shard) -> None:  # type: ignore[no-untyped-def]
    spec = build_belief({"name": "k", "model": "knock", "seed": 5, "tables": ["eaai"],
                         "games": 40, "chunk_size": 4, "holdout": 2,
                         "population": {"eaai": list(POPULATION)}})
    again = play_chunk(spec, "eaai", 0, 1)
    assert np.array_equal(again.facts, shard.facts) and np.array_equal(again.knocked,
                                                                       shard.knocked)


def test_compiled_logits_equal_pytorch(shard) -> None:  # type: ignore[no-untyped-def]
    torch = pytest.importorskip("torch")
    from sim.learn.knock import KnockNet, predict, to_flat

    torch.manual_seed(3)
    model = KnockNet(12)
    for p in model.parameters():
        torch.nn.init.normal_(p, std=0.5)
    weights = check_knock(to_flat(model))
    assert np.allclose(logits_of(weights, shard.facts), predict(model, shard.facts), atol=1e-5)


def test_the_shipped_model_reads_the_players_style() -> None:
    assert KNOCK_FILE.exists() and KNOCK_WEIGHTS.flags.writeable is False
    assert KNOCK_META["command"] == "ginbox train" and KNOCK_META["seed"] == 2029

    def logit(deadwood: int, facts: dict[int, int]) -> float:
        row = np.zeros((1, N_FACTS), np.int64)
        row[0, [F_DEADWOOD, F_STOCK, F_TARGET, F_PLAYERS, F_LIMIT]] = deadwood, 20, 100, 2, 10
        for at, value in facts.items():
            row[0, at] = value
        return float(logits_of(KNOCK_WEIGHTS, row)[0])

    assert logit(0, {}) > 0 and logit(0, {F_GINS: 3}) > 0  # everybody knocks for gin
    # a player who went gin three times and never knocked, and let a knock pass this hand,
    # waits; one who knocked four times, with up to 9, knocks
    assert logit(6, {F_GINS: 3, F_PASSED: 1}) < 0
    assert logit(6, {F_KNOCKS: 4, F_KNOCK_DEADWOOD: 9}) > 0


def test_the_rollouts_read_the_opponents_style_once_and_complete_the_model() -> None:
    view = np.zeros(V_LEN, np.int64)
    view[[V_OPP_KNOCKS, V_OPP_GINS, V_OPP_KNOCK_DEADWOOD, V_SCORE_OPP, V_SCORE_SELF,
          V_TARGET, V_PLAYERS, V_KNOCK_LIMIT]] = 3, 1, 8, 40, 70, 100, 2, 10
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    load_opponent_style(view, scratch)
    facts = scratch[S_KNOCK_FACTS:S_KNOCK_FACTS + N_FACTS]
    assert (facts[F_KNOCKS], facts[F_GINS], facts[F_KNOCK_DEADWOOD], facts[F_OWN_SCORE],
            facts[F_OTHER_SCORE], facts[F_LIMIT]) == (3, 1, 8, 40, 70, 10)
    work = scratch.view(np.float64)[S_KNOCK_WORK:S_KNOCK_WORK + KNOCK_WORK_LEN]
    verdicts = set()
    for deadwood in range(11):
        for stock, passed in ((30, False), (12, True)):
            knocks = model_knocks(KNOCK_WEIGHTS, facts, work, deadwood, stock, passed)
            row = facts.copy()[None, :]  # the same facts through the whole pass at once
            logit = logits_of(KNOCK_WEIGHTS, row)[0]
            assert logit_from_sums(KNOCK_WEIGHTS, work) == pytest.approx(logit, abs=1e-9)
            assert knocks == (logit >= 0)
            verdicts.add(knocks)
    assert verdicts == {False, True}


def test_mc_with_the_knock_model_plays_legal_games_its_own_way() -> None:
    from sim.play.driver import play_games
    from sim.testing import check_strategy

    report = check_strategy("mc:belief=1,develop=3,opp_model=3,samples=8",
                            presets=["eaai", "three-handed"], games=1)
    assert report.hands > 0 and report.checks  # it raises on an illegal move
    runs = [play_games(["mc:samples=32,opp_model=" + m, "tuned@eaai"], "eaai", games=6,
                       seed=4, log=True) for m in ("1", "3")]
    assert [r["moves"] for r in runs[0].log] != [r["moves"] for r in runs[1].log]


def test_bad_weights_are_refused() -> None:
    good = pack(np.zeros((21, 2)), np.zeros(2), np.zeros(2), 0.5)
    check_knock(good)
    with pytest.raises(ValueError, match="encoding"):
        check_knock(np.r_[np.float32(9), good[1:]])
    with pytest.raises(ValueError, match="hidden size"):
        check_knock(good[:-1])
    with pytest.raises(ValueError, match="not finite"):
        check_knock(np.r_[good[:-1], np.float32(np.nan)])


@pytest.mark.parametrize(("change", "message"), [
    ({"every": 4}, "unknown key"),
    ({"hidden": 65}, "hidden=65 is not valid: expected a layer size 1..64"),
    ({"games": 20}, "expected at least holdout=10"),
    ({"population": {"eaai": ["simple"]}}, "at least two"),
    ({"games": 300_000}, "knock decisions: expected at most 10,000,000"),
])
def test_bad_knock_files_are_refused_in_one_line(change: dict, message: str) -> None:
    data = {"name": "k", "model": "knock", "seed": 1, "tables": ["eaai"], "games": 500}
    data.update(change)
    with pytest.raises(ValueError, match=message) as err:
        load_any_training(data)
    assert "\n" not in str(err.value)
