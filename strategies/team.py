"""Team policies that need more than one strategy's answer: ``consensus``.

Under ``team_policy = "consensus"`` (three-handed) the captain's and the advisor's (the
sitter's) strategies both score the captain's options and the team plays the best combined
score. Only strategies that expose option values can score options; today that is ``mc``
(:func:`strategies.mc.consensus`). When either of the two does not, the captain's strategy
decides alone, exactly as under ``team_policy = "captain"``.
"""

from __future__ import annotations

import numpy as np

from sim.engine.jit import kernel
from strategies._dispatch import decide
from strategies.mc import consensus
from strategies.registry import BUILTINS

MC_ID = BUILTINS["mc"].strategy_id
"""The one registered strategy with option values."""


@kernel
def team_decide(captain_id: int, advisor_id: int, decision: int, captain_params: np.ndarray,
                advisor_params: np.ndarray, view: np.ndarray, after: np.ndarray,
                mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """The captain's move under ``consensus``: both strategies' option values combined when
    both have them, else the captain's own decision."""
    if captain_id == MC_ID and advisor_id == MC_ID:
        return consensus(decision, captain_params, advisor_params, view, after, mem, rng,
                         scratch)
    return decide(captain_id, decision, captain_params, view, after, mem, rng, scratch)


def has_option_values(strategy_id: int | None) -> bool:
    """Can this compiled strategy score options for ``consensus``?"""
    return strategy_id == MC_ID
