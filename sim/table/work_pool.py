"""The web table's game work off the event loop: a bounded pool of worker processes, each
request with a CPU deadline, so a costly request costs only its own client.

Every request that plays (a replay, the bots' moves, hints, a review, a log) runs in one of
``workers`` processes (``concurrent.futures``, started by ``spawn`` so a worker holds no copy
of the server's state). The event loop only parses, checks and waits, so ``/`` and
``/api/options`` answer at once whatever is being played. Three bounds:

* **a CPU deadline** per request (:data:`CPU_SECONDS`; a review :data:`REVIEW_CPU_SECONDS`),
  enforced in the worker by ``ITIMER_PROF``: past it the work stops and the client gets a 503
  saying so; the worker lives on;
* **a bounded queue**: at most ``workers + queue`` requests in flight, and of them at most
  ``workers - 1`` (at least one) hints and reviews, the costly kinds, so a worker is always
  left for moves; one more is refused at once with a 503 (try again) instead of waiting;
* **remembered failures**: a request that failed (a game that does not replay, a move refused,
  a deadline passed) is answered from memory the next time it is sent, at no cost (the game
  is a pure function of the request, so the answer cannot change).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import multiprocessing
import os
import signal
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from sim.table.guard import Refusal

CPU_SECONDS = 10.0
"""CPU seconds a request may use in its worker (a replay with the bots' moves, a hint)."""
REVIEW_CPU_SECONDS = 60.0
"""CPU seconds a review may use (it values every decision of the game)."""
COSTLY = frozenset({"hint", "review"})
"""The kinds of request that search (``mc`` as the judge), limited apart from the rest."""
REMEMBERED = 512
"""Failed requests remembered, the oldest forgotten first."""

#: The worker's handler of a request: ``(kind, data) -> (status, payload)``, set by
#: :func:`_start_worker` in each worker process.
_handler: Callable[[str, dict[str, Any]], tuple[int, Any]] | None = None


class _Deadline(Exception):
    """The request's CPU time ran out (raised by the ``SIGPROF`` handler)."""


def _start_worker(make_handler: Callable[..., Any], args: tuple[Any, ...]) -> None:
    global _handler
    _handler = make_handler(*args)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which stops us


def _expire(signum: int, frame: Any) -> None:
    raise _Deadline


def _run(kind: str, data: dict[str, Any], cpu_seconds: float) -> tuple[int, Any]:
    """One request in a worker, stopped when its CPU time passes ``cpu_seconds``."""
    assert _handler is not None
    previous = signal.signal(signal.SIGPROF, _expire)
    signal.setitimer(signal.ITIMER_PROF, cpu_seconds)
    try:
        return _handler(kind, data)
    except _Deadline:
        return 503, (f"this request needs more than {cpu_seconds:g} CPU seconds of the "
                     "server: refused")
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


class WorkPool:
    """``workers`` processes running ``make_handler(*args)``'s handler, with the bounds of the
    module docstring. Started at the first request, so an app that never plays starts none."""

    def __init__(self, make_handler: Callable[..., Any], args: tuple[Any, ...] = (),
                 workers: int | None = None, queue: int = 64) -> None:
        self.make_handler, self.args = make_handler, args
        self.workers = workers or usable_cores()
        self.limit = self.workers + queue
        self.costly_limit = max(1, self.workers - 1)
        self.in_flight = 0
        self.costly_in_flight = 0
        self._executor: ProcessPoolExecutor | None = None
        self._failed: OrderedDict[str, tuple[int, str]] = OrderedDict()
        self._lock = threading.Lock()

    def _pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_worker, initargs=(self.make_handler, self.args))
            return self._executor

    def start(self) -> None:
        """Start the workers now (each warms up: it compiles or loads what it plays)."""
        pool = self._pool()
        for _ in range(self.workers):
            pool.submit(os.getpid)

    async def run(self, kind: str, data: dict[str, Any]) -> Any:
        """The handler's payload for a 200, or :class:`Refusal` with its status and line."""
        # a digest, so the memory of failures stays small however large the requests were
        key = hashlib.sha256((kind + "\0" + json.dumps(data, sort_keys=True)).encode()
                             ).hexdigest()
        with self._lock:
            if key in self._failed:
                self._failed.move_to_end(key)
                raise Refusal(*self._failed[key])
        costly = kind in COSTLY
        if self.in_flight >= self.limit or (costly and
                                            self.costly_in_flight >= self.costly_limit):
            raise Refusal(503, f"the table is busy ({self.in_flight} requests being played): "
                               "try again in a moment")
        self.in_flight += 1
        self.costly_in_flight += costly
        cpu = REVIEW_CPU_SECONDS if kind == "review" else CPU_SECONDS
        try:
            status, payload = await asyncio.get_running_loop().run_in_executor(
                self._pool(), _run, kind, data, cpu)
        except BrokenProcessPool:
            self.close()  # a worker died (out of memory, killed): start afresh next time
            raise Refusal(503, "a worker of the table stopped: try again") from None
        finally:
            self.in_flight -= 1
            self.costly_in_flight -= costly
        if status == 200:
            return payload
        with self._lock:
            self._failed[key] = (status, payload)
            while len(self._failed) > REMEMBERED:
                self._failed.popitem(last=False)
        raise Refusal(status, payload)

    def close(self) -> None:
        """Stop the workers (a new request starts them again)."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            # a worker may be deep in a request or in its warm-up: stop it, do not wait
            # (``terminate_workers`` is Python 3.14's; before it, the processes are these)
            processes = list(getattr(executor, "_processes", {}).values())
            executor.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()


__all__ = ["CPU_SECONDS", "REMEMBERED", "REVIEW_CPU_SECONDS", "WorkPool", "usable_cores"]
