"""Rules variants: one module each, a declaration and its hooks (python-chess's
``chess.variant`` is the model: the core calls hook points, a variant fills them).

* :mod:`sim.engine.variants.base`: :class:`Variant`, the hook points and the design (compiled
  hooks called by name behind a branch on the variant's rules slot, on the variant's own blocks
  of the engine's arrays; Python hooks the core loops over);
* :mod:`sim.engine.variants.oklahoma`: the upcard sets the knock limit, spades double;
* :mod:`sim.engine.variants.hollywood`: three games scored at once.

:data:`VARIANTS` is the registry, in the order their presets follow the core's and their
words follow each other. CONTRIBUTING.md, "Adding a rules variant", says what to write.
"""

from __future__ import annotations

from typing import Any

from sim.engine.variants.base import Variant
from sim.engine.variants.hollywood import HOLLYWOOD
from sim.engine.variants.oklahoma import OKLAHOMA

#: Every rules variant, in the order the core asks them.
VARIANTS: tuple[Variant, ...] = (OKLAHOMA, HOLLYWOOD)


def played_by(rules: Any) -> tuple[Variant, ...]:
    """The variants ``rules`` (a :class:`sim.engine.rules.Rules`) play, in registry order."""
    return tuple(v for v in VARIANTS if v.played(rules))


__all__ = ["VARIANTS", "Variant", "played_by"]
