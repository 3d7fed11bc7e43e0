"""``ginbox play``, ``replay`` and ``strategies`` with hostile input and a hostile machine
(bounded memory, logs written through links and into devices but never over a
read-only file, strategies that cannot be built or hang, full disks, leftovers of killed runs,
and every OS error naming its path)."""

from __future__ import annotations

import errno
import io
import os
import stat
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import sim.cli
import sim.cli.games
from sim.cli import main
from sim.play.driver import MAX_GAMES, StrategyError, play_games
from sim.records.log import LogWriter, dumps_record, read_log

BADBOTS = '''
from strategies.base import BaseStrategy

class BadInit(BaseStrategy):
    def __init__(self, *, depth):
        self.depth = int(depth)

class IntInit(BaseStrategy):
    def __init__(self, x="1"):
        self.x = int(x)

class Sleeper(BaseStrategy):
    def discard(self, view):
        import time
        while True:
            time.sleep(3600)
'''


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def badbots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user module of broken strategies in the current directory, as a user would have."""
    name = f"badbots_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(BADBOTS), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sim.cli, "_BADBOTS", name, raising=False)
    return tmp_path


def _bots() -> str:
    return sim.cli._BADBOTS  # type: ignore[attr-defined]


# ------------------------------------------------------------------- item 1: memory bound


def test_play_refuses_more_games_than_the_seed_streams_hold(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "play", "--strategies", "simple,simple,simple", "--games",
                          "99999999999999999999999")
    assert (code, out) == (2, "")
    assert err == ("ginbox: error: argument --games: 99999999999999999999999 is out of range: "
                   f"expected an integer 1..{MAX_GAMES} (the game numbers the seed streams "
                   "give) (see 'ginbox play --help')\n")
    with pytest.raises(ValueError, match=r"^games=9223372036854775808 is out of range: "
                                         r"expected an integer 0\.\.9223372036854775807"):
        play_games("simple,simple,simple", games=MAX_GAMES + 1)


def _peak_bytes(games: int) -> int:
    tracemalloc.start()
    try:
        assert main(["play", "--strategies", "simple,simple,simple", "--games", str(games),
                     "--quiet"]) == 0
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_play_memory_does_not_grow_with_games(capsys: pytest.CaptureFixture[str]) -> None:
    _peak_bytes(1000)  # compile and import outside the measurement
    small, large = _peak_bytes(2000), _peak_bytes(60_000)
    capsys.readouterr()
    # one row per game would be 60,000 x 8 bytes x len(GAME_COLUMNS) (some 30 MB) more
    assert large - small < 2_000_000, (small, large)


def test_play_without_rows_summarises_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    full = play_games("greedy-knock,simple,random", games=300, seed=5)
    lean = play_games("greedy-knock,simple,random", games=300, seed=5, keep_games=False)
    assert lean.games is None and lean.n_games == full.n_games == 300
    assert lean.summary().equals(full.summary())
    assert lean.outcomes() == full.outcomes()


# ------------------------------------------------------------ item 3: where --log writes


def _play_log(capsys: pytest.CaptureFixture[str], target: str | Path,
              *extra: str) -> tuple[int, str, str]:
    return call(capsys, "play", "--strategies", "simple,simple,simple", "--games", "2",
                "--log", str(target), *extra)


def test_log_writes_through_a_symlink(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    real = tmp_path / "real.jsonl"
    real.write_text("old\n", encoding="utf-8")
    os.chmod(real, 0o600)
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    code, out, err = _play_log(capsys, link)
    assert (code, err) == (0, ""), err
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert len(read_log(real)) >= 2
    assert stat.S_IMODE(real.stat().st_mode) == 0o600  # the file keeps its mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.jsonl", "real.jsonl"]


def _device(tmp_path: Path, name: str, minor: int) -> Path:
    """A private copy of /dev/null (minor 3) or /dev/full (minor 7): a test gone wrong must
    not replace the machine's own."""
    path = tmp_path / name
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    except (PermissionError, AttributeError):
        pytest.skip("creating a device file needs root")
    return path


def test_log_into_a_device_writes_it_without_replacing_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    null = _device(tmp_path, "null", 3)
    before = os.stat(null)
    code, out, err = _play_log(capsys, null)
    assert (code, err) == (0, ""), err
    after = os.stat(null)
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino
    assert [p.name for p in tmp_path.iterdir()] == ["null"]


def test_log_into_a_full_device_names_it(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    full = _device(tmp_path, "full", 7)
    code, out, err = _play_log(capsys, full)
    assert (code, out) == (2, "")
    assert err == f"ginbox: error: cannot write the log {full}: No space left on device\n"
    assert stat.S_ISCHR(os.stat(full).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["full"]


def test_read_only_log_is_refused_not_replaced(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "hands.jsonl"
    log.write_text("keep me\n", encoding="utf-8")
    os.chmod(log, 0o444)
    code, out, err = _play_log(capsys, log)
    assert (code, out) == (2, "")
    assert err == (f"ginbox: error: cannot write the log {log}: the file is read-only (mode "
                   "0444); make it writable or choose another file\n")
    assert log.read_text(encoding="utf-8") == "keep me\n"
    assert stat.S_IMODE(log.stat().st_mode) == 0o444
    assert [p.name for p in tmp_path.iterdir()] == ["hands.jsonl"]


# --------------------------------------------------- item 8: strategies that cannot be built


@pytest.mark.parametrize(("spec", "problem"), [
    ("{m}:BadInit", "TypeError: BadInit.__init__() missing 1 required keyword-only argument: "
                    "'depth'"),
    ("{m}:BadInit:depth=2,deep=1", "TypeError: BadInit.__init__() got an unexpected keyword "
                                   "argument 'deep'"),
    ("{m}:IntInit:x=abc", "ValueError: invalid literal for int() with base 10: 'abc'"),
])
def test_play_refuses_a_strategy_that_cannot_be_built(
        badbots: Path, capsys: pytest.CaptureFixture[str], spec: str, problem: str) -> None:
    text = spec.format(m=_bots())
    code, out, err = call(capsys, "play", "--strategies", f"simple,{text},simple", "--log",
                          str(badbots / "x.jsonl"))
    assert (code, out) == (2, "")
    assert err == (f"ginbox: error: cannot create strategy {text!r} (seat 1): {problem}\n")
    assert not (badbots / "x.jsonl").exists()


def test_run_refuses_a_strategy_that_cannot_be_built_before_writing(
        badbots: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (badbots / "a.toml").write_text(textwrap.dedent(f'''
        name = "bad"
        seed = 1
        games = 6
        [[arms]]
        name = "one"
        strategies = ["simple", "{_bots()}:IntInit:x=abc", "simple"]
    '''), encoding="utf-8")
    code, out, err = call(capsys, "run", "a.toml", "--out", "res", "--jobs", "2", "--quiet")
    assert (code, out) == (2, "")
    assert err == (f"ginbox: error: a.toml: arms[0].strategies[1]='{_bots()}:IntInit:x=abc': "
                   "cannot create the strategy: ValueError: invalid literal for int() with "
                   "base 10: 'abc'\n")
    assert not (badbots / "res").exists()


# -------------------------------------------------- item 13: OS errors name path and action


def test_empty_log_name_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "play", "--strategies", "simple,simple,simple", "--log", "")
    assert (code, out, err) == (2, "", "ginbox: error: --log needs a file name, got ''\n")


def test_log_under_a_file_names_the_path(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    code, out, err = _play_log(capsys, tmp_path / "afile" / "sub" / "h.jsonl")
    assert (code, out) == (2, "")
    assert err == (f"ginbox: error: cannot write the log {tmp_path}/afile/sub/h.jsonl: Not a "
                   "directory\n")


def test_empty_module_name_names_the_strategy(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "play", "--strategies", ":Bot,simple,simple")
    assert (code, out) == (2, "")
    assert err == ("ginbox: error: cannot import strategy ':Bot': the module name before ':' "
                   "is empty\n")


def test_full_standard_output_is_named(tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "sim", "strategies"], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=300)
    assert proc.returncode == 2
    assert proc.stderr == ("ginbox: error: cannot write to standard output: No space left on "
                           "device\n")


# ------------------------------------------------------ item 14: no temporaries left behind


def test_full_disk_leaves_no_temporary(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    def full(self: Any, records: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    real_fdopen = os.fdopen

    class FullOnClose(io.TextIOWrapper):
        def close(self) -> None:
            super().close()
            raise OSError(errno.ENOSPC, "No space left on device")

    def fdopen(fd: int, *args: Any, **kwargs: Any) -> Any:
        f = real_fdopen(fd, *args, **kwargs)
        return FullOnClose(f.detach(), encoding="utf-8", newline="\n")

    monkeypatch.setattr(LogWriter, "write_all", full)
    monkeypatch.setattr(os, "fdopen", fdopen)
    code, out, err = _play_log(capsys, tmp_path / "h.jsonl")
    assert (code, out) == (2, "")
    assert err == (f"ginbox: error: cannot write the log {tmp_path}/h.jsonl: No space left on "
                   "device\n")
    assert list(tmp_path.iterdir()) == []


def test_play_removes_temporaries_of_killed_runs(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    pid = int(dead.stdout)
    left = tmp_path / f".h.jsonl.ginbox-{pid}.0a1b2c3d.tmp"
    left.write_text("half a log", encoding="utf-8")
    alive = tmp_path / f".h.jsonl.ginbox-{os.getpid()}.0a1b2c3e.tmp"  # a running ginbox's
    alive.write_text("being written", encoding="utf-8")
    theirs = tmp_path / ".h.jsonl.other.tmp"  # not ginbox's: never touched
    theirs.write_text("someone else's", encoding="utf-8")
    code, out, err = _play_log(capsys, tmp_path / "h.jsonl")
    assert (code, err) == (0, "")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [alive.name, theirs.name, "h.jsonl"])


# ------------------------------------------------------ item 15: first-run compile notice


def test_slow_warm_up_announces_the_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    from sim.cli import games as cli

    said: list[str] = []
    cli.announce_if_slow(lambda: said.append("done"), lambda: said.append("notice"), 60.0)
    assert said == ["done"]
    said.clear()
    import threading

    noticed = threading.Event()

    def slow() -> None:
        assert noticed.wait(60)  # finishes only once the notice was given
        said.append("done")

    cli.announce_if_slow(slow, lambda: (said.append("notice"), noticed.set()), 0.01)
    assert said == ["notice", "done"]


def test_play_warms_up_before_the_progress_bar(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from sim.cli import games as cli

    events: list[str] = []
    monkeypatch.setattr(cli, "announce_if_slow",
                        lambda work, notice, delay: (notice(), work(), events.append("warm")))
    monkeypatch.setattr(cli, "stderr_is_terminal", lambda: True)
    code, out, err = call(capsys, "play", "--strategies", "simple,simple,simple", "--games",
                          "3")
    assert code == 0 and events == ["warm"]
    assert err.startswith("compiling the engine (first run only)...\n")


# --------------------------------------------------------------------- item 16: smaller


def test_decision_timeout_stops_a_hanging_strategy(badbots: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    text = f"{_bots()}:Sleeper"
    code, out, err = call(capsys, "play", "--strategies", f"simple,{text},simple",
                          "--decision-timeout", "0.2")
    assert (code, out) == (2, "")
    assert err.startswith(f"ginbox: error: strategy {text!r} (seat 1) did not decide within "
                          "0.2 s (--decision-timeout) in game 0, hand 0")
    with pytest.raises(StrategyError, match=r"did not decide within 0\.2 s"):
        play_games(["simple", text, "simple"], decision_timeout=0.2)


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"games": "3"}, TypeError, "games='3' is not an integer: expected an integer 0.."),
    ({"games": 2.0}, TypeError, "games=2.0 is not an integer: expected an integer 0.."),
    ({"games": True}, TypeError, "games=True is not an integer: expected an integer 0.."),
    ({"seed": 1.5}, TypeError, "seed=1.5 is not an integer: expected an integer 0..2**63-1"),
    ({"seed": -1}, ValueError, "seed=-1 is out of range: expected an integer 0..2**63-1"),
    ({"decision_timeout": 0}, ValueError,
     "decision_timeout=0 is out of range: expected a number of seconds > 0, or None"),
    ({"decision_timeout": "1"}, TypeError,
     "decision_timeout='1' is not a number: expected a number of seconds > 0, or None"),
])
def test_play_games_checks_argument_types(kwargs: dict[str, Any], error: type[Exception],
                                          message: str) -> None:
    with pytest.raises(error) as info:
        play_games("simple,simple,simple", **kwargs)
    assert str(info.value).startswith(message)


def _log_of(tmp_path: Path, games: int) -> tuple[Path, list[dict[str, Any]]]:
    records = play_games("greedy-knock,simple,random", games=games, seed=3, log=True).log
    assert records is not None
    path = tmp_path / "hands.jsonl"
    path.write_text("".join(dumps_record(r) + "\n" for r in records), encoding="utf-8")
    return path, records


def test_replay_keeps_only_the_game_it_shows(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from sim.records import replay

    path, records = _log_of(tmp_path, 6)
    seen: list[list[int]] = []
    real = replay.replay_game

    def spy(recs: Any) -> Any:
        seen.append(sorted({r["game"] for r in recs}))
        return real(recs)

    monkeypatch.setattr(replay, "replay_game", spy)
    monkeypatch.setattr(sim.cli.games, "read_log", None, raising=False)  # never loads it all
    code, out, err = call(capsys, "replay", str(path), "--game", "4", "--hand", "0")
    assert (code, err) == (0, "")
    assert seen == [[4]]
    seen.clear()
    code, out, err = call(capsys, "replay", str(path), "--all")
    assert (code, err) == (0, "")
    assert seen == [[g] for g in range(6)]
    code, out, err = call(capsys, "replay", str(path), "--game", "9")
    assert (code, err) == (2, f"ginbox: error: {path} has no game 9: it holds games 0..5\n")


def test_replay_refuses_rules_that_change_mid_game(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    _, records = _log_of(tmp_path, 1)
    assert len(records) >= 2
    records[1]["rules_config"] = {**records[1]["rules_config"], "target": 50}
    path = tmp_path / "changed.jsonl"
    path.write_text("".join(dumps_record(r) + "\n" for r in records), encoding="utf-8")
    code, out, err = call(capsys, "replay", str(path))
    assert (code, out) == (2, "")
    assert err == (f"ginbox: error: {path}: game 0 hand 1: the rules change mid-game "
                   "(rules_config differs from hand 0's): a game is played under one set of "
                   "rules\n")
