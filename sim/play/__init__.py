"""The game loop: the one seat step, the compiled batch loop, the game object
(:class:`sim.play.state.GameState`) every Python front end steps, its lineup and seeds, and
the Python driver over it (the experiments that run it are :mod:`sim.runs`)."""
