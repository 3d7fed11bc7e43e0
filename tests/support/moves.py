"""The words tests use to script moves, and their kernel move codes.

Scripts read as play (``pass``, ``take``, ``stock``, ``knock``, a card to discard); the hand
runner, the scripted strategies and the referee's hand records share this one vocabulary.
"""

from __future__ import annotations

from sim.engine.cards import parse_card
from sim.engine.hand import (
    MOVE_DRAW_DISCARD,
    MOVE_DRAW_STOCK,
    MOVE_KNOCK,
    MOVE_NO_KNOCK,
    MOVE_PASS,
)

MOVE_WORDS = {
    "pass": MOVE_PASS,
    "take": MOVE_DRAW_DISCARD,
    "draw_discard": MOVE_DRAW_DISCARD,
    "stock": MOVE_DRAW_STOCK,
    "draw_stock": MOVE_DRAW_STOCK,
    "knock": MOVE_KNOCK,
    "no_knock": MOVE_NO_KNOCK,
}


def move_code(move: str | int) -> int:
    """Kernel move code of a word (``pass``, ``take``, ``stock``, ``knock``, ...) or a card."""
    if isinstance(move, int):
        return move
    return MOVE_WORDS[move] if move in MOVE_WORDS else parse_card(move)
