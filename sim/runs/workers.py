"""Worker processes that do not outlive the ``ginbox run`` that started them.

loky workers are separate processes: if the run is killed (``kill -9``, an OOM kill, a lost
terminal), nothing tells them, and they would keep playing and hold the command's stdout and
stderr open, so a parent waiting on its pipes hangs. :func:`die_with_parent` is the loky worker
initializer that prevents this. Kept apart so that a worker imports nothing else to run it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

_PR_SET_PDEATHSIG = 1  # from <sys/prctl.h>
_POLL_S = 1.0


def die_with_parent(parent: int) -> None:
    """Make this worker exit when ``parent`` (the run) dies.

    Linux: the kernel sends SIGKILL at the parent's death (``prctl(PR_SET_PDEATHSIG)``), at
    once and without a thread. Elsewhere, or when prctl is unavailable, a daemon thread polls
    the parent pid and exits when it changes. A parent already dead before this runs is
    caught by the check that follows.
    """
    armed = False
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:
        os._exit(1)
    if not armed:
        threading.Thread(target=_watch, args=(parent,), daemon=True,
                         name="ginbox-parent-watch").start()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_POLL_S)
    os._exit(1)


def usable_cpus() -> int:
    """The cores this process may run on (its affinity on Linux), the default worker count."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def warm() -> int:
    """Load the engine in this worker (a pool's warm-up) and return its pid."""
    import sim.play.driver  # noqa: F401, PLC0415  (the engine, compiled functions included)
    import sim.runs.storage  # noqa: F401, PLC0415  (pyarrow and pandas, which chunks use)

    return os.getpid()
