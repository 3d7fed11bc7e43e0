"""The run directory's lock and its sessions: a live holder on this host is never taken over,
``--break-lock`` or not; a gone holder (dead, or its pid reused) is; another host's only when
asked; a run whose lock was taken over stops without writing; a killed session is closed by
the resume, and the wall time of every session counts."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

import sim.runs.runner as runner
from sim.cli import main
from sim.runs.runner import run_experiment
from sim.runs.storage import LockLost, _process_identity

SPEC: dict[str, Any] = {
    "name": "locked", "seed": 4, "games": 24, "chunk_size": 8,  # 3 chunks
    "arms": [{"name": "a", "rules": "eaai", "strategies": ["greedy-knock", "simple"]}],
}
TOML = """name = "locked"
seed = 4
games = 24
chunk_size = 8
[[arms]]
name = "a"
rules = "eaai"
strategies = ["greedy-knock", "simple"]
"""
HOST = socket.gethostname()


def run(out: Path, **kwargs: Any) -> Any:
    return run_experiment(SPEC, out=out, quiet=True, jobs=1, **kwargs)


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def finished(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    run(out)
    (tmp_path / "locked.toml").write_text(TOML)
    return out


@pytest.fixture
def live_pid() -> Iterator[int]:
    """A live process of this host that is not this one."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        yield child.pid
    finally:
        child.kill()
        child.wait()


def _resume(out: Path, *extra: str) -> list[str]:
    return ["run", str(out.parent / "locked.toml"), "--out", str(out), "--quiet", "--resume",
            *extra]


def test_break_lock_never_takes_a_live_holders_lock_on_this_host(
        finished: Path, live_pid: int, capsys: pytest.CaptureFixture[str]) -> None:
    lock = {"pid": live_pid, "host": HOST, "process": _process_identity(live_pid),
            "since": "2026-12-04T10:00:00+00:00", "token": "theirs"}
    (finished / ".lock").write_text(json.dumps(lock))
    manifest = (finished / "manifest.json").read_bytes()
    unsure = ("" if lock["process"] is not None else
              f"; this system cannot tell a reused pid: if pid {live_pid} is no ginbox run, "
              f"delete {finished / '.lock'}")
    for extra in ((), ("--break-lock",)):
        code, out, err = call(capsys, *_resume(finished, *extra))
        assert (code, out) == (2, "")
        assert err == (f"ginbox: error: {finished} is in use by another ginbox run (pid "
                       f"{live_pid} on this host, since 2026-12-04T10:00:00+00:00): wait for "
                       "it to finish or stop it; --break-lock takes over only the lock of a run "
                       f"that is gone{unsure}\n")
        assert json.loads((finished / ".lock").read_text()) == lock
        assert (finished / "manifest.json").read_bytes() == manifest


def test_a_reused_pid_is_not_the_holder(finished: Path, live_pid: int,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    if _process_identity(live_pid) is None:
        pytest.skip("this system does not tell a process's start time")
    lock = {"pid": live_pid, "host": HOST, "process": "another-boot/12345", "token": "old"}
    (finished / ".lock").write_text(json.dumps(lock))
    code, out, err = call(capsys, *_resume(finished))  # no --break-lock needed
    assert (code, err) == (0, "") and out.startswith("nothing to run: all 24 games")
    assert not (finished / ".lock").exists()


def test_another_hosts_lock_is_taken_over_only_when_asked_and_said(
        finished: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lock = {"pid": 42, "host": "lost-machine", "since": "2026-12-04T10:00:00+00:00"}
    (finished / ".lock").write_text(json.dumps(lock))
    code, out, err = call(capsys, *_resume(finished))
    assert (code, out) == (2, "")
    assert err == (f"ginbox: error: {finished} is locked by a run on host 'lost-machine' (pid "
                   "42, since 2026-12-04T10:00:00+00:00), which this machine cannot check: if "
                   "no run is active there (a lost machine), take the lock over with "
                   "--break-lock\n")
    code, out, err = call(capsys, *_resume(finished, "--break-lock"))
    assert code == 0 and out.startswith("nothing to run: all 24 games")
    assert err == ("ginbox: warning: took over the lock of the run on host 'lost-machine' "
                   "(pid 42), as --break-lock asks\n")
    session = json.loads((finished / "manifest.json").read_text())["sessions"][-1]
    assert session["lock_taken_over"] == {"host": "lost-machine", "pid": 42,
                                          "since": "2026-12-04T10:00:00+00:00"}
    assert not (finished / ".lock").exists()


def test_the_lock_records_its_holder_while_the_run_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []
    write = runner.write_chunk

    def spy(out: Path, *args: Any) -> None:
        seen.append(json.loads((out / ".lock").read_text()))
        write(out, *args)

    monkeypatch.setattr(runner, "write_chunk", spy)
    out = tmp_path / "run"
    run(out)
    assert len(seen) == 3 and all(s == seen[0] for s in seen)
    assert set(seen[0]) == {"pid", "host", "process", "since", "token"}
    assert (seen[0]["pid"], seen[0]["host"]) == (os.getpid(), HOST)
    assert seen[0]["process"] == _process_identity(os.getpid())
    assert not (out / ".lock").exists()


def test_a_run_whose_lock_is_taken_over_stops_and_leaves_the_new_lock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another host's run took the lock over with --break-lock while this one was writing:
    this run writes no more chunk and no manifest, and leaves the other's lock alone."""
    out = tmp_path / "run"
    theirs = {"pid": 7, "host": "other-machine", "token": "theirs"}
    write = runner.write_chunk
    written: list[Any] = []

    def taken_over_after_one(directory: Path, chunk: Any, data: bytes) -> None:
        write(directory, chunk, data)
        written.append(chunk)
        (directory / ".lock").write_text(json.dumps(theirs))
        (directory / "manifest.json").write_text("their manifest")

    monkeypatch.setattr(runner, "write_chunk", taken_over_after_one)
    with pytest.raises(LockLost) as info:
        run(out)
    assert str(info.value) == (f"the lock of {out} was taken over by another run (pid 7 on "
                               "host 'other-machine'): this run stopped without writing more; "
                               "the chunks it wrote are valid")
    assert len(written) == 1
    assert json.loads((out / ".lock").read_text()) == theirs
    assert (out / "manifest.json").read_text() == "their manifest"


def test_a_killed_session_is_closed_and_every_sessions_wall_time_counts(
        finished: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """As a kill -9 leaves it: the session still "running", its last save recorded, some
    chunks missing (tests/test_runner.py kills a real run)."""
    manifest = json.loads((finished / "manifest.json").read_text())
    killed = manifest["sessions"][0]
    killed.update(status="running", finished=None, wall_seconds=None, games_per_s=None,
                  last_saved="2026-12-04T10:00:12+00:00", started="2026-12-04T10:00:00+00:00")
    manifest.update(status="running")
    (finished / "manifest.json").write_text(json.dumps(manifest))
    (finished / "arm=0" / "chunk-00002.parquet").unlink()
    code, out, err = call(capsys, *_resume(finished))
    assert (code, err) == (0, "")
    manifest = json.loads((finished / "manifest.json").read_text())
    first, second = manifest["sessions"]
    assert {k: first[k] for k in ("status", "finished", "wall_seconds", "stopped")} == {
        "status": "interrupted", "finished": "2026-12-04T10:00:12+00:00", "wall_seconds": 12.0,
        "stopped": "ended without recording its end (killed); closed by the next session"}
    assert second["status"] == "complete" and second["games"] == 8
    total = round(12.0 + second["wall_seconds"], 3)
    assert manifest["timings"]["wall_seconds"] == total
    assert out.splitlines()[0] == (
        f"ran 8 games into {finished} in {second['wall_seconds']:.1f} s "
        f"({second['games_per_s']:,.0f} games/s); 16 were already played; 2 sessions, "
        f"{total:,.1f} s of wall time in all")
    report = (finished / "report.md").read_text()
    assert f", {total:,.1f} s of wall time over 2 sessions;" in report
    assert datetime.fromisoformat(second["last_saved"]) >= datetime.fromisoformat(
        second["started"])
