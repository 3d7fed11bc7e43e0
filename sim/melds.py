"""Least deadwood at the top of the package, a public contract kept stable: ``min_deadwood``
and ``best_discard`` are :mod:`sim.engine.melds`' (the one implementation)."""

from sim.engine.melds import best_discard, min_deadwood

__all__ = ["best_discard", "min_deadwood"]
