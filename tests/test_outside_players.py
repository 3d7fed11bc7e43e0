"""Outside players (``agent:PATH``): the protocol's games, and every way a program can fail.

A failing program forfeits its game (the hand log's ``ended_by`` says why, the report counts
it apart) and the run goes on, the program started afresh; what can be refused before any
game is refused in one line, exit status 2. The programs here are small Python scripts
written by each test.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sim.cli import main
from sim.engine.rules import Rules
from sim.play.driver import play_games
from strategies.outside import close_programs

#: A player that answers everything legally: the first legal move, hand ends ``ready``.
PLAYER = """
import json, sys
decisions = 0
for line in sys.stdin:
    m = json.loads(line)
    kind = m["type"]
    if kind == "hello":
        {hello}
    elif kind == "decision":
        decisions += 1
        {decision}
        out = {{"type": "move", "id": m["id"], "move": m["legal"][0]}}
    elif kind == "showdown":
        out = {{"type": "layout", "id": m["id"]}}
    elif kind == "hand_end":
        out = {{"type": "ready"}}
    elif kind == "bye":
        break
    else:
        continue
    print(json.dumps(out), flush=True)
"""
HELLO = 'out = {"type": "hello", "protocol": "ginbox-agent 1", "name": "test"}'


def program(tmp_path: Path, decision: str = "pass", hello: str = HELLO,
            name: str = "player.py") -> str:
    """A player script; ``decision`` runs at each decision (``decisions`` counts them in the
    process's life), before the first legal move is answered."""
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\n" + PLAYER.format(hello=hello, decision=decision))
    path.chmod(0o755)
    return str(path)


@pytest.fixture(autouse=True)
def _fresh_programs():
    yield
    close_programs()


def test_a_legal_program_plays_whole_games_and_its_log_replays(tmp_path: Path) -> None:
    result = play_games([f"agent:{program(tmp_path)}", "simple"], "eaai", games=3, seed=4,
                        log=True)
    assert "forfeits" not in result.summary()
    assert sum(r["game_over"] for r in result.log) == 3
    assert not any("ended_by" in r for r in result.log)


FAULTS = {
    "crash": ("sys.exit(3)" , "exited with status 3"),
    "hang": ("import time; time.sleep(30)", "no answer within the time limit of 2 s"),
    "flood": ('print("x" * 70000, flush=True)', "longer than 65536 bytes (flooding)"),
    "two lines": ('sys.stdout.write("{}\\n" + json.dumps({"type": "move", "id": m["id"], '
                  '"move": m["legal"][0]}) + "\\n"); sys.stdout.flush(); continue',
                  "more than one line for one answer"),  # one write: both lines arrive at once
    "malformed": ('print("{not json", flush=True); continue', "malformed JSON"),
    "wrong id": ('print(json.dumps({"type": "move", "id": 99, "move": "pass"}), flush=True); '
                 'continue', "answered decision"),
    "illegal": ('print(json.dumps({"type": "move", "id": m["id"], "move": "QQ"}), '
                'flush=True); continue', 'illegal move "QQ"'),
    "resign": ('print(json.dumps({"type": "resign", "reason": "tired"}), flush=True); '
               'continue', "resigned: tired"),
}


@pytest.mark.parametrize("kind", FAULTS)
def test_a_fault_forfeits_the_game_and_the_run_goes_on(tmp_path: Path, kind: str) -> None:
    """The program fails at its fifth decision; each game starts it afresh, so each of the
    three games is forfeit, to the other player, with the reason in the log."""
    action, reason = FAULTS[kind]
    path = program(tmp_path, decision=f"if decisions == 5:\n            {action}")
    # a short limit only where it is what fails: the answers before must beat it when busy
    limit = ":time_limit=2" if kind == "hang" else ""
    result = play_games([f"agent:{path}{limit}", "simple"], "eaai", games=3, seed=1,
                        log=True)
    table = result.summary()
    assert list(table["forfeits"]) == [3, 0]
    assert list(table["games_won"]) == [0, 3]
    ended = [r for r in result.log if "ended_by" in r]
    assert len(ended) == 3
    for record in ended:
        assert record["ended_by"]["seat"] == 0 and reason in record["ended_by"]["reason"]
        assert record["game_over"] and record["game_winner"] == 1
        assert record["result"]["end"] == "forfeit"


def test_a_forfeit_log_replays_and_is_told(tmp_path: Path, capsys) -> None:
    path = program(tmp_path, decision="if decisions == 5:\n            sys.exit(1)")
    log = tmp_path / "games.jsonl"
    assert main(["play", "--strategies", f"agent:{path},simple", "--rules", "eaai",
                 "--games", "2", "--log", str(log)]) == 0
    assert "forfeits: 2 games ended by a player's fault (seat 0 2)" in capsys.readouterr().out
    assert main(["replay", str(log)]) == 0
    out = capsys.readouterr().out
    assert "failed (exited with status 1) and forfeits" in out and "wins by forfeit" in out


def test_three_handed_with_an_advisor(tmp_path: Path) -> None:
    """The program plays every role of the three-handed game, advising the captain as the
    sitter under the advisor policy (asked decisions for another seat's hand)."""
    mark = tmp_path / "advised"
    path = program(tmp_path, decision=f'if m["for"] != m["seat"]:\n'
                                      f'            open({str(mark)!r}, "a").write("x")')
    rules = Rules.resolve("three-handed", {"team_policy": "advisor"})
    result = play_games([f"agent:{path}", "simple", "greedy-knock"], rules, games=2, seed=5,
                        log=True)
    assert "forfeits" not in result.summary()
    assert sum(r["game_over"] for r in result.log) == 2
    assert mark.exists()


@pytest.mark.parametrize(("hello", "says"), [
    ('out = {"type": "hello", "protocol": "uci 2", "name": "x"}', "answered the hello with"),
    ('out = {"type": "hello", "protocol": "ginbox-agent 1"}', "its hello gives no name"),
    ("sys.exit(0)", "exited with status 0"),
])
def test_a_wrong_handshake_is_refused_before_any_game(tmp_path: Path, capsys, hello: str,
                                                       says: str) -> None:
    path = program(tmp_path, hello=hello)
    assert main(["play", "--strategies", f"agent:{path},simple", "--rules", "eaai"]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_program_that_is_not_executable_is_refused(tmp_path: Path, capsys) -> None:
    path = tmp_path / "bot.py"
    path.write_text("print()\n")
    for target in (str(path), str(tmp_path / "missing")):
        assert main(["play", "--strategies", f"agent:{target},simple"]) == 2
        err = capsys.readouterr().err
        assert "is not an executable file" in err and err.count("\n") == 1


def test_a_run_reports_forfeits_apart_and_review_reads_them(tmp_path: Path, capsys) -> None:
    """``ginbox run`` plays outside players in its workers and its report counts the
    forfeits; ``ginbox review`` judges the decisions up to each fault."""
    path = program(tmp_path, decision="if decisions == 5:\n            sys.exit(1)")
    spec = tmp_path / "exp.toml"
    spec.write_text(f'name = "outside"\nseed = 1\ngames = 4\nchunk_size = 4\n\n[[arms]]\n'
                    f'name = "a"\nrules = "eaai"\nstrategies = ["agent:{path}", "simple"]\n')
    out = tmp_path / "out"
    assert main(["run", str(spec), "--out", str(out), "--jobs", "1", "--quiet", "--log"]) == 0
    text = capsys.readouterr().out
    assert "Forfeits: 4 games ended by a player's fault, each won by the other side: a seat 0" \
           in text
    logs = sorted(out.rglob("*.jsonl"))
    assert logs
    assert main(["review", str(logs[0]), "--judge", "mc:samples=4", "--games", "1",
                 "--quiet"]) == 0
    assert "seat 1 (simple" in capsys.readouterr().out


def test_a_tampered_forfeit_line_does_not_replay(tmp_path: Path) -> None:
    from sim.records.replay import replay_game

    path = program(tmp_path, decision="if decisions == 5:\n            sys.exit(1)")
    result = play_games([f"agent:{path}", "simple"], "eaai", games=1, seed=2, log=True)
    records = [dict(r) for r in result.log]
    assert all(check.ok for check in replay_game(records))
    records[-1]["game_winner"] = 0  # the offender cannot win
    assert "game_winner" in " ".join(replay_game(records)[-1].differences)
    records[-1]["game_winner"], records[-1]["scores"] = 1, [5, 0]
    assert "a forfeit keeps" in " ".join(replay_game(records)[-1].differences)


def test_the_conformance_harness_fails_a_program_that_forfeits(tmp_path: Path) -> None:
    """``check_strategy("agent:PATH")`` plays the program as it plays a Python strategy; a
    forfeit of the program's seat fails the check with its reason."""
    from sim.testing import check_strategy

    crashing = program(tmp_path, decision="if decisions == 5:\n            sys.exit(3)",
                       name="crashing.py")
    with pytest.raises(AssertionError, match="forfeited game 0: exited with status 3"):
        check_strategy(f"agent:{crashing}", presets=["eaai"], games=1)


def test_a_worker_keeps_one_process_per_seat_of_a_program(tmp_path: Path) -> None:
    """Games of one table reuse the program's process; another table (other rules, other
    seats) replaces it rather than keeping both."""
    from strategies import outside

    path = program(tmp_path)
    play_games([f"agent:{path}", "simple"], "eaai", games=2, seed=1)
    first = [p for _, p in outside._RUNNING.values()]
    play_games([f"agent:{path}", "simple"], "eaai", games=1, seed=2)
    assert [p for _, p in outside._RUNNING.values()] == first
    play_games([f"agent:{path}", "greedy-knock"], "eaai", games=1, seed=2)
    now = [p for _, p in outside._RUNNING.values()]
    assert len(now) == 1 and now != first and not first[0].alive


def test_a_league_counts_forfeits_apart(tmp_path: Path, capsys) -> None:
    path = program(tmp_path, decision="if decisions == 5:\n            sys.exit(1)")
    spec = tmp_path / "league.toml"
    spec.write_text(f'name = "outside"\nseed = 1\ngames = 2\nchunk_size = 2\nrules = "eaai"\n'
                    f'strategies = ["simple", "agent:{path}"]\nanchor = "simple"\n'
                    'bootstrap = 10\n')
    assert main(["league", str(spec), "--out", str(tmp_path / "out"), "--jobs", "1",
                 "--quiet"]) == 0
    assert (f"forfeits: 4 games ended by a player's fault, each won by the other side: "
            f"agent:{path} 4") in capsys.readouterr().out
