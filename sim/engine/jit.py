"""The two compile decorators of the engine.

:func:`kernel` compiles the hot path: every function a hand runs through, from the searches to
the strategies. It turns off numba's reference-counting runtime (NRT) for the function. With
NRT on, numba brackets each array argument of each call with atomic increments and decrements
of the array's reference count. Measured on greedy-knock self-play, those calls took 38% of the
time (``perf``: ``NRT_incref`` 18%, ``NRT_decref`` 20%). The hot functions never allocate and
never keep an array past the call, so the counts are useless there. The price: a kernel cannot
create arrays (numba refuses to compile ``np.empty`` under it), so the hand path works in
buffers its caller allocates once: the showdown's workspace is the tail of the hand-state array
(``sim.engine.hand.HS_SHOWDOWN_WORK``), or ``sim.engine.showdown.new_showdown_work()`` from Python.

:func:`allocating` is plain ``njit(cache=True)`` for the few compiled functions that create
arrays: the batch drivers and the batch evaluators. They call kernels freely.

numba calls the option ``_nrt``: an option of its own compiler, documented with the runtime
(numba issue #2345 shows the same cost and the same cure).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import njit


def kernel(fn: Callable[..., Any] | None = None, /, *, signature: Any = None,
           **options: Any) -> Any:
    """``@kernel`` or ``@kernel(signature=..., inline="always")``: a cached compiled function
    without reference counting. It must not allocate arrays."""
    settings = {"cache": True, "_nrt": False, **options}

    def compile_(f: Callable[..., Any]) -> Any:
        return njit(signature, **settings)(f) if signature is not None else njit(**settings)(f)

    return compile_(fn) if fn is not None else compile_


def allocating(fn: Callable[..., Any]) -> Any:
    """A cached compiled function that may create arrays (reference counting on)."""
    return njit(cache=True)(fn)
