"""What users read: help texts, error lines, labels, counts and warnings say exactly what is
meant (no doubled characters, no "1 games", no name that contradicts the table's size)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import sim.cli.games
from sim.analysis.formatting import plural
from sim.cli import main
from sim.cli.parser import build_parser
from sim.engine.rules import Rules
from sim.runs.experiment import load_experiment, rotation_warning


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_no_help_text_shows_a_doubled_percent_sign(command: str) -> None:
    assert "%%" not in _subcommands()[command].format_help()


def test_exploit_and_league_help_say_95_percent_intervals() -> None:
    commands = _subcommands()
    assert "exploitability gap with 95% intervals" in " ".join(
        commands["exploit"].format_help().split())
    assert "bootstrap 95% intervals" in " ".join(commands["league"].format_help().split())


def test_a_preset_changed_to_another_table_size_is_named_so() -> None:
    assert Rules.preset("eaai").players_text() == "eaai rules seat 2 players"
    assert Rules.preset("three-handed").players_text() == "three-handed rules seat 3 players"
    assert Rules.preset("three-handed").replace(players=2).players_text() == (
        "three-handed rules, with players=2, seat 2 players")


def test_play_with_players_2_under_three_handed_rules_says_what_it_needs(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "play", "--set", "players=2", "--strategies",
                          "simple,simple,simple", "--games", "1")
    assert (code, out) == (2, "")
    assert err == ("ginbox: error: three-handed rules, with players=2, seat 2 players, so "
                   "--strategies needs 2 names separated by commas: got 3 (simple, simple, "
                   "simple)\n")


def test_counts_are_singular_for_one() -> None:
    assert [plural(n, "game") for n in (0, 1, 2, 12_000)] == [
        "0 games", "1 game", "2 games", "12,000 games"]
    assert plural(1, "finished hand") == "1 finished hand"


def test_play_and_replay_count_one_game_as_one(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "one.jsonl"
    code, out, _ = call(capsys, "play", "--rules", "eaai", "--strategies", "Simple,GREEDY",
                        "--games", "1", "--seed", "3", "--log", str(log))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("1 game of eaai gin, seed 3: ")
    hands = sum(1 for _ in log.open())
    assert lines[-1] == f"log: {plural(hands, 'hand')} written to {log}"
    # labelled by the canonical names, whatever the spelling given
    assert [line.split()[1] for line in lines[2:4]] == ["simple", "greedy-knock"]
    code, out, _ = call(capsys, "replay", str(log), "--all")
    assert out == f"{log}: {plural(hands, 'hand')} in 1 game checked: all match the rules\n"


def test_plays_progress_bar_is_labelled(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sim.cli.games, "stderr_is_terminal", lambda: True)
    code, _, err = call(capsys, "play", "--rules", "eaai", "--strategies", "simple,simple",
                        "--games", "3")
    assert code == 0
    assert err.startswith("\rplay (eaai):   0%|") and "| 0/3 [" in err


def test_rotated_seats_warn_when_the_games_do_not_balance_the_roles(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert rotation_warning(12, 3) is None and rotation_warning(8, 2) is None
    assert rotation_warning(7, 3) == (
        "games = 7 is not a multiple of 6: the seats are rotated game by game, so they do not "
        "hold each initial role (box, captain, sitter) equally often; a multiple of 6 "
        "balances the roles")
    assert rotation_warning(7, 2) == (
        "games = 7 is not a multiple of 2: the seats are rotated game by game, so they do not "
        "deal the first hand equally often; a multiple of 2 balances the roles")
    spec = {"name": "odd", "seed": 1, "games": 7, "arms": [
        {"name": "three", "strategies": ["simple", "simple", "random"]},
        {"name": "fixed", "strategies": ["simple", "simple", "random"], "seating": [0, 1, 2]},
        {"name": "two", "rules": "eaai", "strategies": ["simple", "random"]}]}
    assert load_experiment(spec).warnings == [rotation_warning(7, 3), rotation_warning(7, 2)]
    assert load_experiment({**spec, "games": 12}).warnings == []
    path = tmp_path / "odd.toml"
    path.write_text('name = "odd"\nseed = 1\ngames = 6\n[[arms]]\nname = "a"\n'
                    'strategies = ["simple", "simple", "random"]\n')
    code, _, err = call(capsys, "run", str(path), "--games", "7", "--jobs", "1", "--quiet",
                        "--out", str(tmp_path / "out"))
    assert code == 0
    assert err.splitlines()[0] == f"ginbox: warning: {rotation_warning(7, 3)}"
    code, _, err = call(capsys, "run", str(path), "--jobs", "1", "--quiet", "--out",
                        str(tmp_path / "even"))
    assert code == 0 and "warning" not in err


def test_the_terminal_labels_a_seat_by_its_canonical_name() -> None:
    from sim.table import Table

    table = Table(Rules.preset("eaai"), "human,GREEDY", seed=1)
    assert table.label(1) == "seat 1 (greedy-knock)"


def test_a_league_of_rotated_tables_warns_too(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "odd.toml"
    path.write_text('name = "odd"\nseed = 1\ngames = 3\nrules = "eaai"\nbootstrap = 0\n'
                    'strategies = ["simple", "random"]\n')
    code, out, err = call(capsys, "league", str(path), "--jobs", "1", "--quiet", "--out",
                          str(tmp_path / "league"))
    assert code == 0 and "2 tables x 3 games (6 games)" in out
    assert err.splitlines()[0] == f"ginbox: warning: {rotation_warning(3, 2)}"
