"""The clairvoyant ``mc`` of studies/ceiling: the true deal is the world its search rolls out,
one world decides as many would, its loop plays legal games and replays the base heuristic
exactly when it searches nothing, and its command line refuses bad settings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim.engine.cards import parse_card, parse_cards
from sim.engine.game import GO_ERROR, GO_SCORE, GO_WINNER, shuffle_deck
from sim.engine.hand import (
    DEC_DRAW,
    DEC_OVER,
    HS_DEADWOOD,
    HS_HAND,
    HS_N_MOVES,
    HS_PILE_LEN,
    HS_PILE_MASK,
    HS_STATE_LEN,
    HS_STOCK_TOP,
    HS_TO_MOVE,
    MOVE_DRAW_STOCK,
    MOVE_PASS,
    OK,
    advance,
    apply_move,
    deal,
    new_hand_buffers,
)
from sim.engine.melds import min_deadwood_mask
from sim.engine.rng import stream_seed
from sim.engine.rules import Rules
from sim.engine.view import (
    GI_LEN,
    GI_PLAYERS,
    GI_SCORE,
    GI_TARGET,
    V_DECISION,
    V_LEN,
    fill_view,
)
from sim.play.driver import Seeds, iter_games
from strategies.builtin import MEM_LEN, SCRATCH_LEN
from strategies.game_value import game_value
from strategies.mc import P_TRUST, S_CAND, S_COUNT, S_SUM, VALUE_ONE, score
from strategies.mc_choice import choose
from strategies.mc_options import option_values
from strategies.mc_worlds import (
    MAX_CANDIDATES,
    S_BASE,
    S_BASE_PILE,
    S_DECK,
    S_DIFF,
    inference,
    load_truth,
    sample_world,
)
from strategies.net import NET_WEIGHTS
from strategies.registry import parse_strategy
from studies import ceiling
from studies.ceiling import cli, match, parse_player, seat_rows
from studies.ceiling.play import N_COUNTS, SEES_ALL, SEES_HAND, clairvoyant_move
from studies.ceiling.report import common, markdown, share

EAAI = Rules.preset("eaai").to_array()
DEALER_HAND = "AS 2S 3S 4H 4D 4C 9C TC JC KD"  # three melds and the king: the queen of clubs gins
NONDEALER_HAND = "2H 5H 8H JH 3D 6D 9D QD 5C 7S"  # no meld: 65 deadwood


def _info(scores: tuple[int, int] = (0, 0)) -> np.ndarray:
    info = np.zeros(GI_LEN, np.int64)
    info[GI_SCORE:GI_SCORE + 2] = scores
    info[GI_TARGET] = 100
    info[GI_PLAYERS] = 2
    return info


def _scripted() -> tuple[np.ndarray, ...]:
    """The dealer's first draw of a scripted deal: both players passed the upcard (KH), the
    non-dealer drew the KS and threw it; the stock's next card is the QC, his gin."""
    first = parse_cards(f"{DEALER_HAND} {NONDEALER_HAND} KH KS QC")
    deck = np.array(first + [c for c in range(64) if c % 16 < 13 and c not in first][:52
                                                                                     - len(first)])
    assert sorted(deck) == sorted(c for c in range(64) if c % 16 < 13)
    hs, pile, after, moves = new_hand_buffers(0)
    deal(hs, pile, deck, EAAI)
    for move in (MOVE_PASS, MOVE_PASS, parse_card("KS")):
        advance(hs, pile, deck, after, moves)
        assert apply_move(hs, pile, deck, after, moves, move) == OK
    assert advance(hs, pile, deck, after, moves) == DEC_DRAW and hs[HS_TO_MOVE] == 0
    view = np.zeros(V_LEN, np.int64)
    fill_view(view, hs, pile, _info(), DEC_DRAW)
    return hs, pile, deck, after, view


def _mask(cards: str) -> int:
    return sum(1 << c for c in parse_cards(cards))


def test_the_truth_loaded_is_the_scripted_deal() -> None:
    hs, pile, deck, _, _ = _scripted()
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    load_truth(scratch, hs, pile, deck)
    world = scratch[S_BASE:S_BASE + HS_STATE_LEN]
    assert world[HS_HAND] == _mask(DEALER_HAND)
    assert world[HS_HAND + 1] == _mask(NONDEALER_HAND)
    assert world[HS_PILE_LEN] == 2 and list(scratch[S_BASE_PILE:S_BASE_PILE + 2]) == \
        parse_cards("KH KS")
    top = int(world[HS_STOCK_TOP])
    assert top == 22 and list(scratch[S_DECK + top:S_DECK + 52]) == list(deck[22:])
    assert scratch[S_DECK + top] == parse_card("QC")
    assert np.array_equal(world, hs[:HS_STATE_LEN])


def _positions(hands: int, seed: int = 5):
    """(hand state, pile, deck, after, view) at every decision of ``hands`` eaai hands in
    which both players are the clairvoyant ``mc``."""
    params = parse_strategy("mc").params_array()
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    mem = np.zeros(MEM_LEN, np.int64)
    rng = np.zeros(1, np.uint64)
    seen = np.zeros(V_LEN, np.int64)
    for h in range(hands):
        hs, pile, after, moves = new_hand_buffers(0)
        deck = np.zeros(52, np.int64)
        shuffle_deck(deck, np.array([stream_seed(np.uint64(seed), h)], np.uint64))
        deal(hs, pile, deck, EAAI)
        while (decision := advance(hs, pile, deck, after, moves)) != DEC_OVER:
            view = np.zeros(V_LEN, np.int64)
            fill_view(view, hs, pile, _info((20, 45)), decision)
            yield hs, pile, deck, after, view
            move = clairvoyant_move(NET_WEIGHTS, decision, params, view, after, mem, rng,
                                    scratch, hs, pile, deck, SEES_ALL, seen)
            assert apply_move(hs, pile, deck, after, moves, move) == OK


def test_the_truth_differs_from_a_sampled_world_only_in_the_hidden_cards() -> None:
    """At every decision the true deal and a world sampled from the view agree on every
    field of the state but the opponent's hand, the deadwood each holds (a cache the rollouts
    fill) and the move count; on the pile's top and cards; and on which cards the opponent's
    hand and the stock share between them."""
    truth = np.zeros(SCRATCH_LEN, np.int64)
    sampled = np.zeros(SCRATCH_LEN, np.int64)
    hidden_fields = [HS_DEADWOOD, HS_DEADWOOD + 1, HS_N_MOVES]
    checked = 0
    for hs, pile, deck, _, view in _positions(4):
        me = int(hs[HS_TO_MOVE])
        load_truth(truth, hs, pile, deck)
        sample_world(view, sampled, np.uint64(checked), inference(develop=40))
        a, b = truth[S_BASE:S_BASE + HS_STATE_LEN], sampled[S_BASE:S_BASE + HS_STATE_LEN]
        differ = [j for j in range(HS_STATE_LEN) if a[j] != b[j]]
        assert set(differ) <= {HS_HAND + 1 - me, *hidden_fields}
        n, top = int(a[HS_PILE_LEN]), int(a[HS_STOCK_TOP])
        assert truth[S_BASE_PILE + n - 1] == sampled[S_BASE_PILE + n - 1]
        assert a[HS_PILE_MASK] == sum(1 << int(c) for c in sampled[S_BASE_PILE:S_BASE_PILE + n])
        assert _hidden(truth, top, int(a[HS_HAND + 1 - me])) == \
            _hidden(sampled, top, int(b[HS_HAND + 1 - me]))
        checked += 1
    assert checked > 50


def _hidden(scratch: np.ndarray, top: int, opponent: int) -> list[int]:
    """The cards of a world's stock and opponent's hand, sorted."""
    return sorted([*map(int, scratch[S_DECK + top:S_DECK + 52]),
                   *(c for c in range(64) if opponent >> c & 1)])


def test_the_clairvoyant_scores_the_gin_the_stock_holds() -> None:
    """The stock's next card gins the dealer: on the true deal the stock is worth exactly the
    game value of a gin of 25 plus the non-dealer's 65, one world, and it draws there;
    ``mc``, which samples the stock, values it lower."""
    hs, pile, deck, after, view = _scripted()
    params = parse_strategy("mc").params_array()
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    move = clairvoyant_move(NET_WEIGHTS, DEC_DRAW, params, view, after,
                            np.zeros(MEM_LEN, np.int64), np.zeros(1, np.uint64), scratch, hs,
                            pile, deck, SEES_ALL, np.zeros(V_LEN, np.int64))
    assert move == MOVE_DRAW_STOCK
    n = int(scratch[S_COUNT])
    stock = [int(scratch[S_CAND + i]) for i in range(n)].index(MOVE_DRAW_STOCK)
    assert min_deadwood_mask(_mask(NONDEALER_HAND)) == 65
    assert scratch[S_COUNT + 1] == 1
    assert scratch[S_SUM + stock] == int(game_value(view, 1, 25 + 65) * VALUE_ONE + 0.5)
    sampled = {o.code: o.value for o in option_values(view, "mc:samples=32", seed=1)}
    assert sampled[MOVE_DRAW_STOCK] < scratch[S_SUM + stock] / VALUE_ONE - 0.1


@pytest.mark.parametrize("spec", ["mc", "mc:rollout=1", "mc:rollout=2,base=0", "mc:leaf=2"])
def test_one_world_of_truth_decides_as_many_copies_would(spec: str) -> None:
    """Every rollout policy is deterministic: the truth rolled out again gives the same
    values; and the decision rule on 16 copies of the world (the sums and squares 16 times
    over, where the early stop would end the search) is the one world's decision."""
    params = parse_strategy(spec).params_array()
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    mem, rng, seen = np.zeros(MEM_LEN, np.int64), np.zeros(1, np.uint64), np.zeros(V_LEN,
                                                                                  np.int64)
    z = params[P_TRUST] / 10.0
    searched = 0
    for hs, pile, deck, after, view in _positions(2, seed=8):
        decision = int(view[V_DECISION])
        move = clairvoyant_move(NET_WEIGHTS, decision, params, view, after, mem, rng, scratch,
                                hs, pile, deck, SEES_ALL, seen)
        n = int(scratch[S_COUNT])
        if n < 2:
            continue
        searched += 1
        sums = scratch[S_SUM:S_SUM + n].copy()
        assert score(NET_WEIGHTS, decision, params, view, scratch, n, np.uint64(0), True) == 1
        assert np.array_equal(scratch[S_SUM:S_SUM + n], sums)
        copies = scratch.copy()
        copies[S_SUM:S_SUM + n] *= 16
        copies[S_DIFF:S_DIFF + 2 * MAX_CANDIDATES * MAX_CANDIDATES] *= 16
        best = choose(scratch, n, 1, z)
        assert choose(copies, n, 16, z) == best
        assert move == scratch[S_CAND + best]
    assert searched > 10


@pytest.mark.parametrize("player", ["clairvoyant", "clairvoyant-hand:samples=8"])
@pytest.mark.parametrize("preset,others", [("eaai", ["simple"]),
                                           ("three-handed", ["tuned", "discard-tracking"])])
def test_the_clairvoyant_plays_legal_games_to_their_end(player: str, preset: str,
                                                       others: list[str]) -> None:
    """In every seat, whole games: no illegal move (the loop flags one), a winner who reached
    the target, and decisions searched."""
    rules = Rules.preset(preset)
    for seat in range(rules.players):
        counts = np.zeros(N_COUNTS, np.int64)
        rows = np.concatenate(list(seat_rows(parse_player(player), rules, others, seat, 3,
                                             Seeds.from_seed(6), counts)))
        assert not rows[:, GO_ERROR].any()
        winners = rows[:, GO_WINNER]
        assert ((0 <= winners) & (winners < rules.players)).all()
        assert (rows[np.arange(3), GO_SCORE + winners] >= 100).all()
        assert 0 < counts[1] <= counts[0]


@pytest.mark.parametrize("preset,others,base", [("eaai", ["simple"], "tuned@eaai"),
                                                ("three-handed", ["simple", "tuned"], "tuned")])
def test_searching_nothing_replays_the_base_heuristic(preset: str, others: list[str],
                                                      base: str) -> None:
    """``searched = 0``: every decision is the base move, so the clairvoyant's loop plays
    exactly the games ginbox's batch loop plays with the base heuristic in that seat."""
    rules = Rules.preset(preset)
    seeds = Seeds.from_seed(4)
    for seat in range(rules.players):
        lineup = list(others)
        lineup.insert(seat, base)
        expected = np.concatenate([r for r, _ in iter_games(rules, lineup, 6, seeds,
                                                            rotate=True)])
        got = np.concatenate(list(seat_rows(parse_player("clairvoyant:searched=0"), rules,
                                            others, seat, 6, seeds,
                                            np.zeros(N_COUNTS, np.int64))))
        assert np.array_equal(got, expected)


def test_a_seeded_match_is_deterministic_and_pairs_with_other_players() -> None:
    runs = [match(parse_player(p), "eaai", ["simple"], 3, 11, "vs simple")
            for p in ("clairvoyant", "clairvoyant", "clairvoyant-hand:samples=8")]
    (first, won), (again, won_again), (_, hand_won) = runs
    assert np.array_equal(won, won_again) and len(won) == len(hand_won) == 6
    drop = {"games_per_cpu_s"}
    assert {k: v for k, v in first.items() if k not in drop} == \
        {k: v for k, v in again.items() if k not in drop}


def test_sees_hand_deals_the_opponent_his_true_hand_in_every_world() -> None:
    """``clairvoyant-hand``: the worlds hold the opponent's true hand, the stock shuffled."""
    hs, pile, deck, after, view = _scripted()
    params = parse_strategy("mc:samples=16,stop=0,futile=0").params_array()
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    seen = np.zeros(V_LEN, np.int64)
    clairvoyant_move(NET_WEIGHTS, DEC_DRAW, params, view, after, np.zeros(MEM_LEN, np.int64),
                     np.array([3], np.uint64), scratch, hs, pile, deck, SEES_HAND, seen)
    assert scratch[S_COUNT + 1] == 16
    sample_world(seen, scratch, np.uint64(9), inference(develop=40))
    assert scratch[S_BASE + HS_HAND + 1] == _mask(NONDEALER_HAND)
    stock = sorted(int(c) for c in scratch[S_DECK + 22:S_DECK + 52])
    assert stock == sorted(int(c) for c in deck[22:])


def test_share_and_common_deals() -> None:
    floor, ceiling_wins = np.zeros(4, bool), np.ones(4, bool)
    assert share(np.array([1, 0, 1, 0], bool), floor, ceiling_wins)[0] == 0.5
    a, b = common(np.arange(6), np.arange(4), seats=2)
    assert list(a) == [0, 1, 3, 4] and list(b) == [0, 1, 2, 3]


def test_a_tiny_run_saves_its_table_and_resumes(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(ceiling, "OUT", tmp_path)
    argv = ["matches", "--games", "2", "--only", "vs simple", "--out", "tiny", "--players",
            "random", "simple", "clairvoyant"]
    cli.main(argv)
    assert (tmp_path / "tiny.csv").is_file()
    assert len(list((tmp_path / "tiny").glob("*.npy"))) == 3
    capsys.readouterr()
    cli.main(argv)
    assert capsys.readouterr().out.count("kept") == 3
    table = markdown("tiny")
    assert "| `clairvoyant` |" in table and "| `simple` | 50.0%" in table


@pytest.mark.parametrize("argv,says", [
    (["matches", "--games", "0"], "--games must be at least 1"),
    (["matches", "--only", "vs nobody"], "names no match"),
    (["matches", "--players", "clairvoyant:samplez=3"], "player 'clairvoyant:samplez=3'"),
    (["matches", "--players", "nosuchbot"], "player 'nosuchbot'"),
    (["matches", "--out", "../x"], "expected a plain name"),
    (["report", "--out", "none"], "no saved matches"),
])
def test_bad_settings_are_refused_in_one_line(argv: list[str], says: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(ceiling, "OUT", tmp_path)
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
