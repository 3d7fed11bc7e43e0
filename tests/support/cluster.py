"""A Dask cluster of separate processes on 127.0.0.1, for the tests: a ``dask scheduler`` and
``dask worker --nthreads 1`` processes started with Dask's own commands, each in its own
process group, and every one of them stopped (SIGKILL) when the cluster is closed, whatever
happened; :meth:`ProcessCluster.orphans` says which of them still run (it must be none)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

DASK = str(Path(sys.executable).with_name("dask"))
START_TIMEOUT_S = 60.0


class ProcessCluster:
    """Start with :meth:`start_scheduler` and :meth:`add_worker`; always :meth:`close`."""

    def __init__(self, directory: Path, env: dict[str, str] | None = None) -> None:
        self.directory = directory
        self.env = {**os.environ, **(env or {})}
        self.processes: list[subprocess.Popen[bytes]] = []
        self.scheduler: subprocess.Popen[bytes] | None = None
        self.address = ""
        self.workers: dict[str, subprocess.Popen[bytes]] = {}  # address -> process
        self._count = 0

    def _start(self, argv: list[str], name: str) -> subprocess.Popen[bytes]:
        log = open(self.directory / f"{name}.log", "wb")  # noqa: SIM115 - the process owns it
        process = subprocess.Popen(argv, cwd=self.directory, env=self.env, stdout=log,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
        log.close()
        self.processes.append(process)
        return process

    def start_scheduler(self) -> str:
        """A new scheduler on a free port; returns its address (``tcp://127.0.0.1:port``)."""
        self._count += 1
        info = self.directory / f"scheduler-{self._count}.json"
        self.scheduler = self._start(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(info)], f"scheduler-{self._count}")
        deadline = time.monotonic() + START_TIMEOUT_S
        while not info.exists():
            self._check_alive(self.scheduler, "scheduler", deadline)
            time.sleep(0.1)
        while True:
            try:
                self.address = json.loads(info.read_text())["address"]
                return self.address
            except (ValueError, KeyError):  # the file is being written
                self._check_alive(self.scheduler, "scheduler", deadline)
                time.sleep(0.1)

    def add_worker(self, n: int = 1, **env: str) -> list[str]:
        """Start ``n`` single-threaded workers (no nanny: one process each, which dies for
        good when killed) and wait until the scheduler has them; returns their addresses."""
        from distributed import Client

        started: dict[str, subprocess.Popen[bytes]] = {}
        for _ in range(n):
            self._count += 1
            started[f"w{self._count}"] = self._start(
                [DASK, "worker", self.address, "--nthreads", "1", "--no-nanny",
                 "--host", "127.0.0.1", "--no-dashboard", "--death-timeout", "30",
                 "--name", f"w{self._count}", "--local-directory",
                 str(self.directory / f"w{self._count}")], f"worker-{self._count}")
        deadline = time.monotonic() + START_TIMEOUT_S
        with Client(self.address, timeout="20s") as client:
            while True:
                info = client.scheduler_info()["workers"]
                by_name = {w["name"]: a for a, w in info.items()}
                if all(name in by_name for name in started):
                    break
                for p in started.values():
                    self._check_alive(p, "worker", deadline)
                time.sleep(0.1)
        for name, p in started.items():
            self.workers[by_name[name]] = p
        return sorted(by_name[name] for name in started)

    def kill_worker(self, address: str) -> None:
        """SIGKILL one worker."""
        process = self.workers.pop(address)
        _kill(process)

    def kill_scheduler(self) -> None:
        assert self.scheduler is not None
        _kill(self.scheduler)
        self.scheduler = None

    def client(self) -> Any:
        from distributed import Client

        return Client(self.address, timeout="20s")

    def close(self) -> None:
        """SIGKILL every process this cluster started (its whole process group), and reap."""
        for process in self.processes:
            _kill(process)
        self.workers.clear()
        self.scheduler = None

    def orphans(self) -> list[int]:
        """The pids this cluster started that are still running (after :meth:`close`)."""
        alive = []
        for process in self.processes:
            if process.poll() is None:
                alive.append(process.pid)
                continue
            try:  # a process left in one of our process groups
                os.killpg(process.pid, 0)
                alive.append(process.pid)
            except (ProcessLookupError, PermissionError):
                pass
        return alive

    def _check_alive(self, process: subprocess.Popen[bytes], what: str,
                     deadline: float) -> None:
        if process.poll() is not None:
            raise RuntimeError(f"the {what} exited with {process.returncode}: see "
                               f"{self.directory}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the {what} did not start in {START_TIMEOUT_S:g} s: see "
                               f"{self.directory}")

    def __enter__(self) -> ProcessCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _kill(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process's group (it was started in a session of its own) and reap it."""
    try:  # the group, even when its leader is gone: nothing of ours may outlive the test
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
