"""The showdown at the top of the package, a public contract kept stable: ``settle`` is
:mod:`sim.engine.showdown`'s (the one implementation)."""

from sim.engine.showdown import settle

__all__ = ["settle"]
