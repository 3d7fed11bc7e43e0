"""Hollywood scoring (docs/rules.md, "Hollywood scoring"): three games scored at once.

Scores worked out by hand, hand after hand, through the engine's ``end_hand``, and scripted
matches on fixed decks through the driver; the independent referee's sheet
(tests/support/hollywood.py) agrees with random matches; replay checks Hollywood logs; the same
seed gives the same match; bad options are refused in one line; standard play is untouched.
"""

from __future__ import annotations

import copy
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from support.decks import DEFENDER, KNOCKER, make_deck
from support.endings import new_game, seat_wins
from support.fixtures import fixed_decks
from support.referee import referee_game
from support.scripted import Director

from sim.engine.game import (
    GAME_COLUMNS,
    GO_LEN,
    GS_BONUS,
    GS_HW_FINAL,
    GS_HW_OPENED,
    GS_HW_SCORE,
    GS_HW_WINNER,
    GS_OVER,
    GS_SCORE,
    GS_WINNER,
    record_game,
)
from sim.engine.rules import Rules
from sim.play.driver import GameDriver, Seeds, play_games
from sim.records.replay import replay_log

COL = {name: i for i, name in enumerate(GAME_COLUMNS)}


def sheet(gs: np.ndarray, n: int) -> list[list[int]]:
    """Points per game (rows) and seat (columns)."""
    return [[int(gs[GS_HW_SCORE + 3 * k + s]) for s in range(n)] for k in range(3)]


def winners(gs: np.ndarray) -> list[int]:
    return [int(gs[GS_HW_WINNER + k]) for k in range(3)]


def finals(gs: np.ndarray, k: int, n: int) -> list[int]:
    return [int(gs[GS_HW_FINAL + 3 * k + s]) for s in range(n)]


def row_of(gs: np.ndarray) -> dict[str, int]:
    row = np.zeros(GO_LEN, np.int64)
    record_game(row, gs)
    return {name: int(row[i]) for name, i in COL.items()}


# --------------------------------------------------------------- scores worked out by hand


def test_two_player_match_by_hand() -> None:
    """Game 1 ends while games 2 and 3 go on, a player's next win after game 1 enters game 2
    only, game 3 is a shutout (doubled), and the match totals add the three games."""
    gs, arr = new_game(Rules.preset("hollywood"), (0, 1))
    seat_wins(gs, arr, 0, 30)  # A's 1st win: game 1
    seat_wins(gs, arr, 1, 20)  # B's 1st win: game 1
    seat_wins(gs, arr, 0, 40)  # A's 2nd: games 1, 2
    assert sheet(gs, 2) == [[70, 20], [40, 0], [0, 0]]
    seat_wins(gs, arr, 0, 35)  # A's 3rd: all three; game 1 reaches 105 and ends
    assert sheet(gs, 2) == [[105, 20], [75, 0], [35, 0]]
    assert winners(gs) == [0, -1, -1] and not gs[GS_OVER]
    assert finals(gs, 0, 2) == [105 + 3 * 20 + 100, 20 + 20]  # no shutout: B scored
    seat_wins(gs, arr, 1, 25)  # B's 2nd win: games 1 (ended) and 2 -> game 2 only
    assert sheet(gs, 2) == [[105, 20], [75, 25], [35, 0]]
    assert [int(gs[GS_HW_OPENED + s]) for s in range(2)] == [3, 2]
    seat_wins(gs, arr, 0, 30)  # game 2 ends at 105; game 3 goes on
    assert winners(gs) == [0, 0, -1]
    assert finals(gs, 1, 2) == [105 + 3 * 20 + 100, 25 + 20]
    assert sheet(gs, 2)[2] == [65, 0]
    seat_wins(gs, arr, 0, 40)  # game 3 ends at 105, B never scored in it: doubled
    assert winners(gs) == [0, 0, 0] and gs[GS_OVER] and gs[GS_WINNER] == 0
    assert finals(gs, 2, 2) == [2 * (105 + 3 * 20 + 100), 0]
    r = row_of(gs)
    assert (r["score_0"], r["score_1"]) == (315, 45)  # points entered over the games
    assert (r["final_0"], r["final_1"]) == (265 + 265 + 530, 40 + 45)
    assert (r["games_won_0"], r["games_won_1"], r["winner"]) == (3, 0, 0)


def test_shut_out_player_opens_the_next_game_in_progress() -> None:
    """Shut out of game 1, a player's first win is the first score of game 2; game 1's
    shutout doubles its winner's total."""
    gs, arr = new_game(Rules.preset("hollywood"), (0, 1))
    seat_wins(gs, arr, 0, 60)
    seat_wins(gs, arr, 0, 50)  # game 1: 110 to 0
    assert winners(gs) == [0, -1, -1]
    assert finals(gs, 0, 2) == [2 * (110 + 2 * 20 + 100), 0]
    seat_wins(gs, arr, 1, 30)  # B's first win: game 2
    assert sheet(gs, 2) == [[110, 0], [50, 30], [0, 0]]
    seat_wins(gs, arr, 1, 20)  # B's second: games 2 and 3
    assert sheet(gs, 2) == [[110, 0], [50, 50], [0, 20]]
    assert [int(gs[GS_HW_OPENED + s]) for s in range(2)] == [2, 3]


def test_bonus_options_apply_per_game() -> None:
    """hand_bonus, game_bonus and shutout_bonus are options; without doubling no doubling."""
    rules = Rules.preset("hollywood").replace(hand_bonus=25, game_bonus=50, shutout_bonus=10,
                                              shutout_doubling=False, target=50)
    gs, arr = new_game(rules, (1, 0))
    seat_wins(gs, arr, 1, 60)  # game 1 ends at once: 60 + 25 + 50 + 10 (shutout)
    assert finals(gs, 0, 2) == [0, 60 + 25 + 50 + 10]


def test_three_handed_match_by_hand() -> None:
    """The three-handed ruling: each seat's wins in its own columns, the rotation unchanged,
    the match won on the total even by a seat that won one game of the three."""
    gs, arr = new_game(Rules.preset("three-handed-hollywood"), (0, 1, 2))
    seat_wins(gs, arr, 1, 50)  # captain 1 wins; roles (1, 2, 0)
    seat_wins(gs, arr, 1, 60)  # box 1 keeps the box: game 1 110, others 0: doubled
    assert winners(gs) == [1, -1, -1]
    assert finals(gs, 0, 3) == [0, 2 * (110 + 2 * 20 + 100), 0]
    seat_wins(gs, arr, 0, 30)  # roles were (1, 0, 2): captain 0's 1st win -> game 2
    seat_wins(gs, arr, 0, 80)  # box 0: games 2 and 3; game 2 ends at 110
    assert sheet(gs, 3) == [[0, 110, 0], [110, 60, 0], [80, 0, 0]]
    assert finals(gs, 1, 3) == [110 + 2 * 20 + 100, 60 + 20, 0]  # seat 1 scored: no shutout
    seat_wins(gs, arr, 1, 40)  # roles (0, 1, 2): captain 1's 3rd win -> game 3
    seat_wins(gs, arr, 2, 100)  # roles (1, 2, 0): captain 2's 1st win -> game 3, ends it
    assert winners(gs) == [1, 0, 2] and gs[GS_OVER]
    assert finals(gs, 2, 3) == [80 + 20, 40 + 20, 100 + 20 + 100]
    r = row_of(gs)
    assert [r[f"final_{s}"] for s in range(3)] == [350, 640, 220]
    assert [r[f"score_{s}"] for s in range(3)] == [190, 210, 100]
    assert [r[f"games_won_{s}"] for s in range(3)] == [1, 1, 1]
    assert r["winner"] == 1


def test_standard_scoring_with_shutout_doubling() -> None:
    """shutout_doubling works under standard scoring too: the winner's total doubles."""
    rules = Rules.preset("classic").replace(shutout_bonus=0, shutout_doubling=True)
    gs, arr = new_game(rules, (0, 1))
    seat_wins(gs, arr, 1, 60)
    seat_wins(gs, arr, 1, 45)
    assert int(gs[GS_SCORE + 1] + gs[GS_BONUS + 1]) == 2 * (105 + 2 * 20 + 100)


# ------------------------------------------------------------ a scripted match, fixed decks

CAPTAIN_KNOCKS = make_deck(DEFENDER, KNOCKER, "7H")  # the non-dealer takes 7H, knocks for 76
BOX_KNOCKS = make_deck(KNOCKER, DEFENDER, "7H")  # the dealer does


def test_scripted_match_through_the_driver(monkeypatch: Any) -> None:
    """Five hands of 76 points: game 1 ends first (no shutout), games 2 and 3 are shutouts;
    the log, the row and the referee agree with the sums worked out by hand."""
    rules = Rules.preset("hollywood").replace(initial_roles=(0, 1))
    fixed_decks(monkeypatch, [CAPTAIN_KNOCKS, CAPTAIN_KNOCKS, CAPTAIN_KNOCKS, BOX_KNOCKS,
                              CAPTAIN_KNOCKS])
    knock_as_nondealer = [(1, "take"), (1, "knock"), (1, "KD")]
    director = Director([
        knock_as_nondealer,  # dealer 0: seat 1, game 1
        [(0, "take"), (0, "knock"), (0, "KD")],  # dealer 1: seat 0, game 1
        knock_as_nondealer,  # dealer 0: seat 1, games 1 (152, ends) and 2
        [(0, "pass"), (1, "take"), (1, "knock"), (1, "KD")],  # dealer 1 wins: games 2, 3
        knock_as_nondealer,  # dealer 0: seat 1, game 3 (152, ends)
    ])
    driver = GameDriver(rules, [director.seat(0), director.seat(1)], Seeds.from_seed(0),
                        log=True)
    row, records = driver.play(0)
    assert director.finished()
    referee_game(records, rules)
    assert [r["scores"] for r in records] == [[0, 76], [76, 76], [76, 228], [76, 380],
                                             [76, 456]]
    games = [g["winner"] for g in records[2]["hollywood"]["games"]]
    assert games == [1, None, None]
    assert records[2]["hollywood"]["games"][0]["final"] == [76 + 20, 152 + 2 * 20 + 100]
    last = records[-1]["hollywood"]
    assert [g["final"] for g in last["games"]] == [
        [96, 292], [0, 2 * (152 + 40 + 100)], [0, 2 * (152 + 40 + 100)]]
    assert records[-1]["final_scores"] == [96, 292 + 584 + 584]
    assert records[-1]["game_winner"] == 1 and records[-1]["game_over"]
    assert [r["game_over"] for r in records[:-1]] == [False] * 4
    assert int(row[COL["games_won_1"]]) == 3 and int(row[COL["final_1"]]) == 1460
    checks = replay_log(records)
    assert all(c.ok for c in checks)
    text = checks[-1].text
    assert "  game 1: seat 0 76, seat 1 152 (won by seat 1; with its bonuses seat 0 96, " \
           "seat 1 292)" in text
    assert "  game 3: seat 0 0, seat 1 152 (won by seat 1; with its bonuses seat 0 0, " \
           "seat 1 584)" in text
    assert "wins the match on the total, bonuses included (seat 0 96, seat 1 1460)." in text
    assert "  game 3: seat 0 0, seat 1 0 (open)" in checks[0].text


# -------------------------------------------------- random matches: referee, replay, seeds


@pytest.mark.parametrize("preset", ["hollywood", "three-handed-hollywood"])
def test_referee_and_replay_agree_with_random_matches(preset: str) -> None:
    rules = Rules.preset(preset).replace(target=60)
    n = rules.players
    driver = GameDriver(rules, ["random", "greedy-knock", "simple"][:n], Seeds.from_seed(21),
                        log=True)
    ended_early = 0
    for game in range(6):
        _, records = driver.play(game)
        referee_game(records, rules)
        checks = replay_log(records)
        assert checks and all(c.ok for c in checks), [c.differences for c in checks]
        over = [[g["winner"] is not None for g in r["hollywood"]["games"]] for r in records]
        ended_early += any(o[0] and not o[2] for o in over)
    assert ended_early > 0  # some game ended while others went on


def test_replay_flags_a_tampered_hollywood_record() -> None:
    rules = Rules.preset("hollywood")
    records = play_games("simple,greedy-knock", rules=rules, games=1, seed=4, log=True).log
    bad = copy.deepcopy(records)
    bad[1]["hollywood"]["games"][0]["scores"][0] += 1
    checks = replay_log(bad)
    assert not checks[1].ok and any(d.startswith("hollywood:") for d in checks[1].differences)
    assert all(c.ok for c in checks[:1])
    bad = copy.deepcopy(records)
    bad[-1]["final_scores"][1] += 20
    assert any(d.startswith("final_scores:") for d in replay_log(bad)[-1].differences)


def test_same_seed_same_match_compiled_and_python() -> None:
    """The same seed gives the same matches, and the compiled batch the driver's rows."""
    a = play_games("discard-tracking,gin-hunter", rules="hollywood", games=40, seed=8)
    b = play_games("discard-tracking,gin-hunter", rules="hollywood", games=40, seed=8)
    logged = play_games("discard-tracking,gin-hunter", rules="hollywood", games=40, seed=8,
                        log=True)
    assert a.games.equals(b.games) and a.games.equals(logged.games)
    assert (a.games[["games_won_0", "games_won_1"]].sum(axis=1) == 3).all()
    won = a.games["winner"].to_numpy()
    total = a.games[["final_0", "final_1"]].to_numpy()
    assert (total[np.arange(40), won] >= total.max(axis=1)).all()
    c = play_games("discard-tracking,gin-hunter", rules="hollywood", games=40, seed=9)
    assert not a.games.equals(c.games)


def test_standard_tables_have_no_hollywood_columns() -> None:
    g = play_games("simple,greedy-knock", rules="classic", games=5, seed=1).games
    assert not any(c.startswith("games_won_") for c in g.columns)
    assert "hollywood" not in play_games("simple,greedy-knock", rules="classic", games=1,
                                         seed=1, log=True).log[0]


def test_summary_counts_games_and_points_per_match() -> None:
    r = play_games("simple,gin-hunter", rules="hollywood", games=30, seed=3)
    s = r.summary()
    assert s["hollywood_games_won"].sum() == 3 * 30
    assert list(s["final_points"]) == [int(r.games[f"final_{i}"].sum()) for i in range(2)]


# ------------------------------------------------------------------------ bad options


@pytest.mark.parametrize(("field", "value", "message"), [
    ("scoring", "hollywod", "scoring='hollywod' is not valid: expected one of standard, "
                            "hollywood"),
    ("scoring", 1, "scoring=1 is not valid: expected one of standard, hollywood"),
    ("shutout_doubling", 1, "shutout_doubling=1 is not valid: expected true or false"),
])
def test_bad_options_refused_in_one_line(field: str, value: Any, message: str) -> None:
    with pytest.raises(ValueError) as exc:
        Rules.preset("hollywood").replace(**{field: value})
    assert str(exc.value) == message


def test_cli_refuses_a_bad_scoring_in_one_line() -> None:
    done = subprocess.run([sys.executable, "-m", "sim", "play", "--strategies", "simple,simple",
                           "--rules", "classic", "--scoring", "holywood", "--games", "1"],
                          capture_output=True, text=True)
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "ginbox: error: scoring='holywood' is not valid: expected one of standard, hollywood"]


def test_rules_dict_round_trip_and_standard_dicts_unchanged() -> None:
    hw = Rules.preset("three-handed-hollywood")
    assert Rules.from_dict(hw.to_dict()) == hw
    assert hw.to_dict()["scoring"] == "hollywood" and hw.to_dict()["shutout_doubling"]
    assert "scoring" not in Rules.preset("classic").to_dict()
    assert Rules.from_dict({"preset": "classic", "scoring": "hollywood"}).scoring == "hollywood"
