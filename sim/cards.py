"""Card notation at the top of the package, a public contract kept stable: ``parse_cards``
and ``card_str`` are :mod:`sim.engine.cards`' (the one implementation)."""

from sim.engine.cards import card_str, parse_cards

__all__ = ["card_str", "parse_cards"]
