"""The human seat: the table steps games through the one game loop, refuses bad moves without
changing anything, rebuilds a game from its moves, and plays at a real pseudo-terminal."""

from __future__ import annotations

import io
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim.engine.cards import card_str, fan, parse_card, parse_cards, sort_for_display
from sim.engine.rules import Rules
from sim.play.driver import play_games
from sim.records.log import read_log
from sim.records.replay import replay_game
from sim.review.report import position_text
from sim.table import Table
from sim.table.terminal import play_session
from strategies.human import (
    MoveError,
    hand_order,
    in_play_order,
    legal_notation,
    melds_text,
)
from strategies.registry import parse_strategy

EAAI = Rules.preset("eaai")


def scripted_line(table: Table) -> str:
    """A plain player's answer: pass the upcard, draw from the stock, knock when possible,
    else discard the card leaving the least deadwood (the highest such card)."""
    view = table.view()
    legal = legal_notation(view)
    if "pass" in legal:
        return "pass"
    if "d" in legal:
        return "d"
    knocks = [m for m in legal if m.startswith("k ")]
    if knocks:
        return knocks[0]
    discards = [m for m in legal if m.startswith("x ")]
    return min(discards, key=lambda m: (view.deadwood_after[_code(m[2:])], m))


def _code(card: str) -> int:
    return parse_card(card)


def script_hand(rules: Rules, strategies: str, seed: int) -> tuple[list[str], Table]:
    """The lines that play the first hand, and the table after it."""
    table = Table(rules, strategies, seed)
    lines = []
    while not table.records:
        lines.append(scripted_line(table))
        table.play(lines[-1])
    return lines, table


@pytest.mark.parametrize(("rules", "strategies"), [
    (Rules.preset("three-handed"), "simple,greedy-knock,random"),
    (EAAI, "simple,tuned"),
    (Rules.preset("three-handed").replace(team_policy="advisor"), "random,simple,tuned"),
])
def test_a_table_of_bots_writes_the_log_ginbox_play_writes(rules: Rules, strategies: str) -> None:
    for game in (0, 1):
        table = Table(rules, strategies, seed=7, game=game)
        assert table.over and not table.waiting
        expected = [r for r in play_games(strategies, rules, games=2, seed=7, log=True).log
                    if r["game"] == game]
        assert table.records == expected


def test_the_human_name_parses_with_its_hint_budget() -> None:
    spec = parse_strategy("human:hint_samples=32")
    assert (spec.name, spec.params, spec.compiled) == ("human", {"hint_samples": 32}, False)
    for bad in ("human:hint_samples=0", "human:depth=2", "human:hint_samples=x"):
        with pytest.raises(ValueError, match="human"):
            parse_strategy(bad)


def test_bad_moves_are_refused_and_change_nothing() -> None:
    table = Table(EAAI, "human,simple", seed=1)
    assert table.legal() == ["pass", "p"]
    before = (table.state.bufs.hs.copy(), list(table.events))
    for line, message in [
        ("zz", "malformed: 'zz' is not a move"),
        ("x 9H", "illegal: draw first"),
        ("d", "illegal: d answers another question"),
        ("p 9H", "malformed: 'p' takes no card"),
    ]:
        with pytest.raises(MoveError, match=re.escape(message)):
            table.play(line)
    assert (table.state.bufs.hs == before[0]).all() and table.events == before[1]
    table.play("p")  # takes the upcard 3H: it may not go back this turn
    with pytest.raises(MoveError, match="3H was just taken from the pile"):
        table.play("x 3H")
    with pytest.raises(MoveError, match="9H is not in your hand"):
        table.play("x 9H")
    with pytest.raises(MoveError, match="you may not knock now"):
        table.play("k 2S")
    assert table.answers == ["p"]


def test_a_game_is_rebuilt_from_its_moves_and_hints_value_each_option() -> None:
    lines, table = script_hand(EAAI, "human:hint_samples=8,simple", seed=3)
    again = Table.replay(EAAI, "human:hint_samples=8,simple", 3, 0, table.answers)
    assert again.records == table.records and again.events == table.events
    assert again.answers == table.answers
    with pytest.raises(MoveError, match=r"move 2 \('KS'\)"):
        Table.replay(EAAI, "human,simple", 3, 0, [table.answers[0], "KS", "d"])
    hints = again.hints()
    assert sorted(h.move for h in hints) == sorted(again.legal())
    assert all(0.0 <= h.value <= 1.0 for h in hints)
    assert [h.value for h in hints] == sorted((h.value for h in hints), reverse=True)
    assert replay_game(table.records)[0].ok


def test_team_policies_ask_the_human_advisor_and_advise_the_human_captain() -> None:
    advisor = Rules.preset("three-handed").replace(team_policy="advisor")
    for seed in range(40):  # a game whose first hand has the human sitting out
        table = Table(advisor, "human,simple,simple", seed=seed)
        if table.roles[2] == 0:
            break
    assert table.waiting and table.seat == 0 and table.roles[1] != 0
    while not table.records:  # he decides every captain move of the hand
        assert table.seat == 0
        table.play(scripted_line(table))
    assert replay_game(table.records)[0].ok
    consensus = Rules.preset("three-handed").replace(team_policy="consensus")
    for seed in range(40):
        table = Table(consensus, "human,simple,mc:samples=8", seed=seed)
        if table.roles[1] == 0 and table.roles[2] == 2:
            break
    assert table.waiting and table.seat == 0
    assert table.suggestion is not None
    assert table.suggestion.startswith("Sitter seat 2 (mc:samples=8) suggests ")


# ------------------------------------------------------------------------ what a person sees

def test_a_hand_is_shown_by_suit_in_rank_order_everywhere() -> None:
    """One order (by suit, A 2 .. 9 T J Q K within it) for the terminal, the web table's
    text, replay and review; melds first where a hand is arranged."""
    cards = parse_cards("2H 4D 4S 5C 5D 7S 8C JC KD TS")
    assert [card_str(c) for c in sort_for_display(cards)] == [
        "4S", "7S", "TS", "2H", "4D", "5D", "KD", "5C", "8C", "JC"]
    assert fan(cards) == "4S 7S TS  2H  4D 5D KD  5C 8C JC"
    assert melds_text(cards) == ("4S 7S TS  2H  4D 5D KD  5C 8C JC", 65)
    held = parse_cards("7H 3C 6C 5C AS 6H 5D 4S 6D 2D 5H")
    assert melds_text(held) == ("[5H 5D 5C] [6H 6D 6C] · AS 4S  7H  2D  3C", 17)
    assert [card_str(c) for c in hand_order(held)] == [
        "5H", "5D", "5C", "6H", "6D", "6C", "AS", "4S", "7H", "2D", "3C"]
    row = {"game": 0, "hand": 1, "move": 7, "seat": 0, "strategy": "simple", "role": "box",
           "kind": "discard", "stock_left": 20, "score": "0-0", "top": "KD",
           "cards": fan(held), "chosen": "x 2D", "value_chosen": 0.5, "best": "x 7H",
           "value_best": 0.6, "loss": 0.1, "label": "mistake",
           "values": '{"x 7H": 0.6, "x 2D": 0.5}'}
    assert position_text(row).splitlines()[1] == (
        "    hand: [5H 5D 5C] [6H 6D 6C] · AS 4S  7H  2D  3C (deadwood 17)")


def test_a_plain_human_strategy_keeps_the_opponents_cards_in_play_order() -> None:
    """``Human`` sees views (sets); between two of its decisions the opponent plays one
    turn, so the new card is the latest; a set that lacks one is a new hand."""
    kh, eight, seven = parse_cards("KH 8C 7D")
    assert in_play_order([], [eight, kh]) == [eight, kh]
    assert in_play_order([kh, eight], [seven, eight, kh]) == [kh, eight, seven]
    assert in_play_order([kh, eight], [seven]) == [seven]


def _session(lines: list[str], games: int = 1, log: str | None = None) -> str:
    out = io.StringIO()
    assert play_session(EAAI, "human,simple", 3, games, log, io.StringIO(
        "".join(line + "\n" for line in lines)), out) == 0
    return out.getvalue()


def test_the_terminal_shows_the_hand_the_legal_moves_and_the_discards_in_order() -> None:
    lines, _ = script_hand(EAAI, "human,simple", seed=3)
    shown = _session(lines).splitlines()
    assert shown[4] == "You hold AS 4S  5H  2D 6D 9D  3C 6C 7C JC  (deadwood 53)"
    # the legal discards in the hand's order, melds first; the opponent's discards as played
    assert "Legal: x 5H|5D|5C|6H|6D|6C|AS|4S|7H|2D|3C, k 7H" in shown
    assert "Opponent took QH, threw 8C KH 8H KC JD 7D" in shown
    # the person is "you" in the showdown too
    assert "  Non-dealer (you) lays down 5H 5D 5C | 6H 6D 6C; deadwood AS 4S  2D  3C = 10" \
        in shown
    assert "Scores after the hand: you 4, seat 1 (simple) 0   (target 100)" in shown
    assert not [line for line in shown if "human" in line or "seat 0" in line]


def test_the_showdown_waits_for_enter_and_the_log_says_its_numbering(tmp_path: Path) -> None:
    lines, table = script_hand(EAAI, "human,simple", seed=3)
    stopped = _session(lines)  # the input ends at the showdown: nothing more is played
    assert stopped.endswith("Scores after the hand: you 4, seat 1 (simple) 0   (target 100)\n"
                            "Enter for the next hand (or quit)> \n"
                            "quit: 1 finished hand of game 1 kept (the hand in progress is "
                            "dropped)\n1 hand finished (pass --log FILE to keep them)\n")
    log = tmp_path / "one.jsonl"
    went_on = _session([*lines, "", "quit"], log=str(log))
    assert went_on.index("Enter for the next hand (or quit)> ") < went_on.index(
        "-- Game 1, hand 2 --")
    assert went_on.endswith(
        f"log: 1 hand written to {log} (games and hands count from 0 there, as replay and "
        "review show them: game 1, hand 1 here is game 0, hand 0 in the log)\n")
    assert [(r["game"], r["hand"]) for r in read_log(log)] == [(0, 0)]
    assert read_log(log) == table.records


# ------------------------------------------------------------------------ a real terminal

def _ginbox(*args: str) -> tuple[subprocess.Popen[bytes], int]:
    master, slave = os.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "sim", *args], stdin=slave, stdout=slave,
                            stderr=slave, close_fds=True)
    os.close(slave)
    return proc, master


class Terminal:
    """Reads what the program writes to the pseudo-terminal and types lines into it."""

    def __init__(self, *args: str) -> None:
        self.proc, self.fd = _ginbox(*args)
        self.text = ""

    def expect(self, pattern: str, timeout: float = 120.0) -> str:
        """Wait until ``pattern`` appears in the output after what was already matched."""
        end = time.monotonic() + timeout
        while not (match := re.search(pattern, self.text)):
            ready, _, _ = select.select([self.fd], [], [], max(0.0, end - time.monotonic()))
            if not ready:
                raise AssertionError(f"no {pattern!r} in the terminal:\n{self.text[-2000:]}")
            try:
                chunk = os.read(self.fd, 65536).decode()
            except OSError:  # the program closed the terminal
                raise AssertionError(f"no {pattern!r}; output:\n{self.text[-2000:]}") from None
            self.text += chunk.replace("\r\n", "\n")
        seen, self.text = self.text[:match.end()], self.text[match.end():]
        return seen

    def type(self, line: str) -> None:
        os.write(self.fd, (line + "\n").encode())

    def close(self) -> int:
        code = self.proc.wait(timeout=60)
        os.close(self.fd)
        return code


def test_a_whole_hand_at_a_terminal(tmp_path: Path) -> None:
    lines, table = script_hand(EAAI, "human:hint_samples=8,simple", seed=3)
    log = tmp_path / "hand.jsonl"
    term = Terminal("play", "--rules", "eaai", "--strategies", "human:hint_samples=8,simple",
                    "--seed", "3", "--log", str(log))
    shown = term.expect(r"> $")
    assert "You hold " in shown and "Pile top " in shown and "Legal: " in shown
    assert "Scores: you 0, seat 1 (simple) 0 (target 100)" in shown
    term.type("9Z")
    assert "malformed" in term.expect(r"> $")
    term.type("hint")
    hint = term.expect(r"> $")
    assert "hint (chance of winning the game; 8 worlds): " in hint
    assert re.search(r"(pass|p) \d+\.\d%", hint)
    played = ""
    for line in lines:
        term.type(line)
        played += term.expect(r"> $")
    assert re.search(r"\n(Showdown \((knock|gin|undercut)\)|End: )", played)
    assert "Scores after the hand: you " in played and "human" not in played
    assert played.endswith("Enter for the next hand (or quit)> ")
    term.type("")
    assert "-- Game 1, hand 2 --" in term.expect(r"> $")
    term.type("quit")
    tail = term.expect(r"log: 1 hand written to .*\n")
    assert "quit: 1 finished hand of game 1 kept" in tail
    assert term.close() == 0
    records = read_log(log)
    assert records == table.records
    assert all(check.ok for check in replay_game(records))


def test_quit_mid_hand_keeps_the_finished_hands(tmp_path: Path) -> None:
    log = tmp_path / "three.jsonl"
    term = Terminal("play", "--strategies", "human,simple,simple", "--seed", "2", "--log",
                    str(log))
    seen = term.expect(r"> $")
    while seen.endswith("Enter for the next hand (or quit)> "):  # hands he sits out
        term.type("")
        seen += term.expect(r"> $")
    assert re.search(r"box: .*; captain: .*; sitter: ", seen)
    assert "the sitter does not advise" in seen
    term.type("quit")
    tail = term.expect(r"log: \d+ hands? written")
    assert "(the hand in progress is dropped)" in tail
    assert term.close() == 0
    records = read_log(log)
    n = int(re.search(r"log: (\d+) hand", tail)[1])
    assert len(records) == n
    assert all(check.ok for check in replay_game(records))


def test_a_drawn_hand_shows_both_hands_in_their_melds() -> None:
    """A hand that ends at the wall has no knocker and no count: each hand as its holder
    arranges it, the same cards the showdown's text says each holds, and why it is a draw."""
    from sim.table.human_table import showdown_cards, showdown_text
    from strategies.human import arrangement

    record = Table(Rules.preset("eaai"), "random,random", 0).records[0]
    assert record["result"]["end"] == "draw"
    cards = showdown_cards(record)
    holds = {line.split(" holds ")[0].strip().lower(): line.split(" holds ")[1]
             for line in showdown_text(record, None).splitlines() if " holds " in line}
    assert [p["role"] for p in cards["players"]] == ["dealer", "non-dealer"]
    for player in cards["players"]:
        mine = [c for meld in player["melds"] for c in meld] + player["deadwood_cards"]
        assert fan(mine) == holds[player["role"]]
        melds, loose, _ = arrangement(parse_card(c) for c in mine)
        assert player["melds"] == [[card_str(c) for c in meld] for meld in melds]
        assert player["deadwood_cards"] == [card_str(c) for c in loose]
        assert (player["knocker"], player["layoffs"], player["deadwood"]) == (False, [], None)
    assert (cards["winner"], cards["points"], cards["end"]) == (None, 0, "draw")
    assert cards["notes"][0].startswith("End: only 2 cards are left in the stock, the wall")
    assert cards["notes"][1].startswith("Scores after the hand: seat 0 (random) 0")
