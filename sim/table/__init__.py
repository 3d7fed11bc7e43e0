"""People at the table: a ``human`` seat among the bots, in a terminal and in a web page.

:mod:`sim.table.human_table` steps one game through the engine's one game loop
(:func:`sim.play.step.seat_move`), stopping at each human decision; :mod:`sim.table.terminal`
is ``ginbox play`` with a ``human`` seat, :mod:`sim.table.web` the page of ``ginbox serve``.
docs/play.md describes both.
"""

from sim.table.human_table import Event, Hint, Table

__all__ = ["Event", "Hint", "Table"]
