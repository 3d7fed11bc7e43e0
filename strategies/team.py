"""Team policies that need more than one strategy's answer: ``consensus``.

Under ``team_policy = "consensus"`` (three-handed) the captain's and the advisor's (the
sitter's) strategies both score the captain's options and the team plays the best combined
score. Only strategies that declare option values (``StrategyInfo.consensus``, today ``mc``:
:func:`strategies.mc.consensus`) can score options, and the two seats' values are combined
when both are the same such strategy. Otherwise the captain's strategy decides alone, exactly
as under ``team_policy = "captain"``. The choice is the generated
:func:`strategies._dispatch.consensus_decide`, so a new strategy with option values needs no
edit here.
"""

from __future__ import annotations

import numpy as np

from sim.engine.jit import kernel
from strategies._dispatch import NOT_A_MOVE, OPTION_VALUES, consensus_decide, decide
from strategies.registry import BUILTINS

MC_ID = BUILTINS["mc"].strategy_id
"""``mc``'s id (for tests and examples; the team policy reads the declarations)."""


@kernel
def team_decide(team_ids: tuple[int, int], decision: int,
                team_params: tuple[np.ndarray, np.ndarray], view: np.ndarray, after: np.ndarray,
                mem: np.ndarray, rng: np.ndarray, scratch: np.ndarray) -> int:
    """The captain's move under ``consensus`` (``team_ids`` and ``team_params``: the
    captain's, then the advisor's): both strategies' option values combined when they can
    be, else the captain's own decision."""
    move = consensus_decide(team_ids, decision, team_params, view, after, mem, rng, scratch)
    if move != NOT_A_MOVE:
        return move
    return decide(team_ids[0], decision, team_params[0], view, after, mem, rng, scratch)


def has_option_values(strategy_id: int | None) -> bool:
    """Can this compiled strategy score options for ``consensus``?"""
    return strategy_id in OPTION_VALUES
