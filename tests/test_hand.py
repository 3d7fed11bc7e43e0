"""One hand through the compiled kernels (sim.engine.hand): scripted decks and moves, and
properties.

Hand players: 0 the dealer (the box), 1 the non-dealer (the captain). Decks are built card by
card (dealer's 10, non-dealer's 10, upcard, stock) so every expected value is worked out by
hand from docs/rules.md.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.decks import (
    DEFENDER,
    GIN_DEFENDER,
    GIN_HAND,
    JUNK_DEALER,
    JUNK_NONDEALER,
    KNOCKER,
    cards,
    make_deck,
    shuffled_deck,
)
from support.hands import HandRunner
from support.hypothesis_profile import PROFILE
from support.referee import Referee, referee_game
from support.scripted import SpyStrategy, protocol_policy
from support.views import check_views

from sim.engine.cards import DECK, parse_card, parse_cards
from sim.engine.hand import (
    DEC_DISCARD,
    DEC_DRAW,
    DEC_KNOCK,
    DEC_OFFER,
    DEC_OVER,
    END_DRAW,
    END_TURN_LIMIT,
    ERR_BAD_MOVE,
    ERR_CANNOT_KNOCK,
    ERR_KNOCK_TOO_HIGH,
    ERR_NOT_IN_HAND,
    ERR_NOT_YOUR_DECISION,
    ERR_TAKEN_CARD,
    HS_DECLINED,
    HS_DRAWN,
    HS_END,
    HS_KNOCK_LIMIT,
    HS_KNOCKER,
    HS_MULTIPLIER,
    HS_PHASE,
    HS_POINTS,
    HS_TAKEN,
    HS_TOOK,
    HS_TURNS,
    HS_WINNER,
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
    OK,
    PH_KNOCK_DISCARD,
)
from sim.engine.rules import Rules
from sim.engine.showdown import settle
from sim.play.driver import GameDriver, Seeds
from sim.records.log import hand_result
from strategies.base import BaseStrategy


def junk_hand(rules: Rules | None = None, stock: str = "3H 7C 5D") -> HandRunner:
    """Junk hands with upcard 5S (no meld for anyone)."""
    return HandRunner(make_deck(JUNK_DEALER, JUNK_NONDEALER, "5S", stock), rules)


def referee(h: HandRunner) -> Referee:
    """Re-check the finished hand with the independent referee of the test helpers."""
    return Referee({**h.record(), "result": hand_result(h.hs, [0, 1])}, h.rules)


def assert_refused(h: HandRunner, move: str | int, err: int) -> None:
    """The move is refused with ``err`` and changes nothing."""
    before = (h.hs.copy(), h.pile_arr.copy(), h.moves.copy())
    assert h.try_move(move) == err
    np.testing.assert_array_equal(h.hs, before[0])
    np.testing.assert_array_equal(h.pile_arr, before[1])
    np.testing.assert_array_equal(h.moves, before[2])


# ------------------------------------------------------------------------ the first turn


def test_deal_layout() -> None:
    """Dealer's 10, non-dealer's 10, the upcard on the pile, 31 stock cards in deck order."""
    h = junk_hand()
    assert h.hand(0) == cards(JUNK_DEALER)
    assert h.hand(1) == cards(JUNK_NONDEALER)
    assert h.pile() == ["5S"]
    assert h.stock()[:3] == ["3H", "7C", "5D"] and len(h.stock()) == 31
    assert (h.decision(), h.to_move) == (DEC_OFFER, 1)
    h.check_conservation()


def test_captain_takes_upcard_then_box_plays_normal_turn() -> None:
    h = junk_hand()
    h.play(1, DEC_OFFER, "take")
    assert h.hand(1) == cards(JUNK_NONDEALER) | {"5S"} and h.pile() == []
    assert (h.decision(), h.to_move) == (DEC_DISCARD, 1)  # no meld: knocking is not asked
    h.play(1, DEC_DISCARD, "KH")
    assert h.pile() == ["KH"] and len(h.hand(1)) == 10
    # The box now plays a normal turn: a draw decision, not an offer.
    h.play(0, DEC_DRAW, "stock")
    assert "3H" in h.hand(0) and len(h.stock()) == 30
    h.play(0, DEC_DISCARD, "KS")
    # And then the captain, who may take the box's discard.
    h.play(1, DEC_DRAW, "take")
    assert "KS" in h.hand(1) and h.pile() == ["KH"]
    h.play(1, DEC_DISCARD, "QD")
    assert h.log() == [(1, "draw_discard"), (1, "KH"), (0, "draw_stock"), (0, "KS"),
                       (1, "draw_discard"), (1, "QD")]
    assert int(h.hs[HS_TURNS]) == 3
    assert int(h.hs[HS_DECLINED]) == int(h.hs[HS_DECLINED + 1]) == -1
    h.check_conservation()


def test_captain_passes_box_takes_then_captain_plays_normal_turn() -> None:
    h = junk_hand()
    h.play(1, DEC_OFFER, "pass")
    h.play(0, DEC_OFFER, "take")
    assert h.hand(0) == cards(JUNK_DEALER) | {"5S"}
    h.play(0, DEC_DISCARD, "KS")
    # The *other* player (the captain) now takes a normal turn.
    assert (h.decision(), h.to_move) == (DEC_DRAW, 1)
    h.play(1, DEC_DRAW, "stock")
    assert "3H" in h.hand(1)
    h.play(1, DEC_DISCARD, "3H")
    assert (h.decision(), h.to_move) == (DEC_DRAW, 0)
    assert h.log() == [(1, "pass"), (0, "draw_discard"), (0, "KS"), (1, "draw_stock"),
                       (1, "3H")]
    up = parse_card("5S")
    assert int(h.hs[HS_DECLINED + 1]) == up and int(h.hs[HS_DECLINED]) == -1
    assert int(h.hs[HS_TOOK]) == 1 << up and int(h.hs[HS_TOOK + 1]) == 0


def test_both_pass_captain_is_forced_to_draw_from_stock() -> None:
    h = junk_hand()
    h.play(1, DEC_OFFER, "pass")
    h.play(0, DEC_OFFER, "pass")
    # advance() plays the forced draw itself: the next decision is the captain's discard.
    assert (h.decision(), h.to_move) == (DEC_DISCARD, 1)
    assert h.log() == [(1, "pass"), (0, "pass"), (1, "draw_stock")]
    assert h.hand(1) == cards(JUNK_NONDEALER) | {"3H"}
    assert h.pile() == ["5S"] and len(h.stock()) == 30
    # A second advance does not draw again.
    assert h.decision() == DEC_DISCARD and len(h.hand(1)) == 11
    up = parse_card("5S")
    assert int(h.hs[HS_DECLINED]) == int(h.hs[HS_DECLINED + 1]) == up
    h.play(1, DEC_DISCARD, "KH")
    assert (h.decision(), h.to_move) == (DEC_DRAW, 0)


def test_wrong_decision_answers_are_refused() -> None:
    h = junk_hand()
    assert h.decision() == DEC_OFFER
    for move in (MOVE_DRAW_STOCK, MOVE_KNOCK, MOVE_NO_KNOCK, 16 * 1 + 12):
        assert_refused(h, move, ERR_NOT_YOUR_DECISION)
    assert_refused(h, 99, ERR_BAD_MOVE)
    h.play(1, DEC_OFFER, "take")
    assert_refused(h, MOVE_PASS, ERR_NOT_YOUR_DECISION)
    assert_refused(h, "KS", ERR_NOT_IN_HAND)  # the dealer's card
    assert_refused(h, "QS", ERR_NOT_IN_HAND)  # a stock card
    h.play(1, DEC_DISCARD, "KH")
    assert h.decision() == DEC_DRAW
    assert_refused(h, MOVE_PASS, ERR_NOT_YOUR_DECISION)
    assert_refused(h, "KS", ERR_NOT_YOUR_DECISION)  # a discard before drawing


# ------------------------------------------------------------------------- knocks and gin


def test_knock_on_the_very_first_turn() -> None:
    """The captain takes the upcard 7H and knocks: K = 2, D = 78, he scores 76."""
    h = HandRunner(make_deck(DEFENDER, KNOCKER, "7H"))
    h.play(1, DEC_OFFER, "take")
    assert (h.decision(), h.to_move) == (DEC_KNOCK, 1)
    assert h.try_move(MOVE_KNOCK) == OK
    assert h.decision() == DEC_DISCARD
    assert_refused(h, "2S", ERR_KNOCK_TOO_HIGH)  # breaks AS-2S-3S: 1 + 3 + 2 + 10 = 16
    assert_refused(h, "7H", ERR_TAKEN_CARD)
    assert_refused(h, "QS", ERR_NOT_IN_HAND)
    assert h.try_move("KD") == OK
    assert h.decision() == DEC_OVER
    assert h.end == "knock"
    assert (int(h.hs[HS_KNOCKER]), int(h.hs[HS_WINNER]), int(h.hs[HS_POINTS])) == (1, 1, 76)
    assert h.log() == [(1, "draw_discard"), (1, "knock"), (1, "KD")]
    assert h.pile() == ["KD"] and len(h.stock()) == 31
    result = hand_result(h.hs, [5, 7])  # seats of the dealer and the non-dealer
    assert result["end"] == "knock"
    assert (result["knocker"], result["winner"], result["points"]) == (7, 7, 76)
    assert (result["knocker_deadwood"], result["defender_deadwood"]) == (2, 78)
    assert sorted(map(sorted, result["knocker_melds"])) == sorted(
        map(sorted, [["AS", "2S", "3S"], ["4H", "5H", "6H"], ["7C", "7D", "7H"]]))
    assert result["layoffs"] == [] and result["defender_melds"] == []
    referee(h)


def test_knock_is_asked_only_when_legal_and_refused_otherwise() -> None:
    h = junk_hand()
    h.play(1, DEC_OFFER, "take")
    assert h.decision() == DEC_DISCARD
    assert_refused(h, MOVE_KNOCK, ERR_CANNOT_KNOCK)
    assert_refused(h, MOVE_NO_KNOCK, ERR_NOT_YOUR_DECISION)
    h.play(1, DEC_DISCARD, "KH")
    assert h.decision() == DEC_DRAW
    assert_refused(h, MOVE_KNOCK, ERR_NOT_YOUR_DECISION)


@pytest.mark.parametrize(
    ("nondealer", "legal"),
    [
        ("AS 2S 3S 4S 5H 6H 7H 8H 4C 6D", True),  # + KC, discard KC: 4 + 6 = 10
        ("AS 2S 3S 4S 5H 6H 7H 8H 5C 6D", False),  # + KC, discard KC: 5 + 6 = 11
    ],
)
def test_knock_limit_boundary(nondealer: str, legal: bool) -> None:
    """Deadwood exactly at the knock limit (10) may knock; 11 may not."""
    h = HandRunner(make_deck("KS QH JD TC 9S 2H 3D 7C 8D JS", nondealer, "QC", "KC"))
    h.play(1, DEC_OFFER, "pass")
    h.play(0, DEC_OFFER, "pass")
    assert h.decision() == (DEC_KNOCK if legal else DEC_DISCARD)
    if legal:
        h.play(1, DEC_KNOCK, "knock")
        assert_refused(h, "4C", ERR_KNOCK_TOO_HIGH)  # keeps 6D + KC = 16
        assert_refused(h, "6D", ERR_KNOCK_TOO_HIGH)  # keeps 4C + KC = 14
        h.play(1, DEC_DISCARD, "KC")
        assert h.decision() == DEC_OVER
        assert int(hand_result(h.hs, [0, 1])["knocker_deadwood"]) == 10
        referee(h)
    else:
        assert_refused(h, MOVE_KNOCK, ERR_CANNOT_KNOCK)


def test_gin_after_the_forced_draw() -> None:
    """Both pass; the forced draw 9H gives gin: D = 70 with no layoff, 70 + 25 = 95."""
    h = HandRunner(make_deck(GIN_DEFENDER, GIN_HAND, "2D", "9H"))
    h.play(1, DEC_OFFER, "pass")
    h.play(0, DEC_OFFER, "pass")
    assert (h.decision(), h.to_move) == (DEC_KNOCK, 1)
    h.play(1, DEC_KNOCK, "knock")
    h.play(1, DEC_DISCARD, "KD")
    assert h.decision() == DEC_OVER and h.end == "gin"
    result = hand_result(h.hs, [0, 1])
    assert (result["knocker"], result["winner"], result["points"]) == (1, 1, 95)
    assert (result["knocker_deadwood"], result["defender_deadwood"]) == (0, 70)
    assert result["layoffs"] == []
    assert h.log() == [(1, "pass"), (0, "pass"), (1, "draw_stock"), (1, "knock"), (1, "KD")]
    referee(h)


def test_gin_bonus_option() -> None:
    h = HandRunner(make_deck(GIN_DEFENDER, GIN_HAND, "2D", "9H"), Rules.preset("three-handed-20"))
    h.play(1, DEC_OFFER, "pass")
    h.play(0, DEC_OFFER, "pass")
    h.play(1, DEC_KNOCK, "knock")
    h.play(1, DEC_DISCARD, "KD")
    assert h.end == "gin" and int(h.hs[HS_POINTS]) == 90


def test_undercut() -> None:
    """K = 10 (4C 6D) against D = 5 (5C, nothing to lay off): the box scores 10 + 5 = 15."""
    defender = "9S 9D 9C JH QH KH 2D 3D 4D 5C"
    h = HandRunner(make_deck(defender, "AS 2S 3S 4S 5H 6H 7H 8H 4C 6D", "QC", "KC"))
    h.play(1, DEC_OFFER, "pass")
    h.play(0, DEC_OFFER, "pass")
    h.play(1, DEC_KNOCK, "knock")
    h.play(1, DEC_DISCARD, "KC")
    assert h.end == "undercut"
    assert (int(h.hs[HS_KNOCKER]), int(h.hs[HS_WINNER]), int(h.hs[HS_POINTS])) == (1, 0, 15)
    result = hand_result(h.hs, [0, 1])
    assert (result["knocker_deadwood"], result["defender_deadwood"]) == (10, 5)
    referee(h)


def test_declining_to_knock_plays_on() -> None:
    h = HandRunner(make_deck(DEFENDER, KNOCKER, "7H"))
    h.play(1, DEC_OFFER, "take")
    h.play(1, DEC_KNOCK, "no_knock")
    assert h.decision() == DEC_DISCARD
    h.play(1, DEC_DISCARD, "KD")
    assert (h.decision(), h.to_move) == (DEC_DRAW, 0)
    assert h.log() == [(1, "draw_discard"), (1, "KD")]  # no_knock is not a move of the log


# ----------------------------------------------------------------- the same-card rule


def test_same_card_rule_first_upcard_and_normal_turn() -> None:
    h = junk_hand()
    h.play(1, DEC_OFFER, "take")
    assert int(h.hs[HS_TAKEN]) == parse_card("5S")
    assert parse_card("5S") not in h.legal_moves(DEC_DISCARD)
    assert_refused(h, "5S", ERR_TAKEN_CARD)
    h.play(1, DEC_DISCARD, "KH")
    h.play(0, DEC_DRAW, "take")  # the box takes KH from the pile
    assert_refused(h, "KH", ERR_TAKEN_CARD)
    h.play(0, DEC_DISCARD, "KS")
    # A card drawn from the stock may be discarded at once.
    h.play(1, DEC_DRAW, "stock")
    h.play(1, DEC_DISCARD, "3H")


def test_same_card_rule_off() -> None:
    h = junk_hand(Rules(forbid_taken_discard=False))
    h.play(1, DEC_OFFER, "take")
    assert parse_card("5S") in h.legal_moves(DEC_DISCARD)
    h.play(1, DEC_DISCARD, "5S")
    assert h.pile() == ["5S"] and h.hand(1) == cards(JUNK_NONDEALER)
    h.play(0, DEC_DRAW, "take")
    h.play(0, DEC_DISCARD, "5S")
    assert h.pile() == ["5S"] and h.hand(0) == cards(JUNK_DEALER)


@pytest.mark.parametrize("forbid", [True, False])
def test_same_card_rule_decides_whether_knocking_is_legal(forbid: bool) -> None:
    """Deadwood 9 (4C 5D) before taking KD: only discarding KD again gets within 10."""
    h = HandRunner(make_deck("KS QH JD TC 9S 2H 3D 7C 8D JS", "AS 2S 3S 4S 5H 6H 7H 8H 4C 5D",
                             "KD"), Rules(forbid_taken_discard=forbid))
    h.play(1, DEC_OFFER, "take")
    assert h.decision() == (DEC_DISCARD if forbid else DEC_KNOCK)


# ----------------------------------------------------------------- the wall, the turn limit


def play_wall_hand(h: HandRunner) -> None:
    """Both pass, then each draws from the stock and discards the card drawn, never knocking."""
    while True:
        d = h.decision()
        if d == DEC_OVER:
            return
        if d == DEC_OFFER:
            h.try_move("pass")
        elif d == DEC_DRAW:
            h.try_move("stock")
        elif d == DEC_KNOCK:
            h.try_move("no_knock")
        else:
            drawn = int(h.hs[HS_DRAWN])
            assert h.try_move(drawn) == OK


@pytest.mark.parametrize("wall", [2, 0, 5])
def test_the_wall_is_a_draw(wall: int) -> None:
    h = HandRunner(shuffled_deck(7), Rules(wall=wall))
    play_wall_hand(h)
    assert h.end == "draw" and int(h.hs[HS_END]) == END_DRAW
    assert len(h.stock()) == wall
    assert int(h.hs[HS_TURNS]) == 31 - wall
    assert (int(h.hs[HS_WINNER]), int(h.hs[HS_KNOCKER]), int(h.hs[HS_POINTS])) == (-1, -1, 0)
    names = [m for _, m in h.log()]
    assert names[:3] == ["pass", "pass", "draw_stock"]
    assert names.count("draw_stock") == 31 - wall and len(names) == 2 + 2 * (31 - wall)
    result = hand_result(h.hs, [0, 1])
    assert result == {"end": "draw", "knocker": None, "knocker_melds": [],
                      "knocker_deadwood": None, "defender_melds": [], "layoffs": [],
                      "defender_deadwood": None, "winner": None, "points": 0}
    referee(h)


@pytest.mark.parametrize("wall", [2, 0])
def test_knock_on_the_turn_that_reaches_the_wall(wall: int) -> None:
    """The last card drawn before the wall gives gin: the knock stands, the hand is no draw."""
    last = 30 - wall  # stock index of the last card that may be drawn; even: the captain's
    head = parse_cards(GIN_DEFENDER) + parse_cards(GIN_HAND) + [parse_card("2D")]
    rest = [int(c) for c in DECK if int(c) not in set(head) and int(c) != parse_card("9H")]
    deck = np.array(head + rest[:last] + [parse_card("9H")] + rest[last:], np.int64)
    h = HandRunner(deck, Rules(wall=wall))
    while (d := h.decision()) != DEC_OVER:
        if d == DEC_OFFER:
            move: str | int = "pass"
        elif d == DEC_DRAW:
            move = "stock"
        elif d == DEC_KNOCK:
            move = "knock" if h.stock_count == wall else "no_knock"
        elif int(h.hs[HS_PHASE]) == PH_KNOCK_DISCARD:
            move = "KD"
        else:
            move = int(h.hs[HS_DRAWN])
        assert h.try_move(move) == OK
    assert h.end == "gin" and h.stock_count == wall
    assert int(h.hs[HS_POINTS]) == 70 + 25 and int(h.hs[HS_WINNER]) == 1
    referee(h)


@pytest.mark.parametrize("max_turns", [1, 6, 25])
def test_turn_limit(max_turns: int) -> None:
    """Both keep taking each other's discards: the hand stops at max_turns as 'turn_limit'."""
    h = junk_hand(Rules(max_turns=max_turns))
    while True:
        d = h.decision()
        if d == DEC_OVER:
            break
        if d in (DEC_OFFER, DEC_DRAW):
            assert h.try_move("take") == OK
        elif d == DEC_KNOCK:
            assert h.try_move("no_knock") == OK
        else:
            assert h.try_move(max(h.legal_moves(d))) == OK
    assert h.end == "turn_limit" and int(h.hs[HS_END]) == END_TURN_LIMIT
    assert int(h.hs[HS_TURNS]) == max_turns
    assert len(h.stock()) == 31  # nobody ever drew from the stock
    assert (int(h.hs[HS_WINNER]), int(h.hs[HS_POINTS])) == (-1, 0)
    result = hand_result(h.hs, [0, 1])
    assert (result["end"], result["winner"], result["points"]) == ("turn_limit", None, 0)
    referee(h)


def test_moves_after_the_end_are_refused() -> None:
    h = HandRunner(shuffled_deck(3))
    play_wall_hand(h)
    for move in (MOVE_PASS, MOVE_DRAW_STOCK, MOVE_DRAW_DISCARD, MOVE_KNOCK):
        assert_refused(h, move, ERR_NOT_YOUR_DECISION)


# --------------------------------------------------------------- Oklahoma, spade doubling


@pytest.mark.parametrize(
    ("upcard", "limit", "multiplier"),
    [("AS", 0, 2), ("AH", 0, 1), ("3H", 3, 1), ("7D", 7, 1), ("9S", 9, 2), ("TC", 10, 1),
     ("KS", 10, 2), ("QD", 10, 1)],
)
def test_oklahoma_knock_limit_and_spade_doubling(upcard: str, limit: int,
                                                  multiplier: int) -> None:
    deck = make_deck("KH QH JD TD 8S 6H 4D 2C AC 8D", "KC QC JC TS 8H 6D 4C 2S 3C 7C", upcard)
    h = HandRunner(deck, Rules.preset("oklahoma"))
    assert (int(h.hs[HS_KNOCK_LIMIT]), int(h.hs[HS_MULTIPLIER])) == (limit, multiplier)
    plain = HandRunner(deck, Rules())
    assert (int(plain.hs[HS_KNOCK_LIMIT]), int(plain.hs[HS_MULTIPLIER])) == (10, 1)


@pytest.mark.parametrize(("upcard", "legal"), [("3C", False), ("4D", True), ("5C", True)])
def test_oklahoma_limit_decides_knocking(upcard: str, legal: bool) -> None:
    """After the forced draw KD the captain's best deadwood is 4 (4C): legal from upcard 4 on."""
    h = HandRunner(make_deck("KS QH JD TC 9S 2H 3D 8C 8D JS", "AS 2S 3S 4H 5H 6H 7C 7D 7H 4C",
                             upcard, "KD"), Rules.preset("oklahoma"))
    h.play(1, DEC_OFFER, "pass")
    h.play(0, DEC_OFFER, "pass")
    assert h.decision() == (DEC_KNOCK if legal else DEC_DISCARD)
    if not legal:
        assert_refused(h, MOVE_KNOCK, ERR_CANNOT_KNOCK)


def test_oklahoma_ace_upcard_gin_only() -> None:
    h = HandRunner(make_deck(GIN_DEFENDER, GIN_HAND, "AH", "9H"), Rules.preset("oklahoma"))
    h.play(1, DEC_OFFER, "pass")
    h.play(0, DEC_OFFER, "pass")
    assert h.decision() == DEC_KNOCK  # gin is always within the limit
    h.play(1, DEC_KNOCK, "knock")
    h.play(1, DEC_DISCARD, "KD")
    assert h.end == "gin" and int(h.hs[HS_POINTS]) == 95  # a heart: not doubled
    no_gin = HandRunner(make_deck(GIN_DEFENDER, GIN_HAND.replace("4S", "4D"), "AH", "9H"),
                        Rules.preset("oklahoma"))
    no_gin.play(1, DEC_OFFER, "pass")
    no_gin.play(0, DEC_OFFER, "pass")
    assert no_gin.decision() == DEC_DISCARD  # best deadwood 4 (4D) > 0


@pytest.mark.parametrize(("rules", "points"), [
    (Rules.preset("oklahoma"), 152),
    (Rules(spade_doubling=True), 152),
    (Rules(oklahoma=True), 76),
    (Rules(), 76),
])
def test_spade_upcard_doubles_a_full_hand(rules: Rules, points: int) -> None:
    """The captain takes the upcard 7S and knocks with 2 (limit 7 under Oklahoma): 76, doubled."""
    h = HandRunner(make_deck(DEFENDER, KNOCKER, "7S"), rules)
    assert int(h.hs[HS_KNOCK_LIMIT]) == (7 if rules.oklahoma else 10)
    h.play(1, DEC_OFFER, "take")
    h.play(1, DEC_KNOCK, "knock")
    h.play(1, DEC_DISCARD, "KD")
    assert h.end == "knock" and int(h.hs[HS_POINTS]) == points
    result = hand_result(h.hs, [0, 1])
    assert (result["knocker_deadwood"], result["defender_deadwood"]) == (2, 78)
    assert result["points"] == points
    referee(h)


# ------------------------------------------------------------------------ properties

RULE_VARIANTS = [
    Rules(),
    Rules.preset("oklahoma"),
    Rules(forbid_taken_discard=False),
    Rules(wall=0, knock_limit=0),
    Rules(wall=9, max_turns=12),
    Rules.preset("eaai"),
]


@PROFILE
@given(seed=st.integers(0, 2**32 - 1), variant=st.integers(0, len(RULE_VARIANTS) - 1))
def test_random_hands_keep_every_invariant(seed: int, variant: int) -> None:
    """Random legal play: 52 cards conserved after every move, hands of 10 between turns and
    11 during one, the stock never below the wall, and the referee agrees with every hand."""
    rules = RULE_VARIANTS[variant]
    rng = np.random.default_rng(seed)
    for _ in range(12):
        h = HandRunner(shuffled_deck(int(rng.integers(2**31))), rules)
        h.play_out(rng)
        referee(h)


def test_engine_result_agrees_with_settle_given_the_upcard() -> None:
    """The public settle(knocker, defender, rules, upcard) on the hands of a real knock.

    The captain took the spade upcard 7S into his hand and knocked: the Oklahoma hand limit is
    7 and the points are doubled, exactly what the engine found (152).
    """
    rules = Rules.preset("oklahoma")
    h = HandRunner(make_deck(DEFENDER, KNOCKER, "7S"), rules)
    h.play(1, DEC_OFFER, "take")
    h.play(1, DEC_KNOCK, "knock")
    h.play(1, DEC_DISCARD, "KD")
    s = settle(sorted(h.hand(1)), sorted(h.hand(0)), rules, upcard="7S")
    assert (s.end, s.points) == ("knock", int(h.hs[HS_POINTS])) == ("knock", 152)


def test_forced_draw_is_logged_and_never_asked() -> None:
    """Through GameDriver: players who always pass open every hand with pass, pass, draw_stock,
    and the captain's first question after the two passes is knock or discard, never draw."""
    calls: list = []
    base = protocol_policy(BaseStrategy())  # never takes, knocks when it may
    spies = [SpyStrategy(s, calls, base) for s in range(3)]
    _, records = GameDriver(Rules(), spies, Seeds.from_seed(12), log=True).play(0)
    assert len(records) >= 3
    assert check_views(records, calls, Rules()) == len(calls)  # every question accounted for
    start = 0
    for r, ref in zip(records, referee_game(records, Rules()), strict=True):
        d, n = r["dealer"], r["nondealer"]
        assert r["moves"][:3] == [{"seat": n, "move": "pass"}, {"seat": d, "move": "pass"},
                                  {"seat": n, "move": "draw_stock"}]
        first = calls[start:start + 3]
        start += len(ref.points)
        assert [(seat, v.decision) for seat, v in first[:2]] == [(n, "offer"), (d, "offer")]
        assert first[2][0] == n and first[2][1].decision in ("knock", "discard")
        assert first[2][1].drawn == parse_card(r["deal"]["stock"][0])
    assert start == len(calls)
