"""Under ``showdown = "eaai"`` a knock with an outside player in it is settled on the melds the
players declared (the framework's showdown); under the default exact showdown their
declarations are only told.

One scripted hand: the outside player (seat 0, the non-dealer) holds 5H 6H 7H 8C 8D 8S AC 2D
3S 4C (deadwood AC 2D 3S 4C = 10), passes the upcard 2S, draws KD and knocks discarding it;
``simple`` (seat 1, the dealer) holds 8H 9H KS QD JC TS 9C 7D 6S 5C (84, no meld), so it
declares no melds. Worked by hand:

* exact showdown: 8H and 9H are laid off on the run 5H 6H 7H: 84 - 17 = 67, 67 - 10 = 57;
* the set declared first: the framework tries the defender's cards clubs, hearts, spades,
  diamonds; 8H goes onto the first meld it extends, the set 8C 8D 8S, and 9H then fits
  nothing: 84 - 8 = 76, 76 - 10 = 66;
* the run declared first: 8H then 9H extend the run: 57, as the exact showdown;
* the set alone: the knocker is left 5H 6H 7H AC 2D 3S 4C = 28, above the knock limit 10, and
  forfeits under the framework's showdown.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sim.engine.rules import Rules
from sim.play.outside import OutsideTable, SeatFault, forfeit
from sim.play.state import GameListener, GameState
from sim.records.replay import replay_hand
from strategies.outside import close_programs
from strategies.registry import build_strategy, parse_strategies

KNOCKER = "5H 6H 7H 8C 8D 8S AC 2D 3S 4C".split()
DEFENDER = "8H 9H KS QD JC TS 9C 7D 6S 5C".split()
UPCARD, DRAWN = "2S", "KD"
SET, RUN = ["8C", "8D", "8S"], ["5H", "6H", "7H"]

#: The knocker: passes the upcard, draws, knocks with the melds it is given (its first
#: argument), discards KD; it writes each hand_end it is told to the file of its second.
KNOCKING_PLAYER = """
import json, sys
melds = json.loads(sys.argv[1])
for line in sys.stdin:
    m = json.loads(line)
    kind = m["type"]
    if kind == "hello":
        out = {"type": "hello", "protocol": "ginbox-agent 1", "name": "knocker"}
    elif kind == "decision":
        move = {"offer": "pass", "draw": "draw_stock", "knock": "knock",
                "discard": "KD"}[m["decision"]]
        out = {"type": "move", "id": m["id"], "move": move}
        if move == "knock":
            out["melds"] = melds
    elif kind == "showdown":
        out = {"type": "layout", "id": m["id"]}
    elif kind == "hand_end":
        with open(sys.argv[2], "a") as told:
            told.write(line)
        out = {"type": "ready"}
    elif kind == "bye":
        break
    else:
        continue
    print(json.dumps(out), flush=True)
"""


@pytest.fixture(autouse=True)
def _fresh_programs():
    yield
    close_programs()


def _deck() -> list[str]:
    """Dealer's 10, non-dealer's 10, the upcard, the stock from the top."""
    rest = [f"{r}{s}" for s in "SHDC" for r in "A23456789TJQK"]
    used = set(DEFENDER + KNOCKER + [UPCARD, DRAWN])
    return DEFENDER + KNOCKER + [UPCARD, DRAWN] + [c for c in rest if c not in used]


def _table(tmp_path: Path, melds: list[list[str]], showdown: str) -> tuple[GameState, OutsideTable]:
    """The scripted hand dealt, the outside knocker to declare ``melds``."""
    path = tmp_path / "knocker.py"
    path.write_text(f"#!{sys.executable}\n" + KNOCKING_PLAYER)
    path.chmod(0o755)
    wrapper = tmp_path / "knocker.sh"  # the melds as the program's argument
    told = tmp_path / "told.jsonl"
    wrapper.write_text(f"#!/bin/sh\nexec {path} '{json.dumps(melds)}' {told}\n")
    wrapper.chmod(0o755)
    rules = Rules.resolve("eaai", {"initial_roles": [1, 0], "showdown": showdown})
    specs = parse_strategies([f"agent:{wrapper}", "simple"])
    table = OutsideTable(rules, {0: build_strategy(specs[0])}, [s.text for s in specs])
    table.begin_game(0, 5)
    state = GameState(rules, [None, "simple"], deals="caller", listener=table)
    state.deal(_deck())
    return state, table


def _knock(tmp_path: Path, melds: list[list[str]], showdown: str) -> GameState:
    """Play the scripted hand with the outside knocker declaring ``melds``."""
    state, table = _table(tmp_path, melds, showdown)
    while state.waiting and state.hand == 0:
        state.play(table.decide(state))
    return state


@pytest.mark.parametrize(("melds", "showdown", "layoffs", "deadwood", "points"), [
    ([SET, RUN], "exact", ["8H", "9H"], 67, 57),
    ([SET, RUN], "eaai", ["8H"], 76, 66),
    ([RUN, SET], "eaai", ["8H", "9H"], 67, 57),
    ([SET], "exact", ["8H", "9H"], 67, 57),
])
def test_a_knock_is_settled_on_the_declared_melds_under_the_framework_showdown(
        tmp_path: Path, melds: list[list[str]], showdown: str, layoffs: list[str],
        deadwood: int, points: int) -> None:
    state = _knock(tmp_path, melds, showdown)
    hand = state.last_hand
    assert hand is not None and hand.end == "knock" and hand.knocker == 0 and hand.winner == 0
    assert sorted(hand.layoffs) == sorted(layoffs)
    assert (hand.knocker_deadwood, hand.defender_deadwood, hand.points) == (10, deadwood, points)
    assert state.scores[0] == points
    if showdown == "eaai":  # the melds stored are the ones declared, the defender's none
        assert sorted(map(sorted, hand.knocker_melds)) == sorted(map(sorted, melds))
        assert hand.defender_melds == []


def test_an_illegal_declaration_forfeits_under_the_framework_showdown(tmp_path: Path) -> None:
    """The fault names the knocker and the framework's reason; the game goes to the defender,
    the hand cut short (the forfeit's own path)."""
    state, table = _table(tmp_path, [SET], "eaai")
    with pytest.raises(SeatFault) as caught:
        while state.waiting:
            state.play(table.decide(state))
    fault = caught.value
    assert fault.seat == 0
    assert fault.reason == ("the knocker's declared melds are not legal: they leave 3S 5H 6H 7H "
                            "2D AC 4C (28), above the knock limit 10")
    assert state.scores == (0, 0)  # nothing scored
    _, records, winner = forfeit(state, table.rules, table.names, 0, fault)
    assert winner == 1
    assert records[-1]["result"]["end"] == "forfeit" and records[-1]["ended_by"] == {
        "seat": 0, "reason": fault.reason}


class _Declaring(GameListener):
    """Settles every knock on fixed melds, as a front end with declared melds does."""

    def __init__(self, knocker: list[list[str]], defender: list[list[str]]) -> None:
        self.melds = (knocker, defender)
        self.outcomes: list[int] = []

    def showdown(self, state: GameState) -> None:
        self.outcomes.append(state.settle_declared(*self.melds))


def test_the_game_state_settles_a_knock_once_before_it_is_scored() -> None:
    listener = _Declaring([SET, RUN], [])
    state = GameState(Rules.resolve("eaai", {"initial_roles": [1, 0]}), [None, "simple"],
                      deals="caller", listener=listener)
    state.deal(_deck())
    for move in ("pass", "knock", "KD"):
        state.play(move)
    hand = state.last_hand
    assert listener.outcomes == [0]  # OUTCOME_KNOCK, once
    assert (hand.layoffs, hand.defender_deadwood, hand.points) == (["8H"], 76, 66)
    assert state.scores == (66, 0)


def test_the_hand_log_keeps_the_declared_melds_and_replays_on_them(tmp_path: Path) -> None:
    """The log line of a hand settled on declared melds records them (the knocker's in the
    order laid), and the replay settles on them again: other melds give another result, which
    the replay tells."""
    state = _knock(tmp_path, [SET, RUN], "eaai")
    record = state.records[-1]
    assert record["declared"] == {"knocker": [SET, RUN], "defender": []}
    assert replay_hand(record).ok
    reordered = {**record, "declared": {"knocker": [RUN, SET], "defender": []}}
    assert replay_hand(reordered).differences[:2] == [
        "result.layoffs: recorded [8H], rules give [8H 9H]",
        "result.defender_deadwood: recorded 76, rules give 67"]
    refused = {**record, "declared": {"knocker": [SET], "defender": []}}
    assert "declared: melds the EAAI framework refuses (a forfeit, not a result)" in \
        replay_hand(refused).differences
    assert "declared" not in _knock(tmp_path, [SET, RUN], "exact").records[-1]


@pytest.mark.parametrize(("melds", "told"), [
    ([SET, RUN], [{"card": "8H", "meld": SET}]),
    ([RUN, SET], [{"card": "8H", "meld": RUN}, {"card": "9H", "meld": [*RUN, "8H"]}]),
])
def test_the_players_are_told_the_layoffs_onto_the_melds_as_laid(
        tmp_path: Path, melds: list[list[str]], told: list[dict]) -> None:
    """Each card laid off is told with the meld it went onto, in the framework's order: 8H
    fits the set and the run alike and goes onto whichever the knocker laid first."""
    _knock(tmp_path, melds, "eaai")
    close_programs()  # the program has written all it was told
    hand_end = json.loads((tmp_path / "told.jsonl").read_text().splitlines()[0])
    assert hand_end["result"]["layoffs"] == told
