"""A person's seat (``human``) where nobody can answer it: every batch command refuses it in one
line before writing anything, the Python driver refuses it in a process with no terminal (a
worker process among them), and ``ginbox strategies`` lists it apart from the bots."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sim.cli import main
from sim.play.driver import play_games
from strategies.registry import parse_strategy

SEAT = "human is the seat of a person at a terminal (ginbox play, ginbox serve)"
BATCH = (f"{SEAT}, and a batch run plays in worker processes, where nobody can answer: name a "
         "bot for that seat (see ginbox strategies)")
NO_TERMINAL = (f"{SEAT}, and this process cannot ask one (its standard input is not a "
               "terminal, or it is a worker process): name a bot for that seat (see ginbox "
               "strategies)")

EXPERIMENT = """\
name = "people"
seed = 1
games = 4
[[arms]]
name = "a"
rules = "eaai"
strategies = ["simple", "human"]
"""
LEAGUE = """\
name = "people"
seed = 1
games = 4
rules = "eaai"
strategies = ["simple", "human:hint_samples=8"]
"""
TUNE = """\
name = "people"
seed = 1
strategy = "greedy-knock"
field = ["HUMAN"]
rules = "eaai"
"""

BATCH_CASES = [
    (("run", "exp.toml", "--out", "out"), "exp.toml", EXPERIMENT,
     "exp.toml: arms[0].strategies[1]='human': "),
    (("league", "league.toml", "--out", "out"), "league.toml", LEAGUE,
     "league.toml: strategies[1]='human:hint_samples=8': "),
    (("tune", "tune.toml", "--out", "out"), "tune.toml", TUNE, "tune.toml: field[0]='HUMAN': "),
    (("exploit", "human", "--rules", "eaai", "--out", "out"), None, None, "target='human': "),
    (("exploit", "simple", "--exploiter", "human", "--out", "out"), None, None,
     "exploiter='human': "),
    (("exploit", "simple", "--general", "tuned,human", "--out", "out"), None, None,
     "general[1]='human': "),
]


@pytest.mark.parametrize(("argv", "name", "text", "where"), BATCH_CASES,
                         ids=["run", "league", "tune", "exploit-target", "exploit-exploiter",
                              "exploit-general"])
def test_every_batch_command_refuses_a_human_seat_in_one_line_writing_nothing(
        argv: tuple[str, ...], name: str | None, text: str | None, where: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    if name is not None:
        (tmp_path / name).write_text(text or "")
    before = sorted(p.name for p in tmp_path.iterdir())
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert (code, out, err) == (2, "", f"ginbox: error: {where}{BATCH}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no folder, no results


def test_the_python_api_refuses_a_human_arm_before_any_file(tmp_path: Path) -> None:
    from sim.runs.runner import run_experiment

    spec = {"name": "people", "seed": 1, "games": 4,
            "arms": [{"name": "a", "rules": "eaai", "strategies": ["human", "simple"]}]}
    with pytest.raises(ValueError) as info:
        run_experiment(spec, out=tmp_path / "out", quiet=True)
    assert str(info.value) == f"arms[0].strategies[0]='human': {BATCH}"
    assert list(tmp_path.iterdir()) == []


def test_play_games_refuses_a_person_when_no_terminal_can_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("d\n"))
    with pytest.raises(ValueError) as info:
        play_games(["simple", "human"], "eaai", games=1)
    assert str(info.value) == f"strategies[1]='human': {NO_TERMINAL}"
    # a Human given a stream of its own is a script, not a person: it plays
    from strategies.human import Human

    scripted = Human(stdin=io.StringIO(""))
    assert parse_strategy(scripted).text == "human"
    with pytest.raises(KeyboardInterrupt, match="end of input"):
        play_games([scripted, "simple"], "eaai", games=1)


def test_ginbox_play_refuses_a_human_seat_without_a_terminal(tmp_path: Path) -> None:
    log = tmp_path / "mine.jsonl"
    proc = subprocess.run([sys.executable, "-m", "sim", "play", "--rules", "eaai",
                           "--strategies", "simple,human", "--log", str(log)],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"ginbox: error: strategies[1]='human': {NO_TERMINAL}\n"
    assert list(tmp_path.iterdir()) == []


def test_a_worker_process_cannot_ask_a_person_even_under_a_terminal() -> None:
    """Under a terminal the main process can ask; a loky worker cannot, and ``play_games``
    there refuses the seat in one line instead of waiting for typed input."""
    code = textwrap.dedent("""
        from joblib import Parallel, delayed
        from sim.play.driver import play_games
        from strategies.registry import can_ask_a_person

        def worker():
            try:
                play_games(["human", "simple"], "eaai", games=1)
            except ValueError as exc:
                return can_ask_a_person(), str(exc)
            return can_ask_a_person(), "played"

        print(can_ask_a_person(), flush=True)
        print(Parallel(n_jobs=2)(delayed(worker)() for _ in range(2))[0], flush=True)
    """)
    master, slave = os.openpty()
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=slave, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, close_fds=True)
    os.close(slave)
    try:
        out, err = proc.communicate(timeout=300)
    finally:
        os.close(master)
    assert proc.returncode == 0, err
    assert out.splitlines() == ["True", repr((False, f"strategies[0]='human': {NO_TERMINAL}"))]


def test_strategies_lists_human_as_a_persons_seat_not_a_bot(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["strategies"]) == 0
    out = capsys.readouterr().out
    bots, _, rest = out.partition("\nA person's seat (not a bot):\n")
    assert rest, out
    assert "\n  human " not in bots
    lines = rest.splitlines()
    assert lines[0].split()[:2] == ["human", "you,"]
    assert "hint_samples=1..1024" in lines[1]
    assert lines[2].strip() == ("batch commands (run, tune, league, exploit) refuse it: nobody "
                                "answers in their worker processes")
