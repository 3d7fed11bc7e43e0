"""The compiled batch loop: whole games with built-in strategies inside one compiled call.

It lives in the play layer, not the engine, because it is where the engine meets the
strategies: every game is :func:`sim.play.loop.play_game` (the one game loop, through the seat
step and the dispatcher :func:`strategies._dispatch.decide` generated from the strategy
registry), with no hooks.
"""

from __future__ import annotations

import numpy as np

from sim.engine.jit import allocating
from sim.play.loop import NO_HOOKS, play_game
from sim.play.step import Seating, Streams, new_tables, table_row


@allocating
def play_batch_kernel(seating: Seating, streams: Streams, first_game: int,
                      out: np.ndarray) -> None:
    """Play games ``first_game .. first_game + len(out) - 1`` with the built-ins of
    ``seating``, a statistics row each in ``out`` (``GO_*``); stop at the first game a move
    was refused in (its row has ``GO_ERROR`` set).

    Game ``g`` plays from stream ``g`` of ``streams`` (:class:`sim.play.step.Streams`), so
    results do not depend on how games are batched. Allocates one table
    (:func:`sim.play.step.new_tables`, no move log) for the whole batch.
    """
    table = table_row(new_tables(1, 0), 0)
    for i in range(out.shape[0]):
        if not play_game(seating, table, NO_HOOKS, streams, first_game + i, out[i]):
            return
