"""The EAAI bridge (``eaai:CLASS``): a framework player is told exactly what the framework's
own GinRummyGame tells it, and every way it can fail is a forfeit or a one-line refusal.

The framework is not part of ginbox, so these tests compile a stand-in ``ginrummy`` API and
small players of their own (tests/java). ``tests/fixtures/eaai_calls.json`` holds the calls
the real framework (tneller/gin-rummy-eaai, the commit it names) made to two
``ginboxtest.LoggingPlayer`` players on fixed seeds, with the decks it dealt; ginbox, dealt
the same decks, must make the same calls in the same order.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from sim.cli import main
from sim.engine.rules import Rules
from sim.play.driver import play_games
from sim.play.outside import OutsideTable
from sim.play.state import GameState
from strategies.outside import close_programs
from strategies.registry import build_strategy, parse_strategies

TESTS = Path(__file__).resolve().parent
FIXTURE = json.loads((TESTS / "fixtures" / "eaai_calls.json").read_text())
NEEDS_JDK = ("the EAAI bridge tests need a JDK (java and javac): run make test, which installs "
             "default-jdk-headless, or apt-get install default-jdk-headless")


@pytest.fixture(scope="module")
def classpath(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The stand-in API and the test players, compiled; the bridge compiled into a temporary
    cache."""
    assert shutil.which("javac") and shutil.which("java"), NEEDS_JDK
    root = tmp_path_factory.mktemp("eaai")
    sources = sorted(str(p) for p in (TESTS / "java").rglob("*.java"))
    subprocess.run(["javac", "-nowarn", "-d", str(root / "classes"), *sources], check=True)
    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(root / "cache")
    yield str(root / "classes")
    close_programs()
    if old is None:
        del os.environ["XDG_CACHE_HOME"]
    else:
        os.environ["XDG_CACHE_HOME"] = old


def _play_fixture_game(game: dict, classpath: str, calls: Path,
                       showdown: str = "eaai") -> int | None:
    """Play the fixture's hands through the bridge, dealt the framework's decks (until the
    fixture's hands run out or ginbox's game ends); the winner, if the game ended."""
    dealer = game["hands"][0]["dealer"]
    rules = Rules.resolve("eaai", {"initial_roles": [dealer, 1 - dealer], "showdown": showdown})
    specs = parse_strategies([f"eaai:ginboxtest.LoggingPlayer:classpath={classpath}"] * 2)
    players = {seat: build_strategy(spec) for seat, spec in enumerate(specs)}
    os.environ["GINBOX_CALL_LOG"] = str(calls)  # the players' processes inherit it
    try:
        table = OutsideTable(rules, players, [s.text for s in specs])
        table.begin_game(0, game["seed"])
        state = GameState(rules, [None, None], deals="caller", listener=table)
        for hand in game["hands"]:
            if state.game_over:
                break
            state.deal(hand["deal"])
            assert state.roles[0] == hand["dealer"]
            while state.waiting:
                state.play(table.decide(state))
        return state.result.winner if state.result is not None else None
    finally:
        close_programs()
        del os.environ["GINBOX_CALL_LOG"]


@pytest.mark.parametrize("game", FIXTURE["games"], ids=lambda g: f"seed{g['seed']}")
def test_the_player_is_told_what_the_framework_tells_it(game: dict, classpath: str,
                                                        tmp_path: Path) -> None:
    """Under the framework's showdown (showdown = "eaai", the knocks settled on the declared
    melds): the same calls in the same order with the same arguments and answers, to the
    game's last call, and the same winner."""
    winner = _play_fixture_game(game, classpath, tmp_path)
    assert winner == game["winner"]
    for seat in (0, 1):
        lines = (tmp_path / f"calls-{seat}.txt").read_text().splitlines()
        assert lines == game["calls"][seat], f"seat {seat}"


#: The calls whose content is the showdown's arithmetic: which cards are laid off and the
#: scores. Under ginbox's exact showdown the engine lays off to the defender's least deadwood,
#: the framework greedily from the melds the defender declared.
SHOWDOWN_CALLS = ("reportLayoff", "reportScores")


def _by_hand(lines: list[str]) -> list[list[str]]:
    hands: list[list[str]] = []
    for line in lines:
        if line.startswith("startGame"):
            hands.append([])
        hands[-1].append(line)
    return hands


def test_under_the_exact_showdown_only_the_showdown_arithmetic_differs(
        classpath: str, tmp_path: Path) -> None:
    """The fixture's third game (seed 3) has hands the two showdowns settle differently:
    under the default exact showdown those hands differ in reportLayoff or reportScores and
    in nothing else, and every other hand is the same call for call."""
    game = next(g for g in FIXTURE["games"] if g["seed"] == 3)
    _play_fixture_game(game, classpath, tmp_path, showdown="exact")
    differing = 0
    for seat in (0, 1):
        told = _by_hand((tmp_path / f"calls-{seat}.txt").read_text().splitlines())
        expected = _by_hand(game["calls"][seat])
        assert min(len(told), len(expected)) >= 5  # the games may end at different hands
        for hand, (got, want) in enumerate(zip(told, expected, strict=False)):
            if got != want:
                differing += 1
                assert ([c for c in got if not c.startswith(SHOWDOWN_CALLS)]
                        == [c for c in want if not c.startswith(SHOWDOWN_CALLS)]), \
                    f"seat {seat}, hand {hand}"
    assert differing > 0  # the game where the showdowns differ


def _eaai(classpath: str, cls: str = "ginboxtest.RandomPlayer") -> str:
    return f"eaai:{cls}:classpath={classpath}"


def test_a_framework_player_plays_reproducibly_from_the_seed(classpath: str) -> None:
    """Its java.util.Random field is seeded from the game's stream: the same seed plays the
    same games, another seed others."""
    two_entries = f"{classpath}:{classpath}"  # a classpath of several entries, as Java's

    def games(seed: int) -> list:
        result = play_games([_eaai(two_entries), "simple"], "eaai", games=2, seed=seed,
                            log=True)
        close_programs()
        return [r["moves"] for r in result.log]

    first = games(7)
    assert games(7) == first
    assert games(8) != first


@pytest.mark.parametrize(("fault", "reason"), [
    ("throw", "the player threw java.lang.IllegalStateException: a fault on purpose"),
    ("discard", "illegal discard"),
    ("melds", "illegal"),
])
def test_a_failing_framework_player_forfeits(classpath: str, fault: str, reason: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GINBOX_TEST_FAULT", fault)
    result = play_games([_eaai(classpath, "ginboxtest.FaultyPlayer"), "simple"], "eaai",
                        games=2, seed=3, log=True)
    close_programs()
    assert list(result.summary()["forfeits"]) == [2, 0]
    ended = [r["ended_by"] for r in result.log if "ended_by" in r]
    assert [e["seat"] for e in ended] == [0, 0]
    assert all(reason in e["reason"] for e in ended), ended


@pytest.mark.parametrize(("strategy", "says"), [
    ("eaai:ginboxtest.NoSuchPlayer", "class ginboxtest.NoSuchPlayer is not on the classpath"),
    ("eaai:ginrummy.Card", "class ginrummy.Card is not a ginrummy.GinRummyPlayer"),
    ("eaai:ginboxtest.RandomPlayer:classpath=/no/such/dir", "'/no/such/dir' does not exist"),
])
def test_bad_eaai_input_is_refused_in_one_line(classpath: str, capsys, strategy: str,
                                               says: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GINBOX_EAAI_CLASSPATH", classpath)
    assert main(["play", "--strategies", f"{strategy},simple", "--rules", "eaai"]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err


def test_eaai_is_refused_three_handed_and_without_a_jdk_or_classpath(
        classpath: str, capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GINBOX_EAAI_CLASSPATH", classpath)
    assert main(["play", "--strategies", "eaai:ginboxtest.RandomPlayer,simple,simple"]) == 2
    assert "two-handed games only" in capsys.readouterr().err
    monkeypatch.delenv("GINBOX_EAAI_CLASSPATH")
    assert main(["play", "--strategies", "eaai:ginboxtest.RandomPlayer,simple",
                 "--rules", "eaai"]) == 2
    assert "set GINBOX_EAAI_CLASSPATH" in capsys.readouterr().err
    monkeypatch.setenv("GINBOX_EAAI_CLASSPATH", classpath)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["play", "--strategies", "eaai:ginboxtest.LoggingPlayer,simple",
                 "--rules", "eaai"]) == 2
    assert "need a JDK" in capsys.readouterr().err
