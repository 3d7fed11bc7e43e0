"""``mc``'s learned leaf evaluator: what its features read, exact values where the hand's end
fixes them, determinism, and the shipped model (its calibration on held-out self-play and
the training command reproducing itself).

Kept small: a few hundred self-play hands and a handful of worlds.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sim.engine.cards import FULL_MASK, mask_cards, parse_card
from sim.engine.game import shuffle_deck
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OVER,
    HS_HAND,
    HS_PILE_MASK,
    HS_STOCK_TOP,
    HS_TO_MOVE,
    HS_TOOK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    OK,
    advance,
    apply_move,
    deal,
    new_hand_buffers,
)
from sim.engine.rng import stream_seed
from sim.engine.rules import Rules
from sim.engine.view import GI_LEN, GI_PLAYERS, GI_TARGET, V_LEN, fill_view
from sim.play.driver import play_games
from strategies import game_value as gv
from strategies.mc_eval import (
    FEATURE_NAMES,
    META,
    MODEL_FILE,
    N_FEATURES,
    WEIGHTS,
    eval_features,
    leaf_value,
    meld_outs,
)
from strategies.mc_options import option_values
from strategies.tuned import N_TUNED_PARAMS, load_table_set, tuned_move
from studies.mc_eval import chances, scores, self_play_positions, train
from tests.test_mc import MINE, OPP, PILE, _brute_force_value, _knocked_view

#: The features read from the mover's view; the rest read the opponent's hand in the world.
VIEW_FEATURES = [i for i, name in enumerate(FEATURE_NAMES) if not name.startswith("opp_")
                 and "opp_deadwood" not in name]


def _mask(cards: str) -> int:
    return sum(1 << parse_card(c) for c in cards.split())


@pytest.mark.parametrize(("hand", "outs", "sets"), [
    ("5H 6H", "4H 7H", ""),
    ("5H 7H", "6H", ""),
    ("AS 2S", "3S", ""),  # no wrap past the ace or the king
    ("QC KC", "JC", ""),
    ("9S 9D", "9H 9C", "9H 9C"),
    ("5H 6H 7H 9S 9D 9C", "4H 8H 9H", "9H"),
    ("2S 8H KD", "", ""),
])
def test_meld_outs_are_the_cards_completing_a_meld_with_two_held(hand: str, outs: str,
                                                                 sets: str) -> None:
    assert meld_outs(_mask(hand)) == (_mask(outs) if outs else 0, _mask(sets) if sets else 0)


def _draw_positions(preset: str, hands: int, seed: int):
    """(hand state, pile, deck, info, view) at every draw decision of ``tuned`` self-play."""
    rules = Rules.preset(preset)
    params = np.zeros(N_TUNED_PARAMS, np.int64)
    scratch = np.zeros(64, np.int64)
    info = np.zeros(GI_LEN, np.int64)
    info[GI_TARGET], info[GI_PLAYERS] = rules.target, rules.players
    for h in range(hands):
        hs, pile, after, moves = new_hand_buffers(0)
        deck = np.zeros(52, np.int64)
        shuffle_deck(deck, np.array([stream_seed(np.uint64(seed), h)], np.uint64))
        deal(hs, pile, deck, rules.to_array())
        while (decision := advance(hs, pile, deck, after, moves)) != DEC_OVER:
            view = np.zeros(V_LEN, np.int64)
            fill_view(view, hs, pile, info, decision)
            if decision == DEC_DRAW:
                yield hs, pile, deck, info, view
            load_table_set(view, params)
            assert apply_move(hs, pile, deck, after, moves,
                              tuned_move(decision, params, view, after, scratch)) == OK


@pytest.mark.parametrize("preset", ["eaai", "three-handed"])
def test_features_read_the_view_and_the_opponents_hand_only(preset: str) -> None:
    """Re-deal the opponent's unknown cards and the stock consistently with the mover's view:
    the view is the same and so is every view feature; with the opponent's hand kept and
    only the stock re-dealt, every feature and the leaf value are the same."""
    shuffler = np.random.default_rng(8)
    checked = 0
    for hs, pile, deck, info, view in _draw_positions(preset, 12, seed=17):
        me = int(hs[HS_TO_MOVE])
        opp = 1 - me
        known = int(hs[HS_TOOK + opp]) & ~int(hs[HS_PILE_MASK]) & ~int(hs[HS_HAND + me])
        hidden_opp = int(hs[HS_HAND + opp]) & ~known
        top = int(hs[HS_STOCK_TOP])
        pool = mask_cards(hidden_opp) + [int(c) for c in deck[top:]]
        shuffler.shuffle(pool)
        k = len(mask_cards(hidden_opp))
        hs2 = hs.copy()
        hs2[HS_HAND + opp] = known | sum(1 << c for c in pool[:k])
        view2 = np.zeros(V_LEN, np.int64)
        fill_view(view2, hs2, pile, info, DEC_DRAW)
        assert np.array_equal(view, view2)
        f1, f2 = np.zeros(N_FEATURES, np.int64), np.zeros(N_FEATURES, np.int64)
        eval_features(view, int(hs[HS_HAND + opp]), f1)
        eval_features(view2, int(hs2[HS_HAND + opp]), f2)
        assert np.array_equal(f1[VIEW_FEATURES], f2[VIEW_FEATURES])
        deck2 = deck.copy()
        shuffler.shuffle(deck2[top:])  # the stock alone: nothing the evaluator reads
        hs3 = hs.copy()
        view3 = np.zeros(V_LEN, np.int64)
        fill_view(view3, hs3, pile, info, DEC_DRAW)
        value = leaf_value(view, int(hs[HS_HAND + opp]), f1)
        assert leaf_value(view3, int(hs3[HS_HAND + opp]), f2) == value
        assert 0.0 <= value <= 1.0
        checked += 1
    assert checked > 100


def test_a_made_gin_on_the_table_scores_exactly_as_the_showdown() -> None:
    """A hand that ends before the leaf is scored by its end, not by the evaluator: after a
    knock (and at the wall) the options' values are the brute-force game values."""
    view = _knocked_view(OPP, MINE, PILE, DEC_DISCARD)
    for o in option_values(view, "mc:samples=5,stop=0,trust=0,leaf=1"):
        assert o.value == pytest.approx(_brute_force_value(view, o.code), abs=1e-4)
    view = _knocked_view(OPP, MINE, PILE, DEC_KNOCK)
    options = {o.code: o for o in option_values(view, "mc:samples=4,stop=0,trust=0,leaf=3")}
    assert options[MOVE_NO_KNOCK].value == pytest.approx(gv.game_value(view, -1, 0), abs=1e-4)
    assert options[MOVE_KNOCK].value == pytest.approx(
        _brute_force_value(view, parse_card("5D")), abs=1e-4)


def test_leaf_value_mixes_the_hand_outcomes_by_game_value() -> None:
    """The value is the estimate's chances times the game values of a win, a loss and a
    draw at its points, read off the model by hand."""
    hs, pile, deck, info, view = next(_draw_positions("eaai", 1, seed=3))
    opp_hand = int(hs[HS_HAND + 1 - int(hs[HS_TO_MOVE])])
    features = np.zeros(N_FEATURES, np.int64)
    value = leaf_value(view, opp_hand, features)
    w, lo, pw, pl = (WEIGHTS[0] @ features.astype(np.float64)).tolist()
    w = 1 / (1 + np.exp(-w))
    lo = min(1.0 - w, 1 / (1 + np.exp(-lo)))
    expected = (w * gv.game_value(view, 1, int(max(1.0, pw) + 0.5))
                + lo * gv.game_value(view, 0, int(max(1.0, pl) + 0.5))
                + (1 - w - lo) * gv.game_value(view, -1, 0))
    assert value == pytest.approx(expected, abs=1e-12)
    assert features[0] == 1 and FULL_MASK & opp_hand & int(view[0]) == 0


def test_same_seed_same_games_with_the_leaf_evaluator() -> None:
    lineup = "mc:samples=6,leaf=2,simple"
    first = play_games(lineup, games=3, seed=12, rules="eaai").games
    assert first.equals(play_games(lineup, games=3, seed=12, rules="eaai").games)


def test_the_shipped_model_is_calibrated_on_held_out_self_play() -> None:
    """On hands of a seed training never used, the shipped model's mean win chance is the
    observed one and its Brier scores beat the base rate's; its metadata names the command."""
    assert MODEL_FILE.is_file() and WEIGHTS.shape == (2, 4, N_FEATURES)
    assert str(META["command"]).startswith("python -m studies.mc_eval")
    for t, preset in enumerate(("eaai", "three-handed")):
        rules = Rules.preset(preset)
        rows = self_play_positions(rules.to_array(), rules.players, rules.target, 400,
                                   np.uint64(424242))
        s = scores(WEIGHTS[t], rows)
        assert abs(s["win_bias"]) < 0.02
        assert s["brier_win"] < s["brier_win_base"] - 0.005
        assert s["brier_loss"] < s["brier_loss_base"] - 0.005
        assert s["rmse_points_win"] < 12
        # calibrated by fifths of the predicted chance: each fifth wins about as predicted
        win = chances(WEIGHTS[t], rows[:, :N_FEATURES].astype(np.float64))[0]
        won = rows[:, N_FEATURES] == 1
        order = np.argsort(win, kind="stable")
        fifths = np.array_split(order, 5)
        for part in fifths:
            assert abs(win[part].mean() - won[part].mean()) < 0.05
        assert won[fifths[-1]].mean() - won[fifths[0]].mean() > 0.15


def test_training_reproduces_itself_and_resumes(tmp_path: Path) -> None:
    """The command on a small schedule: the same weights twice, the second run reusing the
    saved self-play, and a learning curve row per doubling of the data."""
    first = train(chunks=2, hands=60, seed=5, ship=False, out=tmp_path)
    with np.load(tmp_path / "mc_eval.npz") as f:
        weights = f["weights"].copy()
        assert json.loads(str(f["meta"]))["command"] == first["command"]
    saved = sorted(p.name for p in (tmp_path / "data").iterdir())
    assert len(saved) == 6  # 2 training chunks and the held-out one, per table
    assert weights.shape == (2, 4, N_FEATURES)
    (tmp_path / "mc_eval.npz").unlink()
    again = train(chunks=2, hands=60, seed=5, ship=False, out=tmp_path)
    with np.load(tmp_path / "mc_eval.npz") as f:
        assert np.array_equal(f["weights"], weights)
    assert again == first
    assert (tmp_path / "curve.csv").read_text().count("\n") == 5  # header, 1 and 2 chunks x 2


def _hands_of(rows: np.ndarray) -> list[np.ndarray]:
    """Rows of self-play split into hands (the turn feature starts again at each deal)."""
    turn = rows[:, FEATURE_NAMES.index("turn")]
    starts = [0, *np.flatnonzero(turn[1:] <= turn[:-1]) + 1, len(rows)]
    return [rows[a:b] for a, b in zip(starts, starts[1:], strict=False)]


def test_positions_against_simple_are_tuneds_alone_in_alternating_seats() -> None:
    """``--against simple``: only ``tuned``'s draw decisions are kept, so a hand's rows are
    every second turn and one role, and the role changes hand by hand (``simple`` takes
    seat 0 in even hands, seat 1 in odd ones); self-play keeps both players' every turn."""
    rules = Rules.preset("eaai")
    role = FEATURE_NAMES.index("role")
    turn = FEATURE_NAMES.index("turn")
    args = (rules.to_array(), rules.players, rules.target, 8, np.uint64(5))
    hands = _hands_of(self_play_positions(*args, True))
    assert len(hands) == 8
    assert [int(h[0, role]) for h in hands] == [1, 0] * 4
    for h in hands:
        assert set(h[:, role]) == {h[0, role]}
        assert np.all(np.diff(h[:, turn]) == 2)
    for h in _hands_of(self_play_positions(*args, False)):
        assert set(h[:, role]) == {0, 1}
        assert np.all(np.diff(h[:, turn]) == 1)
    assert np.array_equal(self_play_positions(*args, True), self_play_positions(*args, True))


def test_training_against_simple_keeps_its_positions_apart(tmp_path: Path) -> None:
    """Its chunks are saved under their own names beside self-play's, and the model records
    the command that made it."""
    own = train(chunks=1, hands=40, seed=5, ship=False, out=tmp_path)
    vs = train(chunks=1, hands=40, seed=5, ship=False, out=tmp_path, against="simple")
    saved = sorted(p.name for p in (tmp_path / "data").iterdir())
    assert len(saved) == 8 and sum(name.endswith("_vs_simple.npy") for name in saved) == 4
    assert vs["command"] == own["command"] + " --against simple"
    assert vs["against"] == "simple" and "against" not in own
    assert vs["positions"] < own["positions"]
    with pytest.raises(ValueError, match="against"):
        train(chunks=1, hands=40, seed=5, ship=False, out=tmp_path, against="random")
