"""The game object (sim.play.state.GameState): whose move, what is legal, what is seen, moves
played or refused with the engine's reason, clones, replays, deals from outside, logged hands,
results, all in the game's own words and equal to what ginbox play plays."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from sim.engine.cards import card_str, parse_card
from sim.engine.hand import (
    DEC_DRAW,
    DEC_OFFER,
    ERR_NOT_IN_HAND,
    ERR_NOT_YOUR_DECISION,
    ERR_TAKEN_CARD,
    ERROR_TEXT,
    MOVE_DRAW_DISCARD,
    MOVE_PASS,
)
from sim.engine.rules import Rules
from sim.play.driver import play_games, strategy_answer
from sim.play.events import IllegalMove, move_code, move_name
from sim.play.state import GameState
from sim.records.replay import deck_of, replay_game
from strategies.examples import LowCardHoarder

EAAI = Rules.preset("eaai")
THREE = Rules.preset("three-handed")


def _buffers(state: GameState) -> list[np.ndarray]:
    return [a.copy() for a in state.bufs]


def _same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def _random_game(state: GameState, seed: int) -> GameState:
    """Play the caller's seats with random legal moves to the end."""
    rng = np.random.default_rng(seed)
    while state.waiting:
        state.play(int(rng.choice(state.legal_moves())))
    return state


def test_a_seeded_eaai_game_opens_with_these_decisions() -> None:
    """Seed 3, game 0 of eaai: seat 0 is the non-dealer, offered the upcard QH with exact
    cards; after its pass, the dealer (simple) takes it and seat 0 draws; the stock card is
    7H. The same game as ginbox play's: the deal is the log's."""
    state = GameState(EAAI, [None, "simple"], seed=3)
    assert (state.seat, state.hand_player, state.role, state.decision) == (
        0, 1, "non-dealer", "offer")
    assert state.roles == (1, 0) and state.hand == 0 and not state.advised
    assert state.legal_moves() == [MOVE_PASS, MOVE_DRAW_DISCARD]
    assert state.legal_move_names() == ["pass", "draw_discard"]
    view = state.view()
    assert view.hand_str == ["AS", "4S", "5H", "2D", "6D", "9D", "3C", "6C", "7C", "JC"]
    assert [card_str(c) for c in state.discard_pile] == ["QH"] and state.stock_left == 31
    state.play("pass")
    assert (state.seat, state.decision, state.legal_move_names()) == (
        0, "draw", ["draw_discard", "draw_stock"])
    state.play("draw_stock")
    assert state.decision == "discard" and card_str(state.view().drawn) == "7H"
    assert state.history == [MOVE_PASS, move_code("draw_stock")]
    logged = play_games([LowCardHoarder(), "simple"], EAAI, games=1, seed=3, log=True).log
    assert sorted(logged[0]["deal"]["nondealer"]) == sorted(view.hand_str)
    assert logged[0]["deal"]["upcard"] == "QH" and logged[0]["deal"]["stock"][0] == "7H"


def test_moves_read_as_the_hand_log_names_them() -> None:
    assert [move_name(m) for m in (MOVE_PASS, MOVE_DRAW_DISCARD, parse_card("TD"))] == [
        "pass", "draw_discard", "TD"]
    assert move_code("no_knock") == move_code(move_name(move_code("no_knock")))
    assert move_code("td") == parse_card("TD") and move_code(7) == 7
    for bad in ("draw", "", 1.5, True):
        with pytest.raises(IllegalMove, match="is not a move"):
            move_code(bad)  # type: ignore[arg-type]


def test_an_illegal_move_is_refused_with_the_engines_reason_and_changes_nothing() -> None:
    state = GameState(EAAI, [None, "simple"], seed=3)
    before = _buffers(state)
    cases = [("draw_stock", ERR_NOT_YOUR_DECISION), ("KS", ERR_NOT_YOUR_DECISION),
             (200, None), (-1, None)]
    for move, err in cases:
        with pytest.raises(IllegalMove) as exc:
            state.play(move)
        if err is not None:
            assert exc.value.reason == ERROR_TEXT[err]
            assert str(exc.value) == f"{move_name(move_code(move))} is not legal now: " \
                                     f"{ERROR_TEXT[err]}"
    assert _same(before, _buffers(state)) and state.history == []
    state.play("draw_discard")  # takes QH: it may not go back this turn
    before = _buffers(state)
    for card, err in (("QH", ERR_TAKEN_CARD), ("KS", ERR_NOT_IN_HAND)):
        with pytest.raises(IllegalMove, match=ERROR_TEXT[err]):
            state.play(card)
    assert _same(before, _buffers(state)) and state.history == [MOVE_DRAW_DISCARD]
    finished = GameState(EAAI, "simple,simple", seed=3)
    with pytest.raises(IllegalMove, match="no decision is waiting: the game is over"):
        finished.play("pass")


def test_a_clone_is_independent() -> None:
    state = GameState(THREE, [None, "simple", "greedy-knock"], seed=4)
    state.play(state.legal_moves()[0])
    saved, history, records = _buffers(state), list(state.history), list(state.records)
    twin = state.clone()
    _random_game(twin, 1)
    assert twin.game_over and len(twin.records) > len(records) and state.records == records
    assert _same(saved, _buffers(state)) and state.history == history
    assert state.legal_moves() == GameState.replay(THREE, [None, "simple", "greedy-knock"],
                                                   history, seed=4).legal_moves()
    deep = copy.deepcopy(state)
    assert _same(_buffers(deep), saved) and deep.bufs.hs is not state.bufs.hs


@pytest.mark.parametrize(("rules", "lineup"), [
    (EAAI, [None, "simple"]),
    (THREE.replace(team_policy="advisor"), ["greedy-knock", None, "simple"]),
])
def test_a_game_is_rebuilt_from_its_seed_and_the_callers_moves(rules: Rules,
                                                               lineup: list[Any]) -> None:
    played = _random_game(GameState(rules, lineup, seed=11, game=2), 5)
    again = GameState.replay(rules, lineup, played.history, seed=11, game=2)
    assert again.game_over and again.records == played.records
    assert _same(_buffers(again), _buffers(played))
    assert np.array_equal(again.stats_row, played.stats_row)
    names = [move_name(m) for m in played.history]
    assert GameState.replay(rules, lineup, names, seed=11, game=2).records == played.records
    wrong = list(played.history)
    wrong[3] = MOVE_PASS if wrong[3] != MOVE_PASS else MOVE_DRAW_DISCARD
    with pytest.raises(IllegalMove, match=r"^move 4 \("):
        GameState.replay(rules, lineup, wrong, seed=11, game=2)
    assert all(check.ok for check in replay_game(played.records))


@pytest.mark.parametrize(("rules", "lineup"), [
    (THREE, "simple,greedy-knock,random"),
    (EAAI, "tuned,discard-tracking"),
    (Rules.preset("three-handed-hollywood"), "simple,gin-hunter,greedy-knock"),
])
def test_the_records_are_those_ginbox_play_writes(rules: Rules, lineup: str) -> None:
    logged = play_games(lineup, rules, games=2, seed=6, log=True).log
    assert logged is not None
    for game in (0, 1):
        state = GameState(rules, lineup, seed=6, game=game)
        assert state.records == [r for r in logged if r["game"] == game]
        result = state.result
        assert result is not None and state.last_hand is not None
        last = state.records[-1]
        assert result.winner == last["game_winner"] and list(result.scores) == last["scores"]
        assert list(result.final_scores) == last.get("final_scores", last["scores"])
        assert result.hands == len(state.records)
        hand = state.last_hand
        assert (hand.end, hand.winner, hand.points) == (
            last["result"]["end"], last["result"]["winner"], last["result"]["points"])
        assert hand.knocker_melds == last["result"]["knocker_melds"]


def test_a_python_strategy_asked_by_the_caller_writes_ginbox_plays_log() -> None:
    """The caller asks a Python strategy with the object's View (its rng seeded as ginbox
    play seeds it): the log is play_games's for that strategy."""
    expected = play_games([LowCardHoarder(), "simple", "random"], THREE, games=2, seed=2,
                          log=True).log
    records = []
    for game in (0, 1):
        player = LowCardHoarder()
        state = GameState(THREE, [None, "simple", "random"], seed=2, game=game,
                          names=expected[0]["seats"])
        started = set()
        while state.waiting:
            view = state.view()
            if (state.hand, state.hand_player) not in started and hasattr(player, "start_hand"):
                player.start_hand(view)  # as ginbox play asks it
            started.add((state.hand, state.hand_player))
            answer = strategy_answer(player, state.decision_code, view)
            state.play(answer if state.decision != "discard" else parse_card(
                answer if isinstance(answer, str) else card_str(answer)))
        records += state.records
    assert records == expected


def test_roles_and_the_advisor_as_the_step_rules_them() -> None:
    """Three-handed under advisor: the sitter is asked for every captain decision (advised,
    for the captain's hand), the box for his own; the sitter plays nothing else."""
    rules = THREE.replace(team_policy="advisor")
    asked = {"box": 0, "captain": 0}
    state = GameState(rules, ["simple", None, "simple"], seed=0)
    while state.waiting:
        box, captain, sitter = state.roles
        assert 1 in (box, sitter)  # seat 1 is asked only as the box or as the advisor
        if state.hand_player == 1:
            assert (state.seat, state.advised, state.role) == (sitter, True, "captain")
        else:
            assert (state.seat, state.advised, state.role) == (box, False, "box")
        asked[state.role] += 1
        state.play(state.legal_moves()[-1])
    assert asked == {"box": 38, "captain": 24}
    assert all(r["advisor"] == r["sitter"] for r in state.records)


def test_deals_from_outside_and_a_logged_hand_rebuilt() -> None:
    """``deals="caller"``: the caller lays out each deck (OpenSpiel's chance); a logged hand
    walked from its record by the caller's moves ends in the same record."""
    logged = play_games("simple,greedy-knock", EAAI, games=1, seed=8, log=True).log
    state = GameState(EAAI, [None, None], deals="caller", rotation=logged[0]["dealer"],
                      names=["simple", "greedy-knock"])
    for i, record in enumerate(logged):
        assert state.needs_deal and not state.waiting
        with pytest.raises(IllegalMove, match="waits for its deal"):
            state.play("pass")
        state.deal(deck_of(record))
        previous = logged[i - 1] if i else None
        walked = GameState.from_record(record, previous)
        for move in _logged_answers(record):
            state.play(move)
            walked.play(move)
        assert state.records[-1] == record and walked.records == [record]
        assert not walked.waiting
    assert state.game_over
    with pytest.raises(ValueError, match="not a 52-card deck"):
        GameState(EAAI, None, deals="caller").deal([parse_card("AS")] * 52)


def _logged_answers(record: dict[str, Any]) -> list[str]:
    """The record's moves as the decisions asked them: a knock question answered by its
    knock, or by no_knock before a discard that follows a draw and could have knocked."""
    out: list[str] = []
    state = GameState.from_record(record)
    moves = record["moves"]
    while state.waiting:
        move = moves[state.moves_this_hand]
        name = move["card"] if move["move"] == "discard" else move["move"]
        if state.decision == "knock" and name != "knock":
            name = "no_knock"
        out.append(name)
        state.play(name)
    return out


def test_a_world_resample_keeps_the_deciders_view() -> None:
    state = GameState(EAAI, [None, "simple"], seed=3)
    state.play("pass")
    state.play("draw_stock")
    world = state.sample_world(7)
    assert np.array_equal(world.view_array, state.view_array)
    assert world.legal_moves() == state.legal_moves()
    mine = state.hand_player
    assert mine is not None
    assert world.hand_cards(mine) == state.hand_cards(mine)
    assert world.hand_cards(1 - mine) != state.hand_cards(1 - mine)
    assert len(world.hand_cards(1 - mine)) == 10


def test_a_seat_view_hides_the_hand_of_a_seat_outside_it() -> None:
    state = GameState(THREE, ["simple", None, "simple"], seed=5)
    seat = state.seat
    assert seat is not None
    view, hidden = state.seat_view(seat)
    assert not hidden and np.array_equal(view, state.view_array)
    sitter = state.roles[2]
    _, hidden = state.seat_view(sitter)
    assert hidden
    assert state.seat_view(seat, public=True)[1]
    assert state.decision_code in (DEC_OFFER, DEC_DRAW)
