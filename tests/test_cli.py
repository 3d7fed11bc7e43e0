"""The ginbox command line, end to end: as a subprocess the way a user runs it, and in-process
through ``sim.cli.main`` for speed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import sim.cli
import sim.cli.games
from sim.cli import main, wilson
from sim.records.log import dumps_record, read_log, write_log


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sim", *argv], capture_output=True, text=True,
                          timeout=300)


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _hands_in_summary(out: str) -> int:
    match = re.search(r"^hands: (\d+) ", out, re.MULTILINE)
    assert match, out
    return int(match.group(1))


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A log written by the real command, as a user would: ``python -m sim play ... --log``."""
    path = tmp_path_factory.mktemp("cli") / "hands.jsonl"
    proc = run("play", "--strategies", "greedy-knock,simple,random", "--games", "5", "--seed",
               "3", "--log", str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # no progress bar when stderr is not a terminal
    return path, proc.stdout


# ---------------------------------------------------------------------------------- play


def test_play_log_has_one_line_per_hand_of_the_summary(logged: tuple[Path, str]) -> None:
    path, out = logged
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == _hands_in_summary(out)
    records = read_log(path)
    assert [r["game"] for r in records][-1] == 4
    assert f"log: {len(lines)} hands written to {path}" in out
    assert re.search(r"^5 games of three-handed gin, seed 3: ", out, re.MULTILINE)
    for seat, name in enumerate(["greedy-knock", "simple", "random"]):
        assert re.search(rf"^\s+{seat}  {name}\s+\d+\s+\d+\.\d%", out, re.MULTILINE), out
    wins = [r["game_winner"] for r in records if r["game_over"]]
    for seat in range(3):
        row = next(line for line in out.splitlines() if re.match(rf"\s+{seat}  ", line))
        assert int(row.split()[2]) == wins.count(seat)


def test_play_in_process_is_deterministic_and_summarises(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str],
                                                         logged: tuple[Path, str]) -> None:
    path, _ = logged
    code, out, err = call(capsys, "play", "--strategies", "greedy-knock,simple,random",
                          "--games", "5", "--seed", "3", "--log", str(tmp_path / "again.jsonl"))
    assert (code, err) == (0, "")
    assert (tmp_path / "again.jsonl").read_bytes() == path.read_bytes()
    assert re.search(r"^hands: \d+ \([\d.]+ per game\): knock \d+ \([\d.]+%\), gin \d+ .*, "
                     r"undercut \d+ .*, draw \d+ .*, turn_limit \d+ ", out, re.MULTILINE)
    code, out, err = call(capsys, "play", "--strategies", "simple,random", "--rules", "eaai",
                          "--games", "3", "--quiet")
    assert (code, err) == (0, "")
    assert "3 games of eaai gin, seed 0" in out and "log:" not in out


def test_wilson_interval() -> None:
    lo, hi = wilson(50, 100)
    assert round(lo, 4) == 0.4038 and round(hi, 4) == 0.5962
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


# ---------------------------------------------------------------------------------- replay


def test_replay_prints_and_exits_0(logged: tuple[Path, str]) -> None:
    path, _ = logged
    proc = run("replay", str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    n_hands = sum(1 for r in read_log(path) if r["game"] == 0)
    assert proc.stdout.count("Game 0, hand ") == n_hands
    assert proc.stdout.rstrip().endswith(f"game 0: all {n_hands} hands match the rules")
    assert "Showdown" in proc.stdout and "Scores after the hand" in proc.stdout


def test_replay_single_hand_and_all(capsys: pytest.CaptureFixture[str],
                                    logged: tuple[Path, str]) -> None:
    path, _ = logged
    code, out, _ = call(capsys, "replay", str(path), "--game", "2", "--hand", "1")
    assert code == 0
    assert out.count("Game 2, hand 1:") == 1 and "hand 0" not in out
    assert out.rstrip().endswith("game 2 hand 1: the record matches the rules")
    code, out, _ = call(capsys, "replay", str(path), "--all")
    assert code == 0
    assert out == f"{path}: {len(read_log(path))} hands in 5 games checked: all match the rules\n"


def test_replay_edited_log_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   logged: tuple[Path, str]) -> None:
    path, _ = logged
    records = read_log(path)
    i = next(i for i, r in enumerate(records) if r["game"] == 1 and r["result"]["points"] > 0)
    points = records[i]["result"]["points"]
    records[i]["result"]["points"] = points + 7
    edited = tmp_path / "edited.jsonl"
    write_log(edited, records)
    code, out, err = call(capsys, "replay", str(edited), "--game", "1")
    assert (code, err) == (1, "")
    assert f"  - result.points: recorded {points + 7}, rules give {points}" in out
    assert out.splitlines()[-1].startswith("game 1: 1 of ")
    hand = records[i]["hand"]
    assert out.splitlines()[-1].endswith(f"hands differ from the rules (hands {hand})")
    code, out, _ = call(capsys, "replay", str(edited), "--all")
    assert code == 1
    assert (f"game 1 hand {records[i]['hand']}: result.points: recorded {points + 7}, rules "
            f"give {points}") in out
    code, out, _ = call(capsys, "replay", str(edited), "--game", "0")
    assert code == 0  # game 0 is untouched


# ---------------------------------------------------------------------------------- bad input


def _bad_log(tmp_path: Path, logged: tuple[Path, str]) -> Path:
    path, _ = logged
    lines = path.read_text(encoding="utf-8").splitlines()
    bad = tmp_path / "corrupt.jsonl"
    bad.write_text(lines[0] + "\n" + lines[1][:40] + "\n", encoding="utf-8")
    return bad


BAD_INPUT: list[tuple[list[str], str]] = [
    (["play", "--strategies", "greedy-knock,nosuch,random"],
     "unknown strategy 'nosuch': expected "),
    (["play", "--strategies", "simple,simple,simple", "--rules", "poker"],
     "unknown rules preset 'poker': expected one of three-handed"),
    (["play", "--strategies", "greedy-knock:knock_at,simple,simple"],
     "malformed parameter 'knock_at'"),
    (["play", "--strategies", "greedy-knock:knock_at=11,simple,simple"],
     "knock_at=11 is out of range: expected 0..10"),
    (["play", "--strategies", "greedy-knock:depth=2,simple,simple"],
     "unknown parameter 'depth' for greedy-knock: it takes knock_at"),
    (["play", "--strategies", "simple,simple"],
     "three-handed rules seat 3 players, so --strategies needs 3 names"),
    (["play", "--strategies", "simple,simple,simple", "--rules", "classic"],
     "classic rules seat 2 players, so --strategies needs 2 names"),
    (["play", "--strategies", "simple,,simple"], "empty strategy name"),
    (["play", "--strategies", "nomodule.here:Bot,simple,simple"],
     "cannot import strategy 'nomodule.here:Bot'"),
    (["play", "--strategies", "simple,simple,simple", "--games", "0"],
     "argument --games: 0 is out of range: expected an integer >= 1"),
    (["play", "--strategies", "simple,simple,simple", "--games", "many"],
     "argument --games: 'many' is not an integer"),
    (["play", "--strategies", "simple,simple,simple", "--seed", "-1"],
     "argument --seed: -1 is out of range: expected an integer 0..2**63-1"),
    (["play"], "the following arguments are required: --strategies"),
    (["shuffle"], "invalid choice: 'shuffle'"),
    ([], "the following arguments are required: COMMAND"),
    (["replay", "{tmp}/nope.jsonl"], "cannot read the log {tmp}/nope.jsonl: No such file"),
    (["replay", "{corrupt}"], "{corrupt}:2: not valid JSON"),
    (["replay", "{empty}"], "the log {empty} holds no hands"),
    (["replay", "{log}", "--game", "9"], "has no game 9: it holds games 0..4"),
    (["replay", "{log}", "--game", "0", "--hand", "99"], "game 0 has no hand 99: it has hands 0.."),
    (["replay", "{log}", "--all", "--game", "1"], "--all checks every game and hand"),
    (["replay", "{log}", "--hand", "-2"], "argument --hand: -2 is out of range"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_INPUT,
                         ids=[" ".join(a)[:50] for a, _ in BAD_INPUT])
def test_bad_input_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         logged: tuple[Path, str], argv: list[str],
                                         message: str) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    names = {"tmp": str(tmp_path), "corrupt": str(_bad_log(tmp_path, logged)),
             "empty": str(empty), "log": str(logged[0])}
    argv = [a.format(**names) for a in argv]
    log = tmp_path / "out.jsonl"
    if argv[:1] == ["play"]:
        argv += ["--log", str(log)]
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = call(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("ginbox: error: ") and err.endswith("\n")
    assert err.count("\n") == 1, err
    assert message.format(**names) in err
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_bad_input_as_a_subprocess_has_no_traceback(tmp_path: Path) -> None:
    log = tmp_path / "hands.jsonl"
    proc = run("play", "--strategies", "greedy-knock,simple", "--log", str(log))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "ginbox: error: three-handed rules seat 3 players, so --strategies needs 3 names "
        "separated by commas: got 2 (greedy-knock, simple)"]
    assert list(tmp_path.iterdir()) == []


def test_unwritable_log_fails_before_playing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    def must_not_play(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("played although the log cannot be written")

    monkeypatch.setattr(sim.cli.games, "play_games", must_not_play)
    code, out, err = call(capsys, "play", "--strategies", "simple,simple,simple", "--log",
                          str(tmp_path / "no" / "such" / "dir.jsonl"))
    assert code == 2 and out == ""
    assert err == (f"ginbox: error: cannot write the log {tmp_path}/no/such/dir.jsonl: "
                   "No such file or directory\n")
    code, out, err = call(capsys, "play", "--strategies", "simple,simple,simple", "--log",
                          str(tmp_path))
    assert (code, out, err) == (2, "", f"ginbox: error: cannot write the log {tmp_path}: "
                                       "Is a directory\n")
    assert list(tmp_path.iterdir()) == []


def test_interrupted_play_leaves_no_log(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(sim.cli.games, "play_games", interrupted)
    code, _, err = call(capsys, "play", "--strategies", "simple,simple,simple", "--log",
                        str(tmp_path / "hands.jsonl"))
    assert code == 130 and err == "ginbox: interrupted\n"
    assert list(tmp_path.iterdir()) == []


def test_replay_of_a_record_that_is_not_a_deck_exits_2(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str],
                                                       logged: tuple[Path, str]) -> None:
    records = read_log(logged[0])[:1]
    records[0]["deal"]["stock"][5] = records[0]["deal"]["upcard"]
    path = tmp_path / "deck.jsonl"
    path.write_text(dumps_record(records[0]) + "\n", encoding="utf-8")
    code, out, err = call(capsys, "replay", str(path))
    assert code == 2 and out == ""
    assert err.startswith(f"ginbox: error: {path}:1: the deal is not a 52-card deck: "
                          f"{records[0]['deal']['upcard']} dealt more than once")
    assert err.count("\n") == 1


# ---------------------------------------------------------------------------------- others


def test_strategies_lists_builtins_and_user_strategies(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    code, out, err = call(capsys, "strategies")
    assert (code, err) == (0, "")
    for name in ("random", "simple", "greedy-knock"):
        assert re.search(rf"^  {name}\s+\S", out, re.MULTILINE), name
    assert "knock_at=0..10 (default the knock limit of the rules)" in out
    assert "package.module:Class" in out and "BaseStrategy" in out


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "--version")
    assert code == 0 and re.fullmatch(r"ginbox \S+\n", out)
    code, out, _ = call(capsys, "replay", "--help")
    assert code == 0 and "--game G" in out and "first game in the file" in out


def test_demo(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "demo")
    assert (code, err) == (0, "")
    assert "300 games of three-handed gin, seed 1" in out
    assert re.search(r"^One (undercut|gin|knock) hand, replayed", out, re.MULTILINE)
    assert "Check: the recorded moves are legal" in out


def test_bench_delegates(capsys: pytest.CaptureFixture[str],
                         monkeypatch: pytest.MonkeyPatch) -> None:
    from sim import bench
    seen: list[bool] = []

    def fake(json_output: bool = False, **kwargs: Any) -> int:
        seen.append(json_output)
        print(json.dumps({"games_per_s": 1.0}))
        return 0

    monkeypatch.setattr(bench, "main", fake)
    code, out, _ = call(capsys, "bench", "--json")
    assert code == 0 and seen == [True] and json.loads(out) == {"games_per_s": 1.0}


# ------------------------------------------------------------ play: --set, compiling, rate


def test_play_set_changes_rules_fields_as_experiment_overrides_do(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    real = sim.cli.games.play_games

    def spy(strategies: Any, rules: Any, **kwargs: Any) -> Any:
        seen.append(rules)
        return real(strategies, rules, **kwargs)

    monkeypatch.setattr(sim.cli.games, "play_games", spy)
    code, out, err = call(capsys, "play", "--strategies", "simple,simple,simple", "--games",
                          "2", "--quiet", "--set", "team_policy=consensus", "--set",
                          "gin_bonus=20", "--set", "oklahoma=true")
    assert (code, err) == (0, "")
    assert (seen[0].team_policy, seen[0].gin_bonus, seen[0].oklahoma) == ("consensus", 20, True)
    assert seen[0].replace(team_policy="captain", gin_bonus=25, oklahoma=False) == \
        sim.cli.games.Rules.preset("three-handed")


@pytest.mark.parametrize(("setting", "error"), [
    ("team_policy=bogus", "--set team_policy='bogus' is not valid: expected one of captain, "
                          "advisor, consensus"),
    ("gin_bonus=-1", "--set gin_bonus=-1 is out of range: expected an integer 0..1000"),
    ("showdown=greedy", "--set showdown='greedy' is not valid: expected one of exact, eaai"),
    ("colour=3", "--set colour is not a rules field: expected one of name, players, "),
    ("initial_roles=[0,1,2]", "--set initial_roles is not accepted: ginbox play seats by the "
                              "rules' draw (an experiment file's seating fixes the roles)"),
    ("gin_bonus", "--set 'gin_bonus' is not valid: expected KEY=VALUE, e.g. --set "
                  "team_policy=consensus"),
])
def test_play_set_refuses_bad_settings_in_one_line(setting: str, error: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "play", "--strategies", "simple,simple,simple", "--set",
                          setting)
    assert code == 2 and out == ""
    assert err.startswith(f"ginbox: error: {error}") and err.count("\n") == 1


def test_play_announces_compiling_and_leaves_it_out_of_the_rate(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm-up still running at the notice delay (a cold cache) is announced even with
    --quiet, and its time is not counted in the games' seconds. No timing: the warm-up lasts
    until the notice is out and moves the clock the games are timed by a whole hour."""
    import threading
    import time

    announced = threading.Event()
    announce = sim.cli.games.announce_compiling
    hour = [0.0]

    def warm_up(*args: object) -> None:
        assert announced.wait(60), "the notice never came"
        hour[0] = 3600.0

    class Clock:
        @staticmethod
        def perf_counter() -> float:
            return time.perf_counter() + hour[0]

    monkeypatch.setattr(sim.cli.games, "COMPILE_NOTICE_AFTER", 0.0)
    monkeypatch.setattr(sim.cli.games, "announce_compiling",
                        lambda: (announce(), announced.set()))
    monkeypatch.setattr(sim.cli.games, "_warm_up", warm_up)
    monkeypatch.setattr(sim.cli.games, "time", Clock)
    code, out, err = call(capsys, "play", "--strategies", "simple,simple,simple", "--games",
                          "3", "--quiet")
    assert (code, err) == (0, sim.cli.games.COMPILE_NOTICE + "\n")
    seconds = float(re.search(r"seed 0: ([\d.]+) s, ", out)[1])  # type: ignore[index]
    assert seconds < 3600


@pytest.mark.parametrize("log", [False, True])
def test_play_parses_the_strategy_string_once(log: bool, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """``ginbox play`` parses ``--strategies`` once: the warm-up, the games and the driver
    take the parsed specs (every strategy text is read once; the warm-up's compiled stand-in
    for a Python strategy is its own)."""
    import strategies.registry

    texts: list[str] = []
    real = strategies.registry._parse_text

    def counting(spec: str, load: bool) -> Any:
        texts.append(spec)
        return real(spec, load)

    monkeypatch.setattr(strategies.registry, "_parse_text", counting)
    argv = ["play", "--strategies", "greedy-knock:knock_at=6,simple,strategies.examples:"
            "LowCardHoarder", "--games", "2", "--quiet"]
    assert main(argv + (["--log", str(tmp_path / "g.jsonl")] if log else [])) == 0
    assert "2 games of three-handed gin" in capsys.readouterr().out
    stand_in = ["random"]  # the warm-up plays a compiled stand-in for the Python strategy
    assert texts == ["greedy-knock:knock_at=6", "simple", "strategies.examples:LowCardHoarder",
                     *stand_in]
