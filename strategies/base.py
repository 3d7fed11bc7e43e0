"""The strategy protocol: four decisions, each from a :class:`sim.engine.view.View`.

Write a plain Python class with these four methods and pass an instance (or its import path
``module:Class`` on the command line) wherever a built-in strategy name is accepted. It plays
through exactly the same rule kernels as the compiled built-ins, only slower.

* ``take_upcard(view) -> bool``: take the first upcard of the hand (else pass);
* ``draw_from_discard(view) -> bool``: draw the top of the discard pile (else the stock);
* ``knock(view) -> bool``: knock now; asked only when knocking is legal;
* ``discard(view) -> card``: the card to discard (a code or a string such as ``"KD"``); after a
  knock it must leave deadwood within ``view.knock_limit``.

``view.deadwood_after`` gives, for an 11-card decision, the least deadwood each legal discard
leaves; ``view.rng`` is a numpy Generator seeded from the game, for reproducible randomness.
Optionally define ``start_hand(view)`` to reset per-hand memory; it is called before the
player's first decision of each hand.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from sim.engine.cards import CARD_VALUE
from sim.engine.view import View


@runtime_checkable
class Strategy(Protocol):
    """What the engine asks a user strategy. See the module docstring."""

    def take_upcard(self, view: View) -> bool: ...

    def draw_from_discard(self, view: View) -> bool: ...

    def knock(self, view: View) -> bool: ...

    def discard(self, view: View) -> int | str: ...


class BaseStrategy:
    """A convenient base: never takes a card, knocks as soon as it may, discards the
    highest-value card among those leaving least deadwood.

    Subclass it and override what you need. ``name`` is shown in logs and reports.
    """

    name = "python"

    def take_upcard(self, view: View) -> bool:
        return False

    def draw_from_discard(self, view: View) -> bool:
        return False

    def knock(self, view: View) -> bool:
        return True

    def discard(self, view: View) -> int | str:
        legal = view.legal_discards
        return min(legal, key=lambda c: (view.deadwood_after[c], -CARD_VALUE[c], -c))
