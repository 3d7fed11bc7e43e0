"""The one move notation (strategies.moves): every kind in every form, the one-line refusals,
and the round trip over every move of logged games and every legal move of a played one."""

from __future__ import annotations

import pytest

from sim.engine.cards import DECK, parse_card
from sim.engine.hand import (
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
)
from sim.play.driver import play_games
from sim.play.events import move_name as events_move_name
from sim.play.state import GameState
from strategies.moves import (
    FORMS,
    KINDS,
    Move,
    MoveTextError,
    move_name,
    move_of_record,
    move_record,
    move_str,
    parse_move,
)

EXPECTED = ("expected pass, draw_discard (p), draw_stock (d), knock (k), no_knock (n), or a "
            "discard such as 9H or discard 9H")

#: Each kind: its engine code, and its text in the forms name, short, spelled.
TABLE = [
    (Move("pass"), MOVE_PASS, ("pass", "pass", "pass")),
    (Move("draw_discard"), MOVE_DRAW_DISCARD, ("draw_discard", "p", "draw_discard")),
    (Move("draw_stock"), MOVE_DRAW_STOCK, ("draw_stock", "d", "draw_stock")),
    (Move("knock"), MOVE_KNOCK, ("knock", "k", "knock")),
    (Move("no_knock"), MOVE_NO_KNOCK, ("no_knock", "n", "no_knock")),
    (Move("discard", parse_card("9H")), parse_card("9H"), ("9H", "9H", "discard 9H")),
]


def test_every_kind_prints_and_parses_in_every_form() -> None:
    assert FORMS == ("name", "short", "spelled")
    assert [move.kind for move, _, _ in TABLE] == list(KINDS)
    for move, code, texts in TABLE:
        assert [move_str(move, form) for form in FORMS] == list(texts)
        assert str(move) == texts[0] and move.code == code and Move.of_code(code) == move
        assert {parse_move(text) for text in texts} == {move}


def test_cards_are_read_in_any_spelling_and_printed_canonically() -> None:
    for text in ("TD", "td", "10D", "10d", " TD ", "discard td", "discard 10D"):
        assert parse_move(text) == Move("discard", parse_card("TD"))
    assert move_str(parse_move("discard 10d"), "spelled") == "discard TD"


@pytest.mark.parametrize("text", ["", " ", "draw", "x", "D", "PASS", "discard", "9H 9H",
                                  "discard pass", "discard 9H 8H", "x 9H", "1H", "9X",
                                  "pass pass"])
def test_text_that_is_no_move_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(MoveTextError) as exc:
        parse_move(text)
    assert str(exc.value) == f"{text!r} is not a move: {EXPECTED}"


def test_a_refusal_quotes_at_most_forty_characters_of_the_text() -> None:
    with pytest.raises(MoveTextError) as exc:
        parse_move("x" * 5000)
    assert str(exc.value) == "'" + "x" * 36 + f"... is not a move: {EXPECTED}"
    with pytest.raises(MoveTextError, match=r"^7 is not a move: expected pass"):
        parse_move(7)  # type: ignore[arg-type]  # a wrong type on purpose


def test_a_move_record_is_checked_when_made() -> None:
    cases = [(lambda: Move("discard"), "a discard, and only a discard, has a card"),
             (lambda: Move("pass", 5), "a discard, and only a discard, has a card"),
             (lambda: Move("discard", 13), "13 is not a card code"),
             # a kind that is none, on purpose
             (lambda: Move("fold"), "'fold' is not a kind of move: expected one of pass, "  # type: ignore[arg-type]
              "draw_discard, draw_stock, knock, no_knock, discard"),
             (lambda: Move.of_code(69), "69 is not an engine move code"),
             (lambda: move_str(Move("pass"), "long"),  # type: ignore[arg-type]  # no such form
              "'long' is not a form of move text: expected one of name, short, spelled")]
    for make, message in cases:
        with pytest.raises(MoveTextError) as exc:
            make()
        assert str(exc.value) == message


def test_every_engine_code_round_trips_and_is_named_as_the_game_names_it() -> None:
    codes = [*(int(c) for c in DECK), MOVE_PASS, MOVE_DRAW_DISCARD, MOVE_DRAW_STOCK, MOVE_KNOCK,
             MOVE_NO_KNOCK]
    assert len(codes) == 57
    for code in codes:
        move = Move.of_code(code)
        assert move.code == code and move_name(code) == events_move_name(code)
        for form in FORMS:
            assert parse_move(move_str(move, form)) == move


def test_the_hand_log_form_converts_through_the_notation() -> None:
    assert move_record(2, parse_move("KD")) == {"seat": 2, "move": "discard", "card": "KD"}
    assert move_record(0, parse_move("d")) == {"seat": 0, "move": "draw_stock"}
    with pytest.raises(MoveTextError, match="^no_knock is not a move of the hand log$"):
        move_record(0, Move("no_knock"))
    for bad, message in [({"move": "no_knock"}, "'no_knock' is not a logged move"),
                         ({"move": "d"}, "'d' is not a logged move"),
                         ({"move": "discard", "card": "ZZ"}, "'ZZ' is not a card"),
                         ({"seat": 1}, "None is not a logged move")]:
        with pytest.raises(MoveTextError, match="^" + message):
            move_of_record(bad)


def test_every_move_of_logged_games_round_trips() -> None:
    log = play_games(["greedy-knock", "simple", "random"], "three-handed", games=2, seed=11,
                     log=True).log
    logged = [m for record in log for m in record["moves"]]
    assert {m["move"] for m in logged} >= {"draw_stock", "draw_discard", "discard", "knock"}
    for m in logged:
        move = move_of_record(m)
        assert move_record(m["seat"], move) == m
        for form in FORMS:
            text = move_str(move, form)
            assert parse_move(text) == move and move_str(parse_move(text), form) == text


def test_every_legal_move_of_a_played_game_round_trips() -> None:
    state = GameState("eaai", [None, "simple"], seed=5)
    seen = set()
    while not state.game_over and seen != set(KINDS):
        legal = state.legal_moves()
        names = [move_str(Move.of_code(m)) for m in legal]
        assert state.legal_move_names() == names
        for code in legal:
            seen.add(Move.of_code(code).kind)
            assert parse_move(move_name(code)).code == code
        chosen = state.ask("greedy-knock")  # knocks when it can: the knock question comes
        assert chosen is not None
        state.play(move_name(chosen))  # played by its text
    assert seen == set(KINDS)
