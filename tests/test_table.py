"""The human seat: the table steps games through the one game loop, refuses bad moves without
changing anything, rebuilds a game from its moves, and plays at a real pseudo-terminal."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim.engine.cards import parse_card
from sim.engine.rules import Rules
from sim.play.driver import play_games
from sim.records.log import read_log
from sim.records.replay import replay_game
from sim.table import Table
from strategies.human import MoveError, legal_notation
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
    assert "Scores after the hand: " in played and "-- Game 1, hand 2 --" in played
    term.type("quit")
    tail = term.expect(r"log: 1 hands written to .*\n")
    assert "quit: 1 finished hands of game 1 kept" in tail
    assert term.close() == 0
    records = read_log(log)
    assert records == table.records
    assert all(check.ok for check in replay_game(records))


def test_quit_mid_hand_keeps_the_finished_hands(tmp_path: Path) -> None:
    log = tmp_path / "three.jsonl"
    term = Terminal("play", "--strategies", "human,simple,simple", "--seed", "2", "--log",
                    str(log))
    seen = term.expect(r"> $")
    assert re.search(r"box: .*; captain: .*; sitter: ", seen)
    assert "the sitter does not advise" in seen
    term.type("quit")
    tail = term.expect(r"log: \d+ hands written")
    assert "(the hand in progress is dropped)" in tail
    assert term.close() == 0
    records = read_log(log)
    n = int(re.search(r"log: (\d+) hands", tail)[1])
    assert len(records) == n
    assert all(check.ok for check in replay_game(records))
