"""Whole games (sim.engine.game): roles and the box rotation, scoring, the end, two-player mode,
bonuses,
team_policy, fixed and rotated seatings, and properties of full games checked by the referee.

Roles are written (box, captain, sitter) = (dealer, non-dealer, sitter) by seat.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.decks import DEFENDER, GIN_DEFENDER, GIN_HAND, KNOCKER, make_deck, shuffled_deck
from support.endings import finish, new_game
from support.fixtures import fixed_decks
from support.hands import HandRunner
from support.hypothesis_profile import PROFILE
from support.referee import referee_game
from support.scripted import Director, SpyStrategy, protocol_policy, random_policy
from support.views import check_views

from sim.engine.cards import parse_card, parse_cards
from sim.engine.game import (
    GAME_COLUMNS,
    GO_LEN,
    GS_BONUS,
    GS_HANDS,
    GS_HANDS_WON,
    GS_OVER,
    GS_ROLE_SEAT,
    GS_SCORE,
    GS_WINNER,
    record_game,
)
from sim.engine.hand import (
    DEC_OVER,
    END_DRAW,
    END_GIN,
    END_KNOCK,
    END_TURN_LIMIT,
    END_UNDERCUT,
)
from sim.engine.rules import Rules
from sim.engine.view import GI_LEN, V_LEN, fill_view
from sim.play.driver import GameDriver, Seeds, iter_games, play_games
from strategies._dispatch import decide
from strategies.base import BaseStrategy
from strategies.builtin import MEM_LEN, SCRATCH_LEN
from strategies.registry import parse_strategy

COL = {name: i for i, name in enumerate(GAME_COLUMNS)}


# ------------------------------------------------------------------ end_hand, one hand at a time


def roles_of(gs: np.ndarray) -> tuple[int, int, int]:
    return tuple(int(gs[GS_ROLE_SEAT + r]) for r in range(3))  # type: ignore[return-value]


def scores_of(gs: np.ndarray, n: int = 3) -> list[int]:
    return [int(gs[GS_SCORE + s]) for s in range(n)]


@pytest.mark.parametrize("end", [END_KNOCK, END_GIN, END_UNDERCUT])
def test_box_wins_box_stays_captain_and_sitter_swap(end: int) -> None:
    gs, rules = new_game(Rules(), (2, 0, 1))
    assert finish(gs, rules, end, winner=0, points=23) == 2
    assert roles_of(gs) == (2, 1, 0)
    assert scores_of(gs) == [0, 0, 23]
    assert int(gs[GS_HANDS_WON + 2]) == 1 and int(gs[GS_HANDS]) == 1


@pytest.mark.parametrize("end", [END_KNOCK, END_GIN, END_UNDERCUT])
def test_box_loses_box_sits_out_captain_boxes_sitter_captains(end: int) -> None:
    gs, rules = new_game(Rules(), (2, 0, 1))
    assert finish(gs, rules, end, winner=1, points=31) == 0  # the captain (seat 0) scores
    assert roles_of(gs) == (0, 1, 2)
    assert scores_of(gs) == [31, 0, 0]


@pytest.mark.parametrize("end", [END_DRAW, END_TURN_LIMIT])
def test_drawn_hand_keeps_roles_and_scores(end: int) -> None:
    gs, rules = new_game(Rules(), (1, 2, 0))
    gs[GS_SCORE:GS_SCORE + 3] = (5, 6, 7)
    assert finish(gs, rules, end) == -1
    assert roles_of(gs) == (1, 2, 0)
    assert scores_of(gs) == [5, 6, 7] and int(gs[GS_HANDS]) == 1
    assert not gs[GS_OVER]


def test_rotation_sequence() -> None:
    """A run of results from (0, 1, 2), each rotation exactly as docs/rules.md."""
    gs, rules = new_game(Rules(), (0, 1, 2))
    steps = [  # (winner hand player or None for a draw, roles after)
        (0, (0, 2, 1)),  # box wins: captain and sitter swap
        (0, (0, 1, 2)),
        (None, (0, 1, 2)),  # draw: nothing changes
        (1, (1, 2, 0)),  # captain wins: box out, captain boxes, sitter captains
        (1, (2, 0, 1)),
        (0, (2, 1, 0)),
        (1, (1, 0, 2)),
    ]
    for winner, after in steps:
        if winner is None:
            finish(gs, rules, END_DRAW)
        else:
            finish(gs, rules, END_KNOCK, winner, 1)
        assert roles_of(gs) == after


@pytest.mark.parametrize(("before", "points", "over"), [(90, 10, True), (90, 9, False),
                                                        (0, 100, True), (99, 1, True),
                                                        (50, 120, True)])
def test_game_over_exactly_at_target(before: int, points: int, over: bool) -> None:
    gs, rules = new_game(Rules(), (0, 1, 2))
    gs[GS_SCORE + 1] = before
    gs[GS_SCORE + 2] = 99  # the sitter's score never ends the game by itself
    finish(gs, rules, END_KNOCK, winner=1, points=points)
    assert bool(gs[GS_OVER]) == over
    assert int(gs[GS_WINNER]) == (1 if over else -1)


@pytest.mark.parametrize("end", [END_KNOCK, END_GIN, END_UNDERCUT])
def test_sitter_never_scores(end: int) -> None:
    """The hand's points go to the seat of the hand player who won it (the box or the captain),
    whatever the seating and the end; every other seat, the sitter's above all, keeps its score.
    """
    for roles in itertools.permutations(range(3)):
        for winner in (0, 1):
            gs, rules = new_game(Rules(), roles)
            gs[GS_SCORE:GS_SCORE + 3] = (5, 6, 7)
            scorer = finish(gs, rules, end, winner, 17)
            assert scorer == roles[winner]
            want = [5, 6, 7]
            want[roles[winner]] += 17
            assert scores_of(gs) == want
            assert scores_of(gs)[roles[2]] == (5, 6, 7)[roles[2]]


def test_two_player_deal_passes_after_a_win_and_stays_after_a_draw() -> None:
    gs, rules = new_game(Rules.preset("eaai"), (1, 0))
    assert roles_of(gs) == (1, 0, -1)
    assert finish(gs, rules, END_DRAW) == -1 and roles_of(gs) == (1, 0, -1)
    assert finish(gs, rules, END_TURN_LIMIT) == -1 and roles_of(gs) == (1, 0, -1)
    assert finish(gs, rules, END_KNOCK, 0, 12) == 1 and roles_of(gs) == (0, 1, -1)
    assert finish(gs, rules, END_UNDERCUT, 0, 25) == 0 and roles_of(gs) == (1, 0, -1)
    assert finish(gs, rules, END_GIN, 1, 30) == 0 and roles_of(gs) == (0, 1, -1)
    assert scores_of(gs, 2) == [55, 12]


def final_row(gs: np.ndarray) -> dict[str, int]:
    row = np.zeros(GO_LEN, np.int64)
    record_game(row, gs)
    return {name: int(row[i]) for name, i in COL.items()}


def test_classic_bonuses_exact() -> None:
    """Hands won 20 each (not towards the target), game 100, shutout another 100."""
    gs, rules = new_game(Rules.preset("classic"), (0, 1))
    finish(gs, rules, END_KNOCK, 0, 30)  # seat 0 deals and wins: 30
    finish(gs, rules, END_DRAW)  # seat 1 deals; a draw
    finish(gs, rules, END_GIN, 1, 40)  # seat 1 deals; non-dealer seat 0 gins: 70
    finish(gs, rules, END_UNDERCUT, 1, 25)  # seat 0 deals; non-dealer seat 1 undercuts: 25
    finish(gs, rules, END_KNOCK, 0, 30)  # seat 1 deals and wins: 55
    assert not gs[GS_OVER] and roles_of(gs) == (0, 1, -1)
    finish(gs, rules, END_KNOCK, 0, 30)  # seat 0 deals and wins: 100
    assert gs[GS_OVER] and int(gs[GS_WINNER]) == 0
    r = final_row(gs)
    assert (r["score_0"], r["score_1"]) == (100, 55)
    assert (r["hands_won_0"], r["hands_won_1"]) == (3, 2)
    assert r["final_0"] == 100 + 3 * 20 + 100  # no shutout: seat 1 scored
    assert r["final_1"] == 55 + 2 * 20
    assert r["final_2"] == 0 and r["winner"] == 0 and r["hands"] == 6


def test_classic_shutout() -> None:
    gs, rules = new_game(Rules.preset("classic"), (0, 1))
    finish(gs, rules, END_KNOCK, 1, 60)  # seat 1
    finish(gs, rules, END_GIN, 0, 45)  # seat 1 deals and wins: 105
    r = final_row(gs)
    assert r["winner"] == 1
    assert r["final_1"] == 105 + 2 * 20 + 100 + 100
    assert r["final_0"] == 0 and int(gs[GS_BONUS]) == 0


def test_three_handed_bonus_options() -> None:
    """Bonuses are options in three-handed play too; a shutout needs both others at 0."""
    rules = Rules(hand_bonus=5, game_bonus=50, shutout_bonus=30)
    gs, arr = new_game(rules, (0, 1, 2))
    finish(gs, arr, END_KNOCK, 0, 60)  # seat 0 boxes on; roles (0, 2, 1)
    finish(gs, arr, END_KNOCK, 0, 40)  # seat 0: 100
    r = final_row(gs)
    assert (r["winner"], r["final_0"], r["final_1"], r["final_2"]) == (0, 100 + 10 + 50 + 30, 0, 0)
    gs, arr = new_game(rules, (0, 1, 2))
    finish(gs, arr, END_KNOCK, 1, 5)  # seat 1: 5; roles (1, 2, 0)
    finish(gs, arr, END_KNOCK, 1, 100)  # seat 2: 100
    r = final_row(gs)
    assert (r["winner"], r["final_0"], r["final_1"], r["final_2"]) == (2, 0, 5 + 5, 100 + 5 + 50)


def test_three_handed_preset_has_no_bonuses() -> None:
    g = play_games("simple,greedy-knock,random", games=30, seed=3).games
    for s in range(3):
        assert (g[f"final_{s}"] == g[f"score_{s}"]).all()
    assert (g[[f"score_{s}" for s in range(3)]].max(axis=1) >= 100).all()


def test_classic_bonuses_in_played_games() -> None:
    """final_* = score + 20 per hand won (+ 100 game bonus, + 100 more on a shutout)."""
    g = play_games("simple,greedy-knock", rules="classic", games=150, seed=9).games
    shutouts = 0
    for _, row in g.iterrows():
        w = int(row["winner"])
        loser = 1 - w
        shutout = row[f"score_{loser}"] == 0
        shutouts += int(shutout)
        assert row[f"final_{w}"] == (row[f"score_{w}"] + 20 * row[f"hands_won_{w}"] + 100
                                     + (100 if shutout else 0))
        assert row[f"final_{loser}"] == row[f"score_{loser}"] + 20 * row[f"hands_won_{loser}"]
        assert row[f"score_{w}"] >= 100 > row[f"score_{loser}"]
    assert 0 < shutouts < len(g)


# --------------------------------------------------------------- scripted games, fixed decks

# The captain (non-dealer) takes 7H and knocks for 76 (see test_hand).
CAPTAIN_KNOCKS = make_deck(DEFENDER, KNOCKER, "7H")
# The same hands the other way round: the box takes 7H and knocks for 76.
BOX_KNOCKS = make_deck(KNOCKER, DEFENDER, "7H")
WALL = shuffled_deck(99)


def play_scripted(monkeypatch: Any, rules: Rules, decks: list[np.ndarray],
                  scripts: list) -> tuple[np.ndarray, list[dict[str, Any]], Director]:
    fixed_decks(monkeypatch, decks)
    director = Director(scripts)
    driver = GameDriver(rules, [director.seat(s) for s in range(rules.players)],
                        Seeds.from_seed(0), log=True)
    row, records = driver.play(0)
    assert director.finished(), "part of the script was not played"
    referee_game(records, rules)
    return row, records, director


def roles_log(records: list[dict[str, Any]]) -> list[tuple]:
    return [(r["dealer"], r["nondealer"], r["sitter"]) for r in records]


def test_scripted_three_handed_game(monkeypatch: Any) -> None:
    """Captain wins, box wins, a wall draw, box wins to 228: every rotation and score exact."""
    rules = Rules(target=200, initial_roles=(0, 1, 2))
    row, records, _ = play_scripted(
        monkeypatch, rules, [CAPTAIN_KNOCKS, BOX_KNOCKS, WALL, BOX_KNOCKS],
        [
            [(1, "take"), (1, "knock"), (1, "KD")],  # roles (0, 1, 2): seat 1 scores 76
            [(2, "pass"), (1, "take"), (1, "knock"), (1, "KD")],  # (1, 2, 0): box 1 wins
            None,  # (1, 0, 2): the wall
            [(0, "pass"), (1, "take"), (1, "knock"), (1, "KD")],  # (1, 0, 2) again
        ],
    )
    assert roles_log(records) == [(0, 1, 2), (1, 2, 0), (1, 0, 2), (1, 0, 2)]
    assert [r["result"]["end"] for r in records] == ["knock", "knock", "draw", "knock"]
    assert [r["result"]["winner"] for r in records] == [1, 1, None, 1]
    assert [r["scores"] for r in records] == [[0, 76, 0], [0, 152, 0], [0, 152, 0],
                                             [0, 228, 0]]
    assert [r["game_over"] for r in records] == [False, False, False, True]
    assert records[-1]["game_winner"] == 1
    r = {name: int(row[i]) for name, i in COL.items()}
    assert (r["winner"], r["hands"], r["score_1"], r["final_1"]) == (1, 4, 228, 228)
    assert (r["knocks"], r["draws"], r["box_knock_wins"], r["captain_knock_wins"]) == (3, 1, 2, 1)
    assert (r["box_hands_0"], r["box_hands_1"], r["box_runs_1"], r["box_wins_1"]) == (1, 3, 1, 2)
    assert (r["pair_hands_01"], r["pair_hands_12"], r["pair_hands_10"]) == (1, 1, 2)


def test_scripted_advisor_decides_but_captain_scores(monkeypatch: Any) -> None:
    """team_policy='advisor': the sitter (seat 2) answers for the captain (seat 1), who scores."""
    rules = Rules(team_policy="advisor", initial_roles=(0, 1, 2), target=50)
    _, records, director = play_scripted(
        monkeypatch, rules, [CAPTAIN_KNOCKS], [[(2, "take"), (2, "knock"), (2, "KD")]])
    assert records[0]["result"]["winner"] == 1 and records[0]["scores"] == [0, 76, 0]
    assert [(seat, v.role) for _, seat, v in director.asked] == [(2, "nondealer")] * 3
    assert records[0]["game_winner"] == 1


def test_scripted_two_player_classic_game(monkeypatch: Any) -> None:
    """Classic: seat 1 wins as non-dealer, a draw keeps the deal, seat 1 wins as dealer."""
    rules = Rules.preset("classic").replace(initial_roles=(0, 1))
    row, records, _ = play_scripted(
        monkeypatch, rules, [CAPTAIN_KNOCKS, WALL, BOX_KNOCKS],
        [
            [(1, "take"), (1, "knock"), (1, "KD")],  # dealer 0: seat 1 scores 76
            None,  # the deal passed to seat 1; a draw
            [(0, "pass"), (1, "take"), (1, "knock"), (1, "KD")],  # seat 1 still deals: 152
        ],
    )
    assert [(r["dealer"], r["nondealer"], r["sitter"]) for r in records] == [
        (0, 1, None), (1, 0, None), (1, 0, None)]
    assert [r["scores"] for r in records] == [[0, 76], [0, 76], [0, 152]]
    r = {name: int(row[i]) for name, i in COL.items()}
    assert r["winner"] == 1 and r["initial_sitter"] == -1
    assert r["final_1"] == 152 + 2 * 20 + 100 + 100  # hand bonuses, game, shutout
    assert r["final_0"] == 0


def test_scripted_two_player_gin_no_shutout(monkeypatch: Any) -> None:
    rules = Rules.preset("classic").replace(initial_roles=(0, 1), target=150)
    gin = make_deck(GIN_DEFENDER, GIN_HAND, "2D", "9H")
    row, records, _ = play_scripted(
        monkeypatch, rules, [gin, CAPTAIN_KNOCKS, CAPTAIN_KNOCKS],
        [
            [(1, "pass"), (0, "pass"), (1, "knock"), (1, "KD")],  # seat 1 gins: 95
            [(0, "take"), (0, "knock"), (0, "KD")],  # seat 1 deals; seat 0 knocks: 76
            [(1, "take"), (1, "knock"), (1, "KD")],  # seat 0 deals; seat 1: 171
        ],
    )
    assert [r["result"]["end"] for r in records] == ["gin", "knock", "knock"]
    assert [r["scores"] for r in records] == [[0, 90], [76, 90], [76, 166]]
    r = {name: int(row[i]) for name, i in COL.items()}
    assert (r["final_0"], r["final_1"]) == (76 + 20, 166 + 40 + 100)


# ------------------------------------------------------------------------ team policy


def replay_with(record: dict[str, Any], rules: Rules, seat_specs: list[str],
                deciders: tuple[int, int]) -> list[dict[str, Any]]:
    """Re-play a logged hand's deal letting the given seats' (deterministic) built-ins decide
    for hand players 0 and 1; return the moves that gives, in log form."""
    d = record["deal"]
    deck = np.array(parse_cards(d["dealer"]) + parse_cards(d["nondealer"])
                    + [parse_card(d["upcard"])] + parse_cards(d["stock"]), np.int64)
    h = HandRunner(deck, rules)
    view = np.zeros(V_LEN, np.int64)
    game_info = np.zeros(GI_LEN, np.int64)
    mem = np.zeros(MEM_LEN, np.int64)
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    rng = np.zeros(1, np.uint64)
    while (decision := h.decision()) != DEC_OVER:
        spec = parse_strategy(seat_specs[deciders[h.to_move]])
        fill_view(view, h.hs, h.pile_arr, game_info, decision)
        move = decide(spec.strategy_id, decision, spec.params_array(), view, h.after, mem,
                      rng, scratch)
        assert h.try_move(int(move)) == 0
    seats = (record["dealer"], record["nondealer"])
    return [{**m, "seat": seats[m["seat"]]} for m in h.record()["moves"]]


@pytest.mark.parametrize("policy", ["captain", "advisor"])
def test_team_policy_who_decides_for_the_captain(policy: str) -> None:
    """Deterministic built-ins that differ only in when they knock: each logged hand is exactly
    what the expected deciders play (the sitter for the captain under 'advisor'), and not what
    the other policy's deciders would play."""
    seats = ["greedy-knock:knock_at=0", "greedy-knock", "greedy-knock:knock_at=5"]
    rules = Rules(team_policy=policy)
    driver = GameDriver(rules, seats, Seeds.from_seed(4), log=True)
    records = [rec for g in range(4) for rec in driver.play(g)[1]]
    differs = 0
    for r in records:
        advisor = (r["dealer"], r["sitter"])
        captain = (r["dealer"], r["nondealer"])
        expected, other = (advisor, captain) if policy == "advisor" else (captain, advisor)
        assert replay_with(r, rules, seats, expected) == r["moves"]
        differs += replay_with(r, rules, seats, other) != r["moves"]
        if policy == "advisor":
            assert r.get("advisor", r["sitter"]) == r["sitter"]
    assert differs > 0, "the two policies never differed: the test shows nothing"


def test_advisor_spies_see_the_captains_view() -> None:
    """Python spies: under 'advisor' the captain's seat is never asked; the sitter is asked with
    the captain's view (deciders and views checked against the log by check_views)."""
    rules = Rules(team_policy="advisor")
    calls: list = []
    base = protocol_policy(BaseStrategy())
    spies = [SpyStrategy(s, calls, base if s == 1 else random_policy) for s in range(3)]
    _, records = GameDriver(rules, spies, Seeds.from_seed(8), log=True).play(0)
    assert check_views(records, calls, rules) == len(calls) > 0
    assert {v.role for _, v in calls} == {"dealer", "nondealer"}


# ------------------------------------------------------------------ initial roles, rotation


def initial_roles(rows: np.ndarray) -> list[tuple[int, int, int]]:
    cols = [COL["initial_box"], COL["initial_captain"], COL["initial_sitter"]]
    return [tuple(int(x) for x in r[cols]) for r in rows]  # type: ignore[misc]


def compiled_rows(rules: Rules, seats: str, games: int, seed: int = 0, first: int = 0,
                  rotate: bool = False) -> np.ndarray:
    return np.concatenate([out for out, _ in iter_games(
        rules, seats.split(","), games, Seeds.from_seed(seed), first_game=first, rotate=rotate)])


def test_fixed_initial_roles() -> None:
    rules = Rules(initial_roles=(2, 0, 1))
    rows = compiled_rows(rules, "greedy-knock,simple,random", 20)
    assert set(initial_roles(rows)) == {(2, 0, 1)}
    _, records = GameDriver(rules, ["simple"] * 3, Seeds.from_seed(1), log=True).play(0)
    assert roles_log(records)[0] == (2, 0, 1)
    two = Rules.preset("eaai").replace(initial_roles=(1, 0))
    assert set(initial_roles(compiled_rows(two, "simple,simple", 10))) == {(1, 0, -1)}


def test_random_initial_roles_cover_every_seating() -> None:
    rows = compiled_rows(Rules(), "greedy-knock,greedy-knock,greedy-knock", 90)
    assert set(initial_roles(rows)) == set(itertools.permutations(range(3)))
    two = compiled_rows(Rules.preset("eaai"), "greedy-knock,greedy-knock", 40)
    assert set(initial_roles(two)) == {(0, 1, -1), (1, 0, -1)}


@pytest.mark.parametrize("first", [0, 4])
def test_rotate_covers_all_six_seatings_every_six_games(first: int) -> None:
    rows = compiled_rows(Rules(), "greedy-knock,simple,random", 12, first=first, rotate=True)
    seatings = initial_roles(rows)
    perms = set(itertools.permutations(range(3)))
    assert set(seatings[:6]) == perms and set(seatings[6:]) == perms
    assert seatings[:6] == seatings[6:]
    driver = GameDriver(Rules(), ["greedy-knock", "simple", "random"], Seeds.from_seed(0),
                        rotate=True)
    assert [tuple(initial_roles(driver.play(first + g)[0][None])[0]) for g in range(6)] == \
        seatings[:6]
    two = compiled_rows(Rules.preset("eaai"), "simple,random", 4, first=first, rotate=True)
    assert initial_roles(two)[:2] in ([(0, 1, -1), (1, 0, -1)], [(1, 0, -1), (0, 1, -1)])
    assert set(initial_roles(two)) == {(0, 1, -1), (1, 0, -1)}


# ----------------------------------------------------------------------------- properties

BUILTIN = ["random", "simple", "greedy-knock", "greedy-knock:knock_at=0",
           "greedy-knock:knock_at=4"]
THREE_HANDED_RULES = [
    Rules(),
    Rules(team_policy="advisor"),
    Rules.preset("oklahoma"),
    Rules.preset("three-handed-20").replace(target=60),
    Rules(initial_roles=(1, 2, 0), wall=6, forbid_taken_discard=False),
]
TWO_PLAYER_RULES = [Rules.preset("classic"), Rules.preset("eaai"),
                    Rules.preset("eaai").replace(max_turns=20)]


def seat_list(names: list[str], python_seat: int | None) -> list[Any]:
    """Strategy names, with one seat replaced by a Python random strategy if asked."""
    seats: list[Any] = list(names)
    if python_seat is not None and python_seat < len(seats):
        seats[python_seat] = SpyStrategy(python_seat, [], random_policy)
    return seats


@PROFILE
@given(seed=st.integers(0, 2**63 - 1),
       names=st.lists(st.sampled_from(BUILTIN), min_size=3, max_size=3),
       variant=st.integers(0, len(THREE_HANDED_RULES) - 1),
       python_seat=st.one_of(st.none(), st.integers(0, 2)))
def test_three_handed_games_follow_the_rules(seed: int, names: list[str], variant: int,
                                             python_seat: int | None) -> None:
    """Every move legal, 52 cards conserved, one scorer per won hand and never the sitter,
    rotation and draws as the rules say, scores only grow, game over exactly at the target."""
    rules = THREE_HANDED_RULES[variant]
    driver = GameDriver(rules, seat_list(names, python_seat), Seeds.from_seed(seed), log=True)
    row, records = driver.play(seed % 1000)
    referee_game(records, rules)
    assert int(row[COL["winner"]]) == records[-1]["game_winner"]


@PROFILE
@given(seed=st.integers(0, 2**63 - 1),
       names=st.lists(st.sampled_from(BUILTIN), min_size=2, max_size=2),
       variant=st.integers(0, len(TWO_PLAYER_RULES) - 1),
       python_seat=st.one_of(st.none(), st.integers(0, 1)))
def test_two_player_games_follow_the_rules(seed: int, names: list[str], variant: int,
                                           python_seat: int | None) -> None:
    """As above in two-player mode: the deal passes after a won hand and stays after a draw."""
    rules = TWO_PLAYER_RULES[variant]
    driver = GameDriver(rules, seat_list(names, python_seat), Seeds.from_seed(seed), log=True)
    _, records = driver.play(seed % 1000)
    referee_game(records, rules)
