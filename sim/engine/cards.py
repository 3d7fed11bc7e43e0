"""Cards, their text notation, values and 64-bit hand masks.

A card is a small integer, its *code*: ``suit * 16 + rank`` with rank 0 (ace) .. 12 (king) and
suit 0..3 for S, H, D, C. The code is also the card's bit in a hand mask (a 64-bit integer). The
16-bit stride per suit leaves three empty bits above each king, so shifting a mask by one or two
places never carries a run across suits: run detection is plain bit arithmetic.

Text notation: rank character ``A23456789TJQK`` then suit character ``SHDC`` (``AS``, ``TD``).
Parsing also accepts lower case and ``10`` for ``T``; printing is always canonical.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby

import numpy as np

RANKS = "A23456789TJQK"
SUITS = "SHDC"
SUIT_STRIDE = 16
N_RANKS = 13
N_SUITS = 4
N_CODES = 64  # size of arrays indexed by card code

#: The 52 valid card codes in deck order (spades A..K, hearts, diamonds, clubs).
DECK = np.array([s * SUIT_STRIDE + r for s in range(N_SUITS) for r in range(N_RANKS)], np.int64)

#: Deadwood value by card code (0 for the unused codes): ace 1, 2-9 face value, T J Q K 10.
CARD_VALUE = np.zeros(N_CODES, np.int64)
for _code in DECK:
    CARD_VALUE[_code] = min(int(_code) % SUIT_STRIDE + 1, 10)

#: Mask of all 52 cards.
FULL_MASK = 0
for _code in DECK:
    FULL_MASK |= 1 << int(_code)

_ACCEPTED = "rank A23456789TJQK (or 10) then suit SHDC, e.g. 'AS', 'TD', '10h'"


def rank_of(card: int) -> int:
    """Rank index 0 (ace) .. 12 (king)."""
    return int(card) % SUIT_STRIDE


def suit_of(card: int) -> int:
    """Suit index 0..3 for S, H, D, C."""
    return int(card) // SUIT_STRIDE


def make_card(rank: int, suit: int) -> int:
    """Card code from rank index and suit index."""
    return suit * SUIT_STRIDE + rank


def is_card(card: int) -> bool:
    """True when ``card`` is one of the 52 valid codes."""
    if not isinstance(card, int | np.integer) or isinstance(card, bool):
        return False
    return 0 <= card < N_CODES and card % SUIT_STRIDE < N_RANKS


def card_value(card: int) -> int:
    """Deadwood value of one card."""
    return int(CARD_VALUE[_check_code(card)])


def parse_card(text: str) -> int:
    """Parse one card string such as ``'AS'``, ``'td'`` or ``'10H'``."""
    if not isinstance(text, str):
        raise ValueError(f"invalid card {text!r}: expected a string of {_ACCEPTED}")
    s = text.strip().upper()
    if s.startswith("10"):
        s = "T" + s[2:]
    if len(s) != 2 or s[0] not in RANKS or s[1] not in SUITS:
        raise ValueError(f"invalid card {text!r}: expected {_ACCEPTED}")
    return make_card(RANKS.index(s[0]), SUITS.index(s[1]))


def parse_cards(cards: str | Iterable[str | int]) -> list[int]:
    """Parse ``"AS TD KH"`` (spaces or commas) or a list of strings/codes into card codes.

    Duplicates are an error: a hand never holds the same card twice.
    """
    if isinstance(cards, str):
        items: list[str | int] = [t for t in cards.replace(",", " ").split() if t]
    else:
        items = list(cards)
    out: list[int] = []
    for item in items:
        if isinstance(item, str):
            out.append(parse_card(item))
        else:
            out.append(_check_code(item))
    seen: set[int] = set()
    for code in out:
        if code in seen:
            raise ValueError(f"duplicate card {card_str(code)!r} in {cards!r}")
        seen.add(code)
    return out


def card_str(card: int) -> str:
    """Canonical text of one card code, e.g. ``'TD'``."""
    code = _check_code(card)
    return RANKS[code % SUIT_STRIDE] + SUITS[code // SUIT_STRIDE]


def mask_cards(mask: int) -> list[int]:
    """Card codes in a mask, in ascending code order (suit, then rank)."""
    mask = int(mask)
    if mask < 0 or mask & ~FULL_MASK:
        raise ValueError(f"invalid hand mask {mask:#x}: it has bits outside the 52 card codes")
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def sort_for_display(cards: Iterable[int]) -> list[int]:
    """Cards in the order a card player fans a hand: by suit (S H D C), and within a suit by
    rank A 2 .. 9 T J Q K. The one order every front end shows a hand in (the terminal, the
    web table, replay and review)."""
    return sorted(_check_code(c) for c in cards)


def fan(cards: Iterable[int | str]) -> str:
    """Cards as text in :func:`sort_for_display` order, suits apart by two spaces:
    ``AS 2S 3S  6H  4C``; ``(none)`` for no cards."""
    codes = sort_for_display(parse_card(c) if isinstance(c, str) else c for c in cards)
    suits = groupby(codes, key=suit_of)
    return "  ".join(" ".join(card_str(c) for c in suit) for _, suit in suits) or "(none)"


def _check_code(card: int) -> int:
    if not is_card(card):
        raise ValueError(
            f"invalid card code {card!r}: expected suit*16+rank with suit 0..3, rank 0..12"
        )
    return int(card)
