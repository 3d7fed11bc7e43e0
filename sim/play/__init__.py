"""The game loop: the seat step, the compiled batch loop, the game object
(:class:`sim.play.state.GameState`) with its seating and events, and the Python driver.

The experiment machinery that used to live here is :mod:`sim.runs`; its old paths
(``sim.play.runner``, ...) still import, with a ``DeprecationWarning``.
"""
