"""Ask ``mc`` why: its value for every option at one decision.

``mc`` (:mod:`strategies.mc`) plays the option of highest estimated game value, keeping its
base heuristic's choice unless another is clearly better. :func:`option_values` runs the very
same compiled search on a view array and returns what it found, so "why did it discard the
9?" has an answer in numbers: each candidate's mean chance of winning the game over the
sampled worlds. ``sim.analysis.explain`` finds the view of a decision in a logged hand.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from sim.engine.hand import new_after
from sim.engine.view import view_fields
from strategies.builtin import MEM_LEN, SCRATCH_LEN
from strategies.mc import search
from strategies.mc_worlds import S_CAND, S_COUNT, S_SUM, VALUE_ONE
from strategies.moves import move_name
from strategies.registry import parse_strategy


@dataclass(frozen=True)
class Option:
    """One candidate of a decision: the move (``"pass"``, ``"draw_discard"``,
    ``"draw_stock"``, ``"knock"``, ``"no_knock"`` or a card such as ``"9H"``), its move code,
    its mean game value over ``worlds`` sampled worlds (the chance of winning the game after
    playing it, as the rollouts estimate), whether it is the base heuristic's choice (listed
    first) and whether ``mc`` plays it."""

    move: str
    code: int
    value: float
    worlds: int
    base: bool
    chosen: bool


@functools.lru_cache(maxsize=16)
def _search_params(strategy: str) -> np.ndarray:
    """``mc``'s parameter row for a strategy text, parsed once: a review asks for the same
    judge twice at every decision (callers get a copy: the compiled search takes a writable
    array, and a read-only one would compile it a second time)."""
    spec = parse_strategy(strategy)
    if spec.name != "mc":
        raise ValueError(f"option values come from mc's search, not from {spec.text!r}")
    return spec.params_array()


def option_values(view: np.ndarray, strategy: str = "mc", seed: int = 0,
                  after: np.ndarray | None = None) -> list[Option]:
    """``mc``'s options at the decision ``view`` (a view array, as
    ``sim.engine.view.fill_view`` fills it), searched with the game's strategy stream seeded
    by ``seed``. ``strategy`` may set parameters (``"mc:samples=512"``). A decision with one
    legal candidate, or of a kind ``searched`` leaves out, returns one option (the base
    move) with no worlds. ``after``: the rules' turn scratch for the
    mover (a fresh one is fine)."""
    params = _search_params(strategy).copy()
    view = np.asarray(view, np.int64)
    scratch = np.zeros(SCRATCH_LEN, np.int64)
    rng = np.array([seed], np.uint64)
    best = search(int(view_fields(view).decision), params, view,
                  new_after() if after is None else after, np.zeros(MEM_LEN, np.int64), rng,
                  scratch)
    n, worlds = int(scratch[S_COUNT]), int(scratch[S_COUNT + 1])
    return [Option(move=move_name(int(scratch[S_CAND + i])), code=int(scratch[S_CAND + i]),
                   value=float(scratch[S_SUM + i]) / VALUE_ONE / max(1, worlds),
                   worlds=worlds, base=i == 0, chosen=i == best)
            for i in range(n)]
