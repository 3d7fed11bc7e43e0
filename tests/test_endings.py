"""How each seat ended the game's hands (his knocks, his gins, the most deadwood he knocked
with): counted by the engine as each hand ends, shown in his opponents' views for the rest of
the game, written in the hand log and rebuilt from it, and read by ``mc:opp_model=2``."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from support.views import ended

from sim.engine.game import game_fields
from sim.engine.rules import Rules
from sim.engine.view import V_LEN, view_fields
from sim.play.state import GameState
from sim.records.log import check_record
from sim.records.replay import endings_before, replay_game
from strategies.mc import P_OPP_KNOCK_AT, P_OPP_MODEL
from strategies.mc_worlds import opponent_knock_at
from strategies.registry import parse_strategy

EAAI = Rules.preset("eaai")
THREE = Rules.preset("three-handed")
KEYS = ("knocks", "gins", "knock_deadwood")
Counts = tuple[int, int, int]  # a seat's (knocks, gins, most deadwood knocked with)


def _count(records: list[dict[str, Any]], n: int) -> list[list[Counts]]:
    """From the results alone (the view oracle's count): each seat's endings before hand 0,
    1, ..., and after the last."""
    seats: list[Counts] = [(0, 0, 0)] * n
    before = [list(seats)]
    for record in records:
        ended(seats, record["result"])
        before.append(list(seats))
    return before


def _by_key(seats: list[Counts]) -> dict[str, list[int]]:
    return {key: [s[k] for s in seats] for k, key in enumerate(KEYS)}


def _play(rules: Rules, lineup: list[str], seed: int) -> tuple[GameState, list[tuple[int, int,
                                                                                     Any]]]:
    """A game whose every move the caller asks of ``lineup``; at each decision, the hand, the
    opponent's seat and what the mover's view shows of him."""
    state = GameState(rules, [None] * rules.players, seed=seed, names=lineup)
    shown: list[tuple[int, int, Any]] = []
    while state.waiting:
        seen = view_fields(state.view_array)
        opponent = state.roles[1 - int(state.hand_player or 0)]
        shown.append((state.hand, opponent,
                      (int(seen.opp_knocks), int(seen.opp_gins), int(seen.opp_knock_deadwood))))
        move = state.ask(lineup[int(state.seat or 0)])
        assert move is not None
        state.play(move)
    return state, shown


@pytest.mark.parametrize(("rules", "lineup", "seed"), [
    (EAAI, ["simple", "tuned"], 4),
    (THREE, ["simple", "greedy-knock", "gin-hunter"], 6),
])
def test_every_view_shows_how_the_opponent_ended_the_earlier_hands(
        rules: Rules, lineup: list[str], seed: int) -> None:
    """At every decision the view's OPP_* fields are the opponent's knocks, gins and most
    deadwood knocked with over the game's earlier hands, counted here from the results; each
    record's ``endings`` are the counts after its hand; the replay agrees."""
    state, shown = _play(rules, lineup, seed)
    records = state.records
    counts = _count(records, rules.players)
    for hand, opponent, seen in shown:
        assert seen == counts[hand][opponent], hand
    for i, record in enumerate(records):
        assert record["endings"] == _by_key(counts[i + 1])
    final = game_fields(state.bufs.gs)
    assert [int(v) for v in final.knocks[:rules.players]] == [s[0] for s in counts[-1]]
    last = counts[-1]
    assert sum(s[0] for s in last) > 0 and sum(s[1] for s in last) > 0
    assert any(o > 0 for _, _, (o, _, _) in shown) and len(records) > 2
    assert all(check.ok for check in replay_game(records))


def test_a_record_rebuilds_the_endings_its_hand_started_from() -> None:
    """A logged hand rebuilt (the review's way) starts from the endings before it: the previous
    record's, or without it the record's own less its hand's knock or gin."""
    state, _ = _play(EAAI, ["simple", "tuned"], 4)
    records = state.records
    counts = _count(records, 2)
    for i, record in enumerate(records):
        previous = records[i - 1] if i else None
        want = None if i == 0 else _by_key(counts[i])
        assert endings_before(record, previous) == want
        rebuilt = game_fields(GameState.from_record(record, previous).bufs.gs)
        assert [int(v) for v in rebuilt.gins[:2]] == [s[1] for s in counts[i]]
        alone = endings_before(record, None)
        if i:
            assert alone is not None
            assert (alone["knocks"], alone["gins"]) == (want["knocks"], want["gins"])


def test_the_replay_flags_endings_that_differ_from_the_rules() -> None:
    state, _ = _play(EAAI, ["simple", "tuned"], 4)
    records = copy.deepcopy(state.records)
    records[1]["endings"]["gins"][0] += 1
    checks = replay_game(records)
    assert checks[0].ok and not checks[1].ok
    assert any(d.startswith("endings: recorded") for d in checks[1].differences)


@pytest.mark.parametrize("endings", [
    {"knocks": [0], "gins": [0, 0], "knock_deadwood": [0, 0]},
    {"knocks": [0, -1], "gins": [0, 0], "knock_deadwood": [0, 0]},
    {"knocks": [0, 0], "gins": [0, 0]},
    [0, 0, 0],
])
def test_a_malformed_endings_object_is_refused(endings: Any) -> None:
    state, _ = _play(EAAI, ["simple", "tuned"], 4)
    record = copy.deepcopy(state.records[0])
    check_record(record)
    record["endings"] = endings
    with pytest.raises(ValueError, match="'endings' is"):
        check_record(record)


@pytest.mark.parametrize(("spec", "knocks", "gins", "deadwood", "knock_at"), [
    ("mc:opp_model=2", 0, 0, 0, -1),  # nothing seen yet: the knock limit
    ("mc:opp_model=2", 0, 1, 0, -1),  # one gin is not yet a habit
    ("mc:opp_model=2", 0, 2, 0, 0),  # gin twice, never a knock: he waits for gin
    ("mc:opp_model=2", 1, 3, 6, -1),  # he has knocked: as opp_knock_at says
    ("mc:opp_model=2,opp_knock_at=4", 1, 0, 6, 4),
    ("mc:opp_model=2,opp_knock_at=4", 0, 2, 0, 0),
    ("mc:opp_model=1", 0, 2, 0, -1),  # the in-hand model alone ignores earlier hands
])
def test_the_opponent_model_knocks_as_his_earlier_hands_showed(
        spec: str, knocks: int, gins: int, deadwood: int, knock_at: int) -> None:
    view = np.zeros(V_LEN, np.int64)
    seen = view_fields(view)
    seen.opp_knocks, seen.opp_gins, seen.opp_knock_deadwood = knocks, gins, deadwood
    params = parse_strategy(spec).params_array()
    got = opponent_knock_at(int(params[P_OPP_KNOCK_AT]), int(params[P_OPP_MODEL]), view)
    assert got == knock_at


def test_a_record_alone_with_a_knocker_out_of_range_rebuilds_without_failing() -> None:
    """A hostile line read without its previous hand: a knocker no seat holds is not
    subtracted (the replay reports the record's other faults)."""
    state, _ = _play(EAAI, ["simple", "tuned"], 4)
    record = copy.deepcopy(state.records[2])
    record["result"]["knocker"] = 7
    assert endings_before(record, None) == record["endings"]
