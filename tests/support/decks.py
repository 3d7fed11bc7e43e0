"""Cards and scripted deals: decks built card by card, so a test can work out by hand every
value it expects (deadwood, melds, lay-offs, points) from the hands it deals.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from sim.engine.cards import DECK, card_str, parse_card, parse_cards

ALL_CARDS: frozenset[int] = frozenset(int(c) for c in DECK)
FULL = sum(1 << c for c in ALL_CARDS)


# Hands for scripted deals (the tests work out every expected value from these by hand).

# Two hands without a single meld: nobody can knock for a while.
JUNK_DEALER = "KS QH JD TC 8S 6H 4D 2C AH 9D"  # deadwood 70
JUNK_NONDEALER = "KH QD JC TS 8H 6D 4C 2S AD 9C"  # deadwood 70

# Taking 7H the knocker holds AS-2S-3S, 4H-5H-6H, 7C-7D-7H, 2C and KD: discarding KD leaves 2.
KNOCKER = "AS 2S 3S 4H 5H 6H 7C 7D 2C KD"
# No meld and nothing to lay off on the knocker's melds: 10+10+10+10+9+9+5+8+3+4 = 78.
DEFENDER = "KS KH QD JC 9C 9D 5S 8H 3D 4C"

# Drawing 9H: AS-4S, 5H-6H-7H, 9C-9D-9H; discarding KD is gin.
GIN_HAND = "AS 2S 3S 4S 5H 6H 7H 9C 9D KD"
# 8C 8D is no meld: 10+10+10+10+8+8+5+2+3+4 = 70. 5S would lay off on AS-4S, but not on gin.
GIN_DEFENDER = "KS KH QD JC 8C 8D 5S 2H 3D 4C"


def cards(text: str) -> set[str]:
    """Canonical card strings of ``text`` as a set."""
    return {card_str(c) for c in parse_cards(text)}


def mask(cs: Iterable[int]) -> int:
    """Hand mask of card codes."""
    m = 0
    for c in cs:
        m |= 1 << int(c)
    return m


def make_deck(dealer: str, nondealer: str, upcard: str, stock: str = "") -> np.ndarray:
    """A 52-card deck in deal order: dealer's 10, non-dealer's 10, the upcard, then the stock.

    ``stock`` gives the first stock cards (next to draw first); the rest of the deck follows in
    code order.
    """
    d, n, u, s = parse_cards(dealer), parse_cards(nondealer), parse_card(upcard), parse_cards(stock)
    assert len(d) == 10 and len(n) == 10, "each hand needs exactly 10 cards"
    head = d + n + [u] + s
    assert len(set(head)) == len(head), f"a card is dealt twice: {head}"
    rest = [int(c) for c in DECK if int(c) not in set(head)]
    deck = np.array(head + rest, np.int64)
    assert len(deck) == 52
    return deck


def shuffled_deck(seed: int) -> np.ndarray:
    """A shuffled deck from a numpy seed (for hands whose cards do not matter)."""
    return np.random.default_rng(seed).permutation(DECK).astype(np.int64)
