"""The package's layers, in import order, and the layers a page or docstring lists.

``LAYERS`` is the one list the architecture tests check imports against; any text that lists
the layers (``sim``'s docstring, the README's table) is compared with it through
:func:`documented_layers`, so a new layer cannot be left out of either.
"""

from __future__ import annotations

import re

# Each layer may import only itself and the layers before it.
# sim.play is the game loop; sim.runs, the experiment machinery (experiment files, runner,
# storage, cluster, pool, workers, progress), plays through it and nothing below it needs it.
# sim.io (atomic writes, spec files) is below everything: the strategies' table cache and every
# loader use it. sim.env (the learning environments) sits right after sim.play: it plays
# through the engine, asks the built-in strategies' dispatcher, writes hand logs with
# sim.records and shares the play layer's seeds and log lines; nothing below the CLI needs it.
# sim.openspiel (the OpenSpiel game and bots, the `openspiel` extra) sits on sim.env: its
# observations are the environments' encoding; nothing imports it. sim.learn (training by
# self-play, ``ginbox train``) plays through the runner's workers and the tuner's task pool.
LAYERS: tuple[str, ...] = (
    "sim.io", "sim.engine", "strategies", "sim.records", "sim.play", "sim.runs", "sim.env",
    "sim.openspiel",
    "sim.analysis", "sim.review", "sim.table", "sim.tune", "sim.league", "sim.learn", "sim.testing",
    "sim.bench",
    "sim.cli")

# The first module named on a list item or table row: :mod:`sim.play`, `sim/engine/`, ...
_ITEM = re.compile(r"^\s*(?:[*-]|\|)\s*(?::mod:)?`((?:sim|strategies)(?:[./][a-z_]+)*)(?:\.py)?/?`")


def layers() -> tuple[str, ...]:
    """The layers, lowest first."""
    return LAYERS


def layer_of(module: str) -> str | None:
    """The layer ``module`` belongs to (``sim.play.driver`` -> ``sim.play``), or None."""
    for layer in LAYERS:
        if module == layer or module.startswith(layer + "."):
            return layer
    return None


def documented_layers(text: str) -> list[str]:
    """The layers a text lists, in its order: the module (``:mod:`sim.play```, or a folder such
    as ``sim/engine/`` in backticks) that starts each list item or table row, as a layer."""
    found = []
    for line in text.splitlines():
        match = _ITEM.match(line)
        if match:
            found.append(layer_of(match[1].replace("/", ".")) or match[1])
    return found
