"""The rules at the top of the package, a public contract kept stable: ``Rules`` is
:mod:`sim.engine.rules`' (the one implementation: presets, options, ``Rules.resolve``)."""

from sim.engine.rules import Rules

__all__ = ["Rules"]
