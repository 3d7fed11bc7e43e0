"""``ginbox run`` stopped by SIGTERM or ``kill -9`` leaves no worker behind.

The run plays a strategy that hangs, so the signal always lands while two loky workers are
playing. Each worker writes its pid before it hangs. SIGTERM must stop the run as Ctrl-C does
(workers stopped, manifest ``interrupted``, the resume command printed); ``kill -9`` of the run
must take its workers with it. In both cases the command's pipes close: a parent reading them
(``communicate``) is not left hanging by an orphan holding them open. Every wait is bounded.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads worker states from /proc")

REPO = Path(__file__).resolve().parent.parent
HANGBOT = '''
import os, pathlib, time
from strategies.base import BaseStrategy

class Hang(BaseStrategy):
    """Writes its worker's pid, then hangs until killed."""

    def _hang(self, view):
        folder = pathlib.Path(os.environ["HANG_DIR"])
        (folder / str(os.getpid())).write_text("")
        time.sleep(600)

    take_upcard = draw_from_discard = knock = discard = _hang
'''
TOML = """name = "hang"
seed = 1
games = 4
chunk_size = 1
[[arms]]
name = "hang"
strategies = ["hangbot:Hang", "random", "random"]
"""


def gone(pid: int) -> bool:
    """True once ``pid`` has exited (a zombie waiting for a reaper counts as exited)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def wait_until(condition: object, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def start(tmp_path: Path) -> tuple[subprocess.Popen[str], Path, Path, list[int]]:
    """A run hanging in two workers: the process, its results folder, the toml, worker pids."""
    mods, pids = tmp_path / "mods", tmp_path / "pids"
    mods.mkdir()
    pids.mkdir()
    (mods / "hangbot.py").write_text(HANGBOT)
    toml = tmp_path / "hang.toml"
    toml.write_text(TOML)
    out = tmp_path / "out"
    env = {**os.environ, "HANG_DIR": str(pids),
           "PYTHONPATH": os.pathsep.join([str(mods), str(REPO)])}
    proc = subprocess.Popen([sys.executable, "-m", "sim", "run", str(toml), "--out", str(out),
                             "--jobs", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=tmp_path)
    try:
        wait_until(lambda: len(list(pids.iterdir())) == 2 or proc.poll() is not None, 180,
                   "the workers never started playing")
        assert proc.poll() is None, proc.communicate()
    except BaseException:
        proc.kill()
        proc.communicate()
        raise
    workers = [int(p.name) for p in pids.iterdir()]
    assert os.getpid() not in workers and proc.pid not in workers
    return proc, out, toml, workers


def finish(proc: subprocess.Popen[str], workers: list[int]) -> tuple[str, str]:
    """The run's output once every holder of its pipes has closed them (bounded)."""
    try:
        stdout, stderr = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        for pid in workers:
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)
        proc.kill()
        proc.communicate()
        pytest.fail("the run's pipes stayed open: a worker outlived it")
    wait_until(lambda: all(gone(pid) for pid in workers), 30, "a worker outlived the run")
    return stdout, stderr


def test_sigterm_stops_the_run_like_ctrl_c(tmp_path: Path) -> None:
    proc, out, toml, workers = start(tmp_path)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = finish(proc, workers)
    assert proc.returncode == 128 + signal.SIGTERM, stderr
    assert stdout == "" and "Traceback" not in stderr and "leaked" not in stderr
    assert stderr.splitlines()[-1] == (
        f"ginbox: terminated (SIGTERM): 0 of 4 chunks are saved in {out}; finish the run "
        f"with: ginbox run {toml} --out {out} --resume")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "interrupted"
    assert manifest["sessions"][-1]["status"] == "interrupted"
    assert not (out / ".lock").exists()


def test_kill_9_of_the_run_takes_its_workers_with_it(tmp_path: Path) -> None:
    proc, _, _, workers = start(tmp_path)
    proc.kill()
    finish(proc, workers)
    assert proc.returncode == -signal.SIGKILL
