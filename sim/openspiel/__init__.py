"""ginbox in OpenSpiel: its games as the Python game ``python_ginbox``, its bots as
``pyspiel.Bot``s on OpenSpiel's own ``gin_rummy`` (``pip install .[openspiel]``).

Importing this package registers ``python_ginbox`` with ``pyspiel.register_game``::

    import pyspiel
    import sim.openspiel
    game = pyspiel.load_game("python_ginbox", {"rules": "eaai"})

:mod:`sim.openspiel.python_game` is the game (every move played by the engine's kernels),
:mod:`sim.openspiel.bots` the bot adapter for ``gin_rummy`` (:func:`bot`) and the world
sampler ISMCTS resamples with (:func:`resampler`), and ginbox's built-ins as bots on
``python_ginbox`` (:func:`builtin_bot`).
"""

from __future__ import annotations

from sim.openspiel.bots import bot, builtin_bot, resampler
from sim.openspiel.python_game import GAME_NAME, GinboxGame, GinboxState

__all__ = ["GAME_NAME", "GinboxGame", "GinboxState", "bot", "builtin_bot", "resampler"]
