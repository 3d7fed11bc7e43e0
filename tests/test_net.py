"""The network strategy ``net`` and mc's uses of it: inputs from the mover's view alone, the
compiled forward pass against PyTorch's, weights files, legality in every preset."""

from __future__ import annotations

import numpy as np
import pytest

from sim.analysis.positions import iter_decision_points
from sim.engine.cards import parse_cards
from sim.engine.hand import AFTER_LEN, HS_HAND, HS_STOCK_TOP, HS_TO_MOVE, forget_after
from sim.engine.view import V_LEN, fill_view, legal_moves
from sim.play.driver import play_games
from sim.testing import check_strategy
from strategies.builtin import SCRATCH_LEN
from strategies.net import (
    FEATURE_VERSION,
    FROZEN_LIMIT,
    N_ACTIONS,
    N_CARD_INPUTS,
    NET_WEIGHTS,
    W_LOGITS,
    W_VALUES,
    action_of,
    card_index,
    check_net,
    encode_batch,
    flat_length,
    forward,
    load_net,
    pack,
    policy_move,
    unpack,
    weight_sizes,
)
from strategies.registry import parse_strategy

torch = pytest.importorskip("torch", reason="the learn extra (PyTorch) is part of make test")


def _views(games: int = 2, seed: int = 5, rules: str = "eaai") -> np.ndarray:
    """The view of every decision of a few logged games, as the movers saw them."""
    log = play_games("tuned,simple" if rules == "eaai" else "tuned,simple,greedy-knock",
                     rules=rules, games=games, seed=seed, log=True).log
    views, previous = [], None
    for record in log:
        if previous is not None and previous["game"] != record["game"]:
            previous = None
        views += [p.view for p in iter_decision_points(record, previous)]
        previous = record
    return np.array(views)


def _random_net(hidden: tuple[int, int] = (24, 16), seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return pack({name: rng.normal(0, 0.3, shape) for name, shape in weight_sizes(*hidden)})


def _compiled(net: np.ndarray, view: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    after = np.zeros(AFTER_LEN, np.int64)
    forget_after(after)
    moves = np.zeros(16, np.int64)
    n = legal_moves(view, after, moves)
    forward(net, view, after, scratch, moves, n)
    floats = scratch.view(np.float64)
    return moves[:n].copy(), floats[W_LOGITS:W_LOGITS + n].copy(), floats[W_VALUES:W_VALUES + 6]


def test_card_and_action_indices_cover_the_deck_once() -> None:
    cards = parse_cards("AS 2S KS AH KC TD")
    assert [card_index(c) for c in cards] == [0, 1, 12, 13, 51, 35]
    deck = [card_index(c) for c in parse_cards([f"{r}{s}" for s in "SHDC"
                                                for r in "A23456789TJQK"])]
    assert deck == list(range(52))
    assert [action_of(m) for m in (64, 65, 66, 67, 68)] == [52, 53, 54, 55, 56]
    assert N_ACTIONS == 57


def test_flat_weights_round_trip_and_are_checked() -> None:
    net = _random_net()
    assert len(net) == flat_length(24, 16)
    again = pack(unpack(net))
    assert np.array_equal(again, net)
    assert check_net(net) is not None
    bad = net.copy()
    bad[0] = FEATURE_VERSION + 1
    with pytest.raises(ValueError, match="input encoding"):
        check_net(bad)
    with pytest.raises(ValueError, match="values, expected"):
        check_net(net[:-1])
    nan = net.copy()
    nan[-1] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        check_net(nan)
    huge = net.astype(np.float64)
    huge[-1] = 1e300  # finite in float64, infinite in the weights' float32
    with pytest.raises(ValueError, match="not finite"):
        check_net(huge)


def test_the_shipped_weights_are_frozen_into_cached_code() -> None:
    """numba freezes a global array of at most FROZEN_LIMIT bytes into the compiled code and
    caches it; a larger one makes ``mc`` and the dispatcher compile in every process."""
    assert NET_WEIGHTS.dtype == np.float32 and not NET_WEIGHTS.flags.writeable
    assert flat_length(int(NET_WEIGHTS[3]), int(NET_WEIGHTS[4])) == len(NET_WEIGHTS) > 1000
    assert NET_WEIGHTS.nbytes <= FROZEN_LIMIT


def test_compiled_forward_equals_pytorch() -> None:
    from sim.learn.data import CARD_WIDTH
    from sim.learn.model import from_flat, to_flat

    views = _views()
    model = from_flat(_random_net())  # PyTorch's float32 weights
    net = to_flat(model)
    assert np.array_equal(to_flat(from_flat(net)), net)
    cards, dense, actions, options, counts = encode_batch(views, CARD_WIDTH)
    assert counts.max() <= CARD_WIDTH
    with torch.no_grad():
        logits, values = model.float()(torch.from_numpy(cards.astype(np.int64)),
                                       torch.from_numpy(dense),
                                       torch.from_numpy(actions.astype(np.int64)),
                                       torch.from_numpy(options))
    for i, view in enumerate(views):
        moves, compiled_logits, compiled_values = _compiled(net, view)
        assert [action_of(m) for m in moves] == [a for a in actions[i] if a >= 0]
        np.testing.assert_allclose(compiled_logits, logits[i, :len(moves)].numpy(),
                                   rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(compiled_values, values[i].numpy(), rtol=1e-5, atol=1e-5)


def test_outputs_do_not_depend_on_the_workspace() -> None:
    """Stale values in the workspace (what the last decision left there, or anything)
    change no output: the forward pass reads its position's view and nothing else."""
    net = _random_net()
    record = play_games("tuned,simple", rules="eaai", games=1, seed=9, log=True).log[0]
    points = list(iter_decision_points(record))
    assert len(points) > 10
    rng = np.random.default_rng(0)
    for point in points:
        moves, logits, values = _compiled(net, point.view)
        scratch = rng.integers(-2**40, 2**40, SCRATCH_LEN)
        after = np.zeros(AFTER_LEN, np.int64)
        forget_after(after)
        again = np.zeros(16, np.int64)
        n = legal_moves(point.view, after, again)
        forward(net, point.view, after, scratch, again, n)
        floats = scratch.view(np.float64)
        assert np.array_equal(floats[W_LOGITS:W_LOGITS + n], logits)
        assert np.array_equal(floats[W_VALUES:W_VALUES + 6], values)


def test_a_weights_file_plays_legally_in_every_preset(tmp_path) -> None:
    """(The shipped ``net`` is checked with every built-in in test_conformance.py.)"""
    from sim.learn.loop import write_net

    path = tmp_path / "random.npz"
    write_net(path, _random_net(seed=8), {})
    report = check_strategy(f"net:weights={path}", games=1)
    assert "legal moves in every decision and role" in report.checks
    assert set(report.decisions) >= {"box", "captain", "dealer", "non-dealer"}


def test_weights_file_plays_as_the_registered_net(tmp_path) -> None:
    from sim.learn.loop import write_net
    from strategies.net import NET_WEIGHTS

    path = tmp_path / "same.npz"
    write_net(path, np.array(NET_WEIGHTS), {"note": "the shipped weights"})
    net, meta = load_net(path)
    assert meta == {"note": "the shipped weights"} and not net.flags.writeable
    shipped = play_games("net,simple", rules="eaai", games=6, seed=4).games
    user = play_games(f"net:weights={path},simple", rules="eaai", games=6, seed=4).games
    assert shipped.drop(columns=["strategy_0"], errors="ignore").equals(
        user.drop(columns=["strategy_0"], errors="ignore"))


@pytest.mark.parametrize("text, message", [
    ("net:weights=", "names no file"),
    ("net:weights=/no/such/file.npz", "cannot read network weights"),
    ("simple:weights=x.npz", "plays no network"),
    ("net:weights=a.npz,weights=b.npz", "given twice"),
])
def test_bad_weights_are_refused(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_strategy(text)


def test_weights_of_another_shape_are_refused(tmp_path) -> None:
    path = tmp_path / "bad.npz"
    np.savez(path, net=np.zeros(5))
    with pytest.raises(ValueError, match="bad.npz"):
        parse_strategy(f"mc:net=1,weights={path}")


def test_canonical_text_keeps_the_weights(tmp_path) -> None:
    from sim.learn.loop import write_net
    from strategies.net import NET_WEIGHTS

    path = tmp_path / "w.npz"
    write_net(path, np.array(NET_WEIGHTS), {})
    spec = parse_strategy(f"mc:net=3,weights={path}")
    assert spec.canonical == f"mc:net=3,weights={path}"
    assert not spec.compiled and spec.kernel is not None


def test_policy_move_is_legal_on_real_positions() -> None:
    net = _random_net(seed=11)
    for view in _views(games=1, seed=2, rules="three-handed"):
        scratch = np.zeros(SCRATCH_LEN, np.int64)
        after = np.zeros(AFTER_LEN, np.int64)
        forget_after(after)
        legal = np.zeros(16, np.int64)
        n = legal_moves(view, after, legal)
        move = policy_move(net, view, after, scratch, np.zeros(16, np.int64))
        assert move in legal[:n]


def test_the_hidden_cards_never_reach_the_inputs() -> None:
    """Two deals that differ only in the opponent's hidden cards and the stock give the same
    view, so the same inputs: the encoding reads the view array and nothing else."""
    from sim.engine.hand import deal, new_hand_buffers
    from sim.engine.rules import Rules
    from sim.engine.view import GI_LEN

    rules = Rules.preset("eaai").to_array()
    deck = np.array(parse_cards(
        "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH "
        "AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"),
        np.int64)
    views = []
    for swap in (False, True):
        hs, pile, after, log = new_hand_buffers(8)
        deal(hs, pile, deck, rules)
        if swap:  # exchange the opponent's hand with the first cards of the stock
            mover = int(hs[HS_TO_MOVE])
            top = int(hs[HS_STOCK_TOP])
            opponent = [c for c in range(64) if (int(hs[HS_HAND + 1 - mover]) >> c) & 1]
            stock = [int(c) for c in deck[top:top + len(opponent)]]
            hs[HS_HAND + 1 - mover] = sum(1 << c for c in stock)
            deck[top:top + len(opponent)] = opponent
        view = np.zeros(V_LEN, np.int64)
        fill_view(view, hs, pile, np.zeros(GI_LEN, np.int64), 0)
        views.append(view)
    assert np.array_equal(views[0], views[1])
    a = encode_batch(np.array(views), 160)
    for part in a:
        assert np.array_equal(part[0], part[1])
    assert N_CARD_INPUTS == 624


@pytest.mark.parametrize(("table", "games"), [("eaai", 40), ("three-handed", 30)])
def test_the_shipped_network_on_held_out_self_play(table: str, games: int) -> None:
    """On self-play of its last expert (``mc:leaf=4,net=2``) from a seed training never used,
    the shipped network picks the expert's move at least 85% of the time, and its game-win
    head is calibrated: a Brier score under 0.22 (a constant 1/2 scores 0.25), and in each
    quarter of its predictions the games won are within 12 points of the mean prediction,
    rising from quarter to quarter."""
    from sim.engine.rules import Rules
    from sim.learn.data import positions
    from sim.learn.model import from_flat
    from sim.learn.selfplay import Shard, record_games
    from sim.learn.train import Schedule, evaluate
    from sim.play.seating import Seeds

    seeds = Seeds.from_seed(20261205)
    shard = Shard(table, *record_games(
        Rules.preset(table).to_array(), parse_strategy("mc:leaf=4,net=2").params_array(),
        NET_WEIGHTS, seeds.deck, seeds.strategy, 0, games))
    data = positions(shard)
    model = from_flat(NET_WEIGHTS)
    scores = evaluate(model, data, Schedule())
    assert len(data) > 5000 and scores["agreement"] >= 0.85 and scores["game_brier"] < 0.22
    with torch.no_grad():
        _, values = model(torch.from_numpy(data.cards.astype(np.int64)),
                          torch.from_numpy(data.dense),
                          torch.from_numpy(data.actions.astype(np.int64)),
                          torch.from_numpy(data.options))
    predicted = torch.sigmoid(values[:, 0]).numpy()
    quarters = np.array_split(np.argsort(predicted, kind="stable"), 4)
    won = [float(data.game_won[q].mean()) for q in quarters]
    assert won == sorted(won)
    for quarter, rate in zip(quarters, won, strict=True):
        assert abs(float(predicted[quarter].mean()) - rate) <= 0.12
